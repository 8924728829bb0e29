"""RL Zoo (rl_zoo3) trains the shipped recipe (peggle_gym/rl_zoo/ppo.yml: PPO with AimPolicy on
the aim observation) out of the box, and its evaluation records the success rate
(info["is_success"] at each episode's end). A few thousand steps: it checks the plumbing, not
that it learns (docs/baselines.md measures that)."""
import os
import subprocess
import sys

import numpy as np

from conftest import PYTHON
import peggle_gym.rl_zoo as zoo


def test_rl_zoo_trains_the_shipped_recipe_and_evaluates_success(tmp_path, peggle_bin):
    env = {**os.environ, "PEGGLE_BIN": peggle_bin,
           "PYTHONPATH": os.pathsep.join([str(PYTHON), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "rl_zoo3.train", "--algo", "ppo", "--env", "peggle_gym/Peggle-v1",
           "--gym-packages", "peggle_gym", "--conf-file", zoo.PPO, "-n", "512", "--seed", "0",
           # Two environments of 128 steps a rollout instead of the recipe's 8 x 256, to keep CI short.
           "--hyperparams", "n_envs:2", "n_steps:128", "batch_size:64",
           "--eval-freq", "256", "--eval-episodes", "4", "--n-eval-envs", "1",
           "--log-folder", str(tmp_path), "--device", "cpu",
           "--eval-env-kwargs", "encoder:'aim'", "action:'discrete'", "distribution_mode:'easy'",
           "start_level:100000", "num_levels:100"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    runs = list(tmp_path.glob("ppo/peggle_gym-Peggle-v1_*"))
    assert len(runs) == 1, runs
    # Two evaluations (after 256 and 512 steps) of 4 episodes, each with its success flag.
    evaluations = np.load(runs[0] / "evaluations.npz")
    assert list(evaluations["timesteps"]) == [256, 512]
    assert evaluations["successes"].shape == (2, 4)
    assert set(np.unique(evaluations["successes"])) <= {0, 1}
    assert (runs[0] / "peggle_gym-Peggle-v1.zip").exists()
    # The recipe's observation and policy reached the model.
    assert "AimPolicy" in (runs[0] / "peggle_gym-Peggle-v1" / "config.yml").read_text()
