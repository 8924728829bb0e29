"""SB3 PPO through peggle_gym.sb3.make_vec_env (one server for all environments) against SB3's own
make_vec_env (a DummyVecEnv of PeggleEnvs, one server each), side by side: the same level, n_envs,
seeds and PPO settings, the two alternating round by round so both meet the same load. Prints one
JSON line per run and a summary line with the medians; needs the sb3 extra.

    python3 python/bench_sb3.py                              # 8 envs, 6,144 steps, 3 rounds
    python3 python/bench_sb3.py --encoder pixels --policy CnnPolicy
    python3 python/bench_sb3.py --random                     # the VecEnvs alone, random actions

A run's time is `model.learn` only (rollouts and PPO's updates), not making the environments or
the model: steps_per_sec is environment steps (total_timesteps) per second of it. One untimed
rollout of each comes first (the first PPO of a process loads torch's kernels).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env  # noqa: E402

import peggle_gym  # noqa: E402,F401  (registers the ids SB3's make_vec_env looks up)
from peggle_gym.sb3 import make_vec_env  # noqa: E402

MAKERS = {"peggle_gym.sb3": make_vec_env, "sb3": sb3_make_vec_env}


def run(kind: str, args) -> dict:
    env_kwargs = {"level": args.level, "encoder": args.encoder}
    env = MAKERS[kind]("peggle_gym/Peggle-v1", n_envs=args.n_envs, seed=args.seed, env_kwargs=env_kwargs)
    try:
        if args.random:
            # The VecEnv alone: random actions, no learner.
            env.action_space.seed(args.seed)
            env.reset()
            start = time.perf_counter()
            for _ in range(args.steps // args.n_envs):
                env.step(np.stack([env.action_space.sample() for _ in range(args.n_envs)]))
            seconds, steps = time.perf_counter() - start, args.steps // args.n_envs * args.n_envs
        else:
            model = PPO(args.policy, env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                        seed=args.seed, device="cpu")
            start = time.perf_counter()
            model.learn(total_timesteps=args.steps)
            seconds, steps = time.perf_counter() - start, model.num_timesteps
    finally:
        env.close()
    learner = "random" if args.random else f"PPO {args.policy} batch {args.batch_size} epochs {args.n_epochs}"
    return {"vec_env": kind, "n_envs": args.n_envs, "learner": learner,
            "encoder": args.encoder, "steps": steps, "seconds": round(seconds, 3),
            "steps_per_sec": round(steps / seconds, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--level", default="first-steps")
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--n-steps", type=int, default=256, help="PPO's rollout length per environment")
    p.add_argument("--steps", type=int, default=6144, help="total_timesteps of each run")
    p.add_argument("--batch-size", type=int, default=64, help="PPO's minibatch (SB3's default)")
    p.add_argument("--n-epochs", type=int, default=10, help="PPO's epochs per rollout (SB3's default)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--policy", default="MlpPolicy")
    p.add_argument("--encoder", default="objects")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--random", action="store_true", help="step the VecEnvs with random actions instead of PPO")
    p.add_argument("--torch-threads", type=int, default=None,
                   help="torch.set_num_threads (default: torch's own choice, the cores)")
    args = p.parse_args()
    if args.torch_threads is not None:
        import torch
        torch.set_num_threads(args.torch_threads)
    # Untimed first runs: the first PPO of a process pays for loading torch and its kernels.
    for kind in MAKERS:
        if not args.random:
            run(kind, argparse.Namespace(**{**vars(args), "steps": args.n_steps * args.n_envs}))
    rates: dict[str, list[float]] = {kind: [] for kind in MAKERS}
    for r in range(args.rounds):
        # Alternating which goes first, so neither always meets the machine warmer.
        for kind in (list(MAKERS) if r % 2 == 0 else list(reversed(MAKERS))):
            result = run(kind, args)
            rates[kind].append(result["steps_per_sec"])
            print(json.dumps({"round": r, **result}), flush=True)
    medians = {kind: statistics.median(v) for kind, v in rates.items()}
    print(json.dumps({"median_steps_per_sec": medians,
                      "speedup": round(medians["peggle_gym.sb3"] / medians["sb3"], 2)}), flush=True)


if __name__ == "__main__":
    main()
