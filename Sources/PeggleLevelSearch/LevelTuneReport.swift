import PeggleDifficulty
import PeggleEstimate
import PeggleUtilities

extension LevelTune {
    /// The new file of a tuned level: `NAME.tuned-TIER.json` from `NAME.json` ("fortress.json" ->
    /// "fortress.tuned-hard.json"); with `copy` n > 1, `NAME.tuned-TIER-n.json` (the studio's when
    /// the first is taken; the command refuses a file that exists instead).
    public static func tunedFile(_ file: String, tier: Tier, copy n: Int = 1) -> String {
        let stem = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        return "\(stem).tuned-\(tier.argument)\(n == 1 ? "" : "-\(n)").json"
    }

    /// What a tuned level's name ends with: "Fortress" becomes "Fortress (hard)" (then made unique
    /// in its folder).
    public static func nameTail(_ tier: Tier) -> String { " (\(tier.rawValue))" }

    /// The dial's report, one structure for `peggle level tune` (its text, and `--json` with the
    /// keys in snake_case) and the studio's tune button (its reply).
    public struct Report: Sendable, Encodable {
        /// One edit made, with the estimate of the level it left.
        public struct Edit: Sendable, Encodable {
            /// A `TuneEdit.Kind`'s raw value.
            public var kind: String
            public var description: String
            /// The instant estimate after the edit, and the prediction (the estimate corrected by
            /// the last rating), radians.
            public var estimate: Double, predicted: Double
        }

        /// A rating made during the search.
        public struct Rating: Sendable, Encodable {
            /// Edits made on the level rated.
            public var edits: Int
            /// The level's instant estimate, and its rated sigma50 with its 95% interval, radians.
            public var estimate: Double, sigma50: Double, low: Double, high: Double
            /// The tier of the rated sigma50 ("very hard").
            public var tier: String
            public var games: Int
        }

        /// The level tuned: its file as given, its name.
        public var file: String
        public var level: String
        /// The tier asked for, as `--tier` names it ("very-hard").
        public var tier: String
        public var status: Status
        /// The file written; absent when none is (not reached, or already there).
        public var out: String?
        /// The edits from the original to the level written (or, not reached, the rated level nearest the tier).
        public var edits: [Edit]
        /// The original's rating, and the rating of the level after `edits`.
        public var before: Rating, after: Rating
        /// Every rating, in order: the original's first.
        public var ratings: [Rating]
        /// The limits the search had.
        public var maxEdits: Int, maxRatings: Int
        /// Games the ratings added to the database, and found there already.
        public var gamesAdded: Int, gamesStored: Int

        public init(_ r: Result, settings: Settings, tier: Tier, file: String, out: String?) {
            func rating(_ c: Confirmation) -> Rating {
                Rating(edits: c.edits, estimate: c.estimate.sigma50, sigma50: c.rated.estimate, low: c.rated.low,
                       high: c.rated.high, tier: settings.tierEdges.tier(sigma50: c.rated.estimate).rawValue, games: c.rated.games)
            }
            self.file = file
            level = r.original.name
            self.tier = tier.argument
            status = r.status
            self.out = out
            edits = r.steps.map { Edit(kind: $0.edit.kind.rawValue, description: $0.edit.description, estimate: $0.estimate.sigma50,
                                       predicted: $0.predicted) }
            before = rating(r.before)
            after = rating(r.after)
            ratings = r.confirmations.map(rating)
            maxEdits = settings.maxEdits
            maxRatings = settings.maxConfirmations
            gamesAdded = r.gamesAdded
            gamesStored = r.gamesStored
        }

        /// The tier asked for, as the tables name it ("very hard").
        var tierName: String { Tier.named(tier)?.rawValue ?? tier }

        /// The report as `peggle level tune` prints it.
        public var text: String {
            func n(_ v: Double) -> String { DecimalText.significant(v, digits: 3) }
            func rated(_ r: Rating) -> String { "sigma50 \(n(r.sigma50)) (\(n(r.low))-\(n(r.high))), \(r.tier)" }
            func count(_ k: Int, _ what: String) -> String { "\(k) \(what)\(k == 1 ? "" : "s")" }
            var lines = ["\(file): \(level), to tier \(tierName)",
                         "before: estimate \(n(before.estimate)); rated \(rated(before))"]
            for (k, e) in edits.enumerated() {
                lines.append("edit \(k + 1): \(e.description) (estimate \(n(e.estimate)))")
            }
            switch status {
            case .alreadyThere:
                lines.append("already in tier \(tierName): nothing to do, nothing written")
            case .reached:
                lines.append("after: estimate \(n(after.estimate)); rated \(rated(after))")
                lines.append("reached tier \(tierName) with \(count(edits.count, "edit")) (\(count(ratings.count, "rating"))); "
                    + "wrote \(out ?? "")")
            case .notReached:
                if !edits.isEmpty { lines.append("nearest: estimate \(n(after.estimate)); rated \(rated(after))") }
                let tried = ratings.dropFirst().map { "\(count($0.edits, "edit")): \(n($0.sigma50))" }
                lines.append("not reached: no rated level within \(count(maxEdits, "edit")) and \(count(maxRatings, "rating")) "
                    + "lies in tier \(tierName)"
                    + (tried.isEmpty ? " (no edit brought the estimate nearer)" : " (rated: \(tried.joined(separator: ", ")))")
                    + "; nothing written")
            }
            return lines.joined(separator: "\n")
        }
    }
}
