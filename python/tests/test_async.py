"""PeggleAsyncVectorEnv: EnvPool's send/recv over groups of environments stepped side by side."""
import threading

import numpy as np
import pytest

from peggle_gym import PeggleError, PeggleVectorEnv
from peggle_gym.asynchronous import PeggleAsyncVectorEnv
from conftest import LEVEL

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def action(env_id: int, step: int) -> float:
    """Each environment's own schedule of aims, whatever order its group comes back in."""
    return float(np.sin(1.7 * env_id + 0.9 * step))


def test_every_environment_plays_what_a_synchronous_vector_plays(peggle_bin):
    steps = 9
    sync = PeggleVectorEnv(num_envs=6, level=LEVEL, max_shots=4)
    try:
        obs, _ = sync.reset(seed=11)
        expected = {i: [obs[i].tobytes()] for i in range(6)}
        for k in range(steps):
            obs, rewards, terminated, truncated, infos = sync.step(np.array([[action(i, k)] for i in range(6)], np.float32))
            for i in range(6):
                expected[i].append((obs[i].tobytes(), rewards[i], bool(terminated[i]), int(infos["score"][i])))
    finally:
        sync.close()
    got: dict[int, list] = {i: [] for i in range(6)}
    played = {i: 0 for i in range(6)}
    with PeggleAsyncVectorEnv(6, batch_size=2, level=LEVEL, max_shots=4) as envs:
        envs.async_reset(seed=11)
        returned = 0
        while returned < 3 * (steps + 1):
            obs, rewards, terminated, truncated, infos = envs.recv()
            returned += 1
            ids = infos["env_id"]
            assert len(ids) == 2 and ids[1] == ids[0] + 1 and ids[0] % 2 == 0
            for j, i in enumerate(ids):
                if got[i]:
                    got[i].append((obs[j].tobytes(), rewards[j], bool(terminated[j]), int(infos["score"][j])))
                else:
                    got[i].append(obs[j].tobytes())
            if played[ids[0]] < steps:
                envs.send(np.array([[action(i, played[i])] for i in ids], np.float32), ids)
                for i in ids:
                    played[i] += 1
    assert got == expected


def test_send_and_recv_refuse_what_they_cannot_do(peggle_bin):
    with PeggleAsyncVectorEnv(4, batch_size=2, level=LEVEL) as envs:
        with pytest.raises(PeggleError, match="^idle: recv with nothing sent"):
            envs.recv()
        envs.async_reset(seed=0)
        with pytest.raises(PeggleError, match="^busy: async_reset while groups are stepping"):
            envs.async_reset(seed=0)
        _, _, _, _, infos = envs.recv()
        ids = infos["env_id"]
        with pytest.raises(ValueError, match=r"env_ids must be one group's ids as recv returned them \(groups of 2\), not \[1, 2\]"):
            envs.send(np.zeros((2, 1), np.float32), [1, 2])
        other = [2, 3] if ids[0] == 0 else [0, 1]
        with pytest.raises(PeggleError, match="already stepping"):
            envs.send(np.zeros((2, 1), np.float32), other)  # its reset is still waiting in recv
        envs.send(np.full((2, 1), 7.0, np.float32), ids)  # outside the action space
        refused = None
        for _ in range(2):
            try:
                envs.recv()
            except PeggleError as e:
                refused = e
        assert refused is not None and refused.code == "bad_action"
    with pytest.raises(PeggleError, match="^closed"):
        envs.recv()
    with pytest.raises(ValueError, match="batch_size 3 must divide num_envs 4"):
        PeggleAsyncVectorEnv(4, batch_size=3, level=LEVEL)


def test_close_stops_every_worker(peggle_bin):
    before = {t.name for t in threading.enumerate()}
    envs = PeggleAsyncVectorEnv(4, batch_size=1, level=LEVEL)
    envs.async_reset(seed=3)
    _, _, _, _, infos = envs.recv()
    envs.send(np.zeros((1, 1), np.float32), infos["env_id"])  # still stepping when closed
    envs.close()
    envs.close()
    assert {t.name for t in threading.enumerate()} - before == set()
