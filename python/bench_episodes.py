"""Random-action episodes through PeggleEnv (one env) and PeggleVectorEnv (N envs, next-step
autoreset), timed; prints one JSON object with episodes and steps per second.

    python3 python/bench_episodes.py                       # first-steps, 200 + 800 episodes, 16 envs
    python3 python/bench_episodes.py --level Levels/spiral.json --num-envs 32 --threads 2

Times cover resets and steps (server work, pipes, JSON and base64 decoding in Python), not the
server's start. A vector "step" is one step of every env; steps_per_sec counts env steps (N per
vector step, including next-step autoreset steps, where no shot is taken); shots_per_sec counts
only shots.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from peggle_gym import PeggleEnv, PeggleVectorEnv  # noqa: E402
from peggle_gym.engines import cores  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def bench_single(args) -> dict:
    env = PeggleEnv(level=args.level, max_shots=args.max_shots, obs_encoding=args.obs_encoding,
                    peggle_path=args.peggle_path)
    env.action_space.seed(args.seed)
    try:
        steps = 0
        start = time.perf_counter()
        env.reset(seed=args.seed)
        for _ in range(args.episodes):
            done = False
            while not done:
                _, _, terminated, truncated, _ = env.step(env.action_space.sample())
                steps += 1
                done = terminated or truncated
            env.reset()
        seconds = time.perf_counter() - start
        engine = env.client.hello["engine"]
        binary = env.client.path
    finally:
        env.close()
    return {"engine": engine, "binary": binary, "episodes": args.episodes, "steps": steps,
            "seconds": round(seconds, 4), "episodes_per_sec": round(args.episodes / seconds, 2),
            "steps_per_sec": round(steps / seconds, 1)}


def bench_vector(args) -> dict:
    env = PeggleVectorEnv(args.num_envs, level=args.level, max_shots=args.max_shots, threads=args.threads,
                          obs_encoding=args.obs_encoding, peggle_path=args.peggle_path,
                          info_layout=args.info_layout)
    env.action_space.seed(args.seed)
    try:
        episodes = vector_steps = shots = 0
        resetting = np.zeros(args.num_envs, dtype=bool)
        start = time.perf_counter()
        env.reset(seed=args.seed)
        while episodes < args.vector_episodes:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            vector_steps += 1
            shots += int((~resetting).sum())
            resetting = terminated | truncated
            episodes += int(resetting.sum())
        seconds = time.perf_counter() - start
    finally:
        env.close()
    steps = vector_steps * args.num_envs
    return {"num_envs": args.num_envs, "threads": args.threads or min(args.num_envs, cores()),
            "episodes": episodes, "vector_steps": vector_steps, "steps": steps, "shots": shots,
            "seconds": round(seconds, 4), "episodes_per_sec": round(episodes / seconds, 2),
            "steps_per_sec": round(steps / seconds, 1), "shots_per_sec": round(shots / seconds, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--level", default=str(ROOT / "Levels" / "first-steps.json"))
    p.add_argument("--episodes", type=int, default=200, help="episodes for the single env")
    p.add_argument("--vector-episodes", type=int, default=800, help="episodes (at least) for the vector env")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--threads", type=int, default=None, help="server threads (default: cores, at most num-envs)")
    p.add_argument("--max-shots", type=int, default=100)
    p.add_argument("--obs-encoding", default="f32", choices=["f32", "b64f32", "json"])
    p.add_argument("--info-layout", default="columns", choices=["columns", "rows"],
                   help="how the vector env's server sends infos (rows: assembled here by Gymnasium's _add_info)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--peggle-path", default=None)
    args = p.parse_args()
    single = bench_single(args)
    vector = bench_vector(args)
    print(json.dumps({"level": os.path.relpath(args.level, ROOT), "obs_encoding": args.obs_encoding, "info_layout": args.info_layout,
                      "engine": single.pop("engine"), "binary": single.pop("binary"), "cores": cores(),
                      "single": single, "vector": vector}))


if __name__ == "__main__":
    main()
