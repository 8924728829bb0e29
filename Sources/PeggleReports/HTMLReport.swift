import PeggleDifficulty
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// The difficulty report as one self-contained HTML page.
public enum HTMLReport {
    /// One self-contained page (inline CSS and inline SVG, no scripts, no external links): a title,
    /// the generation `facts` (label, value) in the order given, a summary table in the order of
    /// `ratings` (`DifficultyRater` sorts hardest first: rank, level, tier, sigma50, difficulty and
    /// each agent's win rate with its Wilson interval at that agent's smallest sigma), then one
    /// `<section class="level">` per rating: its picture (`levels[levelHash]` drawn by
    /// `SVGRenderer` under `rules`; a note when missing), its skill curve, a bar chart of win
    /// rates and orange-cleared fractions per agent, its warnings and a table of every agent row.
    ///
    /// The page is XHTML-compatible HTML5 (`<!DOCTYPE html>`, then a well-formed
    /// `<html xmlns="http://www.w3.org/1999/xhtml">` tree, all elements closed, only XML's own
    /// entities), so an XML parser reads it. All text is escaped. Deterministic: no clock; the
    /// date, if wanted, is one of `facts`.
    ///
    /// `pegRates` (by level hash) adds the heatmap: on the level's picture a ring around each
    /// orange peg coloured by its lost-with rate, with a legend under the picture.
    ///
    /// `kinds` orders the summary's agent columns (pass the rating's `RatingOptions.kindOrder`);
    /// `people` counts each level's players (`HumanGames`).
    public static func render(_ ratings: [LevelRating], levels: [String: Level], facts: [(String, String)],
                              rules: Rules = Rules(), pegRates: [String: LevelPegRates] = [:],
                              kinds: KindOrder = KindOrder(), people: [String: Int] = [:]) -> String {
        var out = "<!DOCTYPE html>\n"
        out += "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\" xml:lang=\"en\">\n<head>\n"
        out += "<meta charset=\"utf-8\"/>\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
        out += "<title>Peggle Gym: level difficulty</title>\n"
        out += "<style>\n" + css + "</style>\n</head>\n<body>\n"

        // Header.
        let games = ratings.reduce(0) { $0 + $1.agents.reduce(0) { $0 + $1.episodes } }
        out += "<header>\n<h1>Level difficulty</h1>\n"
        out += "<p class=\"lead\">\(ratings.count) level\(ratings.count == 1 ? "" : "s"), \(games) game"
        out += "\(games == 1 ? "" : "s"). Hardest first. <b>\u{3c3}50</b> is the aim noise (radians) at which the "
        out += "skill agent, planning for its own noise, wins half its games: the smaller, the more precise a player must "
        out += "be. It is given as the estimate with its 95% interval, from a psychometric function fitted to every "
        out += "game (docs/metrics.md).</p>\n"
        if !facts.isEmpty {
            out += "<table class=\"facts\">\n"
            for (label, value) in facts { out += "<tr><th>\(esc(label))</th><td>\(esc(value))</td></tr>\n" }
            out += "</table>\n"
        }
        out += "</header>\n<main>\n"

        // Summary.
        let labels = agentColumns(ratings, kinds: kinds)
        out += "<div class=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary-table\">\n<thead><tr>"
        out += "<th>Rank</th><th>Level</th><th>Tier</th><th>\u{3c3}50 (rad) [95%]</th><th>Skill games</th>"
        for label in labels { out += "<th class=\"agent\">\(esc(label))</th>" }
        // People's games, every player together, only when someone played (docs/reports.md).
        let anyHumans = ratings.contains { HumanGames($0) != nil }
        if anyHumans { out += "<th class=\"agent\">Humans</th>" }
        out += "<th>Warnings</th></tr></thead>\n<tbody>\n"
        for (k, r) in ratings.enumerated() {
            out += "<tr><td class=\"num\">\(r.rank.map(String.init) ?? "\u{2013}")</td>"
            out += "<td><a href=\"#\(anchor(k))\">\(esc(r.levelName))</a></td>"
            out += "<td>\(tierBadges(r))</td>"
            out += "<td class=\"num\">\(esc(SVGCharts.sigma50Text(r.sigma50)))</td>"
            out += "<td class=\"num\">\(r.skill.map { String($0.fit.games) } ?? "\u{2013}")</td>"
            for label in labels {
                let rows = r.agents.filter { $0.agentLabel == label }
                if let a = rows.min(by: { $0.sigma < $1.sigma }) {
                    out += "<td class=\"rate\" title=\"\(esc("won \(a.wins) of \(a.episodes) at sigma \(DecimalText.number(a.sigma, decimals: 4))"))\">"
                    out += "\(DecimalText.fixed(a.winRate, decimals: 2)) <span class=\"ci\">\(interval(a.winInterval))</span>"
                    if a.sigma != 0 { out += " <span class=\"ci\">at \u{3c3} \(DecimalText.number(a.sigma, decimals: 4))</span>" }
                    out += "</td>"
                } else {
                    out += "<td class=\"rate none\">\u{2013}</td>"
                }
            }
            if anyHumans { out += HumanGames(r, people: people).map(humanCell) ?? "<td class=\"rate none\">\u{2013}</td>" }
            out += "<td class=\"num\">\(r.warnings.isEmpty ? "" : "<span class=\"warn\">\(r.warnings.count)</span>")</td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        out += "<p class=\"note\">Tier: from the 95% interval of \u{3c3}50; two badges when it straddles a tier edge. "
        out += "Agent columns: win rate at the agent's smallest \u{3c3} on the level, with its 95% Wilson interval."
        if anyHumans { out += " Humans: every person's games in the studio together (games, win rate and its 95% Wilson interval)." }
        out += "</p>\n</div>\n"

        // One section per level.
        for (k, r) in ratings.enumerated() {
            out += "<section class=\"level\" id=\"\(anchor(k))\" data-level-hash=\"\(esc(r.levelHash))\">\n"
            out += "<h2>\(r.rank.map { "<span class=\"rank\">#\($0)</span> " } ?? "")\(esc(r.levelName)) \(tierBadges(r))</h2>\n"
            out += "<p class=\"meta\">\u{3c3}50 <b>\(esc(SVGCharts.sigma50Text(r.sigma50)))</b>"
            if r.sigma50 != .unknown { out += " rad" }
            if let skill = r.skill {
                let f = skill.fit
                out += " \u{b7} slope \(DecimalText.number(f.slope, decimals: 2)) \u{b7} ceiling \(DecimalText.fixed(f.ceiling, decimals: 2))"
                out += " \u{b7} floor \(DecimalText.fixed(f.floor, decimals: 2)) \u{b7} \(f.games) games (\(f.wins) won)"
                out += " \u{b7} skill agent \(esc(skill.agentLabel))"
            }
            out += " \u{b7} <span class=\"hash\">\(esc(r.levelHash))</span></p>\n"
            if let h = HumanGames(r, people: people) {
                out += "<p class=\"meta humans\">Human playtests: <b>\(h.games)</b> game\(h.games == 1 ? "" : "s") by \(h.players) "
                out += "player\(h.players == 1 ? "" : "s"), \(h.wins) won: win rate <b>\(DecimalText.fixed(h.winRate, decimals: 2))</b> "
                out += "<span class=\"ci\">\(interval(h.winInterval))</span> beside \u{3c3}50 \(esc(SVGCharts.sigma50Text(r.sigma50)))</p>\n"
            }
            if !r.warnings.isEmpty {
                out += "<ul class=\"warnings\">\n"
                for w in r.warnings { out += "<li>\(esc(w))</li>\n" }
                out += "</ul>\n"
            }
            out += "<div class=\"figures\">\n"
            out += "<figure class=\"picture\">"
            if let level = levels[r.levelHash] {
                if let rates = pegRates[r.levelHash] {
                    out += inline(SVGRenderer(rules: rules).render(level: level, rings: rings(rates)), suffix: String(k))
                    out += heatLegend(rates)
                } else {
                    out += inline(SVGRenderer(rules: rules).render(level: level), suffix: String(k))
                }
            } else {
                out += "<p class=\"missing\">No level file for this hash: no picture.</p>"
            }
            out += "</figure>\n"
            out += "<figure class=\"chart\">"
            if let skill = r.skill {
                out += SVGCharts.skillCurve(skill)
            } else {
                out += "<p class=\"missing\">No skill curve: the skill agent did not play this level.</p>"
            }
            out += "</figure>\n"
            // One bar and one table row per agent at its best aim; the skill curve shows the rest.
            let best = bestAim(r.agents)
            out += "<figure class=\"chart\">" + SVGCharts.agentBars(best) + "</figure>\n"
            out += "</div>\n"
            out += agentTable(best, all: r.agents)
            out += "</section>\n"
        }
        out += "</main>\n<footer><p>Peggle Gym difficulty report. Every formula: docs/metrics.md.</p></footer>\n"
        out += "</body>\n</html>\n"
        return out
    }

    // MARK: Pieces

    static func esc(_ s: String) -> String { SVGText.escape(s) }

    /// The id of the `k`th level's section (level names and hashes are not safe ids).
    static func anchor(_ k: Int) -> String { "level-\(k + 1)" }

    /// The tier, or every tier the 95% interval of sigma50 reaches when it straddles an edge.
    static func tierBadges(_ r: LevelRating) -> String {
        r.tierSpan.count > 1 ? r.tierSpan.map(tierBadge).joined(separator: " ") : tierBadge(r.tier)
    }

    /// Each agent label's row at its smallest sigma, in the order given.
    static func bestAim(_ agents: [AgentLevelStats]) -> [AgentLevelStats] {
        var seen = Set<String>()
        return agents.filter { seen.insert($0.agentLabel).inserted }
    }

    static func tierBadge(_ tier: Tier) -> String {
        let cls = tier.rawValue.replacingOccurrencesOfSpace()
        return "<span class=\"tier tier-\(cls)\">\(esc(tier.rawValue))</span>"
    }

    /// One ring per orange peg with a lost-with rate; none when no counted game was lost.
    static func rings(_ rates: LevelPegRates) -> [PegRing] {
        rates.pegs.compactMap { p in
            guard let lost = p.lostWithRate else { return nil }
            var title = "peg \(p.pegID): left in \(percent(lost)) of \(rates.gamesLost) lost games"
            if let hit = p.hitRate { title += "; hit in \(percent(hit)) of \(rates.games) games" }
            return PegRing(index: p.index, value: lost, title: title)
        }
    }

    static func percent(_ v: Double) -> String { DecimalText.number(v * 100, decimals: 0) + "%" }

    /// The heatmap's caption: the colour scale and what was counted.
    static func heatLegend(_ rates: LevelPegRates) -> String {
        var out = "<figcaption class=\"heat-legend\">"
        guard let window = rates.window, rates.gamesLost > 0 else {
            out += rates.window.map { "No heatmap: the skill agent lost none of its \(rates.games) games at \u{3c3} \(range($0)) rad." }
                ?? "No heatmap: \u{3c3}50 is unknown, so no games are near it."
            return out + unreplayableNote(rates) + "</figcaption>\n"
        }
        // Eleven swatches from 0 to 100%: no gradient, so no page-wide id is needed.
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"232\" height=\"30\" viewBox=\"0 0 232 30\">"
        for i in 0...10 {
            out += "<rect x=\"\(6 + 20 * i)\" y=\"2\" width=\"20\" height=\"12\" fill=\"\(SVGPalette.heat(Double(i) / 10))\"/>"
        }
        out += "<g font-size=\"10\" fill=\"\(SVGPalette.dim)\" text-anchor=\"middle\">"
        out += "<text x=\"16\" y=\"27\">0%</text><text x=\"116\" y=\"27\">50%</text><text x=\"216\" y=\"27\">100%</text></g></svg>"
        out += "<span>Ring colour: how often the orange peg was still on the board when a game was lost "
        out += "(\(rates.gamesLost) lost of the skill agent's \(rates.games) games at \u{3c3} "
        out += "\(range(window)) rad, "
        out += "within a factor \(DecimalText.number(PegRates.nearFactor)) of \u{3c3}50). Hover a ring for its rates.</span>"
        return out + unreplayableNote(rates) + "</figcaption>\n"
    }

    static func range(_ r: ClosedRange<Double>) -> String {
        DecimalText.number(r.lowerBound, decimals: 6) + "\u{2013}" + DecimalText.number(r.upperBound, decimals: 6)
    }

    static func unreplayableNote(_ rates: LevelPegRates) -> String {
        guard rates.unreplayable > 0 else { return "" }
        return " <span class=\"warn\">\(rates.unreplayable) game\(rates.unreplayable == 1 ? "" : "s") left out: "
            + "\(esc(rates.firstUnreplayable ?? "")) (another engine played them).</span>"
    }

    static func interval(_ r: ClosedRange<Double>) -> String {
        "[" + DecimalText.fixed(r.lowerBound, decimals: 2) + "\u{2013}" + DecimalText.fixed(r.upperBound, decimals: 2) + "]"
    }

    /// The summary's cell of a level's human games: games, win rate and its interval.
    static func humanCell(_ h: HumanGames) -> String {
        "<td class=\"rate\" title=\"\(esc("won \(h.wins) of \(h.games) by \(h.players) player\(h.players == 1 ? "" : "s")"))\">"
            + "\(h.games) \u{b7} \(DecimalText.fixed(h.winRate, decimals: 2)) <span class=\"ci\">\(interval(h.winInterval))</span></td>"
    }

    /// Every program agent's label over all levels: kinds in `order`, then by label. People (one
    /// label per player) share the summary's one Humans column.
    static func agentColumns(_ ratings: [LevelRating], kinds order: KindOrder) -> [String] {
        var kinds: [String: AgentKind] = [:]
        for r in ratings { for a in r.agents where a.agentKind != .human { kinds[a.agentLabel] = a.agentKind } }
        return kinds.keys.sorted { a, b in
            let ka = kinds[a]!, kb = kinds[b]!
            return ka != kb ? order.precedes(ka, kb) : a < b
        }
    }

    /// An SVG document made fit to sit inside the page: no XML declaration, and the renderer's clip
    /// path id made unique to this picture (ids are page-wide in HTML).
    static func inline(_ svg: String, suffix: String) -> String {
        var body = Substring(svg)
        if body.hasPrefix("<?xml"), let end = body.firstIndex(of: ">") {
            body = body[body.index(after: end)...].drop { $0 == "\n" }
        }
        let id = Scene.clipId
        return String(body)
            .replacingAll("id=\"\(id)\"", with: "id=\"\(id)-\(suffix)\"")
            .replacingAll("url(#\(id))", with: "url(#\(id)-\(suffix))")
    }

    /// One row per agent at its best aim (`rows`), with the games it played at every sigma (`all`).
    static func agentTable(_ rows: [AgentLevelStats], all: [AgentLevelStats]) -> String {
        var out = "<table class=\"agents\">\n<thead><tr><th>Agent</th><th>All games (\u{3c3}s)</th><th>Best aim \u{3c3} (rad)</th><th>Games at \u{3c3}</th>"
        out += "<th>Wins</th><th>Win rate [95%]</th><th>Orange cleared</th><th>Mean score</th><th>Median score</th>"
        out += "<th>Balls used on wins</th><th>Shots to win</th><th>Truncated</th></tr></thead>\n<tbody>\n"
        func opt(_ v: Double?) -> String { v.map { DecimalText.fixed($0, decimals: 1) } ?? "\u{2013}" }
        for a in rows {
            let mine = all.filter { $0.agentLabel == a.agentLabel }
            out += "<tr><td>\(esc(a.agentLabel))</td>"
            out += "<td class=\"num\">\(mine.reduce(0) { $0 + $1.episodes }) (\(mine.count))</td>"
            out += "<td class=\"num\">\(DecimalText.number(a.sigma, decimals: 5))</td>"
            out += "<td class=\"num\">\(a.episodes)</td><td class=\"num\">\(a.wins)</td>"
            out += "<td class=\"num\">\(DecimalText.fixed(a.winRate, decimals: 2)) <span class=\"ci\">\(interval(a.winInterval))</span></td>"
            out += "<td class=\"num\">\(DecimalText.fixed(a.orangeFraction, decimals: 2))</td>"
            out += "<td class=\"num\">\(DecimalText.grouped(Int(a.meanScore.rounded())))</td>"
            out += "<td class=\"num\">\(DecimalText.grouped(Int(a.medianScore.rounded())))</td>"
            out += "<td class=\"num\">\(opt(a.meanBallsUsedOnWins))</td><td class=\"num\">\(opt(a.meanShotsToWin))</td>"
            out += "<td class=\"num\">\(a.truncated)</td></tr>\n"
        }
        return out + "</tbody>\n</table>\n"
    }

    /// The page's style sheet: the level pictures' dark palette. No `<` or `&`, so it is plain XML text.
    static let css = """
        body { margin: 0; background: \(SVGPalette.page); color: \(SVGPalette.text);
          font: 14px/1.45 "DejaVu Sans", Verdana, Arial, sans-serif; }
        header, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 20px; }
        h1 { color: \(SVGPalette.heading); margin: 24px 0 6px; font-size: 26px; }
        h2 { color: \(SVGPalette.heading); font-size: 19px; margin: 0 0 6px; }
        a { color: #8fb8ff; }
        .lead { color: \(SVGPalette.dim); max-width: 70em; }
        table { border-collapse: collapse; margin: 8px 0 14px; }
        th, td { padding: 4px 9px; border-bottom: 1px solid \(SVGPalette.panelBorder); text-align: left; vertical-align: top; }
        th { color: \(SVGPalette.dim); font-weight: normal; }
        .facts th { padding-right: 18px; }
        .summary-table th.agent { max-width: 13em; overflow-wrap: anywhere; word-break: break-all; }
        td.num, td.rate { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
        .ci { color: \(SVGPalette.dim); font-size: 12px; }
        .note, .meta, footer { color: \(SVGPalette.dim); font-size: 13px; }
        .hash { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
        .tier { display: inline-block; padding: 1px 8px; border-radius: 9px; font-size: 12px; font-weight: bold;
          color: #10131a; vertical-align: middle; }
        .tier-easy { background: \(SVGPalette.won); }
        .tier-medium { background: \(SVGPalette.playing); }
        .tier-hard { background: #ff9a52; }
        .tier-very-hard { background: \(SVGPalette.lost); }
        .tier-unrated { background: \(SVGPalette.dim); }
        .warn { color: \(SVGPalette.playing); font-weight: bold; }
        .summary { margin: 18px 0 10px; overflow-x: auto; }
        section.level { background: \(SVGPalette.panel); border: 1px solid \(SVGPalette.panelBorder);
          border-radius: 8px; margin: 22px 0; padding: 16px 18px; overflow-x: auto; }
        .rank { color: \(SVGPalette.dim); }
        ul.warnings { color: \(SVGPalette.playing); margin: 6px 0 10px; padding-left: 22px; }
        .figures { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
        figure { margin: 0; }
        figure.picture { flex: 1 1 100%; max-width: 800px; }
        figure.picture svg { width: 100%; height: auto; display: block; }
        figure.chart { flex: 1 1 480px; max-width: 560px; }
        figure.chart svg { width: 100%; height: auto; display: block; }
        .missing { color: \(SVGPalette.dim); font-style: italic; }
        table.agents { font-size: 13px; }
        .heat-legend { color: \(SVGPalette.dim); font-size: 13px; margin-top: 6px; }
        figure.picture .heat-legend svg { width: 232px; display: inline-block; vertical-align: middle; margin-right: 8px; }

        """
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (standard library only).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// Spaces turned into hyphens ("very hard" to "very-hard"), for class names.
    func replacingOccurrencesOfSpace() -> String { String(map { $0 == " " ? "-" : $0 }) }
}
