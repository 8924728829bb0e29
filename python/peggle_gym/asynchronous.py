"""`PeggleAsyncVectorEnv`: EnvPool's asynchronous form, ``send(actions, env_ids)`` and ``recv()``.

``num_envs`` environments in groups of ``batch_size``, each group its own engine session stepped
by a worker thread of its own (the engine releases the GIL). ``recv()`` returns the first group
to finish, with its environments' ids; while the caller's policy works on it, the other groups
step. Measured before building (python/bench_overlap.py, docs/lab/2026-12-06-native-backend.md):
with a policy in the loop this overlap gave 1.19x the synchronous loop's steps on 2 cores.
"""
from __future__ import annotations

import os
import queue
import threading
from typing import Any

import numpy as np

from .errors import PeggleError
from .requests import checked_num_envs
from .vector import PeggleVectorEnv


class PeggleAsyncVectorEnv:
    """``num_envs`` Peggle environments stepped asynchronously in groups of ``batch_size``
    (``num_envs`` a multiple of it), EnvPool's way::

        envs = PeggleAsyncVectorEnv(64, batch_size=32, level="first-steps")
        envs.async_reset(seed=0)
        while training:
            obs, rewards, terminated, truncated, infos = envs.recv()   # one group's results
            envs.send(policy(obs), infos["env_id"])                    # its next actions

    Each environment plays exactly what it would in a `PeggleVectorEnv` of ``num_envs`` reset
    with the same seed and given the same actions (environment i is reset with ``seed + i``,
    next-step autoreset): only the order in which groups come back depends on timing, so route
    actions by ``infos["env_id"]``. Infos are in Gymnasium's vector layout for the group, plus
    ``env_id``. A group's refusal (a bad action, say) is raised by the `recv` that would have
    returned it. Options (``level``, ``levels``, ``backend``, ``encoder``, ...) are
    `PeggleVectorEnv`'s; ``threads`` is each group's engine threads (default 1: the groups run
    side by side). Closed by `close()`.
    """

    def __init__(self, num_envs: int, batch_size: int, level: str | os.PathLike | list | None = None, **options: Any):
        num_envs, batch_size = checked_num_envs(num_envs), checked_num_envs(batch_size)
        if batch_size < 1 or num_envs < 1 or num_envs % batch_size:
            raise ValueError(f"batch_size {batch_size} must divide num_envs {num_envs}")
        if "autoreset" in options:
            raise TypeError("autoreset is not an option here: groups reset an ended episode on their next step (next_step)")
        options.setdefault("threads", 1)
        self.num_envs, self.batch_size = num_envs, batch_size
        self.groups: list[PeggleVectorEnv] = []
        try:
            for _ in range(num_envs // batch_size):
                self.groups.append(PeggleVectorEnv(batch_size, level, **options))
        except BaseException:
            self.close()
            raise
        first = self.groups[0]
        self.single_observation_space = first.single_observation_space
        self.single_action_space = first.single_action_space
        self.backend = first.backend
        self._ids = [np.arange(g * batch_size, (g + 1) * batch_size) for g in range(len(self.groups))]
        self._sent = [False] * len(self.groups)
        self._results: queue.Queue = queue.Queue()
        self._jobs: list[queue.Queue] = [queue.Queue() for _ in self.groups]
        self._workers = [threading.Thread(target=self._work, args=(g,), name=f"peggle-async-{g}", daemon=True)
                         for g in range(len(self.groups))]
        for w in self._workers:
            w.start()
        self._closed = False

    def _work(self, g: int) -> None:
        """Group ``g``'s worker: steps it with each actions array it is sent, in order."""
        jobs = self._jobs[g]
        while (actions := jobs.get()) is not None:
            try:
                self._results.put((g, self.groups[g].step(actions)))
            except BaseException as e:  # handed to recv, which raises it
                self._results.put((g, e))

    def async_reset(self, seed: int | None = None) -> None:
        """Resets every environment (environment i with ``seed + i``); the next `recv` calls
        return the groups' first observations, in the order of their ids."""
        self._check_open()
        if any(self._sent):
            raise PeggleError("busy", "async_reset while groups are stepping: recv their results first")
        for g, group in enumerate(self.groups):
            obs, infos = group.reset(seed=None if seed is None else seed + g * self.batch_size)
            zeros = np.zeros(self.batch_size)
            flags = np.zeros(self.batch_size, np.bool_)
            self._results.put((g, (obs, zeros, flags, flags.copy(), infos)))
            self._sent[g] = True

    def send(self, actions, env_ids) -> None:
        """Steps the group whose environments ``env_ids`` are (as `recv` gave them) with
        ``actions`` (one per environment, in that order); returns at once."""
        self._check_open()
        ids = np.asarray(env_ids).reshape(-1)
        g = int(ids[0]) // self.batch_size if ids.size else -1
        if not (0 <= g < len(self.groups)) or not np.array_equal(ids, self._ids[g]):
            raise ValueError(f"env_ids must be one group's ids as recv returned them (groups of {self.batch_size}), "
                             f"not {ids.tolist()[:8]}{'...' if ids.size > 8 else ''}")
        if self._sent[g]:
            raise PeggleError("busy", f"environments {ids[0]}...{ids[-1]} are already stepping: recv their results first")
        self._sent[g] = True
        self._jobs[g].put(actions)

    def recv(self):
        """The results of the first group to finish (blocking until one has): observations,
        rewards, terminated, truncated and infos of its ``batch_size`` environments, with
        ``infos["env_id"]``."""
        self._check_open()
        if not any(self._sent):
            raise PeggleError("idle", "recv with nothing sent: call async_reset or send first")
        g, result = self._results.get()
        self._sent[g] = False
        if isinstance(result, BaseException):
            raise result
        obs, rewards, terminated, truncated, infos = result
        infos["env_id"] = self._ids[g].copy()
        return obs, rewards, terminated, truncated, infos

    def _check_open(self) -> None:
        if self._closed:
            raise PeggleError("closed", "the environments are closed")

    def close(self) -> None:
        """Waits for the groups in flight, stops the workers and closes every group."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        for jobs in getattr(self, "_jobs", []):
            jobs.put(None)
        for w in getattr(self, "_workers", []):
            w.join()
        for group in getattr(self, "groups", []):
            group.close()
        self.groups = []

    def __enter__(self) -> "PeggleAsyncVectorEnv":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
