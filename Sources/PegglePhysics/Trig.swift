/// Sine and cosine written here rather than taken from the C library, so that every machine
/// computes the same bits (libm implementations differ in the last place). Polynomials are
/// fdlibm's kernels on [-pi/4, pi/4]; range reduction is Cody-Waite with a two-part pi/2,
/// accurate for |x| < 1e5, far beyond any angle the game uses.
public enum Trig {
    @usableFromInline static let pio2Hi = 1.57079632673412561417e+00
    @usableFromInline static let pio2Lo = 6.07710050650619224932e-11
    @usableFromInline static let invPio2 = 6.36619772367581382433e-01

    @inlinable static func kernelSin(_ x: Double) -> Double {
        let z = x * x
        let r = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
            + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
            + z * 1.58969099521155010221e-10)))
        return x + x * z * (-1.66666666666666324348e-01 + z * r)
    }

    @inlinable static func kernelCos(_ x: Double) -> Double {
        let z = x * x
        let r = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
            + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
            + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))))
        let hz = 0.5 * z
        let w = 1.0 - hz
        return w + (((1.0 - w) - hz) + z * r)
    }

    /// Quadrant and reduced argument: x = k*pi/2 + r with |r| <= ~pi/4.
    @inlinable static func reduce(_ x: Double) -> (Int, Double) {
        let k = (x * invPio2).rounded(.toNearestOrEven)
        let r = (x - k * pio2Hi) - k * pio2Lo
        return (Int(k) & 3, r)
    }

    /// Sine of `x` radians.
    @inlinable public static func sin(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        let (q, r) = reduce(x)
        switch q {
        case 0: return kernelSin(r)
        case 1: return kernelCos(r)
        case 2: return -kernelSin(r)
        default: return -kernelCos(r)
        }
    }

    /// Cosine of `x` radians.
    @inlinable public static func cos(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        let (q, r) = reduce(x)
        switch q {
        case 0: return kernelCos(r)
        case 1: return -kernelSin(r)
        case 2: return -kernelCos(r)
        default: return kernelSin(r)
        }
    }

    /// pi to double precision.
    public static let pi = 3.141592653589793
}
