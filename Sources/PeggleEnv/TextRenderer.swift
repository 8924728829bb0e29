import PeggleGame
import PeggleLevel
import PegglePhysics

/// A board as text (Gymnasium's "ansi" render mode): 80 columns by 30 rows, each cell 10 x 20
/// board units. Pegs by kind: `b` blue, `O` orange, `g` green, `P` purple, `z` zombie,
/// `c` confusement; `#` block, `U` bucket, `V` cannon; a status line under the board.
public enum TextRenderer {
    public static let columns = 80, rows = 30

    public static func render(_ s: GameState) -> String {
        let cw = s.rules.physics.boardWidth / Double(columns), ch = s.rules.physics.boardHeight / Double(rows)
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        func put(_ p: Vec2, _ c: Character) {
            let x = Int(p.x / cw), y = Int(p.y / ch)
            if x >= 0 && x < columns && y >= 0 && y < rows { grid[y][x] = c }
        }
        let center = Vec2(s.rules.physics.boardWidth / 2, s.rules.physics.boardHeight / 2)
        for b in s.level.blocks {
            let poly = b.polygon.mapped { center + ($0 - center).rotated(by: s.boardAngle) }
            let (lo, hi) = poly.bounds
            var y = lo.y
            while y <= hi.y {
                var x = lo.x
                while x <= hi.x {
                    if ObstacleStore.distance(from: Vec2(x, y), to: .polygon(poly)) <= 0 { put(Vec2(x, y), "#") }
                    x += cw / 2
                }
                y += ch / 2
            }
        }
        let symbols: [PegKind: Character] = [.blue: "b", .orange: "O", .green: "g", .purple: "P", .zombie: "z", .confusement: "c"]
        for i in s.level.pegs.indices where !s.pegs[i].isRemoved {
            put(s.pegCenter(i), symbols[s.pegs[i].kind]!)
        }
        put(s.rules.cannon, "V")
        put(Vec2(s.bucket.x, s.rules.physics.boardHeight - 1), "U")
        let border = "+" + String(repeating: "-", count: columns) + "+"
        var out = border + "\n"
        for row in grid { out += "|" + String(row) + "|\n" }
        out += border + "\n"
        out += "\(s.level.name): \(s.status.rawValue), score \(s.score), orange left \(s.orangeRemaining)"
        switch s.level.mode {
        case .classic: out += ", balls left \(s.ballsLeft)"
        case .beatTheScore: out += ", time left \(Int((s.timeLeft ?? 0).rounded())) s"
        case .dodge: out += ", clean shots needed \(s.ballsLeft)"
        }
        return out + "\n"
    }
}
