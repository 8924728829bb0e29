"""Environment steps per second with each observation encoder, through peggle_gym.sb3.make_vec_env
(one server for all environments) with uniformly random actions, the encoders alternating round by
round so each meets the same load. The workload is the baselines' (docs/baselines.md): Peggle-v1
on easy procedural levels 0-199. Prints one JSON line per run and one with the medians and each
encoder's ratio to `objects`; needs the sb3 extra.

    python3 python/bench_encoders.py                            # objects and aim (31 bins), 8 envs
    python3 python/bench_encoders.py --encoders objects aim:61 --seconds 20 --rounds 5
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from peggle_gym.sb3 import make_vec_env  # noqa: E402


def kwargs(encoder: str) -> dict:
    """`objects`, or `aim[:BINS]` (with the discrete action over its rows)."""
    if encoder.startswith("aim"):
        kw = {"encoder": "aim", "action": "discrete"}
        if ":" in encoder:
            kw["bins"] = int(encoder.split(":")[1])
        return kw
    return {"encoder": encoder}


def run(encoder: str, args) -> dict:
    env = make_vec_env("peggle_gym/Peggle-v1", n_envs=args.n_envs, seed=args.seed,
                       env_kwargs={"level": None, "num_levels": 200, "start_level": 0, "distribution_mode": "easy",
                                   **kwargs(encoder)})
    try:
        rng = np.random.default_rng(args.seed)
        space = env.action_space
        env.reset()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            if hasattr(space, "n"):
                actions = rng.integers(0, space.n, size=args.n_envs)
            else:
                actions = rng.uniform(-1, 1, size=(args.n_envs, 1)).astype(np.float32)
            env.step(actions)
            steps += args.n_envs
        seconds = time.perf_counter() - start
    finally:
        env.close()
    return {"encoder": encoder, "n_envs": args.n_envs, "steps": steps, "seconds": round(seconds, 2),
            "steps_per_s": round(steps / seconds, 1), "load1": round(os.getloadavg()[0], 2)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--encoders", nargs="+", default=["objects", "aim"])
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    runs: dict[str, list[float]] = {e: [] for e in args.encoders}
    for _ in range(args.rounds):
        for e in args.encoders:
            r = run(e, args)
            print(json.dumps(r), flush=True)
            runs[e].append(r["steps_per_s"])
    medians = {e: statistics.median(v) for e, v in runs.items()}
    base = medians.get("objects")
    print(json.dumps({"median_steps_per_s": medians,
                      "ratio_to_objects": {e: round(m / base, 3) for e, m in medians.items()} if base else None}))


if __name__ == "__main__":
    main()
