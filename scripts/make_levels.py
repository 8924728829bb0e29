#!/usr/bin/env python3
"""Generates the bundled levels in Levels/ (except bench-grid.json) in the canonical format that
`peggle` writes. The levels are designed here as geometry (arcs, rows, spirals); run
`peggle level validate Levels/*.json` afterwards. Rerunning rewrites the files identically.

    python3 scripts/make_levels.py
"""
import math
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def num(v):
    v = round(v, 2)
    return str(int(v)) if v == int(v) else repr(v)


class Level:
    def __init__(self, name, description, mode, power="none", purple_roams=True):
        self.name, self.description, self.mode, self.power = name, description, mode, power
        self.purple_roams = purple_roams
        self.pegs, self.blocks = [], []
        self.next_id = 1

    def _id(self):
        i = self.next_id
        self.next_id += 1
        return i

    def peg(self, kind, x, y, r=12):
        self.pegs.append(("circle", self._id(), kind, x, y, r))

    def brick(self, kind, x, y, w, h, rot):
        self.pegs.append(("brick", self._id(), kind, x, y, (w, h, rot)))

    def block(self, shape, x, y, w, h, rot=0.0, spring=0.0):
        self.blocks.append((self._id(), shape, x, y, w, h, rot, spring))

    def text(self):
        out = ['{', '  "format": 1', f'  "name": "{self.name}"', '  "author": "Peggle Gym"',
               f'  "description": "{self.description}"', '  "read_only": true']
        t = self.mode[0]
        if t == "classic":
            out.append(f'  "mode": {{"type": "classic", "balls": {self.mode[1]}}}')
        elif t == "beat_the_score":
            out.append(f'  "mode": {{"type": "beat_the_score", "target_score": {self.mode[1]}, "time_limit": {num(self.mode[2])}}}')
        else:
            out.append(f'  "mode": {{"type": "dodge", "shots": {self.mode[1]}}}')
        out.append(f'  "power": "{self.power}"')
        if not self.purple_roams:
            out.append('  "purple_roams": false')
        pegs = []
        for p in self.pegs:
            if p[0] == "circle":
                _, i, k, x, y, r = p
                pegs.append(f'{{"id": {i}, "kind": "{k}", "x": {num(x)}, "y": {num(y)}, "radius": {num(r)}}}')
            else:
                _, i, k, x, y, (w, h, rot) = p
                pegs.append(f'{{"id": {i}, "kind": "{k}", "x": {num(x)}, "y": {num(y)}, "shape": "brick", '
                            f'"width": {num(w)}, "height": {num(h)}, "rotation": {num(rot)}}}')
        blocks = [f'{{"id": {i}, "shape": "{s}", "x": {num(x)}, "y": {num(y)}, "width": {num(w)}, "height": {num(h)}, '
                  f'"rotation": {num(rot)}, "springiness": {num(sp)}}}' for (i, s, x, y, w, h, rot, sp) in self.blocks]

        def lst(items):
            return "[]" if not items else "[\n    " + ",\n    ".join(items) + "\n  ]"
        out.append('  "pegs": ' + lst(pegs))
        out.append('  "blocks": ' + lst(blocks))
        return out[0] + "\n" + ",\n".join(out[1:]) + "\n}\n"


def arc(cx, cy, r, a0, a1, n):
    """n points on a circle arc, angles in degrees measured from +x toward +y (down)."""
    if n == 1:
        return [(cx + r * math.cos(math.radians(a0)), cy + r * math.sin(math.radians(a0)))]
    return [(cx + r * math.cos(math.radians(a0 + (a1 - a0) * k / (n - 1))),
             cy + r * math.sin(math.radians(a0 + (a1 - a0) * k / (n - 1)))) for k in range(n)]


def row(x0, x1, y, n):
    return [(x0 + (x1 - x0) * k / (n - 1), y) for k in range(n)]


def kinds_every(points, every, kind, other="blue", offset=0):
    return [(kind if (k + offset) % every == 0 else other, x, y) for k, (x, y) in enumerate(points)]


def first_steps():
    lv = Level("First Steps", "Three wide arcs with plenty of room; the orange pegs sit where straight shots go.",
               ("classic", 10))
    for k, (x, y) in enumerate(arc(400, 120, 200, 30, 150, 13)):
        lv.peg("orange" if k in (4, 6, 8) else "blue", x, y)
    for k, (x, y) in enumerate(arc(400, 200, 260, 35, 145, 15)):
        lv.peg("orange" if k in (6, 8) else "blue", x, y)
    for k, (x, y) in enumerate(row(120, 680, 500, 11)):
        lv.peg("orange" if k == 5 else "blue", x, y)
    return lv


def green_light():
    lv = Level("Green Light", "Clusters around green pegs: light one and the kaboom clears its neighbours.",
               ("classic", 10), power="kaboom")
    centres = [(180, 220), (400, 260), (620, 220), (290, 400), (510, 400), (400, 500)]
    for ci, (cx, cy) in enumerate(centres):
        # A cup of five pegs under each centre peg, open at the top so the centre can be hit.
        lv.peg("orange" if ci in (1, 4) else "green", cx, cy)
        for k, (x, y) in enumerate(arc(cx, cy, 40, 0, 180, 5)):
            lv.peg("orange" if k % 2 == ci % 2 else "blue", x, y)
    return lv


def brick_road():
    lv = Level("Brick Road", "Curved brick rows; green bricks split the ball in two.", ("classic", 10), power="multiball")
    for ring, (r, n) in enumerate([(170, 9), (250, 13), (330, 17)]):
        for k in range(n):
            a = math.radians(25 + 130 * k / (n - 1))
            x, y = 400 + r * math.cos(a), 120 + r * math.sin(a)
            kind = "green" if (ring == 1 and k in (3, 9)) else ("orange" if (k + ring) % 3 == 0 else "blue")
            lv.brick(kind, x, y, 30, 12, a + math.pi / 2)
    return lv


def ghost_story():
    lv = Level("Ghost Story", "A deep funnel with orange at the bottom; spooky sends the ball round again.",
               ("classic", 10), power="spooky")
    for side in (-1, 1):
        for k in range(8):
            lv.peg("blue" if k % 3 else "green" if k == 3 else "blue", 400 + side * (330 - 30 * k), 140 + 40 * k)
    for k, (x, y) in enumerate(row(250, 550, 470, 9)):
        lv.peg("orange", x, y)
    for k, (x, y) in enumerate(row(280, 520, 520, 8)):
        lv.peg("orange" if k % 2 else "blue", x, y)
    lv.block("rectangle", 400, 390, 90, 14)
    return lv


def purple_haze():
    lv = Level("Purple Haze", "A honeycomb of blue with a roaming purple peg worth 500.", ("classic", 10), power="kaboom")
    k = 0
    for r in range(7):
        for c in range(9 if r % 2 == 0 else 8):
            x = 130 + 67 * c + (33 if r % 2 else 0)
            y = 160 + 52 * r
            kind = "orange" if (r * 5 + c * 3) % 7 == 0 else "green" if (r, c) in ((2, 4), (5, 1)) else "blue"
            if (r, c) == (3, 4):
                kind = "purple"
            lv.peg(kind, x, y)
            k += 1
    return lv


def springboard():
    lv = Level("Springboard", "Springy triangles throw the ball back up into the high pegs.", ("classic", 10))
    lv.block("triangle", 200, 470, 110, 40, 0.35, spring=1.0)
    lv.block("triangle", 600, 470, 110, 40, -0.35, spring=1.0)
    lv.block("rectangle", 400, 520, 160, 14, 0, spring=0.6)
    for k, (x, y) in enumerate(arc(400, 60, 190, 20, 160, 13)):
        lv.peg("orange" if k % 2 == 0 else "blue", x, y)
    for k, (x, y) in enumerate(arc(400, 60, 130, 30, 150, 7)):
        lv.peg("orange" if k % 3 == 1 else "blue", x, y)
    for x in (90, 710):
        for k in range(4):
            lv.peg("orange" if k == 3 else "blue", x, 170 + 45 * k)
    return lv


def zombie_night():
    lv = Level("Zombie Night", "Zombie pegs wake up as extra balls; multiball makes a crowd.", ("classic", 8),
               power="multiball")
    for r in range(5):
        for c in range(7):
            x = 160 + 80 * c + (40 if r % 2 else 0)
            if x > 700:
                continue
            y = 180 + 60 * r
            kind = "zombie" if (r + c) % 5 == 0 else "orange" if (r * 3 + c) % 4 == 1 else "blue"
            if (r, c) == (2, 3):
                kind = "green"
            lv.peg(kind, x, y, 13)
    lv.block("rectangle", 120, 440, 60, 12, -0.5)
    lv.block("rectangle", 680, 440, 60, 12, 0.5)
    return lv


def upside_down():
    lv = Level("Upside Down", "Orange hides under a shelf; a confusement peg turns the board over.", ("classic", 8))
    lv.block("rectangle", 400, 400, 400, 16)
    for k, (x, y) in enumerate(row(170, 630, 450, 10)):
        lv.peg("orange", x, y)
    for k, (x, y) in enumerate(row(200, 600, 500, 8)):
        lv.peg("orange" if k % 2 else "blue", x, y)
    for k, (x, y) in enumerate(arc(400, 100, 200, 25, 155, 11)):
        lv.peg("confusement" if k in (2, 8) else "blue", x, y)
    for x in (110, 690):
        lv.peg("blue", x, 330)
    return lv


def score_rush():
    lv = Level("Score Rush", "Beat 18,000 points in 90 seconds of play; chain the kabooms.",
               ("beat_the_score", 18000, 90), power="kaboom")
    for ring in range(3):
        r = 70 + 45 * ring
        n = 8 + 5 * ring
        for k, (x, y) in enumerate(arc(400, 330, r, 0, 360 * (n - 1) / n, n)):
            kind = "green" if k % 5 == 0 and ring < 2 else "orange" if k % 3 == 0 else "blue"
            if ring == 2 and k == 4:
                kind = "purple"
            lv.peg(kind, x, y)
    for k, (x, y) in enumerate(row(80, 720, 140, 8)):
        lv.peg("orange" if k in (0, 7) else "blue", x, y)
    return lv


def needles_eye():
    lv = Level("Needle's Eye", "Dodge: five shots that touch no peg. Blocks are fine; the bucket forgives one touch.",
               ("dodge", 5))
    for r in range(4):
        for c in range(6):
            x = 130 + 108 * c + (54 if r % 2 else 0)
            y = 190 + 85 * r
            if x > 700:
                continue
            lv.peg("orange" if (r + c) % 4 == 0 else "blue", x, y, 14)
    lv.block("rectangle", 70, 300, 14, 120)
    lv.block("rectangle", 730, 300, 14, 120)
    return lv


def fortress():
    lv = Level("Fortress", "Orange pegs behind walls with narrow gates; bank shots off the blocks.", ("classic", 10),
               power="kaboom")
    # A keep in the middle: a roof with a gate 40 wide, and walls that leave side gates.
    lv.block("rectangle", 325, 300, 110, 14)
    lv.block("rectangle", 475, 300, 110, 14)
    lv.block("rectangle", 275, 420, 14, 150)
    lv.block("rectangle", 525, 420, 14, 150)
    for k, (x, y) in enumerate(row(320, 480, 350, 5)):
        lv.peg("orange", x, y)
    for k, (x, y) in enumerate(row(320, 480, 420, 5)):
        lv.peg("orange" if k % 2 == 0 else "green" if k == 1 else "blue", x, y)
    for k, (x, y) in enumerate(row(320, 480, 480, 5)):
        lv.peg("orange", x, y)
    for side in (-1, 1):
        for k in range(5):
            lv.peg("blue" if k % 2 else "orange", 400 + side * (200 + 30 * k), 200 + 55 * k)
        lv.block("triangle", 400 + side * 330, 120, 60, 40, side * 0.8)
    for k, (x, y) in enumerate(arc(400, 140, 110, 200, 340, 7)):
        lv.peg("blue", x, y + 120)
    return lv


def spiral():
    lv = Level("Spiral", "One long spiral arm; orange near the eye. Only seven balls.", ("classic", 7), power="spooky")
    t = 0.0
    k = 0
    last = None
    while t < 5.2 * math.pi:
        r = 40 + 13 * t
        x, y = 400 + r * math.cos(t), 310 + r * 0.85 * math.sin(t)
        if 20 < x < 780 and 70 < y < 545 and (last is None or math.hypot(x - last[0], y - last[1]) >= 27):
            kind = "orange" if (k % 4 == 0 and r < 170) or k % 7 == 0 else "green" if k % 13 == 6 else "blue"
            lv.peg(kind, x, y)
            last = (x, y)
            k += 1
        t += 0.05
    return lv


def last_stand():
    lv = Level("Last Stand", "Five balls, orange in deep pockets between springy walls. Very hard.", ("classic", 5),
               power="multiball")
    for k, x in enumerate((130, 265, 400, 535, 670)):
        lv.block("rectangle", x - 48, 430, 12, 150, 0, spring=0.4)
        lv.block("rectangle", x + 48, 430, 12, 150, 0, spring=0.4)
        lv.peg("orange", x, 500)
        lv.peg("orange" if k % 2 == 0 else "blue", x, 440)
    lv.block("rectangle", 400, 300, 400, 14, 0)
    for k, (x, y) in enumerate(row(150, 650, 230, 11)):
        lv.peg("green" if k == 5 else "blue", x, y, 10)
    for x in (70, 730):
        lv.peg("zombie", x, 300)
    return lv


def free_flight(angle, until_y=560.0, dt=0.002, walls=False):
    """Centre path of a ball shot from the cannon with no collisions, as the physics moves it;
    with `walls`, the side walls reflect it (restitution 0.8; ball radius 10)."""
    x, y = 400.0, 20.0
    vx, vy = 600 * math.sin(angle), 600 * math.cos(angle)
    pts = []
    while y < until_y:
        pts.append((x, y))
        vy += 500 * dt
        x += vx * dt
        y += vy * dt
        if walls and (x < 10.0 or x > 790.0):
            x = min(max(x, 10.0), 790.0)
            vx = -0.8 * vx
    return pts


def gauntlet():
    lv = Level("Gauntlet", "Dodge three shots through a dense field: only three narrow curved tunnels are clear. "
               "Very hard.", ("dodge", 3))
    tunnels = [free_flight(a) for a in (-0.42, 0.0, 0.31)]
    for r in range(7):
        for c in range(11):
            x = 60 + 68 * c + (34 if r % 2 else 0)
            y = 150 + 55 * r
            if x > 745:
                continue
            # Carve the tunnels: no peg within 12 + 10 + 1 of a tunnel's centre line.
            if any(math.hypot(x - px, y - py) < 23 for path in tunnels for (px, py) in path):
                continue
            lv.peg("orange" if (r * 7 + c) % 5 == 0 else "blue", x, y, 12)
    return lv


LEVELS = [first_steps, green_light, brick_road, ghost_story, purple_haze, springboard, zombie_night, upside_down,
          score_rush, needles_eye, fortress, spiral, last_stand, gauntlet]


def slug(name):
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


if __name__ == "__main__":
    for make in LEVELS:
        lv = make()
        path = ROOT / "Levels" / (slug(lv.name) + ".json")
        path.write_text(lv.text())
        print(f"{path.relative_to(ROOT)}: {len(lv.pegs)} pegs, {len(lv.blocks)} blocks")
