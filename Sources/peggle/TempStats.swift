// Temporary until PeggleAnalytics' Stats lands (same session).
enum Stats {
    static func wilson(successes: Int, trials: Int, z: Double = 1.959964) -> ClosedRange<Double> {
        guard trials > 0 else { return 0...1 }
        let n = Double(trials), p = Double(successes) / n, z2 = z * z
        let c = (p + z2 / (2 * n)) / (1 + z2 / n)
        let h = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return max(0, c - h)...min(1, c + h)
    }
}
