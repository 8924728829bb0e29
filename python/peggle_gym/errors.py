"""The errors every part of the package raises: a refusal with the protocol's stable code, and a
`peggle serve` process that died or went quiet."""
from __future__ import annotations


class PeggleError(RuntimeError):
    """The server refused a request (``code`` is the protocol's stable error code), or the client
    could not talk to it."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class PeggleServerDied(PeggleError):
    """The `peggle serve` process exited or stopped answering (code ``server_died``)."""

    def __init__(self, message: str, code: str = "server_died"):
        super().__init__(code, message)


class PeggleTimeout(PeggleServerDied):
    """The server sent no reply within the client's ``timeout`` (code ``timeout``). The client
    killed it and is closed: make a new environment. A `PeggleServerDied`, so code that starts
    a new server when one dies handles this too."""

    def __init__(self, message: str):
        super().__init__(message, code="timeout")
