"""Snapshots in Python (`snapshot` / `restore` on both classes) and copies: `copy.deepcopy` and
`pickle` give an independent environment in the same state."""
import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleError, Snapshot
from conftest import LEVEL, ROOT

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

PURPLE = str(ROOT / "Levels" / "purple-haze.json")
ACTIONS = [0.3, -0.5, 0.1, 0.8, -0.2, 0.05, -0.7, 0.45]


def run(env, actions):
    """Steps a single env (resetting when an episode ends); observation bytes, rewards, infos' fired angles."""
    out = []
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(np.array([a], np.float32))
        out.append((obs.tobytes(), reward, info.get("fired_angle")))
        if terminated or truncated:
            obs, info = env.reset()
            out.append((obs.tobytes(), info["game_seed"]))
    return out


def run_vec(envs, actions):
    out = []
    for a in actions:
        obs, rewards, terminated, truncated, infos = envs.step(np.full((envs.num_envs, 1), a, np.float32))
        out.append((obs.tobytes(), rewards.tolist(), terminated.tolist(), np.asarray(infos.get("fired_angle", [])).tolist()))
    return out


def test_restore_replays_a_single_env(make_env):
    env = make_env(levels=[LEVEL, PURPLE], aim_noise=0.02, bucket_start="random", max_shots=4)
    env.reset(seed=7)
    run(env, ACTIONS[:2])
    obs_then = env.step(np.array([0.2], np.float32))[0]
    token = env.snapshot()
    assert isinstance(token, Snapshot)
    first = run(env, ACTIONS)
    assert env.restore(token).tobytes() == obs_then.tobytes()
    assert run(env, ACTIONS) == first
    env.restore(token)  # a token stays valid until dropped
    assert run(env, ACTIONS) == first
    env.drop_snapshot(token)
    with pytest.raises(PeggleError) as e:
        env.restore(token)
    assert e.value.code == "no_snapshot"


def test_restore_replays_a_vector_env_in_every_autoreset_mode(make_vec):
    for mode in ("next_step", "same_step", "disabled"):
        envs = make_vec(num_envs=3, aim_noise=0.02, max_shots=3, autoreset=mode)
        envs.reset(seed=1)
        obs_then = envs.step(np.zeros((3, 1), np.float32))[0]
        token = envs.snapshot()
        actions = ACTIONS[:2] if mode == "disabled" else ACTIONS
        first = run_vec(envs, actions)
        assert envs.restore(token).tobytes() == obs_then.tobytes()
        assert run_vec(envs, actions) == first


def test_a_token_of_another_env_is_refused(make_env):
    a, b = make_env(), make_env()
    a.reset(seed=0)
    b.reset(seed=0)
    token = a.snapshot()
    with pytest.raises(ValueError, match="belongs to another environment's engine"):
        b.restore(token)
    with pytest.raises(TypeError, match="restore takes a token from snapshot"):
        b.restore(1)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_is_independent_and_in_the_same_state(make_env, how):
    env = make_env(levels=[LEVEL, PURPLE], aim_noise=0.02, bucket_start="random", max_shots=4)
    env.reset()  # seedless: the copy must carry the generators as this reset and the steps left them
    run(env, ACTIONS[:5])
    clone = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    try:
        assert clone.client.token != env.client.token
        assert clone.render_svg() == env.render_svg()
        # The clone plays differently first; the original must not notice.
        reference = copy.deepcopy(env)
        run(clone, [-0.9, 0.9, 0.0])
        try:
            assert run(env, ACTIONS) == run(reference, ACTIONS)
        finally:
            reference.close()
        # The same seed still plays the same episode in both.
        env.reset(seed=3)
        clone.reset(seed=3)
        assert run(env, ACTIONS) == run(clone, ACTIONS)
    finally:
        clone.close()


def test_a_copied_vector_env_and_a_wrapped_env_go_on_alike(make_vec, peggle_bin):
    envs = make_vec(num_envs=3, aim_noise=0.02, max_shots=3)
    envs.reset(seed=4)
    run_vec(envs, ACTIONS[:4])
    clone = pickle.loads(pickle.dumps(envs))
    try:
        assert run_vec(clone, ACTIONS) == run_vec(envs, ACTIONS)
    finally:
        clone.close()
    wrapped = gym.make(peggle_gym.ENV_ID_V1, level="first-steps", max_shots=5)
    wrapped.reset(seed=2)
    other = copy.deepcopy(wrapped)
    try:
        assert run(other, ACTIONS) == run(wrapped, ACTIONS)
    finally:
        other.close()
        wrapped.close()


def test_copies_restore_from_the_history_of_a_restored_snapshot(make_env):
    env = make_env(aim_noise=0.02, max_shots=4)
    env.reset(seed=5)
    run(env, ACTIONS[:2])
    token = env.snapshot()
    after = run(env, ACTIONS)
    env.restore(token)
    clone = copy.deepcopy(env)
    try:
        assert run(clone, ACTIONS) == after
    finally:
        clone.close()


def test_a_pickle_carries_the_engine_state_whatever_was_played(make_env, monkeypatch, backend):
    """After thousands of steps with no seeded reset, a pickle still loads in one request after the
    make: the engine's state, not the steps (a pickle once replayed them, and refused past a cap)."""
    env = make_env(max_shots=4)
    env.reset(seed=0)
    rng = np.random.default_rng(3)
    run(env, rng.uniform(-1, 1, 2_000).tolist())
    blob = pickle.dumps(env)
    client_class = type(env.client)
    sent = []
    request = client_class.request
    monkeypatch.setattr(client_class, "request", lambda self, cmd, **f: sent.append(cmd) or request(self, cmd, **f))
    clone = pickle.loads(blob)
    monkeypatch.undo()
    try:
        assert sent == ["make", "load_state"]
        assert run(clone, ACTIONS) == run(env, ACTIONS)
    finally:
        clone.close()
    env.close()
    with pytest.raises(PeggleError, match="cannot copy or pickle a closed PeggleEnv"):
        pickle.dumps(env)
