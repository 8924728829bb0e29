"""Snapshots, copies and pickles of the environments.

The environments live in a `peggle serve` process, which keeps snapshots (``snapshot`` /
``restore``) but cannot hand its state to another process. A copy or a pickle is therefore made
by replay: every environment records the requests that changed its server's state since the last
reset that fixed it completely (a seeded reset of every environment), and a copy starts a new
server with the same arguments and sends them again. The environments are deterministic (the
same seed and actions give the same state, bit for bit), so the copy is in the same state, and
it is independent: its own server, its own snapshots.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any

from .client import PeggleError, start

#: Most action values (one per environment per step) kept for replay. Past it, a copy or pickle is
#: refused until the next seeded reset; snapshots within the server are unaffected.
MAX_REPLAY_ACTIONS = 1_000_000


@dataclass(frozen=True)
class Snapshot:
    """A token from `snapshot()`: the snapshot's number in its server, which server (process id),
    and the replay that rebuilds its state (so a restored environment can still be copied)."""
    number: int
    server: int
    replay: tuple = field(repr=False, compare=False)


class Replayable:
    """What `PeggleEnv` and `PeggleVectorEnv` share: recorded requests, snapshots, copies.

    A class using it sets ``self.client``, calls `_remember_make` once made, and sends every
    request that changes the environments through `_send`."""

    def _remember_make(self, fields: dict, peggle_path) -> None:
        #: The make request (level files as absolute paths, so a copy made in another working
        #: directory opens the same files) and the binary asked for.
        self._make_fields = fields
        self._peggle_path = None if peggle_path is None else os.path.abspath(os.fspath(peggle_path))
        self._replay: list | None = []
        self._replay_actions = 0

    def _send(self, cmd: str, **fields: Any) -> dict:
        """A request that changes the environments; recorded for replay once it succeeded (a
        refused request changes nothing)."""
        reply = self.client.request(cmd, **fields)
        if cmd == "reset" and "seed" in fields and "reset_mask" not in fields:
            # Everything is fixed by the seed (and the level option): earlier history is moot.
            self._replay, self._replay_actions = [], 0
        if self._replay is not None:
            self._replay.append((cmd, fields))
            if cmd == "step":
                self._replay_actions += len(fields["actions"])
                if self._replay_actions > MAX_REPLAY_ACTIONS:
                    self._replay = None
        return reply

    # MARK: snapshots

    def snapshot(self) -> Snapshot:
        """Keeps the state of every environment in the server (games, generators, autoreset
        state) and returns a token for `restore`. Cheap: the server shares memory with the
        environments until they diverge. Dropped by `drop_snapshot`, or with the server."""
        number = int(self.client.request("snapshot")["snapshot"])
        replay = tuple(self._replay) if self._replay is not None else None
        return Snapshot(number, self.client.pid, replay)

    def _restore(self, token: Snapshot) -> dict:
        if not isinstance(token, Snapshot):
            raise TypeError(f"restore takes a token from snapshot(), not {token!r}")
        if token.server != self.client.pid:
            raise ValueError(f"snapshot {token.number} belongs to another environment's server (pid {token.server}); "
                             "restore it on the environment that took it")
        reply = self.client.request("restore", snapshot=token.number)
        self._replay = list(token.replay) if token.replay is not None else None
        self._replay_actions = sum(len(f["actions"]) for c, f in self._replay if c == "step") if self._replay else 0
        return reply

    def drop_snapshot(self, token: Snapshot) -> None:
        """Forgets a snapshot (the server keeps at most 1,024, within its memory budget)."""
        if not isinstance(token, Snapshot) or token.server != self.client.pid:
            raise ValueError(f"{token!r} is not a snapshot of this environment")
        self.client.request("drop_snapshot", snapshot=token.number)

    # MARK: copies and pickles

    def __getstate__(self) -> dict:
        client = getattr(self, "client", None)
        if client is None or client.closed:
            raise PeggleError("closed", f"cannot copy or pickle a closed {type(self).__name__}")
        if self._replay is None:
            raise PeggleError("too_long", f"cannot copy or pickle this {type(self).__name__}: it has stepped more than "
                                          f"{MAX_REPLAY_ACTIONS:,} actions since its last seeded reset, and a copy "
                                          "replays them; reset(seed=...) first")
        state = {k: v for k, v in self.__dict__.items() if k not in ("client", "_replay")}
        state["_replay"] = list(self._replay)
        state["_timeout"] = client.timeout  # the copy's client waits as this one does
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.client, _, _ = start(self._peggle_path, self._make_fields, self.__dict__.pop("_timeout", None))
        replay, self._replay, self._replay_actions = self._replay, [], 0
        for cmd, fields in replay:
            self._send(cmd, **fields)

    def __deepcopy__(self, memo: dict):
        state = self.__getstate__()
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        clone.__setstate__(copy.deepcopy(state, memo))
        return clone

