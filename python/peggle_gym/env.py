"""`PeggleEnv`: one Peggle environment as a `gymnasium.Env`, on its own engine session (the native
library in this process, or its own `peggle serve`)."""
from __future__ import annotations

import functools
import math
import os
from typing import Any

import gymnasium as gym
import numpy as np

from .backends import start
from .errors import PeggleError
from .replies import decode_info, decode_obs, decode_rgb, info_types, space_from
from .requests import (SeededCycleWarning, action_values, checked_render_width, checked_timeout, checked_width,
                       level_option, make_request, server_seed)
from .native import (I_BALLS_LEFT, I_CAUGHT, I_FREE_BALLS, I_HITS_BLUE, I_HITS_CONFUSEMENT, I_HITS_GREEN, I_HITS_ORANGE,
                     I_HITS_PURPLE, I_HITS_ZOMBIE, I_LEVEL, I_LEVEL_SEED, I_ORANGE_LEFT, I_PEGS_HIT, I_POINTS, I_PRESENT,
                     I_SCORE, I_SHOTS, I_STATUS, I_TERMINATED, I_TRAJECTORY, I_TRUNCATED, ROW, STATUSES, V_ANGLE,
                     V_FIRED_ANGLE, V_REWARD, NO_LEVEL, NO_SEED, info_from, info_row)
from .state import EngineState, Snapshot

RESET_OPTIONS = ("level",)


class PeggleEnv(EngineState, gym.Env):
    """One Peggle environment. One step is one shot, simulated to its end.

    Args:
        level: a bundled level's name (``"first-steps"``, see `peggle_gym.bundled_levels`) or a
            level file (JSON), or a list of them (same as ``levels``). Relative paths are
            resolved against the current working directory.
        levels: level files; each episode plays one, in turn (``level_order="cycle"``, the
            default) or drawn from the seeded generator (``"random"``).
        render_mode: ``None``, ``"ansi"`` (the server's 80 x 30 text picture with a status
            line) or ``"rgb_array"`` (the board as a ``uint8`` array of ``(height, width, 3)``,
            drawn by the server's rasteriser in the SVG picture's colours, without text).
        render_width: the ``rgb_array`` picture's width in pixels, 16 to 4096 (checked here:
            ``TypeError`` or ``ValueError``); the height follows the board (600 / 800 of the
            width). ``None``: one pixel per board unit, 800 x 600.
        peggle_path: the `peggle` binary (else `find_peggle`'s: ``$PEGGLE_BIN``, the installed
            wheel's engine, `peggle` on ``PATH``, or the repository's ``.build/release/peggle``).
        timeout: seconds the client waits for each reply (make's included), None (the default)
            for ever. Past it `peggle_gym.PeggleTimeout` is raised, the server is killed and the
            environment is closed. A client option of the serve backend (not sent to the
            server); the native backend has no pipe to wait on and keeps it unused.
        backend: ``"native"`` (the engine inside this process, through its C library: the
            default where the library is found beside the engine, as the wheel and ``swift build
            -c release`` put it) or ``"serve"`` (a `peggle serve` process behind a pipe). None:
            ``$PEGGLE_BACKEND``, else that default. Both play the same episodes bit for bit.
        **options: the environment's options, passed to the server as given (None: its
            default). `peggle_gym.make_options()` lists each with its type, range, default and
            meaning, as the binary reports them; docs/environment.md explains them. The main
            ones: procedural levels instead of files (``num_levels``, ``start_level``,
            ``distribution_mode``, ``templates``: Procgen's names; train and test on disjoint
            seed ranges), ``aim_noise`` (radians; Peggle-v1 registers 0.02), ``bucket_start``,
            ``cycle_start``, ``physics`` (1, the default, or 2: the second physics, issue 51), ``encoder`` (``"objects"``, ``"grid"``, ``"pixels"`` or ``"aim"``:
            one row per aim bin describing what a shot there would do, which
            `peggle_gym.sb3.AimPolicy` ranks), ``action`` (``"continuous"`` or ``"discrete"``;
            with ``encoder="aim"`` action b fires at row b's aim), ``bins``, ``reward``,
            ``max_shots``, ``mode``, ``trajectory``, ``threads`` and ``obs_encoding`` (``"f32"``
            here unless given: a binary frame after each reply, the fastest).

    Reset options: ``{"level": index or name}`` plays that level (procedural levels: index k
    plays seed ``start_level + k``). ``reset(seed=s)`` makes the
    episode a function of ``s``; ``reset()`` continues the seeded generator (a first ``reset()``
    without any seed draws one from `np_random`, so fresh environments differ).
    Info (reset): level, level_name, score, balls_left, orange_left, shots, status, won,
    game_seed, and with procedural levels level_seed (also on steps). Info (step): the same but game_seed, plus angle, fired_angle, pegs_hit, hits (per kind),
    points, free_balls, caught and, with ``trajectory=True``, trajectory; on the step that ends
    an episode (terminated or truncated), ``is_success`` (the game was won: SB3's ``Monitor``
    and RL Zoo read it).
    Stepping after the episode ended raises `PeggleError` (code ``episode_over``); actions
    outside the action space raise it with code ``bad_action`` (they are not clipped).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, level: str | os.PathLike | list | None = None, *, levels: list | None = None,
                 render_mode: str | None = None, render_width: int | None = None,
                 peggle_path: str | os.PathLike | None = None, timeout: float | None = None,
                 backend: str | None = None, **options: Any):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if level is not None and levels is not None:
            raise ValueError("give level or levels, not both")
        def fields_for(spec: dict) -> dict:
            return make_request(levels if levels is not None else level, options, spec=spec, num_envs=1, autoreset="disabled")
        self.render_mode = render_mode
        self.render_width = checked_render_width(render_width)
        client, fields, made = start(peggle_path, fields_for, checked_timeout(timeout), backend)
        self._attach(client)
        self._remember_make(fields, peggle_path)
        self._cycle_warning = SeededCycleWarning(fields, self.client.make_options())
        #: The levels' names, in order (``reset(options={"level": name})`` takes them); empty
        #: with procedural levels.
        self.level_names: list[str] = list(made["levels"])
        #: The procedural levels' settings as the server took them (None with level files):
        #: num_levels, start_level, distribution_mode, templates.
        self.procedural: dict | None = made.get("procedural")
        #: Aim noise, radians (the standard deviation added to every shot's aim), and where the
        #: bucket starts each episode (``"centre"`` or ``"random"``), as the server took them.
        self.aim_noise: float = float(made["aim_noise"])
        self.bucket_start: str = made["bucket_start"]
        #: The physics playing the games: 1 (fixed steps, the default) or 2 (times of impact).
        self.physics: int = int(made.get("physics", self.client.make_options()["physics"]["default"]))
        self.observation_space = space_from(made["observation_space"])
        self.action_space = space_from(made["action_space"])
        self._obs_shape = self.observation_space.shape
        self._obs_dtype = self.observation_space.dtype
        self._seeded = False
        self._bind_hot()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        native = self._native
        if seed is None and not options and self._seeded and native is not None:
            # The commonest reset (a loop's at each episode's end), which the code below would
            # reach with nothing to decide: once an episode takes ten 20 µs shots, its Python
            # showed in each step's share.
            status = native._reset(native.handle, NO_SEED, NO_LEVEL, 0)
            if status:
                raise native._error(native.handle, "reset", status)
            return self._native_obs(), info_row(native, 0, level_names=self.level_names)
        super().reset(seed=seed)
        if seed is not None:
            self._cycle_warning.seeded_reset()
        fields: dict[str, Any] = {}
        if options:
            unknown = sorted(set(options) - set(RESET_OPTIONS))
            if unknown:
                raise ValueError(f"unknown reset option {unknown[0]!r} (known: {', '.join(RESET_OPTIONS)})")
            if "level" in options:
                fields["options"] = {"level": level_option(options["level"])}
        if seed is None and not self._seeded:
            # Gymnasium's rule: with no seed ever given, start from entropy (via np_random).
            seed = int(self.np_random.integers(0, 2**62))  # the server reads seeds below ~9.2e18
        if seed is not None:
            fields["seed"] = server_seed(seed)
        reply = self._reset_engine(fields, None)
        self._seeded = self._seeded or seed is not None
        if reply is None:
            return self._native_obs(), info_row(self._native, 0, level_names=self.level_names)
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)[0]
        return obs, decode_info(reply["infos"][0], info_types(self.client))

    def step(self, action):
        hot = self._hot
        if hot is not None:
            # The native step in C (`NativeClient.hot_step`): the common case whole, as the code
            # below does it; None leaves the action to that code, an int is the refusal.
            result = hot(action)
            if type(result) is tuple:
                return result
            if result is not None:
                self._refused(result)
        native = self._native
        if native is not None:
            # The hot path: the actions the serve backend would send (`action_values`), without
            # building them for the common shapes, a float or an array of one number.
            if type(action) is np.ndarray and action.size == 1 and action.ndim <= 1 and action.dtype.kind in "fiu":
                value = action.item()
                if type(value) is not float:
                    value = float(value)
            elif type(action) is float:
                value = action
            else:
                value = action_values(action, 1, single=True)[0]
            if not math.isfinite(value):
                action_values(action, 1, single=True)  # raises the refusal the serve backend gives
            native.action_slots[0] = value
            status = native._step(native.handle)
            if status:
                self._refused(status)
            v = ROW.unpack_from(native.row)
            terminated, truncated = v[I_TERMINATED] == 1, v[I_TRUNCATED] == 1
            if v[I_PRESENT] == 1 and v[I_LEVEL_SEED] < 0 and not v[I_TRAJECTORY]:
                # `info_from`'s commonest info (a shot on a level file), built here: a step of
                # one environment is short enough that the call shows.
                status, level, names = v[I_STATUS], v[I_LEVEL], self.level_names
                info = {"level": level, "level_name": names[level] if 0 <= level < len(names) else "",
                        "score": v[I_SCORE], "balls_left": v[I_BALLS_LEFT], "orange_left": v[I_ORANGE_LEFT],
                        "shots": v[I_SHOTS], "status": STATUSES[status], "won": status == 1, "angle": v[V_ANGLE],
                        "fired_angle": v[V_FIRED_ANGLE], "pegs_hit": v[I_PEGS_HIT],
                        "hits": {"blue": v[I_HITS_BLUE], "orange": v[I_HITS_ORANGE], "green": v[I_HITS_GREEN],
                                 "purple": v[I_HITS_PURPLE], "zombie": v[I_HITS_ZOMBIE],
                                 "confusement": v[I_HITS_CONFUSEMENT]},
                        "points": v[I_POINTS], "free_balls": v[I_FREE_BALLS], "caught": v[I_CAUGHT]}
            else:
                info = info_from(v, native, self.level_names)
            if terminated or truncated:
                info["is_success"] = v[I_STATUS] == 1
            row = self._obs_row
            if row is None:
                row = self._native_obs_row()
            return (row.copy() if self._obs_float else row.astype(self._obs_dtype)), v[V_REWARD], terminated, truncated, info
        try:
            reply = self.client.request("step", actions=action_values(action, 1, single=True))
        except PeggleError as e:
            self._episode_over(e)
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)[0]
        terminated, truncated = bool(reply["terminated"][0]), bool(reply["truncated"][0])
        info = decode_info(reply["infos"][0], info_types(self.client))
        if terminated or truncated:
            info["is_success"] = bool(info["won"])
        return obs, float(reply["rewards"][0]), terminated, truncated, info

    def _refused(self, status: int):
        """Raises the refusal of a native step (its status)."""
        try:
            self._native.raise_status(status)
        except PeggleError as e:
            self._episode_over(e)

    @staticmethod
    def _episode_over(e: PeggleError):
        """Re-raises a refused step; an ``episode_over`` in a single environment's words."""
        if e.code != "episode_over":
            raise e
        # The engine runs one environment as a vector without autoreset; its message speaks of
        # reset masks, which a single environment does not have.
        raise PeggleError("episode_over", "the episode has ended (terminated or truncated); call reset()") from None

    def _attach(self, client) -> None:
        super()._attach(client)
        self._obs_row = None
        self._hot = None
        if hasattr(self, "level_names"):  # a copy's or an unpickled environment's; __init__ binds its own
            self._bind_hot()

    def _bind_hot(self) -> None:
        """The native step in C for this environment's session, where the extension is built."""
        native = self._native
        if native is None:
            return
        row = self._native_obs_row()
        copy_obs = row.copy if self._obs_float else functools.partial(row.astype, self._obs_dtype)
        self._hot = native.hot_step(copy_obs, self.level_names)

    def _native_obs_row(self) -> np.ndarray:
        """The native buffer's observation row, shaped as the observation space (a view)."""
        self._obs_row = self._native.obs[0].reshape(self._obs_shape)
        self._obs_float = self._obs_dtype == np.float32
        return self._obs_row

    def _native_obs(self) -> np.ndarray:
        """The native buffer's observation as a new array (a caller keeps what it was given)."""
        row = self._obs_row if self._obs_row is not None else self._native_obs_row()
        return row.copy() if self._obs_float else row.astype(self._obs_dtype)

    def restore(self, token: Snapshot) -> np.ndarray:
        """Puts the environment back as it was at `snapshot` (the episode, its generator and
        aim-noise stream, the latest shot) and returns the observation it had then; stepping
        with the same actions again gives the same results. The token stays valid."""
        return decode_obs(self._restore(token), "obs", self._obs_shape, self._obs_dtype)[0]

    def render(self) -> str | np.ndarray | None:
        """With ``render_mode="ansi"``, the board as text (80 x 30 cells and a status line); with
        ``"rgb_array"``, as pixels (`render_rgb` at ``render_width``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; make the env with render_mode='ansi' "
                            "or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb(self.render_width)
        return self.client.request("render", env=0, format="ansi")["text"]

    def render_rgb(self, width: int | None = None) -> np.ndarray:
        """The board as a new ``uint8`` array of ``(height, width, 3)`` (any render mode): pegs by
        kind, the pegs the latest shot lit drawn bright where they were, its ball paths (with
        ``trajectory=True``), bucket and cannon. ``width`` in pixels, 16 to 4096, else 800; the
        height keeps the board's aspect ratio."""
        fields = {"env": 0, "format": "rgb"}
        if width is not None:
            fields["width"] = checked_width(width, "width")
        return decode_rgb(self.client.request("render", **fields))

    def render_svg(self) -> str:
        """The board and the latest shot's ball path as an SVG document (any render mode)."""
        return self.client.request("render", env=0, format="svg")["svg"]

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        super().close()

