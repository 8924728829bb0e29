import PegglePhysics

// The templates of the level generator: each lays out pegs (and for some, blocks) through the
// builder, which keeps only what fits. Parameters are drawn from the design's stream; their
// ranges depend on the distribution (hard: more rows, tighter spacing, narrower gaps). Every
// loop runs a fixed or bounded number of times. Angles are radians, +x toward +y (clockwise on
// screen), so an arc from 0 to pi is a smile (the lower half of a circle).

extension Design {
    /// Nested arcs: smiles hanging from above the board, rainbows rising from below it, or
    /// mirrored pairs of side arcs; sometimes a row along the bottom.
    mutating func arcs() {
        let s = knobs.spacing
        switch int(3) {
        case 0:
            let cy = uniform(40, 110)
            let count = hard ? int(3...4) : 3
            let dr = hard ? uniform(2 * knobs.radius + 22, 2 * knobs.radius + 34) : uniform(2 * knobs.radius + 28, 2 * knobs.radius + 40)
            var r = uniform(140, 180)
            let a0 = deg(uniform(12, 35))
            for _ in 0..<count {
                pegs(arc(Vec2(boardMid, cy), r, r, a0, Trig.pi - a0, spacing: s).map(\.0))
                r += dr
            }
            notes.append("\(count) nested arcs")
        case 1:
            let cy = uniform(500, 580)
            let count = hard ? int(3...4) : 3
            let dr = hard ? uniform(2 * knobs.radius + 22, 2 * knobs.radius + 34) : uniform(2 * knobs.radius + 28, 2 * knobs.radius + 40)
            var r = uniform(130, 170)
            let a0 = deg(uniform(195, 215))
            for _ in 0..<count {
                pegs(arc(Vec2(boardMid, cy), r, r, a0, 3 * Trig.pi - a0, spacing: s).map(\.0))
                r += dr
            }
            notes.append("\(count) rainbows")
        default:
            let pairs = hard ? int(2...3) : 2
            for k in 0..<pairs {
                let x = uniform(150, 260), y = 150 + Double(k) * uniform(110, 140)
                let r = uniform(60, 100)
                let smile = chance(0.5)
                let (a0, a1) = smile ? (deg(10), deg(170)) : (deg(190), deg(350))
                let left = arc(Vec2(x, y), r, r * 0.8, a0, a1, spacing: s).map(\.0)
                for p in left {
                    b.peg(p, radius: knobs.radius)
                    b.peg(Vec2(2 * boardMid - p.x, p.y), radius: knobs.radius)
                }
            }
            // A centre arc joins the pairs.
            pegs(arc(Vec2(boardMid, uniform(200, 260)), uniform(80, 120), uniform(60, 90), deg(20), deg(160), spacing: s).map(\.0))
            notes.append("\(pairs) pairs of side arcs")
        }
        if chance(0.6) {
            let y = uniform(500, 530)
            field(rows: 1, y0: y, dx: s * uniform(1.6, 2.4), dy: 0, xMin: 100, xMax: 700)
        }
    }

    /// A column of `count` pegs 45 apart near each side wall, from `y0` down.
    mutating func sideColumns(count: Int, y0: Double) {
        let x = uniform(55, 90)
        for k in 0..<count {
            let y = y0 + Double(k) * 45
            b.peg(Vec2(x, y), radius: knobs.radius)
            b.peg(Vec2(2 * boardMid - x, y), radius: knobs.radius)
        }
    }

    /// Staggered rows (a honeycomb), flat, bent like a bowl or a dome, or waved; 40% of the time
    /// with a round window (or a mirrored pair of them) cut out.
    mutating func rows() {
        let count = hard ? int(5...6) : 5
        let dx = hard ? uniform(2 * knobs.radius + 30, 2 * knobs.radius + 40) : uniform(2 * knobs.radius + 38, 2 * knobs.radius + 50)
        let dy = hard ? uniform(40, 48) : uniform(48, 58)
        let y0 = uniform(140, 180)
        let style = int(3)
        let depth = uniform(-60, 60), amplitude = uniform(14, 28), wavelength = uniform(240, 400)
        var holes: [(Vec2, Double)] = []
        if chance(0.4) {
            let r = uniform(50, 85)
            let y = y0 + uniform(1, Double(count) - 1.5) * dy
            if chance(0.5) {
                holes = [(Vec2(boardMid, y), r)]
            } else {
                let x = uniform(180, 300)
                holes = [(Vec2(x, y), r * 0.8), (Vec2(2 * boardMid - x, y), r * 0.8)]
            }
        }
        let mid = boardMid
        field(rows: count, y0: y0, dx: dx, dy: dy,
              skip: { p in holes.contains { (p - $0.0).length < $0.1 } },
              bend: { x in
                  let u = (x - mid) / mid
                  switch style {
                  case 0: return 0
                  case 1: return depth * u * u
                  default: return amplitude * Trig.cos(2 * Trig.pi * (x - mid) / wavelength)
                  }
              })
        notes.append("\(count) staggered rows" + (style == 1 ? ", bent" : style == 2 ? ", waved" : "")
            + (holes.isEmpty ? "" : ", with a window"))
    }

    /// Rings of pegs: concentric about the middle, a middle ring with mirrored pairs, or a grid of
    /// small rings; rings have a peg at the top, so each is symmetric.
    mutating func rings() {
        let s = knobs.spacing
        func ring(_ c: Vec2, _ r: Double, centre: Bool) {
            let n = max(5, Int(2 * Trig.pi * r / s))
            let phase = -Trig.pi / 2 + (n % 2 == 0 && chance(0.5) ? Trig.pi / Double(n) : 0)
            for k in 0..<n { b.peg(c + Vec2(r * Trig.cos(phase + 2 * Trig.pi * Double(k) / Double(n)),
                                             r * Trig.sin(phase + 2 * Trig.pi * Double(k) / Double(n))), radius: knobs.radius) }
            if centre { b.peg(c, radius: knobs.radius) }
        }
        switch int(3) {
        case 0:
            let c = Vec2(boardMid, uniform(290, 320))
            let count = hard ? 3 : int(2...3)
            var r = uniform(55, 75)
            let step = hard ? uniform(2 * knobs.radius + 20, 2 * knobs.radius + 28) : uniform(2 * knobs.radius + 30, 2 * knobs.radius + 44)
            for _ in 0..<count { ring(c, r, centre: false); r += step }
            ring(c, 0.01, centre: true)
            sideColumns(count: hard ? 5 : 4, y0: uniform(150, 190))
            notes.append("\(count) concentric rings")
        case 1:
            let middle = Vec2(boardMid, uniform(250, 330))
            ring(middle, uniform(60, 90), centre: chance(0.5))
            let pairs = hard ? 2 : int(1...2)
            for k in 0..<pairs {
                let x = uniform(140, 230), y = k == 0 ? uniform(170, 230) : uniform(380, 440)
                let r = uniform(45, 70), centre = chance(0.5)
                ring(Vec2(x, y), r, centre: centre)
                ring(Vec2(2 * boardMid - x, y), r, centre: centre)
            }
            if pairs == 1 {
                pegs(arc(Vec2(boardMid, uniform(560, 600)), uniform(220, 260), uniform(120, 150), deg(200), deg(340),
                         spacing: s).map(\.0))
            }
            notes.append("a ring and \(pairs) mirrored pair\(pairs == 1 ? "" : "s")")
        default:
            let columns = 3, rowCount = hard ? 3 : 2
            let r = hard ? uniform(34, 40) : uniform(40, 50)
            let pitchX = uniform(200, 230), pitchY = hard ? uniform(135, 150) : uniform(150, 180)
            let y0 = hard ? uniform(150, 165) : uniform(170, 200)
            for row in 0..<rowCount {
                for col in 0..<columns {
                    ring(Vec2(boardMid + Double(col - 1) * pitchX, y0 + Double(row) * pitchY), r, centre: chance(0.5))
                }
            }
            notes.append("a grid of \(rowCount * columns) small rings")
        }
    }

    /// One or two spiral arms about a point near the middle, squashed a little vertically.
    mutating func spiral() {
        let arms = hard && chance(0.35) ? 2 : 1
        let c = Vec2(uniform(370, 430), uniform(290, 330))
        let squash = uniform(0.78, 0.9)
        // Growth per radian: successive turns (or the two arms) stay more than a peg apart.
        let growth = arms == 2 ? uniform(13, 16) : (hard ? uniform(10, 12) : uniform(12, 15))
        let r0 = uniform(30, 50)
        let turns = uniform(2.1, 2.7)
        let reverse = chance(0.5)
        let start = uniform(0, 2 * Trig.pi)
        for arm in 0..<arms {
            var last: Vec2?
            let offset = start + Double(arm) * Trig.pi
            // At most turns * 2 pi / 0.02 (about 850) steps.
            var t = 0.0
            while t < turns * 2 * Trig.pi {
                let r = r0 + growth * t
                let a = offset + (reverse ? -t : t)
                let p = c + Vec2(r * Trig.cos(a), squash * r * Trig.sin(a))
                if last == nil || (p - last!).length >= knobs.spacing {
                    if b.peg(p, radius: knobs.radius) { last = p } else if last != nil && (p - last!).length > 2 * knobs.spacing { last = nil }
                }
                t += 0.02
            }
        }
        notes.append(arms == 2 ? "two spiral arms" : "a spiral")
    }

    /// Two straight walls of pegs (or bricks) rising outward from a gap, a pool of pegs under the
    /// gap, and a few pegs above.
    mutating func funnel() {
        let gap = hard ? uniform(56, 76) : uniform(90, 120)
        let slope = uniform(0.45, 0.75)
        let mouthY = uniform(340, 400)
        let bricks = chance(0.4)
        let dir = Vec2(Trig.cos(slope), -Trig.sin(slope))
        for side in [-1.0, 1.0] {
            let mouth = Vec2(boardMid + side * (gap / 2 + knobs.radius), mouthY)
            let step = bricks ? uniform(34, 40) : knobs.spacing
            for k in 0..<20 {
                let p = mouth + Vec2(side * dir.x, dir.y) * (Double(k) * step)
                if p.x < 30 || p.x > 770 || p.y < 110 { break }
                if bricks {
                    b.brick(p, width: step - 4, height: 12, rotation: -side * slope)
                } else {
                    b.peg(p, radius: knobs.radius)
                }
            }
        }
        // The pool under the mouth.
        let poolRows = 3
        let width = uniform(220, 340)
        field(rows: poolRows, y0: mouthY + uniform(55, 75), dx: knobs.spacing * uniform(1.2, 1.5), dy: hard ? 40 : 48,
              xMin: boardMid - width / 2, xMax: boardMid + width / 2)
        // Above the walls' ends, an arc; outside them, a column each side.
        pegs(arc(Vec2(boardMid, 90), uniform(90, 130), uniform(50, 80), deg(30), deg(150), spacing: knobs.spacing).map(\.0))
        let x = uniform(60, 90)
        for k in 0..<(hard ? 4 : 3) {
            let y = mouthY + 10 + Double(k) * 45
            b.peg(Vec2(x, y), radius: knobs.radius)
            b.peg(Vec2(2 * boardMid - x, y), radius: knobs.radius)
        }
        notes.append("a funnel of \(bricks ? "bricks" : "pegs")")
    }

    /// Brick pegs along curves: smiles, rainbows or chevrons, each brick along its curve.
    mutating func bricks() {
        let w = uniform(28, 36), h = uniform(11, 14)
        let step = w + (hard ? uniform(3, 6) : uniform(6, 10))
        switch int(3) {
        case 0, 1:
            let smile = chance(0.5)
            let c = Vec2(boardMid, smile ? uniform(50, 120) : uniform(520, 580))
            let count = hard ? 4 : 3
            let dr = hard ? uniform(44, 56) : uniform(56, 70)
            var r = uniform(140, 175)
            let a0 = smile ? deg(uniform(15, 35)) : deg(uniform(195, 212))
            let a1 = smile ? Trig.pi - a0 : 3 * Trig.pi - a0
            for ring in 0..<count {
                for (p, a) in arc(c, r, r, a0, a1, spacing: step) {
                    b.brick(p, width: w, height: h, rotation: a + Trig.pi / 2)
                }
                // A round peg at each end of every other curve.
                if ring % 2 == 1 {
                    b.peg(c + Vec2(r * Trig.cos(a0), r * Trig.sin(a0)) + Vec2(0, smile ? -24 : 24), radius: knobs.radius)
                }
                r += dr
            }
            sideColumns(count: hard ? 5 : 4, y0: smile ? uniform(140, 180) : uniform(300, 340))
            if smile { field(rows: 1, y0: uniform(500, 530), dx: knobs.spacing * 2, dy: 0, xMin: 150, xMax: 650) }
            notes.append("\(count) brick \(smile ? "smiles" : "rainbows")")
        default:
            let count = hard ? int(4...5) : int(3...4)
            let angle = uniform(0.25, 0.5)
            let down = chance(0.5)
            let y0 = uniform(150, 180), dy = hard ? uniform(62, 72) : uniform(80, 95)
            for row in 0..<count {
                let apex = Vec2(boardMid, y0 + Double(row) * dy)
                for side in [-1.0, 1.0] {
                    for k in 0..<12 {
                        let d = (Double(k) + 0.6) * step
                        let p = apex + Vec2(side * d * Trig.cos(angle), (down ? -1 : 1) * d * Trig.sin(angle))
                        if p.x < 30 || p.x > 770 { break }
                        b.brick(p, width: w, height: h, rotation: (down ? -1 : 1) * side * angle)
                    }
                }
            }
            notes.append("\(count) brick chevrons")
        }
    }

    /// Sine waves of pegs across the board, in step (mirror symmetric 60% of the time) or
    /// alternating like a braid.
    mutating func waves() {
        let count = 4
        let amplitude = uniform(18, 40), wavelength = uniform(220, 380)
        let dy = hard ? uniform(62, 74) : uniform(70, 85)
        let y0 = uniform(150, 180)
        let symmetric = chance(0.6)
        let phase = symmetric ? 0 : uniform(0, 2 * Trig.pi)
        let braid = dy >= 2 * amplitude + 2 * knobs.radius + 4 && chance(0.4)
        let k = 2 * Trig.pi / wavelength
        for row in 0..<count {
            let flip = braid && row % 2 == 1 ? -1.0 : 1.0
            let y = y0 + Double(row) * dy
            func at(_ x: Double) -> Vec2 { Vec2(x, y + flip * amplitude * Trig.cos(k * (x - boardMid) + phase)) }
            // Walk the curve in 1-unit steps, dropping a peg every `spacing` of arc length.
            var last = at(40)
            b.peg(last, radius: knobs.radius)
            var x = 40.0, travelled = 0.0
            for _ in 0..<720 {
                x += 1
                let p = at(x)
                travelled += (p - last).length
                last = p
                if travelled >= knobs.spacing * 1.15 {
                    b.peg(p, radius: knobs.radius)
                    travelled = 0
                }
            }
        }
        notes.append("\(count) \(braid ? "braided " : "")waves")
    }

    /// Pockets between block walls along the bottom, a peg or two in each, a field above; in hard
    /// levels often a roof with a gate over the middle.
    mutating func pockets() {
        let n = hard ? int(4...5) : 3
        let inner = hard ? uniform(54, 66) : uniform(72, 92)
        let wall = 12.0
        let height = hard ? uniform(110, 150) : uniform(80, 110)
        let bottom = 548.0
        let spring = chance(0.5) ? uniform(0.2, 0.6) : 0
        let pitch = min(150, 680 / Double(n))
        let top = bottom - height
        for i in 0..<n {
            let x = boardMid + (Double(i) - Double(n - 1) / 2) * pitch
            for side in [-1.0, 1.0] {
                b.block(.rectangle, Vec2(x + side * (inner / 2 + wall / 2), bottom - height / 2), width: wall, height: height,
                        springiness: spring)
            }
            var y = bottom - knobs.radius - 4
            while y - knobs.radius > top + 4 {
                b.peg(Vec2(x, y), radius: knobs.radius)
                y -= 2 * knobs.radius + (hard ? 8 : 14)
            }
            // A cap peg on each wall's top.
            if chance(0.5) { b.peg(Vec2(x - inner / 2 - wall / 2, top - knobs.radius - 2), radius: knobs.radius)
                             b.peg(Vec2(x + inner / 2 + wall / 2, top - knobs.radius - 2), radius: knobs.radius) }
        }
        var roofed = false
        if hard && chance(0.6) {
            let y = top - uniform(45, 65), gate = uniform(40, 60), length = uniform(110, 160)
            b.block(.rectangle, Vec2(boardMid - gate / 2 - length / 2, y), width: length, height: 14)
            b.block(.rectangle, Vec2(boardMid + gate / 2 + length / 2, y), width: length, height: 14)
            roofed = true
        }
        let rowsAbove = 3
        field(rows: rowsAbove, y0: uniform(150, 175), dx: knobs.spacing * (hard ? 1.6 : 1.9), dy: hard ? 46 : 52)
        // Easy levels: a bridge of pegs between the field and the pockets.
        if !hard {
            pegs(arc(Vec2(boardMid, uniform(560, 600)), uniform(200, 240), uniform(150, 190), deg(205), deg(335),
                     spacing: knobs.spacing).map(\.0))
        }
        notes.append("\(n) pockets" + (roofed ? " under a gated roof" : "") + (spring > 0 ? ", springy walls" : ""))
    }

    /// Springy triangles (a mirrored pair or two) and often a springy bar at the bottom, an arc of
    /// pegs above, columns at the sides and a few pegs over each ramp.
    mutating func ramps() {
        let pairs = hard ? int(1...2) : 1
        let spring = uniform(0.6, 1.0)
        var ramps: [Vec2] = []
        for k in 0..<pairs {
            let x = k == 0 ? uniform(170, 240) : uniform(60, 110)
            let y = k == 0 ? uniform(450, 500) : uniform(330, 380)
            let w = uniform(90, 130), h = uniform(30, 44), tilt = uniform(0.2, 0.45)
            b.block(.triangle, Vec2(x, y), width: w, height: h, rotation: tilt, springiness: spring)
            b.block(.triangle, Vec2(2 * boardMid - x, y), width: w, height: h, rotation: -tilt, springiness: spring)
            ramps.append(Vec2(x, y))
        }
        if chance(0.6) {
            b.block(.rectangle, Vec2(boardMid, uniform(505, 530)), width: uniform(120, 180), height: 14,
                    springiness: uniform(0.4, 0.8))
        }
        // Arcs above.
        let arcCount = 2
        var r = uniform(150, 190)
        for _ in 0..<arcCount {
            pegs(arc(Vec2(boardMid, uniform(50, 70)), r, r, deg(20), deg(160), spacing: knobs.spacing).map(\.0))
            r += 2 * knobs.radius + uniform(24, 40)
        }
        // Side columns, and a short row over each ramp.
        sideColumns(count: hard ? 5 : 4, y0: 170)
        for c in ramps {
            for dx in [-1.0, 0, 1] {
                let p = c + Vec2(dx * knobs.spacing, -uniform(70, 90))
                b.peg(p, radius: knobs.radius)
                b.peg(Vec2(2 * boardMid - p.x, p.y), radius: knobs.radius)
            }
        }
        // A short staggered band across the middle.
        field(rows: hard ? 2 : 1, y0: uniform(330, 360), dx: knobs.spacing * 1.8, dy: 44, xMin: 200, xMax: 600)
        notes.append("\(2 * pairs) springy ramps")
    }
}
