"""Imitating greedy search with a shot-ranking policy (issue 48 item 3;
docs/lab/2026-12-06-imitating-greedy.md). One command a step; on the shared machine every step
ran under ``nice -n 5`` with ``OMP_NUM_THREADS=1`` and ``PEGGLE_BIN`` naming the engine::

    # 1. states of a split's TRAIN levels, played and labelled by the teacher
    python python/baselines/imitate.py collect --split easy-v1 --episodes 760 --seed 0 \
        --out /work/runs/imitate/data/easy-expert-0.npz
    # 1b. DAgger: the states a cloned policy visits, labelled by the teacher
    python python/baselines/imitate.py collect --split hard-v1 --episodes 300 --seed 11 \
        --policy /work/runs/imitate/bc-expert/seed-0 --out /work/runs/imitate/data/hard-dagger1-11.npz
    # 2. behaviour cloning: AimPolicy's network on the teacher's values (soft targets)
    python python/baselines/imitate.py train --data /work/runs/imitate/data/*.npz --seed 0 \
        --epochs 20 --tau 300 --label "BC + DAgger" --out /work/runs/imitate/final-aim/seed-0
    #    --mode-features: a diagnostic that also reads the level's mode (not exportable)
    # 3. the split's held-out evaluation episodes (run.py's), written as
    #    RUN/imitate-eval-SPLIT.json; --search K --samples S: policy-guided search (the
    #    policy's K best bins simulated on S noise offsets); --teacher: the teacher itself
    python python/baselines/imitate.py eval --model /work/runs/imitate/final-aim/seed-0 --split easy-v1
    python python/baselines/imitate.py eval --model RUN --split hard-v1 --search 8 --samples 4
    python python/baselines/imitate.py eval --teacher --split hard-v1 --repeats 1 \
        --out /work/runs/imitate/teacher/imitate-eval-hard-v1-part.json
    # 4. Markdown tables: IQM and mean win rate with rliable's intervals, by mode, shots a decision
    python python/baselines/imitate.py summary /work/runs/builtin/greedy/eval-easy-v1.json \
        /work/runs/imitate/final-*/seed-*/imitate-eval-easy-v1*.json

**The teacher** is the engine's greedy search (`GreedyAgent`, docs/agents.md) restricted to the
31 aims the policy can choose: every bin's shot is simulated on a snapshot of the game at the
aim plus the 8 stratified noise offsets greedy uses (sigma 0.02: 0.02 times the standard normal
quantiles at (j - 1/2)/8), valued with greedy's `ShotValue`, and screened as greedy screens (all
bins on the two offsets nearest one standard deviation, the best quarter, 8 bins, on all 8,
every bin on all 8 when a screened shot won or lost). Its label is the set of bins whose value is
the best (ties: any of them is right). What differs from `ShotValue`: beat-the-score shots are
valued by their points, not points per game second (the environment's info has no shot
duration). The teacher simulates (31 x 2 + 8 x 6 =) 110 shots a decision, 31 x 8 = 248 when a
shot is at stake; the learned policy reads one ``aim`` observation, 31 traced shots.

The teacher's games run in one environment with ``encoder="aim"``, ``action="continuous"`` and
no aim noise: the noise is drawn here (a normal variate times 0.02 on every fired shot, clamped to
the aim range, as Peggle-v1 does), so the bins' offsets can be fired exactly; the bucket starts at
a random phase (v1). A game's level mode (which `ShotValue` needs) comes from the ``objects``
observation's mode one-hot of the same level.

The policy is `peggle_gym.policies.AimPolicy` (hidden 64 unless ``--hidden``), saved as an SB3 PPO
``model.zip`` so that ``python -m peggle_gym.export`` writes it as an ``mlp:FILE`` agent; only
its ranking (the row scorer and the score) is trained, not its value head.

Evaluations are named ``imitate-eval-*.json``, never ``eval-*.json``: ``run.py report FOLDERS``
gathers every ``eval-*.json`` below its folders and refuses evaluations of other episodes, so a
quick one here must not be found there; the full ones have run.py's fields and their own
``group``, and ``run.py report`` takes them given as files.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from peggle_gym import V1_AIM_NOISE, V1_KWARGS, PeggleEnv  # noqa: E402
from peggle_gym.splits import get_split  # noqa: E402

BINS, FEATURES, MAX_AIM, AIM_RANGE = 31, 20, 1.45, 1.5
SAMPLES, SCREEN = 8, 4
#: greedy's stratified offsets (standard normal quantiles at (j - 1/2)/S) and its two screening
#: offsets (the ones nearest one standard deviation either side).
def stratified(samples: int) -> np.ndarray:
    """The standard normal quantiles at (j - 1/2) / samples, j = 1..samples."""
    return np.array([statistics.NormalDist().inv_cdf((j + 0.5) / samples) for j in range(samples)])


OFFSETS = stratified(SAMPLES)
SCREEN_OFFSETS = [int(np.argmin(np.abs(OFFSETS + 1))), int(np.argmin(np.abs(OFFSETS - 1)))]
WIN = 1_000_000.0
MODES = ("classic", "beat_the_score", "dodge")


def bin_angles(bins: int = BINS) -> np.ndarray:
    """Each bin's aim (radians), as `AimEncoder.angle(bin:)` computes it."""
    width = 2 * MAX_AIM / (bins - 1)
    return np.array([-MAX_AIM + b * width for b in range(bins)])


ANGLES = bin_angles()


def shot_value(info: dict, mode: str) -> float:
    """greedy's `ShotValue` of one step's info (beat the score: points, not points a second)."""
    status = info.get("status")
    v = WIN if status == "won" else -WIN if status == "lost" else 0.0
    hits = info.get("hits") or {}
    if mode == "classic":
        v += 1000 * hits.get("orange", 0) + 200 * info.get("free_balls", 0) + info.get("points", 0) / 10 + info.get("pegs_hit", 0)
    elif mode == "beat_the_score":
        v += float(info.get("points", 0))
    else:
        v += 1000 * info.get("caught", 0) - 100 * info.get("pegs_hit", 0)
    return v


def level_modes(options: dict, count: int) -> list[str]:
    """The mode of each level index in [0, count) of the procedural `options` (the ``objects``
    observation's globals 10-12)."""
    modes = []
    with PeggleEnv(**options) as env:
        for k in range(count):
            obs, _ = env.reset(seed=0, options={"level": k})
            modes.append(MODES[int(np.argmax(obs[10:13]))])
    return modes


class Teacher:
    """Greedy search over the aim bins on an environment (encoder aim, continuous action, no
    aim noise): `values` simulates each bin at the noise offsets from a snapshot. ``angles``
    are the candidate aims: the ``bins`` aim bins, or with ``sweep`` greedy's own coarse sweep of
    that many angles (-1.5 + 3 k / (sweep - 1)), fired exactly as the discrete action of an
    ``objects`` environment (a float32 continuous action moves an aim by up to 1e-8 rad, which can
    change a shot); without aim noise only, to check the labels against the engine's greedy."""

    def __init__(self, options: dict, sigma: float = V1_AIM_NOISE, full: bool = False, sweep: int | None = None,
                 bins: int = BINS):
        kw = {**V1_KWARGS, **options, "aim_noise": 0.0, "encoder": "aim", "action": "continuous", "bins": bins}
        if sweep:
            if sigma:
                raise ValueError("sweep: without aim noise only")
            kw.update(encoder="objects", action="discrete", bins=sweep)
        self.env = PeggleEnv(**kw)
        self.sigma, self.full, self.sweep = sigma, full, sweep
        self.angles = bin_angles(bins) if not sweep else np.array([-AIM_RANGE + 2 * AIM_RANGE * k / (sweep - 1) for k in range(sweep)])
        self.shots = 0

    def fire(self, angle: float):
        a = np.array([np.clip(angle, -AIM_RANGE, AIM_RANGE) / AIM_RANGE], dtype=np.float32)
        return self.env.step(a)

    def _value(self, snap, b: int, z: float, mode: str) -> float:
        self.env.restore(snap)
        _, _, _, _, info = self.env.step(b) if self.sweep else self.fire(self.angles[b] + self.sigma * z)
        self.shots += 1
        return shot_value(info, mode)

    def values(self, mode: str, only=None, samples: int = SAMPLES) -> tuple[np.ndarray, np.ndarray]:
        """(each bin's mean value over the offsets, NaN for bins screened out; whether the bin
        got the whole sample). Leaves the environment at the state it was called in. ``only``:
        value just these bins, each on all ``samples`` stratified offsets (no screening)."""
        n = len(self.angles)
        snap = self.env.snapshot()
        offsets = (stratified(samples) if self.sigma > 0 else np.zeros(1))
        sums = np.zeros(n)
        done = np.zeros((n, len(offsets)), bool)
        keep = list(range(n)) if only is None else [int(b) for b in only]
        if self.sigma > 0 and not self.full and only is None:
            stake = False
            for b in range(n):
                for j in SCREEN_OFFSETS:
                    v = self._value(snap, b, offsets[j], mode)
                    stake |= abs(v) >= WIN / 2
                    sums[b] += v
                    done[b, j] = True
            if not stake:  # greedy keeps the best 1/N (at least 2), ties to the aim nearest straight down
                order = sorted(range(n), key=lambda b: (-sums[b], abs(self.angles[b]), self.angles[b] > 0))
                keep = order[:max(2, n // SCREEN)]
        for b in keep:
            for j, z in enumerate(offsets):
                if not done[b, j]:
                    sums[b] += self._value(snap, b, z, mode)
                    done[b, j] = True
        self.env.restore(snap)
        self.env.drop_snapshot(snap)
        full = np.zeros(n, bool)
        full[keep] = True
        return np.where(full, sums / len(offsets), np.nan), full

    def close(self):
        self.env.close()


def best_set(values: np.ndarray) -> np.ndarray:
    """The bins whose value is the best (within float rounding)."""
    v = np.where(np.isnan(values), -np.inf, values)
    top = v.max()
    return v >= top - 1e-9 * max(1.0, abs(top))


def teacher_choice(values: np.ndarray, angles=ANGLES) -> int:
    """greedy's choice among the best bins: nearest straight down, then the negative one."""
    best = np.flatnonzero(best_set(values))
    return int(min(best, key=lambda b: (abs(angles[b]), angles[b] > 0)))


# ------------------------------------------------------------------------------------ policies

class _Spaces:
    """A stand-in environment with the aim policy's spaces (no engine), for building and saving
    an SB3 PPO model around an `AimPolicy`."""

    def __new__(cls, bins: int = BINS, features: int = FEATURES):
        import gymnasium as gym
        from gymnasium import spaces

        class Stub(gym.Env):
            observation_space = spaces.Box(0, 1, (bins, features), np.float32)
            action_space = spaces.Discrete(bins)

            def reset(self, *, seed=None, options=None):
                return np.zeros((bins, features), np.float32), {}

            def step(self, action):
                return np.zeros((bins, features), np.float32), 0.0, True, False, {}
        return Stub()


def new_model(seed: int, hidden: int = 64, lr: float = 3e-4, bins: int = BINS, features: int = FEATURES):
    """An SB3 PPO model with `AimPolicy` (the policy run.py trains), on a stand-in environment."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv
    from peggle_gym.sb3 import AimPolicy
    return PPO(AimPolicy, DummyVecEnv([lambda: _Spaces(bins, features)]), seed=seed, device="cpu", learning_rate=lr,
               policy_kwargs={"hidden": hidden}, verbose=0)


def logits(policy, x):
    """The policy's scores of every bin (the categorical distribution's logits)."""
    return policy.action_net(policy.mlp_extractor.forward_actor(x))


def load_policy(run: str | os.PathLike):
    """The AimPolicy of a run folder (or model.zip), in evaluation mode; ``mode_features`` says
    whether it reads the mode one-hot too (its run's config)."""
    from stable_baselines3 import PPO
    path = pathlib.Path(run)
    model = PPO.load(path / "model.zip" if path.is_dir() else path, device="cpu")
    model.policy.set_training_mode(False)
    config = (path if path.is_dir() else path.parent) / "config.json"
    model.policy.mode_features = bool(config.is_file() and json.loads(config.read_text()).get("mode_features"))
    return model.policy


def scores(policy, obs: np.ndarray, mode: str) -> np.ndarray:
    """The policy's score of every bin of one observation in a level of `mode`."""
    import torch as th
    x = with_modes(obs[None], [MODES.index(mode)]) if getattr(policy, "mode_features", False) else obs[None]
    with th.no_grad():
        return logits(policy, th.as_tensor(np.asarray(x, np.float32))).numpy()[0]


def argmax_actions(policy, obs: np.ndarray) -> np.ndarray:
    import torch as th
    with th.no_grad():
        return logits(policy, th.as_tensor(np.asarray(obs, np.float32))).argmax(1).numpy()


# ---------------------------------------------------------------------------------- collecting

def collect(args) -> dict:
    """Episodes on the split's train levels; every state before a shot is labelled by the
    teacher. The behaviour is the teacher's choice, or with ``--policy`` the policy's (DAgger),
    or with ``--beta`` the teacher's with that probability per episode."""
    import torch as th
    th.set_num_threads(1)
    split = get_split(args.split)
    options = split.options("train")
    modes = level_modes(options, split.train_levels)
    policy = load_policy(args.policy) if args.policy else None
    teacher = Teacher(options, full=args.full, bins=args.bins)
    rng = np.random.default_rng(args.seed)
    rows: dict[str, list] = {k: [] for k in ("obs", "values", "full", "level", "mode", "shot", "episode", "chosen")}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    start, wins, episodes = time.perf_counter(), 0, []

    def save():
        tmp = out.with_name(out.name + ".tmp.npz")
        np.savez_compressed(tmp, obs=np.array(rows["obs"], np.float32).reshape(-1, args.bins, FEATURES),
                            values=np.array(rows["values"]).reshape(-1, args.bins),
                            full=np.array(rows["full"], bool).reshape(-1, args.bins),
                            level=np.array(rows["level"], np.int64), mode=np.array(rows["mode"]),
                            shot=np.array(rows["shot"], np.int64), episode=np.array(rows["episode"], np.int64),
                            chosen=np.array(rows["chosen"], np.int64),
                            meta=json.dumps({"split": args.split, "seed": args.seed, "policy": args.policy,
                                             "beta": args.beta, "episodes": episodes, "teacher_shots": teacher.shots,
                                             "full": args.full, "seconds": round(time.perf_counter() - start, 1)}))
        os.replace(tmp, out)

    try:
        for e in range(args.episodes):
            k = int(rng.integers(split.train_levels))
            obs, info = teacher.env.reset(seed=int(rng.integers(2**31)), options={"level": k})
            expert = policy is None or rng.random() < args.beta
            done, shot = False, 0
            while not done:
                values, full = teacher.values(modes[k])
                b = teacher_choice(values, teacher.angles) if expert else int(np.argmax(scores(policy, obs, modes[k])))
                for key, v in (("obs", obs), ("values", values), ("full", full), ("level", k), ("mode", MODES.index(modes[k])),
                               ("shot", shot), ("episode", e), ("chosen", b)):
                    rows[key].append(v)
                obs, _, terminated, truncated, info = teacher.fire(teacher.angles[b] + V1_AIM_NOISE * rng.standard_normal())
                done, shot = terminated or truncated, shot + 1
            wins += bool(info["won"])
            episodes.append({"level": k, "mode": modes[k], "won": bool(info["won"]), "shots": shot, "expert": expert})
            if (e + 1) % 20 == 0 or e + 1 == args.episodes:
                save()
                print(json.dumps({"episodes": e + 1, "states": len(rows["obs"]), "win_rate": round(wins / (e + 1), 3),
                                  "seconds": round(time.perf_counter() - start, 1),
                                  "shots_per_state": round(teacher.shots / max(1, len(rows["obs"])), 1)}), flush=True)
    finally:
        teacher.close()
    return {"states": len(rows["obs"])}


# ------------------------------------------------------------------------------------ training

def load_data(paths: list[str]) -> dict[str, np.ndarray]:
    """The collected states of every file, with a group id per episode (for the held-out part)."""
    parts = []
    for i, p in enumerate(paths):
        d = np.load(p)
        parts.append({"obs": d["obs"], "values": d["values"], "group": d["episode"] + 1_000_000 * i, "mode": d["mode"]})
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def set_loss(z, mask, weights=None):
    """Cross-entropy of the teacher's best set: -log of the probability the policy puts on any
    bin the teacher rates best."""
    import torch as th
    per = th.logsumexp(z, 1) - th.logsumexp(z.masked_fill(~mask, -th.inf), 1)
    return per.mean() if weights is None else (per * weights).sum() / weights.sum()


def soft_targets(values: np.ndarray, tau: float) -> np.ndarray:
    """The teacher's values as a distribution over bins: exp((v - best) / tau) over the bins it
    valued fully (screened-out bins get 0)."""
    v = np.where(np.isnan(values), -np.inf, values)
    t = np.exp((v - v.max(1, keepdims=True)) / tau)
    return (t / t.sum(1, keepdims=True)).astype(np.float32)


def soft_loss(z, target, weights=None):
    import torch as th
    per = -(target * th.log_softmax(z, 1)).sum(1)
    return per.mean() if weights is None else (per * weights).sum() / weights.sum()


def regret(values: np.ndarray, choice: np.ndarray) -> np.ndarray:
    """Each state's regret of `choice`, as a share of the spread of the teacher's values (0: a
    best bin; 1: as bad as the worst fully valued bin, or screened out)."""
    v = np.where(np.isnan(values), np.nan, values)
    best, worst = np.nanmax(v, 1), np.nanmin(v, 1)
    chosen = v[np.arange(len(v)), choice]
    chosen = np.where(np.isnan(chosen), worst, chosen)
    spread = np.maximum(best - worst, 1e-9)
    return np.where(best > worst, (best - chosen) / spread, 0.0)


def with_modes(obs: np.ndarray, modes: np.ndarray) -> np.ndarray:
    """The diagnostic observation: every row with the level's mode one-hot appended."""
    onehot = np.eye(len(MODES), dtype=np.float32)[np.asarray(modes)]
    return np.concatenate([obs, np.broadcast_to(onehot[:, None, :], obs.shape[:2] + (len(MODES),))], axis=2)


def train_policy(obs: np.ndarray, values: np.ndarray, seed: int, epochs: int, hidden: int = 64, lr: float = 1e-3,
                 batch: int = 256, val_obs=None, val_values=None, log=None, model=None, tau: float = 0.0,
                 weights: np.ndarray | None = None):
    """Behaviour cloning: AimPolicy's bin scores trained by Adam on the teacher's values (NaN:
    not valued): with ``tau`` 0 `set_loss` on the best set, else `soft_loss` on
    `soft_targets`; ``weights`` per state. Returns the SB3 model and per-epoch history (train
    loss; on the held-out states the loss, the accuracy (the policy's argmax in the best set) and
    the mean `regret`)."""
    import torch as th
    th.manual_seed(seed)
    model = model or new_model(seed, hidden, bins=obs.shape[1], features=obs.shape[2])
    policy = model.policy
    params = list(policy.mlp_extractor.scorer.parameters()) + list(policy.action_net.parameters())
    opt = th.optim.Adam(params, lr=lr)

    def targets(v):
        return th.as_tensor(np.stack([best_set(r) for r in v])) if tau == 0 else th.as_tensor(soft_targets(v, tau))

    def loss_of(z, t, w=None):
        return set_loss(z, t, w) if tau == 0 else soft_loss(z, t, w)

    x, t = th.as_tensor(obs), targets(values)
    w = None if weights is None else th.as_tensor(weights, dtype=th.float32)
    rng = np.random.default_rng(seed)
    history = []

    def measure(xo, vo):
        policy.set_training_mode(False)
        with th.no_grad():
            z = logits(policy, th.as_tensor(xo))
            choice = z.argmax(1).numpy()
            best = np.stack([best_set(r) for r in vo])
            return (float(loss_of(z, targets(vo))), float(best[np.arange(len(vo)), choice].mean()),
                    float(regret(vo, choice).mean()))

    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(0, len(order), batch):
            idx = th.as_tensor(order[i:i + batch])
            loss = loss_of(logits(policy, x[idx]), t[idx], None if w is None else w[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        row = {"epoch": epoch + 1, "train_loss": round(total / len(x), 4)}
        if val_obs is not None and len(val_obs):
            row["val_loss"], row["val_accuracy"], row["val_regret"] = (round(v, 4) for v in measure(val_obs, val_values))
        row["train_accuracy"] = round(measure(obs[:5000], values[:5000])[1], 4)
        history.append(row)
        if log:
            log(row)
    policy.set_training_mode(False)
    return model, history


def train(args) -> dict:
    import torch as th
    th.set_num_threads(args.torch_threads)
    data = load_data(args.data)
    obs = with_modes(data["obs"], data["mode"]) if args.mode_features else data["obs"]
    weights = None
    if args.mode_weights:
        weights = np.asarray([float(v) for v in args.mode_weights.split(",")])[data["mode"]]
    rng = np.random.default_rng(1234)  # the same held-out episodes for every seed
    groups = np.unique(data["group"])
    held = set(rng.choice(groups, size=max(1, int(len(groups) * args.val)), replace=False).tolist()) if args.val else set()
    val = np.isin(data["group"], list(held))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    curve = open(out / "curve.jsonl", "w")

    def log(row):
        print(json.dumps(row), flush=True)
        curve.write(json.dumps(row) + "\n")
        curve.flush()
    init = None
    if args.init:
        from stable_baselines3 import PPO
        init = PPO.load(pathlib.Path(args.init) / "model.zip", device="cpu")
    model, history = train_policy(obs[~val], data["values"][~val], args.seed, args.epochs, args.hidden, args.lr,
                                  args.batch, obs[val], data["values"][val], log, model=init, tau=args.tau,
                                  weights=None if weights is None else weights[~val])
    model.save(out / "model.zip")
    metas = [json.loads(str(np.load(p)["meta"])) for p in args.data]
    splits = sorted({m["split"] for m in metas})
    # Data filtered to some templates (the cross-template clones) says which.
    templates = sorted({", ".join(m["templates"]) for m in metas if "templates" in m})
    trained_on = " + ".join(splits) + " (train levels" + (f" of {' / '.join(templates)}" if templates else "") + ")"
    config = {"method": "bc", "trained_on": trained_on, "algo": "ppo", "encoder": "aim", "seed": args.seed, "data": args.data,
              "states": int((~val).sum()), "val_states": int(val.sum()), "epochs": args.epochs, "hidden": args.hidden,
              "lr": args.lr, "batch": args.batch, "init": args.init, "tau": args.tau, "mode_weights": args.mode_weights,
              "mode_features": args.mode_features, "label": args.label, "seconds": round(time.perf_counter() - start, 1),
              "final": history[-1], "trained_timesteps": 0,
              "env_kwargs": {**V1_KWARGS, "encoder": "aim", "action": "discrete"}}
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return config


# ---------------------------------------------------------------------------------- evaluation

def evaluate(args) -> dict:
    """A policy's (or the teacher's) games on the split's evaluation episodes, as run.py's
    ``eval`` writes them (the same episodes; a `group` the report labels by method)."""
    import torch as th
    import run
    th.set_num_threads(1)
    plan = run.split_plan(args.split, args.levels, args.repeats)
    # Named imitate-eval-*.json, not eval-*.json: `run.py report FOLDERS` gathers eval-*.json
    # below its folders and refuses evaluations of other episodes, so these are given to it
    # as files when wanted (partial ones, -part, never).
    part = "" if args.levels is None and args.repeats is None else "-part"
    if args.out and pathlib.Path(args.out).name.startswith("eval-"):
        raise ValueError(f"--out {args.out}: name it imitate-eval-*.json (run.py report gathers eval-*.json)")
    start = time.perf_counter()
    if args.teacher:
        args.bins = args.bins or BINS
        rows, shots, decisions = teacher_games(plan, args.full, args.bins)
        name = f"bin-greedy teacher ({args.bins} bins x {SAMPLES} samples{'' if args.full else ', screen 4'})"
        extra = {"split": plan.split, "train_levels": "-", "run_seed": None,
                 "shots_per_decision": round(shots / decisions, 1),
                 "group": {"kind": "builtin", "key": f"bin-greedy-{args.bins}{'-full' if args.full else ''}",
                           "label": name + " (python)", "trained_on": "-"}}
        out = args.out
    elif args.search:
        folder = pathlib.Path(args.model)
        config = json.loads((folder / "config.json").read_text())
        policy = load_policy(folder)
        bins = args.bins or int(policy.observation_space.shape[0])
        rows, shots, decisions = teacher_games(plan, False, bins, policy, args.search, args.samples)
        label = f"{config.get('label') or 'BC'} + search: top {args.search} bins x {args.samples} samples"
        name = label
        extra = {"split": plan.split, "train_levels": config.get("trained_on"), "run_seed": config["seed"],
                 "model": str(folder), "shots_per_decision": round(shots / decisions, 1), "traced_per_decision": bins,
                 "group": {"kind": "learned", "key": json.dumps({"imitate": label}), "label": label,
                           "trained_on": config.get("trained_on")},
                 "training": {"seconds": config.get("seconds"), "cpu_seconds": config.get("seconds"),
                              "trained_timesteps": 0}}
        out = args.out or folder / f"imitate-eval-{args.split}-search{args.search}x{args.samples}{part}.json"
    else:
        folder = pathlib.Path(args.model)
        config = json.loads((folder / "config.json").read_text())
        policy = load_policy(folder)
        bins = args.bins or int(policy.observation_space.shape[0])
        env_kw = {**V1_KWARGS, "encoder": "aim", "action": "discrete", "bins": bins}
        if policy.mode_features:
            rows = mode_games(policy, env_kw, plan)
        else:
            rows = run.eval_policy(lambda obs, env: int(argmax_actions(policy, obs[None])[0]), env_kw, plan)
        label = (args.label or config.get("label") or f"BC of bin-greedy, `aim` + AimPolicy ({config.get('method', 'bc')})")
        if bins != int(policy.observation_space.shape[0]):
            label += f", played on {bins} bins"
        name = label
        extra = {"split": plan.split, "train_levels": config.get("trained_on", "easy-v1 + hard-v1 train"),
                 "run_seed": config["seed"], "model": str(folder), "shots_per_decision": bins,
                 "group": {"kind": "learned", "key": json.dumps({"imitate": label}), "label": label,
                           "trained_on": config.get("trained_on", "easy-v1 + hard-v1 train")},
                 "training": {"seconds": config.get("seconds"), "cpu_seconds": config.get("seconds"),
                              "trained_timesteps": 0}}
        out = args.out or folder / f"imitate-eval-{args.split}{'' if bins == int(policy.observation_space.shape[0]) else f'-bins{bins}'}{part}.json"
    modes = level_modes(plan.options, max(k for k, _ in plan.episodes) + 1)
    result = run.finish(name, rows, plan, extra, start, out)
    by_mode = {}
    for m in MODES:
        won = [r["won"] for r in rows if modes[r["level_index"]] == m]
        if won:
            by_mode[m] = [round(float(np.mean(won)), 3), len(won)]
    print(json.dumps({"by_mode": by_mode}), flush=True)
    return result


def mode_games(policy, env_kw: dict, plan) -> list[dict]:
    """`run.eval_policy` for the diagnostic policy that also reads the level's mode."""
    import run
    kw = {**{k: v for k, v in env_kw.items() if k not in run.PROCEDURAL_KEYS}, **plan.options}
    modes = level_modes(plan.options, max(k for k, _ in plan.episodes) + 1)
    rows = []
    with PeggleEnv(**kw) as env:
        for k, seed in plan.episodes:
            obs, info = env.reset(seed=seed, options={"level": k})
            ret, shots, done = 0.0, [], False
            while not done:
                action = int(argmax_actions(policy, with_modes(obs[None], [MODES.index(modes[k])]))[0])
                obs, reward, terminated, truncated, info = env.step(action)
                ret += reward
                shots.append([float(info["fired_angle"]), int(info["pegs_hit"]), int(info["points"])])
                done = terminated or truncated
            rows.append({"seed": seed, "level_index": k, "level_seed": int(info["level_seed"]), "level": info["level_name"],
                         "won": bool(info["won"]), "score": int(info["score"]), "shots": len(shots),
                         "return": round(ret, 4), "trajectory": run.episode_key(shots)})
    return rows


def teacher_games(plan, full: bool, bins: int = BINS, policy=None, top: int = 0,
                  samples: int = SAMPLES) -> tuple[list[dict], int, int]:
    """The teacher playing the plan's episodes (its own noise stream: the same levels and game
    seeds, not run.py's shots). With ``policy`` and ``top``: policy-guided search, the policy's
    ``top`` best-scored bins each simulated on ``samples`` offsets, the best value fired (ties:
    the policy's higher score)."""
    import run
    teacher = Teacher(plan.options, full=full, bins=bins)
    modes = level_modes(plan.options, max(k for k, _ in plan.episodes) + 1)
    rows, decisions = [], 0
    try:
        for k, seed in plan.episodes:
            rng = np.random.default_rng([seed, 48])
            obs, info = teacher.env.reset(seed=seed, options={"level": k})
            done, shots = False, []
            while not done:
                decisions += 1
                if policy is None:
                    values, _ = teacher.values(modes[k])
                    b = teacher_choice(values, teacher.angles)
                else:
                    z = scores(policy, obs, modes[k])
                    cand = np.argsort(-z, kind="stable")[:top]
                    values, _ = teacher.values(modes[k], only=cand, samples=samples)
                    b = int(max(cand, key=lambda c: (values[c], z[c])))
                obs, _, te, tr, info = teacher.fire(teacher.angles[b] + V1_AIM_NOISE * rng.standard_normal())
                shots.append([float(info["fired_angle"]), int(info["pegs_hit"]), int(info["points"])])
                done = te or tr
            rows.append({"seed": seed, "level_index": k, "level_seed": int(info["level_seed"]), "level": info["level_name"],
                         "won": bool(info["won"]), "score": int(info["score"]), "shots": len(shots), "return": None,
                         "trajectory": run.episode_key(shots)})
    finally:
        teacher.close()
    return rows, teacher.shots, decisions


#: (simulated, traced) shots a decision of the built-in agents (docs/agents.md): greedy's screened
#: search at sigma > 0; the linear agent scores the 61-bin aim encoder.
BUILTIN_SHOTS = {"greedy": (224, 0), "linear:Agents/linear.json": (0, 61), "random": (0, 0)}


def summary(args) -> str:
    """A Markdown table per split of evaluations (imitate-eval-*.json, run.py's eval-*.json of
    the built-in agents): runs, each run's win rate, the IQM and mean win rate over (run, level)
    scores with rliable's stratified-bootstrap 95% intervals (several runs) or the Wilson
    interval of the pooled episodes (one run), win rate by mode, shots a decision."""
    import run
    from rliable import library as rly, metrics
    by_split: dict[str, dict[str, dict]] = {}
    for f in args.files:
        r = json.loads(pathlib.Path(f).read_text())
        if len(r["per_episode"]) != 1000 and not args.partial:
            continue
        g = by_split.setdefault(r["split"], {}).setdefault(r["group"]["label"], {"runs": [], "files": []})
        g["runs"].append(r)
        g["files"].append(f)
    lines = []
    for split, groups in by_split.items():
        modes = level_modes(get_split(split).options("test"), get_split(split).test_levels)
        counts = {m: modes.count(m) for m in MODES}
        lines += [f"### {split}", "", "| agent | runs | each run | IQM [95% CI] | mean [95% CI] | "
                  + " | ".join(f"{m.replace('_', ' ')} ({counts[m]})" for m in MODES)
                  + " | simulated shots a decision | traced shots a decision |", "|---" * (7 + len(MODES)) + "|"]
        for label, g in groups.items():
            runs = g["runs"]
            scores = np.stack([run.level_scores(r)[1] for r in runs])
            each = ", ".join(f"{r['win_rate']:.3f}" for r in sorted(runs, key=lambda r: r.get("run_seed") or 0))
            if len(runs) > 1:
                np.random.seed(0)
                point, ci = rly.get_interval_estimates(
                    {"g": scores}, lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
                    reps=args.reps)
                iqm = f"{point['g'][0]:.3f} [{ci['g'][0][0]:.3f}, {ci['g'][1][0]:.3f}]"
                mean = f"{point['g'][1]:.3f} [{ci['g'][0][1]:.3f}, {ci['g'][1][1]:.3f}]"
            else:
                wins = sum(e["won"] for e in runs[0]["per_episode"])
                low, high = run.wilson(wins, len(runs[0]["per_episode"]))
                iqm = f"{metrics.aggregate_iqm(scores):.3f}"
                mean = f"{wins / len(runs[0]['per_episode']):.3f} (Wilson [{low:.3f}, {high:.3f}])"
            by_mode = []
            for m in MODES:
                won = [e["won"] for r in runs for e in r["per_episode"] if modes[e["level_index"]] == m]
                by_mode.append(f"{np.mean(won):.2f}" if won else "-")
            sim = runs[0].get("shots_per_decision")
            traced = runs[0].get("traced_per_decision", "")
            if runs[0]["group"]["kind"] == "learned" and "search" not in label:
                sim, traced = 0, runs[0].get("shots_per_decision") or BINS  # run.py's PPO: the 31-bin aim encoder
            key = runs[0]["group"]["key"]
            if key in BUILTIN_SHOTS:
                sim, traced = BUILTIN_SHOTS[key]
            lines.append(f"| {label} | {len(runs)} | {each} | {iqm} | {mean} | " + " | ".join(by_mode)
                         + f" | {'' if sim is None else sim} | {traced or ''} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    return text


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="play episodes on a split's train levels; the teacher labels every state")
    c.add_argument("--split", required=True)
    c.add_argument("--episodes", type=int, default=200)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--policy", help="DAgger: a run folder whose policy plays (the teacher only labels)")
    c.add_argument("--beta", type=float, default=0.0, help="with --policy: the teacher plays this share of episodes")
    c.add_argument("--full", action="store_true", help="no screening: every bin on all 8 offsets")
    c.add_argument("--bins", type=int, default=BINS, help="aim bins (rows of the observation; the teacher's aims)")
    c.add_argument("--out", required=True)
    t = sub.add_parser("train", help="behaviour cloning of the collected labels")
    t.add_argument("--data", nargs="+", required=True)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--hidden", type=int, default=64)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--batch", type=int, default=256)
    t.add_argument("--val", type=float, default=0.1, help="share of episodes held out for the loss curve")
    t.add_argument("--init", help="start from this run's weights")
    t.add_argument("--tau", type=float, default=0.0, help="0: cross-entropy of the best set; else soft targets "
                   "exp((value - best) / tau)")
    t.add_argument("--mode-weights", help="weights of classic, beat-the-score and dodge states, e.g. 1,1,3")
    t.add_argument("--mode-features", action="store_true", help="diagnostic: append the level's mode one-hot to "
                   "every row (not the aim encoder: cannot be exported as mlp:FILE)")
    t.add_argument("--label", help="the configuration's name in evaluations and reports")
    t.add_argument("--torch-threads", type=int, default=1)
    t.add_argument("--out", required=True)
    e = sub.add_parser("eval", help="held-out evaluation on a split's fixed episodes")
    who = e.add_mutually_exclusive_group(required=True)
    who.add_argument("--model")
    who.add_argument("--teacher", action="store_true")
    e.add_argument("--full", action="store_true", help="--teacher without screening")
    e.add_argument("--bins", type=int, help="the aim bins played (default the teacher's 31, a policy's own; a "
                   "policy scores any number of rows)")
    e.add_argument("--search", type=int, default=0, help="with --model: policy-guided search, simulate the policy's "
                   "best N bins and fire the best")
    e.add_argument("--samples", type=int, default=SAMPLES, help="--search: noise offsets a bin")
    e.add_argument("--split", required=True)
    e.add_argument("--levels", type=int)
    e.add_argument("--repeats", type=int)
    e.add_argument("--label")
    e.add_argument("--out")
    m = sub.add_parser("summary", help="Markdown tables of evaluations (IQM and mean with rliable's intervals)")
    m.add_argument("files", nargs="+")
    m.add_argument("--reps", type=int, default=20_000, help="bootstrap replications")
    m.add_argument("--partial", action="store_true", help="also evaluations of part of a split's episodes")
    args = p.parse_args(argv)
    {"collect": collect, "train": train, "eval": evaluate, "summary": summary}[args.command](args)


if __name__ == "__main__":
    main()
