import Foundation
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import PeggleUtilities
import Testing

/// The level designer's edits: refused edits throw a reason naming the object and leave the
/// level unchanged; accepted edits change exactly what was asked.
@Suite("Level editor")
struct LevelEditorTests {
    /// Peg 1 (orange, round) at (100, 300); peg 2 (blue brick) at (300, 300); block 3 at (600, 400).
    static var base: Level {
        Level(name: "Edit", pegs: [peg(1, .orange, 100, 300), brick(2, .blue, 300, 300, w: 40, h: 10)],
              blocks: [Block(id: 3, shape: .rectangle, center: Vec2(600, 400), width: 100, height: 20)])
    }

    // MARK: Refused edits

    @Test func addOverlappingIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.add(peg(0, .blue, 110, 300)) })
        #expect(e.message.contains("overlap"))
        #expect(e.message.contains("peg 1"), "should name the peg it would overlap: \(e.message)")
        #expect(e.message.contains("peg 4"), "should name the new peg: \(e.message)")

        let b = try #require(refused(&level) {
            try $0.add(Block(id: 0, shape: .triangle, center: Vec2(600, 380), width: 40, height: 30))
        })
        #expect(b.message.contains("block 3"))
    }

    @Test func addOffBoardIsRefused() throws {
        var level = Self.base
        let left = try #require(refused(&level) { try $0.add(peg(9, .blue, 3, 300)) })
        #expect(left.message.contains("peg 9"))
        #expect(left.message.contains("off the board"))
        let lane = try #require(refused(&level) { try $0.add(peg(9, .blue, 300, 556)) })
        #expect(lane.message.contains("peg 9") && lane.message.contains("lane"))
        let cannon = try #require(refused(&level) { try $0.add(peg(9, .blue, 410, 50)) })
        #expect(cannon.message.contains("peg 9") && cannon.message.contains("cannon"))
        let nan = try #require(refused(&level) { try $0.add(peg(9, .blue, .nan, 300)) })
        #expect(nan.message.contains("peg 9") && nan.message.contains("x"))
        let far = try #require(refused(&level) {
            try $0.add(Block(id: 9, shape: .rectangle, center: Vec2(790, 200), width: 40, height: 10))
        })
        #expect(far.message.contains("block 9") && far.message.contains("right"))
    }

    @Test func moveIntoOverlapIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.move(id: 1, to: Vec2(290, 300)) })
        #expect(e.message.contains("peg 1") && e.message.contains("peg 2") && e.message.contains("overlap"))
        let block = try #require(refused(&level) { try $0.move(id: 3, to: Vec2(300, 310)) })
        #expect(block.message.contains("block 3") && block.message.contains("peg 2"))
    }

    @Test func moveOffBoardIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.move(id: 1, to: Vec2(100, 3)) })
        #expect(e.message.contains("peg 1") && e.message.contains("top"))
        let right = try #require(refused(&level) { try $0.move(id: 3, to: Vec2(760, 400)) })
        #expect(right.message.contains("block 3") && right.message.contains("right"))
        let below = try #require(refused(&level) { try $0.move(id: 2, to: Vec2(300, 700)) })
        #expect(below.message.contains("peg 2"))
    }

    @Test func resizeCircleOutOfRangeIsRefused() throws {
        var level = Self.base
        let big = try #require(refused(&level) { try $0.resize(id: 1, radius: 31) })
        #expect(big.message.contains("peg 1") && big.message.contains("radius") && big.message.contains("31"))
        let small = try #require(refused(&level) { try $0.resize(id: 1, radius: 5) })
        #expect(small.message.contains("peg 1") && small.message.contains("radius"))
        // Within range but overlapping its neighbour: refused too.
        var near = Self.base
        try near.add(peg(4, .blue, 140, 300))
        let overlap = try #require(refused(&near) { try $0.resize(id: 1, radius: 30) })
        #expect(overlap.message.contains("peg 1") && overlap.message.contains("peg 4"))
    }

    @Test func resizeWithTheWrongKindOfSizeIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.resize(id: 1, width: 20, height: 20) })
        #expect(e.message.contains("peg 1") && e.message.contains("radius"))
        let brickRadius = try #require(refused(&level) { try $0.resize(id: 2, radius: 10) })
        #expect(brickRadius.message.contains("peg 2"))
        let blockRadius = try #require(refused(&level) { try $0.resize(id: 3, radius: 10) })
        #expect(blockRadius.message.contains("block 3"))
        let tooWide = try #require(refused(&level) { try $0.resize(id: 2, width: 81, height: 10) })
        #expect(tooWide.message.contains("peg 2") && tooWide.message.contains("width"))
        let blockTooBig = try #require(refused(&level) { try $0.resize(id: 3, width: 100, height: 401) })
        #expect(blockTooBig.message.contains("block 3") && blockTooBig.message.contains("height"))
    }

    @Test func rotateARoundPegIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.rotate(id: 1, to: 0.5) })
        #expect(e.message.contains("peg 1") && e.message.contains("round"))
    }

    @Test func rotateABlockIntoOverlapIsRefused() throws {
        var level = Self.base
        try level.add(peg(4, .blue, 572, 350))  // 28 above the block's top edge; a turned corner reaches it
        let e = try #require(refused(&level) { try $0.rotate(id: 3, to: Double.pi / 4) })
        #expect(e.message.contains("block 3") && e.message.contains("peg 4") && e.message.contains("overlap"))
        let brick = try #require(refused(&level) { try $0.rotate(id: 2, to: .nan) })
        #expect(brick.message.contains("peg 2") && brick.message.contains("rotation"))
    }

    @Test func removeUnknownIdIsRefused() throws {
        var level = Self.base
        let e = try #require(refused(&level) { try $0.remove(id: 99) })
        #expect(e.message.contains("99"))
        let move = try #require(refused(&level) { try $0.move(id: 42, to: Vec2(200, 200)) })
        #expect(move.message.contains("42"))
        let kind = try #require(refused(&level) { try $0.setKind(id: 3, to: .green) })
        #expect(kind.message.contains("block 3"))
    }

    @Test func springinessOutOfRangeIsRefused() throws {
        var level = Self.base
        let high = try #require(refused(&level) { try $0.setSpringiness(id: 3, to: 1.5) })
        #expect(high.message.contains("block 3") && high.message.contains("springiness"))
        let low = try #require(refused(&level) { try $0.setSpringiness(id: 3, to: -0.1) })
        #expect(low.message.contains("block 3"))
        let onPeg = try #require(refused(&level) { try $0.setSpringiness(id: 1, to: 0.5) })
        #expect(onPeg.message.contains("peg 1"))
    }

    @Test func tooManyObjectsIsRefused() throws {
        var rules = Rules()
        rules.maxObjects = 3
        var level = Self.base
        let e = try #require(refused(&level) { try $0.add(peg(0, .blue, 200, 200), rules: rules) })
        #expect(e.message.contains("3 objects"))
        let b = try #require(refused(&level) {
            try $0.add(Block(id: 0, shape: .rectangle, center: Vec2(200, 450), width: 20, height: 20), rules: rules)
        })
        #expect(b.message.contains("3 objects"))
        // One fewer and it fits.
        rules.maxObjects = 4
        try level.add(peg(0, .blue, 200, 200), rules: rules)
        #expect(level.pegs.count == 3)
    }

    // MARK: Accepted edits change exactly what was asked

    @Test func addAppendsWithAFreshIdWhenNeeded() throws {
        var level = Self.base
        var expected = Self.base
        let a = try level.add(peg(0, .green, 200, 200))  // id 0: gets the next free id
        #expect(a == 4)
        expected.pegs.append(peg(4, .green, 200, 200))
        #expect(level == expected)

        let b = try level.add(peg(3, .purple, 250, 150))  // 3 is the block's: replaced
        #expect(b == 5)
        let c = try level.add(peg(40, .zombie, 350, 150))  // free: kept
        #expect(c == 40)
        let d = try level.add(Block(id: 1, shape: .triangle, center: Vec2(200, 480), width: 40, height: 30))
        #expect(d == 41)
        let ids = level.pegs.map(\.id) + level.blocks.map(\.id)
        #expect(Set(ids).count == ids.count, "ids must stay unique: \(ids)")
        #expect(level.validate().isEmpty)
    }

    @Test func idsStayUniqueOverManyEdits() throws {
        var level = Self.base
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let p = Vec2(20 + Double(rng.nextInt(below: 760)), 100 + Double(rng.nextInt(below: 440)))
            let wanted = rng.nextInt(below: 6)
            if rng.nextInt(below: 4) == 0, let victim = level.pegs.randomElement(using: &rng), victim.id != 1 {
                try level.remove(id: victim.id)
            } else {
                _ = try? level.add(peg(wanted, .blue, p.x, p.y))
            }
            let ids = level.pegs.map(\.id) + level.blocks.map(\.id)
            #expect(Set(ids).count == ids.count)
            #expect(ids.allSatisfy { $0 >= 1 })
        }
        #expect(level.pegs.count > 10)
        #expect(level.validate().isEmpty, "edits must keep a valid level valid: \(level.validate())")
    }

    @Test func moveChangesOnlyTheCentre() throws {
        var level = Self.base
        try level.move(id: 2, to: Vec2(320, 250))
        var expected = Self.base
        expected.pegs[1].center = Vec2(320, 250)
        #expect(level == expected)
        try level.move(id: 3, to: Vec2(500, 500))
        expected.blocks[0].center = Vec2(500, 500)
        #expect(level == expected)
    }

    @Test func removeTakesOutOnlyThatObject() throws {
        var level = Self.base
        try level.remove(id: 2)
        #expect(level.pegs == [peg(1, .orange, 100, 300)])
        #expect(level.blocks == Self.base.blocks)
        try level.remove(id: 3)
        #expect(level.blocks.isEmpty)
        #expect(level.object(withId: 3) == nil)
    }

    @Test func resizeRotateAndSpringinessChangeOnlyTheirField() throws {
        var level = Self.base
        var expected = Self.base
        try level.resize(id: 1, radius: 20)
        expected.pegs[0].shape = .circle(radius: 20)
        #expect(level == expected)

        try level.rotate(id: 2, to: 0.4)
        expected.pegs[1].shape = .brick(width: 40, height: 10, rotation: 0.4)
        #expect(level == expected)

        try level.resize(id: 2, width: 30, height: 12)
        expected.pegs[1].shape = .brick(width: 30, height: 12, rotation: 0.4)  // rotation kept
        #expect(level == expected)

        try level.resize(id: 3, width: 120, height: 30)
        expected.blocks[0].width = 120
        expected.blocks[0].height = 30
        #expect(level == expected)

        try level.rotate(id: 3, to: -0.2)
        expected.blocks[0].rotation = -0.2
        #expect(level == expected)

        try level.setSpringiness(id: 3, to: 1)
        expected.blocks[0].springiness = 1
        #expect(level == expected)

        try level.setKind(id: 2, to: .green)
        expected.pegs[1].kind = .green
        #expect(level == expected)
        #expect(level.validate().isEmpty)
    }

    @Test func anEditMayMoveAnObjectOutOfItsOwnOldPlace() throws {
        // Moving a peg a little overlaps its own old outline; that is not an overlap.
        var level = Self.base
        try level.move(id: 1, to: Vec2(105, 302))
        #expect(level.pegs[0].center == Vec2(105, 302))
    }
}
