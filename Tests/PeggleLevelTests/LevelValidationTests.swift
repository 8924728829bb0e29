import Foundation
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// `Level.validate`: every problem that makes a level unplayable, each naming its place.
@Suite("Level validation")
struct LevelValidationTests {
    /// A valid classic level: one orange peg and one block, far from everything.
    static var valid: Level {
        Level(name: "Valid", pegs: [peg(1, .orange, 100, 300), peg(2, .blue, 200, 300)],
              blocks: [Block(id: 3, shape: .rectangle, center: Vec2(600, 400), width: 100, height: 20)])
    }

    /// The only issue of `level`, required to be exactly one.
    func onlyIssue(_ level: Level, sourceLocation: SourceLocation = #_sourceLocation) throws -> LevelIssue {
        let issues = level.validate()
        try #require(issues.count == 1, "expected one issue, got \(issues)", sourceLocation: sourceLocation)
        return issues[0]
    }

    @Test func aValidLevelHasNoIssues() {
        #expect(Self.valid.validate().isEmpty)
    }

    @Test func negativeRadius() throws {
        var level = Self.valid
        level.pegs.append(peg(7, .blue, 300, 300, r: -5))
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs[2]")
        #expect(issue.objectId == 7)
        #expect(issue.field == "radius")
        #expect(issue.message.contains("-5"))
        #expect(issue.description == "pegs[2] (id 7): radius: -5 is outside 6...30")
    }

    @Test func radiusLimitsAreInclusive() {
        var level = Self.valid
        level.pegs.append(peg(7, .blue, 300, 300, r: 6))
        level.pegs.append(peg(8, .blue, 400, 300, r: 30))
        #expect(level.validate().isEmpty)
        level.pegs[3].shape = .circle(radius: 30.001)
        #expect(level.validate().map(\.field) == ["radius"])
        level.pegs[3].shape = .circle(radius: 5.999)
        #expect(level.validate().map(\.field) == ["radius"])
    }

    @Test func notANumberAndInfinite() throws {
        var level = Self.valid
        level.pegs[1].center.y = .nan
        var issue = try onlyIssue(level)
        #expect(issue.path == "pegs[1]" && issue.objectId == 2 && issue.field == "y")
        #expect(issue.message == "NaN is not a number")

        level = Self.valid
        level.blocks[0].width = .infinity
        issue = try onlyIssue(level)
        #expect(issue.path == "blocks[0]" && issue.objectId == 3 && issue.field == "width")
        #expect(issue.message.contains("Infinity") && issue.message.contains("not a finite number"))

        level = Self.valid
        level.pegs.append(brick(9, .blue, 300, 300, w: 20, h: 10, rot: -.infinity))
        issue = try onlyIssue(level)
        #expect(issue.path == "pegs[2]" && issue.objectId == 9 && issue.field == "rotation")
        #expect(issue.message.contains("-Infinity"))

        level = Self.valid
        level.blocks[0].springiness = .nan
        issue = try onlyIssue(level)
        #expect(issue.path == "blocks[0]" && issue.field == "springiness")
    }

    @Test func overlappingPegs() throws {
        var level = Self.valid
        level.pegs.append(peg(5, .blue, 110, 300))
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs[2]")
        #expect(issue.objectId == 5)
        #expect(issue.message.contains("overlaps peg 1"))
        #expect(issue.message.contains("pegs[0]"))
    }

    @Test func touchingIsNotOverlapping() {
        var level = Self.valid
        level.pegs.append(peg(5, .blue, 124, 300))  // exactly touching peg 1
        level.pegs.append(peg(6, .blue, 600, 378))  // resting on the block's top edge (y 390)
        #expect(level.validate().isEmpty)
    }

    @Test func pegOverlappingBlock() throws {
        var level = Self.valid
        level.pegs.append(peg(5, .blue, 600, 380))  // block top is at y 390; the peg reaches 392
        let issue = try onlyIssue(level)
        // The later of the two in the file (blocks come after pegs) carries the issue.
        #expect(issue.description == "blocks[0] (id 3): overlaps peg 5 (pegs[2])")
    }

    @Test func rotatedBlocksOverlapBySeparatingAxes() throws {
        var level = Self.valid
        // A thin bar turned 45 degrees whose corner pokes into the block's top edge.
        level.blocks.append(Block(id: 4, shape: .rectangle, center: Vec2(600, 375), width: 60, height: 6,
                                  rotation: Double.pi / 4))
        let issue = try onlyIssue(level)
        #expect(issue.message.contains("overlaps"))
        #expect(issue.path == "blocks[1]" && issue.objectId == 4)
        // Turned flat it clears the block (bottom edge at y 378 < 390).
        level.blocks[1].rotation = 0
        #expect(level.validate().isEmpty)
    }

    @Test func offTheBoardOnEachSide() throws {
        let cases: [(Peg, String)] = [
            (peg(9, .blue, 5, 300), "left"),
            (peg(9, .blue, 795, 300), "right"),
            (peg(9, .blue, 150, 5), "top"),
        ]
        for (p, side) in cases {
            var level = Self.valid
            level.pegs.append(p)
            let issue = try onlyIssue(level)
            #expect(issue.path == "pegs[2]" && issue.objectId == 9, "\(side)")
            #expect(issue.message.contains("off the board"), "\(side): \(issue.message)")
            #expect(issue.message.contains(side), "\(side): \(issue.message)")
        }
        // A block turned so a corner leaves the board on the right.
        var level = Self.valid
        level.blocks.append(Block(id: 8, shape: .rectangle, center: Vec2(760, 200), width: 100, height: 10, rotation: 0.3))
        let issue = try onlyIssue(level)
        #expect(issue.path == "blocks[1]" && issue.objectId == 8)
        #expect(issue.message.contains("right"))
        // A centre outside the board is a field issue.
        level = Self.valid
        level.pegs.append(peg(9, .blue, -30, 300))
        let centre = try onlyIssue(level)
        #expect(centre.field == "x" && centre.objectId == 9)
    }

    @Test func intoTheBucketLane() throws {
        var level = Self.valid
        level.pegs.append(peg(9, .blue, 300, 555))
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs[2]" && issue.objectId == 9)
        #expect(issue.message.contains("lane"))
        // Sitting exactly on the lane's top is allowed.
        level.pegs[2].center.y = 548
        #expect(level.validate().isEmpty)
    }

    @Test func tooCloseToTheCannon() throws {
        var level = Self.valid
        level.pegs.append(peg(9, .blue, 400, 70))  // surface 38 from (400, 20)
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs[2]" && issue.objectId == 9)
        #expect(issue.message.contains("cannon"))
        level.pegs[2].center.y = 82  // surface exactly 50 away
        #expect(level.validate().isEmpty)
    }

    @Test func duplicateIds() throws {
        var level = Self.valid
        level.pegs.append(peg(3, .blue, 300, 300))  // 3 is the block's id
        let issue = try onlyIssue(level)
        #expect(issue.field == "id")
        #expect(issue.objectId == 3)
        #expect(issue.description == "blocks[0] (id 3): id: is also used by pegs[2]")

        level = Self.valid
        level.pegs[1].id = 0
        let zero = try onlyIssue(level)
        #expect(zero.path == "pegs[1]" && zero.field == "id")
    }

    @Test func aHundredThousandPegsIsOneCountIssue() throws {
        // All at one spot: checking pairs would take 5e9 overlap tests; the count check must
        // come first and stop there.
        var level = Self.valid
        level.pegs = (1...100_000).map { peg($0, $0 == 1 ? .orange : .blue, 300, 300) }
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs")
        #expect(issue.message.contains("100000 pegs"))
        #expect(issue.message.contains("1000"))
    }

    @Test func manySpreadPegsValidateThroughTheGrid() {
        // 1000 objects at the limit, none overlapping: valid (and checked through the grid).
        var pegs: [Peg] = []
        var id = 1
        for row in 0..<20 {
            for col in 0..<50 {
                pegs.append(peg(id, id == 1 ? .orange : .blue, 20 + Double(col) * 15.5, 100 + Double(row) * 15, r: 6))
                id += 1
            }
        }
        var level = Level(name: "Dense", pegs: pegs)
        #expect(level.validate().isEmpty)
        level.pegs.append(peg(id, .blue, 600, 450))
        #expect(level.validate().count == 1)  // 1001 objects
    }

    @Test func classicNeedsAnOrangePeg() throws {
        var level = Self.valid
        level.pegs[0].kind = .blue
        let issue = try onlyIssue(level)
        #expect(issue.path == "pegs")
        #expect(issue.message.contains("orange"))
        // Other modes need pegs but no orange.
        level.mode = .dodge(shots: 3)
        #expect(level.validate().isEmpty)
        level.pegs = []
        #expect(try onlyIssue(level).path == "pegs")
    }

    @Test func modeParametersOutOfRange() throws {
        let cases: [(GameMode, String)] = [
            (.classic(balls: 0), "balls"), (.classic(balls: 100), "balls"),
            (.dodge(shots: 0), "shots"), (.dodge(shots: -1), "shots"),
            (.beatTheScore(targetScore: 0, timeLimit: 60), "target_score"),
            (.beatTheScore(targetScore: 100_000_001, timeLimit: 60), "target_score"),
            (.beatTheScore(targetScore: 100, timeLimit: 0.5), "time_limit"),
            (.beatTheScore(targetScore: 100, timeLimit: 3601), "time_limit"),
            (.beatTheScore(targetScore: 100, timeLimit: .nan), "time_limit"),
            (.beatTheScore(targetScore: 100, timeLimit: .infinity), "time_limit"),
        ]
        for (mode, field) in cases {
            var level = Self.valid
            level.mode = mode
            let issue = try onlyIssue(level)
            #expect(issue.path == "mode", "\(mode)")
            #expect(issue.field == field, "\(mode)")
        }
        for mode in [GameMode.classic(balls: 1), .classic(balls: 99), .dodge(shots: 99),
                     .beatTheScore(targetScore: 1, timeLimit: 1), .beatTheScore(targetScore: 100_000_000, timeLimit: 3600)] {
            var level = Self.valid
            level.mode = mode
            #expect(level.validate().isEmpty, "\(mode)")
        }
    }

    @Test func nameRules() {
        var level = Self.valid
        level.name = "   "
        #expect(level.validate().map(\.path) == ["name"])
        level.name = String(repeating: "x", count: 81)
        #expect(level.validate().map(\.path) == ["name"])
        level.name = "a\nb"
        #expect(level.validate().map(\.path) == ["name"])
        level.name = String(repeating: "é", count: 80)
        #expect(level.validate().isEmpty)
    }

    /// Author and description have limits too, so no tool prints or draws unbounded text, and
    /// none may carry control characters (a terminal would obey an escape sequence in them).
    @Test func authorAndDescriptionRules() {
        var level = Self.valid
        level.author = String(repeating: "a", count: 80)
        level.description = String(repeating: "d", count: 999) + "\n"
        #expect(level.validate().isEmpty)
        level.description = "Two lines:\r\n\tindented"
        #expect(level.validate().isEmpty)
        level.author = String(repeating: "🎯", count: 81)
        #expect(level.validate().map(\.description) == ["author: is 81 characters long; at most 80"])
        // Characters are code points, as JSON Schema counts them: a flag is two.
        level.author = String(repeating: "🇫🇷", count: 41)
        #expect(level.validate().map(\.description) == ["author: is 82 characters long; at most 80"])
        level.author = "Ann\u{1B}[2J"
        #expect(level.validate().map(\.description) == ["author: must not contain control characters"])
        level.author = nil
        level.description = String(repeating: "d", count: 400_000)
        #expect(level.validate().map(\.description) == ["description: is 400000 characters long; at most 1000"])
        level.description = "red \u{1B}[31m text \u{9B}"
        #expect(level.validate().map(\.description) == ["description: must not contain control characters other than line breaks and tabs"])
    }

    @Test func blockFieldLimits() throws {
        var level = Self.valid
        level.blocks[0].springiness = 1.5
        var issue = try onlyIssue(level)
        #expect(issue.path == "blocks[0]" && issue.objectId == 3 && issue.field == "springiness")
        level = Self.valid
        level.blocks[0].height = 5
        issue = try onlyIssue(level)
        #expect(issue.field == "height")
        level = Self.valid
        level.pegs.append(brick(9, .blue, 300, 300, w: 81, h: 10))
        issue = try onlyIssue(level)
        #expect(issue.field == "width" && issue.objectId == 9)
    }

    @Test func everyIssueIsReportedNotJustTheFirst() {
        var level = Self.valid
        level.mode = .classic(balls: 0)
        level.pegs.append(peg(9, .blue, 5, 300))
        level.pegs.append(peg(10, .blue, 110, 300))
        level.blocks[0].springiness = -1
        let issues = level.validate()
        #expect(Set(issues.map(\.path)) == ["mode", "pegs[2]", "pegs[3]", "blocks[0]"])
    }
}
