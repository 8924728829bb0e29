import CBLAS

/// Batched scoring of feature rows by a population of weight vectors through OpenBLAS.
public enum BLAS {
    /// OpenBLAS runs on one thread: callers parallelise over games, and OpenBLAS's own spinning
    /// workers would only compete with them for the cores. (Its result does not depend on its
    /// thread count either way: gemm splits rows and columns, never the sum of one dot product.)
    private static let singleThreaded: Void = { openblas_set_num_threads(1) }()

    /// `scores (rows x members) = features (rows x width) · weightsᵀ`, where `weights` holds one
    /// row of `width` per member; everything row-major float32. One `cblas_sgemm` call.
    public static func scores(features: UnsafeBufferPointer<Float>, rows: Int, width: Int,
                              weights: UnsafeBufferPointer<Float>, members: Int,
                              into out: UnsafeMutableBufferPointer<Float>) {
        precondition(features.count >= rows * width && weights.count >= members * width && out.count >= rows * members,
                     "buffer too small for \(rows) x \(width) by \(members)")
        guard rows > 0 && members > 0 else { return }
        _ = singleThreaded
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(members), Int32(width),
                    1, features.baseAddress, Int32(width), weights.baseAddress, Int32(width),
                    0, out.baseAddress, Int32(members))
    }

    /// The same product as `scores` in a plain Swift loop (the reference the tests compare with).
    public static func referenceScores(features: [Float], rows: Int, width: Int, weights: [Float], members: Int) -> [Float] {
        var out = [Float](repeating: 0, count: rows * members)
        for r in 0..<rows {
            for m in 0..<members {
                var s: Float = 0
                for k in 0..<width { s += features[r * width + k] * weights[m * width + k] }
                out[r * members + m] = s
            }
        }
        return out
    }
}
