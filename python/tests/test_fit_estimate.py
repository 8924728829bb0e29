"""scripts/fit-estimate's bounds (issue 35): a bound at the range's end counts as the end, a
budget-limited one ("> b" short of the top, "< b" above the floor) is a censored observation: the
fit is held to the bound only where it would break it. Pinned on tiny hand-made data sets with
hand-computed answers (numpy only); and the guessing widening, its search alone and a small real fit
calibrated through the peggle binary."""
import csv
import importlib.machinery
import importlib.util
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def fe():
    loader = importlib.machinery.SourceFileLoader("fit_estimate", str(ROOT / "scripts" / "fit-estimate"))
    spec = importlib.util.spec_from_loader("fit_estimate", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def line(targets):
    """The least-squares line through (0, t0), (1, t1), (2, t2), (3, t3), at those x."""
    x = np.arange(4.0)
    slope, intercept = np.polyfit(x, targets, 1)
    return intercept + slope * x


def test_a_broken_bound_pulls_the_fit_to_the_bound_and_no_further(fe):
    # Rated 0, 1, 2 at x = 0, 1, 2; the fourth level is "> e^4" at x = 3. The line through the
    # three says 3, which breaks the bound, so the target is the bound itself: the line through
    # (0, 0), (1, 1), (2, 2), (3, 4) has slope 6.5 / 5 = 1.3 and intercept 1.75 - 1.95 = -0.2, and
    # its value at 3 (3.7) is still below 4, so the target stays 4.
    y, side = np.array([0, 1, 2, 4.0]), np.array([0, 0, 0, 1])
    t = fe.censored_targets(line, y, side)
    assert t == pytest.approx([0, 1, 2, 4])
    assert line(t) == pytest.approx([-0.2, 1.1, 2.4, 3.7])
    # "< e^2" at x = 3: the line through (3, 2) has slope 3.5 / 5 = 0.7, intercept 1.25 - 1.05 = 0.2.
    t = fe.censored_targets(line, np.array([0, 1, 2, 2.0]), np.array([0, 0, 0, -1]))
    assert line(t) == pytest.approx([0.2, 0.9, 1.6, 2.3])


def test_a_kept_bound_does_not_move_the_fit(fe):
    # "> e^2" at x = 3, and the line through the three rated levels says 3: the bound holds, the
    # target becomes the fit's own value, and the line is the one through the rated three alone.
    t = fe.censored_targets(line, np.array([0, 1, 2, 2.0]), np.array([0, 0, 0, 1]))
    assert t == pytest.approx([0, 1, 2, 3], abs=1e-6)
    # Counted as the range's end (e^2 as a value), it would have bent the line: slope 0.7.
    assert line(np.array([0, 1, 2, 2.0]))[3] == pytest.approx(2.3)


def test_bounds_in_difficulty_csv_are_read_by_what_they_mean(fe, tmp_path):
    csv = tmp_path / "difficulty.csv"
    csv.write_text("level_hash,sigma50_relation,sigma50_rad\r\n"
                   "a,=,0.05\r\nb,<,0.001\r\nc,>,1\r\nd,>,0.19\r\ne,<,0.042\r\nf,,\r\n")
    got = fe.ratings("unused", str(csv))
    assert got == {"a": (pytest.approx(math.log(0.05)), 0), "b": (pytest.approx(math.log(0.001)), 0),
                   "c": (0.0, 0), "d": (pytest.approx(math.log(0.19)), 1), "e": (pytest.approx(math.log(0.042)), -1)}
    # Errors: a kept bound errs 0, a broken one by how far it is broken, a value as before.
    pred, y, side = np.array([0.5, -1, -1, 3]), np.array([0.0, 0, 0, 1]), np.array([1, 1, -1, 0])
    assert fe.errors(pred, y, side) == pytest.approx([0, -1, 0, 2])


def test_the_kernel_fit_treats_bounds_as_censored(fe):
    rng = np.random.default_rng(3)
    z = rng.normal(size=(14, 4))
    y = z @ np.array([0.8, -0.5, 0.3, 0.0]) + 0.1 * rng.normal(size=14)
    signed = {0: 1}
    new = rng.normal(size=(5, 4))

    def model(rows, targets, side=None):
        fitted = fe.fit(z[rows], targets, 0.3, 1.0, signed, side)
        return fe.predict(new, z[rows], *fitted, 1.0)

    rest = np.arange(13)
    alone = fe.predict(z[13:], z[rest], *fe.fit(z[rest], y[rest], 0.3, 1.0, signed), 1.0)[0]
    # A bound the other rows' fit keeps: the same model as without the row (a row whose target is
    # the fit's own value adds nothing to the objective's minimum).
    slack = np.append(y[rest], alone - 0.5)
    assert model(np.arange(14), slack, np.append(np.zeros(13, int), 1)) == pytest.approx(model(rest, y[rest]), abs=1e-6)
    # A bound it breaks: the same model as with the bound as the row's value.
    tight = np.append(y[rest], alone + 1.0)
    assert model(np.arange(14), tight, np.append(np.zeros(13, int), 1)) == pytest.approx(model(np.arange(14), tight), abs=1e-9)
    # No bound: the fit is the plain one.
    assert model(np.arange(14), y) == pytest.approx(model(np.arange(14), y, np.zeros(14, int)), abs=0)


def test_the_local_interval_is_set_on_the_fitted_levels_own_errors(fe, monkeypatch):
    # Five fitted levels on a line at 0, 1, 2, 10, 11 with errors 1, -1, 1, 4, -4. With one
    # neighbour, each level's spread is its nearest other's |error|: 1, 1, 1, 4, 4 (the far pair
    # predicts each other's large errors), so |error| / spread is 1 everywhere: the scale is 1.
    # With two, the spreads are 1, 1, 1, sqrt((1 + 16) / 2), sqrt((1 + 16) / 2): the Gaussian
    # log-likelihood prefers one. The guessing spread is the top tenth's edge of 1, 1, 1, 4, 4.
    monkeypatch.setattr(fe, "NEIGHBOURS", [1, 2])
    z = np.array([[0.0], [1], [2], [10], [11]])
    err = np.array([1.0, -1, 1, 4, -4])
    k, scale, guessing, spread = fe.local_interval(z, err)
    assert k == 1
    assert spread == pytest.approx([1, 1, 1, 4, 4])
    assert scale == pytest.approx(1)
    assert guessing == pytest.approx(np.quantile([1, 1, 1, 4, 4], 0.9))   # 4: none of the five past it
    # The 1 erring -2: spreads 2, 1 (ties go to the lower row: the 0's error), 2, 4, 4, so the
    # ratios |error| / spread are 0.5, 2, 0.5, 1, 1 and the scale is their 95% quantile, 1.8,
    # which four of the five keep (one neighbour only: with these errors two fit better).
    monkeypatch.setattr(fe, "NEIGHBOURS", [1])
    err2 = np.array([1.0, -2, 1, 4, -4])
    k2, scale2, _, spread2 = fe.local_interval(z, err2)
    assert k2 == 1 and spread2 == pytest.approx([2, 1, 2, 4, 4])
    assert scale2 == pytest.approx(1.8)
    assert np.mean(np.abs(err2) <= scale2 * spread2) == pytest.approx(0.8)


def test_the_guessing_widening_is_the_least_that_puts_95_percent_of_the_flagged_inside(fe):
    # 40 flagged calibration levels: 36 inside at 1, four that need 1.05, 1.24, 1.30 and 2.5 times
    # the half-width. 95% of 40 is 38: the second smallest need, 1.24, is the widening.
    needs = [0.0] * 36 + [1.05, 1.24, 1.30, 2.5]
    inside = lambda w: sum(n <= w for n in needs)
    assert fe.guessing_widening(inside, 40, inside(1.0)) == 1.24
    # Already 95% inside at 1 (38 of 40, two that need 1.3 and 2.5): no widening.
    covered = [0.0] * 38 + [1.30, 2.5]
    assert fe.guessing_widening(lambda w: sum(n <= w for n in covered), 40, 38) == 1.0
    # No flagged level: nothing to widen.
    assert fe.guessing_widening(inside, 0, 0) == 1.0
    # A level no widening up to MOST_WIDENING reaches, among 2 flagged: 95% of 2 is both.
    far = [0.0, fe.MOST_WIDENING + 1]
    assert fe.guessing_widening(lambda w: sum(n <= w for n in far), 2, 1) is None


def test_the_calibration_sets_the_widening_with_the_tool_and_leaves_no_probe(peggle_bin, tmp_path):
    # A small real fit (the 14 rated bundled levels, 3 folds, every feature weighed alike)
    # calibrated on the 25 hand-made ones: 13 of them flagged, 11 inside their interval at 1, 13 at the widening written, 1.12, as
    # `peggle estimate --model` computes them; 1.11 would leave one out. The probe file is gone.
    handmade = sorted(str(p) for p in (ROOT / "Levels" / "handmade").glob("*.json"))
    bundled = sorted(str(p) for p in (ROOT / "Levels").glob("*.json") if p.name != "bench-grid.json")
    out = tmp_path / "model.json"
    env = {**os.environ, "PEGGLE_BIN": peggle_bin, "OPENBLAS_NUM_THREADS": "1"}
    fit = [sys.executable, str(ROOT / "scripts" / "fit-estimate"), "--db", str(ROOT / "Reports" / "difficulty.csv"),
           "--folds", "3", "--signs", "monotone", "--emphasis", "none", *bundled, "--out", str(out)]
    calibration = ROOT / "Levels" / "handmade" / "difficulty.csv"
    r = subprocess.run(fit + ["--calibration-db", str(calibration), "--calibration-levels", *handmade],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "guessing widening 1.12: of 13 flagged calibration levels, 13 inside (11 at 1)" in r.stdout.splitlines()
    model = json.loads(out.read_text())
    assert model["format"] == 5 and model["interval"]["guessing_widening"] == 1.12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]

    rated = {}
    for row in csv.DictReader(open(calibration)):
        rel, v = row["sigma50_relation"], float(row["sigma50_rad"])
        rated[row["level_hash"]] = v if rel == "=" else (0.001 if rel == "<" else 1.0)
    feats = subprocess.run([peggle_bin, "estimate", "--features", *handmade], capture_output=True, text=True, check=True)
    hash_of = {line.split(",")[0]: line.split(",")[2] for line in feats.stdout.splitlines()[1:]}

    def flagged_inside(model_path):
        est = json.loads(subprocess.run([peggle_bin, "estimate", "--json", "--model", str(model_path), *handmade],
                                        capture_output=True, text=True, check=True).stdout)
        flagged = [e for e in est if e["out_of_distribution"]]
        inside = [e for e in flagged if e["sigma50_low"] * (1 - 1e-9) <= rated[hash_of[e["file"]]] <= e["sigma50_high"] * (1 + 1e-9)]
        return len(flagged), len(inside)

    assert flagged_inside(out) == (13, 13)
    model["interval"]["guessing_widening"] = 1.11
    less = tmp_path / "less.json"
    less.write_text(json.dumps(model))
    assert flagged_inside(less) == (13, 12)

    # Each --calibration-db needs its --calibration-levels.
    bad = subprocess.run(fit + ["--calibration-db", str(calibration)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert bad.returncode != 0 and "each --calibration-db needs its --calibration-levels" in bad.stderr


def test_the_emphasis_weighs_the_encoders_and_the_first_sweeps_features_half_and_the_rollouts_one_and_a_half(fe, peggle_bin, tmp_path):
    # The groups, the tool's own (`--feature-list`, in the order of `--features`' columns): the aim
    # encoder's 20 averages and the first sweep's 8 summaries at 0.5, the 10 rollout features at
    # 1.5, the rest (27 of version 5's 65) at 1; `none`, all 1.
    header = subprocess.run([peggle_bin, "estimate", "--features", str(ROOT / "Levels" / "spiral.json")],
                            capture_output=True, text=True, check=True).stdout.splitlines()[0].split(",")[3:]
    listed = fe.feature_list(peggle_bin)
    assert [f["name"] for f in listed["features"]] == header
    e = fe.emphasis([f["group"] for f in listed["features"]], "groups")
    by = {f: sorted(n for n, v in zip(header, e) if v == f) for f in set(e.tolist())}
    assert {f: len(n) for f, n in by.items()} == {0.5: 28, 1.0: len(header) - 38, 1.5: 10}
    assert "aim_first_orange_mean" in by[0.5] and "aim_roughness" in by[0.5] and "aims_caught" in by[0.5]
    assert "rollout_ln_pace" in by[1.5] and "classic_rollout_shortfall" in by[1.5]
    assert "balls" in by[1.0] and "ln_sigma_half" in by[1.0] and "orange_window_ln_min" in by[1.0]
    assert (fe.emphasis([f["group"] for f in listed["features"]], "none") == 1).all()
    # In the written model each feature's scale is its spread over the fitted levels over its
    # factor: the default fit's and `none`'s scales differ by exactly the factor, feature by
    # feature; and the fitted rows the kernel and the distances use are spread by the factor (each
    # column's standard deviation is it, but a feature the same on every level, which stays 0).
    bundled = sorted(str(p) for p in (ROOT / "Levels").glob("*.json") if p.name != "bench-grid.json")
    env = {**os.environ, "PEGGLE_BIN": peggle_bin, "OPENBLAS_NUM_THREADS": "1"}
    models = {}
    for which, flag in (("default", []), ("none", ["--emphasis", "none"])):
        out = tmp_path / f"{which}.json"
        r = subprocess.run([sys.executable, str(ROOT / "scripts" / "fit-estimate"), "--db", str(ROOT / "Reports" / "difficulty.csv"),
                            "--folds", "3", "--signs", "monotone", *flag, *bundled, "--out", str(out)],
                           capture_output=True, text=True, env=env, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        models[which] = json.loads(out.read_text())
    assert np.array(models["none"]["scale"]) / np.array(models["default"]["scale"]) == pytest.approx(e, rel=1e-12)
    # The version and, under --signs monotone, the signs are the tool's too: its four monotone knobs.
    assert models["default"]["features_version"] == listed["version"]
    assert models["default"]["signs"] == [f["monotone"] for f in listed["features"]]
    assert sum(s != 0 for s in models["default"]["signs"]) == 4
    spread = np.array(models["default"]["kernel"]["rows"]).std(0)
    varies = spread > 1e-6
    # The five the 14 levels leave at one value: no purple first hit, the aim column, no late bucket
    # catch, and no beat-the-score rollout falling short.
    assert [n for n, v in zip(header, varies) if not v] == ["aim_first_purple_mean", "aim_aim_abs_mean", "aim_bucket_late_mean",
                                                             "bts_rollout_shortfall", "bts_rollout_other_shortfall"]
    assert spread[varies] == pytest.approx(e[varies], rel=1e-4)
    assert np.array(models["none"]["kernel"]["rows"]).std(0)[varies] == pytest.approx(1, rel=1e-4)


def test_an_emphasis_group_the_tool_does_not_have_is_refused(fe, monkeypatch):
    # A group renamed or removed in the tool's declaration would otherwise weigh nothing, silently.
    monkeypatch.setattr(fe, "EMPHASIS", {**fe.EMPHASIS, "gone": 2.0})
    with pytest.raises(SystemExit, match="gone"):
        fe.emphasis(["aim_encoder", "first_sweep", "rollout", "board"], "groups")
    assert (fe.emphasis(["gone"], "none") == 1).all()
