"""The two backends play the same episodes: every observation, reward, flag and info (and every
picture and refusal) is the same, bit for bit, whether the engine runs in this process (native)
or behind a `peggle serve` pipe, for every encoder, reward, mode, autoreset mode, info layout,
procedural distribution and tier screen (issue 47)."""
import pickle

import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleEnv, PeggleError, PeggleVectorEnv
from conftest import LEVEL, ROOT


def canon(x):
    """A value as something `==` compares bit for bit: arrays by dtype, shape and bytes (object
    arrays element by element), floats by their hex, dicts in their key order."""
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return ("objects", x.shape, [canon(v) for v in x.tolist()])
        return ("array", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, np.generic):
        return ("scalar", x.dtype.str, x.tobytes())
    if isinstance(x, dict):
        return ("dict", [(k, canon(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [canon(v) for v in x])
    if isinstance(x, float):
        return ("float", x.hex())
    return (type(x).__name__, x)


def play(backend: str, vector: bool, steps: int = 8, discrete: int = 0, renders=(), **options) -> list:
    """Everything an episode of seeded resets and random actions shows: what reset and step
    return (refusals included), then the renders asked for."""
    rng = np.random.default_rng(3)
    options.setdefault("max_shots", 4)
    if vector:
        env = PeggleVectorEnv(num_envs=3, backend=backend, **options)
    else:
        env = PeggleEnv(backend=backend, **options)
    try:
        seen = [canon(env.reset(seed=5))]
        for _ in range(steps):
            shape = (3, 1) if vector else (1,)
            a = rng.integers(0, discrete, shape) if discrete else rng.uniform(-1, 1, shape).astype(np.float32)
            try:
                result = env.step(a)
            except PeggleError as e:
                seen.append(("refused", e.code, e.message))
                if vector:  # autoreset disabled: reset the ended ones
                    seen.append(canon(env.reset(options={"reset_mask": ended})))
                continue
            seen.append(canon(result))
            ended = result[2] | result[3] if vector else None
            if not vector and (result[2] or result[3]):
                seen.append(canon(env.reset()))
        token = env.snapshot()
        seen.append(canon(env.step(np.zeros((3, 1) if vector else (1,), np.float32))))
        seen.append(canon(env.restore(token)))
        for r in renders:
            if r == "ansi":
                seen.append(env.render_text(1) if vector else env.client.request("render", format="ansi")["text"])
            elif r == "svg":
                seen.append(env.render_svg(1) if vector else env.render_svg())
            else:
                seen.append(canon(env.render_rgb(1, 64) if vector else env.render_rgb(64)))
        return seen
    finally:
        env.close()


CASES = {
    "objects": dict(level=LEVEL),
    "objects, same_step, rows": dict(level=LEVEL, autoreset="same_step", info_layout="rows", vector=True),
    "objects, same_step, columns": dict(level=LEVEL, autoreset="same_step", vector=True),
    "objects, disabled": dict(level=LEVEL, autoreset="disabled", vector=True),
    "objects, next_step, rows": dict(level=LEVEL, info_layout="rows", vector=True),
    "grid": dict(level=LEVEL, encoder="grid", vector=True),
    "pixels": dict(level=LEVEL, encoder="pixels", pixel_width=48, vector=True),
    "aim, discrete": dict(level=LEVEL, encoder="aim", action="discrete", bins=9, discrete=9, vector=True),
    "aim, single": dict(level=LEVEL, encoder="aim", action="discrete", bins=9, discrete=9),
    "discrete": dict(level=LEVEL, action="discrete", bins=7, discrete=7),
    "reward score": dict(level=LEVEL, reward="score", vector=True),
    "reward win, 12 shots": dict(level=LEVEL, reward="win", max_shots=12, steps=14, vector=True),
    "aim noise, random bucket": dict(level=LEVEL, aim_noise=0.05, bucket_start="random", vector=True),
    "physics 2": dict(level=LEVEL, physics=2, aim_noise=0.05, vector=True),
    "trajectory": dict(level=LEVEL, trajectory=True, steps=3, vector=True),
    "trajectory, single": dict(level=LEVEL, trajectory=True, steps=3),
    "two levels, random order": dict(levels=[LEVEL, str(ROOT / "Levels" / "spiral.json")], level_order="random",
                                     max_objects=200, vector=True),
    "procedural easy": dict(num_levels=20, start_level=100, distribution_mode="easy", vector=True),
    "procedural hard, single": dict(distribution_mode="hard", start_level=7),
    "procedural, templates": dict(num_levels=0, templates=["rings", "funnel"], distribution_mode="easy", vector=True),
    "tier screen": dict(num_levels=3, start_level=0, distribution_mode="tier-hard", steps=3, vector=True),
    "renders": dict(level=LEVEL, renders=("ansi", "svg", "rgb"), vector=True),
    "renders, single": dict(level=LEVEL, renders=("ansi", "svg", "rgb")),
}


@pytest.mark.parametrize("case", CASES)
def test_both_backends_play_the_same_episodes(case, peggle_bin):
    options = dict(CASES[case])
    native, serve = play("native", **_split(options)), play("serve", **_split(dict(CASES[case])))
    assert len(native) == len(serve)
    for k, (a, b) in enumerate(zip(native, serve)):
        assert a == b, f"{case}: entry {k} differs"


@pytest.mark.parametrize("mode", ["classic", "beat_the_score", "dodge"])
def test_every_mode_plays_alike(mode, peggle_bin):
    modes = peggle_gym.make_options()["mode"]["modes"]
    options = dict(level=LEVEL, mode={"type": mode, **modes[mode]}, max_shots=6, vector=True, steps=10)
    assert play("native", **_split(dict(options))) == play("serve", **_split(dict(options)))


def _split(options: dict) -> dict:
    options.setdefault("vector", False)
    return options


def test_a_pickle_opens_on_its_backend_and_a_state_loads_on_either(peggle_bin):
    """A pickle carries the make request and the engine's state (`save_state`): it opens on the
    backend it was made on. The state is the same bytes on both backends, so one saved by the
    library loads into a server made the same way, and both play on alike."""
    env = PeggleVectorEnv(num_envs=2, level=LEVEL, backend="native", max_shots=8)
    single = PeggleEnv(level=LEVEL, backend="native", max_shots=8)
    served = PeggleVectorEnv(num_envs=2, level=LEVEL, backend="serve", max_shots=8)
    try:
        env.reset(seed=1)
        single.reset(seed=1)
        for a in (0.2, -0.6, 0.9):
            env.step(np.full((2, 1), a, np.float32))
            single.step(np.array([a], np.float32))
        for original in (env, single):
            clone = pickle.loads(pickle.dumps(original))
            try:
                assert clone.backend == "native"
                shape = (2, 1) if original is env else (1,)
                assert canon(clone.step(np.full(shape, 0.4, np.float32))) == canon(original.step(np.full(shape, 0.4, np.float32)))
            finally:
                clone.close()
        state = env.client.request("save_state")["state"]
        served.client.request("load_state", state=state)
        assert served.client.request("save_state")["state"] == state
        for a in (0.3, -0.1, 0.7, -0.8):
            assert canon(served.step(np.full((2, 1), a, np.float32))) == canon(env.step(np.full((2, 1), a, np.float32)))
    finally:
        env.close()
        single.close()
        served.close()
