"""Baselines for Peggle-v1 on procedural levels (docs/baselines.md).

    python python/baselines/run.py train --algo ppo --timesteps 1000000 --minutes 15 --out out/ppo
    python python/baselines/run.py eval --model out/ppo --episodes 100 --out out/eval-ppo.json
    python python/baselines/run.py eval --agent greedy --episodes 100 --out out/eval-greedy.json
    python python/baselines/run.py plot out/ppo out/dqn --out docs/images/baselines

Training plays the train range of procedural levels (level seeds [0, num_levels)); evaluation
plays held-out levels: evaluation episode k is level seed `TEST_START + k` with environment seed
k, one episode per level. Trained policies (SB3 PPO, DQN) and `--agent random-env` play through
`peggle_gym`'s Peggle-v1 environment; the built-in agents (random, greedy, linear:FILE) play the
same level files through `peggle play --sigma 0.02 --seed k` (see docs/baselines.md for what
differs). Needs the `sb3` extra; plotting needs only the standard library and `rsvg-convert`.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run from a checkout without installing peggle_gym

import numpy as np  # noqa: E402

from peggle_gym import ENV_ID_V1, V1_AIM_NOISE, PeggleEnv, V1_KWARGS, find_peggle  # noqa: E402

#: The train levels are seeds [0, num_levels); the test levels start far above any train range
#: used here, so they never overlap.
TEST_START = 100_000
DISTRIBUTION = "easy"
TRAIN_LEVELS = 200
CURVE_FIELDS = ["timesteps", "seconds", "steps_per_s", "episodes", "ep_return_mean", "win_rate",
                "ep_len_mean", "load1"]


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (the same formula as the rater's
    `Stats.wilson`, docs/metrics.md): exactly 0 and 1 at the ends."""
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


def train(args) -> dict:
    from peggle_gym.sb3 import make_vec_env
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kw = {**env_kwargs(args.algo, args.distribution, args.encoder, args.bins), "num_levels": args.num_levels,
          "start_level": 0}
    if args.level_sampler != "uniform":
        kw["level_sampler"] = args.level_sampler
    env = make_vec_env(ENV_ID_V1, n_envs=args.n_envs, seed=args.seed, env_kwargs={**kw, "level": None})
    hyper = json.loads(args.hyper) if args.hyper else {}
    config = {"algo": args.algo, "encoder": args.encoder, "timesteps": args.timesteps, "minutes": args.minutes,
              "seed": args.seed, "n_envs": args.n_envs, "env_id": ENV_ID_V1, "env_kwargs": kw,
              "params": algo_params(args.algo, hyper),
              "torch_threads": args.torch_threads, "load1_start": load1()}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")  # rewritten with the totals at the end
    import torch
    torch.set_num_threads(args.torch_threads)
    try:
        model = make_model(args.algo, env, args.seed, config["params"], args.encoder)
        deadline = time.time() + 60 * args.minutes if args.minutes else None
        start = time.perf_counter()
        model.learn(args.timesteps, callback=make_callback(out / "curve.csv", args.log_every, deadline))
        seconds = time.perf_counter() - start
        model.save(out / "model.zip")
    finally:
        env.close()
    config.update(trained_timesteps=int(model.num_timesteps), seconds=round(seconds, 1),
                  steps_per_s=round(model.num_timesteps / seconds, 1), load1_end=load1())
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(json.dumps({k: config[k] for k in ("algo", "trained_timesteps", "seconds", "steps_per_s")}))
    return config


# --------------------------------------------------------------------------------- evaluation

def episode_key(shots: list) -> str:
    """A trajectory's fingerprint: each shot's fired angle (bit for bit) and what it did."""
    return hashlib.sha1(json.dumps(shots).encode()).hexdigest()


def summary(name: str, episodes: list[dict], distribution: str, extra: dict, level: int | None = None,
            start: int = TEST_START) -> dict:
    n = len(episodes)
    wins = sum(e["won"] for e in episodes)
    low, high = wilson(wins, n)
    return {"agent": name, "episodes": n, "wins": wins, "win_rate": wins / n if n else 0.0,
            "win_low": low, "win_high": high, "mean_score": float(np.mean([e["score"] for e in episodes])),
            "mean_shots": float(np.mean([e["shots"] for e in episodes])),
            "distinct_trajectories": len({e["trajectory"] for e in episodes}),
            "distinct_levels": len({e["level_seed"] for e in episodes}),
            "test_levels": (f"{distribution} seeds {start}..{start + n - 1}" if level is None
                            else f"{distribution} seed {start + level}, every episode"),
            "aim_noise": V1_AIM_NOISE, **extra, "per_episode": episodes}


def eval_policy(predict, env_kw: dict, episodes: int, level: int | None = None,
                start: int = TEST_START) -> list[dict]:
    """Episode k: level seed start + k (held out by default; or start + level for every
    episode), environment seed k, under `env_kw` (Peggle-v1's settings and the policy's
    observation and action) with the test levels in place of the train levels."""
    kw = {**env_kw, "num_levels": max(episodes, (level or 0) + 1), "start_level": start}
    rows = []
    with PeggleEnv(**kw) as env:
        for k in range(episodes):
            obs, info = env.reset(seed=k, options={"level": k if level is None else level})
            level_seed, level_name, ret, shots, done = int(info["level_seed"]), info["level_name"], 0.0, [], False
            while not done:
                obs, reward, terminated, truncated, info = env.step(predict(obs, env))
                ret += reward
                shots.append([float(info["fired_angle"]), int(info["pegs_hit"]), int(info["points"])])
                done = terminated or truncated
            rows.append({"seed": k, "level_seed": level_seed, "level": level_name, "won": bool(info["won"]), "score": int(info["score"]),
                         "shots": len(shots), "return": round(ret, 4), "trajectory": episode_key(shots)})
    return rows


def eval_builtin(agent: str, episodes: int, distribution: str, threads: int | None,
                 level: int | None = None, start: int = TEST_START) -> list[dict]:
    """The built-in agent through `peggle play`: level seed start + k (or + level) from
    `peggle level generate` (the generator the environment uses), game seed k, aim noise 0.02 rad."""
    peggle = find_peggle()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        first, count = (start, episodes) if level is None else (start + level, 1)
        subprocess.run([peggle, "level", "generate", "--count", str(count), "--seed", str(first),
                        "--distribution", distribution, "--out", tmp], check=True, stdout=subprocess.DEVNULL)
        files = sorted(pathlib.Path(tmp).glob("*.json"))
        assert len(files) == count, files
        for k in range(episodes):
            file = files[0 if level is not None else k]
            cmd = [peggle, "play", str(file), "--agent", agent, "--sigma", str(V1_AIM_NOISE), "--seed", str(k),
                   "--episodes", "1", "--json"]
            if threads:
                cmd += ["--threads", str(threads)]
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            e = out["episodes"][0]
            rows.append({"seed": k, "level_seed": first + (k if level is None else 0), "level": out["level"], "won": bool(e["won"]),
                         "score": int(e["score"]), "shots": int(e["shots"]), "return": None,
                         "trajectory": episode_key([e["angles"], e["score"], e["status"]])})
    return rows


def evaluate(args) -> dict:
    start = time.perf_counter()
    if args.model:
        from stable_baselines3 import DQN, PPO
        config = json.loads((pathlib.Path(args.model) / "config.json").read_text())
        algo = config["algo"]
        model = (PPO if algo == "ppo" else DQN).load(pathlib.Path(args.model) / "model.zip", device="cpu")
        distribution = config["env_kwargs"]["distribution_mode"]

        env_kw = {k: v for k, v in config["env_kwargs"].items() if k not in ("num_levels", "start_level", "level_sampler")}
        discrete = env_kw.get("action") == "discrete"

        def predict(obs, env):
            action, _ = model.predict(obs, deterministic=True)
            # SB3's PPO clips to the action space while training; the environment does not clip.
            return int(action) if discrete else np.clip(action, -1, 1)

        rows = eval_policy(predict, env_kw, args.episodes, args.level, args.start_level)
        name = f"{algo}{' aim' if config.get('encoder') == 'aim' else ''} ({config['trained_timesteps']:,} steps)"
        extra = {"train_levels": f"{distribution} seeds 0..{config['env_kwargs']['num_levels'] - 1}",
                 "model": str(args.model)}
    elif args.agent == "random-env":
        distribution = args.distribution
        rng = np.random.default_rng(0)
        rows = eval_policy(lambda obs, env: rng.uniform(-1, 1, size=1).astype(np.float32),
                           env_kwargs("ppo", distribution), args.episodes, args.level, args.start_level)
        name, extra = "random (through the env)", {"train_levels": "-"}
    else:
        distribution = args.distribution
        rows = eval_builtin(args.agent, args.episodes, distribution, args.threads, args.level, args.start_level)
        name, extra = f"{args.agent} (peggle play)", {"train_levels": "-"}
    result = summary(name, rows, distribution, {**extra, "seconds": round(time.perf_counter() - start, 1),
                                                "load1": load1()}, args.level, args.start_level)
    text = json.dumps(result, indent=1)
    if args.out:
        pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.out).write_text(text + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "per_episode"}))
    return result


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
    (name, y), with axes, ticks and a legend in `legend_corner` ("top-left" or "bottom-right").
    Standard library only."""
    left, right, top, bottom = 64, 16, 34, 48
    xs_all = [x for _, xs, _ in series for x in xs] or [0, 1]
    ys_all = [y for _, _, ys in series for y in ys] + [y for _, y in refs] or [0, 1]
    x_ticks = nice_ticks(0, max(xs_all))
    y_ticks = nice_ticks(*(y_range or (min(0, min(ys_all)), max(ys_all))))
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]
    pw, ph = width - left - right, height - top - bottom

    def px(x):
        return left + (x - x0) / (x1 - x0) * pw

    def py(y):
        return top + ph - (y - y0) / (y1 - y0) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
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
    bx, by = (left + 4, top + 3) if legend_corner == "top-left" else (left + pw - box_w - 4, top + ph - box_h - 3)
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
            ("win_rate", "Win rate on train levels (last 100 episodes)", "win rate", (0, 1), True, "top-left"),
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


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train SB3 PPO or DQN on the train levels; writes curve.csv, model.zip, config.json")
    t.add_argument("--algo", choices=["ppo", "dqn"], required=True)
    t.add_argument("--timesteps", type=int, default=1_000_000)
    t.add_argument("--minutes", type=float, default=None, help="stop training after this much wall time")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--n-envs", type=int, default=8)
    t.add_argument("--num-levels", type=int, default=TRAIN_LEVELS, help="train level seeds [0, N)")
    t.add_argument("--distribution", choices=["easy", "hard"], default=DISTRIBUTION)
    t.add_argument("--encoder", choices=["objects", "aim"], default="objects",
                   help="aim: one row per aim bin, ranked by AimPolicy (PPO) or AimDQNPolicy (DQN)")
    t.add_argument("--bins", type=int, default=None, help="aim bins (rows of the aim encoder); default the env's")
    t.add_argument("--level-sampler", choices=["uniform", "learnability"], default="uniform",
                   help="how training draws its levels (docs/environment.md#level-sampler)")
    t.add_argument("--log-every", type=int, default=10_000, help="a curve point every N environment steps")
    t.add_argument("--torch-threads", type=int, default=1, help="torch's threads (the server takes the other core)")
    t.add_argument("--hyper", help="JSON of extra algorithm arguments, e.g. '{\"n_steps\": 64}'")
    t.add_argument("--out", required=True)
    e = sub.add_parser("eval", help="evaluate a trained model or an agent on the held-out levels")
    who = e.add_mutually_exclusive_group(required=True)
    who.add_argument("--model", help="a train --out folder")
    who.add_argument("--agent", help="random-env, or a built-in agent: random, greedy, linear:FILE")
    e.add_argument("--episodes", type=int, default=100)
    e.add_argument("--distribution", choices=["easy", "hard"], default=DISTRIBUTION,
                   help="for agents (a model uses its training distribution)")
    e.add_argument("--threads", type=int, default=None, help="peggle play's threads")
    e.add_argument("--level", type=int, default=None,
                   help="play level K (seed start + K) in every episode, to count how many distinct "
                        "trajectories the seeds give on one level")
    e.add_argument("--start-level", type=int, default=TEST_START,
                   help=f"the first level seed (default {TEST_START}, held out; 0 plays train levels)")
    e.add_argument("--out", help="JSON file for the summary and the episodes")
    g = sub.add_parser("plot", help="learning curves of train runs as SVG and PNG")
    g.add_argument("runs", nargs="+", help="run folders (train --out, or rllib_ppo.py --out), as FOLDER or LABEL=FOLDER")
    g.add_argument("--ref", action="append", help="a horizontal line on the win-rate chart, NAME=VALUE")
    g.add_argument("--out", required=True, help="path prefix, e.g. docs/images/baselines")
    args = p.parse_args(argv)
    return {"train": train, "eval": evaluate, "plot": plot}[args.command](args)


if __name__ == "__main__":
    main()
