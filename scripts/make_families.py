#!/usr/bin/env python3
"""Writes the families of known order (issue 35, item 1) into Levels/families/<family>/1.json ...
6.json, in the canonical format that `peggle` writes. Level 1 of a family is its easiest; each next
level turns one knob that can only make it harder for every way of playing (docs/estimate-checks.md,
"Families of known order", says why for each knob):

- "oranges": the same pegs and blocks (positions, sizes, rotations, ids), blue pegs turned orange,
  so the orange set only grows. The pegs are blue and orange only and the power is none, and every
  level keeps 10 x (100 x oranges + 10 x blues) under 25,000, the points a shot needs to earn a free
  ball: the kinds change what a shot must do, never where a ball goes or how many balls there are.
- "balls": classic, the same level with fewer balls.
- "target_score": beat the score, the same level with a higher target.
- "time_limit": beat the score, the same level with less game time.
- "shots": dodge, the same level with more clean shots asked for.

Python 3 standard library only; deterministic (a fixed random.Random seed per family), so rerunning
rewrites the files identically. Run `peggle level validate Levels/families/*/*.json` afterwards.

    python3 scripts/make_families.py            # writes Levels/families
    python3 scripts/make_families.py OUT_DIR    # writes OUT_DIR/<family>/N.json instead
"""
import math
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "Levels" / "families"

BALL_RADIUS = 10.0
FREE_BALL_POINTS = 25_000   # a shot scoring this earns a free ball (docs/rules.md, Scoring)
MAX_MULTIPLIER = 10
POINTS = {"blue": 10, "orange": 100}


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_levels  # noqa: E402  (its canonical writer: one for every generated level file)


class Level(make_levels.Level):
    """make_levels' level with pegs and blocks kept as dicts, so a family edits kinds in place;
    `text()` is make_levels' canonical JSON (pegs, then blocks, one per line)."""

    def peg(self, kind, x, y, r=12):
        self.pegs.append({"shape": "circle", "id": self._id(), "kind": kind, "x": x, "y": y, "r": r})

    def brick(self, kind, x, y, w, h, rot):
        self.pegs.append({"shape": "brick", "id": self._id(), "kind": kind, "x": x, "y": y, "w": w, "h": h, "rot": rot})

    def block(self, shape, x, y, w, h, rot=0.0, spring=0.0):
        self.blocks.append({"id": self._id(), "shape": shape, "x": x, "y": y, "w": w, "h": h, "rot": rot, "spring": spring})

    def copy(self, name, description, mode=None):
        """The same pegs and blocks (ids included) under another name, description and mode."""
        lv = Level(name, description, mode or self.mode, self.power)
        lv.pegs = [dict(p) for p in self.pegs]
        lv.blocks = [dict(b) for b in self.blocks]
        lv.next_id = self.next_id
        return lv

    def text(self):
        t = make_levels.Level(self.name, self.description, self.mode, self.power, self.purple_roams)
        t.pegs = [("circle", p["id"], p["kind"], p["x"], p["y"], p["r"]) if p["shape"] == "circle"
                  else ("brick", p["id"], p["kind"], p["x"], p["y"], (p["w"], p["h"], p["rot"])) for p in self.pegs]
        t.blocks = [(b["id"], b["shape"], b["x"], b["y"], b["w"], b["h"], b["rot"], b["spring"]) for b in self.blocks]
        return t.text()


# ---------------------------------------------------------------------------------------------
# Geometry helpers

def honeycomb(x0, x1, y0, rows, dx, dy):
    """Staggered rows: odd rows shifted by dx / 2; points with x past x1 are left out."""
    pts = []
    for r in range(rows):
        x = x0 + (dx / 2 if r % 2 else 0)
        while x <= x1 + 1e-9:
            pts.append((x, y0 + dy * r))
            x += dx
    return pts


def free_flight(angle):
    """Centre path of a ball shot from the cannon, reflected by the side walls only."""
    return make_levels.free_flight(angle, dt=1 / 240, walls=True)


def box_distance(px, py, b):
    """Distance from a point to a block's (rotated) rectangle, 0 inside."""
    c, s = math.cos(-b["rot"]), math.sin(-b["rot"])
    dx, dy = px - b["x"], py - b["y"]
    lx, ly = dx * c - dy * s, dx * s + dy * c
    qx, qy = max(abs(lx) - b["w"] / 2, 0.0), max(abs(ly) - b["h"] / 2, 0.0)
    return math.hypot(qx, qy)


def exposure(level, aims=121):
    """For each round peg, how many of `aims` free-flying first shots over +-1.45 rad touch it
    first (blocks stop a path). An approximation used only to choose which pegs turn orange."""
    counts = [0] * len(level.pegs)
    for k in range(aims):
        a = -1.45 + 2.9 * k / (aims - 1)
        for (x, y) in free_flight(a):
            hit = None
            for i, p in enumerate(level.pegs):
                if math.hypot(x - p["x"], y - p["y"]) < p["r"] + BALL_RADIUS:
                    hit = i
                    break
            if hit is not None:
                counts[hit] += 1
                break
            if any(box_distance(x, y, b) < BALL_RADIUS for b in level.blocks):
                break
    return counts


# ---------------------------------------------------------------------------------------------
# Families. Each builder returns its levels, easiest first.

def describe(title, k, n, what):
    return (f"Family of known order '{title}', level {k} of {n} (1 is the easiest): {what} "
            f"See docs/metrics.md, Families of known order.")


def orange_family(title, base, order, counts):
    """`base` with its pegs order[:c] turned orange, for each c in `counts` (increasing): the same
    geometry, an orange set that only grows."""
    assert all(a < b for a, b in zip(counts, counts[1:])) and len(set(order)) == len(order)
    levels = []
    for k, c in enumerate(counts, 1):
        what = (f"{c} orange pegs" + (f", level {k - 1}'s {counts[k - 2]} and {c - counts[k - 2]} more of its blue pegs"
                                      if k > 1 else "") + " on the same pegs and blocks.")
        lv = base.copy(f"{title} {k}", describe(title, k, len(counts), what))
        chosen = set(order[:c])
        for i, p in enumerate(lv.pegs):
            p["kind"] = "orange" if i in chosen else "blue"
        levels.append(lv)
    return levels


def shuffled_honeycomb_family(name, rows, radius, seed, counts):
    """A plain honeycomb of blue pegs (`honeycomb`'s arguments) whose oranges are drawn in a
    fixed random order: each level's oranges are the next one's first ones."""
    base = Level("", "", ("classic", 10))
    for (x, y) in honeycomb(*rows):
        base.peg("blue", x, y, radius)
    order = list(range(len(base.pegs)))
    random.Random(seed).shuffle(order)
    return orange_family(name, base, order, counts)


def open_rows():
    """A plain honeycomb of 63 pegs of radius 12; oranges drawn at random (a fixed seed)."""
    return shuffled_honeycomb_family("Open rows", (70, 740, 170, 6, 66, 60), 12, 35001, [3, 5, 7, 9, 12, 15])


def under_shelves():
    """Two open rows above three long shelves, four rows beneath them. Level 1's three oranges
    are the pegs most first shots touch; each next level adds pegs under the shelves that no
    free-flying first shot touches, so the oranges it adds are the hard-to-reach ones."""
    base = Level("", "", ("classic", 10))
    for (x, y) in honeycomb(80, 720, 160, 2, 64, 56):
        base.peg("blue", x, y, 12)
    for (x, y) in honeycomb(70, 730, 350, 4, 60, 56):
        base.peg("blue", x, y, 12)
    for cx in (170, 400, 630):
        base.block("rectangle", cx, 290, 170, 14)
    exp = exposure(base)
    by_exposure = sorted(range(len(base.pegs)), key=lambda i: (-exp[i], base.pegs[i]["y"], base.pegs[i]["x"]))
    # Hidden: pegs under the shelves that no free-flying first shot touches, in a fixed random order.
    hidden = [i for i in range(len(base.pegs)) if exp[i] == 0 and base.pegs[i]["y"] > 300]
    random.Random(35002).shuffle(hidden)
    return orange_family("Under shelves", base, by_exposure[:3] + hidden, [3, 4, 6, 8, 11, 14])


def tiny_pegs():
    """95 pegs of radius 7 (the generator's smallest is 10) in five staggered rows, 36 apart."""
    return shuffled_honeycomb_family("Tiny pegs", (64, 736, 180, 5, 36, 60), 7, 35003, [2, 4, 6, 8, 10, 12])


def tilted_bricks():
    """48 bricks 40 x 10 in four zigzag rows, tilted +-0.5 rad in turn, and 5 balls; oranges at
    random."""
    base = Level("", "", ("classic", 5))
    for r, y in enumerate((190, 290, 390, 490)):
        for c in range(12):
            x = 70 + 60 * c + (30 if r % 2 else 0)
            if x > 760:
                continue
            base.brick("blue", x, y, 40, 10, 0.5 if (c + r) % 2 == 0 else -0.5)
    order = list(range(len(base.pegs)))
    random.Random(35004).shuffle(order)
    return orange_family("Tilted bricks", base, order, [3, 6, 9, 12, 15, 18])


def boulders():
    """Big pegs of radius 24 (the generator's largest is 14), sparse, and 4 balls (a board this open
    is won at any aim noise with 10); oranges from the most exposed down, so each level adds pegs
    fewer first shots touch."""
    base = Level("", "", ("classic", 4))
    for (x, y) in honeycomb(80, 740, 170, 5, 100, 88):
        base.peg("blue", x, y, 24)
    exp = exposure(base)
    order = sorted(range(len(base.pegs)), key=lambda i: (-exp[i], base.pegs[i]["y"], base.pegs[i]["x"]))
    return orange_family("Boulders", base, order, [2, 4, 6, 9, 12, 15])


def dense_wall():
    """A wall of three staggered rows of radius-10 pegs 21 apart (a 1-unit gap: no ball passes;
    the generator leaves at least 6), above an open row. Oranges: two in the wall's front row, then
    the middle row, then the back row: pegs a ball reaches only after breaking through more wall."""
    base = Level("", "", ("classic", 10))
    rows = []
    for r in range(3):
        row = []
        x = 92 + (10.5 if r % 2 else 0)
        while x <= 708:
            row.append(len(base.pegs))
            base.peg("blue", x, 300 + 18 * r, 10)
            x += 21
        rows.append(row)
    for (x, y) in honeycomb(100, 700, 470, 1, 75, 0):
        base.peg("blue", x, y, 12)
    rng = random.Random(35006)
    front, middle, back = (rng.sample(row, len(row)) for row in rows)
    return orange_family("Dense wall", base, front[:2] + middle[:4] + back, [2, 4, 6, 8, 10, 12])


def layout_arcs(level):
    """Three arcs and a row (the layout of the mode families)."""
    def arc(cx, cy, r, a0, a1, n):
        return [(cx + r * math.cos(math.radians(a0 + (a1 - a0) * k / (n - 1))),
                 cy + r * math.sin(math.radians(a0 + (a1 - a0) * k / (n - 1)))) for k in range(n)]
    pts = arc(400, 110, 190, 25, 155, 13) + arc(400, 170, 280, 30, 150, 17) + arc(400, 160, 340, 40, 140, 13)
    pts += [(100 + 60 * k, 530) for k in range(11)]
    return pts


def ball_budget():
    """Three arcs and a row, 10 oranges, kaboom with 2 green pegs and a roaming purple peg; 10,
    8, 6, 5, 4, 3 balls (the generator gives 9 to 15)."""
    balls = [10, 8, 6, 5, 4, 3]
    pts = layout_arcs(None)
    rng = random.Random(35007)
    idx = list(range(len(pts)))
    rng.shuffle(idx)
    kinds = ["blue"] * len(pts)
    for i in idx[:10]:
        kinds[i] = "orange"
    for i in idx[10:12]:
        kinds[i] = "green"
    kinds[idx[12]] = "purple"
    levels = []
    for k, b in enumerate(balls, 1):
        what = f"classic with {b} balls" + (f" (level {k - 1}: {balls[k - 2]})" if k > 1 else "") + ", the same level otherwise."
        lv = Level(f"Ball budget {k}", describe("Ball budget", k, len(balls), what), ("classic", b), power="kaboom")
        for kind, (x, y) in zip(kinds, pts):
            lv.peg(kind, x, y, 12)
        levels.append(lv)
    return levels


def rings_layout(rng):
    """Three rings of 10 pegs and two side columns, a quarter of them orange (a fixed draw)."""
    pts = []
    for (cx, cy) in ((220, 260), (580, 260), (400, 430)):
        pts += [(cx + 70 * math.cos(2 * math.pi * k / 10), cy + 70 * math.sin(2 * math.pi * k / 10)) for k in range(10)]
    pts += [(x, 160 + 60 * k) for x in (60, 740) for k in range(7)]
    kinds = ["blue"] * len(pts)
    idx = list(range(len(pts)))
    rng.shuffle(idx)
    for i in idx[:11]:
        kinds[i] = "orange"
    return list(zip(kinds, pts))


def board_points(pegs):
    return sum(POINTS[k] for k, _ in pegs)


def score_climb():
    """Beat the score in 60 s on three rings; the target rises from 1.75 to 3.25 times the board's
    points at multiplier 1 (the generator asks 4 to 9 times, with 90 or 120 s). The greedy agent's
    best games score about 4,700 here, so the top targets ask for nearly everything."""
    pegs = rings_layout(random.Random(35008))
    base = board_points(pegs)
    targets = [int(round(f * base / 100.0)) * 100 for f in (1.75, 2.2, 2.55, 2.85, 3.05, 3.25)]
    levels = []
    for k, t in enumerate(targets, 1):
        what = (f"beat the score: {t} points in 60 s" + (f" (level {k - 1}: {targets[k - 2]})" if k > 1 else "")
                + ", the same level otherwise.")
        lv = Level(f"Score climb {k}", describe("Score climb", k, len(targets), what), ("beat_the_score", t, 60))
        for kind, (x, y) in pegs:
            lv.peg(kind, x, y, 12)
        levels.append(lv)
    return levels


def short_clock():
    """Beat the score with a fixed target on a honeycomb, the game time falling from 45 s to 18 s
    (the generator gives 90 or 120 s)."""
    base = Level("", "", ("classic", 10))
    for (x, y) in honeycomb(80, 720, 180, 5, 80, 70):
        base.peg("blue", x, y, 12)
    rng = random.Random(35009)
    idx = list(range(len(base.pegs)))
    rng.shuffle(idx)
    for i in idx[:10]:
        base.pegs[i]["kind"] = "orange"
    target = 2 * sum(POINTS[p["kind"]] for p in base.pegs)
    limits = [45, 36, 30, 26, 22, 18]
    levels = []
    for k, t in enumerate(limits, 1):
        what = (f"beat the score: {target} points in {t} s" + (f" (level {k - 1}: {limits[k - 2]} s)" if k > 1 else "")
                + ", the same level otherwise.")
        levels.append(base.copy(f"Short clock {k}", describe("Short clock", k, len(limits), what),
                                ("beat_the_score", target, t)))
    return levels


def dodge_marathon():
    """Dodge through a field with three carved tunnels (free-flight paths at -0.45, 0.05 and 0.4
    rad, 6 units of slack); 1, 2, 4, 8, 16, 32 clean shots (the generator asks 3 to 5)."""
    tunnels = [free_flight(a) for a in (-0.45, 0.05, 0.4)]
    base = Level("", "", ("dodge", 1))
    for (x, y) in honeycomb(60, 745, 150, 7, 64, 55):
        if any(math.hypot(x - px, y - py) < 12 + BALL_RADIUS + 6 for path in tunnels for (px, py) in path):
            continue
        base.peg("blue", x, y, 12)
    rng = random.Random(35010)
    idx = list(range(len(base.pegs)))
    rng.shuffle(idx)
    for i in idx[:len(idx) // 5]:
        base.pegs[i]["kind"] = "orange"
    shots = [1, 2, 4, 8, 16, 32]
    levels = []
    for k, s in enumerate(shots, 1):
        what = (f"dodge: {s} clean shots" + (f" (level {k - 1}: {shots[k - 2]})" if k > 1 else "")
                + ", the same level otherwise.")
        levels.append(base.copy(f"Dodge marathon {k}", describe("Dodge marathon", k, len(shots), what), ("dodge", s)))
    return levels


#: (folder, knob, builder). The knob says what changes from one level to the next; every other
#: field (pegs and blocks with their ids, positions, sizes and rotations, power, the other mode
#: fields) stays the same, and python/tests/test_families.py checks it.
FAMILIES = [
    ("open-rows", "oranges", open_rows),
    ("under-shelves", "oranges", under_shelves),
    ("tiny-pegs", "oranges", tiny_pegs),
    ("tilted-bricks", "oranges", tilted_bricks),
    ("boulders", "oranges", boulders),
    ("dense-wall", "oranges", dense_wall),
    ("ball-budget", "balls", ball_budget),
    ("score-climb", "target_score", score_climb),
    ("short-clock", "time_limit", short_clock),
    ("dodge-marathon", "shots", dodge_marathon),
]


def check_orange_bound(levels):
    """An "oranges" family keeps every shot under a free ball's points: blue and orange pegs only,
    no power, and 10 x the board's points below 25,000."""
    for lv in levels:
        assert lv.power == "none", lv.name
        assert all(p["kind"] in POINTS for p in lv.pegs), lv.name
        assert MAX_MULTIPLIER * sum(POINTS[p["kind"]] for p in lv.pegs) < FREE_BALL_POINTS, lv.name


def main(out):
    for folder, knob, make in FAMILIES:
        levels = make()
        if knob == "oranges":
            check_orange_bound(levels)
        d = out / folder
        d.mkdir(parents=True, exist_ok=True)
        for k, lv in enumerate(levels, 1):
            (d / f"{k}.json").write_text(lv.text())
        print(f"{d}: {len(levels)} levels, {len(levels[0].pegs)} pegs, {len(levels[0].blocks)} blocks, knob {knob}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
