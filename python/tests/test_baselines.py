"""python/baselines/run.py end to end at toy sizes: train writes a learning curve and a model,
eval writes win rates with a Wilson interval on the held-out levels (the same levels for a
trained policy and for `peggle play`), plot writes SVG (and PNG when rsvg-convert is there)."""
import csv
import importlib.util
import json
import math
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import PYTHON

pytest.importorskip("stable_baselines3")


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("baselines_run", PYTHON / "baselines" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wilson_matches_hand_computed_values(run):
    # 7 of 20 by hand: centre (0.35 + z²/40) / (1 + z²/20) = 0.37417, half-width 0.19298.
    low, high = run.wilson(7, 20)
    assert low == pytest.approx(0.181195, abs=1e-5) and high == pytest.approx(0.567149, abs=1e-5)
    # Textbook values (Newcombe 1998): 0 of 10 is 0 to 0.2775, 50 of 100 is 0.4038 to 0.5962.
    assert run.wilson(0, 10) == (0.0, pytest.approx(0.27753, abs=1e-5))
    assert run.wilson(50, 100) == (pytest.approx(0.40383, abs=1e-5), pytest.approx(0.59617, abs=1e-5))
    assert run.wilson(10, 10)[1] == 1.0 and run.wilson(0, 0) == (0.0, 1.0)


def test_train_eval_and_plot_end_to_end(run, tmp_path, peggle_bin):
    out = tmp_path / "ppo"
    run.main(["train", "--algo", "ppo", "--timesteps", "512", "--n-envs", "2", "--num-levels", "20",
              "--log-every", "128", "--hyper", '{"n_steps": 128, "batch_size": 64, "n_epochs": 1}',
              "--out", str(out)])
    with open(out / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == run.CURVE_FIELDS
    steps = [int(r["timesteps"]) for r in rows]
    assert steps == sorted(set(steps)) and steps[0] >= 128 and steps[-1] >= 512 and len(rows) >= 4
    assert all(0 <= float(r["win_rate"]) <= 1 for r in rows if r["win_rate"])
    assert all(float(r["steps_per_s"]) > 0 for r in rows)
    config = json.loads((out / "config.json").read_text())
    assert config["trained_timesteps"] == steps[-1] and config["env_kwargs"]["aim_noise"] == 0.02
    assert config["params"] == {"n_steps": 128, "batch_size": 64, "n_epochs": 1}
    assert (out / "model.zip").stat().st_size > 0

    model_eval = run.main(["eval", "--model", str(out), "--episodes", "3", "--out", str(tmp_path / "m.json")])
    agent_eval = run.main(["eval", "--agent", "random", "--episodes", "3", "--out", str(tmp_path / "a.json")])
    for result in (model_eval, agent_eval):
        saved = json.loads((tmp_path / ("m.json" if result is model_eval else "a.json")).read_text())
        assert saved["episodes"] == 3 and len(saved["per_episode"]) == 3
        assert saved["win_low"] <= saved["win_rate"] <= saved["win_high"]
        assert (saved["win_low"], saved["win_high"]) == pytest.approx(run.wilson(saved["wins"], 3))
        assert [e["level_seed"] for e in saved["per_episode"]] == [run.TEST_START + k for k in range(3)]
    # The built-in agent's level files are the levels the environment generates for those seeds.
    assert [e["level"] for e in model_eval["per_episode"]] == [e["level"] for e in agent_eval["per_episode"]]
    # --level K: one held-out level for every seed; under v1 the seeds still play their own episodes.
    one_level = run.main(["eval", "--model", str(out), "--episodes", "3", "--level", "1"])
    assert {e["level_seed"] for e in one_level["per_episode"]} == {run.TEST_START + 1}
    assert one_level["distinct_levels"] == 1 and one_level["distinct_trajectories"] == 3
    on_train = run.main(["eval", "--model", str(out), "--episodes", "2", "--start-level", "0"])
    assert [e["level_seed"] for e in on_train["per_episode"]] == [0, 1]

    written = run.main(["plot", str(out), str(out), "--ref", "greedy=0.9", "--out", str(tmp_path / "img" / "c")])
    svgs = [p for p in written if p.suffix == ".svg"]
    assert len(svgs) == 3
    for svg in svgs:
        root = ET.parse(svg).getroot()
        lines = root.findall("{http://www.w3.org/2000/svg}polyline")
        assert len(lines) == 2 and all(len(p.get("points").split()) == len([r for r in rows if r["ep_return_mean"]]) for p in lines)
    if shutil.which("rsvg-convert"):
        assert sum(p.suffix == ".png" for p in written) == 3


# ------------------------------------------------------------------------------------ report

def write_eval(path, split, group, seed, wins_by_episode):
    """A hand-made evaluation file as `run.py eval --split` writes it: `wins_by_episode` maps
    (level index, seed) to won."""
    episodes = [{"seed": s, "level_index": k, "level_seed": 100_000 + k, "level": f"Arcs {100_000 + k} (easy)",
                 "won": won, "score": 0, "shots": 1, "return": None, "trajectory": f"{k}-{s}"}
                for (k, s), won in wins_by_episode.items()]
    kind = "builtin" if seed is None else "learned"
    result = {"agent": group, "split": split, "run_seed": seed, "episodes": len(episodes),
              "wins": sum(wins_by_episode.values()),
              "group": {"kind": kind, "key": group, "label": group, "trained_on": "-" if seed is None else split},
              "training": None if seed is None else {"seconds": 600 + 60 * seed, "cpu_seconds": 900},
              "per_episode": episodes}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))


def hand_made_runs(root):
    """Two splits of runs whose statistics are worked out by hand in the test below.

    hard-v1, 3 levels, 1 episode each: learned A, 2 runs, wins [0, 0, 0] and [1, 1, 1]; built-in
    Y wins [0, 1, 0]. easy-v1, 4 levels, 2 episodes each: learned B, 2 identical runs winning
    levels 0 and 1 twice, level 2 once, level 3 never (level rates 1, 1, 0.5, 0); learned C,
    one run."""
    hard = [(k, k) for k in range(3)]
    for seed, won in ((0, False), (1, True)):
        write_eval(root / "A" / f"seed-{seed}" / "eval-hard-v1.json", "hard-v1", "A", seed, {e: won for e in hard})
    write_eval(root / "builtin" / "eval-hard-v1.json", "hard-v1", "Y", None, dict(zip(hard, [False, True, False])))
    easy = [(k, 100 * r + k) for r in range(2) for k in range(4)]
    rates = {0: 2, 1: 2, 2: 1, 3: 0}  # wins out of 2 per level
    for seed in (0, 1):
        write_eval(root / "B" / f"seed-{seed}" / "eval-easy-v1.json", "easy-v1", "B", seed,
                   {(k, s): s // 100 < rates[k] for k, s in easy})
    write_eval(root / "C" / "seed-0" / "eval-easy-v1.json", "easy-v1", "C", 0, {e: True for e in easy})


def test_probability_of_improvement_is_rliables_bit_for_bit(run):
    # The report's counted P(X > Y) must be the very float rliable's Mann-Whitney loop gives, so
    # a cached result and a recomputed one never differ: win rates of 10 episodes (many ties),
    # unequal run counts, and a level where both agents' runs are identical (rliable's 0.5 case).
    from rliable import metrics
    rng = np.random.default_rng(3)
    for runs_x, runs_y in ((5, 5), (5, 3), (1, 4)):
        x = rng.integers(0, 11, (runs_x, 40)) / 10
        y = rng.integers(0, 11, (runs_y, 40)) / 10
        if runs_x == runs_y:
            y[:, 7] = x[:, 7]
        assert run.probability_of_improvement(x, y) == metrics.probability_of_improvement(x, y)
    assert run.probability_of_improvement(np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])) == 0.5


def test_report_statistics_match_hand_computed_values(run, tmp_path):
    hand_made_runs(tmp_path)
    # 5,000 replications keep every quantile below far from the next value (each extreme has
    # probability 1/64, 78 draws expected against the 125 the 2.5% point passes).
    data = run.report_data([str(tmp_path)], min_runs=2, reps=5_000, profile_reps=200, modes=False)
    hard, easy = data["hard-v1"]["stats"], data["easy-v1"]["stats"]
    # A: scores [[0,0,0],[1,1,1]]; mean 0.5, IQM the mean of the middle four of six sorted, 0.5.
    # The stratified bootstrap resamples A's two runs within each level: each level's mean is 0, 1/2
    # or 1 (1/4, 1/2, 1/4), so the mean of the three is 0 with probability 1/64 (< 2.5%) and at
    # most 1/6 with 7/64: the 95% interval is [1/6, 5/6]. The IQM's: m ones of six, Binomial(6, 1/2),
    # give (m - 1)/4 for 0 < m < 6, so [0, 1].
    assert hard["A"]["mean"] == pytest.approx(0.5) and hard["A"]["iqm"] == pytest.approx(0.5)
    assert hard["A"]["mean_ci"] == pytest.approx([1 / 6, 5 / 6]) and hard["A"]["iqm_ci"] == pytest.approx([0, 1])
    # P(A > Y) per level (Mann-Whitney, ties half): 0.75, 0.25, 0.75, mean 7/12. Resampled, each
    # level moves by 0, 1/4 or 1/2 above its least (1/2, 0, 1/2) with 1/4, 1/2, 1/4: the interval
    # is 1/3 + 1/12 to 1/3 + 5/12.
    poi = hard["A"]["poi"]["Y"]
    assert poi["p"] == pytest.approx(7 / 12) and poi["ci"] == pytest.approx([5 / 12, 3 / 4])
    assert hard["Y"]["mean"] == pytest.approx(1 / 3) and hard["Y"]["iqm"] == pytest.approx(1 / 3)
    # B: level rates [1, 1, 0.5, 0] in both runs; sorted 0, 0, .5, .5, 1, 1, 1, 1, the middle four
    # average 0.75 (the mean is 0.625); identical runs leave the bootstrap nothing to move.
    assert easy["B"]["iqm"] == pytest.approx(0.75) and easy["B"]["mean"] == pytest.approx(0.625)
    assert easy["B"]["iqm_ci"] == pytest.approx([0.75, 0.75]) and easy["B"]["mean_ci"] == pytest.approx([0.625] * 2)
    # Profiles: the share of (run, level) pairs above tau.
    assert [easy["B"]["profile"][t] for t in (0.0, 0.25, 0.5, 0.75)] == pytest.approx([0.75, 0.75, 0.5, 0.5])
    assert hard["A"]["profile"][0.0] == pytest.approx(0.5) and hard["Y"]["profile"][0.5] == pytest.approx(1 / 3)
    # C has one run, fewer than --min-runs: left out, and said so.
    assert "C" not in easy and any(note.startswith("C (trained on easy-v1): 1 run(s), fewer than 2")
                                   for note in data["easy-v1"]["notes"])


def test_report_writes_the_docs_tables_between_its_markers(run, tmp_path, peggle_bin):
    hand_made_runs(tmp_path / "runs")
    doc = tmp_path / "doc.md"
    doc.write_text(f"# Title\n\nbefore\n\n{run.REPORT_BEGIN}\nold tables\n{run.REPORT_END}\n\nafter\n")
    run.main(["report", str(tmp_path / "runs"), "--min-runs", "2", "--doc", str(doc), "--reps", "2000",
              "--profile-reps", "100", "--poi-reps", "1000", "--images", str(tmp_path / "img" / "profile")])
    text = doc.read_text()
    assert text.startswith("# Title\n\nbefore\n\n" + run.REPORT_BEGIN) and text.endswith(run.REPORT_END + "\n\nafter\n")
    assert "old tables" not in text
    # hard-v1's test levels 0 to 2 (seeds 100,000 to 100,002) are classic, dodge, classic, by the
    # generator: A's runs win every level or none, Y only the dodge level.
    assert "| agent | trained on | runs | IQM [95% CI] | mean win rate [95% CI] | classic (2) | dodge (1) |" in text
    assert ("| A | hard-v1 | 2 | 0.50 [0.00, 1.00] | 0.50 [0.17, 0.83] | 0.50 (0.00-1.00) | 0.50 (0.00-1.00) "
            "| 10-11 (15-15) |") in text
    assert "| Y | - | 1 | 0.33 | 0.33 (Wilson [0.06, 0.79]) | 0.00 | 1.00 | - |" in text
    assert "| A, hard-v1 | 0.58 [0.42, 0.75] |" in text
    assert text.index("### easy-v1") < text.index("### hard-v1")
    assert "Not shown: C (trained on easy-v1): 1 run(s), fewer than 2: left out." in text
    assert "![performance profile, hard-v1](img/profile-hard-v1." in text
    svg = tmp_path / "img" / "profile-hard-v1.svg"
    lines = ET.parse(svg).getroot().findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 2 and all(len(p.get("points").split()) == len(run.PROFILE_CHART_TAUS) for p in lines)


def test_report_refuses_what_it_cannot_compare(run, tmp_path):
    hand_made_runs(tmp_path)
    # An evaluation of other episodes of the same split.
    write_eval(tmp_path / "D" / "seed-0" / "eval-hard-v1.json", "hard-v1", "D", 0, {(0, 0): True, (1, 1): True})
    with pytest.raises(ValueError, match=r"played other episodes of hard-v1 than .* \(2 against 3\)"):
        run.report_data([str(tmp_path)], min_runs=2)
    (tmp_path / "D" / "seed-0" / "eval-hard-v1.json").unlink()
    # The same seed of one configuration twice (a copied folder).
    shutil.copytree(tmp_path / "A" / "seed-0", tmp_path / "A" / "seed-0-copy")
    with pytest.raises(ValueError, match=r"seed 0 of A is evaluated twice"):
        run.report_data([str(tmp_path)], min_runs=2)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"no split evaluations"):
        run.report_data([str(tmp_path / "empty")])
    with pytest.raises(ValueError, match=r"'/nonexistent' does not exist"):
        run.report_data(["/nonexistent"])


def test_seeds_are_parsed_and_bad_ones_refused(run):
    assert run.parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert run.parse_seeds("0,3,7") == [0, 3, 7] and run.parse_seeds("2") == [2]
    for bad in ("a-b", "4-", "-1", "1,1", "3-1", ""):
        with pytest.raises(ValueError, match=f"--seeds {bad!r}"):
            run.parse_seeds(bad)


def test_split_runs_over_seeds_evaluated_with_the_builtin_agents_on_the_same_levels(run, tmp_path, peggle_bin):
    """train --split --seeds: one folder per seed on the split's train levels; eval --split on
    a run series and on a built-in agent: the same episodes, on levels of the same names; the
    report compares them."""
    from peggle_gym.splits import HELD_OUT_TEMPLATES, TRAIN_TEMPLATES
    out = tmp_path / "ppo-aim"
    tiny = ["--timesteps", "256", "--n-envs", "2", "--log-every", "128",
            "--hyper", '{"n_steps": 128, "batch_size": 64, "n_epochs": 1}']
    configs = run.main(["train", "--algo", "ppo", "--encoder", "aim", "--split", "xt-easy-v1", "--seeds", "0-1",
                        *tiny, "--out", str(out)])
    assert [c["seed"] for c in configs] == [0, 1] and all(c["split"] == "xt-easy-v1" for c in configs)
    for seed in (0, 1):
        config = json.loads((out / f"seed-{seed}" / "config.json").read_text())
        assert config["env_kwargs"]["templates"] == list(TRAIN_TEMPLATES)
        assert (config["env_kwargs"]["num_levels"], config["env_kwargs"]["start_level"]) == (200, 0)
        assert config["cpu_seconds"] > 0 and config["trained_timesteps"] == 256
    # A finished seed is not trained again (a stopped series resumes where it stopped).
    stamp = (out / "seed-0" / "model.zip").stat().st_mtime_ns
    run.main(["train", "--algo", "ppo", "--encoder", "aim", "--split", "xt-easy-v1", "--seeds", "0", *tiny,
              "--out", str(out)])
    assert (out / "seed-0" / "model.zip").stat().st_mtime_ns == stamp

    quick = ["--split", "xt-easy-v1", "--levels", "3", "--repeats", "2"]
    models = run.main(["eval", "--model", str(out), *quick])
    agent = run.main(["eval", "--agent", "random", *quick, "--out", str(tmp_path / "builtin" / "eval-xt-easy-v1.json")])
    episodes = [(0, 0), (1, 1), (2, 2), (0, 100), (1, 101), (2, 102)]
    for result in (*models, agent):
        assert [(e["level_index"], e["seed"]) for e in result["per_episode"]] == episodes
        assert [e["level_seed"] for e in result["per_episode"]] == [100_000 + k for k, _ in episodes]
        assert {e["level"].split(" ")[0].lower() for e in result["per_episode"]} <= set(HELD_OUT_TEMPLATES)
        # The built-in agent's level files are the levels the environment plays, seed by seed.
        assert [e["level"] for e in result["per_episode"]] == [e["level"] for e in agent["per_episode"]]
    assert [m["run_seed"] for m in models] == [0, 1] and (out / "seed-1" / "eval-xt-easy-v1.json").exists()

    data = run.report_data([str(tmp_path)], min_runs=2, reps=200, profile_reps=50, poi_reps=50)
    groups = data["xt-easy-v1"]["groups"]
    assert sorted(data["xt-easy-v1"]["modes"]) == [0, 1, 2]
    assert set(data["xt-easy-v1"]["modes"].values()) <= {"classic", "beat_the_score", "dodge"}
    assert sorted(g["kind"] for g in groups.values()) == ["builtin", "learned"]
    learned = next(g for g in groups.values() if g["kind"] == "learned")
    assert learned["scores"].shape == (2, 3) and learned["trained_on"] == "xt-easy-v1"
    assert set(data["xt-easy-v1"]["stats"][learned["key"]]["poi"]) == {"random"}


def test_split_options_refuse_what_the_split_fixes(run, tmp_path):
    with pytest.raises(ValueError, match=r"unknown split 'easy'; known splits: easy-v1, hard-v1"):
        run.main(["train", "--algo", "ppo", "--split", "easy", "--out", str(tmp_path / "x")])
    with pytest.raises(ValueError, match=r"--distribution hard: the split easy-v1 sets the train levels"):
        run.main(["train", "--algo", "ppo", "--split", "easy-v1", "--distribution", "hard", "--out", str(tmp_path / "x")])
    with pytest.raises(ValueError, match=r"--episodes 5: the split hard-v1 fixes the test levels and episodes"):
        run.main(["eval", "--agent", "greedy", "--split", "hard-v1", "--episodes", "5"])
    with pytest.raises(ValueError, match=r"--levels 101: the split easy-v1 has 1 to 100"):
        run.main(["eval", "--agent", "greedy", "--split", "easy-v1", "--levels", "101"])
    with pytest.raises(ValueError, match=r"--eval evaluates on the training split's test part: give --split"):
        run.main(["train", "--algo", "ppo", "--eval", "--out", str(tmp_path / "x")])
    assert not (tmp_path / "x").exists()


def test_report_cache_gives_the_same_figures_without_computing_again(run, tmp_path, monkeypatch):
    hand_made_runs(tmp_path / "runs")
    cache = tmp_path / "cache.json"
    first = run.report_data([str(tmp_path / "runs")], min_runs=2, reps=500, profile_reps=50, poi_reps=100,
                            cache=str(cache), modes=False)
    assert cache.exists()
    from rliable import library

    def refuse(*args, **kwargs):
        raise AssertionError("computed again")
    monkeypatch.setattr(library, "get_interval_estimates", refuse)
    monkeypatch.setattr(library, "create_performance_profile", refuse)
    again = run.report_data([str(tmp_path / "runs")], min_runs=2, reps=500, profile_reps=50, poi_reps=100,
                            cache=str(cache), modes=False)
    assert {s: d["stats"] for s, d in again.items()} == {s: d["stats"] for s, d in first.items()}
    # Other replications, or other scores, are not in the cache.
    with pytest.raises(AssertionError, match="computed again"):
        run.report_data([str(tmp_path / "runs")], min_runs=2, reps=501, profile_reps=50, poi_reps=100, cache=str(cache),
                        modes=False)
    write_eval(tmp_path / "runs" / "builtin" / "eval-hard-v1.json", "hard-v1", "Y", None,
               dict(zip([(k, k) for k in range(3)], [True, True, False])))
    with pytest.raises(AssertionError, match="computed again"):
        run.report_data([str(tmp_path / "runs")], min_runs=2, reps=500, profile_reps=50, poi_reps=100, cache=str(cache),
                        modes=False)


def test_exported_networks_of_one_recipe_group_as_its_seeds(run, tmp_path):
    """`eval --agent mlp:FILE` of files exported from training runs: the seeds of one
    configuration (and the same row extras and search) are one learned row; another search, or a
    file without its training config, is a row of its own."""
    def policy(name, seed, search=None, training=True):
        doc = {"format": 2, "kind": "mlp", "encoder": {"bins": 31}, "row_extras": ["mode_one_hot"],
               "source": {"training": {"method": "bc", "trained_on": "easy-v1 + hard-v1 (train levels)", "algo": "ppo",
                                       "seed": seed, "epochs": 20, "tau": 300.0, "seconds": 100 + seed}} if training else {}}
        if search:
            doc["search"] = {"bins": search[0], "samples": search[1]}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        return f"mlp:{path}"
    (g0, s0), (g1, s1) = run.agent_group(policy("a", 0, (8, 4))), run.agent_group(policy("b", 1, (8, 4)))
    assert (s0, s1) == (0, 1) and g0 == g1 and g0["kind"] == "learned"
    assert g0["label"] == "`mlp:FILE` (BC + DAgger of greedy + mode + search 8x4), `aim`, native"
    assert g0["trained_on"] == "easy-v1 + hard-v1 (train levels)"
    other, _ = run.agent_group(policy("c", 0, (4, 4)))
    assert other["key"] != g0["key"]
    bare = policy("d", 0, training=False)
    assert run.agent_group(bare) == ({"kind": "builtin", "key": bare, "label": f"{bare} (peggle play)", "trained_on": "-"}, None)
    assert run.agent_group("greedy") == ({"kind": "builtin", "key": "greedy", "label": "greedy (peggle play)",
                                          "trained_on": "-"}, None)
