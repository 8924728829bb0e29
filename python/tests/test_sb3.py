"""peggle_gym.sb3: the SB3 VecEnv over one server, checked against SB3's own DummyVecEnv over
single PeggleEnvs step for step; is_success; seeding; make_vec_env's signature and refusals;
PPO with EvalCallback; CnnPolicy on the pixels encoder."""
import inspect
import warnings

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # a guard only: CI installs it (requirements-test.txt)

from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.callbacks import EvalCallback  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor  # noqa: E402

from peggle_gym import V1_KWARGS, PeggleEnv  # noqa: E402
from peggle_gym.sb3 import PeggleSB3VecEnv, make_vec_env  # noqa: E402
from conftest import LEVEL  # noqa: E402

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

# Two balls and three shots: episodes end lost (terminated), truncated, or on a free ball later.
SHORT = dict(V1_KWARGS, max_shots=3, mode={"type": "classic", "balls": 2})
# Beat the score with a 30-point target: a shot that hits three pegs wins, else truncated.
EASY_WIN = dict(max_shots=2, mode={"type": "beat_the_score", "target_score": 30, "time_limit": 3600})
# Under Peggle-v1's noise, with a 60-point target: episodes end won (terminated) or truncated.
MIXED = dict(V1_KWARGS, max_shots=2, mode={"type": "beat_the_score", "target_score": 60, "time_limit": 3600})
N = 4
SEED = 11


def actions(steps, n=N, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (n, 1)).astype(np.float32) for _ in range(steps)]


@pytest.fixture
def closing():
    made = []

    def keep(env):
        made.append(env)
        return env

    yield keep
    for env in made:
        env.close()


def test_matches_dummy_vec_env_step_for_step(closing, peggle_bin):
    ours = closing(PeggleSB3VecEnv(N, level=LEVEL, **MIXED))
    theirs = closing(DummyVecEnv([lambda: PeggleEnv(LEVEL, **MIXED) for _ in range(N)]))
    assert ours.observation_space == theirs.observation_space and ours.action_space == theirs.action_space
    ours.seed(SEED)
    theirs.seed(SEED)
    obs_a, obs_b = ours.reset(), theirs.reset()
    assert obs_a.dtype == obs_b.dtype == np.float32 and np.array_equal(obs_a, obs_b)
    assert ours.reset_infos == theirs.reset_infos
    ended = truncations = 0
    for step, a in enumerate(actions(15)):
        obs_a, rew_a, done_a, infos_a = ours.step(a)
        obs_b, rew_b, done_b, infos_b = theirs.step(a)
        assert np.array_equal(obs_a, obs_b), step
        assert rew_a.dtype == rew_b.dtype == np.float32 and np.array_equal(rew_a, rew_b), step
        assert done_a.dtype == done_b.dtype == np.bool_ and np.array_equal(done_a, done_b), step
        for i in range(N):
            a_info, b_info = dict(infos_a[i]), dict(infos_b[i])
            if done_a[i]:
                ended += 1
                assert np.array_equal(a_info.pop("terminal_observation"), b_info.pop("terminal_observation"))
                # The plain env reports it too now (SB3's Monitor and RL Zoo read it there).
                assert a_info.pop("is_success") is b_info.pop("is_success") is bool(b_info["won"])
                assert ours.reset_infos[i] == theirs.reset_infos[i]
            truncations += a_info["TimeLimit.truncated"]
            assert a_info == b_info, (step, i)
    # The run covers both ends of an episode (pinned: it is deterministic).
    assert (ended, truncations) == (39, 9)


def test_is_success_at_episode_end(closing, peggle_bin):
    env = closing(PeggleSB3VecEnv(N, level=LEVEL, **EASY_WIN))
    env.seed(0)
    env.reset()
    outcomes = []
    for a in actions(8):
        _, _, dones, infos = env.step(a)
        for i in range(N):
            assert ("is_success" in infos[i]) is bool(dones[i])
            if dones[i]:
                assert infos[i]["is_success"] is (infos[i]["status"] == "won")
                outcomes.append(infos[i]["is_success"])
    assert (outcomes.count(True), outcomes.count(False)) == (24, 2)


def test_seed_sets_the_next_reset_only(closing, peggle_bin):
    env = closing(PeggleSB3VecEnv(2, level=LEVEL, **SHORT))
    single = closing(PeggleEnv(LEVEL, **SHORT))
    assert env.seed(5) == [5, 6]
    first = env.reset()
    for i in range(2):
        assert np.array_equal(first[i], single.reset(seed=5 + i)[0])
        assert env.reset_infos[i]["game_seed"] == single.reset(seed=5 + i)[1]["game_seed"]
    # seed() is used once: the next reset continues the generators, as SB3's DummyVecEnv does.
    again = env.reset()
    env.seed(5)
    assert np.array_equal(env.reset(), first)
    assert not np.array_equal(again, first)


def test_attributes_methods_and_render(closing, peggle_bin):
    env = closing(PeggleSB3VecEnv(2, level=LEVEL, render_mode="rgb_array", render_width=64, **SHORT))
    assert env.get_attr("aim_noise") == [0.02, 0.02]
    assert env.get_attr("observation_space", indices=[1]) == [env.observation_space]
    assert env.get_attr("render_mode") == ["rgb_array"] * 2 and env.render_mode == "rgb_array"
    with pytest.raises(AttributeError):
        env.get_attr("no_such_attribute")
    env.set_attr("render_width", 32)
    with pytest.raises(ValueError, match="set_attr\\('render_width'\\) for indices \\[0\\]: the environments share one server"):
        env.set_attr("render_width", 16, indices=[0])
    assert env.env_is_wrapped(VecMonitor) == [False, False]
    env.seed(0)
    env.reset()
    texts = env.env_method("render_text", indices=[1])
    assert len(texts) == 1 and texts[0] == env.venv.render_text(1)
    with pytest.raises(AttributeError, match="env_method\\('snapshot'\\): PeggleSB3VecEnv runs render_rgb"):
        env.env_method("snapshot")
    images = env.get_images()
    assert [im.shape for im in images] == [(24, 32, 3)] * 2 and images[0].dtype == np.uint8
    assert env.render().shape == (48, 32, 3)  # SB3 tiles the two frames, one above the other


def test_make_vec_env_is_shaped_like_sb3s():
    ours, theirs = inspect.signature(make_vec_env), inspect.signature(sb3_make_vec_env)
    assert [(p.name, p.default) for p in ours.parameters.values()] == \
           [(p.name, p.default) for p in theirs.parameters.values()]


def test_make_vec_env_seeds_monitors_and_writes_monitor_files(tmp_path, peggle_bin):
    env = make_vec_env("peggle_gym/Peggle-v1", n_envs=3, seed=9, env_kwargs=dict(level="first-steps", max_shots=2),
                       monitor_dir=str(tmp_path), start_index=4)
    try:
        assert isinstance(env, VecMonitor) and isinstance(env.venv, PeggleSB3VecEnv)
        assert env.get_attr("aim_noise") == [0.02] * 3 and env.num_envs == 3
        obs = env.reset()
        with PeggleEnv("first-steps", max_shots=2, **V1_KWARGS) as single:
            assert np.array_equal(obs[2], single.reset(seed=11)[0])
        episodes = []
        for a in actions(4, n=3):
            _, rewards, dones, infos = env.step(a)
            episodes += [infos[i]["episode"] for i in np.flatnonzero(dones)]
        # Truncated at two shots, but for a one-shot win (pinned: seeded).
        assert [int(e["l"]) for e in episodes] == [2, 2, 2, 1, 2, 2]
    finally:
        env.close()
    lines = (tmp_path / "4.monitor.csv").read_text().splitlines()
    assert lines[1] == "r,l,t" and len(lines) == 2 + 6
    # A bare level plays Peggle-v1's settings.
    env = make_vec_env("first-steps", n_envs=1, seed=0)
    assert env.get_attr("aim_noise") == [0.02] and env.get_attr("bucket_start") == ["random"]
    env.close()


@pytest.mark.parametrize("kwargs, message", [
    (dict(wrapper_class=object), "wrapper_class <class 'object'> \\(and wrapper_kwargs\\) would wrap each environment"),
    (dict(vec_env_cls=DummyVecEnv), "vec_env_cls .*DummyVecEnv.*: peggle_gym.sb3.make_vec_env makes a PeggleSB3VecEnv"),
    (dict(vec_env_kwargs={"start_method": "fork"}), "vec_env_kwargs \\{'start_method': 'fork'\\}: PeggleSB3VecEnv takes none"),
    (dict(monitor_kwargs={"allow_early_resets": True}), "monitor_kwargs 'allow_early_resets': VecMonitor"),
    (dict(n_envs=0), "n_envs is 0; it must be a whole number of at least 1"),
    (dict(env_kwargs={"autoreset": "next_step"}), "env_kwargs 'autoreset' is 'next_step'"),
    (dict(env_kwargs={"level": "spiral"}), "env_id is the level 'first-steps', and env_kwargs gives level\\(s\\) too"),
])
def test_make_vec_env_refuses_what_needs_one_process_per_env(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_vec_env("first-steps", **kwargs)


def test_make_vec_env_refuses_other_ids_and_callables():
    with pytest.raises(ValueError, match="env_id 'CartPole-v1' is not 'peggle_gym/Peggle-v0' or 'peggle_gym/Peggle-v1'"):
        make_vec_env("CartPole-v1")
    with pytest.raises(TypeError, match="is a callable: SB3's make_vec_env calls it once per environment"):
        make_vec_env(lambda: None)


def test_ppo_trains_and_eval_callback_runs(tmp_path, peggle_bin):
    kwargs = dict(level="first-steps", max_shots=10)
    env = make_vec_env("peggle_gym/Peggle-v1", n_envs=4, seed=0, env_kwargs=kwargs)
    eval_env = make_vec_env("peggle_gym/Peggle-v1", n_envs=2, seed=1000, env_kwargs=kwargs)
    try:
        callback = EvalCallback(eval_env, n_eval_episodes=4, eval_freq=256, log_path=str(tmp_path), verbose=0)
        model = PPO("MlpPolicy", env, n_steps=128, batch_size=128, n_epochs=2, seed=0, device="cpu")
        model.learn(total_timesteps=2048, callback=callback)
        assert model.num_timesteps == 2048
        assert list(callback.evaluations_timesteps) == [1024, 2048]  # every 256 steps of each of 4 envs
        assert [len(r) for r in callback.evaluations_results] == [4, 4]
        assert len(callback.evaluations_successes) == 2 and all(len(s) == 4 for s in callback.evaluations_successes)
        assert len(model.ep_info_buffer) > 0 and len(model.ep_success_buffer) > 0  # VecMonitor and is_success
    finally:
        env.close()
        eval_env.close()


@pytest.mark.parametrize("encoder, warned", [
    ("objects", []),
    ("pixels", []),  # a channels-first uint8 image, as CnnPolicy wants
    # Why pixels exist: the grid is no image to SB3 (float32, bounds -1 to 1, 30 rows).
    ("grid", ["`dtype` is (float32)", "bounds are not in [0, 255]", "minimal resolution for an image is 36x36"]),
])
def test_sb3_check_env(encoder, warned, make_env):
    env = make_env(encoder=encoder, **V1_KWARGS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    messages = [str(w.message) for w in caught]
    assert len(messages) == len(warned) and all(w in m for w, m in zip(warned, messages)), messages


def test_cnn_policy_trains_on_pixels_without_a_custom_extractor(peggle_bin):
    env = make_vec_env("first-steps", n_envs=2, seed=0, env_kwargs=dict(encoder="pixels", max_shots=5))
    try:
        assert env.observation_space.shape == (3, 72, 96) and env.observation_space.dtype == np.uint8
        model = PPO("CnnPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        assert type(model.policy.features_extractor).__name__ == "NatureCNN"
        model.learn(total_timesteps=256)
        assert model.num_timesteps == 256
    finally:
        env.close()
