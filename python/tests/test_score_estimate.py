"""scripts/score_estimate.py, the held-out checks of docs/estimate-checks.md: on the hand-made set it reports
what HeldOutEstimateTests pins (rho 0.850, 24 of 25 inside, the one outside not flagged), generated
levels are scored per distribution and template, and bad input is refused with the file named,
exit code 2 and nothing on standard output."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = str(ROOT / "scripts" / "score_estimate.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=ROOT)


def test_the_hand_made_set_scores_as_pinned(peggle_bin):
    levels = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "Levels" / "handmade").glob("*.json"))
    r = run("--peggle", peggle_bin, "--difficulty", "Levels/handmade/difficulty.csv", *levels)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == ("25 levels rated (of 25 given): Spearman 0.850, inside the 95% interval 24 of 25 (96%), "
                        "flagged 7, outside and flagged 0 of 1")
    outside = [line.split("(")[1].split(")")[0] for line in lines if line.startswith("  outside: ")]
    assert outside == ["Diamond Mine"]
    assert [line.endswith(", flagged") for line in lines if line.startswith("  outside: ")] == [False]


def test_generated_levels_are_scored_per_distribution_and_template(peggle_bin, tmp_path):
    # Two bundled levels renamed as generated ones, rated by a hand-written difficulty.csv.
    hashes = {}
    for name, src in [("easy-000001-waves.json", "first-steps.json"), ("hard-000002-spiral.json", "spiral.json")]:
        (tmp_path / name).write_text((ROOT / "Levels" / src).read_text())
    feats = subprocess.run([peggle_bin, "estimate", "--features", *sorted(str(p) for p in tmp_path.glob("*.json"))],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    for line in feats[1:]:
        cells = line.split(",")
        hashes[cells[0].split("/")[-1]] = cells[2]
    csv = tmp_path / "difficulty.csv"
    csv.write_text("level_hash,sigma50_relation,sigma50_rad\n"
                   f"{hashes['easy-000001-waves.json']},>,1\n{hashes['hard-000002-spiral.json']},=,0.0042\n")
    r = run("--peggle", peggle_bin, "--difficulty", str(csv), *sorted(str(p) for p in tmp_path.glob("*.json")))
    assert r.returncode == 0, r.stderr
    groups = [line.split(":")[0].strip() for line in r.stdout.splitlines()[1:] if not line.startswith("  outside")]
    assert groups == ["easy", "hard", "spiral", "waves"]
    assert r.stdout.splitlines()[0].startswith("2 levels rated (of 2 given): Spearman 1.000, ")


def test_bad_input_is_refused_naming_the_file(peggle_bin, tmp_path):
    r = run("--peggle", peggle_bin, "--difficulty", str(tmp_path / "missing.csv"), "Levels/spiral.json")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"error: --difficulty {tmp_path / 'missing.csv'}: No such file or directory\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("level,sigma\nSpiral,0.1\n")
    r = run("--peggle", peggle_bin, "--difficulty", str(bad), "Levels/spiral.json")
    assert (r.returncode, r.stdout) == (2, "")
    assert "not a peggle report difficulty.csv" in r.stderr and str(bad) in r.stderr
