import Foundation  // log1p, for the sigma axis

/// The report's charts as SVG elements with no XML declaration, so they can sit inside an HTML
/// page or be written as files of their own. Deterministic (same input, same bytes) and
/// well-formed XML (all text escaped), in the colours of the level pictures.
public enum SVGCharts {
    static let font = "DejaVu Sans, Verdana, Arial, sans-serif"
    static let fitColour = "#38e1ff"
    static let pointColour = "#ffffff"
    static let sigma50Colour = "#ffd166"
    static let winColour = SVGPalette.won
    static let orangeColour = SVGPalette.peg(.orange).hex
    static let gridColour = "#26324a"
    static let axisColour = "#5b6b86"

    static func n(_ v: Double) -> String { SVGText.number(v) }
    static func esc(_ s: String) -> String { SVGText.escape(s) }

    /// The horizontal position of `sigma` on a skill chart, 0...1: log(1 + sigma/s0) over
    /// log(1 + smax/s0), with s0 the smallest positive sigma. Linear near 0 and logarithmic past s0,
    /// so a doubling sweep (0, 0.01, 0.02, 0.04, ...) is spread evenly and sigma 0 still has a place.
    struct SigmaScale {
        var s0: Double
        var top: Double

        init(_ sigmas: [Double]) {
            s0 = sigmas.filter { $0 > 0 }.min() ?? 0.01
            top = log1p(max(sigmas.max() ?? 0, s0) / s0)
        }

        func callAsFunction(_ sigma: Double) -> Double { log1p(max(sigma, 0) / s0) / top }
    }

    /// "0.035", "≥ 0.16", "< 0" or "unknown": sigma50 in radians, for people.
    public static func sigma50Text(_ s: Sigma50, decimals: Int = 3) -> String {
        switch s {
        case let .value(v): SVGText.number(v, decimals: decimals)
        case let .atLeast(v): "\u{2265} " + SVGText.number(v, decimals: decimals)
        case let .below(v): "< " + SVGText.number(v, decimals: decimals)
        case .unknown: "unknown"
        }
    }

    /// A skill curve as a line chart: the win rate (0...1) of each sigma as a dot with its Wilson
    /// interval as an error bar over a shaded band, the isotonic fit as a line, the 1/2 line dashed,
    /// and sigma50 marked where the fit crosses it (or an arrow at the edge for a bound). Dots of
    /// sigmas with fewer than `minEpisodes` episodes are hollow. The sigma axis is
    /// `SigmaScale`'s, labelled at every sigma tried with its episode count under it.
    public static func skillCurve(_ curve: SkillCurve, minEpisodes: Int = 20, width: Double = 560,
                                  height: Double = 330) -> String {
        let left = 58.0, right = 26.0, top = 54.0, bottom = 62.0
        let pw = width - left - right, ph = height - top - bottom
        let points = curve.points
        let scale = SigmaScale(points.map(\.sigma))
        func x(_ s: Double) -> Double { left + pw * scale(s) }
        func y(_ rate: Double) -> Double { top + ph * (1 - min(max(rate, 0), 1)) }

        let title = "Skill curve: win rate of \(curve.agentLabel) against aim noise"
        var out = open(width: width, height: height, classes: "chart skill-curve", title: title)
        let shown = SVGText.wrap("Skill curve of " + curve.agentLabel, width: Int((width - 28) / 7.6), maxLines: 1)
        out += text(shown.first ?? "", x: 14, y: 20, size: 12.5, fill: SVGPalette.heading, bold: true)
        // Legend.
        var lx = 14.0
        let ly = 39.0
        out += "<circle cx=\"\(n(lx + 4))\" cy=\"\(n(ly - 4))\" r=\"3.5\" fill=\"\(pointColour)\"/>"
        out += "<line x1=\"\(n(lx + 4))\" y1=\"\(n(ly - 11))\" x2=\"\(n(lx + 4))\" y2=\"\(n(ly + 3))\" stroke=\"\(fitColour)\" stroke-opacity=\"0.7\"/>\n"
        out += text("win rate, 95% Wilson interval", x: lx + 13, y: ly, size: 10.5, fill: SVGPalette.text)
        lx += 190
        out += "<line x1=\"\(n(lx))\" y1=\"\(n(ly - 4))\" x2=\"\(n(lx + 18))\" y2=\"\(n(ly - 4))\" stroke=\"\(fitColour)\" stroke-width=\"2.5\"/>\n"
        out += text("isotonic fit", x: lx + 24, y: ly, size: 10.5, fill: SVGPalette.text)
        lx += 92
        out += "<circle cx=\"\(n(lx + 5))\" cy=\"\(n(ly - 4))\" r=\"4\" fill=\"\(sigma50Colour)\"/>\n"
        let relation = if case .value = curve.sigma50 { "= " } else { "" }
        out += text("\u{3c3}50 " + relation + sigma50Text(curve.sigma50) + (curve.sigma50 == .unknown ? "" : " rad"),
                    x: lx + 14, y: ly, size: 10.5, fill: sigma50Colour, bold: true, classes: "sigma50-label")

        // Grid and axes.
        out += "<rect class=\"plot\" x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(pw))\" height=\"\(n(ph))\" fill=\"\(SVGPalette.board)\"/>\n"
        for tick in [0.0, 0.25, 0.5, 0.75, 1] {
            let ty = y(tick)
            out += "<line x1=\"\(n(left))\" y1=\"\(n(ty))\" x2=\"\(n(left + pw))\" y2=\"\(n(ty))\" stroke=\"\(gridColour)\"/>\n"
            out += text(SVGText.number(tick, decimals: 2), x: left - 7, y: ty + 3.5, size: 10, fill: SVGPalette.dim,
                        anchor: "end")
        }
        for p in points {
            let tx = x(p.sigma)
            out += "<line x1=\"\(n(tx))\" y1=\"\(n(top))\" x2=\"\(n(tx))\" y2=\"\(n(top + ph))\" stroke=\"\(gridColour)\"/>\n"
            out += text(SVGText.number(p.sigma, decimals: 4), x: tx, y: top + ph + 15, size: 10, fill: SVGPalette.dim,
                        anchor: "middle")
            out += text("n=\(p.episodes)", x: tx, y: top + ph + 27, size: 9,
                        fill: p.episodes < minEpisodes ? SVGPalette.playing : SVGPalette.dim, anchor: "middle")
        }
        out += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(pw))\" height=\"\(n(ph))\" fill=\"none\" stroke=\"\(axisColour)\"/>\n"
        out += text("aim noise \u{3c3} (rad; log scale past \(SVGText.number(scale.s0, decimals: 4)))",
                    x: left + pw / 2, y: height - 8, size: 10.5, fill: SVGPalette.text, anchor: "middle")
        out += "<text x=\"14\" y=\"\(n(top + ph / 2))\" font-size=\"10.5\" fill=\"\(SVGPalette.text)\" text-anchor=\"middle\" "
        out += "transform=\"rotate(-90 14 \(n(top + ph / 2)))\">win rate</text>\n"
        // The 1/2 line.
        out += "<line class=\"half\" x1=\"\(n(left))\" y1=\"\(n(y(0.5)))\" x2=\"\(n(left + pw))\" y2=\"\(n(y(0.5)))\" "
        out += "stroke=\"\(sigma50Colour)\" stroke-opacity=\"0.55\" stroke-dasharray=\"5 4\"/>\n"

        guard !points.isEmpty else {
            out += text("no episodes", x: left + pw / 2, y: top + ph / 2, size: 12, fill: SVGPalette.dim, anchor: "middle")
            return out + "</svg>\n"
        }

        // The Wilson band, then the fit, then the error bars and dots on top.
        if points.count > 1 {
            let upper = points.map { "\(n(x($0.sigma))),\(n(y($0.winInterval.upperBound)))" }
            let lower = points.reversed().map { "\(n(x($0.sigma))),\(n(y($0.winInterval.lowerBound)))" }
            out += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(fitColour)\" "
            out += "fill-opacity=\"0.12\"/>\n"
            // The fit is linear in sigma between points (as sigma50's interpolation is), so it is
            // drawn through sampled points, which curve on the log scale.
            var fit: [String] = []
            for (a, b) in zip(points, points.dropFirst()) {
                for k in 0..<16 {
                    let t = Double(k) / 16
                    fit.append("\(n(x(a.sigma + (b.sigma - a.sigma) * t))),\(n(y(a.fitted + (b.fitted - a.fitted) * t)))")
                }
            }
            fit.append("\(n(x(points[points.count - 1].sigma))),\(n(y(points[points.count - 1].fitted)))")
            out += "<polyline class=\"fit\" points=\"\(fit.joined(separator: " "))\" fill=\"none\" stroke=\"\(fitColour)\" "
            out += "stroke-width=\"2.5\" stroke-linejoin=\"round\"/>\n"
        } else {
            let p = points[0]
            out += "<line class=\"fit\" x1=\"\(n(x(p.sigma) - 10))\" y1=\"\(n(y(p.fitted)))\" x2=\"\(n(x(p.sigma) + 10))\" "
            out += "y2=\"\(n(y(p.fitted)))\" stroke=\"\(fitColour)\" stroke-width=\"2.5\"/>\n"
        }
        for p in points {
            let px = x(p.sigma), lo = y(p.winInterval.lowerBound), hi = y(p.winInterval.upperBound)
            out += "<g class=\"point\" data-sigma=\"\(SVGText.number(p.sigma, decimals: 6))\">"
            let tip = "sigma \(SVGText.number(p.sigma, decimals: 4)): \(p.wins) of \(p.episodes) won, "
                + "interval \(SVGText.fixed(p.winInterval.lowerBound, decimals: 2))\u{2013}"
                + "\(SVGText.fixed(p.winInterval.upperBound, decimals: 2)), fitted \(SVGText.fixed(p.fitted, decimals: 3))"
            out += "<title>" + esc(tip) + "</title>"
            out += "<line x1=\"\(n(px))\" y1=\"\(n(lo))\" x2=\"\(n(px))\" y2=\"\(n(hi))\" stroke=\"\(pointColour)\" stroke-opacity=\"0.7\"/>"
            out += "<line x1=\"\(n(px - 4))\" y1=\"\(n(lo))\" x2=\"\(n(px + 4))\" y2=\"\(n(lo))\" stroke=\"\(pointColour)\" stroke-opacity=\"0.7\"/>"
            out += "<line x1=\"\(n(px - 4))\" y1=\"\(n(hi))\" x2=\"\(n(px + 4))\" y2=\"\(n(hi))\" stroke=\"\(pointColour)\" stroke-opacity=\"0.7\"/>"
            let hollow = p.episodes < minEpisodes
            out += "<circle cx=\"\(n(px))\" cy=\"\(n(y(p.winRate)))\" r=\"4\" fill=\"\(hollow ? SVGPalette.board : pointColour)\" "
            out += "stroke=\"\(pointColour)\" stroke-width=\"1.5\"/></g>\n"
        }

        // sigma50.
        let yh = y(0.5)
        switch curve.sigma50 {
        case let .value(s):
            let sx = x(s)
            out += "<g class=\"sigma50\"><line x1=\"\(n(sx))\" y1=\"\(n(yh))\" x2=\"\(n(sx))\" y2=\"\(n(top + ph))\" "
            out += "stroke=\"\(sigma50Colour)\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>"
            out += "<circle cx=\"\(n(sx))\" cy=\"\(n(yh))\" r=\"5\" fill=\"\(sigma50Colour)\" stroke=\"\(SVGPalette.board)\" stroke-width=\"1.5\"/></g>\n"
        case .atLeast:
            let ax = left + pw
            out += "<g class=\"sigma50\"><polygon points=\"\(n(ax - 2)),\(n(yh - 6)) \(n(ax + 9)),\(n(yh)) \(n(ax - 2)),\(n(yh + 6))\" "
            out += "fill=\"\(sigma50Colour)\"/></g>\n"
        case .below:
            let ax = left
            out += "<g class=\"sigma50\"><polygon points=\"\(n(ax + 2)),\(n(yh - 6)) \(n(ax - 9)),\(n(yh)) \(n(ax + 2)),\(n(yh + 6))\" "
            out += "fill=\"\(sigma50Colour)\"/></g>\n"
        case .unknown:
            break
        }
        return out + "</svg>\n"
    }

    /// A horizontal bar chart with two bars per agent row (one agent label at one sigma): the win
    /// rate with its Wilson interval as a whisker, and the mean fraction of orange pegs cleared.
    public static func agentBars(_ agents: [AgentLevelStats], width: Double = 560) -> String {
        let labelWidth = 210.0, valueWidth = 92.0, top = 58.0, rowHeight = 32.0, bottom = 14.0
        let bw = width - labelWidth - valueWidth - 14
        let height = top + rowHeight * Double(max(agents.count, 1)) + bottom
        func x(_ v: Double) -> Double { labelWidth + bw * min(max(v, 0), 1) }

        let title = "Win rate and orange pegs cleared, per agent"
        var out = open(width: width, height: height, classes: "chart agent-bars", title: title)
        out += text(title, x: 14, y: 20, size: 12.5, fill: SVGPalette.heading, bold: true)
        out += "<rect x=\"14\" y=\"31\" width=\"14\" height=\"9\" fill=\"\(winColour)\"/>\n"
        out += text("win rate (whisker: 95% Wilson interval)", x: 33, y: 39.5, size: 10.5, fill: SVGPalette.text)
        out += "<rect x=\"270\" y=\"31\" width=\"14\" height=\"9\" fill=\"\(orangeColour)\"/>\n"
        out += text("orange cleared (mean fraction)", x: 289, y: 39.5, size: 10.5, fill: SVGPalette.text)
        for tick in [0.0, 0.25, 0.5, 0.75, 1] {
            let tx = x(tick)
            out += "<line x1=\"\(n(tx))\" y1=\"\(n(top - 4))\" x2=\"\(n(tx))\" y2=\"\(n(height - bottom))\" stroke=\"\(gridColour)\"/>\n"
            out += text(SVGText.number(tick, decimals: 2), x: tx, y: top - 7, size: 9, fill: SVGPalette.dim, anchor: "middle")
        }
        if agents.isEmpty {
            out += text("no episodes", x: labelWidth + bw / 2, y: top + 20, size: 12, fill: SVGPalette.dim, anchor: "middle")
        }
        for (k, a) in agents.enumerated() {
            let y0 = top + rowHeight * Double(k)
            let label = "\(a.agentLabel) \u{3c3} \(SVGText.number(a.sigma, decimals: 4))"
            out += "<g class=\"agent-row\" data-agent=\"\(esc(a.agentLabel))\" data-sigma=\"\(SVGText.number(a.sigma, decimals: 6))\">"
            out += "<title>\(esc(label + ": won \(a.wins) of \(a.episodes)"))</title>\n"
            let shown = SVGText.wrap(a.agentLabel, width: 30, maxLines: 1).first ?? ""
            out += text(shown, x: labelWidth - 8, y: y0 + 12, size: 10.5, fill: SVGPalette.text, anchor: "end")
            out += text("\u{3c3} \(SVGText.number(a.sigma, decimals: 4)) \u{b7} n=\(a.episodes)", x: labelWidth - 8, y: y0 + 25,
                        size: 9.5, fill: SVGPalette.dim, anchor: "end")
            out += "<rect class=\"win\" x=\"\(n(x(0)))\" y=\"\(n(y0 + 3))\" width=\"\(n(x(a.winRate) - x(0)))\" height=\"11\" "
            out += "fill=\"\(winColour)\"/>"
            let wy = y0 + 8.5, lo = x(a.winInterval.lowerBound), hi = x(a.winInterval.upperBound)
            out += "<line x1=\"\(n(lo))\" y1=\"\(n(wy))\" x2=\"\(n(hi))\" y2=\"\(n(wy))\" stroke=\"\(pointColour)\" stroke-width=\"1.2\"/>"
            out += "<line x1=\"\(n(lo))\" y1=\"\(n(wy - 4))\" x2=\"\(n(lo))\" y2=\"\(n(wy + 4))\" stroke=\"\(pointColour)\" stroke-width=\"1.2\"/>"
            out += "<line x1=\"\(n(hi))\" y1=\"\(n(wy - 4))\" x2=\"\(n(hi))\" y2=\"\(n(wy + 4))\" stroke=\"\(pointColour)\" stroke-width=\"1.2\"/>\n"
            out += "<rect class=\"orange\" x=\"\(n(x(0)))\" y=\"\(n(y0 + 16))\" width=\"\(n(x(a.orangeFraction) - x(0)))\" "
            out += "height=\"9\" fill=\"\(orangeColour)\"/>\n"
            let vx = labelWidth + bw + 10
            out += text("win " + SVGText.fixed(a.winRate, decimals: 2), x: vx, y: y0 + 12, size: 10, fill: SVGPalette.text)
            out += text("orange " + SVGText.fixed(a.orangeFraction, decimals: 2), x: vx, y: y0 + 25, size: 10,
                        fill: SVGPalette.dim)
            out += "</g>\n"
        }
        return out + "</svg>\n"
    }

    // MARK: Pieces

    static func open(width: Double, height: Double, classes: String, title: String) -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"\(classes)\" width=\"\(n(width))\" "
        out += "height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"\(font)\" role=\"img\">\n"
        out += "<title>\(esc(title))</title>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(SVGPalette.panel)\"/>\n"
        return out
    }

    static func text(_ s: String, x: Double, y: Double, size: Double, fill: String, bold: Bool = false,
                     anchor: String? = nil, classes: String? = nil) -> String {
        var out = "<text"
        if let classes { out += " class=\"\(classes)\"" }
        out += " x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" fill=\"\(fill)\""
        if bold { out += " font-weight=\"bold\"" }
        if let anchor { out += " text-anchor=\"\(anchor)\"" }
        return out + ">\(esc(s))</text>\n"
    }
}
