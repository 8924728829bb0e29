"""Learned policies out of Python: a trained shot-ranking policy (`peggle_gym.policies`:
``AimPolicy`` for PPO and A2C, ``AimDQNPolicy`` for DQN) saved by Stable-Baselines3 as
``model.zip``, written as the network policy file the Swift agent ``mlp:FILE`` plays, so that
``peggle play --agent mlp:FILE``, ``peggle rate --agents ...,mlp:FILE``, the studio and the reports
use it like any built-in agent (docs/agents.md, "Network policies", describes the format)::

    python -m peggle_gym.export MODEL.zip OUT.json
    python -m peggle_gym.export MODEL.zip OUT.json --check 10000   # then measure the agreement

The file holds the network that scores each row of the ``aim`` observation (`RowScorer` and the
shared score), float32 as it trained; the agent fires at the best-scoring bin's aim, which is the
policy's deterministic action. A DQN policy's Q-value adds one board value to every bin, which
changes no ranking, so its file holds the same network without that value.

`agreement` measures how often the native agent and the Python policy choose the same bin on the
same observations: the native agent plays games through ``peggle play`` (aim noise 0, on
generated levels whose purple peg stays put, so the game draws nothing random), the environment
plays the same aims and gives each observation the agent saw, and the Python policy chooses on
it. Needs the ``sb3`` extra.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from typing import Any

import numpy as np

__all__ = ["FORMAT", "KIND", "AIM_FEATURES", "ROW_EXTRAS", "MODES", "row_extras_of", "ExportError", "load_policy", "document", "export", "write",
           "forward", "weights_hash", "python_actions", "agreement", "main"]

#: The file format this module writes (`MLPDocument.currentFormat` in Swift) when the file has
#: row extras or a search; a file with neither is written as format 1, which older builds read.
FORMAT = 2
#: The agent kind the file is for (``mlp:FILE``).
KIND = "mlp"
#: The ``aim`` encoder the environment's observation comes from, as Swift's `AimEncoder` defines
#: it (Sources/PeggleGame/AimEncoder.swift): its name and version, the aim range of its bins
#: (radians; the environment's is the encoder's default) and the contacts it traces.
AIM_ENCODER, AIM_VERSION, MAX_AIM, MAX_CONTACTS = "aim", 1, 1.45, 4
#: The encoder's features, in row order (`AimEncoder.featureNames`). The Swift loader compares
#: them name by name, so a policy trained on other features is refused there, naming the first
#: that differs.
AIM_FEATURES = ("first_orange", "first_blue", "first_green", "first_purple", "first_special", "first_block",
                "first_none", "chain_orange", "chain_pegs", "chain_green_power", "kaboom_orange", "near_orange",
                "near_pegs", "below_orange", "graze_orange", "lane_reached", "bucket", "aim_abs",
                "first_orange_late", "bucket_late")


#: The level modes in `GameModeKind.allCases` order: the ``mode_one_hot`` row extra's columns.
MODES = ("classic", "beat_the_score", "dodge")
#: Numbers a policy reads beside the encoder's features, appended to every row (Swift's
#: `RowExtra`), by name: their width.
ROW_EXTRAS = {"mode_one_hot": len(MODES)}


def row_extras_of(observations: np.ndarray, modes, extras) -> np.ndarray:
    """``observations`` ``(n, bins, features)`` with each named row extra appended to every row,
    as the native agent builds its rows; ``modes`` gives each observation's level mode (a name in
    `MODES` or its index)."""
    x = np.asarray(observations, dtype=np.float32)
    parts = [x]
    for name in extras:
        if name != "mode_one_hot":
            raise ExportError(f"row extra {name!r} is not one of {sorted(ROW_EXTRAS)}")
        index = np.asarray([MODES.index(m) if isinstance(m, str) else int(m) for m in modes])
        hot = np.eye(len(MODES), dtype=np.float32)[index]
        parts.append(np.broadcast_to(hot[:, None, :], (x.shape[0], x.shape[1], len(MODES))))
    return np.concatenate(parts, axis=2) if len(parts) > 1 else x


class ExportError(ValueError):
    """A model that cannot be written as a network policy file, and why."""


# ------------------------------------------------------------------------------------- reading

def load_policy(model: str | os.PathLike):
    """The policy saved in an SB3 ``model.zip`` (PPO, A2C or DQN with the aim ranking policies),
    on the CPU, in evaluation mode. Read without the algorithm: its class, spaces and keyword
    arguments come from the file."""
    from stable_baselines3.common.save_util import load_from_zip_file

    from .policies import AimDQNPolicy, AimPolicy
    if not pathlib.Path(model).is_file():
        raise ExportError(f"{model}: no such file (an SB3 model.zip)")
    data, params, _ = load_from_zip_file(os.fspath(model), device="cpu")
    cls = data.get("policy_class")
    if not (isinstance(cls, type) and issubclass(cls, (AimPolicy, AimDQNPolicy))):
        raise ExportError(f"{model}: the policy is {getattr(cls, '__name__', cls)!r}; only the aim ranking policies "
                          "(peggle_gym.policies.AimPolicy, AimDQNPolicy) score one row per bin as the mlp agent does")
    policy = cls(data["observation_space"], data["action_space"], lambda _: 0.0, **(data.get("policy_kwargs") or {}))
    policy.load_state_dict(params["policy"])
    policy.set_training_mode(False)
    return policy


def _ranking(policy):
    """(`RowScorer`, the shared score ``Linear``) of an aim ranking policy."""
    from .policies import AimDQNPolicy, AimPolicy
    if isinstance(policy, AimPolicy):
        return policy.mlp_extractor.scorer, policy.action_net.score
    if isinstance(policy, AimDQNPolicy):
        return policy.q_net.q_net.scorer, policy.q_net.q_net.score
    raise ExportError(f"{type(policy).__name__} is not an aim ranking policy (AimPolicy or AimDQNPolicy)")


def _layer(linear, activation: str) -> dict:
    w = linear.weight.detach().cpu().numpy().astype(np.float32)
    b = linear.bias.detach().cpu().numpy().astype(np.float32)
    return {"inputs": int(w.shape[1]), "outputs": int(w.shape[0]), "activation": activation,
            "weights": [[_number(v) for v in row] for row in w], "biases": [_number(v) for v in b]}


def _sequence(module, where: str) -> list[dict]:
    """A ``Sequential`` of ``Linear`` layers, each optionally followed by a ``ReLU``."""
    import torch as th
    layers: list[dict] = []
    for i, m in enumerate(module):
        if isinstance(m, th.nn.Linear):
            layers.append(_layer(m, "identity"))
        elif isinstance(m, th.nn.ReLU) and layers and layers[-1]["activation"] == "identity":
            layers[-1]["activation"] = "relu"
        else:
            raise ExportError(f"{where}[{i}] is {type(m).__name__}: the format has Linear layers, each followed by a "
                              "ReLU or by nothing")
    return layers


def _number(v: np.float32) -> float:
    """The float32 ``v`` as the shortest decimal that reads back as it (as a double, then
    float32: what the Swift loader does); `json` writes that double with those digits."""
    x = float(np.format_float_scientific(np.float32(v), unique=True))
    if np.float32(x).view(np.uint32) != np.float32(v).view(np.uint32):  # never seen; the hash would refuse it
        x = float(np.float32(v))
    return x


# ------------------------------------------------------------------------------------ the file

def _structure(network: dict) -> str:
    """The structure text the hash covers (`MLPNetwork.structure`)."""
    def text(layer):
        return f"{layer['inputs']}x{layer['outputs']}:{layer['activation']}"
    parts = ["rows=" + ",".join(text(layer) for layer in network["rows"])]
    if network.get("board") is not None:
        parts += ["pool=" + ",".join(network["board"]["pool"]),
                  "board=" + ",".join(text(layer) for layer in network["board"]["layers"]),
                  "mix=" + text(network["mix"])]
    parts.append("score=" + text(network["score"]))
    return ";".join(parts)


def _layers(network: dict) -> list[dict]:
    """Every layer in the file's order: rows, board, mix, score."""
    board = network.get("board")
    return (list(network["rows"]) + (list(board["layers"]) + [network["mix"]] if board is not None else [])
            + [network["score"]])


def weights_hash(network: dict) -> str:
    """`MLPNetwork.weightsHash`: FNV-1a (64 bits) of the structure text, ";", and every number's
    float32 bit pattern in hex, layer by layer (weights row by row, then biases), joined by ","."""
    bits = []
    for layer in _layers(network):
        values = np.concatenate([np.asarray(layer["weights"], dtype=np.float32).ravel(),
                                 np.asarray(layer["biases"], dtype=np.float32)])
        bits.extend(format(int(b), "x") for b in values.view(np.uint32))
    h = 0xCBF29CE484222325
    for byte in (_structure(network) + ";" + ",".join(bits)).encode():
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def document(policy, source: dict | None = None, row_extras: tuple[str, ...] = (),
             search: tuple[int, int] | None = None) -> dict:
    """The network policy file of an aim ranking policy, as a dict (`write` writes it).
    ``row_extras``: names in `ROW_EXTRAS` the policy reads after the encoder's features, in
    order; ``search``: (bins, samples), the native agent's search around the network."""
    import torch as th
    from .policies import RowScorer
    scorer, score = _ranking(policy)
    if type(scorer) is not RowScorer:
        raise ExportError(f"the policy's scorer is {type(scorer).__name__}, not peggle_gym.policies.RowScorer")
    bins, features = policy.observation_space.shape
    unknown = [e for e in row_extras if e not in ROW_EXTRAS]
    if unknown or len(set(row_extras)) != len(row_extras):
        raise ExportError(f"row extras {list(row_extras)}: each at most once, of {sorted(ROW_EXTRAS)}")
    extra = sum(ROW_EXTRAS[e] for e in row_extras)
    if features != len(AIM_FEATURES) + extra:
        raise ExportError(f"the policy reads rows of {features} features; the '{AIM_ENCODER}' v{AIM_VERSION} encoder's "
                          f"rows have {len(AIM_FEATURES)}" + (f" and the row extras {list(row_extras)} add {extra}" if extra else
                                                               " (a policy that reads the mode too needs --row-extras)"
                                                               if features == len(AIM_FEATURES) + ROW_EXTRAS["mode_one_hot"] else ""))
    if search is not None and not (1 <= search[0] <= bins and 1 <= search[1] <= 1000):
        raise ExportError(f"search {search[0]}x{search[1]}: bins must be 1 to {bins}, samples 1 to 1000")
    network = {"rows": _sequence(scorer.rows, "scorer.rows"),
               # RowScorer.forward: th.cat([mean over the bins, max over the bins]) through
               # `board`, then relu(mix(row) + board) for each row.
               "board": {"pool": ["mean", "max"], "layers": _sequence(scorer.board, "scorer.board")},
               "mix": _layer(scorer.mix, "relu"),
               "score": _layer(score, "identity")}
    doc = {"format": FORMAT if row_extras or search else 1, "kind": KIND,
           "encoder": {"name": AIM_ENCODER, "version": AIM_VERSION, "bins": int(bins), "max_aim": MAX_AIM,
                       "max_contacts": MAX_CONTACTS, "features": list(AIM_FEATURES)},
           "network": network, "weights_hash": weights_hash(network)}
    if row_extras:
        doc["row_extras"] = list(row_extras)
    if search is not None:
        doc["search"] = {"bins": int(search[0]), "samples": int(search[1])}
    if source:
        doc["source"] = source
    # The file must compute what the policy computes: its scores on random boards, recomputed
    # from the file's numbers, against the policy's own. A change to RowScorer that the format
    # does not describe fails here, not in a game.
    rng = np.random.default_rng(0)
    boards = rng.random((16, bins, features), dtype=np.float32) * (rng.random((16, bins, features)) < 0.5)
    with th.no_grad():
        z, _ = scorer(th.as_tensor(boards))
        theirs = score(z).squeeze(-1).numpy().astype(np.float64)
    ours = forward(doc, boards)
    scale = max(1.0, float(np.abs(theirs).max()))
    if not np.allclose(ours, theirs, rtol=0, atol=1e-4 * scale):
        raise ExportError(f"the exported network's scores differ from the policy's by up to "
                          f"{float(np.abs(ours - theirs).max()):.3g}: the policy computes something the format does not hold")
    return doc


def _text(doc: dict) -> str:
    """JSON with sorted keys, one field a line, and each list of numbers (a bias vector, one row
    of weights) on one line."""
    text = json.dumps(doc, indent=1, sort_keys=True, allow_nan=False)
    return re.sub(r"\[\s+([-+0-9.eE,\s]+?)\s*\]", lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]",
                  text) + "\n"


def write(doc: dict, out: str | os.PathLike) -> None:
    """Writes `doc` to ``out`` atomically (a reader never sees half a file)."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{os.getpid()}")
    tmp.write_text(_text(doc))
    os.replace(tmp, out)


def export(model: str | os.PathLike, out: str | os.PathLike, command: str | None = None, note: str | None = None,
           row_extras: tuple[str, ...] = (), search: tuple[int, int] | None = None) -> dict:
    """Writes the network policy file of the policy in ``model`` (an SB3 ``model.zip``) to
    ``out`` and returns it. ``source`` records where it came from, for people: the model file and
    its SHA-256, the policy class, and, when ``model`` sits in a ``run.py train`` folder, that
    run's ``config.json``; ``command`` (the training command) and ``note`` (why this model, say)
    are written there too. ``row_extras`` and ``search`` as `document` takes them."""
    model = pathlib.Path(model)
    policy = load_policy(model)
    source: dict[str, Any] = {"exporter": "peggle_gym.export", "model": str(model),
                              "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
                              "policy": f"{type(policy).__module__}.{type(policy).__qualname__}",
                              "hidden": int(policy.hidden)}
    config = model.with_name("config.json")
    if config.is_file():
        source["training"] = json.loads(config.read_text())
    if command:
        source["command"] = command
    if note:
        source["note"] = note
    doc = document(policy, source, tuple(row_extras), search)
    write(doc, out)
    return doc


# ------------------------------------------------------------------------------------ scoring

def forward(doc: dict, observations: np.ndarray, dtype=np.float64) -> np.ndarray:
    """The file's network on ``observations`` ``(n, bins, features)`` (or one ``(bins,
    features)``) in ``dtype``: the scores ``(n, bins)``. The reference the native agent and the
    Python policy are both compared with (in float64, neither's rounding)."""
    x = np.asarray(observations, dtype=dtype)
    single = x.ndim == 2
    x = x[None] if single else x

    def apply(layer, h, activation=True):
        y = h @ np.asarray(layer["weights"], dtype=dtype).T + np.asarray(layer["biases"], dtype=dtype)
        return np.maximum(y, 0) if activation and layer["activation"] == "relu" else y

    net = doc["network"]
    h = x
    for layer in net["rows"]:
        h = apply(layer, h)
    board = net.get("board")
    if board is not None:
        pooled = np.concatenate([{"mean": h.mean(axis=1), "max": h.max(axis=1)}[p] for p in board["pool"]], axis=1)
        for layer in board["layers"]:
            pooled = apply(layer, pooled)
        h = apply(net["mix"], h, activation=False) + pooled[:, None, :]
        h = np.maximum(h, 0) if net["mix"]["activation"] == "relu" else h
    scores = apply(net["score"], h)[..., 0]
    return scores[0] if single else scores


def python_actions(policy, observations: np.ndarray, batch: int = 1024) -> np.ndarray:
    """The policy's deterministic actions (SB3's ``predict(..., deterministic=True)``, what
    ``run.py eval`` plays) on ``observations`` ``(n, bins, features)``."""
    out = [policy.predict(observations[i:i + batch], deterministic=True)[0] for i in range(0, len(observations), batch)]
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, np.int64)


# ---------------------------------------------------------------------------------- agreement

def _bin_angles(bins: int, max_aim: float) -> list[float]:
    """Each bin's aim exactly as Swift's `AimEncoder.angle(bin:)` computes it (the same double
    operations), so the native agent's aims map back to bins bit for bit."""
    width = 2 * max_aim / (bins - 1)
    return [-max_aim + b * width for b in range(bins)]


def _levels(peggle: str, folder: pathlib.Path, distribution: str, seed: int, count: int) -> list[pathlib.Path]:
    """``count`` generated levels from ``seed`` on, each with ``purple_roams`` false: the
    roaming purple peg is the game's only random draw, so the games then depend on the aims alone
    and `peggle play` and the environment play the same game from the same aims."""
    out = folder / f"{distribution}-{seed}"
    subprocess.run([peggle, "level", "generate", "--seed", str(seed), "--count", str(count), "--distribution", distribution,
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    files = sorted(out.glob("*.json"))
    for f in files:
        level = json.loads(f.read_text())
        level["purple_roams"] = False
        f.write_text(json.dumps(level))
    return files


def _native_game(peggle: str, policy_file: str, level: pathlib.Path) -> dict:
    """The native agent's game of ``level``: aim noise 0, episode seed 0, one thread."""
    cmd = [peggle, "play", str(level), "--agent", f"{KIND}:{policy_file}", "--sigma", "0", "--seed", "0",
           "--episodes", "1", "--threads", "1", "--json"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["episodes"][0]


def agreement(model: str | os.PathLike, policy_file: str | os.PathLike, observations: int = 10_000, *,
              peggle: str | None = None, seed: int = 300_000, chunk: int = 100,
              distributions: tuple[str, ...] = ("easy", "hard"), workers: int = 2) -> dict:
    """How often the native agent (``mlp:policy_file``) and the Python policy (``model``) choose
    the same bin, on the first ``observations`` observations of the native agent's games.

    Levels: ``chunk`` generated levels of each distribution at a time, from level seed ``seed``
    on (outside the train and test ranges of ``run.py``), purple pegs fixed (`_levels`). On each
    level the native agent plays one game through ``peggle play`` (aim noise 0); the
    environment (``encoder="aim"``, ``action="discrete"``, the file's bins, no noise, the bucket
    starting at the centre, 200 shots at most: `peggle play`'s settings) replays its aims as
    bins, checking that each shot was fired at the native agent's aim and that the game ends
    with its score, and records every observation before a shot. The Python policy then chooses
    on each, and the file's network in float64 (`forward`) says which disagreements are near
    ties.

    Returns ``observations``, ``levels``, ``agree`` (native == Python) and ``agreement`` (its
    share), ``native_vs_float64`` and ``python_vs_float64`` (choices other than the float64
    argmax's), ``smallest_top2_gap`` (the float64 gap between the best two bins, smallest over
    all observations) and ``disagreements``: each one's observation index, the native, Python
    and float64 bins, ``gap`` (the float64 scores of the two chosen bins apart) and ``scale``
    (the largest score's magnitude on that board)."""
    from . import PeggleEnv, find_peggle
    peggle = peggle or find_peggle()
    policy_file = os.fspath(policy_file)
    doc = json.loads(pathlib.Path(policy_file).read_text())
    extras = tuple(doc.get("row_extras", ()))
    enc = doc["encoder"]
    bins, angles = int(enc["bins"]), _bin_angles(int(enc["bins"]), float(enc["max_aim"]))
    index = {a: b for b, a in enumerate(angles)}
    policy = load_policy(model)
    obs_rows: list[np.ndarray] = []
    modes: list[str] = []
    native: list[int] = []
    levels = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(workers) as pool:
        if "search" in doc:
            # The network is what is compared: the same file without its search fires the
            # network's own best bin.
            plain = {k: v for k, v in doc.items() if k != "search"}
            plain["format"] = FORMAT if extras else 1
            policy_file = os.fspath(pathlib.Path(tmp) / "network.json")
            write(plain, policy_file)
        start = seed
        while len(obs_rows) < observations:
            for distribution in distributions:
                files = _levels(peggle, pathlib.Path(tmp), distribution, start, chunk)
                games = list(pool.map(lambda f: _native_game(peggle, policy_file, f), files))
                # cycle_start="seed" only quiets the seeded-cycle warning: each reset names its level.
                with PeggleEnv(levels=[str(f) for f in files], encoder="aim", action="discrete", bins=bins,
                               max_shots=200, cycle_start="seed", backend=None) as env:
                    for k, (f, game) in enumerate(zip(files, games)):
                        mode = json.loads(f.read_text())["mode"]["type"]
                        obs, info = env.reset(seed=0, options={"level": k})
                        done = False
                        for shot, angle in enumerate(game["angles"]):
                            if angle not in index:
                                raise RuntimeError(f"{f.name}: the native agent fired {angle!r}, no bin's aim")
                            obs_rows.append(obs)
                            modes.append(mode)
                            native.append(index[angle])
                            obs, _, terminated, truncated, info = env.step(index[angle])
                            if float(info["fired_angle"]) != angle:
                                raise RuntimeError(f"{f.name} shot {shot + 1}: the environment fired "
                                                   f"{float(info['fired_angle'])!r}, the native agent {angle!r}")
                            done = terminated or truncated
                        if not done or int(info["score"]) != int(game["score"]):
                            raise RuntimeError(f"{f.name}: the environment's replay of the native game ends "
                                               f"{'with score ' + str(int(info['score'])) if done else 'unfinished'}, "
                                               f"the native game with score {game['score']} after {game['shots']} shots")
                        levels += 1
                        if len(obs_rows) >= observations:
                            break
                if len(obs_rows) >= observations:
                    break
            start += chunk
    x = row_extras_of(np.stack(obs_rows[:observations]), modes[:observations], extras)
    nat = np.asarray(native[:observations])
    py = python_actions(policy, x)
    s64 = forward(doc, x)
    best64 = s64.argmax(axis=1)
    top2 = np.sort(s64, axis=1)[:, -2:]
    differ = np.flatnonzero(nat != py)
    return {"observations": int(len(x)), "levels": levels, "bins": bins,
            "agree": int((nat == py).sum()), "agreement": float((nat == py).mean()),
            "native_vs_float64": int((nat != best64).sum()), "python_vs_float64": int((py != best64).sum()),
            "smallest_top2_gap": float((top2[:, 1] - top2[:, 0]).min()),
            "disagreements": [{"index": int(i), "native": int(nat[i]), "python": int(py[i]), "float64": int(best64[i]),
                               "gap": float(abs(s64[i, nat[i]] - s64[i, py[i]])),
                               "scale": float(np.abs(s64[i]).max())}
                              for i in differ]}


# ---------------------------------------------------------------------------------- command

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m peggle_gym.export", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="an SB3 model.zip of PPO, A2C (AimPolicy) or DQN (AimDQNPolicy) on the aim observation")
    parser.add_argument("out", help="the network policy file to write, e.g. Agents/mlp.json")
    parser.add_argument("--command", help="the command that trained the model, recorded in the file's source")
    parser.add_argument("--note", help="a remark for people (which run this is, why it was chosen), recorded in the file's source")
    parser.add_argument("--row-extras", default="", metavar="NAMES",
                        help=f"comma-separated numbers the policy reads after the encoder's features ({', '.join(ROW_EXTRAS)})")
    parser.add_argument("--search", metavar="BINSxSAMPLES",
                        help="the native agent simulates the network's best BINS bins on SAMPLES aim offsets each, greedy's "
                             "valuation, and fires the best (e.g. 8x4)")
    parser.add_argument("--check", type=int, metavar="N", default=0,
                        help="then measure the agreement of the native agent and the Python policy on N observations "
                             "(peggle play and the environment; PEGGLE_BIN names the engine)")
    args = parser.parse_args(argv)
    search = None
    if args.search:
        m = re.fullmatch(r"(\d+)x(\d+)", args.search)
        if not m:
            sys.exit(f"error: --search {args.search!r}: expected BINSxSAMPLES, e.g. 8x4")
        search = (int(m.group(1)), int(m.group(2)))
    try:
        doc = export(args.model, args.out, args.command, args.note,
                     tuple(e for e in args.row_extras.split(",") if e), search)
    except ExportError as e:
        sys.exit(f"error: {e}")
    sizes = [doc["network"]["rows"][0]["inputs"]] + [layer["outputs"] for layer in doc["network"]["rows"]]
    print(json.dumps({"out": args.out, "bins": doc["encoder"]["bins"], "rows": sizes,
                      "parameters": sum(np.size(layer["weights"]) + len(layer["biases"]) for layer in _layers(doc["network"])),
                      "weights_hash": doc["weights_hash"]}), flush=True)
    if args.check:
        result = agreement(args.model, args.out, args.check)
        print(json.dumps({k: v for k, v in result.items() if k != "disagreements"}), flush=True)
        for d in result["disagreements"]:
            print(json.dumps(d), flush=True)


if __name__ == "__main__":
    main()
