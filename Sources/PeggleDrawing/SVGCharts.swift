import Foundation  // log10 and pow, for the sigma axis
import PeggleDifficulty
import PeggleUtilities

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

    static func n(_ v: Double) -> String { DecimalText.number(v) }
    static func esc(_ s: String) -> String { SVGText.escape(s) }

    /// "0.035 (0.028–0.044)", "< 0.001", "> 1" or "unknown": sigma50 in radians, for people.
    public static func sigma50Text(_ s: Sigma50, decimals: Int = 3) -> String {
        func f(_ v: Double) -> String { DecimalText.significant(v, digits: 2, maxDecimals: decimals + 2) }
        return switch s {
        case let .value(v, low, high): "\(f(v)) (\(f(low))\u{2013}\(f(high)))"
        case let .below(b, _): "< " + f(b)
        case let .above(b, _): "> " + f(b)
        case .unknown: "unknown"
        }
    }

    /// A skill curve: the fitted win probability (the posterior median) with its 95% band against
    /// aim noise on a log axis from `SkillModel.lowest` to `highest` (with a column for sigma 0 at
    /// the left when games were played there), the games played as dots (area by games, colour by
    /// win rate), the 1/2 line, the tier edges, and sigma50 with its interval on the 1/2 line (an
    /// arrow at the edge for a bound).
    public static func skillCurve(_ curve: SkillCurve, tierEdges: TierEdges = TierEdges(), width: Double = 560,
                                  height: Double = 330) -> String {
        let left = 58.0, right = 26.0, top = 54.0, bottom = 62.0
        let zeroColumn = curve.points.contains { $0.sigma == 0 } ? 34.0 : 0
        let pw = width - left - right - zeroColumn, ph = height - top - bottom
        let lo = log10(SkillModel.lowest), hi = log10(SkillModel.highest)
        let x0 = left + zeroColumn
        func x(_ s: Double) -> Double {
            s <= 0 ? left + zeroColumn / 2 : x0 + pw * (min(max(log10(s), lo), hi) - lo) / (hi - lo)
        }
        func y(_ rate: Double) -> Double { top + ph * (1 - min(max(rate, 0), 1)) }

        let title = "Skill curve: win rate of \(curve.agentLabel) against aim noise"
        var out = open(width: width, height: height, classes: "chart skill-curve", title: title)
        let shown = SVGText.wrap("Skill curve of " + curve.agentLabel, width: Int((width - 28) / 7.6), maxLines: 1)
        out += text(shown.first ?? "", x: 14, y: 20, size: 12.5, fill: SVGPalette.heading, bold: true)
        // Legend.
        var lx = 14.0
        let ly = 39.0
        out += "<circle cx=\"\(n(lx + 4))\" cy=\"\(n(ly - 4))\" r=\"3.5\" fill=\"\(pointColour)\"/>"
        out += text("games (area: count)", x: lx + 13, y: ly, size: 10.5, fill: SVGPalette.text)
        lx += 128
        out += "<rect x=\"\(n(lx))\" y=\"\(n(ly - 9))\" width=\"18\" height=\"10\" fill=\"\(fitColour)\" fill-opacity=\"0.25\"/>"
        out += "<line x1=\"\(n(lx))\" y1=\"\(n(ly - 4))\" x2=\"\(n(lx + 18))\" y2=\"\(n(ly - 4))\" stroke=\"\(fitColour)\" stroke-width=\"2.5\"/>\n"
        out += text("fit, 95% band", x: lx + 24, y: ly, size: 10.5, fill: SVGPalette.text)
        lx += 100
        out += "<circle cx=\"\(n(lx + 5))\" cy=\"\(n(ly - 4))\" r=\"4\" fill=\"\(sigma50Colour)\"/>\n"
        out += text("\u{3c3}50 " + sigma50Text(curve.sigma50) + (curve.sigma50 == .unknown ? "" : " rad"),
                    x: lx + 14, y: ly, size: 10.5, fill: sigma50Colour, bold: true, classes: "sigma50-label")

        // Grid and axes.
        out += "<rect class=\"plot\" x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(pw + zeroColumn))\" height=\"\(n(ph))\" fill=\"\(SVGPalette.board)\"/>\n"
        for tick in [0.0, 0.25, 0.5, 0.75, 1] {
            let ty = y(tick)
            out += "<line x1=\"\(n(left))\" y1=\"\(n(ty))\" x2=\"\(n(x0 + pw))\" y2=\"\(n(ty))\" stroke=\"\(gridColour)\"/>\n"
            out += text(DecimalText.number(tick, decimals: 2), x: left - 7, y: ty + 3.5, size: 10, fill: SVGPalette.dim,
                        anchor: "end")
        }
        var ticks: [Double] = []
        for d in 0..<3 { ticks += [1, 3].map { SkillModel.lowest * pow(10, Double(d)) * $0 } }
        ticks.append(SkillModel.highest)
        for t in ticks {
            let tx = x(t)
            out += "<line x1=\"\(n(tx))\" y1=\"\(n(top))\" x2=\"\(n(tx))\" y2=\"\(n(top + ph))\" stroke=\"\(gridColour)\"/>\n"
            out += text(DecimalText.number(t, decimals: 3), x: tx, y: top + ph + 15, size: 10, fill: SVGPalette.dim, anchor: "middle")
        }
        if zeroColumn > 0 {
            out += text("0", x: x(0), y: top + ph + 15, size: 10, fill: SVGPalette.dim, anchor: "middle")
            out += "<line x1=\"\(n(x0))\" y1=\"\(n(top))\" x2=\"\(n(x0))\" y2=\"\(n(top + ph))\" stroke=\"\(axisColour)\" stroke-dasharray=\"2 3\"/>\n"
        }
        // Tier edges, and each tier's name in the middle of its stretch of the axis.
        let edges = [SkillModel.lowest, tierEdges.veryHard, tierEdges.hard, tierEdges.medium, SkillModel.highest]
        for edge in edges.dropFirst().dropLast() {
            let tx = x(edge)
            out += "<line class=\"tier-edge\" x1=\"\(n(tx))\" y1=\"\(n(top))\" x2=\"\(n(tx))\" y2=\"\(n(top + ph))\" "
            out += "stroke=\"\(axisColour)\" stroke-opacity=\"0.8\" stroke-dasharray=\"1 3\"/>\n"
        }
        for (k, tier) in [Tier.veryHard, .hard, .medium, .easy].enumerated() {
            let mid = (x(edges[k]) + x(edges[k + 1])) / 2
            out += text(tier.rawValue, x: mid, y: top + 11, size: 8.5, fill: SVGPalette.dim, anchor: "middle")
        }
        out += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(pw + zeroColumn))\" height=\"\(n(ph))\" fill=\"none\" stroke=\"\(axisColour)\"/>\n"
        let games = curve.points.reduce(0) { $0 + $1.episodes }
        out += text("aim noise \u{3c3} (rad, log scale) \u{b7} \(games) game\(games == 1 ? "" : "s") at \(curve.points.count) "
                    + "\u{3c3}\(curve.points.count == 1 ? "" : "s")",
                    x: left + (pw + zeroColumn) / 2, y: height - 14, size: 10.5, fill: SVGPalette.text, anchor: "middle")
        out += "<text x=\"14\" y=\"\(n(top + ph / 2))\" font-size=\"10.5\" fill=\"\(SVGPalette.text)\" text-anchor=\"middle\" "
        out += "transform=\"rotate(-90 14 \(n(top + ph / 2)))\">win rate</text>\n"
        // The 1/2 line.
        out += "<line class=\"half\" x1=\"\(n(left))\" y1=\"\(n(y(0.5)))\" x2=\"\(n(x0 + pw))\" y2=\"\(n(y(0.5)))\" "
        out += "stroke=\"\(sigma50Colour)\" stroke-opacity=\"0.55\" stroke-dasharray=\"5 4\"/>\n"

        guard !curve.points.isEmpty else {
            out += text("no games", x: left + pw / 2, y: top + ph / 2, size: 12, fill: SVGPalette.dim, anchor: "middle")
            return out + "</svg>\n"
        }

        // The band and the fitted curve (sigma > 0), then the games on top.
        let band = curve.band.filter { $0.sigma > 0 }
        if band.count > 1 {
            let upper = band.map { "\(n(x($0.sigma))),\(n(y($0.high)))" }
            let lower = band.reversed().map { "\(n(x($0.sigma))),\(n(y($0.low)))" }
            out += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(fitColour)\" "
            out += "fill-opacity=\"0.18\"/>\n"
            out += "<polyline class=\"fit\" points=\"\(band.map { "\(n(x($0.sigma))),\(n(y($0.middle)))" }.joined(separator: " "))\" "
            out += "fill=\"none\" stroke=\"\(fitColour)\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>\n"
        }
        if let zero = curve.band.first(where: { $0.sigma == 0 }), zeroColumn > 0 {
            let zx = x(0)
            out += "<g class=\"band-zero\"><line x1=\"\(n(zx))\" y1=\"\(n(y(zero.low)))\" x2=\"\(n(zx))\" y2=\"\(n(y(zero.high)))\" "
            out += "stroke=\"\(fitColour)\" stroke-opacity=\"0.5\" stroke-width=\"8\"/>"
            out += "<line x1=\"\(n(zx - 7))\" y1=\"\(n(y(zero.middle)))\" x2=\"\(n(zx + 7))\" y2=\"\(n(y(zero.middle)))\" "
            out += "stroke=\"\(fitColour)\" stroke-width=\"2.5\"/></g>\n"
        }
        for p in curve.points {
            let px = x(p.sigma)
            out += "<g class=\"point\" data-sigma=\"\(DecimalText.number(p.sigma, decimals: 6))\">"
            let tip = "sigma \(DecimalText.number(p.sigma, decimals: 5)): \(p.wins) of \(p.episodes) won"
            out += "<title>" + esc(tip) + "</title>"
            let r = 2.2 + 1.6 * Double(p.episodes).squareRoot()
            out += "<circle cx=\"\(n(px))\" cy=\"\(n(y(p.winRate)))\" r=\"\(n(min(r, 14)))\" fill=\"\(pointColour)\" "
            out += "fill-opacity=\"0.55\" stroke=\"\(pointColour)\" stroke-width=\"1\"/></g>\n"
        }

        // sigma50 with its interval on the 1/2 line.
        let yh = y(0.5)
        switch curve.sigma50 {
        case let .value(s, low, high):
            let sx = x(s)
            out += "<g class=\"sigma50\"><line x1=\"\(n(x(low)))\" y1=\"\(n(yh))\" x2=\"\(n(x(high)))\" y2=\"\(n(yh))\" "
            out += "stroke=\"\(sigma50Colour)\" stroke-width=\"3\"/>"
            out += "<line x1=\"\(n(sx))\" y1=\"\(n(yh))\" x2=\"\(n(sx))\" y2=\"\(n(top + ph))\" "
            out += "stroke=\"\(sigma50Colour)\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>"
            out += "<circle cx=\"\(n(sx))\" cy=\"\(n(yh))\" r=\"5\" fill=\"\(sigma50Colour)\" stroke=\"\(SVGPalette.board)\" stroke-width=\"1.5\"/></g>\n"
        case let .above(b, _):
            let bx = x(b), ax = x0 + pw
            out += "<g class=\"sigma50\"><line x1=\"\(n(bx))\" y1=\"\(n(yh))\" x2=\"\(n(ax))\" y2=\"\(n(yh))\" "
            out += "stroke=\"\(sigma50Colour)\" stroke-width=\"3\"/>"
            out += "<polygon points=\"\(n(ax - 2)),\(n(yh - 6)) \(n(ax + 9)),\(n(yh)) \(n(ax - 2)),\(n(yh + 6))\" "
            out += "fill=\"\(sigma50Colour)\"/></g>\n"
        case let .below(b, _):
            let bx = x(b), ax = x0
            out += "<g class=\"sigma50\"><line x1=\"\(n(ax))\" y1=\"\(n(yh))\" x2=\"\(n(bx))\" y2=\"\(n(yh))\" "
            out += "stroke=\"\(sigma50Colour)\" stroke-width=\"3\"/>"
            out += "<polygon points=\"\(n(ax + 2)),\(n(yh - 6)) \(n(ax - 9)),\(n(yh)) \(n(ax + 2)),\(n(yh + 6))\" "
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
            out += text(DecimalText.number(tick, decimals: 2), x: tx, y: top - 7, size: 9, fill: SVGPalette.dim, anchor: "middle")
        }
        if agents.isEmpty {
            out += text("no episodes", x: labelWidth + bw / 2, y: top + 20, size: 12, fill: SVGPalette.dim, anchor: "middle")
        }
        for (k, a) in agents.enumerated() {
            let y0 = top + rowHeight * Double(k)
            let label = "\(a.agentLabel) \u{3c3} \(DecimalText.number(a.sigma, decimals: 4))"
            out += "<g class=\"agent-row\" data-agent=\"\(esc(a.agentLabel))\" data-sigma=\"\(DecimalText.number(a.sigma, decimals: 6))\">"
            out += "<title>\(esc(label + ": won \(a.wins) of \(a.episodes)"))</title>\n"
            let shown = SVGText.wrap(a.agentLabel, width: 30, maxLines: 1).first ?? ""
            out += text(shown, x: labelWidth - 8, y: y0 + 12, size: 10.5, fill: SVGPalette.text, anchor: "end")
            out += text("\u{3c3} \(DecimalText.number(a.sigma, decimals: 4)) \u{b7} n=\(a.episodes)", x: labelWidth - 8, y: y0 + 25,
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
            out += text("win " + DecimalText.fixed(a.winRate, decimals: 2), x: vx, y: y0 + 12, size: 10, fill: SVGPalette.text)
            out += text("orange " + DecimalText.fixed(a.orangeFraction, decimals: 2), x: vx, y: y0 + 25, size: 10,
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
