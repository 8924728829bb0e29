"""The physics option (issue 51) from Python: version 2 is taken on both backends, read back,
plays its own episodes deterministically, and out-of-range versions are refused."""
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleError

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

ACTIONS = [-0.5, 0.6, 0.1, -0.2, 0.3, 0.05, -0.05, 0.25]


def episode(env, seed):
    """The observations' bytes and rewards of one episode from reset(seed) on `ACTIONS`."""
    obs, _ = env.reset(seed=seed)
    seen, rewards = [obs.tobytes()], []
    done, k = False, 0
    while not done:
        obs, reward, terminated, truncated, _ = env.step(np.array([ACTIONS[k % len(ACTIONS)]], np.float32))
        seen.append(obs.tobytes())
        rewards.append(reward)
        done, k = terminated or truncated, k + 1
    return seen, rewards


def test_the_spec_lists_physics_with_version_1_the_default(peggle_bin):
    o = peggle_gym.make_options()["physics"]
    assert (o["type"], o["default"], o["min"], o["max"]) == ("int", 1, 1, 2)


def test_version_2_is_read_back_and_plays_its_own_deterministic_episodes(make_env):
    v1, v2, again = make_env(max_shots=8), make_env(max_shots=8, physics=2), make_env(max_shots=8, physics=2)
    assert (v1.physics, v2.physics, again.physics) == (1, 2, 2)
    first, second = episode(v2, 3), episode(again, 3)
    assert first == second
    fixed = episode(v1, 3)
    assert len(fixed[0]) == len(first[0])
    assert sum(a != b for a, b in zip(fixed[0], first[0])) == 8


def test_the_vector_takes_it_too(make_vec):
    assert make_vec(physics=2).physics == 2
    assert make_vec().physics == 1


@pytest.mark.parametrize("value, message", [
    (3, '"physics" is 3; it must be in 1...2'),
    (0, '"physics" is 0; it must be in 1...2'),
    ("2", '"physics" must be a whole number'),
])
def test_other_versions_are_refused(make_env, value, message):
    with pytest.raises(PeggleError, match=message.replace(".", r"\.")):
        make_env(physics=value)
