#!/usr/bin/env python3
"""Writes training levels for `peggle estimate` that look more like a designer's (issue 35, item 3):
the generator's levels perturbed with the variety designers use and the generator does not, and
levels drawn in the hand-made style with new parameters. None of them is a held-out level.

    python3 scripts/make_variants.py perturb OUT_DIR LEVEL.json... [--per N]
    python3 scripts/make_variants.py draw OUT_DIR [--count N] [--first K]

`perturb` writes N variants (default 1) of each generated level: each applies one to three edits,
chosen by a random.Random seeded from the level's file name and the variant's number:

- radius: every round peg's radius times 0.5 to 2 (clamped to 6...30; the generator uses 10...14);
- spacing: positions stretched or squeezed about the board's middle, 0.65 to 1.4 in x and in y;
- thin: 20% to 60% of the pegs removed (an orange always kept);
- duplicate: pegs copied at an offset of 22 to 40 where they fit (a denser board);
- bricks: round pegs turned into bricks at random angles, or every brick turned to a new angle;
- shelves: two to five rectangle blocks (shelves, walls, springy bumpers) at random places;
- oranges: the orange share set to 4% to 70% of the coloured pegs (the generator: 22% to 28%);
- balls: classic with 1 to 40 balls (the generator: 9 to 15);
- beat the score: a target of 1 to 10 times the board's points and a clock of 20 to 200 s;
- dodge: 1 to 8 clean shots, on the level with a third to two thirds of its pegs removed;
- power: another power, zombie pegs (up to 10) or confusement pegs (1 to 3).

`draw` writes levels the generator never makes, in the kinds of layouts of scripts/make_handmade.py
and the families (towers, shelves, necks, rings with a gap, slit boxes, corner pockets, scattered
pegs of every size, tilted-brick dodge fields with tunnels, bumpers, big pegs), levels K to K+N-1
(--first K, default 0), every size, count, gap, mode and power drawn from a random.Random seeded
41000 + the level's number: no bundled, hand-made or family level is reproduced (those are held out;
nothing here reads them). A layout places blue pegs only and marks the ones it hides (in a box,
under a roof or a shelf, in a pocket or a ring; a layout that hides nothing: its lowest third).
The oranges come last, from a random.Random of their own (61000 + the level's number): a count of
1 to 40 (log-uniform), then a rule, `exposed` (unhidden pegs first), `hidden` (hidden first) or
`mixed` (any), so the count is independent of the placement and of the layout kind. (Until
2026-11-27's est5 each layout chose its own oranges, and its few oranges were the hidden ones: few
oranges came to mean hard in the fit. corpora/train-variants' drawn levels 0-109 are of that rule.)
From level 900 on (BALLS_FROM_ORANGES), half the classic levels then take their balls from their
oranges, a third to three times as many (a random.Random of 81000 + the level's number): before,
the layout drew its balls first, so few balls mostly met many oranges and one ball never met one
orange.

Every object is checked as it is placed (make_handmade.Level: on the board, above the lane, 50 from
the cannon, clear of the others); one that does not fit is left out, and a level left with no
orange (classic) or fewer than 8 pegs is not written. Deterministic: rerunning rewrites the same
bytes. Python 3 standard library only. Check the output with `peggle level validate OUT_DIR/*.json`.
`perturb` takes generated levels only, from seeds no held-out set uses (not 555000+, 600001+,
777000+, 880000+): any other input stops it before anything is written (exit code 2, each bad file
named). The training set of issue 35 perturbs easy and hard seeds 201 to 300 of
scripts/rating-corpus's corpus (docs/lab/2026-11-27-estimate-training-variants.md).
"""
import argparse
import json
import math
import pathlib
import random
import re
import sys
import zlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_handmade  # noqa: E402  (Level: placement-checked pegs, bricks and blocks)
import make_levels  # noqa: E402  (slug, free_flight)

Level = make_handmade.Level
POWERS = ["none", "kaboom", "spooky", "multiball"]
HELD_OUT_SEEDS = [(555000, 556000), (600001, 601000), (777000, 778000), (880000, 881000)]


# ---------------------------------------------------------------------------------------------
# Objects as plain tuples, so an edit can rebuild a level from a list of them

def read_objects(path):
    """(name, mode, power, objects) of a level file; objects are ("peg", kind, x, y, r),
    ("brick", kind, x, y, w, h, rot) and ("block", shape, x, y, w, h, rot, spring)."""
    d = json.loads(pathlib.Path(path).read_text())
    m = d["mode"]
    mode = {"classic": lambda: ("classic", m["balls"]),
            "beat_the_score": lambda: ("beat_the_score", m["target_score"], m["time_limit"]),
            "dodge": lambda: ("dodge", m["shots"])}[m["type"]]()
    objs = []
    for p in d["pegs"]:
        if p.get("shape") == "brick":
            objs.append(("brick", p["kind"], p["x"], p["y"], p["width"], p["height"], p["rotation"]))
        else:
            objs.append(("peg", p["kind"], p["x"], p["y"], p["radius"]))
    for b in d.get("blocks", []):
        objs.append(("block", b["shape"], b["x"], b["y"], b["width"], b["height"], b["rotation"], b["springiness"]))
    return d["name"], mode, d["power"], objs


def build(name, description, mode, power, objs, purple_roams=True):
    """A Level holding the objects that fit, in order (blocks first, so pegs give way to them)."""
    lv = Level(name, description, mode, power, purple_roams)
    for o in sorted(objs, key=lambda o: o[0] != "block"):
        if o[0] == "block":
            lv.add_block(o[1], o[2], o[3], o[4], o[5], o[6], o[7], must=False)
        elif o[0] == "brick":
            lv.add_brick(o[1], o[2], o[3], o[4], o[5], o[6], must=False)
        else:
            lv.add_peg(o[1], o[2], o[3], o[4], must=False)
    return lv


def pegs_of(objs):
    return [i for i, o in enumerate(objs) if o[0] != "block"]


def with_kind(o, kind):
    return (o[0], kind) + o[2:]


def moved(o, x, y):
    return o[:2] + (x, y) + o[4:]


def board_points(objs):
    return sum(make_handmade.POINTS[o[1]] for o in objs if o[0] != "block")


# ---------------------------------------------------------------------------------------------
# The edits: each takes (rng, objs, mode, power) and returns (objs, mode, power, what it did)

def e_radius(rng, objs, mode, power):
    f = rng.choice([0.5, 0.6, 0.7, 0.8, 1.25, 1.4, 1.6, 1.8, 2.0])
    out = [o[:4] + (min(30, max(6, round(o[4] * f, 1))),) if o[0] == "peg" else o for o in objs]
    return out, mode, power, f"round pegs' radius x{f}"


def e_spacing(rng, objs, mode, power):
    fx, fy = rng.choice([0.65, 0.75, 0.85, 1.15, 1.3, 1.4]), rng.choice([0.7, 0.8, 1.0, 1.2, 1.35])
    ys = [o[3] for o in objs]
    cy = (min(ys) + max(ys)) / 2
    out = [moved(o, 400 + (o[2] - 400) * fx, cy + (o[3] - cy) * fy) for o in objs]
    return out, mode, power, f"spacing x{fx} across, x{fy} down"


def e_thin(rng, objs, mode, power, share=None):
    share = share or rng.choice([0.2, 0.3, 0.45, 0.6])
    pegs = pegs_of(objs)
    drop = set(rng.sample(pegs, int(len(pegs) * share)))
    oranges = [i for i in pegs if objs[i][1] == "orange"]
    if oranges and all(i in drop for i in oranges):
        drop.discard(rng.choice(oranges))
    return [o for i, o in enumerate(objs) if i not in drop], mode, power, f"{int(share * 100)}% of the pegs removed"


def e_duplicate(rng, objs, mode, power):
    dx, dy = rng.choice([-1, 1]) * rng.uniform(22, 40), rng.choice([-1, 1]) * rng.uniform(22, 40)
    extra = [moved(o if o[1] in ("blue", "orange") else with_kind(o, "blue"), o[2] + dx, o[3] + dy)
             for o in objs if o[0] != "block"]
    return objs + extra, mode, power, f"pegs copied at an offset ({dx:.0f}, {dy:.0f}) where they fit"


def e_bricks(rng, objs, mode, power):
    if any(o[0] == "brick" for o in objs) and rng.random() < 0.5:
        out = [o[:6] + (round(rng.uniform(-1.5, 1.5), 3),) if o[0] == "brick" else o for o in objs]
        return out, mode, power, "every brick turned to a random angle"
    share = rng.choice([0.3, 0.6, 1.0])
    fixed = rng.choice([None, 0.0, 0.5, -0.7, 1.57])
    out = []
    for o in objs:
        if o[0] == "peg" and rng.random() < share:
            r = o[4]
            rot = fixed if fixed is not None else rng.uniform(-1.5, 1.5)
            out.append(("brick", o[1], o[2], o[3], round(2.8 * r, 1), round(max(6, 0.8 * r), 1), round(rot, 3)))
        else:
            out.append(o)
    return out, mode, power, f"{int(share * 100)}% of the round pegs turned into bricks" + (
        f" at {fixed} rad" if fixed is not None else " at random angles")


def e_shelves(rng, objs, mode, power):
    n = rng.randint(2, 5)
    new = []
    for _ in range(n):
        w = rng.uniform(70, 260)
        spring = rng.choice([0, 0, 0, 0.8, 1.0])
        new.append(("block", "rectangle" if rng.random() < 0.75 else "triangle", rng.uniform(60, 740),
                    rng.uniform(150, 520), w if rng.random() < 0.8 else 14, 12 if rng.random() < 0.8 else w,
                    round(rng.uniform(-0.6, 0.6), 3), spring))
    return new + objs, mode, power, f"{n} blocks (shelves, walls, bumpers) added"


def e_oranges(rng, objs, mode, power):
    share = rng.choice([0.04, 0.08, 0.12, 0.4, 0.55, 0.7])
    coloured = [i for i in pegs_of(objs) if objs[i][1] in ("blue", "orange")]
    n = max(1, round(share * len(coloured)))
    chosen = set(rng.sample(coloured, min(n, len(coloured))))
    out = [with_kind(o, "orange" if i in chosen else "blue") if i in coloured else o for i, o in enumerate(objs)]
    return out, mode, power, f"{len(chosen)} oranges ({int(share * 100)}% of the blue and orange pegs)"


def e_balls(rng, objs, mode, power):
    b = rng.choice([1, 2, 3, 4, 5, 6, 7, 18, 22, 30, 40])
    return objs, ("classic", b), power, f"classic with {b} balls"


def e_score(rng, objs, mode, power):
    k = rng.choice([1, 1.5, 2, 3, 5, 7, 10])
    t = rng.choice([20, 30, 45, 60, 90, 150, 200])
    target = max(500, round(k * board_points(objs), -2))
    return objs, ("beat_the_score", int(target), t), power, f"beat the score: {target} in {t} s ({k}x the board's points)"


def e_dodge(rng, objs, mode, power):
    objs, _, _, thinned = e_thin(rng, objs, mode, power, rng.choice([0.35, 0.5, 0.65]))
    s = rng.choice([1, 2, 3, 4, 6, 8])
    return objs, ("dodge", s), power, f"dodge {s} shots, {thinned}"


def e_power(rng, objs, mode, power):
    pegs = [i for i in pegs_of(objs) if objs[i][1] == "blue"]
    what = rng.random()
    out = list(objs)
    if what < 0.4 and pegs:
        n = min(len(pegs), rng.randint(3, 10))
        for i in rng.sample(pegs, n):
            out[i] = with_kind(out[i], "zombie")
        return out, mode, power, f"{n} zombie pegs"
    if what < 0.6 and pegs:
        n = min(len(pegs), rng.randint(1, 3))
        for i in rng.sample(pegs, n):
            out[i] = with_kind(out[i], "confusement")
        return out, mode, power, f"{n} confusement pegs"
    new = rng.choice([p for p in POWERS if p != power])
    greens = [i for i in pegs_of(objs) if objs[i][1] == "green"]
    if new == "none":
        for i in greens:
            out[i] = with_kind(out[i], "blue")
    elif not greens and len(pegs) >= 2:
        for i in rng.sample(pegs, 2):
            out[i] = with_kind(out[i], "green")
    return out, mode, new, f"power {new}"


EDITS = {"radius": e_radius, "spacing": e_spacing, "thin": e_thin, "duplicate": e_duplicate, "bricks": e_bricks,
         "shelves": e_shelves, "oranges": e_oranges, "balls": e_balls, "score": e_score, "dodge": e_dodge,
         "power": e_power}
# Mode edits come last, so a target counts the board's final points.
MODE_EDITS = {"balls", "score", "dodge"}


def check_input(path):
    """None if `path` is a generated level from a seed no held-out set uses, else why not: only
    the generator's levels are perturbed (the bundled, hand-made and family levels are held out)."""
    try:
        d = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as e:
        return f"cannot read it ({e})"
    m = re.match(r"Generated from seed (\d+):", d.get("description", ""))
    if d.get("author") != "Peggle Gym generator" or not m:
        return "not a generated level (author \"Peggle Gym generator\", description \"Generated from seed N: ...\")"
    seed = int(m.group(1))
    for lo, hi in HELD_OUT_SEEDS:
        if lo <= seed < hi:
            return f"seed {seed} is in a held-out range ({lo}...{hi - 1})"
    return None


def perturb(path, k):
    name, mode, power, objs = read_objects(path)
    rng = random.Random(zlib.crc32(f"{pathlib.Path(path).name}#{k}".encode()))
    names = rng.sample(sorted(EDITS), rng.choice([1, 2, 2, 3]))
    names.sort(key=lambda n: n in MODE_EDITS)
    names = [n for i, n in enumerate(names) if n not in MODE_EDITS or not any(m in MODE_EDITS for m in names[:i])]
    done = []
    for n in names:
        objs, mode, power, what = EDITS[n](rng, objs, mode, power)
        done.append(what)
    title = f"{name} variant {k}"
    desc = f"Variant {k} of {name} (scripts/make_variants.py perturb): " + "; ".join(done) + "."
    return build(title, desc, mode, power, objs)


# ---------------------------------------------------------------------------------------------
# Drawn levels: hand-made kinds of layouts, every parameter drawn. A layout lays out blue pegs only
# and marks which of them are hidden (inside a box, under a roof, in a pocket: `lv.hidden`); the
# oranges come afterwards from a random.Random of their own (colour_oranges), so how many there are
# and where they go are drawn independently of each other and of the layout.

ORANGE_RULES = ("exposed", "hidden", "mixed")
MOST_ORANGES = 40
# From this level on, half the classic levels take their balls from their oranges (`balls_for`).
BALLS_FROM_ORANGES = 900


def new_level(rng, name, description, mode, power=None, purple_roams=True):
    lv = Level(name, description, mode, power if power is not None else rng.choice(POWERS), purple_roams)
    lv.hidden = set()
    return lv


def hide_from(lv, start):
    """Marks the pegs placed since index `start` as hidden."""
    lv.hidden.update(range(start, len(lv.pegs)))


def orange_count(rng):
    """1 to MOST_ORANGES, log-uniform: as many levels with 1 to 6 oranges as with 7 to 40."""
    return min(MOST_ORANGES, int(math.exp(rng.uniform(0, math.log(MOST_ORANGES + 1)))))


def colour_oranges(lv, rng):
    """Recolours orange_count(rng) of the level's blue pegs (fewer if it has fewer), chosen by one
    of ORANGE_RULES: `exposed` takes pegs the layout did not hide first, `hidden` the hidden ones
    first, `mixed` any. A layout that hides nothing (a field of pegs) counts its lowest third as
    hidden. Returns (count, rule)."""
    n, rule = orange_count(rng), rng.choice(ORANGE_RULES)
    blues = [i for i, p in enumerate(lv.pegs) if p["kind"] == "blue"]
    hidden = set(lv.hidden)
    if not hidden:
        hidden = set(sorted(blues, key=lambda i: -lv.pegs[i]["y"])[:len(blues) // 3])
    inner = [i for i in blues if i in hidden]
    outer = [i for i in blues if i not in hidden]
    rng.shuffle(inner)
    rng.shuffle(outer)
    order = {"exposed": outer + inner, "hidden": inner + outer}.get(rule) or rng.sample(blues, len(blues))
    chosen = order[:n]
    lv.recolour(chosen, "orange")
    return len(chosen), rule


def balls_for(rng, oranges):
    """A designer sets the balls against the oranges: from a third of the oranges to three times
    them (log-uniform), 1 to 40. Before it, the balls were the layout's own draw, made before the
    oranges, so few balls mostly came with many oranges and a level of one orange and one ball
    was never drawn."""
    return min(40, max(1, round(oranges * math.exp(rng.uniform(math.log(1 / 3), math.log(3))))))


def d_towers(rng, name):
    n = rng.randint(3, 8)
    w, h = rng.uniform(24, 60), rng.uniform(10, 20)
    lv = new_level(rng, name, f"{n} towers of stacked bricks ({w:.0f} x {h:.0f}), a sky of pegs above.",
                   ("classic", rng.randint(3, 16)))
    for x in sorted(rng.sample(range(70, 740, 30), n)):
        walls = []
        for j in range(rng.randint(2, 11)):
            if lv.add_brick("blue", x, 545 - h / 2 - (h + 1) * j, w, h, 0, must=False):
                walls.append(len(lv.pegs) - 1)
        lv.hidden.update(walls[:-1])   # the roof brick is in plain sight, the walls below it are not
    lv.scatter(rng, rng.randint(10, 40), (30, 110, 770, 330), [rng.randint(6, 14)], spacing=rng.uniform(4, 16))
    return lv


def d_shelves(rng, name):
    n = rng.randint(2, 5)
    length = rng.uniform(180, 380)
    lv = new_level(rng, name, f"{n} shelves {length:.0f} long from alternate walls, lined with bricks and pegs.",
                   ("classic", rng.randint(4, 14)))
    for k in range(n):
        cy = 190 + k * (340 / max(1, n - 1)) if n > 1 else 300
        cx = length / 2 + 8 if k % 2 == 0 else 792 - length / 2
        lv.add_block("rectangle", cx, cy, length, 12, round(rng.uniform(-0.08, 0.08), 3), must=False)
        start = len(lv.pegs)
        step = rng.uniform(22, 40)
        x = cx - length / 2 + 15
        while x < cx + length / 2 - 15:
            if rng.random() < 0.5:
                lv.add_brick("blue", x, cy - 6 - 16 - 2, 10, 32, 0, must=False)
            else:
                lv.add_peg("blue", x, cy - 6 - 10 - 2, 10, must=False)
            x += step
        if k > 0:   # every shelf but the top one lies under another
            hide_from(lv, start)
    start = len(lv.pegs)
    lv.scatter(rng, rng.randint(0, 20), (30, 480, 770, 545), [10], spacing=6)
    hide_from(lv, start)
    return lv


def d_neck(rng, name):
    neck = rng.uniform(24, 90)
    lv = new_level(rng, name, f"A funnel of bricks narrows to a neck {neck:.0f} wide over a chamber of pegs walled by "
                   "blocks.", ("classic", rng.randint(4, 14)))
    top = rng.uniform(130, 200)
    mid = rng.uniform(280, 360)
    lv.bricks_along("blue", (rng.uniform(40, 120), top), (400 - neck / 2 - 20, mid), 34, 10, 37)
    lv.bricks_along("blue", (800 - rng.uniform(40, 120), top), (400 + neck / 2 + 20, mid), 34, 10, 37)
    spread = rng.uniform(100, 260)
    lv.add_bar("rectangle", (400 - neck / 2 - 10, mid + 30), (400 - spread, 545), 10)
    lv.add_bar("rectangle", (400 + neck / 2 + 10, mid + 30), (400 + spread, 545), 10)
    start = len(lv.pegs)
    lv.scatter(rng, 40, (400 - spread, mid + 60, 400 + spread, 545), [rng.randint(7, 11)], spacing=4)
    hide_from(lv, start)
    lv.scatter(rng, rng.randint(5, 25), (30, 110, 770, top - 20), [rng.randint(8, 14)], spacing=8)
    lv.scatter(rng, 12, (30, 300, 770, 545), [11], spacing=6)
    return lv


def d_ring(rng, name):
    radius = rng.uniform(60, 140)
    gap_bricks = rng.randint(1, 4)
    cx, cy = rng.uniform(250, 550), rng.uniform(300, 420)
    n = 24
    lv = new_level(rng, name, f"A ring of bricks (radius {radius:.0f}) with a gap of {gap_bricks} bricks at the top "
                   "around small pegs; pegs elsewhere.", ("classic", rng.randint(2, 12)))
    bw = 2 * math.pi * radius / n - 3
    for k in range(n):
        a = -math.pi / 2 + 2 * math.pi * k / n
        if min(k, n - k) < (gap_bricks + 1) // 2 or (gap_bricks % 2 == 0 and k == gap_bricks // 2):
            continue
        lv.add_brick("blue", cx + radius * math.cos(a), cy + radius * math.sin(a), bw, 10, a + math.pi / 2, must=False)
    start = len(lv.pegs)
    lv.scatter(rng, rng.randint(1, 8), (cx - radius / 2, cy - radius / 2, cx + radius / 2, cy + radius / 2),
               [rng.randint(6, 10)], spacing=3)
    if len(lv.pegs) == start:
        lv.add_peg("blue", cx, cy, 8, must=False)
    hide_from(lv, start)
    lv.scatter(rng, rng.randint(20, 70), (30, 110, 770, 545), [rng.randint(8, 14)], spacing=rng.uniform(6, 20))
    return lv


def d_slit_box(rng, name):
    slit = rng.uniform(22, 70)
    cx = rng.choice([400, 400, rng.uniform(200, 600)])
    lv = new_level(rng, name, f"A box of blocks whose roof has a slit {slit:.0f} wide, pegs inside; pegs around.",
                   ("classic", rng.randint(1, 6)), power="none")
    depth = rng.uniform(120, 220)
    half = rng.uniform(50, 90)
    lv.add_block("rectangle", cx - half, 545 - depth / 2, 12, depth, must=False)
    lv.add_block("rectangle", cx + half, 545 - depth / 2, 12, depth, must=False)
    roof = half - slit / 2 + 6
    # The roof sits 1 above the walls (objects must leave make_handmade.GAP between them).
    lv.add_block("rectangle", cx - half - 6 + roof / 2, 545 - depth - 7, roof, 12, must=False)
    lv.add_block("rectangle", cx + half + 6 - roof / 2, 545 - depth - 7, roof, 12, must=False)
    start = len(lv.pegs)
    for _ in range(rng.randint(1, 5)):
        lv.add_peg("blue", cx + rng.uniform(-half + 20, half - 20), rng.uniform(545 - depth + 30, 540), rng.randint(6, 12), must=False)
    hide_from(lv, start)
    lv.scatter(rng, rng.randint(20, 60), (30, 120, 770, 545), [rng.randint(9, 13)], spacing=rng.uniform(8, 25))
    return lv


def d_corner(rng, name):
    left = rng.random() < 0.5
    lv = new_level(rng, name, "A pocket in a bottom corner under a tilted shelf, open to one side, behind a field of "
                   "pegs.", ("classic", rng.randint(2, 10)))
    y0, y1 = rng.uniform(420, 480), rng.uniform(480, 520)
    x1 = rng.uniform(130, 230)
    a, b = ((12, y0), (x1, y1)) if left else ((788, y0), (800 - x1, y1))
    lv.add_bar("rectangle", a, b, 10)
    start = len(lv.pegs)
    for _ in range(rng.randint(1, 4)):
        lv.add_peg("blue", (rng.uniform(25, x1 - 30) if left else 800 - rng.uniform(25, x1 - 30)), rng.uniform(y1 + 15, 545),
                   rng.randint(7, 10), must=False)
    hide_from(lv, start)
    lv.scatter(rng, rng.randint(25, 60), (30, 150, 770, 545), [rng.randint(10, 13)], spacing=rng.uniform(6, 16))
    return lv


def d_scatter(rng, name):
    lo = rng.randint(6, 16)
    hi = min(30, lo + rng.randint(0, 14))
    count = rng.randint(25, 130)
    mode = rng.choice([("classic", rng.randint(1, 40)), ("classic", rng.randint(3, 15)),
                       ("beat_the_score", 0, rng.choice([20, 40, 75, 120, 200]))])
    lv = new_level(rng, name, f"{count} pegs of radius {lo} to {hi} strewn at random.", mode,
                   purple_roams=rng.random() < 0.7)
    lv.scatter(rng, count, (30, 110, 770, 545), list(range(lo, hi + 1)), spacing=rng.uniform(2, 20), tries=100)
    extras = rng.choice([[], ["purple"], ["zombie"] * rng.randint(1, 8), ["confusement"] * rng.randint(1, 2)])
    lv.recolour(rng.sample(range(len(lv.pegs)), min(len(lv.pegs) - 1, len(extras))), extras[0] if extras else "blue")
    if mode[0] == "beat_the_score":
        lv.target_factor = rng.choice([1, 2, 4, 7])   # of the board's points, once the oranges are in
    return lv


def d_dodge_field(rng, name):
    tunnels = [make_levels.free_flight(rng.uniform(-1.0, 1.0), dt=1 / 240, walls=True) for _ in range(rng.randint(1, 3))]
    slack = rng.uniform(1, 25)
    shots = rng.randint(1, 10)
    rows = rng.randint(4, 9)
    brick = rng.random() < 0.6
    lv = new_level(rng, name, f"Dodge {shots} shots through a field of {'tilted bricks' if brick else 'pegs'} with "
                   f"{len(tunnels)} curved tunnels clear ({slack:.0f} units of slack).", ("dodge", shots))
    dx = rng.uniform(45, 70)
    for (x, y) in make_handmade.honeycomb(50, 750, 130, rows, dx, rng.uniform(45, 60)):
        if brick:
            rot = rng.uniform(-1.3, 1.3)
            outline = make_handmade.box(x, y, 34, 10, rot)
            if any(make_handmade.point_polygon_distance(px, py, outline) < 10 + slack for path in tunnels for (px, py) in path):
                continue
            lv.add_brick("blue", x, y, 34, 10, rot, must=False)
        else:
            r = rng.randint(8, 14)
            if any(math.hypot(x - px, y - py) < r + 10 + slack for path in tunnels for (px, py) in path):
                continue
            lv.add_peg("blue", x, y, r, must=False)
    return lv


def d_bumpers(rng, name):
    lv = new_level(rng, name, "Springy triangles and bars send balls about among rings of pegs around big bumper pegs.",
                   ("classic", rng.randint(3, 14)))
    for _ in range(rng.randint(2, 5)):
        lv.add_block(rng.choice(["triangle", "rectangle"]), rng.uniform(80, 720), rng.uniform(200, 520),
                     rng.uniform(50, 150), rng.uniform(14, 70), rng.uniform(-0.7, 0.7), rng.choice([0.6, 0.8, 1.0]), must=False)
    for _ in range(rng.randint(1, 4)):
        cx, cy = rng.uniform(150, 650), rng.uniform(180, 450)
        big = rng.randint(14, 30)
        if not lv.add_peg("blue", cx, cy, big, must=False):
            continue
        for k in range(rng.randint(5, 10)):
            a = 2 * math.pi * k / 8
            lv.add_peg("blue", cx + (big + 25) * math.cos(a), cy + (big + 25) * math.sin(a), rng.randint(7, 11), must=False)
    lv.scatter(rng, rng.randint(10, 40), (30, 120, 770, 545), [rng.randint(9, 13)], spacing=10)
    return lv


def d_boulders(rng, name):
    r = rng.randint(18, 30)
    lv = new_level(rng, name, f"Big pegs (radius {r}) far apart, few balls.", ("classic", rng.randint(1, 6)))
    lv.scatter(rng, rng.randint(8, 30), (40, 120, 760, 545), [r, max(6, r - 6)], spacing=rng.uniform(15, 60))
    return lv


def d_chute(rng, name):
    width = rng.uniform(80, 200)
    lv = new_level(rng, name, f"Two walls make a chute {width:.0f} wide; roofs over the side pockets leave gaps by the "
                   "walls.", ("classic", rng.randint(3, 14)))
    h = rng.uniform(200, 320)
    lv.add_block("rectangle", 400 - width / 2, 545 - h / 2, 12, h, must=False)
    lv.add_block("rectangle", 400 + width / 2, 545 - h / 2, 12, h, must=False)
    roof_y = 545 - h + rng.uniform(-20, 40)
    gap = rng.uniform(20, 70)
    roof = 400 - width / 2 - 6 - gap
    lv.add_block("rectangle", roof / 2 + 4, roof_y, roof - 8, 10, must=False)
    lv.add_block("rectangle", 800 - roof / 2 - 4, roof_y, roof - 8, 10, must=False)
    start = len(lv.pegs)
    lv.scatter(rng, 40, (30, roof_y + 20, 770, 545), [rng.randint(9, 12)], spacing=8)
    hide_from(lv, start)
    lv.scatter(rng, rng.randint(10, 30), (30, 110, 770, roof_y - 25), [rng.randint(10, 14)], spacing=12)
    return lv


DRAWN = [d_towers, d_shelves, d_neck, d_ring, d_slit_box, d_corner, d_scatter, d_dodge_field, d_bumpers,
         d_boulders, d_chute]


def drawn(k):
    rng = random.Random(41000 + k)
    make = DRAWN[k % len(DRAWN)]
    lv = make(rng, f"Drawn {k} ({make.__name__[2:].replace('_', ' ')})")
    # The oranges' own generator: neither the layout's draws nor its kind move their count or rule.
    n, rule = colour_oranges(lv, random.Random(61000 + k))
    balls = ""
    if k >= BALLS_FROM_ORANGES and lv.mode[0] == "classic":
        # Their own generator too, so the layout and the oranges are those of the rule before.
        r = random.Random(81000 + k)
        if r.random() < 0.5:
            lv.mode = ("classic", balls_for(r, n))
            balls = f" {lv.mode[1]} balls for them."
    if lv.power != "none":
        blues = [i for i, p in enumerate(lv.pegs) if p["kind"] == "blue"]
        lv.recolour(rng.sample(blues, min(2, len(blues))), "green")
    if lv.mode[0] == "beat_the_score":
        lv.mode = ("beat_the_score", int(max(500, round(lv.target_factor * lv.board_points(), -2))), lv.mode[2])
    lv.description += f" {n} orange{'s' if n != 1 else ''}, placed {rule}.{balls} (scripts/make_variants.py draw, level {k})"
    return lv


# ---------------------------------------------------------------------------------------------

def usable(lv):
    kinds = [p["kind"] for p in lv.pegs]
    if len(kinds) < 8:
        return "fewer than 8 pegs"
    if lv.mode[0] == "classic" and "orange" not in kinds:
        return "no orange"
    return None


def write(out, lv, stem):
    why = usable(lv)
    if why:
        print(f"skipped {stem}: {why}", file=sys.stderr)
        return False
    (out / f"{stem}.json").write_text(lv.text())
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("perturb")
    p.add_argument("out")
    p.add_argument("levels", nargs="+")
    p.add_argument("--per", type=int, default=1)
    d = sub.add_parser("draw")
    d.add_argument("out")
    d.add_argument("--count", type=int, default=100)
    d.add_argument("--first", type=int, default=0, help="the first level's number (a later batch draws new levels)")
    a = ap.parse_args()
    # Every input is checked before anything is written.
    bad = [(path, why) for path in a.levels if (why := check_input(path))] if a.cmd == "perturb" else []
    n = a.per if a.cmd == "perturb" else a.count
    if n < 1:
        bad.append(("--per" if a.cmd == "perturb" else "--count", f"{n} is below 1"))
    if a.cmd == "draw" and a.first < 0:
        bad.append(("--first", f"{a.first} is below 0"))
    if bad:
        for what, why in bad:
            print(f"error: {what}: {why}", file=sys.stderr)
        sys.exit(2)
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    if a.cmd == "perturb":
        for path in a.levels:
            for k in range(1, a.per + 1):
                written += write(out, perturb(path, k), f"{pathlib.Path(path).stem}-v{k}")
    else:
        for k in range(a.first, a.first + a.count):
            lv = drawn(k)
            written += write(out, lv, f"drawn-{k:04d}-{make_levels.slug(lv.name.split('(')[1].rstrip(')'))}")
    print(f"wrote {written} levels into {out}")


if __name__ == "__main__":
    main()
