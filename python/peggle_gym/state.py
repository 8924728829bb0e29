"""Snapshots, copies and pickles of the environments.

The engine keeps snapshots (``snapshot`` / ``restore``) on either backend. A copy
(`copy.deepcopy`) of a native environment copies the engine's state directly, in the library
(`NativeClient.copy`: the games share memory until they diverge). A pickle, and a copy on the
serve backend, carries the engine's state as bytes (the protocol's ``save_state``: every game,
generator and autoreset flag, bit for bit); unpickling opens a new engine with the same ``make``
request and puts the state into it (``load_state``). So a pickle costs the same after a million
steps as after one, and the copy is independent: its own engine, its own snapshots (snapshots
are not pickled). A state is refused by an engine of another version, which might play it
differently.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass

from .backends import start
from .client import PeggleError


@dataclass(frozen=True)
class Snapshot:
    """A token from `snapshot()`: the snapshot's number in its engine, and which engine (a
    server's process id, or a native session's negative handle)."""
    number: int
    server: int


#: What a copy or a pickle leaves out: the engine's session and what is bound to it (the copy's
#: `_attach` makes its own).
_TRANSIENT = ("client", "_native", "_hot", "_obs_row")


class EngineState:
    """What `PeggleEnv` and `PeggleVectorEnv` share: the engine, snapshots, copies and pickles.

    A class using it sets its engine with `_attach` and calls `_remember_make` once made."""

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

    def _reset_engine(self, fields: dict, mask) -> dict | None:
        """Resets as the ``reset`` request ``fields`` asks (``mask``: its reset_mask as a bool
        array, or None): on the native hot path where it takes the request (None: the results
        are in the buffers), else through the request path (its reply)."""
        native = self._native
        if native is not None:
            index = _level_index(fields, self.level_names, self.procedural)
            if index is not False:
                native.reset(fields.get("seed"), index, mask)
                return None
        return self.client.request("reset", **fields)

    # MARK: snapshots

    def snapshot(self) -> Snapshot:
        """Keeps the state of every environment in the server (games, generators, autoreset
        state) and returns a token for `restore`. Cheap: the server shares memory with the
        environments until they diverge. Dropped by `drop_snapshot`, or with the server."""
        return Snapshot(int(self.client.request("snapshot")["snapshot"]), self.client.token)

    def _restore(self, token: Snapshot) -> dict:
        if not isinstance(token, Snapshot):
            raise TypeError(f"restore takes a token from snapshot(), not {token!r}")
        if token.server != self.client.token:
            raise ValueError(f"snapshot {token.number} belongs to another environment's engine ({_engine(token.server)}); "
                             "restore it on the environment that took it")
        return self.client.request("restore", snapshot=token.number)

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
        state = {k: v for k, v in self.__dict__.items() if k not in _TRANSIENT}
        #: The engine's state: base64 text, as the protocol carries it.
        state["_engine_state"] = client.request("save_state")["state"]
        state["_timeout"] = client.timeout  # the copy's client waits as this one does
        return state

    def __setstate__(self, state: dict) -> None:
        if "_engine_state" not in state:
            raise PeggleError("bad_request", f"this {type(self).__name__} was pickled by an older peggle_gym, which pickled "
                                             "by replay; this version reads only pickles that carry the engine's state")
        self.__dict__.update(state)
        saved = self.__dict__.pop("_engine_state")
        client, _, _ = start(self._peggle_path, self._make_fields, self.__dict__.pop("_timeout", None),
                             self.__dict__.get("_backend"))
        try:
            client.request("load_state", state=saved)
        except BaseException:
            client.close()
            raise
        self._attach(client)

    def __deepcopy__(self, memo: dict):
        client = getattr(self, "client", None)
        if client is not None and client.backend == "native" and not client.closed:
            # The engine's state is copied in the library, without bytes in between.
            state = {k: v for k, v in self.__dict__.items() if k not in _TRANSIENT}
            clone = type(self).__new__(type(self))
            memo[id(self)] = clone
            clone.__dict__.update(copy.deepcopy(state, memo))
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

