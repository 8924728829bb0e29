import PegglePhysics

/// Why an edit was refused. The level is left as it was.
public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The level designer's operations. Each one is checked as a whole: the edited object must have
/// sound fields, stay on the board, keep clear of the cannon and the bucket's lane, and overlap
/// nothing; otherwise the edit throws with the reason and the level is unchanged.
extension Level {
    /// Adds a peg. Its id is replaced by the next free id when it is 0 or taken. Returns the id.
    @discardableResult
    public mutating func add(_ peg: Peg, rules: Rules = Rules()) throws(EditError) -> Int {
        guard pegs.count + blocks.count < rules.maxObjects else {
            throw EditError("the level already has \(rules.maxObjects) objects, the most allowed")
        }
        var p = peg
        if p.id < 1 || object(withId: p.id) != nil { p.id = nextId }
        try commit(rules) { $0.pegs.append(p); return .peg($0.pegs.count - 1) }
        return p.id
    }

    /// Adds a block. Its id is replaced by the next free id when it is 0 or taken. Returns the id.
    @discardableResult
    public mutating func add(_ block: Block, rules: Rules = Rules()) throws(EditError) -> Int {
        guard pegs.count + blocks.count < rules.maxObjects else {
            throw EditError("the level already has \(rules.maxObjects) objects, the most allowed")
        }
        var b = block
        if b.id < 1 || object(withId: b.id) != nil { b.id = nextId }
        try commit(rules) { $0.blocks.append(b); return .block($0.blocks.count - 1) }
        return b.id
    }

    /// Moves the object `id` so its centre is at `center`.
    public mutating func move(id: Int, to center: Vec2, rules: Rules = Rules()) throws(EditError) {
        let o = try find(id)
        try commit(rules) { (level: inout Level) throws(EditError) -> LevelObject in
            switch o {
            case let .peg(i): level.pegs[i].center = center
            case let .block(i): level.blocks[i].center = center
            }
            return o
        }
    }

    /// Removes the object `id`.
    public mutating func remove(id: Int) throws(EditError) {
        switch try find(id) {
        case let .peg(i): pegs.remove(at: i)
        case let .block(i): blocks.remove(at: i)
        }
    }

    /// Sets the radius of the circular peg `id`, board units.
    public mutating func resize(id: Int, radius: Double, rules: Rules = Rules()) throws(EditError) {
        let o = try find(id)
        guard case let .peg(i) = o, case .circle = pegs[i].shape else {
            throw EditError("\(label(of: o)) is not a round peg; give a width and height instead of a radius")
        }
        try commit(rules) { $0.pegs[i].shape = .circle(radius: radius); return o }
    }

    /// Sets the width and height of the brick or block `id`, board units.
    public mutating func resize(id: Int, width: Double, height: Double, rules: Rules = Rules()) throws(EditError) {
        let o = try find(id)
        try commit(rules) { (level: inout Level) throws(EditError) -> LevelObject in
            switch o {
            case let .peg(i):
                guard case let .brick(_, _, rot) = level.pegs[i].shape else {
                    throw EditError("\(level.label(of: o)) is a round peg; give a radius instead of a width and height")
                }
                level.pegs[i].shape = .brick(width: width, height: height, rotation: rot)
            case let .block(i):
                level.blocks[i].width = width
                level.blocks[i].height = height
            }
            return o
        }
    }

    /// Sets the rotation of the brick or block `id`, radians.
    public mutating func rotate(id: Int, to rotation: Double, rules: Rules = Rules()) throws(EditError) {
        let o = try find(id)
        try commit(rules) { (level: inout Level) throws(EditError) -> LevelObject in
            switch o {
            case let .peg(i):
                guard case let .brick(w, h, _) = level.pegs[i].shape else {
                    throw EditError("\(level.label(of: o)) is a round peg; turning it changes nothing")
                }
                level.pegs[i].shape = .brick(width: w, height: h, rotation: rotation)
            case let .block(i):
                level.blocks[i].rotation = rotation
            }
            return o
        }
    }

    /// Changes the kind of the peg `id`.
    public mutating func setKind(id: Int, to kind: PegKind) throws(EditError) {
        guard case let .peg(i) = try find(id) else { throw EditError("block \(id) is not a peg") }
        pegs[i].kind = kind
    }

    /// Sets the springiness (0...1) of the block `id`.
    public mutating func setSpringiness(id: Int, to value: Double, rules: Rules = Rules()) throws(EditError) {
        let o = try find(id)
        guard case let .block(i) = o else { throw EditError("\(label(of: o)) is not a block") }
        try commit(rules) { $0.blocks[i].springiness = value; return o }
    }

    /// Changes the level's settings (name, author, description, mode, power, purple roaming):
    /// refused, with the level unchanged, when a text or mode field is out of its range.
    public mutating func changeSettings(_ change: (inout Level) -> Void) throws(EditError) {
        var copy = self
        change(&copy)
        if let issue = (copy.textIssues() + copy.modeIssues()).first { throw EditError(issue.description) }
        self = copy
    }

    func find(_ id: Int) throws(EditError) -> LevelObject {
        guard let o = object(withId: id) else { throw EditError("there is no object with id \(id)") }
        return o
    }

    /// Applies `change` to a copy, checks the object it returns, and keeps the copy if sound.
    mutating func commit(_ rules: Rules = Rules(), _ change: (inout Level) throws(EditError) -> LevelObject) throws(EditError) {
        var copy = self
        let o = try change(&copy)
        if let issue = copy.fieldIssues(o, rules: rules).first {
            throw EditError("\(copy.label(of: o)): \(issue.field ?? "value") \(issue.message)")
        }
        if let issue = copy.boundsIssue(o, rules: rules) {
            throw EditError("\(copy.label(of: o)) \(issue.message)")
        }
        let s = copy.shape(of: o)
        for other in copy.objects where other != o {
            if Geometry.overlap(s, copy.shape(of: other)) {
                throw EditError("\(copy.label(of: o)) would overlap \(copy.label(of: other))")
            }
        }
        self = copy
    }
}
