"""A client for one `peggle serve` process: JSON lines over its standard input and output.

The protocol (docs/protocol.md; the Swift sources `Sources/PeggleEnv/Serve*.swift` are the authority): the server
prints a hello line, then answers each request line with one reply line, in order. A reply has
``"ok": true`` and fields, or ``"ok": false`` and ``"error": {"code", "message"}``. With
``"obs_encoding": "f32"`` a reply line with ``"frame_bytes": N`` is followed by exactly N raw
bytes: the observations as little-endian float32 (``obs``, then ``final_obs`` if the line has it).
"""
from __future__ import annotations

import base64
import collections
import json
import math
import os
import pathlib
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

#: The protocol version this client speaks (the server's hello names its own).
PROTOCOL_VERSION = 1

#: How long the server may take to print its hello line, in seconds.
HELLO_TIMEOUT = 30.0

#: The widths, in pixels, that the ``rgb`` render takes (docs/protocol.md's ``render``; the
#: server's ``ServeSession.rgbWidths``): ``render_width`` is checked against them at make time.
RGB_WIDTHS = range(16, 4097)


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


#: This package's version. The `peggle` executable it runs must be the same version (its hello
#: line's ``engine``, checked at start); pyproject.toml reads it from here, and a test keeps it
#: equal to the Swift package's `PeggleGym.version` (docs/distribution.md).
VERSION = "0.1.0"

#: Where a wheel carries its engines (scripts/wheel puts the release `peggle` executables there):
#: `BUNDLED_PEGGLE`, built for any CPU of its architecture, and `BUNDLED_PEGGLE_TUNED`, built for
#: CPUs with `TUNED_CPU_FLAGS` (about 10% faster: docs/distribution.md, "Generic and tuned").
BUNDLED_PEGGLE = pathlib.Path(__file__).resolve().parent / "bin" / "peggle"
BUNDLED_PEGGLE_TUNED = BUNDLED_PEGGLE.with_name("peggle-avx2")

#: What the tuned engine's code may use, as /proc/cpuinfo names it: the instruction sets LLVM's
#: `haswell` lets the compiler emit on its own (``abm`` is LZCNT). Package.swift tunes for it when
#: the building machine has avx2, bmi2 and fma; every CPU with those has the rest, but a virtual
#: machine may hide some, and a missing one would stop the engine with an illegal instruction.
TUNED_CPU_FLAGS = frozenset({"avx2", "bmi2", "fma", "avx", "f16c", "bmi1", "abm", "movbe", "popcnt", "sse4_2", "sse4_1",
                             "ssse3", "pni", "cx16", "lahf_lm"})

#: Set to anything but empty or ``0``, the wheel's generic engine runs even on a CPU the tuned one
#: suits (the same variable makes `swift build` skip the tuning: Package.swift).
GENERIC_VARIABLE = "PEGGLE_GENERIC"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The flags every CPU in /proc/cpuinfo's text lists (each processor has a ``flags`` line;
    only a flag all of them have is safe for a process the kernel may move); empty if none."""
    lines = [line.partition(":")[2].split() for line in cpuinfo.splitlines() if line.split(":")[0].strip() == "flags"]
    return frozenset.intersection(*map(frozenset, lines)) if lines else frozenset()


def _this_cpuinfo() -> str:
    # Not cached with functools.cache: peggle_gym.ray ships this package to Ray's workers by value,
    # and an lru_cache wrapper would travel by reference, which a worker without the package
    # installed cannot import. Reading the file costs well under a millisecond.
    try:
        return pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: no tuned engine is built for it anyway
        return ""


def bundled_peggle(cpuinfo: str | None = None, environ: Mapping[str, str] = os.environ) -> pathlib.Path:
    """Which of the wheel's engines to run: `BUNDLED_PEGGLE_TUNED` when the CPU (``cpuinfo``, the
    text of /proc/cpuinfo, read when None) has every one of `TUNED_CPU_FLAGS`, the file is there
    and `GENERIC_VARIABLE` is not set in ``environ``; else the generic `BUNDLED_PEGGLE`. Whether
    that file exists is the caller's question (a source install has neither)."""
    forced = environ.get(GENERIC_VARIABLE, "") not in ("", "0")
    if forced or not BUNDLED_PEGGLE_TUNED.exists():
        return BUNDLED_PEGGLE
    flags = cpu_flags(_this_cpuinfo() if cpuinfo is None else cpuinfo)
    return BUNDLED_PEGGLE_TUNED if TUNED_CPU_FLAGS <= flags else BUNDLED_PEGGLE


def source_checkout_peggle() -> str:
    """The release build of the Swift package this file lives in (a source checkout), found by
    walking up to the folder holding ``Package.swift``; FileNotFoundError saying how to build it."""
    for folder in pathlib.Path(__file__).resolve().parents:
        if (folder / "Package.swift").is_file():
            candidate = folder / ".build" / "release" / "peggle"
            if _executable(str(candidate)):
                return str(candidate)
            raise FileNotFoundError(
                f"no peggle binary: build it with `cd {folder} && swift build -c release`, "
                "or pass peggle_path=..., or set PEGGLE_BIN")
    raise FileNotFoundError(
        "no peggle binary: install the peggle_gym wheel (scripts/wheel builds it; docs/distribution.md), "
        "pass peggle_path=..., set PEGGLE_BIN, or put `peggle` on PATH")


def find_peggle(peggle_path: str | os.PathLike | None = None) -> str:
    """The `peggle` binary to run: ``peggle_path`` if given, else ``$PEGGLE_BIN``, else the
    executable inside the installed wheel (`bundled_peggle`: ``peggle_gym/bin/peggle-avx2`` on an
    AVX2 CPU, else ``peggle_gym/bin/peggle``), else `peggle` on ``PATH``, else
    ``.build/release/peggle`` of the Swift package this file lives in (a source checkout)."""
    if peggle_path is not None:
        path = os.fspath(peggle_path)
        if not _executable(path):
            raise FileNotFoundError(f"peggle_path {path!r} is not an executable file")
        return path
    env = os.environ.get("PEGGLE_BIN")
    if env:
        if not _executable(env):
            raise FileNotFoundError(f"PEGGLE_BIN={env!r} is not an executable file")
        return env
    bundled = bundled_peggle()
    if bundled.exists():
        if not _executable(str(bundled)):
            raise FileNotFoundError(f"the wheel's engine {bundled} is not executable: reinstall peggle_gym "
                                    "(pip install --force-reinstall ...), or set PEGGLE_BIN")
        return str(bundled)
    on_path = shutil.which("peggle")
    if on_path:
        return on_path
    return source_checkout_peggle()


def check_hello(path: str, hello: dict) -> None:
    """The handshake: the server at ``path`` must speak this client's protocol and be this
    package's version (`VERSION`). One `PeggleError` (code ``protocol``) naming both and what to do."""
    protocol, engine = hello.get("protocol"), hello.get("engine")
    if protocol == PROTOCOL_VERSION and engine == f"peggle-gym {VERSION}":
        return
    if str(path) in (str(BUNDLED_PEGGLE), str(BUNDLED_PEGGLE_TUNED)):
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


def checked_timeout(timeout: Any) -> float | None:
    """A reply timeout: None (wait forever) or a positive, finite number of seconds."""
    if timeout is None:
        return None
    message = f"timeout must be a positive number of seconds or None, got {timeout!r}"
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)):
        raise TypeError(message)
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(message)
    return float(timeout)


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


# MARK: reply decoding shared by the environments

#: The reply key under which `PeggleClient.request` puts a reply's binary frame (a bytearray).
FRAME = "_frame"

#: The arrays a frame can hold, in the order they follow each other in it.
FRAME_ORDER = ("obs", "final_obs")


def decode_obs(reply: dict, key: str, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """A reply's rows of observations (from the binary frame, ``key_b64`` or ``key``) as a new
    array of ``(rows, *shape)``: float32, or ``dtype`` (``uint8`` for the ``pixels`` encoder,
    whose bytes travel as float32 whole numbers)."""
    rows = reply[key + "_shape"][0]
    if key + "_bytes" in reply:
        offset = 0
        for earlier in FRAME_ORDER[:FRAME_ORDER.index(key)]:
            offset += int(reply.get(earlier + "_bytes", 0))
        n = int(reply[key + "_bytes"])
        # The frame is this reply's own buffer: a view of it, not a copy, is already new.
        flat = np.frombuffer(reply[FRAME], dtype="<f4", count=n // 4, offset=offset)
    elif key + "_b64" in reply:
        flat = np.frombuffer(base64.b64decode(reply[key + "_b64"]), dtype="<f4").astype(np.float32)
    else:
        flat = np.asarray(reply[key], dtype=np.float32)
    if flat.dtype != dtype:
        flat = flat.astype(dtype)
    return flat.reshape((rows, *shape))


# Element types of the info columns, as Gymnasium's `_add_info` would type them from the rows
# (after `decode_info`); every other key holds integers.
_COLUMN_DTYPES: dict[str, Any] = {"angle": np.float64, "fired_angle": np.float64, "game_seed": np.uint64, "level_seed": np.uint64, "won": np.bool_,
                                  "level_name": object, "status": object}


def decode_info_columns(columns: dict, num_envs: int) -> dict:
    """Infos sent in the ``columns`` layout (Gymnasium's own vector-info layout: ``key`` an array
    over the environments, ``_key`` the mask of those that have it) as the dict of numpy arrays
    `gymnasium.vector.VectorEnv._add_info` builds from the rows, with the same types."""
    infos: dict[str, Any] = {}
    for key, values in columns.items():
        if key.startswith("_"):
            infos[key] = np.asarray(values, dtype=np.bool_)
        elif isinstance(values, dict):
            infos[key] = decode_info_columns(values, num_envs)
        elif key == "trajectory":
            array = np.full(num_envs, None, dtype=object)
            for i, paths in enumerate(values):
                if paths is not None:
                    array[i] = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in paths]
            infos[key] = array
        elif _COLUMN_DTYPES.get(key) is object:
            array = np.empty(num_envs, dtype=object)
            array[:] = values
            infos[key] = array
        else:
            infos[key] = np.asarray(values, dtype=_COLUMN_DTYPES.get(key, np.int64))
    return infos


def decode_rgb(reply: dict) -> np.ndarray:
    """A ``render`` reply of format ``rgb`` as a new, writable uint8 array of ``(height, width, 3)``."""
    pixels = np.frombuffer(bytearray(base64.b64decode(reply["rgb_b64"])), dtype=np.uint8)
    return pixels.reshape(int(reply["height"]), int(reply["width"]), 3)


def checked_width(width: int | None, name: str) -> int | None:
    """A picture width for the ``rgb`` render: an int or None (the server checks the range and
    says so); ``name`` is the argument's, for the error."""
    if width is None:
        return None
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number of pixels or None, not {width!r}")
    return int(width)


def checked_render_width(width: int | None) -> int | None:
    """The environments' ``render_width``, checked when they are made (not at the first
    ``render()``): None, or a whole number in `RGB_WIDTHS`."""
    width = checked_width(width, "render_width")
    if width is not None and width not in RGB_WIDTHS:
        raise ValueError(f"render_width is {width}; it must be in {RGB_WIDTHS.start}...{RGB_WIDTHS.stop - 1} "
                         "pixels, or None")
    return width


def checked_num_envs(num_envs: Any) -> int:
    """A vector's ``num_envs`` as an int: Python and numpy integers only (not a bool, a float
    such as 2.5 or 4.0, or a string); the server checks the range (`make_options`)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
        raise TypeError(f"num_envs must be a positive integer, got {num_envs!r}")
    return int(num_envs)


def decode_info(info: dict) -> dict:
    """A server info object as a Gymnasium info dict, with types that batch cleanly (Gymnasium's
    vector `_add_info` makes an array typed after the first value it sees): ``angle`` and
    ``fired_angle`` always floats, ``game_seed`` and ``level_seed`` `numpy.uint64`, ``trajectory`` a list of float64
    ``(points, 2)`` arrays, one per ball."""
    for key in ("angle", "fired_angle"):
        if key in info:
            info[key] = float(info[key])
    if "game_seed" in info:
        info["game_seed"] = np.uint64(info["game_seed"])
    if "level_seed" in info:
        info["level_seed"] = np.uint64(info["level_seed"])
    if "trajectory" in info:
        info["trajectory"] = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in info["trajectory"]]
    return info


def space_from(desc: dict):
    """A Gymnasium space from the protocol's description."""
    from gymnasium import spaces
    if desc["type"] == "box":
        dtype = np.dtype(desc["dtype"])  # float32, or uint8 for the pixels encoder's images
        return spaces.Box(low=dtype.type(desc["low"]), high=dtype.type(desc["high"]),
                          shape=tuple(desc["shape"]), dtype=dtype)
    if desc["type"] == "discrete":
        return spaces.Discrete(int(desc["n"]))
    raise PeggleError("protocol", f"unknown space type {desc['type']!r}")


def action_shapes(count: int, single: bool) -> tuple[tuple[int, ...], ...]:
    """The shapes an environment's actions may have: one environment's a number or ``(1,)``; a
    vector's ``(count,)`` or ``(count, 1)`` (and a number when it has one environment)."""
    if single:
        return ((), (1,))
    return ((count,), (count, 1), ()) if count == 1 else ((count,), (count, 1))


def action_values(actions: Any, count: int, single: bool) -> list[float]:
    """Actions as a flat list of numbers for the step request. Refused here with the server's
    code (``bad_action``): what is not numbers, non-finite values (JSON cannot carry them), and
    the right number of actions in the wrong shape (`action_shapes`); a wrong number is left to
    the engine, whose message counts them. Whole numbers beyond int64 are numbers too (the
    engine says they are outside the action space)."""
    array = np.asarray(actions)
    if array.dtype == object and array.size and all(type(x) is int for x in array.flat):
        array = array.astype(np.float64)  # Python ints past int64: numpy keeps them as objects
    if array.dtype.kind not in "iuf":
        raise PeggleError("bad_action", f"actions must be numbers, got {actions!r}")
    values = array.reshape(-1).astype(np.float64).tolist()
    if single and len(values) != count:
        raise PeggleError("bad_action", f"expected one action, got {len(values)}: {actions!r}")
    shapes = action_shapes(count, single)
    if len(values) == count and array.shape not in shapes:
        raise PeggleError("bad_action", f"actions of shape {array.shape} for {'one environment' if single else f'{count} environments'}: "
                                        f"give {' or '.join(map(str, shapes))}")
    for i, v in enumerate(values):
        if not math.isfinite(v):
            raise PeggleError("bad_action", f"action {v} of environment {i} is not a finite number")
    return values


#: Where the bundled levels are installed: the package's ``levels`` folder (in a source checkout,
#: a link to the repository's ``Levels``).
LEVELS_DIR = pathlib.Path(__file__).resolve().parent / "levels"


def level_file_names(folder: str | os.PathLike) -> list[str]:
    """The names of the level files directly in `folder`, by the one rule the ``peggle`` tools
    follow (docs/levels.md, "A folder of levels"; Swift's ``LevelFolder.levelFileNames``): names
    ending in ``.json``, not hidden (a leading ``.``), not folders (a link to a file counts), in
    the byte order of the names. A folder that cannot be listed raises ValueError naming it."""
    try:
        names = os.listdir(folder)
    except OSError as e:
        raise ValueError(f"{os.fspath(folder)}: cannot be read as a folder ({e.strerror})") from e

    def is_level(name: str) -> bool:
        path = os.path.join(folder, name)
        return name.endswith(".json") and not name.startswith(".") and os.path.exists(path) and not os.path.isdir(path)
    return sorted(filter(is_level, names), key=os.fsencode)


def level_files(paths: Sequence[str | os.PathLike]) -> list[pathlib.Path]:
    """Files as given, folders expanded to their level files (`level_file_names`), as `peggle
    rate` expands them; a folder with none raises ValueError naming it."""
    files: list[pathlib.Path] = []
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            found = level_file_names(p)
            if not found:
                raise ValueError(f"{p}: folder has no level files (*.json)")
            files += [p / name for name in found]
        else:
            files.append(p)
    return files


def bundled_levels() -> dict[str, str]:
    """The levels installed with the package, by name (the file's stem, ``"first-steps"``) to
    their file's path, in the order of their file names (`level_file_names`)."""
    return {pathlib.Path(name).stem: str(LEVELS_DIR / name) for name in level_file_names(LEVELS_DIR)}


def level_path(level: str | os.PathLike) -> str:
    """A level argument as an absolute file path: a bundled level's name (a string without a
    folder or a ``.json`` suffix, such as ``"first-steps"``) is its installed file; anything else
    is a path, made absolute against the working directory (the server may run elsewhere)."""
    if isinstance(level, str) and os.sep not in level and not level.endswith(".json"):
        bundled = bundled_levels()
        if level in bundled:
            return bundled[level]
        if not os.path.exists(level):
            raise ValueError(f"level {level!r} is neither a bundled level ({', '.join(bundled)}) nor a file")
    if not isinstance(level, (str, os.PathLike)):
        raise TypeError(f"a level must be a bundled level's name or a file path, not {level!r}")
    return os.path.abspath(os.path.expanduser(os.fspath(level)))


def procedural_fields(spec: dict[str, dict]) -> list[str]:
    """The make fields (and keyword arguments) that ask for procedural levels (Procgen's names:
    ``num_levels``, ``start_level``, ...), in the server's order: those its ``spec`` marks
    ``procedural``. ``spec``: `PeggleClient.make_options`."""
    return [name for name, option in spec.items() if option.get("procedural") is True]


#: What an environment plays when given neither level files nor a procedural argument (so
#: ``gym.make("peggle_gym/Peggle-v1")`` plays bare): generated levels of the easy distribution,
#: unlimited seeds from 0 (Procgen's ``num_levels=0``). Giving any procedural argument leaves the
#: others at the server's defaults (``distribution_mode`` ``hard``, as Procgen's).
DEFAULT_LEVELS = {"distribution_mode": "easy"}

#: Make fields the environment classes set themselves (how many environments, how they reset,
#: how infos travel), so they are not options.
RESERVED = ("num_envs", "autoreset", "info_layout", "levels", "level")


def _jsonable(name: str, value: Any) -> Any:
    """An option's value as JSON can carry it: numpy scalars and arrays as Python values; a
    non-finite number is refused here, naming the option, since JSON has no NaN."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, tuple):
        value = list(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} is {value}; it must be a finite number")
    return value


def make_request(levels, options: dict, *, spec: dict[str, dict], num_envs: int, autoreset: str,
                 info_layout: str = "rows") -> dict:
    """The fields of a make request: the levels (files or bundled levels' names, `level_path`;
    none for procedural levels), every option as given, and the fields the environment class
    sets (``num_envs``, ``autoreset``, ``info_layout``). No levels and no procedural argument
    (`procedural_fields` of the server's ``spec``, `PeggleClient.make_options`): `DEFAULT_LEVELS`.
    An option given as None is left out (the
    server's default); ``obs_encoding`` is ``f32`` unless given. The server checks every option
    and holds every default (`make_options` lists them)."""
    fields: dict[str, Any] = {}
    reserved = sorted(set(options) & set(RESERVED))
    if reserved:
        raise TypeError(f"{reserved[0]} is not an option here: the environment class sets it")
    options = {k: _jsonable(k, v) for k, v in options.items() if v is not None}
    if isinstance(options.get("templates"), str):
        raise TypeError("templates must be a list of template names, not a string")
    procedural = [k for k in procedural_fields(spec) if k in options]
    if procedural:
        # Peggle-v1 registers cycle_start for every level source; procedural levels are drawn,
        # never cycled, so it means nothing for them (the server would refuse it).
        options.pop("cycle_start", None)
    if levels is not None:
        if procedural:
            raise ValueError(f"give level files or procedural levels ({procedural[0]}=...), not both")
        if isinstance(levels, (str, os.PathLike)):
            levels = [levels]
        paths = [level_path(p) for p in levels]
        if not paths:
            raise ValueError("levels is empty")
        fields["levels"] = paths
    elif not procedural:
        # Neither levels nor a procedural argument: Procgen-style levels (docs/environment.md).
        options.pop("cycle_start", None)
        options.update(DEFAULT_LEVELS)
    fields["obs_encoding"] = "f32"
    fields.update(options)
    fields.update(num_envs=checked_num_envs(num_envs), autoreset=autoreset, info_layout=info_layout)
    return fields


class SeededCycleWarning:
    """Warns once when seeded resets keep restarting a level cycle at its first level (level
    files in ``cycle`` order with ``cycle_start="first"``, Peggle-v0's default): ``reset(seed=k)``
    before every episode then plays level 0 only. The first seeded reset is the usual way to
    start, so the warning waits for the second. ``defaults``: the server's option defaults
    (`PeggleClient.make_options`), for the fields not given."""

    def __init__(self, fields: dict, defaults: dict):
        def value(key: str) -> Any:
            return fields.get(key, defaults[key]["default"])
        self.armed = (len(fields.get("levels", ())) > 1 and value("level_order") == "cycle"
                      and value("cycle_start") == "first")
        self.seeded = 0

    def seeded_reset(self) -> None:
        if not self.armed:
            return
        self.seeded += 1
        if self.seeded == 2:
            self.armed = False
            import warnings
            warnings.warn("reset(seed=...) restarts level_order='cycle' at the first level, so seeding every reset "
                          "plays level 0 only; pass cycle_start='seed' (Peggle-v1's default) to start the cycle at "
                          "seed mod len(levels), or reset() without a seed to go on cycling", stacklevel=3)


_OPTIONS: dict[str, dict] = {}


def make_options(peggle_path: str | os.PathLike | None = None) -> dict[str, dict]:
    """Every option the environments take (`PeggleEnv`'s and `PeggleVectorEnv`'s keyword
    arguments besides the levels, ``render_mode``, ``render_width``, ``peggle_path`` and
    ``timeout``), by name,
    as the `peggle` binary describes them: type, default, range or choices, and a doc line. The
    binary is the one place the defaults are written; this asks it once per binary."""
    path = find_peggle(peggle_path)
    if path not in _OPTIONS:
        from .backends import open_client
        with open_client(None, path) as client:
            _OPTIONS[path] = client.make_options()
    return _OPTIONS[path]


def level_option(level: Any) -> int | str:
    """A reset's ``options["level"]`` as the server takes it: an index or a level name."""
    if isinstance(level, str):
        return level
    if isinstance(level, (int, np.integer)) and not isinstance(level, bool):
        return int(level)
    raise ValueError(f"options['level'] must be a level index or name, not {level!r}")


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def server_seed(seed: int) -> int:
    """A reset seed as the server takes it (0 ... 2**63 - 1)."""
    seed = int(seed)
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed {seed} is outside 0 ... 2**63 - 1")
    return seed
