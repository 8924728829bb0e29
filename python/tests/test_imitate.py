"""python/baselines/imitate.py (docs/lab/2026-12-06-imitating-greedy.md): the teacher's labels
are greedy's choices, and a small cloned policy learns them.

- Without aim noise, the teacher over greedy's own coarse sweep (31 angles, -1.5 + 0.1 k) picks
  the first shot the engine's greedy agent picks (`peggle play --agent greedy --candidates 31
  --refine 0x0 --sigma 0`), on a classic and a dodge level: the Python `ShotValue` and tie rule
  are the engine's.
- Under aim noise, each labelled bin's value is the mean of its 8 offsets' shots replayed from a
  fresh reset (no snapshot), and the label (the best set) holds the teacher's choice.
- Behaviour cloning on a few labelled states lowers the set cross-entropy and fits the labels.
"""
import importlib.util
import json
import subprocess

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from peggle_gym import PeggleEnv, find_peggle  # noqa: E402
from conftest import PYTHON, ROOT  # noqa: E402

spec = importlib.util.spec_from_file_location("baselines_imitate", PYTHON / "baselines" / "imitate.py")
imitate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(imitate)


@pytest.mark.parametrize("level", ["first-steps", "gauntlet"])
def test_teacher_is_greedy_without_noise(level):
    path = str(ROOT / "Levels" / f"{level}.json")
    out = subprocess.run([find_peggle(), "play", path, "--agent", "greedy", "--sigma", "0", "--candidates", "31",
                          "--refine", "0x0", "--episodes", "1", "--threads", "1", "--json"],
                         check=True, capture_output=True, text=True).stdout
    engine_first = json.loads(out)["episodes"][0]["angles"][0]
    mode = json.loads((ROOT / "Levels" / f"{level}.json").read_text())["mode"]["type"]
    teacher = imitate.Teacher({"levels": [path], "bucket_start": "centre"}, sigma=0.0, sweep=31)
    try:
        teacher.env.reset(seed=0)
        values, full = teacher.values(mode)
    finally:
        teacher.close()
    assert full.all() and teacher.shots == 31
    choice = imitate.teacher_choice(values, teacher.angles)
    assert teacher.angles[choice] == engine_first, (mode, values)


def test_noisy_labels_are_replayed_means():
    options = {"num_levels": 5, "start_level": 0, "distribution_mode": "easy"}
    mode = imitate.level_modes(options, 3)[2]
    teacher = imitate.Teacher(options)
    prefix = [0.31]  # one shot first, so the label is of a state inside a game
    try:
        teacher.env.reset(seed=7, options={"level": 2})
        for a in prefix:
            teacher.fire(a)
        values, full = teacher.values(mode)
    finally:
        teacher.close()
    assert 2 <= full.sum() <= 31 and np.isnan(values[~full]).all()
    choice = imitate.teacher_choice(values)
    assert imitate.best_set(values)[choice] and values[choice] == np.nanmax(values)
    # Recompute three kept bins (the choice among them) from scratch: reset, replay, fire.
    kw = {**imitate.V1_KWARGS, **options, "aim_noise": 0.0, "encoder": "aim", "action": "continuous"}
    with PeggleEnv(**kw) as env:
        for b in [choice] + [b for b in np.flatnonzero(full) if b != choice][:2]:
            total = 0.0
            for z in imitate.OFFSETS:
                env.reset(seed=7, options={"level": 2})
                for a in prefix:
                    env.step(np.array([a / 1.5], np.float32))
                angle = np.clip(imitate.ANGLES[b] + 0.02 * z, -1.5, 1.5)
                _, _, _, _, info = env.step(np.array([angle / 1.5], np.float32))
                total += imitate.shot_value(info, mode)
            assert total / len(imitate.OFFSETS) == pytest.approx(values[b], rel=1e-12, abs=1e-9), b


def test_cloning_lowers_the_loss():
    rng = np.random.default_rng(0)
    # Boards whose values are feature 0 plus feature 7 of each row (a rule the network can learn
    # from the rows alone); half the rows are empty, so the low values tie.
    obs = (rng.random((256, imitate.BINS, imitate.FEATURES)) * (rng.random((256, imitate.BINS, 1)) < 0.5)).astype(np.float32)
    values = obs[:, :, 0].astype(np.float64) + obs[:, :, 7]
    mask = np.stack([imitate.best_set(v) for v in values])
    assert (mask.sum(1) == 1).all()
    import torch as th
    th.set_num_threads(1)
    model, history = imitate.train_policy(obs[:200], values[:200], seed=0, epochs=20, hidden=16, lr=5e-3, batch=50,
                                          val_obs=obs[200:], val_values=values[200:])
    first, last = history[0], history[-1]
    assert last["train_loss"] < 0.5 * first["train_loss"], history
    assert last["val_accuracy"] > 0.8 and last["val_accuracy"] > first["val_accuracy"] + 0.3, history
    assert last["val_regret"] < 0.5 * first["val_regret"], history
    # What the saved model plays is what was trained: its argmax on the held-out boards.
    acts = imitate.argmax_actions(model.policy, obs[200:])
    assert mask[200:][np.arange(56), acts].mean() == pytest.approx(last["val_accuracy"], abs=1e-4)
