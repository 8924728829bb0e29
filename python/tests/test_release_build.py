"""The release binary rates exactly as the debug binary.

`scripts/main` rates with the release build, which `Package.swift` tunes for AVX2 when the CPU
has it (docs/architecture.md, "The build"), and the rest of this suite runs it too. Both must play
the same games: a rating of a turned board (Upside Down) and of bricks with multiball (Brick Road)
by every agent gives the same difficulty.csv and episodes.csv, byte for byte, from either binary.
`scripts/test` builds only the release configuration (the Swift suites' pinned values hold the
builds together there); to compare two binaries directly, build the debug one too and name it:
`swift build && PEGGLE_DEBUG_BIN=.build/debug/peggle pytest python/tests/test_release_build.py`."""
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT

DEBUG = os.environ.get("PEGGLE_DEBUG_BIN")


def rate_and_report(binary: str, out: pathlib.Path) -> dict[str, bytes]:
    db = out / "r.sqlite"
    levels = [str(ROOT / "Levels" / f) for f in ("upside-down.json", "brick-road.json")]
    subprocess.run([binary, "rate", *levels, "--budget", "8", "--episodes", "4", "--threads", "2",
                    "--agents", f"random,greedy,linear:{ROOT / 'Agents' / 'linear.json'}", "--db", str(db)],
                   check=True, capture_output=True, text=True, cwd=ROOT)
    subprocess.run([binary, "report", "--db", str(db), "--out", str(out / "reports")],
                   check=True, capture_output=True, text=True, cwd=ROOT)
    return {name: (out / "reports" / name).read_bytes() for name in ("difficulty.csv", "episodes.csv")}


@pytest.mark.skipif(not DEBUG, reason="PEGGLE_DEBUG_BIN does not name a debug build of peggle")
def test_release_build_rates_exactly_like_the_debug_build(peggle_bin, tmp_path):
    assert pathlib.Path(DEBUG).resolve() != pathlib.Path(peggle_bin).resolve(), "compare two different builds"
    (tmp_path / "debug").mkdir()
    (tmp_path / "release").mkdir()
    debug = rate_and_report(DEBUG, tmp_path / "debug")
    release = rate_and_report(peggle_bin, tmp_path / "release")
    # 8 greedy games and 4 of each other agent on each level.
    assert debug["episodes.csv"].count(b"\r\n") == 1 + 2 * (8 + 4 + 4)
    for name in debug:
        assert release[name] == debug[name], f"{name} differs between the debug and the release build"
