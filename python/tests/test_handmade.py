"""The hand-made held-out set (Levels/handmade, docs/levels.md and docs/estimate-checks.md): at least 20
levels, valid, named uniquely beside the bundled levels and the families, and exactly what
scripts/make_handmade.py writes. Their ratings and the estimate's score on them are checked by
Tests/PeggleEstimateTests/HeldOutEstimateTests.swift."""
import json
import subprocess
import sys

from conftest import ROOT

HANDMADE = ROOT / "Levels" / "handmade"


def test_the_script_writes_exactly_the_committed_files(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_handmade.py"), str(tmp_path)], check=True,
                   capture_output=True, timeout=120)
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    committed = sorted(p.name for p in HANDMADE.glob("*.json"))
    assert len(committed) >= 20
    assert written == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (HANDMADE / name).read_bytes(), name


def test_every_level_is_valid_and_named_uniquely(peggle_bin):
    files = sorted(HANDMADE.glob("*.json"))
    r = subprocess.run([peggle_bin, "level", "validate", *map(str, files)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    others = list((ROOT / "Levels").glob("*.json")) + list((ROOT / "Levels" / "families").glob("*/*.json"))
    names = [json.loads(p.read_text())["name"].lower() for p in files + others]
    assert len(set(names)) == len(names)
