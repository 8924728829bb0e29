"""The shot-ranking policies (peggle_gym.policies, exported by peggle_gym.sb3) on the `aim`
observation: they train with PPO and DQN through the real server for a few thousand steps, score
every row with shared weights (permuting the rows permutes the scores), save and load, and refuse
observations whose rows are not the action's bins; SB3's MlpPolicy runs on the same observation
flattened. Whether they *learn* is measured in docs/baselines.md, not here."""
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # a guard only: CI installs it (requirements-test.txt)
import torch as th  # noqa: E402
from gymnasium import spaces  # noqa: E402
from stable_baselines3 import DQN, PPO  # noqa: E402

from peggle_gym import PeggleEnv  # noqa: E402
from peggle_gym.sb3 import AimDQNPolicy, AimPolicy, make_vec_env  # noqa: E402

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

BINS = 15
AIM = dict(encoder="aim", action="discrete", bins=BINS, num_levels=20, start_level=0, distribution_mode="easy",
           max_shots=20)


def vec(n=4, seed=0):
    return make_vec_env("peggle_gym/Peggle-v1", n_envs=n, seed=seed, env_kwargs={"level": None, **AIM})


def rows(model, obs):
    return th.as_tensor(obs[None], dtype=th.float32)


def test_ppo_trains_saves_and_loads(tmp_path):
    env = vec()
    try:
        assert env.observation_space == spaces.Box(0, 1, (BINS, 20), np.float32)
        model = PPO(AimPolicy, env, n_steps=128, batch_size=128, n_epochs=2, seed=0, device="cpu",
                    policy_kwargs={"hidden": 32})
        model.learn(2048)
        assert model.num_timesteps >= 2048
        # The rows are scored with shared weights: permuting them permutes the logits.
        obs = env.reset()
        x = th.as_tensor(obs, dtype=th.float32)
        perm = th.randperm(BINS, generator=th.Generator().manual_seed(1))
        with th.no_grad():
            logits = model.policy.get_distribution(x).distribution.logits
            permuted = model.policy.get_distribution(x[:, perm]).distribution.logits
        assert logits.shape == (4, BINS)
        assert th.allclose(logits[:, perm], permuted, atol=1e-5)
        actions, _ = model.predict(obs, deterministic=True)
        assert actions.shape == (4,) and ((0 <= actions) & (actions < BINS)).all()
        # The argmax of the logits is the deterministic action.
        assert (logits.argmax(dim=1).numpy() == actions).all()
        model.save(tmp_path / "ppo")
        loaded = PPO.load(tmp_path / "ppo", device="cpu")
        assert type(loaded.policy) is AimPolicy and loaded.policy.hidden == 32
        assert (loaded.predict(obs, deterministic=True)[0] == actions).all()
    finally:
        env.close()


def test_dqn_trains_with_the_ranking_q_network(tmp_path):
    env = vec()
    try:
        model = DQN(AimDQNPolicy, env, learning_starts=200, buffer_size=5000, train_freq=4, target_update_interval=500,
                    seed=0, device="cpu", policy_kwargs={"hidden": 32})
        model.learn(2000)
        obs = env.reset()
        x = th.as_tensor(obs, dtype=th.float32)
        perm = th.randperm(BINS, generator=th.Generator().manual_seed(2))
        with th.no_grad():
            q, q_permuted = model.q_net(x), model.q_net(x[:, perm])
        assert q.shape == (4, BINS)
        assert th.allclose(q[:, perm], q_permuted, atol=1e-5)
        model.save(tmp_path / "dqn")
        loaded = DQN.load(tmp_path / "dqn", device="cpu")
        assert type(loaded.policy) is AimDQNPolicy
        assert (loaded.predict(obs, deterministic=True)[0] == model.predict(obs, deterministic=True)[0]).all()
    finally:
        env.close()


def test_mlp_policy_runs_on_the_flattened_rows():
    env = vec(n=2)
    try:
        model = PPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256)
        assert model.policy.action_net.out_features == BINS
    finally:
        env.close()


def test_policies_refuse_rows_that_are_not_the_actions_bins(peggle_bin):
    lr = lambda _: 3e-4  # noqa: E731
    box = spaces.Box(0, 1, (BINS, 20), np.float32)
    with pytest.raises(ValueError, match="the observation has 15 rows but the action has 7 bins"):
        AimPolicy(box, spaces.Discrete(7), lr)
    with pytest.raises(ValueError, match="they need action='discrete'"):
        AimPolicy(box, spaces.Box(-1, 1, (1,), np.float32), lr)
    with pytest.raises(ValueError, match="make the env with encoder='aim'"):
        AimDQNPolicy(spaces.Box(-1, 1, (2193,), np.float32), spaces.Discrete(31), lr)
    with pytest.raises(ValueError, match="net_arch is fixed"):
        AimPolicy(box, spaces.Discrete(BINS), lr, net_arch=[64])


def test_action_b_fires_at_row_bs_aim(peggle_bin):
    """Through the Python env: discrete action b aims at row b's angle (the aim encoder's bins,
    +-1.45 rad), not at the plain discrete action's (+-1.5 rad)."""
    with PeggleEnv(level=None, **{**AIM, "num_levels": 1}) as env:
        for b in (0, 7, 14):
            env.reset(seed=0)
            info = env.step(b)[4]
            assert info["angle"] == pytest.approx(-1.45 + 2.9 * b / (BINS - 1), abs=1e-12)
