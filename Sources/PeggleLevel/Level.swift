import PegglePhysics

/// The kinds of peg. Raw values are the level file's spelling.
public enum PegKind: String, CaseIterable, Sendable, Codable, Hashable {
    /// 10 points.
    case blue
    /// 100 points; clear them all to win a classic level.
    case orange
    /// 10 points; fires the level's power.
    case green
    /// 500 points; moves to a random blue peg each turn.
    case purple
    /// 10 points; turns into a second ball when hit.
    case zombie
    /// 10 points; on its first hit the pegs and blocks turn half a turn about the board centre.
    case confusement
}

/// The level's power, fired by green pegs.
public enum Power: String, CaseIterable, Sendable, Codable, Hashable {
    case none
    /// The green peg explodes, lighting pegs nearby; other green pegs caught in it explode too.
    case kaboom
    /// The next time the ball falls out it re-enters at the top at the same x (once).
    case spooky
    /// A second ball splits off.
    case multiball
}

/// Shape of a peg: a circle, or a rectangular brick.
public enum PegShape: Sendable, Equatable, Hashable {
    /// Radius in board units.
    case circle(radius: Double)
    /// Width and height in board units, rotation in radians.
    case brick(width: Double, height: Double, rotation: Double)
}

/// A peg as the level designer placed it.
public struct Peg: Sendable, Equatable, Hashable {
    /// Unique among the level's pegs and blocks; positive.
    public var id: Int
    public var kind: PegKind
    /// Centre, board units.
    public var center: Vec2
    public var shape: PegShape

    public init(id: Int, kind: PegKind, center: Vec2, shape: PegShape = .circle(radius: 12)) {
        self.id = id
        self.kind = kind
        self.center = center
        self.shape = shape
    }
}

/// Shape of a block's outline.
public enum BlockShape: String, CaseIterable, Sendable, Codable, Hashable {
    case rectangle
    /// Isosceles: apex at the top middle of the width x height box, base along its bottom.
    case triangle
}

/// A block: never lit, never removed; optionally springy.
public struct Block: Sendable, Equatable, Hashable {
    /// Unique among the level's pegs and blocks; positive.
    public var id: Int
    public var shape: BlockShape
    /// Centre of the bounding box before rotation, board units.
    public var center: Vec2
    /// Board units.
    public var width: Double, height: Double
    /// Radians, positive turns +x toward +y (clockwise on screen).
    public var rotation: Double
    /// 0 (restitution 0.8) to 1 (restitution 0.8 + `Rules.springBoost`).
    public var springiness: Double

    public init(id: Int, shape: BlockShape, center: Vec2, width: Double, height: Double,
                rotation: Double = 0, springiness: Double = 0) {
        self.id = id
        self.shape = shape
        self.center = center
        self.width = width
        self.height = height
        self.rotation = rotation
        self.springiness = springiness
    }
}

/// A level: the level designer's model. See docs/levels.md for the file format.
public struct Level: Sendable, Equatable, Hashable {
    /// The only format version this build reads and writes.
    public static let formatVersion = 1
    /// Longest `name`, `author` and `description`, in characters (`characters(in:)`)
    /// (docs/levels.md). Bounds what every tool prints and draws.
    /// What a "character" is in every limit on a name the tools store (level names, authors,
    /// descriptions, the studio's player names): a Unicode scalar (code point), as JSON Schema's
    /// `maxLength` counts. Not a grapheme cluster (Swift's `count`): one cluster can be a base
    /// and any number of combining marks, so a limit in clusters bounds no size. A scalar is at
    /// most 4 bytes of UTF-8, so a limit of n characters is also a cap of `maxBytes(n)` bytes.
    public static func characters(in text: String) -> Int { text.unicodeScalars.count }

    /// The most UTF-8 bytes a text within `characters` characters can take.
    public static func maxBytes(_ characters: Int) -> Int { 4 * characters }

    public static let maxNameLength = 80
    public static let maxAuthorLength = 80
    public static let maxDescriptionLength = 1000

    public var format: Int = Level.formatVersion
    public var name: String
    public var author: String?
    public var description: String?
    /// Bundled levels are read-only: editing one saves a copy.
    public var readOnly: Bool = false
    public var mode: GameMode
    public var power: Power
    /// Whether purple moves to a random blue peg each turn (original Peggle does).
    public var purpleRoams: Bool = true
    public var pegs: [Peg]
    public var blocks: [Block]

    public init(name: String, mode: GameMode = GameModeKind.classic.defaultMode, power: Power = .none,
                pegs: [Peg] = [], blocks: [Block] = []) {
        self.name = name
        self.mode = mode
        self.power = power
        self.pegs = pegs
        self.blocks = blocks
    }

    /// Next unused object id.
    public var nextId: Int {
        (pegs.map(\.id) + blocks.map(\.id)).max().map { $0 + 1 } ?? 1
    }

    /// Number of pegs of each kind.
    public func count(of kind: PegKind) -> Int { pegs.filter { $0.kind == kind }.count }
}

// MARK: Geometry of level objects

extension Peg {
    /// The physical shape.
    public var physicsShape: Shape {
        switch shape {
        case let .circle(r): .circle(center: center, radius: r)
        case let .brick(w, h, rot): .polygon(.rectangle(center: center, width: w, height: h, rotation: rot))
        }
    }
}

extension Block {
    /// The outline as a polygon.
    public var polygon: ConvexPolygon {
        switch shape {
        case .rectangle: .rectangle(center: center, width: width, height: height, rotation: rotation)
        case .triangle: .triangle(center: center, width: width, height: height, rotation: rotation)
        }
    }

    /// The physical shape.
    public var physicsShape: Shape { .polygon(polygon) }

    /// Restitution under `rules`.
    public func restitution(_ rules: Rules) -> Double { rules.restitution + springiness * rules.springBoost }
}
