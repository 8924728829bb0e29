"""What a Python user gets of the engine, on each backend: shots per second through `gym.make` (one
environment) and `gym.make_vec` (N), beside `peggle-bench vector` (the engine in process, no
Python), interleaved in one sitting; prints one JSON object per workload and a summary table.

    python3 python/bench_backends.py                            # the issue-47 table (a few minutes)
    python3 python/bench_backends.py --levels fortress --envs 1 --encoders objects --rounds 3
    python3 python/bench_backends.py --fixed-cost               # µs a step costs above the engine, at 1/16/64/256 envs

The workload is `peggle-bench vector`'s on both sides, shot for shot: Peggle-v0 (no aim noise, the
bucket at the centre) on one level file, reset with seed 0, and the engine's own random actions
(its `SeededGenerator` from seed 1, rebuilt here, drawn before the clock starts), next-step
autoreset for N environments; a single environment is reset when its episode ends, as a
Gymnasium loop does, and skips the action the engine's autoreset step ignores. Both sides take
the same shots (checked), so the share is Python's shots per second over the engine's, and the
rounds differ only by the machine. Each round runs the engine and each backend once, in turns
(engine first in even rounds, last in odd ones, so a drift of the machine's speed within a round
cancels); a share is the median of the rounds' own ratios, a rate the median over the rounds.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import pathlib
import pickle
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import peggle_gym  # noqa: E402,F401  (registers the ids)
from peggle_gym.engines import find_peggle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENV_ID = "peggle_gym/Peggle-v0"

#: Batched steps a run takes, by environment count: each run lasts about half a second on the
#: objects encoder (the aim encoder's take longer).
BATCHES = {1: 10_000, 16: 600, 64: 200, 256: 60}


class SeededGenerator:
    """PeggleUtilities' `SeededGenerator` (xoshiro256** seeded by SplitMix64), so the actions
    here are the engine's own."""
    M = (1 << 64) - 1

    def __init__(self, seed: int):
        sm, state = seed, []
        for _ in range(4):
            sm = (sm + 0x9E3779B97F4A7C15) & self.M
            z = sm
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.M
            state.append(z ^ (z >> 31))
        self.s = state

    def next(self) -> int:
        s0, s1, s2, s3 = self.s
        x = (s1 * 5) & self.M
        result = ((((x << 7) | (x >> 57)) & self.M) * 9) & self.M
        t = (s1 << 17) & self.M
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & self.M
        self.s = [s0, s1, s2, s3]
        return result

    def unit(self) -> float:
        return (self.next() >> 11) * 2.0 ** -53


def engine_actions(batches: int, envs: int) -> np.ndarray:
    """`EnvironmentWorkload.actions()`: batches rows of envs actions, from seed 1."""
    g = SeededGenerator(1)
    return np.array([[g.unit() * 2 - 1 for _ in range(envs)] for _ in range(batches)], np.float64)


def max_objects(level: pathlib.Path) -> int:
    """`peggle-bench vector`'s object slots: 128, or every peg and block of the level."""
    data = json.loads(level.read_text())
    return max(128, len(data.get("pegs", [])) + len(data.get("blocks", [])))


def engine_run(bench: str, level: pathlib.Path, encoder: str, envs: int, threads: int, batches: int) -> tuple[float, int]:
    """Shots per second of `peggle-bench vector` on the workload (one run), and its shots."""
    out = subprocess.run([bench, "vector", "--level", str(level), "--encoder", encoder, "--envs", str(envs),
                          "--threads", str(threads), "--batches", str(batches), "--repeat", "1", "--json"],
                         check=True, capture_output=True, text=True, cwd=ROOT).stdout
    row = json.loads(out.splitlines()[-1])
    return float(row["shots_per_s"]), int(row["shots"])


def python_run(backend: str, level: pathlib.Path, encoder: str, envs: int, threads: int, batches: int) -> tuple[float, int]:
    """Shots per second through `gym.make` (one environment) or `gym.make_vec` on ``backend``,
    and the shots taken."""
    options = dict(level=str(level), encoder=encoder, max_objects=max_objects(level), backend=backend)
    actions = engine_actions(batches, envs)
    if envs == 1:
        env = gym.make(ENV_ID, **options)
        shots, skip = 0, False
        try:
            env.reset(seed=0)
            start = time.perf_counter()
            for a in actions:
                if skip:  # the engine's autoreset step: its action is ignored
                    skip = False
                    continue
                _, _, terminated, truncated, _ = env.step(a)
                shots += 1
                if terminated or truncated:
                    env.reset()
                    skip = True
            seconds = time.perf_counter() - start
        finally:
            env.close()
        return shots / seconds, shots
    env = gym.make_vec(ENV_ID, num_envs=envs, threads=threads, **options)
    actions = actions.reshape(batches, envs, 1)
    shot = []
    try:
        env.reset(seed=0)
        start = time.perf_counter()
        for a in actions:
            _, _, _, _, infos = env.step(a)
            shot.append(infos.get("_angle"))
        seconds = time.perf_counter() - start
    finally:
        env.close()
    shots = sum(int(np.count_nonzero(m)) for m in shot if m is not None)
    return shots / seconds, shots


def python_us_per_step(level: pathlib.Path, envs: int, threads: int, batches: int) -> float:
    """The native backend's own cost a batched step, µs: the loop's time less the time inside
    the library's `peggle_step` (the engine, and the library copying into the buffers), timed
    around each call; what does not shrink as cores are added."""
    from peggle_gym import native
    inside = [0.0]
    call = native.NativeClient.step

    def timed(self) -> None:
        start = time.perf_counter()
        try:
            call(self)
        finally:
            inside[0] += time.perf_counter() - start
    env = gym.make_vec(ENV_ID, num_envs=envs, threads=threads, level=str(level), max_objects=max_objects(level),
                       backend="native")
    native.NativeClient.step = timed
    try:
        env.reset(seed=0)
        actions = engine_actions(batches, envs).reshape(batches, envs, 1)
        start = time.perf_counter()
        for a in actions:
            env.step(a)
        total = time.perf_counter() - start
    finally:
        native.NativeClient.step = call
        env.close()
    return (total - inside[0]) / batches * 1e6


def copy_costs(backend: str, level: pathlib.Path, steps: int = 1000, copies: int = 20) -> dict:
    """Medians of `copy.deepcopy`, `pickle.dumps` and `pickle.loads` of one environment after
    ``steps`` steps, milliseconds, and the pickle's bytes."""
    env = gym.make(ENV_ID, level=str(level), backend=backend, max_objects=max_objects(level), max_shots=1_000_000)
    try:
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for a in rng.uniform(-1, 1, (steps, 1)).astype(np.float32):
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()
        times: dict[str, list[float]] = {"deepcopy_ms": [], "dumps_ms": [], "loads_ms": []}
        for _ in range(copies):
            start = time.perf_counter()
            clone = copy.deepcopy(env)
            times["deepcopy_ms"].append((time.perf_counter() - start) * 1000)
            clone.close()
            start = time.perf_counter()
            blob = pickle.dumps(env)
            times["dumps_ms"].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            clone = pickle.loads(blob)
            times["loads_ms"].append((time.perf_counter() - start) * 1000)
            clone.close()
        return {k: round(statistics.median(v), 3) for k, v in times.items()} | {"pickle_bytes": len(blob)}
    finally:
        env.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--levels", nargs="+", default=["fortress", "spiral", "bench-grid"], help="level files in Levels/, by name")
    p.add_argument("--encoders", nargs="+", default=["objects", "aim"])
    p.add_argument("--envs", nargs="+", type=int, default=[1, 64])
    p.add_argument("--backends", nargs="+", default=["native", "serve"], choices=["native", "serve"])
    p.add_argument("--threads", type=int, default=2, help="threads of the vector workloads (N > 1)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batches", type=int, default=None, help="batched steps a run takes (default: by env count)")
    p.add_argument("--fixed-cost", action="store_true",
                   help="instead: µs a batched step costs above the engine at 1, 16, 64 and 256 envs (bench-grid, "
                        "objects), and the native backend's Python time a step outside the library")
    p.add_argument("--deepcopy", action="store_true",
                   help="also: copy.deepcopy and pickle of one env after 1,000 steps, ms, and the pickle's bytes")
    p.add_argument("--bench", default=None, help="the peggle-bench binary (default: beside the peggle engine)")
    args = p.parse_args()
    bench = args.bench or str(pathlib.Path(find_peggle()).with_name("peggle-bench"))
    if args.fixed_cost:
        args.levels, args.encoders, args.envs = ["bench-grid"], ["objects"], [1, 16, 64, 256]
    rows = []
    for name in args.levels:
        level = ROOT / "Levels" / f"{name}.json"
        for encoder in args.encoders:
            for envs in args.envs:
                threads = 1 if envs == 1 else args.threads
                batches = args.batches or BATCHES.get(envs, max(20, 12_800 // envs))
                runs: dict[str, list[float]] = {"engine": [], **{b: [] for b in args.backends}}
                shots = None
                for r in range(args.rounds):
                    order = ["engine", *args.backends]
                    for who in (order if r % 2 == 0 else order[::-1]):
                        if who == "engine":
                            rate, taken = engine_run(bench, level, encoder, envs, threads, batches)
                        else:
                            rate, taken = python_run(who, level, encoder, envs, threads, batches)
                        if shots is not None and taken != shots:
                            sys.exit(f"{name}, {encoder}, {envs} envs: {who} took {taken} shots, another run {shots}: "
                                     "not the same workload")
                        shots = taken
                        runs[who].append(rate)
                med = {k: statistics.median(v) for k, v in runs.items()}
                share = {b: statistics.median(x / e for x, e in zip(runs[b], runs["engine"])) for b in args.backends}
                # µs a batched step costs above the engine: a batch's shots, at the engine's median
                # rate and at that rate over the median share
                per_batch = shots / batches / med["engine"] * 1e6
                row = {"level": name, "encoder": encoder, "envs": envs, "threads": threads, "batches": batches,
                       "rounds": args.rounds, "shots_per_s": {k: round(v, 1) for k, v in med.items()},
                       "share": {b: round(share[b], 3) for b in args.backends},
                       "fixed_us_per_step": {b: round(per_batch * (1 / share[b] - 1), 1) for b in args.backends}}
                if args.fixed_cost and envs > 1 and "native" in args.backends:
                    row["native_python_us_per_step"] = round(statistics.median(
                        python_us_per_step(level, envs, threads, batches) for _ in range(args.rounds)), 1)
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.deepcopy:
        level = ROOT / "Levels" / f"{args.levels[0]}.json"
        print(json.dumps({"copies_after_1000_steps": {b: copy_costs(b, level) for b in args.backends},
                          "level": args.levels[0]}), flush=True)
    print(f"\n| workload | engine shots/s | " + " | ".join(f"{b} shots/s | {b} share | {b} µs/step over"
                                                         for b in args.backends) + " |", file=sys.stderr)
    for row in rows:
        cells = [f"{row['shots_per_s'][b]:,.0f} | {row['share'][b]:.2f} | {row['fixed_us_per_step'][b]:.1f}"
                 for b in args.backends]
        print(f"| {row['level']}, {row['encoder']}, {row['envs']} env(s), {row['threads']} thread(s) | "
              f"{row['shots_per_s']['engine']:,.0f} | " + " | ".join(cells) + " |", file=sys.stderr)


if __name__ == "__main__":
    main()
