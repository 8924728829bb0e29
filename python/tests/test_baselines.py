"""python/baselines/run.py end to end at toy sizes: train writes a learning curve and a model,
eval writes win rates with a Wilson interval on the held-out levels (the same levels for a
trained policy and for `peggle play`), plot writes SVG (and PNG when rsvg-convert is there)."""
import csv
import importlib.util
import json
import math
import shutil
import xml.etree.ElementTree as ET

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
