"""The single environment's step in C (`peggle_gym._hot`, docs/native.md "The step in C"): built
here, playing what the Python code plays, bit for bit, and holding no memory it should not."""
import copy
import pickle
import tracemalloc

import numpy as np
import pytest

from peggle_gym import PeggleEnv, PeggleError, native
from conftest import LEVEL, ROOT

FORTRESS = str(ROOT / "Levels" / "fortress.json")


def test_the_extension_is_built_and_bound(peggle_bin):
    # scripts/test builds it in place (python setup.py build_ext --inplace); without it every
    # figure in docs/performance.md's one-env rows would be the Python step's.
    assert native.HOT is not None, "peggle_gym._hot is not built: run `python setup.py build_ext --inplace` in python/"
    assert native.HOT.INFO_INTS == native.INFO_INTS and native.HOT.INFO_REALS == native.INFO_REALS
    env = PeggleEnv(level=LEVEL)
    try:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env._hot(0.1)  # a float: stepped in C
        assert info["shots"] == 1 and obs.dtype == np.float32 and type(reward) is float
        assert env._hot([0.1]) is None and env._hot(np.float32(0.1)) is None  # left to Python
        assert env.step(0.1)[4]["shots"] == 2
        clone = copy.deepcopy(env)
        assert clone._hot is not None and clone._hot is not env._hot  # a copy binds its own session's step
        clone.close()
    finally:
        env.close()


def play(env: PeggleEnv, actions: list, seeds: list[int]) -> list:
    """Every value the environment returns, resetting with the next seed (or without one) at
    each episode's end; a refusal is recorded as ("refused", code, message)."""
    out = [env.reset(seed=seeds[0])]
    episode = 0
    for a in actions:
        try:
            out.append(env.step(a))
        except PeggleError as e:
            out.append(("refused", e.code, e.message))
            continue
        if out[-1][2] or out[-1][3]:
            episode += 1
            out.append(env.reset(seed=seeds[episode % len(seeds)] if episode % 3 else None))
    return out


def same(a, b) -> bool:
    """Equal values of equal types, arrays by dtype, shape and bytes, dicts in the same key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def action_mix(n: int) -> list:
    """The action shapes a caller sends: floats, one-number arrays of several dtypes and shapes
    (which the C step reads), and the rest (numpy scalars, ints, lists, NaN, out of range, a
    bool array), which it leaves to the Python code."""
    rng = np.random.default_rng(7)
    kinds = [lambda x: float(x), lambda x: np.array([x], np.float32), lambda x: np.array([x]),
             lambda x: np.array(x), lambda x: np.float64(x), lambda x: np.float32(x), lambda x: [x],
             lambda x: np.array([int(x > 0)], np.int64), lambda x: np.array([int(x > 0)], np.uint8),
             lambda x: np.array([x], np.float16), lambda x: np.array([x], np.longdouble)]
    out = [kinds[i % len(kinds)](x) for i, x in enumerate(rng.uniform(-1, 1, n))]
    out[5], out[11], out[17] = np.array([np.nan]), np.array([3.0]), np.array([True])
    return out


@pytest.mark.parametrize("options", [dict(level=FORTRESS), dict(level=FORTRESS, trajectory=True, max_shots=6),
                                     dict(distribution_mode="easy", num_levels=5), dict(level=[LEVEL, FORTRESS], cycle_start="seed")],
                         ids=["level-file", "trajectory", "procedural", "two-levels"])
def test_the_c_step_plays_what_the_python_step_plays(options, peggle_bin):
    actions = action_mix(400)
    results = []
    for hot in (True, False):
        env = PeggleEnv(**options)
        try:
            if not hot:
                env._hot = None
            else:
                assert env._hot is not None
            results.append(play(env, actions, [3, 11, 12]))
        finally:
            env.close()
    c, python = results
    assert len(c) == len(python) > 400
    assert any(len(r) == 3 and r[1] == "bad_action" for r in c)  # refusals were met
    assert sum(type(r) is tuple and len(r) == 5 and (r[2] or r[3]) for r in c) >= 3   # and episode ends
    for i, (x, y) in enumerate(zip(c, python)):
        assert same(x, y), f"step {i}: {x!r} != {y!r}"


def test_a_step_after_the_end_and_before_a_reset_are_refused_as_before(peggle_bin):
    env = PeggleEnv(level=FORTRESS, max_shots=1)
    try:
        with pytest.raises(PeggleError, match="^not_reset: call reset before step$"):
            env.step(0.1)
        env.reset(seed=0)
        assert env.step(0.1)[3] is True
        with pytest.raises(PeggleError, match=r"^episode_over: the episode has ended \(terminated or truncated\); call reset\(\)$"):
            env.step(np.array([0.2]))
    finally:
        env.close()


def test_a_pickle_carries_the_state_the_c_steps_left(peggle_bin):
    env = PeggleEnv(level=FORTRESS)
    try:
        env.reset(seed=5)
        for a in (0.1, np.array([-0.4]), np.array([0.3], np.float32)):
            env.step(a)
        clone = pickle.loads(pickle.dumps(env))
        try:
            assert clone._hot is not None
            assert same(clone.step(0.25), env.step(0.25))
        finally:
            clone.close()
    finally:
        env.close()


def test_c_steps_hold_no_memory(peggle_bin):
    """A reference the C step failed to drop (an info, a float, the observation) would stay
    allocated: 6,000 steps would keep megabytes."""
    env = PeggleEnv(level=FORTRESS)
    rng = np.random.default_rng(0)
    actions = [np.array([a]) for a in rng.uniform(-1, 1, 6_000)]
    try:
        env.reset(seed=0)

        def run(part):
            for i, a in enumerate(part):
                if env.step(a)[2]:
                    env.reset(seed=i)
            env.reset(seed=1)
        run(actions[:500])
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        run(actions)
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        assert grown < 64_000, f"{grown:,} bytes more after 6,000 steps"
    finally:
        env.close()
