#!/usr/bin/env python3
"""Writes the hand-made held-out set (issue 35, item 5) into Levels/handmade/NAME.json, in the
canonical format that `peggle` writes: 25 levels laid out the way a level designer lays them out,
not the way the generator does (docs/generator.md lists the generator's ranges).
Each builder below is one level, drawn as geometry: brick towers and walls, long shelves, funnels,
springy bumpers, a ring of bricks with a keyhole, pegs of radius 6 to 30, 1 to 40 balls, dodge
fields of tilted bricks, beat-the-score boards with clocks the generator never uses, several
zombie or confusement pegs. The set is spread over the difficulty range on purpose, from a level
meant to be trivial to one meant to be past the rater's floor. No model was fitted on them.

Python 3 standard library only; deterministic (a fixed random.Random seed per level where pegs
are scattered), so rerunning rewrites the files byte for byte. Every object is checked as it is
placed (on the board, above the bucket's lane, 50 from the cannon, clear of every object placed
before): a hand-placed object that does not fit stops the script; a scattered one is skipped.
Run `peggle level validate Levels/handmade/*.json` afterwards.

    python3 scripts/make_handmade.py            # writes Levels/handmade
    python3 scripts/make_handmade.py OUT_DIR    # writes OUT_DIR/NAME.json instead
"""
import math
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "Levels" / "handmade"

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_families  # noqa: E402  (its Level: pegs and blocks as dicts, make_levels' canonical text)
import make_levels  # noqa: E402  (arc, free_flight, slug)

BALL_RADIUS = 10.0
CANNON = (400.0, 20.0)
GAP = 0.5          # the least room left between two objects (the files round to 0.01)
POINTS = {"blue": 10, "orange": 100, "green": 10, "purple": 500, "zombie": 10, "confusement": 10}


# ---------------------------------------------------------------------------------------------
# Outlines and the placement check (docs/levels.md, "What makes a level valid")

def box(x, y, w, h, rot):
    """Corners of a w x h rectangle centred at (x, y), turned by rot (+x toward +y)."""
    c, s = math.cos(rot), math.sin(rot)
    return [(x + dx * c - dy * s, y + dx * s + dy * c) for dx, dy in
            ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]


def triangle(x, y, w, h, rot):
    """An isosceles triangle: apex at the top middle of the w x h box, base along its bottom."""
    c, s = math.cos(rot), math.sin(rot)
    return [(x + dx * c - dy * s, y + dx * s + dy * c) for dx, dy in ((0, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))]


def point_polygon_distance(px, py, pts):
    """0 inside the convex polygon, else the distance to its nearest edge."""
    inside, best = True, float("inf")
    n = len(pts)
    for i in range(n):
        (ax, ay), (bx, by) = pts[i], pts[(i + 1) % n]
        ex, ey = bx - ax, by - ay
        t = max(0.0, min(1.0, ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)))
        best = min(best, math.hypot(px - ax - t * ex, py - ay - t * ey))
        cross = ex * (py - ay) - ey * (px - ax)
        inside = inside and cross >= 0
    # The outlines above wind clockwise on screen (y down), so the inside is on the left of each edge
    # in these coordinates: cross >= 0 for every edge.
    return 0.0 if inside else best


def polygons_apart(p, q, gap):
    """Separating-axis test: true when some edge normal of either polygon leaves `gap` between them."""
    for poly in (p, q):
        for i in range(len(poly)):
            (ax, ay), (bx, by) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = ay - by, bx - ax
            norm = math.hypot(nx, ny)
            nx, ny = nx / norm, ny / norm
            pa = [x * nx + y * ny for x, y in p]
            qa = [x * nx + y * ny for x, y in q]
            if max(pa) + gap <= min(qa) or max(qa) + gap <= min(pa):
                return True
    return False


def apart(a, b, gap=GAP):
    """Whether two outlines (("circle", x, y, r) or ("poly", points)) leave `gap` between them."""
    if a[0] == "circle" and b[0] == "circle":
        return math.hypot(a[1] - b[1], a[2] - b[2]) >= a[3] + b[3] + gap
    if a[0] == "poly" and b[0] == "poly":
        return polygons_apart(a[1], b[1], gap)
    c, p = (a, b) if a[0] == "circle" else (b, a)
    return point_polygon_distance(c[1], c[2], p[1]) >= c[3] + gap


def bounds(shape):
    if shape[0] == "circle":
        _, x, y, r = shape
        return x - r, y - r, x + r, y + r
    xs, ys = [x for x, _ in shape[1]], [y for _, y in shape[1]]
    return min(xs), min(ys), max(xs), max(ys)


def cannon_distance(shape):
    if shape[0] == "circle":
        return math.hypot(shape[1] - CANNON[0], shape[2] - CANNON[1]) - shape[3]
    return point_polygon_distance(*CANNON, shape[1])


def r2(v):
    return round(v, 2)


class Level(make_families.Level):
    """make_families' Level (make_levels' canonical text) that checks each object as it is placed.
    `must=False` (scattering) returns False for an object that does not fit instead of stopping."""

    def __init__(self, name, description, mode, power="none", purple_roams=True):
        super().__init__(name, description, mode, power, purple_roams)
        self.shapes = []

    def _fits(self, shape, must, what):
        x0, y0, x1, y1 = bounds(shape)
        problems = []
        if x0 < GAP or y0 < 40 + GAP or x1 > 800 - GAP or y1 > 560 - GAP:
            problems.append(f"off the board or in the lane ({x0:.1f}, {y0:.1f}, {x1:.1f}, {y1:.1f})")
        if cannon_distance(shape) < 50 + GAP:
            problems.append("within 50 of the cannon")
        hit = next((i for i, s in enumerate(self.shapes) if not apart(shape, s)), None)
        if hit is not None:
            problems.append(f"overlaps object {hit + 1}")
        if problems and must:
            raise SystemExit(f"{self.name}: {what}: " + "; ".join(problems))
        return not problems

    def add_peg(self, kind, x, y, r=12, must=True):
        x, y, r = r2(x), r2(y), r2(r)
        shape = ("circle", x, y, r)
        if not self._fits(shape, must, f"{kind} peg at ({x}, {y})"):
            return False
        self.shapes.append(shape)
        self.peg(kind, x, y, r)
        return True

    def add_brick(self, kind, x, y, w, h, rot, must=True):
        x, y, w, h, rot = r2(x), r2(y), r2(w), r2(h), round(rot, 3)
        shape = ("poly", box(x, y, w, h, rot))
        if not self._fits(shape, must, f"{kind} brick at ({x}, {y})"):
            return False
        self.shapes.append(shape)
        self.brick(kind, x, y, w, h, rot)
        return True

    def add_block(self, kind, x, y, w, h, rot=0.0, spring=0.0, must=True):
        x, y, w, h, rot = r2(x), r2(y), r2(w), r2(h), round(rot, 3)
        shape = ("poly", (box if kind == "rectangle" else triangle)(x, y, w, h, rot))
        if not self._fits(shape, must, f"{kind} block at ({x}, {y})"):
            return False
        self.shapes.append(shape)
        self.block(kind, x, y, w, h, rot, spring)
        return True

    def add_bar(self, kind, a, b, thickness, spring=0.0):
        """A rectangle block from point a to point b (a wall, a shelf, a ramp)."""
        (ax, ay), (bx, by) = a, b
        rot = math.atan2(by - ay, bx - ax)
        if rot > math.pi / 2:
            rot -= math.pi
        elif rot <= -math.pi / 2:
            rot += math.pi
        self.add_block(kind, (ax + bx) / 2, (ay + by) / 2, math.hypot(bx - ax, by - ay), thickness, rot, spring)

    def bricks_along(self, kind, a, b, w, h, step):
        """Bricks w x h laid end to end along the segment a-b, `step` apart centre to centre."""
        (ax, ay), (bx, by) = a, b
        length = math.hypot(bx - ax, by - ay)
        rot = math.atan2(by - ay, bx - ax)
        n = int(length // step) + 1
        for k in range(n):
            t = k * step / length
            self.add_brick(kind, ax + t * (bx - ax), ay + t * (by - ay), w, h, rot)

    def scatter(self, rng, count, region, radii, kind="blue", tries=60, spacing=0.0):
        """Up to `count` round pegs at random spots of region (x0, y0, x1, y1), radius drawn from
        `radii`, each at least `spacing` clear of everything placed; returns how many fit."""
        placed = 0
        x0, y0, x1, y1 = region
        for _ in range(count):
            for _ in range(tries):
                r = rng.choice(radii)
                x, y = r2(rng.uniform(x0, x1)), r2(rng.uniform(y0, y1))
                shape = ("circle", x, y, r + spacing)
                if self._fits(shape, False, "") and self.add_peg(kind, x, y, r, must=False):
                    placed += 1
                    break
        return placed

    def recolour(self, indices, kind):
        for i in indices:
            self.pegs[i]["kind"] = kind

    def board_points(self):
        return sum(POINTS[p["kind"]] for p in self.pegs)


def pick(rng, indices, n):
    """n of `indices`, drawn without replacement (sorted, so the file reads in board order)."""
    return sorted(rng.sample(list(indices), n))


def honeycomb(x0, x1, y0, rows, dx, dy):
    return make_families.honeycomb(x0, x1, y0, rows, dx, dy)


# ---------------------------------------------------------------------------------------------
# The levels. Each returns one Level; the description says what the designer meant.

def welcome_mat():
    lv = Level("Welcome Mat", "Nine big pegs (radius 20) in a wide smile, five of them orange, three more "
               "below, and fifteen balls. Meant to be trivial.", ("classic", 15))
    for k, (x, y) in enumerate(make_levels.arc(400, -100, 420, 55, 125, 9)):
        lv.add_peg("orange" if k in (1, 3, 4, 5, 7) else "blue", x, y, 20)
    for x in (250, 400, 550):
        lv.add_peg("blue", x, 450, 20)
    return lv


def boulder_garden():
    lv = Level("Boulder Garden", "Five orange boulders (radius 28) among thirty pebbles (radius 8), kaboom. "
               "Meant to be easy.", ("classic", 10), power="kaboom")
    for (x, y) in ((180, 260), (400, 300), (620, 260), (290, 430), (510, 430)):
        lv.add_peg("orange", x, y, 28)
    rng = random.Random(3501)
    lv.scatter(rng, 30, (30, 130, 770, 545), [8], spacing=6)
    pebbles = range(5, len(lv.pegs))
    chosen = pick(rng, pebbles, 5)
    lv.recolour(chosen[:3], "orange")
    lv.recolour(chosen[3:], "green")
    return lv


def lanterns():
    lv = Level("Lanterns", "Five strings of upright bricks hang from the top, an orange lantern (radius 16) "
               "on each, over a smile of small pegs; multiball, 12 balls.", ("classic", 12), power="multiball")
    for k, (x, n) in enumerate(zip((140, 270, 400, 530, 660), (4, 2, 5, 2, 4))):
        for j in range(n):
            lv.add_brick("blue", x, 130 + 30 * j, 8, 28, 0)
        bottom = 130 + 30 * (n - 1) + 14
        lv.add_peg("orange", x, bottom + 17, 16)
        lv.add_peg("green" if k in (0, 4) else "blue", x, bottom + 42, 7)
    for k, (x, y) in enumerate(make_levels.arc(400, 150, 380, 40, 140, 13)):
        lv.add_peg("orange" if k in (2, 6, 10) else "blue", x, y, 11)
    return lv


def skyline():
    lv = Level("Skyline", "Six towers of stacked bricks (walls of bricks, 44 x 14), an orange on every "
               "roof and a few in the walls, under a sky of small stars and a big moon; kaboom.",
               ("classic", 10), power="kaboom")
    rng = random.Random(3504)
    towers = []
    for x, n in zip((90, 200, 320, 480, 600, 710), (7, 4, 9, 8, 5, 6)):
        first = len(lv.pegs)
        for j in range(n):
            lv.add_brick("blue", x, 538 - 15 * j, 44, 14, 0)
        towers.append(list(range(first, len(lv.pegs))))
    lv.recolour([t[-1] for t in towers], "orange")
    for t in (towers[0], towers[2], towers[4]):
        lv.recolour([rng.choice(t[1:-1])], "orange")
    lv.add_peg("blue", 640, 170, 26)
    first = len(lv.pegs)
    lv.scatter(rng, 24, (30, 110, 770, 330), [7], spacing=10)
    stars = pick(rng, range(first, len(lv.pegs)), 3)
    lv.recolour(stars[:2], "green")
    lv.recolour(stars[2:], "purple")
    return lv


def pinball():
    lv = Level("Pinball", "Springy triangle bumpers at the sides, two springy flippers at the bottom, "
               "three big bumper pegs ringed by small pegs; spooky, 8 balls.", ("classic", 8), power="spooky")
    lv.add_block("triangle", 130, 330, 80, 70, 0.5, 1)
    lv.add_block("triangle", 670, 330, 80, 70, -0.5, 1)
    lv.add_bar("rectangle", (180, 475), (320, 525), 14, 0.8)
    lv.add_bar("rectangle", (480, 525), (620, 475), 14, 0.8)
    rings = []
    for (cx, cy) in ((300, 250), (500, 250), (400, 370)):
        lv.add_peg("blue", cx, cy, 22)
        for k in range(8):
            a = 2 * math.pi * k / 8 + math.pi / 8
            rings.append(len(lv.pegs))
            lv.add_peg("blue", cx + 45 * math.cos(a), cy + 45 * math.sin(a), 10)
    lv.recolour(pick(random.Random(3505), rings, 8), "orange")
    lv.add_peg("green", 200, 170, 12)
    lv.add_peg("green", 600, 170, 12)
    for x in (30, 770):
        for y in range(150, 460, 50):
            lv.add_peg("blue", x, y, 9)
    return lv


def hourglass():
    lv = Level("Hourglass", "An upper funnel of bricks narrows to a neck under the cannon; below it, walls "
               "of blocks close a chamber that holds eight of the ten oranges. 8 balls.", ("classic", 8))
    lv.bricks_along("blue", (95, 150), (355, 330), 34, 10, 37)
    lv.bricks_along("blue", (705, 150), (445, 330), 34, 10, 37)
    lv.add_bar("rectangle", (372, 362), (170, 545), 10)
    lv.add_bar("rectangle", (428, 362), (630, 545), 10)
    # The chamber between the walls: staggered rows of small pegs, each 11 clear of the walls' centre lines.
    chamber = []
    slope = (372 - 170) / (545 - 362)
    for r, y in enumerate((425, 460, 495, 530)):
        room = 28 + (y - 362) * slope - 5 / math.cos(math.atan(slope)) - 9 - 2
        for j in range(-8, 9):
            x = 400 + 16 * (r % 2) + 32 * j
            if abs(x - 400) <= room:
                chamber.append(len(lv.pegs))
                lv.add_peg("blue", x, y, 9)
    lv.recolour(pick(random.Random(3506), chamber, 8), "orange")
    for k, x in enumerate(range(250, 551, 50)):
        lv.add_peg("orange" if k in (1, 5) else "blue", x, 215, 11)
    for x in (45, 755):
        for y in range(300, 521, 55):
            lv.add_peg("blue", x, y, 11)
    return lv


def bookshelf():
    lv = Level("Bookshelf", "Four long shelves (300 wide) stand out from alternate walls, each lined with "
               "upright books (bricks) and round pegs; most oranges sit on the lower shelves. 10 balls.",
               ("classic", 10))
    shelves = [(200, 210), (600, 290), (200, 370), (600, 450)]
    per_shelf = []
    for cx, cy in shelves:
        lv.add_block("rectangle", cx, cy, 300, 12)
        items = []
        for k, x in enumerate(range(cx - 135, cx + 136, 27)):
            items.append(len(lv.pegs))
            if k % 2 == 0:
                lv.add_brick("blue", x, cy - 6 - 18 - 1, 12, 36, 0)
            else:
                lv.add_peg("blue", x, cy - 6 - 10 - 1, 10)
        per_shelf.append(items)
    floor = len(lv.pegs)
    for x in range(60, 741, 48):
        lv.add_peg("blue", x, 530, 10)
    rng = random.Random(3507)
    for items, n in zip(per_shelf, (1, 2, 4, 5)):
        lv.recolour(pick(rng, items, n), "orange")
    lv.recolour(pick(rng, range(floor, len(lv.pegs)), 2), "orange")
    return lv


def landslide():
    lv = Level("Landslide", "Asymmetric: three bands of rocks of mixed sizes slide from the upper left to the "
               "lower right, a pile of boulders in the lower left, three rock blocks in the empty upper right; "
               "oranges mostly at the foot of the slide. Multiball, 9 balls.", ("classic", 9), power="multiball")
    rng = random.Random(3508)
    lv.add_block("triangle", 600, 190, 70, 50, 0.3)
    lv.add_block("triangle", 700, 250, 60, 45, -0.4)
    lv.add_block("rectangle", 660, 330, 70, 26, 0.2)
    bands = []
    for off in (0, 60, 120):
        band = []
        for x in range(40, 760, 44):
            y = 120 + off + 0.55 * (x - 40)
            if lv.add_peg("blue", x, y, rng.choice((8, 10, 12, 15)), must=False):
                band.append(len(lv.pegs) - 1)
        bands.append(band)
    pile = len(lv.pegs)
    for (x, y) in ((70, 430), (120, 485), (60, 525), (180, 525), (170, 430)):
        lv.add_peg("blue", x, y, 20, must=False)
    foot = [i for band in bands for i in band if lv.pegs[i]["x"] > 450]
    lv.recolour(pick(rng, foot, 8), "orange")
    lv.recolour(pick(rng, range(pile, len(lv.pegs)), 2), "orange")
    lv.recolour(pick(rng, [i for i in bands[0] if lv.pegs[i]["x"] < 400], 2), "green")
    return lv


def pebble_beach():
    lv = Level("Pebble Beach", "120 tiny pegs (radius 6 to 8) strewn at random, 22 of them orange (the generator's "
               "smallest radius is 10). 10 balls.", ("classic", 10))
    rng = random.Random(3509)
    lv.scatter(rng, 120, (30, 130, 770, 545), [6, 7, 8], spacing=4, tries=200)
    lv.recolour(pick(rng, range(len(lv.pegs)), 22), "orange")
    return lv


def confetti():
    lv = Level("Confetti", "Sixty pegs of every size from radius 6 to 30 thrown across the board: 14 orange, "
               "2 green, 2 zombies and a purple peg that stays put. Kaboom, 12 balls.", ("classic", 12),
               power="kaboom", purple_roams=False)
    rng = random.Random(3510)
    lv.scatter(rng, 60, (40, 120, 760, 540), list(range(6, 31)), spacing=4)
    order = pick(rng, range(len(lv.pegs)), 19)
    rng.shuffle(order)
    lv.recolour(order[:14], "orange")
    lv.recolour(order[14:16], "green")
    lv.recolour(order[16:18], "zombie")
    lv.recolour(order[18:], "purple")
    return lv


def sniper_nest():
    lv = Level("Sniper's Nest", "One small orange peg (radius 6) in a box of blocks whose roof has a slit 22 "
               "wide under the cannon: only a shot within about 0.004 rad of straight down drops in (a ball is "
               "20 wide). Blue pegs all around. 2 balls. Meant to be very hard.", ("classic", 2))
    lv.add_block("rectangle", 335, 455, 12, 190)
    lv.add_block("rectangle", 465, 455, 12, 190)
    lv.add_block("rectangle", 359, 353, 60, 12)
    lv.add_block("rectangle", 441, 353, 60, 12)
    lv.add_peg("orange", 400, 520, 6)
    for (x, y) in honeycomb(60, 740, 150, 4, 56, 48):
        if abs(x - 400) > 40:
            lv.add_peg("blue", x, y, 10, must=False)
    for x in range(60, 300, 50):
        for y in (420, 500):
            lv.add_peg("blue", x, y, 10)
            lv.add_peg("blue", 800 - x, y, 10)
    return lv


def corner_pocket():
    lv = Level("Corner Pocket", "Two oranges: one in plain sight, one small (radius 8) in the bottom left "
               "corner under a tilted shelf, open only to the right, behind a field of blue pegs. 5 balls. "
               "Meant to be very hard.", ("classic", 5))
    lv.add_bar("rectangle", (12, 462), (170, 500), 10)
    lv.add_peg("orange", 40, 530, 8)
    lv.add_peg("orange", 560, 220, 12)
    for (x, y) in honeycomb(70, 740, 180, 5, 60, 52):
        lv.add_peg("blue", x, y, 12, must=False)
    for x in range(230, 760, 70):
        lv.add_peg("blue", x, 520, 12, must=False)
    return lv


def carnival():
    lv = Level("Carnival", "Beat the score on three merry-go-rounds of pegs under a big top, multiball: a "
               "target of twice the board's points in 75 s. Meant to be easy.", ("beat_the_score", 0, 75),
               power="multiball")
    rng = random.Random(3513)
    for (cx, cy) in ((220, 300), (580, 300), (400, 460)):
        for k in range(12):
            a = 2 * math.pi * k / 12
            lv.add_peg("blue", cx + 75 * math.cos(a), cy + 75 * math.sin(a), 11)
    for (x, y) in make_levels.arc(400, 420, 330, 220, 320, 11):
        lv.add_peg("blue", x, y, 11)
    idx = pick(rng, range(len(lv.pegs)), 15)
    rng.shuffle(idx)
    lv.recolour(idx[:12], "orange")
    lv.recolour(idx[12:14], "green")
    lv.recolour(idx[14:], "purple")
    lv.mode = ("beat_the_score", round(2 * lv.board_points(), -2), 75)
    return lv


def high_roller():
    lv = Level("High Roller", "Beat the score on a slot machine: three reels of stacked bricks between rows "
               "of pegs, spooky; a target of seven times the board's points in 150 s.",
               ("beat_the_score", 0, 150), power="spooky")
    rng = random.Random(3514)
    for x in (260, 400, 540):
        for j in range(5):
            lv.add_brick("blue", x, 300 + 32 * j, 70, 22, 0)
    for (x, y) in honeycomb(60, 740, 160, 2, 70, 50):
        lv.add_peg("blue", x, y, 11, must=False)
    for y in (300, 380, 460):
        for x in (70, 130, 670, 730):
            lv.add_peg("blue", x, y, 11)
    for x in range(80, 721, 64):
        lv.add_peg("blue", x, 535, 11, must=False)
    idx = pick(rng, range(len(lv.pegs)), 16)
    rng.shuffle(idx)
    lv.recolour(idx[:14], "orange")
    lv.recolour(idx[14:], "green")
    lv.mode = ("beat_the_score", round(7 * lv.board_points(), -2), 150)
    return lv


def stroll():
    lv = Level("Stroll", "Dodge two shots through a sparse field with a wide empty lane down the middle "
               "(no peg within 90 of x = 400). Meant to be easy.", ("dodge", 2))
    for k, (x, y) in enumerate(p for p in honeycomb(70, 730, 170, 5, 90, 80) if abs(p[0] - 400) >= 90 + 12):
        lv.add_peg("orange" if k % 3 == 0 else "blue", x, y, 12)
    return lv


def minefield():
    lv = Level("Minefield", "Dodge eight shots through a field of bricks tilted every which way; two narrow "
               "curved tunnels are clear (4 units of slack). Meant to be very hard.", ("dodge", 8))
    rng = random.Random(3516)
    tunnels = [make_levels.free_flight(a, dt=1 / 240, walls=True) for a in (-0.3, 0.22)]
    for (x, y) in honeycomb(50, 750, 130, 8, 52, 52):
        rot = rng.uniform(-1.2, 1.2)
        outline = box(x, y, 34, 10, rot)
        if any(point_polygon_distance(px, py, outline) < BALL_RADIUS + 4 for path in tunnels for (px, py) in path):
            continue
        lv.add_brick("orange" if rng.random() < 0.25 else "blue", x, y, 34, 10, rot, must=False)
    return lv


def zombie_horde():
    lv = Level("Zombie Horde", "A graveyard: rows of tombstones (upright bricks) with twelve zombie pegs "
               "between them, oranges among the graves. 10 balls.", ("classic", 10))
    rng = random.Random(3517)
    for r, y in enumerate((230, 330, 430, 520)):
        for k, x in enumerate(range(90 + 45 * (r % 2), 720, 90)):
            lv.add_brick("blue", x, y, 26, 36, 0)
    graves = list(range(len(lv.pegs)))
    lv.scatter(rng, 36, (40, 150, 760, 545), [9, 11], spacing=8)
    loose = list(range(len(graves), len(lv.pegs)))
    order = pick(rng, loose, 22)
    rng.shuffle(order)
    lv.recolour(order[:12], "zombie")
    lv.recolour(order[12:], "orange")
    lv.recolour(pick(rng, graves, 3), "orange")
    return lv


def topsy_turvy():
    lv = Level("Topsy-Turvy", "Six oranges sit under a low roof of blocks, out of reach until a confusement peg "
               "(three of them, on the shoulders) turns the board upside down and puts them on top. Kaboom, "
               "10 balls.", ("classic", 10), power="kaboom")
    lv.add_block("rectangle", 400, 440, 300, 12)
    lv.add_block("rectangle", 243.5, 485, 12, 102)
    lv.add_block("rectangle", 556.5, 485, 12, 102)
    for x in range(310, 491, 36):
        lv.add_peg("orange", x, 500, 10)
    lv.add_peg("confusement", 150, 230, 12)
    lv.add_peg("confusement", 650, 230, 12)
    lv.add_peg("confusement", 400, 300, 12)
    for (x, y) in honeycomb(60, 740, 150, 4, 64, 55):
        lv.add_peg("blue", x, y, 11, must=False)
    for x in (60, 120, 180, 620, 680, 740):
        lv.add_peg("blue", x, 500, 11)
    lv.recolour([i for i, p in enumerate(lv.pegs) if p["kind"] == "blue" and p["y"] == 150 and p["x"] in (188, 572)], "green")
    return lv


def diamond_mine():
    lv = Level("Diamond Mine", "A diamond of bricks tilted 45 degrees around a lattice of gems; the orange "
               "gems are inside. Multiball, 10 balls.", ("classic", 10), power="multiball")
    cx, cy, d = 400, 360, 170
    corners = [(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)]
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        ux, uy = (b[0] - a[0]) / math.hypot(b[0] - a[0], b[1] - a[1]), (b[1] - a[1]) / math.hypot(b[0] - a[0], b[1] - a[1])
        lv.bricks_along("blue", (a[0] + 26 * ux, a[1] + 26 * uy), (b[0] - 26 * ux, b[1] - 26 * uy), 30, 10, 33)
    gems = []
    for i in range(-3, 4):
        for j in range(-3, 4):
            x, y = cx + 24 * (i - j), cy + 24 * (i + j)
            if abs(x - cx) + abs(y - cy) <= d - 45:
                gems.append(len(lv.pegs))
                lv.add_peg("blue", x, y, 9)
    inner = [i for i in gems if abs(lv.pegs[i]["x"] - cx) + abs(lv.pegs[i]["y"] - cy) <= 60]
    lv.recolour(inner, "orange")
    for x in (60, 130, 670, 740):
        for y in range(200, 521, 80):
            lv.add_peg("blue", x, y, 12)
    lv.recolour([len(lv.pegs) - 3, len(lv.pegs) - 18], "green")
    return lv


def chute():
    lv = Level("Chute", "Two tall walls of blocks make a chute under the cannon; roofs over the side "
               "pockets leave a gap only by the side walls, and ten of the twelve oranges are in the pockets. "
               "10 balls.", ("classic", 10))
    lv.add_block("rectangle", 330, 390, 12, 300)
    lv.add_block("rectangle", 470, 390, 12, 300)
    lv.add_block("rectangle", 192, 270, 245, 10)
    lv.add_block("rectangle", 608, 270, 245, 10)
    inside = []
    for r, y in enumerate((300, 360, 420, 480, 530)):
        for x in ((370, 430) if r % 2 == 0 else (400,)):
            inside.append(len(lv.pegs))
            lv.add_peg("blue", x, y, 10)
    pockets = []
    for (x, y) in honeycomb(50, 300, 320, 4, 55, 60):
        pockets.append(len(lv.pegs))
        lv.add_peg("blue", x, y, 11)
        pockets.append(len(lv.pegs))
        lv.add_peg("blue", 800 - x, y, 11)
    for (x, y) in honeycomb(60, 740, 140, 2, 62, 55):
        lv.add_peg("blue", x, y, 13, must=False)
    rng = random.Random(3520)
    lv.recolour(pick(rng, inside, 2), "orange")
    lv.recolour(pick(rng, pockets, 10), "orange")
    return lv


def ball_pit():
    lv = Level("Ball Pit", "A dense honeycomb of 30 oranges among 95 pegs, and 40 balls. Meant to be "
               "trivial.", ("classic", 40), power="multiball")
    for (x, y) in honeycomb(50, 750, 160, 7, 50, 55):
        lv.add_peg("blue", x, y, 12, must=False)
    rng = random.Random(3521)
    idx = pick(rng, range(len(lv.pegs)), 32)
    rng.shuffle(idx)
    lv.recolour(idx[:30], "orange")
    lv.recolour(idx[30:], "green")
    return lv


def one_shot():
    lv = Level("One Shot", "One ball, one orange: a big orange peg (radius 30) in a cup of blue pegs open at "
               "the top, straight below the cannon.", ("classic", 1))
    lv.add_peg("orange", 400, 330, 30)
    for k in range(11):
        a = math.radians(10 + 16 * k)
        lv.add_peg("blue", 400 + 75 * math.cos(a), 330 + 75 * math.sin(a), 10)
    for (x, y) in honeycomb(60, 740, 180, 4, 80, 90):
        if abs(x - 400) > 130:
            lv.add_peg("blue", x, y, 12, must=False)
    return lv


def trampoline():
    lv = Level("Trampoline", "Springy floor blocks send balls back up to oranges on two high ledges by the "
               "walls; rows of blue pegs in between. Kaboom, 10 balls.", ("classic", 10), power="kaboom")
    lv.add_block("rectangle", 200, 525, 200, 14, 0, 1)
    lv.add_block("rectangle", 600, 525, 200, 14, 0, 1)
    lv.add_block("triangle", 400, 520, 60, 40, 0, 1)
    lv.add_block("rectangle", 75, 230, 130, 10)
    lv.add_block("rectangle", 725, 230, 130, 10)
    for x in (30, 60, 90, 120):
        lv.add_peg("orange", x, 214, 10)
        lv.add_peg("orange", 800 - x, 214, 10)
    for (x, y) in honeycomb(190, 610, 280, 3, 60, 60):
        lv.add_peg("blue", x, y, 11)
    lv.recolour([len(lv.pegs) - 1, len(lv.pegs) - 8], "green")
    lv.add_peg("orange", 400, 160, 11)
    return lv


def staircase():
    lv = Level("Staircase", "Asymmetric: seven steps of blocks run down from the upper left to the lower right, "
               "two pegs on each; oranges on the odd steps and two hidden under the stairs. Spooky, 8 balls.",
               ("classic", 8), power="spooky")
    steps = []
    for k in range(7):
        x, y = 80 + 95 * k, 180 + 55 * k
        lv.add_block("rectangle", x, y, 110, 12)
        pair = []
        for dx in (-25, 25):
            pair.append(len(lv.pegs))
            lv.add_peg("blue", x + dx, y - 6 - 11 - 1, 11)
        steps.append(pair)
    lv.recolour([i for k, pair in enumerate(steps) if k % 2 == 1 for i in pair], "orange")
    lv.add_peg("orange", 60, 400, 10)
    lv.add_peg("orange", 200, 520, 10)
    for (x, y) in ((40, 470), (110, 520), (130, 450), (280, 530)):
        lv.add_peg("blue", x, y, 10)
    for (x, y) in ((560, 150), (650, 200), (730, 150), (700, 300)):
        lv.add_peg("green" if x == 650 or x == 700 else "blue", x, y, 12)
    return lv


def keyhole():
    lv = Level("Keyhole", "A ring of 23 bricks around four small oranges, with a gap about 27 wide at the top (a ball is 20); "
               "blue pegs everywhere else. 6 balls.", ("classic", 6))
    cx, cy, radius = 400, 390, 95
    for k in range(24):
        a = -math.pi / 2 + 2 * math.pi * k / 24
        if k == 0:
            continue
        lv.add_brick("blue", cx + radius * math.cos(a), cy + radius * math.sin(a), 22, 10, a + math.pi / 2)
    for (x, y) in ((375, 380), (425, 380), (400, 420), (400, 345)):
        lv.add_peg("orange", x, y, 8)
    for (x, y) in honeycomb(50, 750, 150, 8, 58, 52):
        if math.hypot(x - cx, y - cy) > radius + 28:
            lv.add_peg("blue", x, y, 11, must=False)
    return lv


LEVELS = [welcome_mat, boulder_garden, lanterns, skyline, pinball, hourglass, bookshelf, landslide,
          pebble_beach, confetti, sniper_nest, corner_pocket, carnival, high_roller, stroll, minefield,
          zombie_horde, topsy_turvy, diamond_mine, chute, ball_pit, one_shot, trampoline, staircase, keyhole]


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    names = set()
    for make in LEVELS:
        lv = make()
        assert lv.name.lower() not in names, lv.name
        names.add(lv.name.lower())
        path = out / (make_levels.slug(lv.name) + ".json")
        path.write_text(lv.text())
        kinds = {}
        for p in lv.pegs:
            kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
        print(f"{path.name}: {lv.mode}, {lv.power}, {len(lv.pegs)} pegs {kinds}, {len(lv.blocks)} blocks")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
