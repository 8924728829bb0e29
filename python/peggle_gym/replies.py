"""Replies as the environments return them: observations (from the binary frame, base64 or
JSON), infos typed by the engine's own declaration of their keys (its `spec` reply's ``info``),
pictures and spaces."""
from __future__ import annotations

import base64
from typing import Any

import numpy as np

from .errors import PeggleError

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


def _paths(value: list) -> list[np.ndarray]:
    """A trajectory: one float64 ``(points, 2)`` array per ball path."""
    return [np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in value]


#: A row's value of each info type as Gymnasium's vector `_add_info` batches it cleanly (it types
#: an array after the first value it sees): reals always floats, the seeds `numpy.uint64`, paths
#: arrays. The other types stay as JSON gives them (int, bool, str, and an object's dict).
_ROW_VALUE = {"number": float, "uint64": np.uint64, "trajectory": _paths}
#: Each info type's array in the columns layout: the types `_add_info` gives the rows' values.
_COLUMN_DTYPE = {"int": np.int64, "uint64": np.uint64, "number": np.float64, "bool": np.bool_, "string": object,
                 "trajectory": object, "object": None}


class InfoTypes:
    """The keys an engine's infos can have and their types, as its ``spec`` reply's ``info``
    declares them (Swift's ``ServeSession.infoKeys``, which writes the replies too), and infos
    decoded by them: `row` for the rows layout, `columns` for the columns layout."""

    def __init__(self, keys: list[dict]):
        self.types: dict[str, str] = {}
        #: An object key's own keys (``hits``).
        self.nested: dict[str, InfoTypes] = {}
        #: The keys whose row values change, each with how.
        self._row: list[tuple[str, Any]] = []
        for key in keys:
            name, kind = key["name"], key["type"]
            if kind not in _COLUMN_DTYPE:
                raise PeggleError("protocol", f"the engine's info key {name!r} has type {kind!r}, which this "
                                              "peggle_gym does not know: use the engine of the same release")
            self.types[name] = kind
            if kind == "object":
                nested = self.nested[name] = InfoTypes(key["keys"])
                if nested._row:
                    self._row.append((name, nested.row))
            elif kind in _ROW_VALUE:
                self._row.append((name, _ROW_VALUE[kind]))

    def row(self, info: dict) -> dict:
        """A server info object as a Gymnasium info dict (changed in place), with types that
        batch cleanly: ``number`` keys (``angle``) floats, ``uint64`` keys (the seeds)
        `numpy.uint64`, a ``trajectory`` a list of float64 ``(points, 2)`` arrays, one per ball."""
        for key, convert in self._row:
            if key in info:
                info[key] = convert(info[key])
        return info

    def columns(self, columns: dict, num_envs: int) -> dict:
        """Infos sent in the ``columns`` layout (Gymnasium's own vector-info layout: ``key`` an
        array over the environments, ``_key`` the mask of those that have it) as the dict of numpy
        arrays `gymnasium.vector.VectorEnv._add_info` builds from the rows, with the same types."""
        infos: dict[str, Any] = {}
        for key, values in columns.items():
            if key.startswith("_"):
                infos[key] = np.asarray(values, dtype=np.bool_)
                continue
            kind = self.types.get(key)
            if kind is None:
                raise PeggleError("protocol", f"the engine sent info key {key!r}, which its spec does not declare")
            if kind == "object":
                infos[key] = self.nested[key].columns(values, num_envs)
            elif kind == "trajectory":
                array = np.full(num_envs, None, dtype=object)
                for i, paths in enumerate(values):
                    if paths is not None:
                        array[i] = _paths(paths)
                infos[key] = array
            elif kind == "string":
                array = np.empty(num_envs, dtype=object)
                array[:] = values
                infos[key] = array
            else:
                infos[key] = np.asarray(values, dtype=_COLUMN_DTYPE[kind])
        return infos


_INFO_TYPES: dict[tuple[str, str], InfoTypes] = {}


def info_types(client) -> InfoTypes:
    """The info keys of ``client``'s engine (a `PeggleClient` or a `NativeClient`) from its
    ``spec`` reply, asked once per engine and backend in a process."""
    key = (client.backend, client.path)
    types = _INFO_TYPES.get(key)
    if types is None:
        types = _INFO_TYPES[key] = InfoTypes(client.request("spec")["info"])
    return types


def decode_info(info: dict, types: InfoTypes) -> dict:
    """A server info object as a Gymnasium info dict (`InfoTypes.row`)."""
    return types.row(info)


def decode_info_columns(columns: dict, num_envs: int, types: InfoTypes) -> dict:
    """Infos in the ``columns`` layout as `gymnasium.vector.VectorEnv._add_info` builds them
    (`InfoTypes.columns`)."""
    return types.columns(columns, num_envs)


def decode_rgb(reply: dict) -> np.ndarray:
    """A ``render`` reply of format ``rgb`` as a new, writable uint8 array of ``(height, width, 3)``."""
    pixels = np.frombuffer(bytearray(base64.b64decode(reply["rgb_b64"])), dtype=np.uint8)
    return pixels.reshape(int(reply["height"]), int(reply["width"]), 3)


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
