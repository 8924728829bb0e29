"""Would EnvPool's asynchronous form pay here? A policy in the loop, with and without overlap.

    python3 python/bench_overlap.py                  # Fortress, 64 envs, a 64x64 MLP, 5 rounds

Issue 47 item 5 asks for `send(actions, env_ids)` / `recv()` only if it is measured faster with a
policy in the loop. This measures what it could give before building it, on the native backend:

- **sync**: one `PeggleVectorEnv` of N environments on T threads; each step the policy (a torch
  MLP over the observations, on T torch threads) picks the actions, then the engine steps.
- **overlap**: the same N environments as `PeggleAsyncVectorEnv(N, batch_size=N/2)`: two
  groups, each stepped on one engine thread by a worker thread of its own (the engine releases
  the GIL), while the policy (one torch thread) runs on the group `recv()` returned: the cores
  shared between the engine and the policy instead of both going to each in turn.

Both take the same number of shots (N per step, next-step autoreset aside); the figure is shots
per second, median over interleaved rounds.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from peggle_gym import PeggleAsyncVectorEnv, PeggleVectorEnv  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def policy_for(size: int, threads: int):
    import torch
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(size, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh(),
                              torch.nn.Linear(64, 1), torch.nn.Tanh())

    def act(obs: np.ndarray) -> np.ndarray:
        torch.set_num_threads(threads)  # torch's setting is global: each policy sets its own
        with torch.no_grad():
            return net(torch.from_numpy(obs)).numpy()
    return act


def sync(level: str, envs: int, threads: int, steps: int, act) -> float:
    env = PeggleVectorEnv(num_envs=envs, level=level, threads=threads, max_objects=128)
    try:
        obs, _ = env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            obs = env.step(act(obs))[0]
        return envs * steps / (time.perf_counter() - start)
    finally:
        env.close()


def overlap(level: str, envs: int, steps: int, act) -> float:
    with PeggleAsyncVectorEnv(envs, batch_size=envs // 2, level=level, max_objects=128) as groups:
        groups.async_reset(seed=0)  # environment i from seed i: the same games as sync's
        start = time.perf_counter()
        for _ in range(2 * steps):  # each group: its reset and steps - 1 steps come back, each answered
            obs, _, _, _, infos = groups.recv()
            groups.send(act(obs), infos["env_id"])
        for _ in range(2):  # the last step of each
            groups.recv()
        return envs * steps / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--level", default="fortress")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--threads", type=int, default=2, help="engine threads, and torch's")
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    level = str(ROOT / "Levels" / f"{args.level}.json")
    act = policy_for(2193, args.threads)
    act_one = policy_for(2193, 1)
    runs: dict[str, list[float]] = {"sync": [], "overlap": []}
    for _ in range(args.rounds):
        runs["sync"].append(sync(level, args.envs, args.threads, args.steps, act))
        runs["overlap"].append(overlap(level, args.envs, args.steps, act_one))
    med = {k: statistics.median(v) for k, v in runs.items()}
    print({"level": args.level, "envs": args.envs, "threads": args.threads, "rounds": args.rounds,
           "shots_per_s": {k: round(v) for k, v in med.items()}, "overlap_over_sync": round(med["overlap"] / med["sync"], 3)})


if __name__ == "__main__":
    main()
