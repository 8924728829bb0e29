import PegglePhysics

/// One problem with a level: where it is and what is wrong. It is also the error a game throws
/// for a level that is not valid (`GameState(level:rules:seed:)`): the level's first problem,
/// naming the object, the field and the value; the caller that read the file adds its name.
public struct LevelIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// Location in the file: "pegs[3]", "mode", "name".
    public var path: String
    /// Id of the object concerned, if any.
    public var objectId: Int?
    /// Field concerned ("radius", "x"), if one.
    public var field: String?
    public var message: String

    public var description: String {
        var s = path
        if let id = objectId { s += " (id \(id))" }
        if let f = field { s += s.isEmpty ? f : ": \(f)" }
        return s.isEmpty ? message : "\(s): \(message)"
    }
}

/// A peg or block of a level, addressed by its index in the level's lists.
public enum LevelObject: Sendable, Equatable, Hashable {
    case peg(Int)
    case block(Int)
}

extension Level {
    /// Every level object, pegs first.
    public var objects: [LevelObject] { pegs.indices.map(LevelObject.peg) + blocks.indices.map(LevelObject.block) }

    /// Id of an object.
    public func id(of o: LevelObject) -> Int {
        switch o { case let .peg(i): pegs[i].id; case let .block(i): blocks[i].id }
    }

    /// The object with `id`, if any.
    public func object(withId id: Int) -> LevelObject? {
        if let i = pegs.firstIndex(where: { $0.id == id }) { return .peg(i) }
        if let i = blocks.firstIndex(where: { $0.id == id }) { return .block(i) }
        return nil
    }

    /// The object whose outline contains `point` (the last one listed, as drawn on top), if any.
    public func object(at point: Vec2) -> LevelObject? {
        objects.last { ObstacleStore.distance(from: point, to: shape(of: $0)) <= 0 }
    }

    /// Physical outline of an object.
    public func shape(of o: LevelObject) -> Shape {
        switch o { case let .peg(i): pegs[i].physicsShape; case let .block(i): blocks[i].physicsShape }
    }

    /// "peg 4" or "block 20": how messages name an object.
    public func label(of o: LevelObject) -> String {
        switch o { case let .peg(i): "peg \(pegs[i].id)"; case let .block(i): "block \(blocks[i].id)" }
    }

    /// "pegs[3]": where an object is in the file.
    public func path(of o: LevelObject) -> String {
        switch o { case let .peg(i): "pegs[\(i)]"; case let .block(i): "blocks[\(i)]" }
    }

    // MARK: Whole-level validation

    /// Every problem that makes the level unplayable under `rules`; empty when it is valid.
    public func validate(rules: Rules = Rules()) -> [LevelIssue] {
        var issues = textIssues()
        issues += modeIssues()

        let total = pegs.count + blocks.count
        if total > rules.maxObjects {
            issues.append(LevelIssue(path: "pegs", message:
                "the level has \(pegs.count) pegs and \(blocks.count) blocks; at most \(rules.maxObjects) objects in all"))
            return issues
        }

        var seen: [Int: LevelObject] = [:]
        for o in objects {
            let id = id(of: o)
            if id < 1 {
                issues.append(LevelIssue(path: path(of: o), objectId: id, field: "id", message: "must be a positive whole number"))
            } else if let first = seen[id] {
                issues.append(LevelIssue(path: path(of: o), objectId: id, field: "id",
                                         message: "is also used by \(path(of: first))"))
            } else {
                seen[id] = o
            }
        }

        var sound: [LevelObject] = []
        for o in objects {
            let found = fieldIssues(o, rules: rules)
            issues += found
            if found.isEmpty {
                if let b = boundsIssue(o, rules: rules) { issues.append(b) } else { sound.append(o) }
            }
        }
        issues += overlapIssues(among: sound)

        switch mode {
        case .classic:
            if count(of: .orange) == 0 {
                issues.append(LevelIssue(path: "pegs", message: "a classic level needs at least one orange peg"))
            }
        case .beatTheScore, .dodge:
            if pegs.isEmpty { issues.append(LevelIssue(path: "pegs", message: "the level needs at least one peg")) }
        }
        return issues + physicsIssues(rules: rules)
    }

    /// Name, author and description: lengths in code points within their limits, and no control
    /// characters (which a terminal would obey) except line breaks and tabs in the description.
    public func textIssues() -> [LevelIssue] {
        var out: [LevelIssue] = []
        if name.trimmingCharacters(in: .whitespaces).isEmpty { out.append(LevelIssue(path: "name", message: "must not be empty")) }
        func check(_ field: String, _ text: String, limit: Int, breaks: Bool) {
            let length = Self.characters(in: text)
            if length > limit {
                out.append(LevelIssue(path: field, message: "is \(length) characters long; at most \(limit)"))
            }
            let allowed: Set<Unicode.Scalar> = breaks ? ["\n", "\r", "\t"] : []
            if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !allowed.contains($0) }) {
                out.append(LevelIssue(path: field, message: breaks
                    ? "must not contain control characters other than line breaks and tabs"
                    : "must not contain control characters"))
            }
        }
        check("name", name, limit: Self.maxNameLength, breaks: false)
        if let author { check("author", author, limit: Self.maxAuthorLength, breaks: false) }
        if let description { check("description", description, limit: Self.maxDescriptionLength, breaks: true) }
        return out
    }

    /// Each mode field outside its range (`ModeField.rangeIssue`; a NaN is outside every range).
    func modeIssues() -> [LevelIssue] {
        mode.fieldValues.compactMap { f, v in f.rangeIssue(v).map { LevelIssue(path: "mode", field: f.name, message: $0) } }
    }

    /// Field checks of one object: numbers finite and in range.
    public func fieldIssues(_ o: LevelObject, rules: Rules) -> [LevelIssue] {
        var out: [LevelIssue] = []
        let p = path(of: o), id = id(of: o)
        func check(_ field: String, _ v: Double, _ lo: Double, _ hi: Double, unit: String = "") {
            if v.isNaN {
                out.append(LevelIssue(path: p, objectId: id, field: field, message: "NaN is not a number"))
            } else if !v.isFinite {
                out.append(LevelIssue(path: p, objectId: id, field: field, message: "\(v > 0 ? "Infinity" : "-Infinity") is not a finite number"))
            } else if v < lo || v > hi {
                out.append(LevelIssue(path: p, objectId: id, field: field,
                                      message: "\(LevelCodec.number(v)) is outside \(LevelCodec.number(lo))...\(LevelCodec.number(hi))\(unit)"))
            }
        }
        let w = rules.physics.boardWidth, h = rules.physics.boardHeight
        switch o {
        case let .peg(i):
            let peg = pegs[i]
            check("x", peg.center.x, 0, w)
            check("y", peg.center.y, 0, h)
            switch peg.shape {
            case let .circle(r):
                check("radius", r, rules.minPegRadius, rules.maxPegRadius)
            case let .brick(bw, bh, rot):
                check("width", bw, rules.minBrickSide, rules.maxBrickSide)
                check("height", bh, rules.minBrickSide, rules.maxBrickSide)
                check("rotation", rot, -100, 100, unit: " radians")
            }
        case let .block(i):
            let b = blocks[i]
            check("x", b.center.x, 0, w)
            check("y", b.center.y, 0, h)
            check("width", b.width, rules.minBlockSide, rules.maxBlockSide)
            check("height", b.height, rules.minBlockSide, rules.maxBlockSide)
            check("rotation", b.rotation, -100, 100, unit: " radians")
            check("springiness", b.springiness, 0, 1)
        }
        return out
    }

    /// Whether an object (with sound fields) stays on the board, above the bucket's lane and
    /// clear of the cannon.
    public func boundsIssue(_ o: LevelObject, rules: Rules) -> LevelIssue? {
        let s = shape(of: o)
        let (lo, hi) = s.bounds
        let w = rules.physics.boardWidth
        let p = path(of: o), id = id(of: o)
        func issue(_ m: String) -> LevelIssue { LevelIssue(path: p, objectId: id, message: m) }
        if lo.x < 0 { return issue("extends off the board: left edge at x = \(fmt(lo.x)) < 0") }
        if hi.x > w { return issue("extends off the board: right edge at x = \(fmt(hi.x)) > \(fmt(w))") }
        if lo.y < 0 { return issue("extends off the board: top edge at y = \(fmt(lo.y)) < 0") }
        if hi.y > rules.laneTop {
            return issue("reaches into the bucket's lane: bottom edge at y = \(fmt(hi.y)) > \(fmt(rules.laneTop))")
        }
        // The confusement flip turns everything half a turn about the board centre, so in a level
        // with a confusement peg every object must also be valid where the flip puts it: at least
        // (height - laneTop) below the top edge.
        if pegs.contains(where: { $0.kind == .confusement }) {
            let top = rules.physics.boardHeight - rules.laneTop
            if lo.y < top {
                return issue("is too near the top for a level with a confusement peg: top edge at y = \(fmt(lo.y)) < \(fmt(top)), so the flip would put it in the bucket's lane")
            }
        }
        let gap = ObstacleStore.distance(from: rules.cannon, to: s)
        if gap < rules.cannonClearance {
            return issue("is \(fmt(max(gap, 0))) from the cannon at (\(fmt(rules.cannon.x)), \(fmt(rules.cannon.y))); keep \(fmt(rules.cannonClearance)) clear")
        }
        return nil
    }

    /// Pairs of objects that overlap, found through a coarse grid so large levels stay linear.
    func overlapIssues(among objs: [LevelObject]) -> [LevelIssue] {
        let cell = 64.0
        var buckets: [Int: [Int]] = [:]
        let shapes = objs.map { shape(of: $0) }
        for (k, s) in shapes.enumerated() {
            let (lo, hi) = s.bounds
            for gy in Int((lo.y / cell).rounded(.down))...Int((hi.y / cell).rounded(.down)) {
                for gx in Int((lo.x / cell).rounded(.down))...Int((hi.x / cell).rounded(.down)) {
                    buckets[gy * 100_000 + gx, default: []].append(k)
                }
            }
        }
        var reported = Set<Int>()
        var out: [LevelIssue] = []
        for key in buckets.keys.sorted() {
            let list = buckets[key]!
            for a in 0..<list.count {
                for b in (a + 1)..<list.count {
                    let i = min(list[a], list[b]), j = max(list[a], list[b])
                    guard !reported.contains(i * objs.count + j), Geometry.overlap(shapes[i], shapes[j]) else { continue }
                    reported.insert(i * objs.count + j)
                    out.append(LevelIssue(path: path(of: objs[j]), objectId: id(of: objs[j]),
                                          message: "overlaps \(label(of: objs[i])) (\(path(of: objs[i])))"))
                }
            }
        }
        return out.sorted { $0.description < $1.description }
    }
}

func fmt(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return LevelCodec.number(r)
}

/// Overlap tests for level objects (touching is allowed).
public enum Geometry {
    /// Surfaces closer than this are touching, not overlapping, board units.
    public static let tolerance = 1e-6

    /// Whether two shapes overlap by more than `tolerance`.
    public static func overlap(_ a: Shape, _ b: Shape) -> Bool {
        switch (a, b) {
        case let (.circle(c1, r1), .circle(c2, r2)):
            return (c1 - c2).length < r1 + r2 - tolerance
        case let (.circle(c, r), .polygon(p)), let (.polygon(p), .circle(c, r)):
            return ObstacleStore.distance(from: c, to: .polygon(p)) < r - tolerance
        case let (.polygon(p), .polygon(q)):
            return polygonsOverlap(p, q)
        }
    }

    /// Separating-axis test on both polygons' edge normals.
    static func polygonsOverlap(_ p: ConvexPolygon, _ q: ConvexPolygon) -> Bool {
        for axis in p.edges.map(\.normal) + q.edges.map(\.normal) {
            let (pMin, pMax) = project(p, axis), (qMin, qMax) = project(q, axis)
            if pMax <= qMin + tolerance || qMax <= pMin + tolerance { return false }
        }
        return true
    }

    static func project(_ p: ConvexPolygon, _ axis: Vec2) -> (Double, Double) {
        var lo = Double.infinity, hi = -Double.infinity
        for v in p.vertices {
            let d = v.dot(axis)
            lo = min(lo, d)
            hi = max(hi, d)
        }
        return (lo, hi)
    }
}

import Foundation
