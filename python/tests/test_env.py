"""PeggleEnv as a gymnasium.Env: the checker, spaces, steps, infos, rendering, registration."""
from xml.etree import ElementTree

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleError
from conftest import LEVEL, ROOT, checked

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def test_check_env_passes_on_the_unwrapped_env(make_env):
    checked(make_env(render_mode="ansi"), allowed=["not having a spec"])


def test_check_env_passes_through_gymnasium_make(peggle_bin):
    env = gym.make(peggle_gym.ENV_ID, level=LEVEL, max_shots=3)
    try:
        checked(env, allowed=["different from the unwrapped"])
        checked(env.unwrapped)  # with a spec: every render mode and close are checked too
    finally:
        env.close()


def test_check_env_passes_with_discrete_actions_and_the_grid_encoder(make_env):
    checked(make_env(action="discrete", bins=7, encoder="grid"), allowed=["not having a spec"])


def test_a_request_refused_while_composed_closes_its_engine(monkeypatch, peggle_bin, backend):
    """The make request is composed from the engine's spec (which arguments are procedural), so
    the engine starts first; an argument refused then closes it again, for both classes."""
    from peggle_gym import client, native
    cls = native.NativeClient if backend == "native" else client.PeggleClient
    closed = []
    close = cls.close
    monkeypatch.setattr(cls, "close", lambda self: (closed.append(self), close(self))[1])
    with pytest.raises(ValueError, match="give level files or procedural levels"):
        peggle_gym.PeggleEnv(level=LEVEL, num_levels=3)
    with pytest.raises(ValueError, match="give level files or procedural levels"):
        peggle_gym.PeggleVectorEnv(level=LEVEL, num_envs=2, start_level=3)
    assert len(closed) == 2 and all(c.closed for c in closed)


def test_spaces_come_from_the_server(make_env):
    env = make_env(max_objects=100)
    assert env.observation_space == gym.spaces.Box(-1, 1, (17 + 100 * 17,), np.float32)
    assert env.action_space == gym.spaces.Box(-1, 1, (1,), np.float32)
    env = make_env(action="discrete", bins=9, encoder="grid")
    assert env.observation_space == gym.spaces.Box(-1, 1, (9, 30, 40), np.float32)
    assert env.action_space == gym.spaces.Discrete(9)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (9, 30, 40) and obs.dtype == np.float32


def test_reset_and_step_return_gymnasium_types(make_env):
    env = make_env(trajectory=True)
    obs, info = env.reset(seed=3)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == env.observation_space.shape
    assert obs in env.observation_space and obs.flags.writeable
    assert info["level_name"] == "First Steps" and info["shots"] == 0 and info["status"] == "playing"
    assert isinstance(info["game_seed"], np.uint64)
    obs, reward, terminated, truncated, info = env.step(np.array([0.25], dtype=np.float32))
    assert obs in env.observation_space
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert info["shots"] == 1 and "game_seed" not in info
    assert type(info["angle"]) is float and info["angle"] == pytest.approx(0.25 * 1.5)
    assert set(info["hits"]) == {"blue", "orange", "green", "purple", "zombie", "confusement"}
    assert info["pegs_hit"] == sum(info["hits"].values())
    paths = info["trajectory"]
    assert len(paths) >= 1 and all(p.ndim == 2 and p.shape[1] == 2 for p in paths)


def test_an_episode_ends_by_termination_or_truncation_at_max_shots(make_env):
    env = make_env(max_shots=2)
    for seed in range(4):
        env.reset(seed=seed)
        for shot in (1, 2):
            _, _, terminated, truncated, info = env.step([0.1])
            assert info["shots"] == shot
            assert terminated == (info["status"] != "playing")
            assert truncated == (not terminated and shot == 2)
            if terminated or truncated:
                break
        assert terminated or truncated
        with pytest.raises(PeggleError) as e:
            env.step([0.0])
        assert e.value.code == "episode_over"
        assert e.value.message == "the episode has ended (terminated or truncated); call reset()"
    env.reset()
    env.step([0.0])  # a reset starts a new episode


def test_same_seed_same_episode_and_seedless_reset_continues(make_env):
    env = make_env()
    a = [env.reset(seed=5)[0]] + [env.step([x])[0] for x in (0.3, -0.6)] + [env.reset()[0]]
    b = [env.reset(seed=5)[0]] + [env.step([x])[0] for x in (0.3, -0.6)] + [env.reset()[0]]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    # A first reset without a seed draws one from entropy: two fresh environments differ.
    seeds = {int(make_env().reset()[1]["game_seed"]) for _ in range(3)}
    assert len(seeds) == 3
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=2**63)


def test_json_b64f32_and_f32_encodings_give_the_same_bits(make_env):
    runs = []
    for enc in ("json", "b64f32", "f32"):
        env = make_env(obs_encoding=enc, encoder="grid")
        obs = [env.reset(seed=11)[0]] + [env.step([x])[0] for x in (0.1, -0.45, 0.8)]
        runs.append(np.stack(obs))
    assert all(r.dtype == np.float32 and r.shape == runs[0].shape for r in runs)
    assert np.any(runs[0] != 0)
    assert np.array_equal(runs[0].view(np.uint32), runs[1].view(np.uint32))
    assert np.array_equal(runs[0].view(np.uint32), runs[2].view(np.uint32))


def test_f32_is_the_default_and_its_frames_stay_in_step_after_errors(make_env):
    from peggle_gym.client import FRAME
    env = make_env()
    obs, _ = env.reset(seed=3)
    # A refused step is a plain line with no frame: the next replies still line up.
    with pytest.raises(PeggleError) as e:
        env.client.request("step", actions=[0.1, 0.2])
    assert e.value.code == "bad_action"
    reply = env.client.request("step", actions=[0.25])
    assert reply["frame_bytes"] == reply["obs_bytes"] == len(reply[FRAME]) == 4 * obs.size
    assert reply["obs_shape"] == [1, obs.size]
    assert "obs" not in reply and "obs_b64" not in reply
    assert env.client.request("spaces").keys() >= {"observation_space"}
    assert env.step([0.0])[0].shape == obs.shape


def test_reset_options_choose_the_level(make_env):
    env = make_env(levels=[LEVEL, str(ROOT / "Levels" / "fortress.json")])
    assert env.level_names == ["First Steps", "Fortress"]
    assert env.reset(seed=0, options={"level": 1})[1]["level_name"] == "Fortress"
    assert env.reset(options={"level": "First Steps"})[1]["level"] == 0
    assert env.reset(options={"level": np.int64(1)})[1]["level_name"] == "Fortress"
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"levle": 0})
    with pytest.raises(PeggleError, match="no level named"):
        env.reset(options={"level": "Nowhere"})


def test_relative_level_paths_are_resolved_against_the_working_directory(make_env, monkeypatch):
    monkeypatch.chdir(ROOT / "Levels")
    env = make_env(level="first-steps.json")
    assert env.level_names == ["First Steps"]


def test_render_ansi_and_svg(make_env):
    env = make_env(render_mode="ansi", trajectory=True)
    env.reset(seed=2)
    text = env.render()
    lines = text.splitlines()
    assert lines[0] == "+" + "-" * 80 + "+" and "First Steps: playing" in lines[-1]
    env.step([0.2])
    svg = env.render_svg()
    assert ElementTree.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg"
    with pytest.warns(UserWarning, match="render_mode"):
        assert make_env().render() is None


def test_unknown_render_modes_are_refused(make_env):
    with pytest.raises(ValueError, match="render_mode"):
        make_env(render_mode="human")


def test_sync_vector_env_over_peggle_env_works(peggle_bin):
    # gymnasium's own vectoriser batches our infos: game_seed (64 bits) must not overflow int64.
    envs = gym.make_vec(peggle_gym.ENV_ID, num_envs=3, vectorization_mode="sync", level=LEVEL, max_shots=2)
    try:
        obs, infos = envs.reset(seed=0)
        assert obs.shape == (3, 2193) and infos["game_seed"].dtype == np.uint64
        for _ in range(3):
            envs.step(envs.action_space.sample())
    finally:
        envs.close()


def test_make_vec_uses_the_vector_entry_point(peggle_bin):
    envs = gym.make_vec(peggle_gym.ENV_ID, num_envs=4, level=LEVEL, max_shots=2)
    try:
        assert isinstance(envs, peggle_gym.PeggleVectorEnv) and envs.num_envs == 4
        assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
        envs2 = gym.make_vec(peggle_gym.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", level=LEVEL,
                             autoreset="same_step")
        assert envs2.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
        envs2.close()
    finally:
        envs.close()



def test_async_vector_env_over_peggle_env_works(peggle_bin):
    envs = gym.make_vec(peggle_gym.ENV_ID, num_envs=2, vectorization_mode="async", level=LEVEL, max_shots=2)
    try:
        obs, _ = envs.reset(seed=0)
        assert obs.shape == (2, 2193)
        _, rewards, _, _, infos = envs.step(envs.action_space.sample())
        assert rewards.shape == (2,) and (infos["shots"] == 1).all()
    finally:
        envs.close()


def test_is_success_on_the_step_that_ends_an_episode(make_env):
    """SB3's Monitor and RL Zoo read info["is_success"] from single environments when an
    episode ends: won or not, on the last step only."""
    env = make_env(max_shots=2, mode={"type": "beat_the_score", "target_score": 150, "time_limit": 3600})
    outcomes = set()
    for seed in range(6):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(np.array([0.3 - 0.1 * seed], dtype=np.float32))
            done = terminated or truncated
            assert ("is_success" in info) == done
        assert info["is_success"] is bool(info["won"])
        outcomes.add(info["is_success"])
    assert outcomes == {True, False}, "the seeds chosen should both win and lose"
