"""python/examples/rllib_ppo.py runs one RLlib PPO iteration with two env runners on procedural
levels and writes its curve. Needs the `rllib` extra (ray[rllib] pins gymnasium 1.2.2, so the
test requirements leave it out: docs/baselines.md); skipped without it."""
import csv
import math
import os
import subprocess
import sys

import pytest

from conftest import PYTHON

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed: it pins gymnasium 1.2.2, so the test "
                    "requirements leave it out (docs/baselines.md, Tests); pip install -e 'python[rllib]' runs this")


def test_one_iteration_with_two_env_runners(tmp_path, peggle_bin):
    # A subprocess: Ray's local cluster (its raylet, its workers and their servers) is gone when
    # the example exits, and none of it is this test process's child.
    subprocess.run([sys.executable, str(PYTHON / "examples" / "rllib_ppo.py"), "--iterations", "1",
                    "--batch", "128", "--minibatch", "64", "--epochs", "1", "--env-runners", "2",
                    "--envs-per-runner", "1", "--hidden", "32,32", "--num-cpus", "2", "--out", str(tmp_path)],
                   env={**os.environ, "PEGGLE_BIN": str(peggle_bin)}, check=True, timeout=600,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(tmp_path / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1
    row = rows[0]
    assert int(row["timesteps"]) >= 128 and float(row["steps_per_s"]) > 0
    # Episodes are about a dozen shots, so 128 steps end several; each one was logged as won or not.
    assert int(row["episodes"]) >= 2
    assert 0 <= float(row["win_rate"]) <= 1 and math.isfinite(float(row["episode_return_mean"]))
