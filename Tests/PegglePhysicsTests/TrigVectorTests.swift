import Foundation
import PegglePhysics
import Testing

@Suite("Trig and Vec2")
struct TrigVectorTests {
    /// Trig's own sine and cosine stay within 1e-15 of the C library's over the angles the game uses.
    @Test func sinCosMatchFoundationOnDenseSweep() {
        var worstSin = 0.0, worstCos = 0.0
        var worstAt = 0.0
        let n = 200_000
        for i in 0...n {
            let x = -10 + 20 * Double(i) / Double(n)
            let es = abs(Trig.sin(x) - Foundation.sin(x)), ec = abs(Trig.cos(x) - Foundation.cos(x))
            if es > worstSin { worstSin = es; worstAt = x }
            worstCos = max(worstCos, ec)
        }
        #expect(worstSin <= 1e-15, "worst sin error \(worstSin) at \(worstAt)")
        #expect(worstCos <= 1e-15, "worst cos error \(worstCos)")
    }

    @Test(arguments: [0.0, Double.pi / 2, -Double.pi / 2, Double.pi, -Double.pi, Double.pi / 4, 3 * Double.pi / 2,
                      2 * Double.pi, 1e-300, -0.5, 0.5, 9.999, -9.999])
    func sinCosAtSpecialAngles(_ x: Double) {
        #expect(abs(Trig.sin(x) - Foundation.sin(x)) <= 1e-15)
        #expect(abs(Trig.cos(x) - Foundation.cos(x)) <= 1e-15)
    }

    @Test func exactValuesAtZeroAndQuarterTurns() {
        #expect(Trig.sin(0) == 0)
        #expect(Trig.cos(0) == 1)
        #expect(Trig.sin(.pi / 2) == 1)
        #expect(Trig.sin(-.pi / 2) == -1)
        #expect(Trig.cos(.pi) == -1)
        #expect(Trig.cos(-.pi) == -1)
        #expect(Trig.pi == Double.pi)
        // Odd and even symmetry hold bit for bit (the reduction is symmetric).
        for x in stride(from: 0.01, through: 10, by: 0.37) {
            #expect(Trig.sin(-x) == -Trig.sin(x))
            #expect(Trig.cos(-x) == Trig.cos(x))
        }
    }

    @Test func nonFiniteInputGivesNaN() {
        #expect(Trig.sin(.infinity).isNaN)
        #expect(Trig.cos(-.infinity).isNaN)
        #expect(Trig.sin(.nan).isNaN)
    }

    @Test func pythagoreanIdentityHolds() {
        for x in stride(from: -10.0, through: 10, by: 0.013) {
            let s = Trig.sin(x), c = Trig.cos(x)
            #expect(abs(s * s + c * c - 1) <= 1e-15)
        }
    }

    @Test func vectorHelpers() {
        let a = Vec2(3, 4), b = Vec2(-2, 5)
        #expect(a.dot(b) == 14)
        #expect(a.cross(b) == 23)
        #expect(b.cross(a) == -23)
        #expect(a.lengthSquared == 25)
        #expect(a.length == 5)
        #expect(a.normalized == Vec2(0.6, 0.8))
        #expect(Vec2(0, 0).normalized == Vec2(0, 0))
        #expect(a.perpendicular == Vec2(-4, 3))
        #expect(a.perpendicular.dot(a) == 0)
        #expect(Vec2(1, .nan).isFinite == false)
        #expect(Vec2(.infinity, 0).isFinite == false)
        #expect(a.isFinite)
    }

    /// Positive angles turn +x toward +y (clockwise on screen).
    @Test func rotationDirectionAndLength() {
        let r = Vec2(1, 0).rotated(by: .pi / 2)
        #expect(abs(r.x) < 1e-16 && r.y == 1)
        let q = Vec2(0, -1).rotated(by: .pi / 6)
        #expect(close(q, Vec2(0.5, -3.0.squareRoot() / 2), 1e-15))
        let v = Vec2(3, -7)
        for k in 0..<50 {
            let th = -5 + 0.2 * Double(k)
            #expect(abs(v.rotated(by: th).length - v.length) < 1e-14)
            #expect(v.rotated(by: th) == v.rotated(cos: Trig.cos(th), sin: Trig.sin(th)))
            #expect(close(v.rotated(by: th).rotated(by: -th), v, 1e-14))
        }
    }
}
