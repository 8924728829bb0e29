"""Baselines for Peggle-v1 on procedural levels (docs/baselines.md).

    python python/baselines/run.py train --algo ppo --encoder aim --split easy-v1 --seeds 0-4 \
        --timesteps 460800 --eval --out runs/ppo-aim/easy-v1
    python python/baselines/run.py eval --model runs/ppo-aim/easy-v1 --split xt-easy-v1
    python python/baselines/run.py eval --agent greedy --split easy-v1 --out runs/builtin/greedy/eval-easy-v1.json
    python python/baselines/run.py report runs --doc docs/baselines.md --images docs/images/baselines-profile
    python python/baselines/run.py plot runs/ppo-aim/easy-v1/seed-0 --out docs/images/baselines

A named split (`peggle_gym.splits`: easy-v1, hard-v1, xt-easy-v1, xt-hard-v1) fixes the train
levels and the evaluation episodes: episode (level k, seed s) plays test level k with
environment seed s. Trained policies (SB3 PPO, DQN) and `--agent random-env` play through
`peggle_gym`'s Peggle-v1 environment; the built-in agents (random, greedy, linear:FILE) play the
same levels, written by `peggle level generate` and checked against the environment's, through
`peggle play --sigma 0.02 --seed s` (see docs/baselines.md for what differs). `report` turns the
evaluations of several runs into rliable's statistics. Without `--split`, train and eval keep
the older options (`--distribution`, `--num-levels`, `--episodes`, `--start-level`, `--level`).
Needs the `sb3` extra and `rliable`; plotting needs only the standard library and `rsvg-convert`.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout without installing peggle_gym

import numpy as np  # noqa: E402

from peggle_gym import ENV_ID_V1, V1_AIM_NOISE, PeggleEnv, V1_KWARGS, find_peggle  # noqa: E402
from peggle_gym.splits import TEMPLATES, get_split  # noqa: E402

#: The train levels are seeds [0, num_levels); the test levels start far above any train range
#: used here, so they never overlap.
TEST_START = 100_000
DISTRIBUTION = "easy"
TRAIN_LEVELS = 200
#: The make options a split sets; a trained model's own are replaced by the evaluated part's.
PROCEDURAL_KEYS = ("num_levels", "start_level", "distribution_mode", "templates")
CURVE_FIELDS = ["timesteps", "seconds", "steps_per_s", "episodes", "ep_return_mean", "win_rate",
                "ep_len_mean", "load1"]


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (the same formula as the rater's
    `Stats.wilson`, docs/skill-model.md): exactly 0 and 1 at the ends."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def load1() -> float:
    return os.getloadavg()[0]


def env_kwargs(algo: str, distribution: str, encoder: str = "objects", bins: int | None = None) -> dict:
    """Peggle-v1's settings (aim noise 0.02 rad, random bucket start, seeded cycle) plus the
    observation and the action space the algorithm needs: the ``aim`` encoder always with the
    discrete action over its rows (what `AimPolicy` ranks), the ``objects`` encoder with the
    continuous action for PPO and the discrete one (the env's default bins) for DQN."""
    kw = {**V1_KWARGS, "distribution_mode": distribution}
    if encoder == "aim":
        kw.update(encoder="aim", action="discrete")
    elif algo == "dqn":
        kw.update(action="discrete")
    if bins is not None:
        kw["bins"] = bins
    return kw


# ----------------------------------------------------------------------------------- training

def algo_params(algo: str, hyper: dict) -> dict:
    """The algorithm's arguments that differ from SB3's defaults, then `hyper` over them."""
    if algo == "ppo":
        # 256 steps per environment (8 x 256 = SB3's default rollout of 2,048), and minibatches
        # of 256 for 4 epochs (CleanRL's proportions), which train about 2.5x as many steps per
        # second here as SB3's 64 and 10 (docs/performance.md).
        return {"n_steps": 256, "batch_size": 256, "n_epochs": 4, **hyper}
    # DQN: a replay buffer of 100k (episodes are short: a dozen shots), learning from step 1,000,
    # exploration decaying over the first 20% of the budget.
    return {"buffer_size": 100_000, "learning_starts": 1_000, "exploration_fraction": 0.2,
            "target_update_interval": 2_000, "train_freq": 4, "gradient_steps": 1, **hyper}


def make_model(algo: str, env, seed: int, params: dict, encoder: str):
    """SB3's PPO or DQN: on the ``aim`` encoder with the ranking policies (`peggle_gym.sb3`),
    otherwise with SB3's ``MlpPolicy``."""
    from stable_baselines3 import DQN, PPO
    from peggle_gym.sb3 import AimDQNPolicy, AimPolicy
    policy = "MlpPolicy" if encoder != "aim" else (AimPolicy if algo == "ppo" else AimDQNPolicy)
    return (PPO if algo == "ppo" else DQN)(policy, env, seed=seed, verbose=0, device="cpu", **params)


def make_callback(path: pathlib.Path, every: int, deadline: float | None):
    from stable_baselines3.common.callbacks import BaseCallback

    class Curve(BaseCallback):
        """Every `every` environment steps: one CSV row of the recent episodes (SB3's last 100,
        from VecMonitor) and the steps per second since the start; stops past the deadline."""

        def _on_training_start(self) -> None:
            self.file = open(path, "w", newline="")
            self.writer = csv.DictWriter(self.file, CURVE_FIELDS)
            self.writer.writeheader()
            self.start = time.perf_counter()
            self.next_row = every
            self.episodes = 0
            self.last = -1

        def row(self) -> None:
            infos = self.model.ep_info_buffer
            successes = self.model.ep_success_buffer
            seconds = time.perf_counter() - self.start
            self.last = self.num_timesteps
            self.writer.writerow({
                "timesteps": self.num_timesteps, "seconds": round(seconds, 2),
                "steps_per_s": round(self.num_timesteps / seconds, 1), "episodes": self.episodes,
                "ep_return_mean": round(float(np.mean([i["r"] for i in infos])), 4) if infos else "",
                "win_rate": round(float(np.mean(successes)), 4) if successes else "",
                "ep_len_mean": round(float(np.mean([i["l"] for i in infos])), 2) if infos else "",
                "load1": round(load1(), 2)})
            self.file.flush()

        def _on_step(self) -> bool:
            self.episodes += int(np.sum(self.locals["dones"]))
            if self.num_timesteps >= self.next_row:
                self.row()
                self.next_row += every
            return deadline is None or time.time() < deadline

        def _on_training_end(self) -> None:
            if self.num_timesteps != self.last:  # the last point, unless just written
                self.row()
            self.file.close()

    return Curve()


def parse_seeds(text: str) -> list[int]:
    """Training seeds from ``"0-4"`` (a range, both ends included), ``"0,3,7"`` or ``"2"``."""
    try:
        if "-" in text.strip("-"):
            low, high = (int(v) for v in text.split("-"))
            seeds = list(range(low, high + 1))
        else:
            seeds = [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"--seeds {text!r}: expected a range such as 0-4, a list such as 0,3,7, or one seed") from None
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds {text!r}: expected distinct seeds of 0 or more, at least one")
    return seeds


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its reaped children (the server): unlike wall
    time, not stretched when the machine is shared or the run is paused (SIGSTOP)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def train_kwargs(args) -> tuple[dict, str | None]:
    """The training environment's options: a split's train part, or the older
    ``--distribution``/``--num-levels`` (seeds [0, N) of all templates). Also the split's name."""
    kw = env_kwargs(args.algo, args.distribution, args.encoder, args.bins)
    if args.split:
        return {**kw, **get_split(args.split).options("train")}, args.split
    return {**kw, "num_levels": args.num_levels, "start_level": 0}, None


def trained(folder: pathlib.Path) -> bool:
    """Whether `folder` holds a finished run (its config has the totals and the model is saved)."""
    config = folder / "config.json"
    return ((folder / "model.zip").exists() and config.exists()
            and "trained_timesteps" in json.loads(config.read_text()))


def train_one(args, seed: int, out: pathlib.Path) -> dict:
    from peggle_gym.sb3 import make_vec_env
    out.mkdir(parents=True, exist_ok=True)
    kw, split = train_kwargs(args)
    env = make_vec_env(ENV_ID_V1, n_envs=args.n_envs, seed=seed, env_kwargs={**kw, "level": None})
    hyper = json.loads(args.hyper) if args.hyper else {}
    config = {"algo": args.algo, "encoder": args.encoder, "split": split, "timesteps": args.timesteps,
              "minutes": args.minutes, "seed": seed, "n_envs": args.n_envs, "env_id": ENV_ID_V1, "env_kwargs": kw,
              "params": algo_params(args.algo, hyper),
              "torch_threads": args.torch_threads, "load1_start": load1()}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")  # rewritten with the totals at the end
    import torch
    torch.set_num_threads(args.torch_threads)
    cpu_start = cpu_seconds()
    try:
        model = make_model(args.algo, env, seed, config["params"], args.encoder)
        deadline = time.time() + 60 * args.minutes if args.minutes else None
        start = time.perf_counter()
        model.learn(args.timesteps, callback=make_callback(out / "curve.csv", args.log_every, deadline))
        seconds = time.perf_counter() - start
        model.save(out / "model.zip")
    finally:
        env.close()
    config.update(trained_timesteps=int(model.num_timesteps), seconds=round(seconds, 1),
                  cpu_seconds=round(cpu_seconds() - cpu_start, 1),
                  steps_per_s=round(model.num_timesteps / seconds, 1), load1_end=load1())
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(json.dumps({k: config[k] for k in ("algo", "split", "seed", "trained_timesteps", "seconds", "cpu_seconds",
                                             "steps_per_s")}), flush=True)
    return config


def train(args) -> dict | list[dict]:
    """One run into ``--out`` (``--seed``), or one run per seed of ``--seeds`` into
    ``--out/seed-S``, one after another; a seed whose folder already holds a finished run is
    skipped, so a stopped series resumes. With ``--eval`` each run is then evaluated on its
    split's test part (``RUN/eval-SPLIT.json``), unless that file exists."""
    if args.eval and not args.split:
        raise ValueError("--eval evaluates on the training split's test part: give --split")
    if args.split:
        get_split(args.split)  # an unknown name stops here, before anything is written
        given = [f"--{k.replace('_', '-')} {getattr(args, k)}" for k, default in
                 (("distribution", DISTRIBUTION), ("num_levels", TRAIN_LEVELS)) if getattr(args, k) != default]
        if given:
            raise ValueError(f"{', '.join(given)}: the split {args.split} sets the train levels")
    out = pathlib.Path(args.out)
    if args.seeds is None:
        runs = [(args.seed, out)]
    else:
        runs = [(seed, out / f"seed-{seed}") for seed in parse_seeds(args.seeds)]
    configs = []
    for seed, folder in runs:
        if args.seeds is not None and trained(folder):
            print(f"{folder}: already trained, skipped", flush=True)
            config = json.loads((folder / "config.json").read_text())
        else:
            config = train_one(args, seed, folder)
        if args.eval and not (folder / f"eval-{args.split}.json").exists():
            evaluate_model(folder, args.split, folder / f"eval-{args.split}.json")
        configs.append(config)
    return configs[0] if args.seeds is None else configs


# --------------------------------------------------------------------------------- evaluation

def episode_key(shots: list) -> str:
    """A trajectory's fingerprint: each shot's fired angle (bit for bit) and what it did."""
    return hashlib.sha1(json.dumps(shots).encode()).hexdigest()


def summary(name: str, episodes: list[dict], test_levels: str, extra: dict) -> dict:
    n = len(episodes)
    wins = sum(e["won"] for e in episodes)
    low, high = wilson(wins, n)
    return {"agent": name, "episodes": n, "wins": wins, "win_rate": wins / n if n else 0.0,
            "win_low": low, "win_high": high, "mean_score": float(np.mean([e["score"] for e in episodes])),
            "mean_shots": float(np.mean([e["shots"] for e in episodes])),
            "distinct_trajectories": len({e["trajectory"] for e in episodes}),
            "distinct_levels": len({e["level_seed"] for e in episodes}),
            "test_levels": test_levels, "aim_noise": V1_AIM_NOISE, **extra, "per_episode": episodes}


class Plan:
    """What an evaluation plays: the environment's procedural options (the levels) and the
    episodes, (level index k, environment seed), k counted from ``options["start_level"]``."""

    def __init__(self, options: dict, episodes: list[tuple[int, int]], split: str | None, text: str):
        self.options, self.episodes, self.split, self.text = options, episodes, split, text


def split_plan(name: str, levels: int | None = None, repeats: int | None = None) -> Plan:
    """Split `name`'s test part and its evaluation episodes; `levels` and `repeats` keep only the
    first test levels and repeats (quick checks: `report` refuses to compare different sets)."""
    split = get_split(name)
    for option, value, limit in (("--levels", levels, split.test_levels), ("--repeats", repeats, split.repeats)):
        if value is not None and not 1 <= value <= limit:
            raise ValueError(f"{option} {value}: the split {name} has 1 to {limit}")
    episodes = [(k, seed) for k, seed in split.episodes()
                if (levels is None or k < levels) and (repeats is None or seed // split.test_levels < repeats)]
    options = split.options("test")
    templates = "all templates" if tuple(options["templates"]) == TEMPLATES else ", ".join(options["templates"])
    shown = split.test_levels if levels is None else levels
    text = (f"{name} test: {split.distribution} seeds {split.test_start}..{split.test_start + shown - 1} "
            f"({templates}), {len(episodes) // shown} episodes a level")
    return Plan(options, episodes, name, text)


def legacy_plan(distribution: str, episodes: int, level: int | None, start: int) -> Plan:
    """Before named splits: episode k plays level seed start + k (or start + level) with seed k."""
    options = {"num_levels": max(episodes, (level or 0) + 1), "start_level": start,
               "distribution_mode": distribution, "templates": list(TEMPLATES)}
    text = (f"{distribution} seeds {start}..{start + episodes - 1}" if level is None
            else f"{distribution} seed {start + level}, every episode")
    return Plan(options, [(k if level is None else level, k) for k in range(episodes)], None, text)


def eval_policy(predict, env_kw: dict, plan: Plan) -> list[dict]:
    """Each of the plan's episodes (k, s): ``reset(seed=s, options={"level": k})`` under `env_kw`
    (Peggle-v1's settings and the policy's observation and action) on the plan's levels."""
    kw = {**{k: v for k, v in env_kw.items() if k not in PROCEDURAL_KEYS}, **plan.options}
    rows = []
    with PeggleEnv(**kw) as env:
        for k, seed in plan.episodes:
            obs, info = env.reset(seed=seed, options={"level": k})
            level_seed, level_name, ret, shots, done = int(info["level_seed"]), info["level_name"], 0.0, [], False
            while not done:
                obs, reward, terminated, truncated, info = env.step(predict(obs, env))
                ret += reward
                shots.append([float(info["fired_angle"]), int(info["pegs_hit"]), int(info["points"])])
                done = terminated or truncated
            rows.append({"seed": seed, "level_index": k, "level_seed": level_seed, "level": level_name,
                         "won": bool(info["won"]), "score": int(info["score"]), "shots": len(shots),
                         "return": round(ret, 4), "trajectory": episode_key(shots)})
    return rows


def level_files(peggle: str, options: dict, indices: list[int], folder: pathlib.Path) -> dict[int, pathlib.Path]:
    """The level files of level indices `indices` under the procedural `options`, written by
    `peggle level generate` and checked against the levels the environment plays: the same name
    (template, seed and distribution) and the same number of orange pegs, index by index.

    A template list draws each seed's template among its own templates, which `generate` cannot
    do; the environment names each level's template, and `generate --template T` makes it (the
    generator's level of a seed and a template does not depend on the list it was drawn from)."""
    start, distribution = options["start_level"], options["distribution_mode"]
    with PeggleEnv(**options) as env:
        played = {}
        for k in indices:
            _, info = env.reset(seed=0, options={"level": k})
            played[k] = (info["level_name"], int(info["orange_left"]))
    first, last = min(indices), max(indices)
    every = tuple(options.get("templates") or TEMPLATES) == TEMPLATES
    wanted = [None] if every else sorted({name.split(" ")[0].lower() for name, _ in played.values()})
    for template in wanted:
        cmd = [peggle, "level", "generate", "--count", str(last - first + 1), "--seed", str(start + first),
               "--distribution", distribution, "--out", str(folder / (template or "all"))]
        subprocess.run(cmd + (["--template", template] if template else []), check=True, stdout=subprocess.DEVNULL)
    files = {}
    for k in indices:
        name, oranges = played[k]
        template = None if every else name.split(" ")[0].lower()
        found = sorted((folder / (template or "all")).glob(f"{distribution}-{start + k:06d}-*.json"))
        level = json.loads(found[0].read_text()) if len(found) == 1 else {}
        written = (level.get("name"), sum(p.get("kind") == "orange" for p in level.get("pegs", [])))
        if written != (name, oranges):
            raise RuntimeError(f"level index {k} (seed {start + k}): the environment plays {name!r} with {oranges} "
                               f"orange pegs, peggle level generate wrote {written[0]!r} with {written[1]} "
                               f"({[str(f) for f in found]})")
        files[k] = found[0]
    return files


def eval_builtin(agent: str, plan: Plan, threads: int | None) -> list[dict]:
    """The built-in agent through `peggle play` on the plan's levels (files from `level_files`),
    episode (k, s) as ``peggle play LEVEL_k --seed s --episodes 1``, aim noise 0.02 rad."""
    peggle = find_peggle()
    start = plan.options["start_level"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = level_files(peggle, plan.options, sorted({k for k, _ in plan.episodes}), pathlib.Path(tmp))
        for k, seed in plan.episodes:
            cmd = [peggle, "play", str(files[k]), "--agent", agent, "--sigma", str(V1_AIM_NOISE), "--seed", str(seed),
                   "--episodes", "1", "--json"]
            if threads:
                cmd += ["--threads", str(threads)]
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            e = out["episodes"][0]
            rows.append({"seed": seed, "level_index": k, "level_seed": start + k, "level": out["level"],
                         "won": bool(e["won"]), "score": int(e["score"]), "shots": int(e["shots"]), "return": None,
                         "trajectory": episode_key([e["angles"], e["score"], e["status"]])})
    return rows


def model_group(config: dict) -> dict:
    """Which configuration a trained run belongs to (runs differing only in their seed share it)
    and how the report names it."""
    kw = config["env_kwargs"]
    trained_on = config.get("split") or f"{kw['distribution_mode']} seeds 0..{kw['num_levels'] - 1}"
    key = {k: config.get(k) for k in ("algo", "encoder", "split", "timesteps", "minutes", "n_envs", "params")}
    key["levels"] = {k: kw.get(k) for k in PROCEDURAL_KEYS}
    policy = {"ppo": "AimPolicy", "dqn": "AimDQNPolicy"}[config["algo"]] if config.get("encoder") == "aim" else "MlpPolicy"
    budget = f"{config['timesteps']:,} steps" if not config.get("minutes") else f"{config['minutes']:g} min"
    return {"kind": "learned", "key": json.dumps(key, sort_keys=True),
            "label": f"SB3 {config['algo'].upper()}, `{config.get('encoder', 'objects')}` + {policy}, {budget}",
            "trained_on": trained_on}


#: What makes two exported networks runs of one configuration: their training configs' fields
#: that a seed does not change (run.py train's and imitate.py train's).
POLICY_GROUP_FIELDS = ("method", "trained_on", "algo", "encoder", "split", "timesteps", "minutes", "n_envs", "params",
                       "data", "epochs", "hidden", "lr", "batch", "init", "tau", "mode_weights", "mode_features")


def agent_group(agent: str) -> tuple[dict, int | None]:
    """The report group of a built-in agent and its run seed. A network policy (``mlp:FILE``)
    whose ``source.training`` holds the training run's config is a learned run of that
    configuration (with the file's row extras and search), so the seeds of one recipe, each
    exported, make one row with intervals as trained models do; any other agent is its own
    single row."""
    builtin = {"kind": "builtin", "key": agent, "label": f"{agent} (peggle play)", "trained_on": "-"}
    if not agent.startswith("mlp:"):
        return builtin, None
    doc = json.loads(pathlib.Path(agent[len("mlp:"):]).read_text())
    training = (doc.get("source") or {}).get("training") or {}
    if "seed" not in training:
        return builtin, None
    key = {k: training.get(k) for k in POLICY_GROUP_FIELDS}
    key.update(row_extras=doc.get("row_extras", []), search=doc.get("search"), bins=doc["encoder"]["bins"])
    how = ("BC + DAgger of greedy" if training.get("method") == "bc" else
           f"SB3 {str(training.get('algo', '?')).upper()} {training.get('timesteps') or 0:,} steps")
    parts = [how] + (["+ mode"] if doc.get("row_extras") else [])
    if doc.get("search"):
        parts.append(f"+ search {doc['search']['bins']}x{doc['search']['samples']}")
    label = f"`mlp:FILE` ({' '.join(parts)}), `aim`, native"
    trained_on = training.get("split") or training.get("trained_on") or "?"
    return {"kind": "learned", "key": json.dumps(key, sort_keys=True), "label": label, "trained_on": trained_on}, \
        int(training["seed"])


def evaluate_model(folder: pathlib.Path, plan: Plan | str, out: pathlib.Path | None) -> dict:
    """A trained run's deterministic policy on `plan` (or a split's name: its full test part)."""
    from stable_baselines3 import DQN, PPO
    plan = split_plan(plan) if isinstance(plan, str) else plan
    start = time.perf_counter()
    config = json.loads((folder / "config.json").read_text())
    algo = config["algo"]
    model = (PPO if algo == "ppo" else DQN).load(folder / "model.zip", device="cpu")
    discrete = config["env_kwargs"].get("action") == "discrete"

    def predict(obs, env):
        action, _ = model.predict(obs, deterministic=True)
        # SB3's PPO clips to the action space while training; the environment does not clip.
        return int(action) if discrete else np.clip(action, -1, 1)

    rows = eval_policy(predict, config["env_kwargs"], plan)
    name = f"{algo}{' aim' if config.get('encoder') == 'aim' else ''} ({config['trained_timesteps']:,} steps)"
    extra = {"split": plan.split, "group": model_group(config), "run_seed": config["seed"],
             "train_levels": model_group(config)["trained_on"], "model": str(folder),
             "training": {k: config.get(k) for k in ("trained_timesteps", "seconds", "cpu_seconds", "steps_per_s",
                                                     "load1_start", "load1_end")}}
    return finish(name, rows, plan, extra, start, out)


def finish(name: str, rows: list[dict], plan: Plan, extra: dict, start: float, out: pathlib.Path | None) -> dict:
    result = summary(name, rows, plan.text, {**extra, "seconds": round(time.perf_counter() - start, 1),
                                             "load1": load1()})
    if out:
        out = pathlib.Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("per_episode", "group", "training")}), flush=True)
    return result


def run_folders(path: pathlib.Path) -> list[pathlib.Path]:
    """`path` if it is a trained run, else the trained runs below it (per-seed folders), sorted."""
    if (path / "model.zip").exists():
        return [path]
    runs = sorted({m.parent for m in path.rglob("model.zip")})
    if not runs:
        raise ValueError(f"--model {str(path)!r}: no trained run (a folder with model.zip) there or below it")
    return runs


def evaluate(args) -> dict | list[dict]:
    if args.split:
        given = [f"--{k.replace('_', '-')} {v}" for k, v, default in
                 (("episodes", args.episodes, 100), ("distribution", args.distribution, DISTRIBUTION),
                  ("level", args.level, None), ("start_level", args.start_level, TEST_START)) if v != default]
        if given:
            raise ValueError(f"{', '.join(given)}: the split {args.split} fixes the test levels and episodes")
        plan = split_plan(args.split, args.levels, args.repeats)
    else:
        if args.levels is not None or args.repeats is not None:
            raise ValueError("--levels and --repeats choose part of a split's episodes: give --split")
        plan = None
    if args.model:
        runs = run_folders(pathlib.Path(args.model))
        if args.out and len(runs) > 1:
            raise ValueError(f"--out {args.out}: --model holds {len(runs)} runs; each writes RUN/eval-SPLIT.json")
        results = []
        for folder in runs:
            config = json.loads((folder / "config.json").read_text())
            folder_plan = plan or legacy_plan(config["env_kwargs"]["distribution_mode"], args.episodes, args.level,
                                              args.start_level)
            out = args.out or (folder / f"eval-{args.split}.json" if args.split else None)
            results.append(evaluate_model(folder, folder_plan, out))
        return results[0] if len(results) == 1 else results
    start = time.perf_counter()
    plan = plan or legacy_plan(args.distribution, args.episodes, args.level, args.start_level)
    if args.agent == "random-env":
        rng = np.random.default_rng(0)
        rows = eval_policy(lambda obs, env: rng.uniform(-1, 1, size=1).astype(np.float32),
                           env_kwargs("ppo", plan.options["distribution_mode"]), plan)
        name, label = "random (through the env)", "random aims (through the env)"
        group, seed = {"kind": "builtin", "key": args.agent, "label": label, "trained_on": "-"}, None
    else:
        rows = eval_builtin(args.agent, plan, args.threads)
        name = f"{args.agent} (peggle play)"
        group, seed = agent_group(args.agent)
    extra = {"split": plan.split, "train_levels": group["trained_on"] if group["kind"] == "learned" else "-",
             "group": group, "run_seed": seed}
    return finish(name, rows, plan, extra, start, args.out)


# ------------------------------------------------------------------------------------ plotting

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * step >= raw:
            step *= m
            break
    first = math.floor(low / step) * step
    ticks, t = [], first
    while t <= high + step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    if ticks[-1] < high:
        ticks.append(round(t, 10))
    return ticks


def label(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v / 1000:g}k" if abs(v) < 1e6 else f"{v / 1e6:g}M"
    return f"{v:g}"


def svg_chart(series: list[tuple[str, list[float], list[float]]], title: str, x_title: str, y_title: str,
              y_range: tuple[float, float] | None = None, refs: list[tuple[str, float]] = (),
              width: int = 640, height: int = 360, legend_corner: str = "top-left") -> str:
    """A line chart as SVG text: `series` of (name, xs, ys), optional horizontal reference lines
    (name, y), with axes, ticks and a legend in `legend_corner` ("top-left", "bottom-left" or
    "bottom-right" inside the plot; "below": under it, the picture taller by the legend, for
    lines that leave no corner free). Standard library only."""
    left, right, top, bottom = 64, 16, 34, 48
    xs_all = [x for _, xs, _ in series for x in xs] or [0, 1]
    ys_all = [y for _, _, ys in series for y in ys] + [y for _, y in refs] or [0, 1]
    x_ticks = nice_ticks(0, max(xs_all))
    y_ticks = nice_ticks(*(y_range or (min(0, min(ys_all)), max(ys_all))))
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]
    pw, ph = width - left - right, height - top - bottom
    total = height + (16 * (len(refs) + len(series)) + 12 if legend_corner == "below" else 0)

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        return top + ph - (y - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
           f'viewBox="0 0 {width} {total}" font-family="DejaVu Sans, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{total}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    for t in x_ticks:
        out.append(f'<line x1="{px(t):.1f}" y1="{top}" x2="{px(t):.1f}" y2="{top + ph}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 16}" text-anchor="middle">{label(t)}</text>')
    for t in y_ticks:
        out.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{left + pw}" y2="{py(t):.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{label(t)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">{x_title}</text>')
    out.append(f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" text-anchor="middle">{y_title}</text>')
    legend = []
    for i, (name, y) in enumerate(refs):
        colour = "#777"
        out.append(f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + pw}" y2="{py(y):.1f}" stroke="{colour}" '
                   f'stroke-dasharray="{4 + 3 * i} 3"/>')
        legend.append((name, colour, f"{4 + 3 * i} 3"))
    for i, (name, xs, ys) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        legend.append((name, colour, None))
    box_w = 50 + 7 * max([len(name) for name, _, _ in legend] or [0])
    box_h = 16 * len(legend) + 6
    bx, by = {"top-left": (left + 4, top + 3), "bottom-left": (left + 4, top + ph - box_h - 3),
              "bottom-right": (left + pw - box_w - 4, top + ph - box_h - 3), "below": (left, height)}[legend_corner]
    if legend:  # a white box, so the legend stays legible over the lines it may cover
        out.append(f'<rect x="{bx}" y="{by}" width="{box_w}" height="{box_h}" '
                   f'fill="white" fill-opacity="0.85" stroke="#ccc"/>')
    for i, (name, colour, dash) in enumerate(legend):
        ly = by + 14 + 16 * i
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{bx + 6}" y1="{ly - 4}" x2="{bx + 30}" y2="{ly - 4}" stroke="{colour}" '
                   f'stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{bx + 36}" y="{ly}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def read_curve(spec: str) -> tuple[str, dict[str, list[float]]]:
    """A run folder's curve.csv (this script's, or python/examples/rllib_ppo.py's, whose return
    column is `episode_return_mean`), named LABEL in `LABEL=FOLDER`, else by its config's algo."""
    label, _, folder = spec.rpartition("=")
    run = pathlib.Path(folder)
    if not label:
        config = run / "config.json"
        label = json.loads(config.read_text())["algo"].upper() if config.exists() else run.name
    with open(run / "curve.csv") as f:
        rows = [{("ep_return_mean" if k == "episode_return_mean" else k): v for k, v in r.items()}
                for r in csv.DictReader(f)]
    rows = [r for r in rows if r["ep_return_mean"] not in ("", "nan")]
    columns = {k: [float(r[k]) for r in rows] for k in ("timesteps", "ep_return_mean", "win_rate", "steps_per_s")}
    return label, columns


def to_png(svg: pathlib.Path) -> pathlib.Path | None:
    png = svg.with_suffix(".png")
    tool = shutil.which("rsvg-convert")
    if tool is None:
        print("rsvg-convert not found (Debian: apt-get install librsvg2-bin); wrote the SVG only", file=sys.stderr)
        return None
    subprocess.run([tool, "-o", str(png), str(svg)], check=True)
    return png


def plot(args) -> list[pathlib.Path]:
    runs = [read_curve(r) for r in args.runs]
    refs = []
    for spec in args.ref or []:
        name, value = spec.rsplit("=", 1)
        refs.append((name, float(value)))
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for key, title, y_title, y_range, with_refs, corner in (
            ("win_rate", "Win rate on train levels (last 100 episodes)", "win rate", (0, 1), True, args.win_legend),
            # returns sit above 0 and throughput curves level off: their lower right is free
            ("ep_return_mean", "Episode return on train levels (last 100 episodes)", "mean return", None, False,
             "bottom-right"),
            ("steps_per_s", "Training throughput", "environment steps / s (since start)", None, False,
             "bottom-right")):
        series = [(name, c["timesteps"], c[key]) for name, c in runs]
        svg = out.parent / f"{out.name}-{key.replace('_', '-')}.svg"
        svg.write_text(svg_chart(series, title, "environment steps", y_title, y_range, refs if with_refs else [],
                                 legend_corner=corner))
        written.append(svg)
        png = to_png(svg)
        if png:
            written.append(png)
    print("\n".join(str(p) for p in written))
    return written


# -------------------------------------------------------------------------------------- report

#: Thresholds of the performance-profile table: the share of (run, level) pairs whose level win
#: rate is above tau. The chart draws every twentieth.
PROFILE_TABLE_TAUS = (0.0, 0.25, 0.5, 0.75, 0.9)
PROFILE_CHART_TAUS = tuple(round(0.05 * i, 2) for i in range(20))
REPORT_BEGIN = "<!-- report:begin (made by run.py report; edits here are overwritten) -->"
REPORT_END = "<!-- report:end -->"


def load_evaluations(paths: list[str]) -> list[dict]:
    """Every split evaluation (an ``eval-*.json`` with a ``split``) in `paths` (files, or folders
    searched below), each with the file it came from."""
    found = []
    for given in paths:
        path = pathlib.Path(given)
        if not path.exists():
            raise ValueError(f"report: {given!r} does not exist")
        for file in ([path] if path.is_file() else sorted(path.rglob("eval-*.json"))):
            result = json.loads(file.read_text())
            if result.get("split") and "group" in result:
                found.append({**result, "file": str(file)})
    if not found:
        raise ValueError(f"report: no split evaluations (eval-*.json written with --split) in {', '.join(paths)}")
    return found


def level_scores(result: dict) -> tuple[list[int], np.ndarray, list[tuple[int, int]]]:
    """One evaluation's win rate per test level (the mean over its episodes on that level), the
    levels in order, and its episodes as (level index, seed)."""
    wins: dict[int, list[bool]] = {}
    for e in result["per_episode"]:
        wins.setdefault(e["level_index"], []).append(bool(e["won"]))
    levels = sorted(wins)
    return levels, np.array([np.mean(wins[k]) for k in levels]), sorted((e["level_index"], e["seed"])
                                                                      for e in result["per_episode"])


def group_scores(results: list[dict], min_runs: int) -> tuple[dict[str, dict], list[str]]:
    """The evaluations of one split grouped by configuration: each group's score matrix (runs x
    levels, rliable's layout) and what the report says about it. All must have played the same
    episodes. Learned groups with fewer than `min_runs` runs are left out (and named in the notes)."""
    first_levels, _, first_episodes = level_scores(results[0])
    groups: dict[str, dict] = {}
    for result in results:
        levels, scores, episodes = level_scores(result)
        if episodes != first_episodes:
            raise ValueError(f"report: {result['file']} played other episodes of {result['split']} than "
                             f"{results[0]['file']} ({len(episodes)} against {len(first_episodes)}); "
                             "agents are compared only on the same episodes")
        group = groups.setdefault(result["group"]["key"], {**result["group"], "rows": [], "files": [], "seeds": [],
                                                           "training": []})
        if result["run_seed"] is not None and result["run_seed"] in group["seeds"]:
            raise ValueError(f"report: seed {result['run_seed']} of {group['label']} is evaluated twice "
                             f"({group['files'][group['seeds'].index(result['run_seed'])]} and {result['file']})")
        group["rows"].append(scores)
        group["levels"] = levels
        group["files"].append(result["file"])
        group["seeds"].append(result["run_seed"])
        group["training"].append(result.get("training") or {})
        group["episodes"] = group.get("episodes", 0) + result["episodes"]
        group["wins"] = group.get("wins", 0) + result["wins"]
    notes = []
    for key in list(groups):
        group = groups[key]
        if group["kind"] == "builtin" and len(group["rows"]) > 1:
            raise ValueError(f"report: {group['label']} is evaluated {len(group['rows'])} times on "
                             f"{results[0]['split']} ({', '.join(group['files'])}); keep one")
        if group["kind"] == "learned" and len(group["rows"]) < min_runs:
            notes.append(f"{group['label']} (trained on {group['trained_on']}): {len(group['rows'])} run(s), "
                         f"fewer than {min_runs}: left out")
            del groups[key]
            continue
        group["scores"] = np.stack(group["rows"])
    return groups, notes


def probability_of_improvement(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """rliable's `metrics.probability_of_improvement` (P(X_m > Y_m), ties counted half,
    averaged over the levels m), counted over all pairs of runs at once instead of one SciPy
    Mann-Whitney test per level: the same floats (U over n*m is a count of halves, exact in a
    double), about a hundred times faster, which is what lets a report with a new learned group
    bootstrap its pairs in minutes rather than hours (test_baselines holds the two equal)."""
    x, y = np.asarray(scores_x, dtype=np.float64), np.asarray(scores_y, dtype=np.float64)
    pairs = (x[:, None, :] > y[None, :, :]) + 0.5 * (x[:, None, :] == y[None, :, :])
    return np.mean(pairs.sum(axis=(0, 1)) / (x.shape[0] * y.shape[0]))


def seeded(function, *args, **kwargs):
    """rliable's stratified bootstrap draws from numpy's global generator (not its random_state),
    so seed that, for the same intervals at every run of the report."""
    np.random.seed(0)
    return function(*args, **kwargs)


class StatsCache:
    """Bootstrap results kept in a JSON file, by what was computed, with how many replications,
    from which scores: the probability of improvement costs minutes a pair, and a report rerun
    on the same runs (or with one more split) should not pay it again. Each estimate is seeded
    on its own, so a kept result is the result a new computation would give."""

    def __init__(self, path: str | None):
        self.path = pathlib.Path(path) if path else None
        self.kept = json.loads(self.path.read_text()) if self.path and self.path.exists() else {}

    def get(self, what: str, reps: int, arrays: list[np.ndarray], compute):
        digest = hashlib.sha256(json.dumps([what, reps]).encode())
        for a in arrays:
            digest.update(repr(a.shape).encode() + np.ascontiguousarray(a, dtype=np.float64).tobytes())
        key = digest.hexdigest()
        if key not in self.kept:
            self.kept[key] = compute()
            if self.path:  # written at once, so a report stopped half way keeps what it computed
                self.path.write_text(json.dumps(self.kept) + "\n")
        return self.kept[key]


def split_statistics(groups: dict[str, dict], reps: int, profile_reps: int, poi_reps: int,
                     cache: StatsCache | None = None) -> dict:
    """rliable's statistics of one split's groups, each group on its own (so a group's figures do
    not depend on which others are in the report): IQM and mean with stratified-bootstrap 95%
    intervals (over runs, within levels) and performance profiles; and each learned group's
    probability of improvement over each built-in agent and over each learned group with a lower
    mean win rate."""
    from rliable import library as rly, metrics
    cache = cache or StatsCache(None)
    taus = np.array(sorted(set(PROFILE_TABLE_TAUS) | set(PROFILE_CHART_TAUS)))

    def aggregates(x):
        point, ci = seeded(rly.get_interval_estimates, {"g": x},
                           lambda s: np.array([metrics.aggregate_iqm(s), metrics.aggregate_mean(s)]), reps=reps)
        return {"point": point["g"].tolist(), "ci": ci["g"].tolist()}

    def profile(x):
        profiles, cis = seeded(rly.create_performance_profile, {"g": x}, taus, reps=profile_reps)
        return {"profile": profiles["g"].tolist(), "ci": cis["g"].tolist()}

    def improvement(x, y):
        point, ci = seeded(rly.get_interval_estimates, {"pair": [x, y]},
                           lambda a, b: np.array([probability_of_improvement(a, b)]), reps=poi_reps)
        return {"p": float(point["pair"][0]), "ci": [float(v) for v in ci["pair"][:, 0]]}

    stats = {}
    for key, g in groups.items():
        agg = cache.get("iqm,mean", reps, [g["scores"]], lambda: aggregates(g["scores"]))
        prof = cache.get("profile " + ",".join(map(str, taus)), profile_reps, [g["scores"]],
                         lambda: profile(g["scores"]))
        stats[key] = {"iqm": agg["point"][0], "iqm_ci": [agg["ci"][0][0], agg["ci"][1][0]],
                      "mean": agg["point"][1], "mean_ci": [agg["ci"][0][1], agg["ci"][1][1]],
                      "profile": {float(t): v for t, v in zip(taus, prof["profile"])},
                      "profile_ci": {float(t): [prof["ci"][0][i], prof["ci"][1][i]] for i, t in enumerate(taus)},
                      "poi": {}}
    # Against the built-in agents the issue names (random, linear, greedy), not random aims
    # through the env, which only checks that the two ways of playing agree; and between learned
    # groups once (P(Y > X) is 1 - P(X > Y)). rliable's bootstrap of it, 2,000 replications of
    # 100 levels, took about 3 minutes a pair with its one SciPy test per level; counted at once
    # (`probability_of_improvement`) it takes seconds, and the cache keeps it across reruns.
    others = [k for k, g in groups.items() if g["kind"] == "builtin" and k != "random-env"]
    learned = sorted((k for k, g in groups.items() if g["kind"] == "learned"), key=lambda k: stats[k]["mean"])
    for i, key in enumerate(learned):
        for other in others + learned[:i]:
            pair = [groups[key]["scores"], groups[other]["scores"]]
            stats[key]["poi"][other] = cache.get("probability_of_improvement", poi_reps, pair,
                                                 lambda: improvement(*pair))
    return stats


def report_data(paths: list[str], min_runs: int = 5, reps: int = 50_000, profile_reps: int = 2_000,
                poi_reps: int = 2_000, cache: str | None = None, modes: bool = True) -> dict:
    """Per split: its groups (score matrices and where they came from), their statistics, each
    test level's game mode (`modes`; it needs the peggle binary), and notes on what was left
    out. `cache`: a JSON file keeping the bootstrap results."""
    by_split: dict[str, list[dict]] = {}
    for result in load_evaluations(paths):
        by_split.setdefault(result["split"], []).append(result)
    data = {}
    # Every split is checked before any bootstrap runs: a mistake in the inputs fails in a second.
    for split in sorted(by_split, key=lambda name: (name.startswith("xt-"), "hard" in name, name)):
        groups, notes = group_scores(by_split[split], min_runs)
        data[split] = {"groups": groups, "notes": notes}
    kept = StatsCache(cache)
    for split, d in data.items():
        d["stats"] = split_statistics(d["groups"], reps, profile_reps, poi_reps, kept) if d["groups"] else {}
        d["modes"] = None
        if d["groups"] and modes:
            try:
                d["modes"] = level_modes(split, next(iter(d["groups"].values()))["levels"])
            except (FileNotFoundError, subprocess.CalledProcessError) as error:  # no binary: the rest stands
                d["notes"].append(f"the win rates by game mode need the peggle binary ({error})")
    return data


def level_modes(split: str, indices: list[int]) -> dict[int, str]:
    """The game mode (classic, beat_the_score, dodge) of each of `split`'s test levels `indices`,
    read from the level files `level_files` writes (and checks against the environment)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = level_files(find_peggle(), get_split(split).options("test"), indices, pathlib.Path(tmp))
        return {k: json.loads(f.read_text())["mode"]["type"] for k, f in files.items()}


def interval(value: float, ci: list[float]) -> str:
    return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def report_markdown(data: dict, command: str, images: dict[str, str]) -> str:
    """docs/baselines.md's tables from `report_data`, per split: IQM, mean and win rate by game
    mode for every agent; the performance profile; the probabilities of improvement. What each
    figure is, is said once in docs/baselines.md ("How the tables are made"), not per table."""
    lines = [f"Made by `{command}`.", ""]
    for split, d in data.items():
        groups, stats, modes = d["groups"], d["stats"], d.get("modes")
        if not groups:
            continue
        order = sorted(groups, key=lambda k: (groups[k]["kind"] == "learned", stats[k]["mean"]))
        any_group = groups[order[0]]
        levels = any_group["scores"].shape[1]
        per_run = any_group["episodes"] // len(any_group["rows"])
        mode_names = sorted(set(modes.values()), key=lambda m: (m != "classic", m)) if modes else []
        mode_heads = "".join(f" {m.replace('_', ' ')} ({sum(v == m for v in modes.values())}) |" for m in mode_names)

        def name(k):
            g = groups[k]
            return g["label"] if g["kind"] == "builtin" else f"{g['label']}, {g['trained_on']}"

        lines += [f"### {split}", "",
                  f"{get_split(split).about}; {plural(levels, 'test level')}, {plural(per_run // levels, 'episode')} "
                  f"each ({per_run:,} a run).", "",
                  "| agent | trained on | runs | IQM [95% CI] | mean win rate [95% CI] |" + mode_heads
                  + " minutes a run (CPU) |", "|---|---|---|---|---|" + "---|" * len(mode_names) + "---|"]
        for key in order:
            g, st = groups[key], stats[key]
            if g["kind"] == "builtin":
                low, high = wilson(g["wins"], g["episodes"])
                iqm, mean, minutes = f"{st['iqm']:.2f}", f"{st['mean']:.2f} (Wilson [{low:.2f}, {high:.2f}])", "-"
            else:
                iqm, mean = interval(st["iqm"], st["iqm_ci"]), interval(st["mean"], st["mean_ci"])
                wall = [t.get("seconds") for t in g["training"] if t.get("seconds")]
                cpu = [t.get("cpu_seconds") for t in g["training"] if t.get("cpu_seconds")]
                minutes = (f"{min(wall) / 60:.0f}-{max(wall) / 60:.0f}" if wall else "-") + \
                          (f" ({min(cpu) / 60:.0f}-{max(cpu) / 60:.0f})" if cpu else "")
            by_mode = "".join(f" {mode_cell(g, modes, m)} |" for m in mode_names)
            lines.append(f"| {g['label']} | {g['trained_on']} | {len(g['rows'])} | {iqm} | {mean} |{by_mode} {minutes} |")
        # Random aims through the env only check that the two ways of playing agree: the table
        # above has them; the profile and the comparisons leave them out.
        shown = [k for k in order if k != "random-env"]
        lines += ["", "Performance profile (share of (run, level) pairs above τ):", "",
                  "| agent | " + " | ".join(f"> {t:g}" for t in PROFILE_TABLE_TAUS) + " |",
                  "|---|" + "---|" * len(PROFILE_TABLE_TAUS)]
        for key in shown:
            lines.append(f"| {name(key)} | " + " | ".join(f"{stats[key]['profile'][t]:.2f}" for t in PROFILE_TABLE_TAUS)
                         + " |")
        if split in images:
            lines += ["", f"![performance profile, {split}]({images[split]})"]
        learned = [k for k in order if groups[k]["kind"] == "learned"]
        columns = [k for k in shown if any(k in stats[x]["poi"] for x in learned)]
        if columns:
            lines += ["", "Probability of improvement, P(row > column) [95% CI]:", "",
                      "| | " + " | ".join(name(k) for k in columns) + " |", "|---|" + "---|" * len(columns)]
            for key in learned:
                cells = [interval(stats[key]["poi"][k]["p"], stats[key]["poi"][k]["ci"]) if k in stats[key]["poi"]
                         else "" for k in columns]
                lines.append(f"| {name(key)} | " + " | ".join(cells) + " |")
        for note in d["notes"]:
            lines += ["", f"Not shown: {note}."]
        lines.append("")
    return "\n".join(lines)


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def mode_cell(group: dict, modes: dict[int, str], mode: str) -> str:
    """A group's win rate on the levels of one game mode: each run's over that mode's episodes;
    for several runs their mean, the lowest and the highest run in brackets."""
    columns = [i for i, k in enumerate(group["levels"]) if modes[k] == mode]
    per_run = group["scores"][:, columns].mean(axis=1)
    return f"{per_run.mean():.2f}" + ("" if len(per_run) == 1 else f" ({per_run.min():.2f}-{per_run.max():.2f})")


def profile_chart(data: dict, split: str, out: pathlib.Path) -> list[pathlib.Path]:
    """One split's performance profiles as SVG (and PNG when rsvg-convert is there)."""
    groups, stats = data[split]["groups"], data[split]["stats"]
    series = [(g["label"] + ("" if g["kind"] == "builtin" else f", {g['trained_on']}"), list(PROFILE_CHART_TAUS),
               [stats[k]["profile"][t] for t in PROFILE_CHART_TAUS]) for k, g in groups.items()]
    svg = out.parent / f"{out.name}-{split}.svg"
    svg.parent.mkdir(parents=True, exist_ok=True)
    svg.write_text(svg_chart(series, f"Performance profile, {split} test levels", "level win rate τ",
                             "share of (run, level) pairs above τ", (0, 1), legend_corner="below", width=720))
    png = to_png(svg)
    return [svg] + ([png] if png else [])


def report(args) -> dict:
    data = report_data(args.runs, args.min_runs, args.reps, args.profile_reps, args.poi_reps, args.cache)
    images = {}
    if args.images:
        prefix = pathlib.Path(args.images)
        for split in data:
            if data[split]["groups"]:
                written = profile_chart(data, split, prefix)
                shown = written[-1]
                images[split] = os.path.relpath(shown, pathlib.Path(args.doc).parent) if args.doc else str(shown)
    command = "python python/baselines/run.py report " + " ".join(args.runs) + \
              "".join(f" --{k.replace('_', '-')} {getattr(args, k)}" for k in ("min_runs", "doc", "images", "cache")
                      if getattr(args, k) not in (None, 5))
    text = report_markdown(data, command, images)
    if args.doc:
        doc = pathlib.Path(args.doc)
        old = doc.read_text()
        if old.count(REPORT_BEGIN) != 1 or old.count(REPORT_END) != 1:
            raise ValueError(f"report: {doc} needs one line {REPORT_BEGIN!r} and one {REPORT_END!r} around the tables")
        head, rest = old.split(REPORT_BEGIN)
        _, tail = rest.split(REPORT_END)
        doc.write_text(f"{head}{REPORT_BEGIN}\n{text}\n{REPORT_END}{tail}")
    else:
        print(text)
    for split, d in data.items():
        for note in d["notes"]:
            print(f"{split}: {note}", file=sys.stderr)
    return data


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train SB3 PPO or DQN on the train levels; writes curve.csv, model.zip, config.json")
    t.add_argument("--algo", choices=["ppo", "dqn"], required=True)
    t.add_argument("--timesteps", type=int, default=1_000_000)
    t.add_argument("--minutes", type=float, default=None, help="stop training after this much wall time")
    t.add_argument("--seed", type=int, default=0, help="one run, into --out")
    t.add_argument("--seeds", help="one run per seed, into --out/seed-S, one after another: a range such as 0-4, "
                                   "or a list such as 0,3,7 (finished runs are skipped)")
    t.add_argument("--split", help="a named split (peggle_gym.splits: easy-v1, hard-v1, xt-easy-v1, xt-hard-v1): "
                                   "train on its train part")
    t.add_argument("--eval", action="store_true", help="then evaluate each run on the split's test part "
                                                      "(RUN/eval-SPLIT.json)")
    t.add_argument("--n-envs", type=int, default=8)
    t.add_argument("--num-levels", type=int, default=TRAIN_LEVELS, help="train level seeds [0, N)")
    t.add_argument("--distribution", choices=["easy", "hard"], default=DISTRIBUTION)
    t.add_argument("--encoder", choices=["objects", "aim"], default="objects",
                   help="aim: one row per aim bin, ranked by AimPolicy (PPO) or AimDQNPolicy (DQN)")
    t.add_argument("--bins", type=int, default=None, help="aim bins (rows of the aim encoder); default the env's")
    t.add_argument("--log-every", type=int, default=10_000, help="a curve point every N environment steps")
    t.add_argument("--torch-threads", type=int, default=1, help="torch's threads (the server takes the other core)")
    t.add_argument("--hyper", help="JSON of extra algorithm arguments, e.g. '{\"n_steps\": 64}'")
    t.add_argument("--out", required=True)
    e = sub.add_parser("eval", help="evaluate a trained model or an agent on the held-out levels")
    who = e.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", help="a train --out folder (a run, or the per-seed runs below it)")
    who.add_argument("--agent", help="random-env, or a built-in agent: random, greedy, linear:FILE")
    e.add_argument("--split", help="a named split: play its test part's fixed evaluation episodes")
    e.add_argument("--levels", type=int, default=None, help="with --split: only its first N test levels (quick checks)")
    e.add_argument("--repeats", type=int, default=None, help="with --split: only its first N episodes a level")
    e.add_argument("--episodes", type=int, default=100)
    e.add_argument("--distribution", choices=["easy", "hard"], default=DISTRIBUTION,
                   help="for agents (a model uses its training distribution)")
    e.add_argument("--threads", type=int, default=None, help="peggle play's threads")
    e.add_argument("--level", type=int, default=None,
                   help="play level K (seed start + K) in every episode, to count how many distinct "
                        "trajectories the seeds give on one level")
    e.add_argument("--start-level", type=int, default=TEST_START,
                   help=f"the first level seed (default {TEST_START}, held out; 0 plays train levels)")
    e.add_argument("--out", help="JSON file for the summary and the episodes (with --split and --model, by "
                                 "default RUN/eval-SPLIT.json)")
    g = sub.add_parser("plot", help="learning curves of train runs as SVG and PNG")
    g.add_argument("runs", nargs="+", help="run folders (train --out, or rllib_ppo.py --out), as FOLDER or LABEL=FOLDER")
    g.add_argument("--ref", action="append", help="a horizontal line on the win-rate chart, NAME=VALUE")
    g.add_argument("--out", required=True, help="path prefix, e.g. docs/images/baselines")
    g.add_argument("--win-legend", choices=["top-left", "bottom-left", "bottom-right"], default="top-left",
                   help="where the win-rate chart's legend goes (the corner its curves leave free)")
    r = sub.add_parser("report", help="rliable's statistics of split evaluations, as docs/baselines.md's tables")
    r.add_argument("runs", nargs="+", help="run folders or eval JSON files (folders are searched for eval-*.json)")
    r.add_argument("--doc", help="replace the tables between the report markers of this Markdown file "
                                 "(default: print them)")
    r.add_argument("--images", help="path prefix for the performance-profile charts, e.g. docs/images/baselines-profile")
    r.add_argument("--min-runs", type=int, default=5, help="leave out learned configurations with fewer runs")
    r.add_argument("--reps", type=int, default=50_000, help="bootstrap replications of IQM and mean (rliable's default)")
    r.add_argument("--profile-reps", type=int, default=2_000, help="of the profiles (rliable's default)")
    r.add_argument("--poi-reps", type=int, default=2_000, help="of the probabilities of improvement")
    r.add_argument("--cache", help="a JSON file keeping the bootstrap results between reports (a pair's probability "
                                   "of improvement takes minutes); the figures are the same with or without it")
    args = p.parse_args(argv)
    try:
        return {"train": train, "eval": evaluate, "plot": plot, "report": report}[args.command](args)
    except ValueError as error:
        if argv is not None:  # called from Python (the tests): let the caller see the exception
            raise
        p.exit(2, f"{p.prog}: error: {error}\n")


if __name__ == "__main__":
    main()
