"""Snapshots, copies and pickles of the environments.

The engine keeps snapshots (``snapshot`` / ``restore``) on either backend. A copy
(`copy.deepcopy`) of a native environment copies the engine's state directly, in the library
(`NativeClient.copy`: the games share memory until they diverge). A `peggle serve` process cannot
hand its state to another, and a pickle must cross processes, so a pickle on either backend, and a
copy on the serve backend, is made by replay: every environment records the requests that changed
its engine's state since the last reset that fixed it completely (a seeded reset of every
environment), and the copy opens a new engine with the same arguments and sends them again. The
environments are deterministic (the same seed and actions give the same state, bit for bit), so
the copy is in the same state, and it is independent: its own engine, its own snapshots.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any

from .backends import start
from .client import PeggleError

#: Most action values (one per environment per step) kept for replay. Past it, a copy or pickle is
#: refused until the next seeded reset; snapshots within the server are unaffected.
MAX_REPLAY_ACTIONS = 1_000_000


@dataclass(frozen=True)
class Snapshot:
    """A token from `snapshot()`: the snapshot's number in its engine, which engine (a server's
    process id, or a native session's negative handle), and the replay that rebuilds its state
    (so a restored environment can still be copied)."""
    number: int
    server: int
    replay: tuple = field(repr=False, compare=False)


#: What a copy or a pickle leaves out: the engine's session and what is bound to it (a copy's
#: `_attach` makes its own), and the replay, which is copied on its own.
_TRANSIENT = ("client", "_native", "_hot", "_replay")


class Replayable:
    """What `PeggleEnv` and `PeggleVectorEnv` share: recorded requests, snapshots, copies.

    A class using it sets its engine with `_attach`, calls `_remember_make` once made, and sends
    every request that changes the environments through `_send` (or, on the native hot path,
    records it with `_record` once the library took it)."""

    def _attach(self, client) -> None:
        """Makes ``client`` this environment's engine (`NativeClient` or `PeggleClient`)."""
        self.client = client
        #: The native session for the hot path, None on the serve backend.
        self._native = client if client.backend == "native" else None

    @property
    def backend(self) -> str:
        """``"native"`` (the engine in this process) or ``"serve"`` (a `peggle serve` process)."""
        return self.client.backend

    def _remember_make(self, fields: dict, peggle_path) -> None:
        #: The make request (level files as absolute paths, so a copy made in another working
        #: directory opens the same files), the binary asked for and the backend.
        self._make_fields = fields
        self._peggle_path = None if peggle_path is None else os.path.abspath(os.fspath(peggle_path))
        self._backend = self.client.backend
        self._replay: list | None = []
        self._replay_actions = 0

    def _reset_engine(self, fields: dict, mask) -> dict | None:
        """Resets as the ``reset`` request ``fields`` asks (``mask``: its reset_mask as a bool
        array, or None): on the native hot path where it takes the request (None: the results
        are in the buffers), else through the request path (its reply)."""
        native = self._native
        if native is not None:
            index = _level_index(fields, self.level_names, self.procedural)
            if index is not False:
                native.reset(fields.get("seed"), index, mask)
                self._record("reset", fields)
                return None
        return self._send("reset", **fields)

    def _send(self, cmd: str, **fields: Any) -> dict:
        """A request that changes the environments; recorded for replay once it succeeded (a
        refused request changes nothing)."""
        reply = self.client.request(cmd, **fields)
        self._record(cmd, fields)
        return reply

    def _record_actions(self, actions) -> None:
        """Records a vector step the native hot path took: its actions as a float64 array (made
        into the request only if a pickle replays it)."""
        if self._replay is not None:
            self._replay.append(actions)
            self._replay_actions += len(actions)
            if self._replay_actions > MAX_REPLAY_ACTIONS:
                self._replay = None

    def _record(self, cmd: str, fields: dict) -> None:
        """Records a request the engine took, for replay."""
        if cmd == "reset" and "seed" in fields and "reset_mask" not in fields:
            # Everything is fixed by the seed (and the level option): earlier history is moot.
            self._replay, self._replay_actions = [], 0
        if self._replay is not None:
            self._replay.append((cmd, fields))
            if cmd == "step":
                self._replay_actions += len(fields["actions"])
            # A single native environment's hot path appends each step's action alone (a float,
            # counted when a pickle is made): `len` bounds the memory those take.
            if self._replay_actions > MAX_REPLAY_ACTIONS or len(self._replay) > MAX_REPLAY_ACTIONS:
                self._replay = None

    # MARK: snapshots

    def snapshot(self) -> Snapshot:
        """Keeps the state of every environment in the server (games, generators, autoreset
        state) and returns a token for `restore`. Cheap: the server shares memory with the
        environments until they diverge. Dropped by `drop_snapshot`, or with the server."""
        number = int(self.client.request("snapshot")["snapshot"])
        replay = tuple(self._replay) if self._replay is not None else None
        return Snapshot(number, self.client.token, replay)

    def _restore(self, token: Snapshot) -> dict:
        if not isinstance(token, Snapshot):
            raise TypeError(f"restore takes a token from snapshot(), not {token!r}")
        if token.server != self.client.token:
            raise ValueError(f"snapshot {token.number} belongs to another environment's engine ({_engine(token.server)}); "
                             "restore it on the environment that took it")
        reply = self.client.request("restore", snapshot=token.number)
        self._replay = list(token.replay) if token.replay is not None else None
        self._replay_actions = sum(len(e[1]["actions"]) if type(e) is tuple else len(e) for e in self._replay
                                   if type(e) is not float and (type(e) is not tuple or e[0] == "step")) if self._replay else 0
        return reply

    def drop_snapshot(self, token: Snapshot) -> None:
        """Forgets a snapshot (the server keeps at most 1,024, within its memory budget)."""
        if not isinstance(token, Snapshot) or token.server != self.client.token:
            raise ValueError(f"{token!r} is not a snapshot of this environment")
        self.client.request("drop_snapshot", snapshot=token.number)

    # MARK: copies and pickles

    def __getstate__(self) -> dict:
        client = getattr(self, "client", None)
        if client is None or client.closed:
            raise PeggleError("closed", f"cannot copy or pickle a closed {type(self).__name__}")
        if self._replay is not None and self._replay_actions + sum(type(e) is float for e in self._replay) > MAX_REPLAY_ACTIONS:
            self._replay = None
        if self._replay is None:
            raise PeggleError("too_long", f"cannot copy or pickle this {type(self).__name__}: it has stepped more than "
                                          f"{MAX_REPLAY_ACTIONS:,} actions since its last seeded reset, and a copy "
                                          "replays them; reset(seed=...) first")
        state = {k: v for k, v in self.__dict__.items() if k not in _TRANSIENT}
        state["_replay"] = list(self._replay)
        state["_timeout"] = client.timeout  # the copy's client waits as this one does
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        client, _, _ = start(self._peggle_path, self._make_fields, self.__dict__.pop("_timeout", None),
                             self.__dict__.get("_backend"))
        self._attach(client)
        replay, self._replay, self._replay_actions = self._replay, [], 0
        for entry in replay:
            if type(entry) is float:  # a single environment's step from the native hot path
                self._send("step", actions=[entry])
            elif type(entry) is tuple:
                self._send(entry[0], **entry[1])
            else:  # a vector step from the native hot path: its actions
                self._send("step", actions=entry.tolist())

    def __deepcopy__(self, memo: dict):
        client = getattr(self, "client", None)
        if client is not None and client.backend == "native" and not client.closed:
            # The engine's state is copied in the library; the recorded requests (never changed
            # once recorded) are shared entry by entry, so a later pickle of the copy replays.
            state = {k: v for k, v in self.__dict__.items() if k not in _TRANSIENT}
            clone = type(self).__new__(type(self))
            memo[id(self)] = clone
            clone.__dict__.update(copy.deepcopy(state, memo))
            clone._replay = None if self._replay is None else list(self._replay)
            clone._attach(client.copy())
            return clone
        state = self.__getstate__()
        clone = type(self).__new__(type(self))
        memo[id(self)] = clone
        clone.__setstate__(copy.deepcopy(state, memo))
        return clone


def _level_index(fields: dict, level_names: list[str], procedural: dict | None) -> int | None | bool:
    """The level index a reset's fields ask for, as the native hot path takes it: None for no
    level, an index, or False when only the request path gives the engine's answer (a name it
    must look up or refuse, a negative index it must refuse)."""
    level = fields.get("options", {}).get("level")
    if level is None:
        return None
    if isinstance(level, str):
        if procedural is not None or level not in level_names:
            return False
        return level_names.index(level)
    return level if level >= 0 else False


def _engine(token: int) -> str:
    return f"server pid {token}" if token > 0 else f"native session {-token}"

