import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleLevelFiles
import PegglePhysics
import PeggleStore

/// What the studio's endpoints do, without HTTP: each takes a decoded request and returns a reply
/// to encode, or throws the `StudioError` to answer with. The designer's edits are `LevelEditor`'s,
/// the game is `GameState`, the level format is `LevelCodec`: the same code as the CLI.
public struct StudioAPI: Sendable {
    public let library: LevelLibrary
    public let rules: Rules
    /// Where games people finish in Play are stored (`peggle studio --db`); nil: not recorded.
    public let store: PeggleStore?

    public init(library: LevelLibrary, rules: Rules = Rules(), store: PeggleStore? = nil) {
        self.library = library
        self.rules = rules
        self.store = store
    }

    // MARK: Decoding

    /// Decodes a request body (its keys snake_case: `StudioJSON`), naming the field that is wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(StudioError) -> T {
        let refusal = StudioJSON.Refusal()
        let decoded = Result { try StudioJSON.decoder(refusal).decode(T.self, from: data) }
        // A key in another casing first, decoded or not: a field missing or mistaken may be that key.
        if let message = refusal.message.withLock({ $0 }) { throw .badRequest("bad request: \(message)") }
        switch decoded {
        case let .success(value): return value
        case let .failure(error): throw refused(T.self, data, error)
        }
    }

    /// Why the decoder refused `data` as a `T`, naming the field.
    static func refused<T: Decodable>(_ type: T.Type, _ data: Data, _ error: any Error) -> StudioError {
        switch error {
        case let DecodingError.keyNotFound(key, context):
            return .badRequest("bad request: \(StudioJSON.path(context.codingPath + [key])) is missing")
        case let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context):
            return .badRequest("bad request: \(StudioJSON.path(context.codingPath)): \(context.debugDescription)")
        case let DecodingError.dataCorrupted(context):
            if context.codingPath.isEmpty {
                // Also what the decoder says of a number out of its field's range: find it.
                if let refusal = StudioNumbers.refusal(T.self, data) { return .badRequest("bad request: \(refusal)") }
                return .badRequest("bad request: the body is not valid JSON")
            }
            return .badRequest("bad request: \(StudioJSON.path(context.codingPath)): \(context.debugDescription)")
        default:
            return .badRequest("bad request: \(error)")
        }
    }

    /// The level text of a request; a format error names the field, as `peggle level validate` does.
    public static func level(_ text: String) throws(StudioError) -> Level {
        do { return try LevelCodec.decode(Data(text.utf8)) } catch { throw .refused("level: \(error)") }
    }

    // MARK: Config

    /// The board and the rules the page draws and checks with.
    public struct Config: Sendable, Encodable {
        public var engine: String
        public var board: [String: Double]
        public var cannon: [String: Double]
        public var maxAim: Double
        public var ballRadius: Double
        public var timeStep: Double
        public var bucket: Bucket
        public var pegRadius: [String: Double]
        public var brickSide: [String: Double]
        public var blockSide: [String: Double]
        public var cannonClearance: Double
        public var laneTop: Double
        public var pegKinds: [String]
        public var blockShapes: [String]
        public var powers: [String]
        /// The mode kinds and their fields, from `ModeField.all`: the page builds its mode form from them.
        public var modes: [Mode]
        /// The tiers one can ask for, easiest first: `name` as a tune request names it ("very-hard"),
        /// `label` as the list's filter and every reply name it ("very hard").
        public var tiers: [TierName]
        public var ratingBudget: Int
        /// Whether finished games are stored (the studio has a database).
        public var recording: Bool
        /// With `--share`, the asking page's role ("designer" or "playtester"); absent otherwise.
        public var role: StudioRole? = nil
    }

    /// A tier by its two names (`Tier.argument`, `Tier.rawValue`).
    public struct TierName: Sendable, Encodable {
        public var name: String
        public var label: String
    }

    /// The bucket's outline: its width, rim radius, top and depth (`Rules.bucket`).
    public struct Bucket: Sendable, Encodable {
        public var width: Double
        public var rimRadius: Double
        public var top: Double
        public var depth: Double
    }

    /// A mode kind for the page: its name, its label, its fields.
    public struct Mode: Sendable, Encodable {
        public var name: String
        public var label: String
        public var fields: [Field]

        init(_ kind: GameModeKind) {
            name = kind.rawValue
            label = kind.label
            fields = kind.fields.map(Field.init)
        }
    }

    /// A mode field for the page: `kind` "whole" or "real", its range and default.
    public struct Field: Sendable, Encodable {
        public var name: String
        public var label: String
        public var help: String
        public var kind: String
        public var min: Double
        public var max: Double
        public var `default`: Double

        init(_ field: ModeField) {
            name = field.name
            label = field.label
            help = field.help
            kind = field.isWhole ? "whole" : "real"
            (min, max) = field.bounds
            `default` = field.defaultValue.number
        }
    }

    public var config: Config {
        let p = rules.physics, b = rules.bucket
        return Config(
            engine: PeggleGym.version,
            board: ["width": p.boardWidth, "height": p.boardHeight],
            cannon: ["x": rules.cannon.x, "y": rules.cannon.y],
            maxAim: rules.maxAim, ballRadius: p.ballRadius, timeStep: p.timeStep,
            bucket: Bucket(width: b.width, rimRadius: b.rimRadius, top: b.top, depth: b.depth),
            pegRadius: ["default": rules.pegRadius, "min": rules.minPegRadius, "max": rules.maxPegRadius],
            brickSide: ["min": rules.minBrickSide, "max": rules.maxBrickSide],
            blockSide: ["min": rules.minBlockSide, "max": rules.maxBlockSide],
            cannonClearance: rules.cannonClearance, laneTop: rules.laneTop,
            pegKinds: PegKind.allCases.map(\.rawValue), blockShapes: BlockShape.allCases.map(\.rawValue),
            powers: Power.allCases.map(\.rawValue), modes: GameModeKind.allCases.map(Mode.init),
            tiers: Tier.askable.map { TierName(name: $0.argument, label: $0.rawValue) },
            ratingBudget: StudioRating.defaultBudget, recording: store != nil)
    }

    // MARK: Levels

    /// A page of the level list (`GET /api/levels`). A level is rated when the database (`--db`)
    /// holds games of the skill agent on it (the greedy agent's: what a rating, the studio's or
    /// `peggle rate`'s, is fitted to); without a database none is (a Rate then keeps its games in
    /// memory only). Read at each request that filters by it: a `peggle rate` beside the studio
    /// adds ratings.
    public func levels(_ query: LevelQuery) throws(StudioError) -> LevelPage {
        guard query.rated != nil else { return library.list(query) }
        var rated: Set<String> = []
        if let store {
            do { rated = try store.levelHashes(withGamesOf: RatingOptions().skillAgentKind) } catch {
                throw StudioError(500, "the database could not be read: \(error)")
            }
        }
        return library.list(query, rated: rated)
    }

    /// An opened level: its text and whether saving it makes a copy.
    public struct Opened: Sendable, Encodable {
        public var file: String
        public var level: String
        public var readOnly: Bool
        /// Why the level cannot be played yet, if it cannot (the page still edits it).
        public var issues: [String]
    }

    public func open(_ file: String) throws(StudioError) -> Opened {
        let (level, readOnly) = try library.open(file)
        return Opened(file: file, level: LevelCodec.encode(level), readOnly: readOnly,
                      issues: level.validate(rules: rules).map(\.description))
    }

    public func save(_ request: SaveRequest) throws(StudioError) -> LevelLibrary.Saved {
        try library.save(Self.level(request.level), file: request.file, copy: request.copy ?? false)
    }

    /// A new empty level with a name no level of the folder has.
    public func newLevel() -> Opened {
        let level = Level(name: library.uniqueName("New level"))
        return Opened(file: "", level: LevelCodec.encode(level), readOnly: false,
                      issues: level.validate(rules: rules).map(\.description))
    }

    // MARK: Edit

    /// The level after an edit, the id of the object it concerns, and what still stops it being played.
    public struct Edited: Sendable, Encodable {
        public var level: String
        public var id: Int?
        public var issues: [String]
    }

    public func edit(_ request: EditRequest) throws(StudioError) -> Edited {
        var level = try Self.level(request.level)
        let op = request.op
        func need<T>(_ value: T?, _ name: String) throws(StudioError) -> T {
            guard let value else { throw .badRequest("bad request: op.\(name) is missing for \(op.type.rawValue)") }
            return value
        }
        var id = op.id
        do {
            switch op.type {
            case .addPeg:
                let center = Vec2(try need(op.x, "x"), try need(op.y, "y"))
                let shape: PegShape = if let w = op.width, let h = op.height {
                    .brick(width: w, height: h, rotation: op.rotation ?? 0)
                } else {
                    .circle(radius: op.radius ?? rules.pegRadius)
                }
                id = try level.add(Peg(id: 0, kind: try need(op.peg, "peg"), center: center, shape: shape), rules: rules)
            case .addBlock:
                let block = Block(id: 0, shape: try need(op.shape, "shape"), center: Vec2(try need(op.x, "x"), try need(op.y, "y")),
                                  width: try need(op.width, "width"), height: try need(op.height, "height"),
                                  rotation: op.rotation ?? 0, springiness: op.springiness ?? 0)
                id = try level.add(block, rules: rules)
            case .move:
                try level.move(id: try need(op.id, "id"), to: Vec2(try need(op.x, "x"), try need(op.y, "y")), rules: rules)
            case .remove:
                try level.remove(id: try need(op.id, "id"))
                id = nil
            case .resize:
                if let r = op.radius {
                    try level.resize(id: try need(op.id, "id"), radius: r, rules: rules)
                } else {
                    try level.resize(id: try need(op.id, "id"), width: try need(op.width, "width"),
                                     height: try need(op.height, "height"), rules: rules)
                }
            case .rotate:
                try level.rotate(id: try need(op.id, "id"), to: try need(op.rotation, "rotation"), rules: rules)
            case .setKind:
                try level.setKind(id: try need(op.id, "id"), to: try need(op.peg, "peg"))
            case .setSpringiness:
                try level.setSpringiness(id: try need(op.id, "id"), to: try need(op.springiness, "springiness"), rules: rules)
            case .settings:
                let mode = try Self.mode(op, current: level.mode)
                try level.changeSettings { l in
                    if let name = op.name { l.name = name }
                    if let author = op.author { l.author = author.isEmpty ? nil : author }
                    if let description = op.description { l.description = description.isEmpty ? nil : description }
                    if let mode { l.mode = mode }
                    if let power = op.power { l.power = power }
                    if let roams = op.purpleRoams { l.purpleRoams = roams }
                }
            }
        } catch let e as EditError {
            throw .refused("refused: \(e.message)")
        } catch let e as StudioError {
            throw e
        } catch {
            throw .badRequest("\(error)")
        }
        return Edited(level: LevelCodec.encode(level), id: id, issues: level.validate(rules: rules).map(\.description))
    }

    /// The mode a settings operation asks for: the named mode with its fields (missing ones kept
    /// from the current mode when it is the same kind, else that kind's defaults). A field's range
    /// is validation's to check (`Level.changeSettings`), with the level format's message.
    static func mode(_ op: EditOperation, current: GameMode) throws(StudioError) -> GameMode? {
        guard let name = op.mode ?? (op.fields == nil ? nil : current.name) else { return nil }
        guard let kind = GameModeKind(rawValue: name) else {
            let names = GameModeKind.allCases.map(\.rawValue)
            throw .badRequest("bad request: op.mode '\(LevelCodec.cut(name))' is not "
                + names.dropLast().joined(separator: ", ") + " or " + names.last!)
        }
        var values: [String: ModeFieldValue] = [:]
        for (fieldName, number) in (op.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let field = kind.field(fieldName) else {
                throw .badRequest("bad request: op.fields.\(LevelCodec.cut(fieldName)) is not a field of \(kind.rawValue) (its fields: "
                    + kind.fields.map(\.name).joined(separator: ", ") + ")")
            }
            guard let value = field.value(number) else {
                throw .badRequest("bad request: op.fields.\(field.name): \(LevelCodec.number(number)) is not a whole number in \(field.rangeText)")
            }
            values[field.name] = value
        }
        return ModeField.mode(kind, values, base: current)
    }
}
