import PeggleDifficulty
import PeggleGame
import PeggleUtilities

/// CSV files of ratings and episodes, RFC 4180: comma-separated, CRLF after every record (the last
/// too), a header record, fields quoted only when they need it. Numbers are written without a
/// locale or exponent; docs/reports.md lists the columns and their units.
public enum CSVReport {
    /// `s` as one RFC 4180 field: wrapped in double quotes, with every double quote doubled, when it
    /// contains a comma, a double quote, CR or LF, or starts or ends with whitespace (so readers that
    /// trim unquoted fields keep it); otherwise unchanged.
    public static func field(_ s: String) -> String {
        let needsQuotes = s.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
            || s.first.map(\.isWhitespace) == true || s.last.map(\.isWhitespace) == true
        guard needsQuotes else { return s }
        var out = "\""
        // By scalar: a quote followed by a combining mark is one Character but still a quote.
        for u in s.unicodeScalars {
            if u == "\"" { out += "\"\"" } else { out.unicodeScalars.append(u) }
        }
        return out + "\""
    }

    /// Free text (level names, agent labels, player names, warnings) made safe for a spreadsheet:
    /// text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading
    /// apostrophe, as OWASP's "CSV Injection" page advises, so Excel, LibreOffice and Google Sheets
    /// show it as text instead of running it as a formula. Numbers and the fixed vocabulary (such
    /// as sigma50_relation's `=`, `<`, `>`) are written as they are: only text a user chose goes
    /// through here, and a number's minus sign is not a formula.
    public static func text(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, formulaStarts.contains(first) else { return s }
        return "'" + s
    }

    /// The first characters a spreadsheet reads as the start of a formula (OWASP's list).
    public static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// One record: the fields quoted as needed, joined by commas, ended by CRLF.
    public static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// The columns of one agent kind in difficulty.csv, each prefixed by the kind and "_".
    public static let agentColumns = ["agent", "games", "sigma_rad", "episodes", "wins", "win_rate", "win_low",
                                      "win_high", "orange_fraction", "mean_score"]

    /// The header of difficulty.csv with a column group per kind of `kinds`, in that order.
    public static func difficultyHeader(_ kinds: [AgentKind]) -> [String] {
        ["rank", "level", "level_hash", "tier", "tier_of_estimate", "difficulty", "sigma50_relation", "sigma50_rad",
         "sigma50_low", "sigma50_high", "sigma50_probability", "slope", "ceiling", "floor", "skill_agent",
         "skill_sigmas", "skill_games", "skill_prior"]
            + kinds.flatMap { kind in agentColumns.map { kind.rawValue + "_" + $0 } }
            + ["warnings"]
    }

    /// difficulty.csv: the header, then one record per level in the order given (`DifficultyRater`
    /// sorts hardest first). Each program kind that played any of the levels has a group of
    /// columns, in `kinds`' order (`KindOrder.programKinds(playing:)`; pass the rating's order);
    /// human games have none (humans.csv and the HTML report show them), so people's games leave
    /// the file as it was. A group describes its kind's headline row
    /// (`LevelRating.atBestAim(kind:)`: its main label at its smallest sigma) plus the games that
    /// label played at every sigma, and is empty on a level the kind did not play.
    public static func difficulty(_ ratings: [LevelRating], kinds order: KindOrder = KindOrder()) -> String {
        let kinds = order.programKinds(playing: ratings)
        var out = record(difficultyHeader(kinds))
        for r in ratings {
            var row = [r.rank.map(String.init) ?? "", text(r.levelName), r.levelHash, r.tierText, r.tier.rawValue,
                       r.difficulty.map { number($0, 4) } ?? ""]
            switch r.sigma50 {
            case let .value(s, low, high): row += ["=", number(s, 6), number(low, 6), number(high, 6), ""]
            case let .below(b, p): row += ["<", number(b, 6), "", number(b, 6), number(p, 4)]
            case let .above(b, p): row += [">", number(b, 6), number(b, 6), "", number(p, 4)]
            case .unknown: row += ["", "", "", "", ""]
            }
            if let skill = r.skill {
                row += [number(skill.fit.slope, 3), number(skill.fit.ceiling, 4), number(skill.fit.floor, 4), text(skill.agentLabel),
                        String(skill.points.count), String(skill.fit.games), skill.prior.rawValue]
            } else {
                row += ["", "", "", "", "0", "0", ""]
            }
            for kind in kinds {
                if let a = r.atBestAim(kind: kind) {
                    row += [text(a.agentLabel), String(r.games(kind: kind)), number(a.sigma, 6), String(a.episodes), String(a.wins),
                            number(a.winRate, 4), number(a.winInterval.lowerBound, 4), number(a.winInterval.upperBound, 4),
                            number(a.orangeFraction, 4), number(a.meanScore, 2)]
                } else {
                    row += Array(repeating: "", count: agentColumns.count)
                }
            }
            row.append(text(r.warnings.joined(separator: "; ")))
            out += record(row)
        }
        return out
    }

    /// The header of episodes.csv.
    public static let episodesHeader = ["level_hash", "level", "agent_kind", "agent_label", "sigma_rad", "seed",
                                        "status", "won", "score", "shots", "orange_cleared", "orange_total",
                                        "balls_used", "game_seconds"]

    /// episodes.csv: the header, then one record per episode in the order given. `won` is "true" or
    /// "false"; the seed is the full unsigned 64-bit value in decimal.
    public static func episodes(_ outcomes: [PlayedGame]) -> String {
        var out = record(episodesHeader)
        for e in outcomes {
            out += record([e.levelHash, text(e.levelName), e.agentKind.rawValue, text(e.agentLabel), number(e.sigma, 6), String(e.seed),
                           e.status.rawValue, e.won ? "true" : "false", String(e.score), String(e.shots),
                           String(e.orangeCleared), String(e.orangeTotal), String(e.ballsUsed),
                           number(e.gameSeconds, 4)])
        }
        return out
    }

    /// The header of pegs.csv.
    public static let pegsHeader = ["level", "level_hash", "peg_id", "x", "y", "hit_rate", "lost_with_rate", "games",
                                    "games_lost", "sigma_low", "sigma_high"]

    /// pegs.csv: the header, then one record per orange peg, levels in the order given (the
    /// report's: hardest first), pegs in level order. Rates are empty when nothing was counted
    /// (no game, or no game lost), the window when sigma50 is unknown.
    public static func pegs(_ levels: [LevelPegRates]) -> String {
        func optional(_ v: Double?, _ decimals: Int) -> String { v.map { number($0, decimals) } ?? "" }
        var out = record(pegsHeader)
        for level in levels {
            let counts = [String(level.games), String(level.gamesLost),
                          optional(level.window?.lowerBound, 6), optional(level.window?.upperBound, 6)]
            for p in level.pegs {
                let peg = [text(level.levelName), level.levelHash, String(p.pegID), number(p.x, 2), number(p.y, 2),
                           optional(p.hitRate, 4), optional(p.lostWithRate, 4)]
                out += record(peg + counts)
            }
        }
        return out
    }

    /// The header of humans.csv.
    public static let humansHeader = ["level", "level_hash", "human_games", "human_players", "human_wins", "human_win_rate",
                                      "human_win_low", "human_win_high", "tier", "sigma50_relation", "sigma50_rad",
                                      "sigma50_low", "sigma50_high"]

    /// humans.csv: the header, then one record per level people played (`HumanGames`), in the
    /// order given, with the level's rated sigma50 beside the human win rate (the columns of
    /// difficulty.csv's sigma50). Only the header when nobody played. `people`: players by level
    /// hash (`HumanGames`).
    public static func humans(_ ratings: [LevelRating], people: [String: Int] = [:]) -> String {
        var out = record(humansHeader)
        for r in ratings {
            guard let h = HumanGames(r, people: people) else { continue }
            var row = [text(r.levelName), r.levelHash, String(h.games), String(h.players), String(h.wins), number(h.winRate, 4),
                       number(h.winInterval.lowerBound, 4), number(h.winInterval.upperBound, 4), r.tierText]
            switch r.sigma50 {
            case let .value(s, low, high): row += ["=", number(s, 6), number(low, 6), number(high, 6)]
            case let .below(b, _): row += ["<", number(b, 6), "", number(b, 6)]
            case let .above(b, _): row += [">", number(b, 6), number(b, 6), ""]
            case .unknown: row += ["", "", "", ""]
            }
            out += record(row)
        }
        return out
    }

    /// `v` rounded to `decimals` places, trailing zeros dropped; no locale, no exponent; "" when not finite.
    static func number(_ v: Double, _ decimals: Int) -> String {
        v.isFinite ? DecimalText.number(v, decimals: decimals) : ""
    }
}
