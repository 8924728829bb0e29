import PegglePhysics  // Trig: the normal variate uses the physics' own sin and cos

/// Seeded generator: xoshiro256** seeded through SplitMix64. A value type, so a copied game
/// state carries its own stream, and the same seed gives the same numbers on every machine.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable, Hashable, Codable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var sm = seed
        func splitMix() -> UInt64 {
            sm &+= 0x9E37_79B9_7F4A_7C15
            var z = sm
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform integer in `0..<n` (n > 0), unbiased, using only this generator's own arithmetic
    /// so results do not depend on the standard library's algorithm.
    public mutating func nextInt(below n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        let threshold = (0 &- bound) % bound
        while true {
            let r = next()
            let (hi, lo) = r.multipliedFullWidth(by: bound)
            if lo >= threshold { return Int(hi) }
        }
    }

    /// Uniform double in [0, 1) with 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Standard normal variate (Box-Muller with this module's own trig, for portability).
    public mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), 0x1.0p-53)
        let u2 = nextUnit()
        return (-2 * Self.log(u1)).squareRoot() * Trig.cos(2 * Trig.pi * u2)
    }

    /// Natural log for x in (0, 1], by argument reduction to [sqrt(1/2), sqrt(2)) and the
    /// atanh series; exact to a few ulps, identical on every machine.
    public static func log(_ x: Double) -> Double {
        var m = x.significand  // [1, 2)
        var e = Double(x.exponent)
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = 0.0, k = 1.0
        for _ in 0..<12 { sum += term / k; term *= s2; k += 2 }
        return 2 * sum + e * 0.6931471805599453
    }
}
