"""scripts/make_variants.py, the estimate's designer-like training levels (issue 35 item 3): every
level it writes is valid, the same command writes the same bytes, and it refuses to perturb a
held-out level (a held-out seed, or a level the generator did not make) before writing anything.
A drawn level's orange count is drawn apart from where the oranges go and from the layout."""
import importlib.util
import json
import random
import subprocess
import sys

from conftest import ROOT

SCRIPT = str(ROOT / "scripts" / "make_variants.py")


def module():
    sys.path.insert(0, str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("make_variants", SCRIPT)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=300)


def validate(peggle_bin, files):
    r = subprocess.run([peggle_bin, "level", "validate", *map(str, files)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_variants_and_drawn_levels_are_valid_and_reproducible(tmp_path, peggle_bin):
    gen = tmp_path / "gen"
    for dist in ("easy", "hard"):
        subprocess.run([peggle_bin, "level", "generate", "--count", "3", "--seed", "201", "--distribution", dist,
                        "--out", str(gen)], check=True, capture_output=True, timeout=120)
    inputs = sorted(gen.iterdir())
    for out in ("a", "b"):
        assert run("perturb", tmp_path / out, *inputs, "--per", "2").returncode == 0
        # One level of each drawn layout.
        assert run("draw", tmp_path / out, "--count", "11").returncode == 0
    a, b = sorted((tmp_path / "a").iterdir()), sorted((tmp_path / "b").iterdir())
    assert [p.name for p in a] == [p.name for p in b] and all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b))
    variants = [p for p in a if not p.name.startswith("drawn-")]
    assert len(variants) >= 10 and len(a) - len(variants) >= 10
    for p in variants:
        assert '"description": "Variant ' in p.read_text()
    validate(peggle_bin, a)


def test_held_out_levels_are_refused_before_anything_is_written(tmp_path, peggle_bin):
    gen = tmp_path / "gen"
    subprocess.run([peggle_bin, "level", "generate", "--count", "1", "--seed", "600001", "--distribution", "hard",
                    "--out", str(gen)], check=True, capture_output=True, timeout=120)
    (held,) = gen.iterdir()
    r = run("perturb", tmp_path / "out", held, ROOT / "Levels" / "spiral.json")
    assert r.returncode == 2
    assert f"error: {held}: seed 600001 is in a held-out range (600001...600999)" in r.stderr
    assert f"error: {ROOT / 'Levels' / 'spiral.json'}: not a generated level" in r.stderr
    assert not (tmp_path / "out").exists()
    r = run("draw", tmp_path / "out", "--count", "0")
    assert r.returncode == 2 and "error: --count: 0 is below 1" in r.stderr and not (tmp_path / "out").exists()
    r = run("draw", tmp_path / "out", "--first", "-1")
    assert r.returncode == 2 and "error: --first: -1 is below 0" in r.stderr and not (tmp_path / "out").exists()


def test_a_later_batch_draws_the_same_levels_as_one_long_batch(tmp_path):
    assert run("draw", tmp_path / "all", "--count", "13").returncode == 0
    assert run("draw", tmp_path / "late", "--count", "2", "--first", "11").returncode == 0
    late = sorted((tmp_path / "late").iterdir())
    assert [p.name[:10] for p in late] == ["drawn-0011", "drawn-0012"]
    assert all(p.read_bytes() == (tmp_path / "all" / p.name).read_bytes() for p in late)


def test_orange_count_and_rule_do_not_depend_on_the_layout():
    mv = module()
    # Two layouts as unlike as they come (a slit box hides a few pegs, a dodge field none), each
    # coloured with the same oranges' generator: the same count and the same rule.
    for seed in range(20):
        got = []
        for make in (mv.d_slit_box, mv.d_dodge_field, mv.d_towers):
            lv = make(random.Random(7), "t")
            lv.pegs = [dict(p, kind="blue") for p in lv.pegs] + [dict(lv.pegs[0], kind="blue") for _ in range(40)]
            got.append(mv.colour_oranges(lv, random.Random(seed)))
            assert sum(p["kind"] == "orange" for p in lv.pegs) == got[-1][0]
        assert got[0] == got[1] == got[2]
        assert got[0] == (mv.orange_count(random.Random(seed)), got[0][1])
    # Over the levels drawn for training, every rule meets both few and many oranges.
    levels = [mv.drawn(k) for k in range(110, 230)]
    count = {rule: [] for rule in mv.ORANGE_RULES}
    for lv in levels:
        n = sum(p["kind"] == "orange" for p in lv.pegs)
        rule = lv.description.split(", placed ")[1].split(".")[0]
        assert f" {n} orange" in lv.description
        count[rule].append(n)
    assert all(min(c) == 1 and max(c) >= 25 for c in count.values()), count


def test_the_rule_decides_where_the_oranges_go():
    mv = module()
    for rule in mv.ORANGE_RULES:
        lv = mv.new_level(random.Random(0), "t", "", ("classic", 5))
        for k in range(12):
            lv.add_peg("blue", 60 + 60 * k, 300, 10)
        lv.hidden = {0, 1, 2, 3}
        rng = random.Random(0)
        while True:   # a generator whose draw is 3 oranges by this rule
            state = rng.getstate()
            n, got = mv.orange_count(rng), rng.choice(mv.ORANGE_RULES)
            if n == 3 and got == rule:
                break
        rng.setstate(state)
        assert mv.colour_oranges(lv, rng) == (3, rule)
        oranges = {i for i, p in enumerate(lv.pegs) if p["kind"] == "orange"}
        if rule == "hidden":
            assert oranges <= lv.hidden
        elif rule == "exposed":
            assert not oranges & lv.hidden
        # A layout that hides nothing: its lowest third counts as hidden.
        flat = mv.new_level(random.Random(0), "t", "", ("classic", 5))
        for k in range(9):
            flat.add_peg("blue", 100 + 60 * k, 150 + 40 * k, 10)
        rng.setstate(state)
        mv.colour_oranges(flat, rng)
        low = {i for i, p in enumerate(flat.pegs) if p["kind"] == "orange"}
        if rule == "hidden":
            assert low == {6, 7, 8}
        elif rule == "exposed":
            assert not low & {6, 7, 8}
