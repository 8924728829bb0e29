"""The families of known order (Levels/families, docs/estimate-checks.md "Families of known order") hold what
they claim, checked from the JSON: enough families and levels, one knob turned per family with
everything else the same, the knob turned only the way that makes a level harder, unique names,
valid levels, and the committed files are exactly what scripts/make_families.py writes."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import ROOT

FAMILIES_DIR = ROOT / "Levels" / "families"


def load_script():
    spec = importlib.util.spec_from_file_location("make_families", ROOT / "scripts" / "make_families.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = load_script()
FAMILIES = [(folder, knob) for folder, knob, _ in SCRIPT.FAMILIES]


def levels(folder):
    files = sorted((FAMILIES_DIR / folder).glob("*.json"), key=lambda p: int(p.stem))
    return [json.loads(p.read_text()) for p in files], files


def geometry(peg_or_block):
    """Everything of an object but its kind."""
    return {k: v for k, v in peg_or_block.items() if k != "kind"}


def test_at_least_eight_families_of_six_levels_each_numbered_from_one():
    assert len(FAMILIES) >= 8
    assert sorted(p.name for p in FAMILIES_DIR.iterdir()) == sorted(folder for folder, _ in FAMILIES)
    for folder, _ in FAMILIES:
        _, files = levels(folder)
        assert len(files) >= 6, folder
        assert [p.name for p in files] == [f"{k}.json" for k in range(1, len(files) + 1)], folder


def test_names_are_unique_across_every_family_and_the_bundled_levels():
    names = [lv["name"] for folder, _ in FAMILIES for lv in levels(folder)[0]]
    bundled = [json.loads(p.read_text())["name"] for p in (ROOT / "Levels").glob("*.json")]
    assert len(set(n.lower() for n in names + bundled)) == len(names) + len(bundled)


KNOBS = {"oranges", "balls", "target_score", "time_limit", "shots"}


@pytest.mark.parametrize("folder,knob", FAMILIES)
def test_one_knob_turns_and_only_toward_harder(folder, knob):
    assert knob in KNOBS
    family, _ = levels(folder)
    for a, b in zip(family, family[1:]):
        # Requirement knobs: the same objects (ids, shapes, positions, sizes, rotations), blocks,
        # power and purple rule; so every ball flies the same way in both levels.
        assert [geometry(p) for p in a["pegs"]] == [geometry(p) for p in b["pegs"]], (folder, b["name"])
        assert a.get("blocks", []) == b.get("blocks", []), (folder, b["name"])
        assert (a.get("power", "none"), a.get("purple_roams", True)) == (b.get("power", "none"), b.get("purple_roams", True))
        kinds_a, kinds_b = [p["kind"] for p in a["pegs"]], [p["kind"] for p in b["pegs"]]
        ma, mb = dict(a["mode"]), dict(b["mode"])
        assert ma["type"] == mb["type"]
        if knob == "oranges":
            assert ma == mb
            orange_a = {p["id"] for p in a["pegs"] if p["kind"] == "orange"}
            orange_b = {p["id"] for p in b["pegs"] if p["kind"] == "orange"}
            assert orange_a < orange_b, "the orange set only grows"
            assert all(ka == kb or (ka, kb) == ("blue", "orange") for ka, kb in zip(kinds_a, kinds_b))
        else:
            assert kinds_a == kinds_b
            field = {"balls": "balls", "target_score": "target_score", "time_limit": "time_limit", "shots": "shots"}[knob]
            va, vb = ma.pop(field), mb.pop(field)
            assert ma == mb, "only the knob's field of the mode changes"
            if knob in ("balls", "time_limit"):
                assert vb < va, f"{knob} only falls"
            else:
                assert vb > va, f"{knob} only rises"
    expected_mode = {"oranges": "classic", "balls": "classic", "target_score": "beat_the_score",
                     "time_limit": "beat_the_score", "shots": "dodge"}[knob]
    assert all(lv["mode"]["type"] == expected_mode for lv in family)
    if knob == "oranges":
        # No shot can earn a free ball by points (25,000 in one shot, docs/rules.md): blue and
        # orange pegs only, no power, and the whole board at the top multiplier (x10) scores less.
        for lv in family:
            assert lv.get("power", "none") == "none"
            kinds = [p["kind"] for p in lv["pegs"]]
            assert set(kinds) <= {"blue", "orange"}
            assert 10 * sum(100 if k == "orange" else 10 for k in kinds) < 25_000, lv["name"]


def test_the_script_writes_exactly_the_committed_files(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_families.py"), str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    committed = sorted(p.relative_to(FAMILIES_DIR) for p in FAMILIES_DIR.rglob("*.json"))
    assert written == committed
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (FAMILIES_DIR / rel).read_bytes(), rel


def test_every_level_is_valid_and_the_bundled_folder_leaves_the_families_out(peggle_bin):
    files = [str(p) for folder, _ in FAMILIES for p in levels(folder)[1]]
    r = subprocess.run([peggle_bin, "level", "validate", *files], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # A folder argument expands to its own *.json files, not its subfolders': rating or
    # estimating Levels/ (scripts/main, the bundled levels) never picks up a family.
    r = subprocess.run([peggle_bin, "estimate", "--json", str(ROOT / "Levels")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    estimated = [pathlib.Path(e["file"]) for e in json.loads(r.stdout)]
    assert estimated == sorted((ROOT / "Levels").glob("*.json"))
