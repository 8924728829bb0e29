"""What the environments send: arguments checked where the engine cannot (or before it starts),
actions as the step request's numbers, and make requests composed in the engine's own words
(its `spec`: which fields are procedural, every default)."""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from .engines import find_peggle
from .errors import PeggleError
from .level_paths import level_path

#: The widths, in pixels, that the ``rgb`` render takes (docs/protocol.md's ``render``; the
#: server's ``ServeSession.rgbWidths``): ``render_width`` is checked against them at make time.
RGB_WIDTHS = range(16, 4097)


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


def server_seed(seed: int) -> int:
    """A reset seed as the server takes it (0 ... 2**63 - 1)."""
    seed = int(seed)
    if not 0 <= seed < 2**63:
        raise ValueError(f"seed {seed} is outside 0 ... 2**63 - 1")
    return seed
