"""A client for one `peggle serve` process: JSON lines over its standard input and output.

The protocol (docs/protocol.md; the Swift sources `Sources/PeggleServe/Serve*.swift` are the authority): the server
prints a hello line, then answers each request line with one reply line, in order. A reply has
``"ok": true`` and fields, or ``"ok": false`` and ``"error": {"code", "message"}``. With
``"obs_encoding": "f32"`` a reply line with ``"frame_bytes": N`` is followed by exactly N raw
bytes: the observations as little-endian float32 (``obs``, then ``final_obs`` if the line has it).
"""
from __future__ import annotations

import collections
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from typing import Any

from . import engines
from .engines import VERSION, find_peggle
from .errors import PeggleError, PeggleServerDied, PeggleTimeout
from .replies import FRAME
from .requests import checked_timeout

#: The protocol version this client speaks (the server's hello names its own).
PROTOCOL_VERSION = 1

#: How long the server may take to print its hello line, in seconds.
HELLO_TIMEOUT = 30.0


def check_hello(path: str, hello: dict) -> None:
    """The handshake: the server at ``path`` must speak this client's protocol and be this
    package's version (`VERSION`). One `PeggleError` (code ``protocol``) naming both and what to do."""
    protocol, engine = hello.get("protocol"), hello.get("engine")
    if protocol == PROTOCOL_VERSION and engine == f"peggle-gym {VERSION}":
        return
    if str(path) in (str(engines.BUNDLED_PEGGLE), str(engines.BUNDLED_PEGGLE_TUNED)):
        fix = "the wheel is broken: reinstall it (pip install --force-reinstall peggle_gym-....whl)"
    else:
        fix = ("use the engine of the same release: rebuild it from the same checkout (swift build -c release), "
               "point PEGGLE_BIN or peggle_path= at a matching binary, or unset PEGGLE_BIN to use the wheel's own engine")
    raise PeggleError("protocol", f"{path} is {engine or 'an unnamed engine'!s} speaking protocol {protocol!r}, but this "
                                  f"peggle_gym is {VERSION} and needs peggle-gym {VERSION} speaking protocol "
                                  f"{PROTOCOL_VERSION}: {fix}")


def _readable(fd: int, timeout: float) -> bool:
    """Whether ``fd`` has data (or end of file) within ``timeout`` seconds (poll, so any fd
    number works, unlike select)."""
    p = select.poll()
    p.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(p.poll(max(0, math.ceil(timeout * 1000))))


def _ready(fd: int, event: int, deadline: float | None) -> bool:
    """Waits until ``fd`` is ready for ``event`` (``POLLIN``: data or end of file; ``POLLOUT``:
    room to write), or an error or hang-up is pending; False if ``deadline`` (`time.monotonic`)
    passed first. None waits without a limit. (poll, so any fd number works, unlike select.)"""
    p = select.poll()
    p.register(fd, event | select.POLLHUP | select.POLLERR)
    if deadline is None:
        return bool(p.poll())
    return bool(p.poll(max(0, math.ceil((deadline - time.monotonic()) * 1000))))


def _pump_stderr(fd: int, tail: collections.deque) -> None:
    """Copies the server's standard error to ``sys.stderr`` (looked up on every write, so pytest's
    and Jupyter's replacements see it) and keeps its last lines for error messages."""
    partial = ""
    try:
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            text = data.decode("utf-8", errors="replace")
            out = sys.stderr
            if out is not None:
                try:
                    out.write(text)
                    out.flush()
                except Exception:  # a closed or broken sys.stderr must not kill the pump
                    pass
            lines = (partial + text).split("\n")
            partial = lines.pop()
            tail.extend(lines)
        if partial:
            tail.append(partial)
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def _shutdown(proc: subprocess.Popen, stdin_fd: int, stdout_fd: int, pump: threading.Thread,
              state: dict) -> None:
    """Ends the server and reaps it; safe to call once from close() or from the finalizer."""
    if state.get("closed"):
        return
    state["closed"] = True
    if os.getpid() != state["owner"]:
        # A forked child (multiprocessing) holds copies of the pipes: drop them, and leave the
        # server and its output to the process that started it.
        for fd in (stdin_fd, stdout_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        return
    if proc.poll() is None:
        try:
            os.write(stdin_fd, b'{"cmd":"close"}\n')
        except OSError:
            pass
    try:
        os.close(stdin_fd)  # end of input: the server stops even if it missed the close
    except OSError:
        pass
    # Read (and drop) whatever replies are still coming, so a server writing a large reply is
    # never stuck on a full pipe; stop at end of output or after a deadline.
    deadline = time.monotonic() + 5.0
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not _readable(stdout_fd, left) or not os.read(stdout_fd, 1 << 20):
                break
    except (OSError, ValueError):
        pass
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    try:
        os.close(stdout_fd)
    except OSError:
        pass
    pump.join(timeout=2.0)


class PeggleClient:
    """One `peggle serve` subprocess (the ``serve`` backend). ``request(cmd, **fields)`` sends a request and returns the
    reply's fields, raising `PeggleError` for an error reply and `PeggleServerDied` if the
    process ends. The process is closed by `close()`, on garbage collection and at interpreter
    exit. Not thread-safe beyond one request at a time (a lock serialises requests).

    ``timeout``: seconds each request may take, from sending it to its whole reply; past it the
    request raises `PeggleTimeout`, the server is killed and the client is closed (the reply may
    still come, so nothing after it could be trusted). None (the default) waits as long as the
    server takes. The attribute of that name can be changed between requests."""

    backend = "serve"

    def __init__(self, peggle_path: str | os.PathLike | None = None, *, timeout: float | None = None):
        self.timeout = timeout
        self.path = find_peggle(peggle_path)
        self._stderr_tail: collections.deque = collections.deque(maxlen=40)
        self._proc = subprocess.Popen(
            [self.path, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0, close_fds=True)
        self.pid = self._proc.pid
        # Raw descriptors: replies are read in large chunks and split on newlines here.
        self._in = os.dup(self._proc.stdin.fileno())
        os.set_blocking(self._in, False)  # writes wait in poll, so a timeout covers them too
        self._out = os.dup(self._proc.stdout.fileno())
        err = os.dup(self._proc.stderr.fileno())
        for f in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            f.close()
        self._pump = threading.Thread(target=_pump_stderr, args=(err, self._stderr_tail),
                                      name=f"peggle-serve-{self.pid}-stderr", daemon=True)
        self._pump.start()
        self._state: dict = {"owner": os.getpid()}
        self._finalizer = weakref.finalize(self, _shutdown, self._proc, self._in, self._out,
                                           self._pump, self._state)
        self._buffer = bytearray()
        self._lock = threading.Lock()
        self._next_id = 1
        self._dead: PeggleServerDied | None = None
        self._broken = ""
        self._spec: dict | None = None
        try:
            hello = self._read_line(time.monotonic() + HELLO_TIMEOUT, lambda: self._died(
                f"printed no hello line within {HELLO_TIMEOUT:g} s", kill=True))
        except PeggleServerDied:
            self.close()
            raise
        try:
            h = json.loads(hello)
        except ValueError:
            h = None
        if not isinstance(h, dict) or h.get("hello") != "peggle serve":
            self.close()
            raise PeggleError("protocol", f"{self.path} serve did not greet as peggle serve: {hello[:200]!r}")
        try:
            check_hello(self.path, h)
        except PeggleError:
            self.close()
            raise
        #: The hello line's fields (``engine`` names the simulator version).
        self.hello = h

    # MARK: lifecycle

    @property
    def token(self) -> int:
        """What snapshots name their engine by: the server's process id."""
        return self.pid

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    @property
    def timeout(self) -> float | None:
        """Seconds a request may wait for its reply (None: no limit); see the class."""
        return self._timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self._timeout = checked_timeout(value)

    def close(self) -> None:
        """Asks the server to close, waits for it to exit (killing it after 5 s) and reaps it.
        Calling it again does nothing."""
        self._finalizer()

    def __enter__(self) -> "PeggleClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # MARK: requests

    def make_options(self) -> dict[str, dict]:
        """Every option ``make`` takes, by name, as this server describes it (its ``spec`` reply):
        ``type`` (``int``, ``number``, ``bool``, ``choice``, ``choices``, ``path``, ``paths`` or
        ``mode``), ``default``, ``min`` and ``max`` or ``choices``, and ``help``. Asked once per
        client."""
        if self._spec is None:
            self._spec = self.request("spec")
        return {o["name"]: o for o in self._spec["make"]}

    def request(self, cmd: str, **fields: Any) -> dict:
        """Sends ``{"cmd": cmd, **fields}`` and returns the reply (``ok`` and ``id`` removed)."""
        with self._lock:
            if self._dead is not None:
                raise self._dead
            if self.closed:
                raise PeggleError("closed", "the client is closed")
            if os.getpid() != self._state["owner"]:
                raise PeggleError("wrong_process", f"this client's server belongs to process {self._state['owner']}; "
                                                   "make environments inside the process that uses them")
            if self._broken:
                raise PeggleError("protocol", self._broken)
            rid = self._next_id
            self._next_id += 1
            line = json.dumps({"cmd": cmd, "id": rid, **fields}, allow_nan=False,
                              separators=(",", ":")).encode() + b"\n"
            timeout = self._timeout
            deadline = None if timeout is None else time.monotonic() + timeout
            expired = lambda: self._timed_out(cmd, rid, timeout)  # noqa: E731
            view = memoryview(line)
            try:
                while view:
                    try:
                        n = os.write(self._in, view)
                    except BlockingIOError:  # the pipe is full: wait for room, until the deadline
                        if not _ready(self._in, select.POLLOUT, deadline):
                            raise expired() from None
                        continue
                    view = view[n:]
            except PeggleTimeout:
                raise
            except OSError:
                raise self._died("stopped reading requests") from None
            except BaseException:
                # Interrupted (Ctrl-C) mid-line: the server would read the next request glued to
                # this part, so nothing more can be trusted.
                if view and len(view) < len(line):
                    self._broken = "a request was interrupted half sent; make a new environment"
                raise
            # Replies to earlier requests whose wait was interrupted come first: skip them (and
            # their frames).
            while True:
                reply_line = self._read_line(deadline, expired)
                try:
                    reply = json.loads(reply_line)
                except ValueError:
                    raise PeggleError("protocol", f"the reply to {cmd} is not JSON: {reply_line[:200]!r}") from None
                n = reply.get("frame_bytes") if isinstance(reply, dict) else None
                if n is not None:
                    try:
                        reply[FRAME] = self._read_exact(int(n), deadline, expired)
                    except PeggleServerDied:
                        raise
                    except BaseException:
                        # Interrupted mid-frame: the rest of it would be read as the next line.
                        self._broken = "a reply's binary frame was interrupted half read; make a new environment"
                        raise
                got = reply.pop("id", None)
                if not (isinstance(got, int) and got < rid):
                    break
        if got != rid:
            raise PeggleError("protocol", f"the reply to {cmd} (id {rid}) answers another request: {reply_line[:200]!r}")
        if reply.pop("ok", None) is not True:
            err = reply.get("error") or {}
            raise PeggleError(str(err.get("code", "unknown")), str(err.get("message", reply_line[:200])))
        return reply

    def _read_line(self, deadline: float | None = None, expired=None) -> bytes:
        """The next line of output, without its newline. Lines already read into the buffer come
        first; only when the buffer holds no whole line is the pipe read, after polling it until
        ``deadline`` (`time.monotonic`) when there is one, past which ``expired()`` is raised."""
        buf = self._buffer
        start = 0
        while True:
            k = buf.find(b"\n", start)
            if k >= 0:
                line = bytes(buf[:k])
                del buf[:k + 1]
                return line
            start = len(buf)
            if deadline is not None and not _ready(self._out, select.POLLIN, deadline):
                raise expired()
            try:
                chunk = os.read(self._out, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                raise self._died("closed its output")
            buf += chunk

    def _read_exact(self, n: int, deadline: float | None = None, expired=None) -> bytearray:
        """The next ``n`` bytes of output (a binary frame), read straight into a new buffer
        (waiting until ``deadline`` as `_read_line` does)."""
        buf = self._buffer
        out = bytearray(n)
        have = min(len(buf), n)
        out[:have] = buf[:have]
        del buf[:have]
        view = memoryview(out)
        while have < n:
            if deadline is not None and not _ready(self._out, select.POLLIN, deadline):
                raise expired()
            try:
                got = os.readv(self._out, [view[have:]])
            except OSError:
                got = 0
            if not got:
                raise self._died("closed its output in the middle of a frame")
            have += got
        return out

    def _timed_out(self, cmd: str, rid: int, timeout: float) -> PeggleTimeout:
        """The error for a request that got no reply in time: the server is killed (SIGKILL ends
        a stopped process too) and the client closed, since a late reply would answer the wrong
        request; remembered, so later calls raise it too."""
        error = PeggleTimeout(
            f"peggle serve (pid {self.pid}, {self.path}) did not answer {cmd} (request id {rid}) within "
            f"the client's timeout of {timeout:g} s; the client killed it and is closed. Make a new environment; "
            "if the server is only slow (large num_envs, a busy machine), pass a larger timeout=..., or "
            "timeout=None to wait for ever")
        self._dead = error
        if self._proc.poll() is None:
            self._proc.kill()
        self.close()
        return error

    def _died(self, what: str, kill: bool = False) -> PeggleServerDied:
        """The error for a server that went away; remembered, so later calls raise it too."""
        proc = self._proc
        if kill and proc.poll() is None:
            proc.kill()
        try:
            code = proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            how = "is still running"
        elif code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        self._pump.join(timeout=0.5)
        tail = [line for line in self._stderr_tail if line.strip()][-5:]
        msg = f"peggle serve (pid {self.pid}, {self.path}) {what} and {how}"
        if tail:
            msg += "; its last messages: " + " | ".join(tail)
        self._dead = PeggleServerDied(msg)
        return self._dead
