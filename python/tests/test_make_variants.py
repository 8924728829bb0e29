"""scripts/make_variants.py, the estimate's designer-like training levels (issue 35 item 3): every
level it writes is valid, the same command writes the same bytes, and it refuses to perturb a
held-out level (a held-out seed, or a level the generator did not make) before writing anything."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = str(ROOT / "scripts" / "make_variants.py")


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
