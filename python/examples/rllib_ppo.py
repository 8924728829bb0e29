"""PPO with RLlib on Peggle-v1 procedural levels: several env runners, each holding its own
`peggle serve` processes through `peggle_gym` (docs/distributed.md, docs/baselines.md).

    pip install -e "python[rllib]"
    PEGGLE_BIN=$PWD/.build/release/peggle python python/examples/rllib_ppo.py --minutes 12 --out out/rllib

On a cluster, start Ray there and pass `--address auto`: each env runner is a Ray actor on some
machine, and each of its environments starts a server from the `peggle` binary that machine
has (PEGGLE_BIN, or `peggle` on its PATH). Uses RLlib's new API stack (RLModule, Learner,
EnvRunner). Writes one CSV row per training iteration.
"""
from __future__ import annotations

import argparse
import csv
import os
import pathlib
import sys
import time

PYTHON = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PYTHON))  # run from a checkout without installing peggle_gym

import ray  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.callbacks.callbacks import RLlibCallback  # noqa: E402
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig  # noqa: E402
from ray.tune.registry import register_env  # noqa: E402

import peggle_gym  # noqa: E402
from peggle_gym import V1_KWARGS  # noqa: E402

FIELDS = ["iteration", "timesteps", "seconds", "steps_per_s", "episodes", "episode_return_mean", "win_rate",
          "episode_len_mean", "load1"]


def make_peggle(env_config: dict):
    """The env creator RLlib calls in each env runner: imported there, so every environment of
    every runner starts its own server in that runner's process."""
    import peggle_gym
    return peggle_gym.PeggleEnv(**env_config)


class WinRate(RLlibCallback):
    """Logs whether each episode was won (the last step's info), as a mean over the last 100."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        won = bool(episode.get_infos(-1).get("won", False))
        metrics_logger.log_value("win_rate", float(won), reduce="mean", window=100)


def build_config(args) -> PPOConfig:
    env_config = {**V1_KWARGS, "distribution_mode": args.distribution, "num_levels": args.num_levels,
                  "start_level": 0}
    return (PPOConfig()
            .environment("peggle", env_config=env_config)
            .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner,
                         rollout_fragment_length="auto")
            .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                      num_epochs=args.epochs, lr=3e-4)
            .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=args.hidden))
            .learners(num_learners=0)  # the learner runs in the driver process
            .callbacks(WinRate)
            .debugging(seed=args.seed))


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env-runners", type=int, default=2)
    p.add_argument("--envs-per-runner", type=int, default=4)
    p.add_argument("--batch", type=int, default=4000, help="environment steps per training iteration")
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", type=lambda t: [int(x) for x in t.split(",")], default=[256, 256],
                   help="hidden layer sizes, e.g. 64,64 (SB3's MlpPolicy); default RLlib's 256,256")
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--minutes", type=float, default=None, help="stop after the iteration that passes this")
    p.add_argument("--num-levels", type=int, default=200, help="train level seeds [0, N)")
    p.add_argument("--distribution", choices=["easy", "hard"], default="easy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-cpus", type=int, default=None, help="for a local Ray (default: the machine's)")
    p.add_argument("--address", default=None, help="an existing Ray cluster (e.g. auto)")
    p.add_argument("--out", help="folder for curve.csv")
    args = p.parse_args(argv)

    # Env runners are other processes (on other machines, on a cluster): Ray ships them this
    # peggle_gym (py_modules), and they find the binary the driver was told about.
    runtime_env = {"py_modules": [str(pathlib.Path(peggle_gym.__file__).parent)]}
    if os.environ.get("PEGGLE_BIN"):
        runtime_env["env_vars"] = {"PEGGLE_BIN": os.environ["PEGGLE_BIN"]}
    ray.init(address=args.address, num_cpus=args.num_cpus, include_dashboard=False, runtime_env=runtime_env,
             log_to_driver=False)
    register_env("peggle", make_peggle)
    rows: list[dict] = []
    algo = build_config(args).build_algo()
    out = pathlib.Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        for i in range(1, args.iterations + 1):
            result = algo.train()
            runners = result["env_runners"]
            seconds = time.perf_counter() - start
            steps = int(result["num_env_steps_sampled_lifetime"])
            rows.append({"iteration": i, "timesteps": steps, "seconds": round(seconds, 1),
                         "steps_per_s": round(steps / seconds, 1),
                         "episodes": int(runners.get("num_episodes_lifetime", 0)),
                         "episode_return_mean": round(float(runners.get("episode_return_mean", float("nan"))), 4),
                         "win_rate": round(float(runners.get("win_rate", float("nan"))), 4),
                         "episode_len_mean": round(float(runners.get("episode_len_mean", float("nan"))), 2),
                         "load1": round(os.getloadavg()[0], 2)})
            print(rows[-1], flush=True)
            if out:
                with open(out / "curve.csv", "w", newline="") as f:
                    w = csv.DictWriter(f, FIELDS)
                    w.writeheader()
                    w.writerows(rows)
            if args.minutes is not None and seconds > 60 * args.minutes:
                break
    finally:
        algo.stop()
        ray.shutdown()
    return rows


if __name__ == "__main__":
    main()
