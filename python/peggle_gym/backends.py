"""Which engine an environment runs on: the native library inside this process (the default
where it is found) or a `peggle serve` process behind a pipe (docs/native.md, "Backends")."""
from __future__ import annotations

import os
from collections.abc import Callable

from .errors import PeggleError
from .pipe import PeggleClient

#: The backends, by the names ``backend=`` and ``$PEGGLE_BACKEND`` take.
BACKENDS = ("native", "serve")

#: Chooses the backend for a whole run (a ``backend=`` argument wins over it).
BACKEND_VARIABLE = "PEGGLE_BACKEND"


def backend_for(backend: str | None = None, peggle_path=None) -> str:
    """The backend to use: ``backend`` if given, else ``$PEGGLE_BACKEND`` if set, else
    ``"native"`` when the native library is found beside the engine (`native.find_library`:
    the wheel carries it, ``swift build -c release`` makes it), else ``"serve"``."""
    chosen = backend if backend is not None else (os.environ.get(BACKEND_VARIABLE) or None)
    if chosen is None:
        from .native import find_library
        try:
            find_library(peggle_path)
        except FileNotFoundError:
            return "serve"
        return "native"
    if chosen not in BACKENDS:
        where = "backend" if backend is not None else f"${BACKEND_VARIABLE}"
        raise ValueError(f"{where} is {chosen!r}; it must be 'native' or 'serve'")
    return chosen


def open_client(backend: str | None, peggle_path=None, timeout: float | None = None):
    """A new engine session on the chosen backend: a `NativeClient` or a `PeggleClient`."""
    if backend_for(backend, peggle_path) == "native":
        from .native import NativeClient, find_library
        return NativeClient(find_library(peggle_path), timeout=timeout)
    return PeggleClient(peggle_path, timeout=timeout)


def start(peggle_path, fields: dict | Callable[[dict[str, dict]], dict], timeout: float | None = None,
          backend: str | None = None):
    """Opens an engine session on the backend (with the client's reply ``timeout``) and makes
    the environments: with ``fields``, or with what ``fields(spec)`` composes from the engine's
    make options (so a request is composed in this engine's words). Returns the client, the
    fields sent and the make reply; the session is closed again if either fails."""
    client = open_client(backend, peggle_path, timeout)
    try:
        if callable(fields):
            fields = fields(client.make_options())
        return client, fields, client.request("make", **fields)
    except BaseException:
        client.close()
        raise


__all__ = ["BACKENDS", "BACKEND_VARIABLE", "backend_for", "open_client", "start", "PeggleError"]
