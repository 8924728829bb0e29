"""Hyperparameter files for RL Zoo (rl_zoo3), shipped with the package: pass one to
``python -m rl_zoo3.train --conf-file``. `PPO` is the path of ``ppo.yml`` (PPO with
`peggle_gym.sb3.AimPolicy` on the ``aim`` observation; python/README.md)."""
import pathlib

#: ppo.yml: PPO ranking the aim rows on easy procedural levels 0-199 under Peggle-v1.
PPO = str(pathlib.Path(__file__).resolve().parent / "ppo.yml")
