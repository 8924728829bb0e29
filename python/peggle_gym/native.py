"""The native backend: the engine inside this process, through the C library ``libpeggle_env.so``
(docs/native.md; its whole interface is ``Sources/CPeggleEnv/include/peggle_env.h``).

Every request `peggle serve` takes goes to the library as the same JSON line and is answered by
the same Swift session code, so options, defaults, ranges and messages cannot differ between the
backends. The hot path, ``reset`` and ``step``, carries no JSON: actions are written into, and
observations, rewards, flags and infos read from, numpy buffers this module owns and binds to the
session once per ``make``. ctypes releases the GIL for every call into the library, so other
Python threads run while the engine steps.
"""
from __future__ import annotations

import ctypes
import json
import math
import os
import pathlib
import struct
import threading
import weakref
from typing import Any

import numpy as np

from .client import FRAME, PROTOCOL_VERSION, VERSION, PeggleError, find_peggle

#: The ABI this module speaks (peggle_env.h's PEGGLE_ABI_VERSION).
ABI_VERSION = 1

#: The library's file name beside an engine executable (swift build puts both in .build/release;
#: the wheel puts both in peggle_gym/bin).
LIBRARY = "libpeggle_env.so"

#: peggle_env.h's `peggle_info_int` columns, in order (test_native.py holds this to the header).
INFO_INTS = ("present", "terminated", "truncated", "has_final", "level", "level_seed", "generator_seed", "score",
             "balls_left", "orange_left", "shots", "status", "game_seed", "pegs_hit", "hits_blue", "hits_orange",
             "hits_green", "hits_purple", "hits_zombie", "hits_confusement", "points", "free_balls", "caught",
             "trajectory")
#: peggle_env.h's `peggle_info_real` columns.
INFO_REALS = ("reward", "angle", "fired_angle")

(I_PRESENT, I_TERMINATED, I_TRUNCATED, I_HAS_FINAL, I_LEVEL, I_LEVEL_SEED, I_GENERATOR_SEED, I_SCORE, I_BALLS_LEFT,
 I_ORANGE_LEFT, I_SHOTS, I_STATUS, I_GAME_SEED, I_PEGS_HIT, I_HITS_BLUE, I_HITS_ORANGE, I_HITS_GREEN, I_HITS_PURPLE,
 I_HITS_ZOMBIE, I_HITS_CONFUSEMENT, I_POINTS, I_FREE_BALLS, I_CAUGHT, I_TRAJECTORY) = range(len(INFO_INTS))
R_REWARD, R_ANGLE, R_FIRED_ANGLE = range(len(INFO_REALS))

#: One environment's info row and info_real row read at once (they are adjacent in memory when
#: there is one environment: `NativeClient.row`), as a tuple of ints then floats.
ROW = struct.Struct(f"<{len(INFO_INTS)}q{len(INFO_REALS)}d")
(V_REWARD, V_ANGLE, V_FIRED_ANGLE) = range(len(INFO_INTS), len(INFO_INTS) + len(INFO_REALS))

#: `PEGGLE_I_STATUS`'s codes, as infos name them.
STATUSES = ("playing", "won", "lost")
#: The peg kinds of an info's ``hits``, in the serve protocol's order (PEGGLE_I_HITS_BLUE ...).
HIT_KINDS = ("blue", "orange", "green", "purple", "zombie", "confusement")

#: `peggle_gym._hot`, a single environment's step in C (built with the package: `setup.py`'s
#: extension, or in place in a checkout by scripts/test), or None where it was not built (no C
#: compiler or Python headers), and then `PeggleEnv.step` does the same in Python.
try:
    from . import _hot as HOT
except ImportError:
    HOT = None
if HOT is not None and (HOT.INFO_INTS != INFO_INTS or HOT.INFO_REALS != INFO_REALS):
    HOT = None  # a build from other sources (a stale in-place build): its columns are not these

#: `peggle_reset`'s "no seed" and "no level" (-1), made once: the hot path calls it without
#: declared argument types, which take a microsecond to convert, so its int64s go as these.
NO_SEED = NO_LEVEL = ctypes.c_int64(-1)

#: Statuses the library answers for a handle that is gone (or was the parent's) rather than for
#: the request: they are raised as they are, whatever the command.
PEGGLE_CLOSED, PEGGLE_WRONG_PROCESS = 12, 13


class Buffers(ctypes.Structure):
    """peggle_env.h's `peggle_buffers`."""
    _fields_ = [("num_envs", ctypes.c_int64), ("obs_size", ctypes.c_int64),
                ("actions", ctypes.c_void_p), ("reset_mask", ctypes.c_void_p),
                ("obs", ctypes.c_void_p), ("final_obs", ctypes.c_void_p),
                ("info", ctypes.c_void_p), ("info_real", ctypes.c_void_p),
                ("final_info", ctypes.c_void_p), ("final_info_real", ctypes.c_void_p)]


def library_beside(executable: str | os.PathLike) -> pathlib.Path:
    """The native library that ships with an engine executable: the wheel's tuned
    ``bin/peggle-avx2`` has ``bin/libpeggle_env-avx2.so`` beside it, any other ``peggle`` the
    ``libpeggle_env.so`` in its own folder (where ``swift build`` and the wheel put it)."""
    path = pathlib.Path(executable)
    suffix = path.name[len("peggle"):] if path.name.startswith("peggle") else ""
    return path.with_name(f"libpeggle_env{suffix}.so")


def find_library(peggle_path: str | os.PathLike | None = None) -> str:
    """The native library to load: the one beside the engine `find_peggle` finds (``peggle_path``,
    ``$PEGGLE_BIN``, the installed wheel's engine for this CPU, ``peggle`` on ``PATH``, the source
    checkout's release build). FileNotFoundError when that engine has none beside it."""
    engine = find_peggle(peggle_path)
    library = library_beside(engine)
    if not library.is_file():
        raise FileNotFoundError(f"no native library {library.name} beside the engine {engine} (build it with "
                                "`swift build -c release`, which makes both, or use backend='serve')")
    return str(library)


_LIBRARIES: dict[str, ctypes.CDLL] = {}


def load(path: str) -> ctypes.CDLL:
    """The library at ``path``, loaded once and checked: its ABI and engine must be this
    package's (PeggleError ``protocol`` naming both otherwise, as a server's hello is checked)."""
    lib = _LIBRARIES.get(path)
    if lib is not None:
        return lib
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise PeggleError("protocol", f"{path} cannot be loaded: {e}") from None
    i32, i64, vp = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    for name, restype, argtypes in [
            ("peggle_abi_version", i32, []), ("peggle_engine", ctypes.c_char_p, []),
            ("peggle_status_name", ctypes.c_char_p, [i32]), ("peggle_open", i32, [i64]),
            ("peggle_close", i32, [i32]), ("peggle_copy", i32, [i32]),
            ("peggle_request", i32, [i32, ctypes.c_char_p, i64, ctypes.POINTER(i64), ctypes.POINTER(i64)]),
            ("peggle_reply", i32, [i32, vp, vp]), ("peggle_bind", i32, [i32, ctypes.POINTER(Buffers)]),
            ("peggle_reset", i32, [i32, i64, i64, i32]), ("peggle_level_name", i64, [i32, i64, vp, i64]),
            ("peggle_trajectories", i64, [i32, i32, vp, i64]), ("peggle_error", i64, [i32, vp, i64])]:
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, argtypes
    # peggle_step is the hot call: without argtypes ctypes passes a Python int as a C int, which
    # is what an int32 handle is, at a third of the cost of converting through declared types.
    lib.peggle_step.restype = ctypes.c_int
    abi, engine = lib.peggle_abi_version(), lib.peggle_engine().decode()
    if abi != ABI_VERSION or engine != f"peggle-gym {VERSION}":
        raise PeggleError("protocol", f"{path} is {engine} with ABI {abi}, but this peggle_gym is {VERSION} and needs "
                                      f"peggle-gym {VERSION} with ABI {ABI_VERSION}: use the engine of the same release "
                                      "(swift build -c release in the same checkout, or reinstall the wheel)")
    _LIBRARIES[path] = lib
    return lib


def _close(lib: ctypes.CDLL, handle: int, keep: list) -> None:
    """Closes a session (the library waits for a call in progress on another thread), then lets
    its buffers go: ``keep`` holds them until the library can no longer write into them. In the
    child of a fork the library refuses the parent's handle, which leaves the parent's alone."""
    lib.peggle_close(handle)
    keep.clear()


class NativeClient:
    """One session of the native library, with the interface the environments use of a
    `PeggleClient`: ``request(cmd, **fields)`` takes the serve protocol's commands and returns
    the reply's fields (raising `PeggleError` for an error reply), and ``close()``. The hot
    path is `reset` and `step` over the buffers bound after each ``make``. Closed by `close()`
    and on garbage collection. ``timeout`` is kept for the environments' interface: a call into
    the library cannot wait on a pipe, so there is nothing to time out."""

    backend = "native"

    def __init__(self, library: str, *, timeout: float | None = None, handle: int | None = None):
        self.path = library
        self.lib = lib = load(library)
        self.timeout = timeout
        if handle is None:
            handle = lib.peggle_open(0)
            if handle <= 0:
                raise self._error(None, "peggle_open")
        self.handle = handle
        #: A token no server's process id can equal: snapshots name the engine they belong to.
        self.token = -handle
        self.hello = {"hello": "peggle native", "protocol": PROTOCOL_VERSION, "engine": lib.peggle_engine().decode()}
        self._step = lib.peggle_step
        #: peggle_reset without declared argument types (see NO_SEED), for `PeggleEnv.reset`'s
        #: commonest reset: its own function object, so `lib.peggle_reset` keeps its types.
        self._reset = ctypes.CFUNCTYPE(ctypes.c_int32)(("peggle_reset", lib))
        self._keep: list = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close, lib, handle, self._keep)
        self._spec: dict | None = None
        self._names: dict[int, str] = {}
        self._name_table: np.ndarray | None = None
        self.num_envs = 0
        self.procedural = self.trajectory = False

    # MARK: lifecycle

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> "NativeClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def copy(self) -> "NativeClient":
        """A new session holding a copy of these environments as they are now (not the
        snapshots), with its own buffers: what `copy.deepcopy` of an environment makes."""
        if self.closed:
            raise PeggleError("closed", "the client is closed")
        handle = self.lib.peggle_copy(self.handle)
        if handle <= 0:
            raise self._error(self.handle, "copy")
        clone = NativeClient(self.path, timeout=self.timeout, handle=handle)
        clone._spec = self._spec
        clone._names = dict(self._names)
        clone.procedural, clone.trajectory = self.procedural, self.trajectory
        if self.num_envs:
            clone._bind(self.num_envs, self._obs_size)
        return clone

    # MARK: errors

    def _error(self, handle: int | None, what: str, status: int | None = None) -> PeggleError:
        """The refusal of the latest call on ``handle`` (None: peggle_open's), as a PeggleError
        with the status's name as its code."""
        h = 0 if handle is None else handle
        n = self.lib.peggle_error(h, None, 0)
        buf = ctypes.create_string_buffer(max(1, n))
        self.lib.peggle_error(h, buf, n)
        message = buf.raw[:n].decode("utf-8", errors="replace")
        code = self.lib.peggle_status_name(status).decode() if status is not None else "internal"
        return PeggleError(code, message or f"{what} failed")

    def raise_status(self, status: int) -> None:
        """Raises the refusal a hot-path call returned."""
        raise self._error(self.handle, "call", status)

    # MARK: requests

    def make_options(self) -> dict[str, dict]:
        """Every option ``make`` takes, by name, as this library describes it (``spec``)."""
        if self._spec is None:
            self._spec = self.request("spec")
        return {o["name"]: o for o in self._spec["make"]}

    def request(self, cmd: str, **fields: Any) -> dict:
        """Sends ``{"cmd": cmd, **fields}`` to the session and returns the reply (``ok``
        removed), with its binary frame under `FRAME` when it has one."""
        if self.closed:
            raise PeggleError("closed", "the client is closed")
        line = json.dumps({"cmd": cmd, **fields}, allow_nan=False, separators=(",", ":")).encode()
        line_length, frame_length = ctypes.c_int64(), ctypes.c_int64()
        with self._lock:  # the reply is the session's until its next call: fetched before another thread's
            status = self.lib.peggle_request(self.handle, line, len(line), ctypes.byref(line_length),
                                             ctypes.byref(frame_length))
            sizes = (line_length.value, frame_length.value)
            if status in (PEGGLE_CLOSED, PEGGLE_WRONG_PROCESS):
                raise self._error(self.handle, cmd, status)
            text = ctypes.create_string_buffer(max(1, sizes[0]))
            frame = bytearray(sizes[1])
            frame_ptr = (ctypes.c_char * len(frame)).from_buffer(frame) if frame else None
            self.lib.peggle_reply(self.handle, text, frame_ptr)
            del frame_ptr  # the bytearray may be resized again only once no ctypes view holds it
        reply = json.loads(text.raw[:sizes[0]])
        if frame:
            reply[FRAME] = frame
        if reply.pop("ok", None) is not True:
            err = reply.get("error") or {}
            raise PeggleError(str(err.get("code", "unknown")), str(err.get("message", "")))
        if cmd == "make":
            space = reply["observation_space"]
            #: Whether the environments play procedural levels, and record trajectories.
            self.procedural = "procedural" in reply
            self.trajectory = fields.get("trajectory") is True
            self._bind(int(reply["num_envs"]), int(math.prod(space["shape"])))
        return reply

    def _bind(self, num_envs: int, obs_size: int) -> None:
        """New buffers for ``num_envs`` environments of ``obs_size`` floats, bound to the session."""
        n = num_envs
        self.num_envs, self._obs_size = n, obs_size
        self.actions = np.zeros(n, np.float64)
        #: The same memory as ctypes doubles: one action is written into it faster than numpy can.
        self.action_slots = (ctypes.c_double * n).from_buffer(self.actions)
        self.reset_mask = np.zeros(n, np.uint8)
        self.obs = np.zeros((n, obs_size), np.float32)
        self.final_obs = np.zeros((n, obs_size), np.float32)
        # info and info_real in one block, so environment 0's two rows are one `ROW` (one read
        # of everything a single environment's step returns).
        ints, reals = n * len(INFO_INTS) * 8, n * len(INFO_REALS) * 8
        self.rows = np.zeros(ints + reals, np.uint8)
        self.info = self.rows[:ints].view(np.int64).reshape(n, len(INFO_INTS))
        self.info_real = self.rows[ints:].view(np.float64).reshape(n, len(INFO_REALS))
        #: Environment 0's info and info_real rows, for `ROW.unpack_from` (one environment only).
        self.row = memoryview(self.rows)
        self.final_info = np.zeros((n, len(INFO_INTS)), np.int64)
        self.final_info_real = np.zeros((n, len(INFO_REALS)), np.float64)
        arrays = [self.actions, self.reset_mask, self.obs, self.final_obs, self.info, self.info_real, self.final_info,
                  self.final_info_real, self.rows]
        buffers = Buffers(n, obs_size, *(a.ctypes.data for a in arrays[:8]))
        # The session keeps the pointers until the next bind or close: the arrays stay alive
        # (in `_keep`, which the finalizer empties only after closing) at least that long.
        self._keep.append(arrays)
        status = self.lib.peggle_bind(self.handle, ctypes.byref(buffers))
        if status:
            raise self._error(self.handle, "bind", status)

    # MARK: the hot path

    def reset(self, seed: int | None, level: int | None, mask: np.ndarray | None) -> None:
        """Resets as the ``reset`` request does (seed None: continue; level None: each chooses;
        mask: a bool array of num_envs), into the buffers."""
        if mask is not None:
            np.copyto(self.reset_mask, mask, casting="unsafe")
        status = self.lib.peggle_reset(self.handle, -1 if seed is None else seed, -1 if level is None else level,
                                       0 if mask is None else 1)
        if status:
            raise self._error(self.handle, "reset", status)

    def step(self) -> None:
        """Steps with the actions in `actions`, into the buffers."""
        status = self._step(self.handle)
        if status:
            raise self._error(self.handle, "step", status)

    def hot_step(self, copy_obs, level_names: list[str]):
        """This session's single environment's step in C (`HOT.bind`): ``step(action)``
        returns what `PeggleEnv.step` returns, or None for an action it leaves to the Python
        code, or the library's status when the step was refused. None without the extension.
        ``copy_obs()`` makes the observation handed out; the step keeps the buffers it writes
        alive (a closed session's step is refused, never a write into freed memory)."""
        if HOT is None or self.num_envs != 1:
            return None

        def slow_info(values: tuple) -> dict | None:  # rows other than a shot on a level file
            return info_from(values, self, level_names)

        step = ctypes.cast(self.lib.peggle_step, ctypes.c_void_p).value
        return HOT.bind(step, self.handle, self.actions.ctypes.data, self.rows.ctypes.data, (self.actions, self.rows),
                        copy_obs, level_names, slow_info, np.ndarray)

    def names(self, level: np.ndarray, generators: np.ndarray, some: np.ndarray, level_names: list[str]) -> np.ndarray:
        """Every environment's level name (None where ``some`` is false) as a new object array:
        a level file's from ``level_names``, a procedural level's from its generator seed (asked
        of the library only when an environment's level changed since the last call)."""
        if self._name_table is None or len(self._name_table) != len(level_names) + 1:
            self._name_table = np.array([*level_names, ""], dtype=object)
            self._env_generators = np.zeros(len(level), np.int64)
            self._env_named = np.zeros(len(level), np.bool_)
            self._env_names = np.full(len(level), "", dtype=object)
        if self.procedural:
            for i in np.flatnonzero(some & ((generators != self._env_generators) | ~self._env_named)):
                self._env_names[i] = self.level_name(int(generators[i]))
                self._env_generators[i] = generators[i]
                self._env_named[i] = True
            names = self._env_names.copy()
        else:
            names = self._name_table[level]  # a row without an info has level 0, a valid index
        names[~some] = None
        return names

    def level_name(self, generator_seed: int) -> str:
        """The name of the procedural level of ``generator_seed`` (a uint64's bits as an int64;
        kept once asked)."""
        name = self._names.get(generator_seed)
        if name is None:
            name = self._text(self.lib.peggle_level_name, generator_seed)
            if len(self._names) < 100_000:
                self._names[generator_seed] = name
        return name

    def trajectories(self, final: bool) -> list:
        """The latest step's ball paths per environment (None, or a list of paths of [x, y]
        points), as the serve protocol's infos hold them."""
        return json.loads(self._text(self.lib.peggle_trajectories, 1 if final else 0))

    def _text(self, function, argument: int) -> str:
        n = function(self.handle, argument, None, 0)
        if n < 0:
            raise self._error(self.handle, function.__name__)
        buf = ctypes.create_string_buffer(max(1, n))
        function(self.handle, argument, buf, n)
        return buf.raw[:n].decode()


# MARK: infos from the buffers, as the serve backend decodes them from its replies

def info_row(client: NativeClient, row: int, *, final: bool = False, level_names: list[str]) -> dict | None:
    """Environment ``row``'s info (or its final info) as `client.decode_info` makes it from a
    reply's row: the same keys in the same order, with the same types; None where the
    environment has no info (a masked reset left it alone)."""
    if final:
        values = tuple(client.final_info[row].tolist()) + tuple(client.final_info_real[row].tolist())
    elif client.num_envs == 1:
        values = ROW.unpack_from(client.row)
    else:
        values = tuple(client.info[row].tolist()) + tuple(client.info_real[row].tolist())
    return info_from(values, client, level_names, final, row)


def info_from(v: tuple, client: NativeClient, level_names: list[str], final: bool = False, row: int = 0) -> dict | None:
    """An info from environment ``row``'s `ROW` of values (see `info_row`). Each kind of info is
    one dict display, keys in the serve protocol's order: a single environment's step builds one
    per step, and a display costs half of inserting the keys one by one."""
    present = v[I_PRESENT]
    if present == 0:
        return None
    level, generator, status = v[I_LEVEL], v[I_GENERATOR_SEED], v[I_STATUS]
    procedural = v[I_LEVEL_SEED] >= 0
    if procedural:
        name = client.level_name(generator)
    else:
        name = level_names[level] if 0 <= level < len(level_names) else ""
    if present == 2:
        if procedural:
            return {"level": level, "level_name": name, "level_seed": np.uint64(v[I_LEVEL_SEED]), "score": v[I_SCORE],
                    "balls_left": v[I_BALLS_LEFT], "orange_left": v[I_ORANGE_LEFT], "shots": v[I_SHOTS],
                    "status": STATUSES[status], "won": status == 1, "game_seed": np.uint64(v[I_GAME_SEED])}
        return {"level": level, "level_name": name, "score": v[I_SCORE], "balls_left": v[I_BALLS_LEFT],
                "orange_left": v[I_ORANGE_LEFT], "shots": v[I_SHOTS], "status": STATUSES[status], "won": status == 1,
                "game_seed": np.uint64(v[I_GAME_SEED])}
    hits = {"blue": v[I_HITS_BLUE], "orange": v[I_HITS_ORANGE], "green": v[I_HITS_GREEN], "purple": v[I_HITS_PURPLE],
            "zombie": v[I_HITS_ZOMBIE], "confusement": v[I_HITS_CONFUSEMENT]}
    if procedural:
        info = {"level": level, "level_name": name, "level_seed": np.uint64(v[I_LEVEL_SEED]), "score": v[I_SCORE],
                "balls_left": v[I_BALLS_LEFT], "orange_left": v[I_ORANGE_LEFT], "shots": v[I_SHOTS],
                "status": STATUSES[status], "won": status == 1, "angle": v[V_ANGLE], "fired_angle": v[V_FIRED_ANGLE],
                "pegs_hit": v[I_PEGS_HIT], "hits": hits, "points": v[I_POINTS], "free_balls": v[I_FREE_BALLS],
                "caught": v[I_CAUGHT]}
    else:
        info = {"level": level, "level_name": name, "score": v[I_SCORE], "balls_left": v[I_BALLS_LEFT],
                "orange_left": v[I_ORANGE_LEFT], "shots": v[I_SHOTS], "status": STATUSES[status], "won": status == 1,
                "angle": v[V_ANGLE], "fired_angle": v[V_FIRED_ANGLE], "pegs_hit": v[I_PEGS_HIT], "hits": hits,
                "points": v[I_POINTS], "free_balls": v[I_FREE_BALLS], "caught": v[I_CAUGHT]}
    if v[I_TRAJECTORY]:
        info["trajectory"] = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in client.trajectories(final)[row]]
    return info


_STATUS_OBJECTS = np.array(STATUSES, dtype=object)
_HIT_COLUMNS = tuple(zip(HIT_KINDS, (I_HITS_BLUE, I_HITS_ORANGE, I_HITS_GREEN, I_HITS_PURPLE, I_HITS_ZOMBIE,
                                     I_HITS_CONFUSEMENT)))


def info_columns(client: NativeClient, *, final: bool = False, level_names: list[str]) -> dict:
    """Every environment's info (or final info) in Gymnasium's vector layout, as
    `client.decode_info_columns` makes it from a reply in the ``columns`` layout: each key an
    array over the environments and ``_key`` the mask of those that have it, the others holding
    the filler (0, False or None); a key no environment has is left out. Each array is new (a
    caller may keep or change any of them)."""
    ints = (client.final_info if final else client.info).copy()
    present = ints[:, I_PRESENT]
    n = len(present)
    # How many environments have no info, a step's and a reset's, in one pass (numpy's `any`
    # costs more than the counting).
    _, shots, resets = np.bincount(present, minlength=3).tolist()
    if shots + resets == 0:
        return {}
    some = present != 0
    shot = present == 1
    reset = present == 2
    level, generators, statuses = ints[:, I_LEVEL], ints[:, I_GENERATOR_SEED], ints[:, I_STATUS]
    # Procedural levels or level files: the whole vector plays one or the other.
    any_procedural, any_reset, any_shot = client.procedural, resets > 0, shots > 0
    procedural = some
    # Every mask at once, one row per key that has it (rows of one new array: each key's own):
    # the 8 keys every info has (level_seed's among them with procedural levels), game_seed's,
    # then the shot's 13 (angle, fired_angle, pegs_hit, hits' 6 and its own, points, free_balls,
    # caught) and trajectory's.
    k = 8 + any_procedural + any_reset
    masks = np.empty((k + 14 * any_shot, n), np.bool_)
    masks[:k] = some
    if any_procedural:
        masks[2] = procedural
    if any_reset:
        masks[k - 1] = reset
    masks[k:] = shot
    rows = iter(masks)
    infos: dict[str, Any] = {"level": level, "_level": next(rows),
                             "level_name": client.names(level, generators, some, level_names), "_level_name": next(rows)}
    if any_procedural:
        infos["level_seed"] = ints[:, I_LEVEL_SEED].astype(np.uint64)
        infos["_level_seed"] = next(rows)
    status = _STATUS_OBJECTS[statuses]
    status[~some] = None
    infos.update(score=ints[:, I_SCORE], _score=next(rows), balls_left=ints[:, I_BALLS_LEFT], _balls_left=next(rows),
                 orange_left=ints[:, I_ORANGE_LEFT], _orange_left=next(rows), shots=ints[:, I_SHOTS],
                 _shots=next(rows), status=status, _status=next(rows), won=(statuses == 1) & some, _won=next(rows))
    if any_reset:
        infos["game_seed"] = np.where(reset, ints[:, I_GAME_SEED], 0).astype(np.uint64)
        infos["_game_seed"] = next(rows)
    if any_shot:
        reals = (client.final_info_real if final else client.info_real).copy()
        infos.update(angle=reals[:, R_ANGLE], _angle=next(rows), fired_angle=reals[:, R_FIRED_ANGLE],
                     _fired_angle=next(rows), pegs_hit=ints[:, I_PEGS_HIT], _pegs_hit=next(rows))
        hits: dict[str, Any] = {}
        for kind, c in _HIT_COLUMNS:
            hits[kind] = ints[:, c]
            hits["_" + kind] = next(rows)
        infos.update(hits=hits, _hits=next(rows), points=ints[:, I_POINTS], _points=next(rows),
                     free_balls=ints[:, I_FREE_BALLS], _free_balls=next(rows), caught=ints[:, I_CAUGHT],
                     _caught=next(rows))
        recorded = shot & (ints[:, I_TRAJECTORY] == 1) if client.trajectory else None
        if recorded is not None and recorded.any():
            paths = client.trajectories(final)
            array = np.full(n, None, dtype=object)
            for i in np.flatnonzero(recorded):
                array[i] = [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in paths[i]]
            infos["trajectory"] = array
            infos["_trajectory"] = recorded
    return infos
