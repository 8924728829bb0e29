"""Aim noise, the random bucket start and seeded level cycles in Python: Peggle-v1, and Peggle-v0
playing exactly as before."""
import base64
import hashlib
import warnings

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleClient, PeggleEnv, PeggleError, PeggleVectorEnv
from conftest import LEVEL, ROOT

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

PURPLE = str(ROOT / "Levels" / "purple-haze.json")


def play(env, seed, actions):
    """One episode from reset(seed); the fired angles, rewards and observations' bytes."""
    obs, _ = env.reset(seed=seed)
    fired, rewards, seen = [], [], [obs.tobytes()]
    terminated = truncated = False
    k = 0
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(np.array([actions[k % len(actions)]], np.float32))
        fired.append(info["fired_angle"])
        rewards.append(reward)
        seen.append(obs.tobytes())
        k += 1
    return fired, rewards, seen


def test_v1_registers_aim_noise_a_random_bucket_and_seeded_cycles(peggle_bin):
    assert peggle_gym.V1_KWARGS == {"aim_noise": 0.02, "bucket_start": "random", "cycle_start": "seed"}
    assert gym.spec(peggle_gym.ENV_ID_V1).kwargs == peggle_gym.V1_KWARGS
    assert gym.spec(peggle_gym.ENV_ID).kwargs == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "v0 is out of date": Gymnasium's note on v1
        v0 = gym.make(peggle_gym.ENV_ID, level="first-steps", max_shots=3)
    v1 = gym.make(peggle_gym.ENV_ID_V1, level="first-steps", max_shots=3)
    try:
        assert (v0.unwrapped.aim_noise, v0.unwrapped.bucket_start) == (0.0, "centre")
        assert (v1.unwrapped.aim_noise, v1.unwrapped.bucket_start) == (0.02, "random")
        v1.reset(seed=0)
        info = v1.step(np.array([0.2], np.float32))[4]
        assert info["angle"] == pytest.approx(0.3) and type(info["fired_angle"]) is float
        assert info["fired_angle"] != info["angle"]
        v0.reset(seed=0)
        info = v0.step(np.array([0.2], np.float32))[4]
        assert info["fired_angle"] == info["angle"]
    finally:
        v0.close()
        v1.close()


def test_the_same_seed_gives_the_same_noisy_episode_and_others_differ(make_env):
    a, b = make_env(aim_noise=0.05, max_shots=8), make_env(aim_noise=0.05, max_shots=8)
    moves = [0.1, -0.4, 0.7]
    assert play(a, 3, moves) == play(b, 3, moves)
    assert play(a, 3, moves)[0] != play(a, 4, moves)[0]


def test_a_deterministic_policy_meets_many_episodes_under_v1(peggle_bin):
    """The issue's evaluation: one deterministic policy, one level, 100 seeds. v0 plays one
    episode; v1 fires 100 different aim sequences, which earn 86 different reward sequences."""
    moves = [0.1, -0.3, 0.45, -0.05, 0.7, -0.6]

    def distinct(env_id):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            env = gym.make(env_id, level="first-steps", max_shots=30)
        try:
            runs = [play(env, seed, moves) for seed in range(100)]
        finally:
            env.close()
        return len({tuple(f) for f, _, _ in runs}), len({tuple(r) for _, r, _ in runs})

    assert distinct(peggle_gym.ENV_ID) == (1, 1)
    assert distinct(peggle_gym.ENV_ID_V1) == (100, 86)


def test_serve_and_python_agree_under_aim_noise(make_env, make_vec):
    """The single env, the vector env's environment 0 and a raw client play the same shots."""
    single = make_env(aim_noise=0.03, bucket_start="random", max_shots=5)
    vec = make_vec(num_envs=2, aim_noise=0.03, bucket_start="random", max_shots=5, autoreset="disabled")
    obs_s, _ = single.reset(seed=9)
    obs_v, _ = vec.reset(seed=9)
    assert obs_s.tobytes() == obs_v[0].tobytes()
    for a in (0.3, -0.2):
        obs_s, r_s, t_s, _, info_s = single.step(np.array([a], np.float32))
        obs_v, r_v, t_v, _, infos_v = vec.step(np.array([[a], [a]], np.float32))
        assert obs_s.tobytes() == obs_v[0].tobytes() and r_s == r_v[0]
        assert info_s["fired_angle"] == infos_v["fired_angle"][0] and infos_v["fired_angle"].dtype == np.float64
        if t_s:
            break


def test_aim_noise_is_checked_with_a_clear_error(make_env):
    with pytest.raises(PeggleError) as e:
        make_env(aim_noise=1.5)
    assert (e.value.code, e.value.message) == ("bad_request", '"aim_noise" is 1.5; it must be in 0...1')
    # JSON has no NaN, so the package refuses it before sending; the rest the server checks.
    with pytest.raises(ValueError, match="aim_noise is nan; it must be a finite number"):
        make_env(aim_noise=float("nan"))
    with pytest.raises(PeggleError, match='bad_request: "aim_noise" must be a number'):
        make_env(aim_noise="0.1")
    with pytest.raises(PeggleError) as e:
        make_env(bucket_start="left")
    assert e.value.message == '"bucket_start" is "left"; expected one of: centre, random'


def test_v0_plays_exactly_as_before(peggle_bin):
    """Pinned from the server before aim noise existed (main at 4956969): the observations' bytes
    and game seeds of a three-environment run in random level order."""
    with PeggleClient() as c:
        c.request("make", levels=[PURPLE, LEVEL], num_envs=3, max_shots=6, obs_encoding="b64f32",
                  level_order="random")
        h = hashlib.sha256()
        reset = c.request("reset", seed=3)
        h.update(reset["obs_b64"].encode())
        assert [i["game_seed"] for i in reset["infos"]] == [5908316944864129655, 8407383500744868246,
                                                             5553229355294069358]
        for k in range(10):
            step = c.request("step", actions=[round(0.3 * ((k * 7 + i * 3) % 7 - 3) / 3, 4) for i in range(3)])
            h.update(step["obs_b64"].encode())
        assert step["rewards"] == [0.125, 0.125, 0] and [i["score"] for i in step["infos"]] == [350, 510, 80]
        assert h.hexdigest() == "4f581f5ade542a5aa140bd45c7787d76088eb4123c2ef7c7bf10366fa960245f"


def test_a_seeded_cycle_starts_at_seed_mod_levels_in_v1(peggle_bin):
    levels = ["first-steps", "fortress", "spiral"]
    env = gym.make(peggle_gym.ENV_ID_V1, levels=levels, max_shots=2)
    vec = gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=4, levels=levels, max_shots=2)
    try:
        assert [env.reset(seed=k)[1]["level"] for k in range(5)] == [0, 1, 2, 0, 1]
        assert [env.reset()[1]["level"] for _ in range(2)] == [2, 0]
        assert vec.reset(seed=10)[1]["level"].tolist() == [1, 2, 0, 1]
    finally:
        env.close()
        vec.close()


def test_v0_keeps_the_first_level_after_a_seeded_reset_and_warns_once(make_env, make_vec):
    env = make_env(levels=[LEVEL, PURPLE])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [env.reset(seed=k)[1]["level"] for k in range(4)] == [0, 0, 0, 0]
        assert env.reset()[1]["level"] == 1
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith("reset(seed=...) restarts level_order='cycle' at the first level")
    vec = make_vec(levels=[LEVEL, PURPLE], num_envs=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vec.reset(seed=1)
        vec.reset(seed=2)
    assert len(caught) == 1
    # One level, random order or cycle_start="seed": nothing to warn about.
    for kw in ({"level": LEVEL}, {"levels": [LEVEL, PURPLE], "level_order": "random"},
               {"levels": [LEVEL, PURPLE], "cycle_start": "seed"}):
        quiet = make_env(**kw)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for k in range(3):
                quiet.reset(seed=k)


def test_v1_plays_procedural_levels_with_aim_noise(peggle_bin):
    """v1's cycle_start applies to level files only; with procedural levels v1 is the same level
    draw with aim noise and the random bucket."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        v0 = gym.make(peggle_gym.ENV_ID, num_levels=50, start_level=100, distribution_mode="easy")
    v1 = gym.make(peggle_gym.ENV_ID_V1, num_levels=50, start_level=100, distribution_mode="easy")
    try:
        i0, i1 = v0.reset(seed=8)[1], v1.reset(seed=8)[1]
        assert i0["level_seed"] == i1["level_seed"] and i0["game_seed"] == i1["game_seed"]
        info = v1.step(np.array([0.1], np.float32))[4]
        assert info["fired_angle"] != info["angle"] and 100 <= info["level_seed"] < 150
    finally:
        v0.close()
        v1.close()


def test_check_env_passes_on_v1(peggle_bin):
    from conftest import checked
    env = gym.make(peggle_gym.ENV_ID_V1, level="first-steps", max_shots=3)
    try:
        checked(env, allowed=["different from the unwrapped"])
        checked(env.unwrapped)  # with a spec: seeded determinism under aim noise, every render mode
    finally:
        env.close()
