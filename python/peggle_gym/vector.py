"""`PeggleVectorEnv`: N Peggle environments as one `gymnasium.vector.VectorEnv`, stepped together
(in parallel across threads) by one engine session (the native library in this process, or one
`peggle serve` process)."""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .backends import start
from .engines import cores
from .replies import decode_info, decode_info_columns, decode_obs, decode_rgb, info_types, space_from
from .requests import (SeededCycleWarning, action_values, checked_num_envs, checked_render_width, checked_timeout,
                       checked_width, level_option, make_request, server_seed)
from .native import I_HAS_FINAL, I_TERMINATED, I_TRUNCATED, R_REWARD, info_columns, info_row
from .state import EngineState, Snapshot

_MODES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def _autoreset_mode(value: AutoresetMode | str) -> AutoresetMode:
    if isinstance(value, AutoresetMode):
        return value
    for mode, name in _MODES.items():
        if value in (name, mode.value, mode.name):
            return mode
    raise ValueError(f"autoreset {value!r} is not one of {', '.join(_MODES.values())} (or an AutoresetMode)")


def _add_success(infos: dict, ended: np.ndarray) -> dict:
    """Adds ``is_success`` (the game was won) to the infos of the environments whose episode
    ended, as a single `PeggleEnv` puts it in its last step's info (a `SyncVectorEnv` of them
    batches it so)."""
    infos["is_success"] = np.asarray(infos["won"], dtype=np.bool_) & ended
    infos["_is_success"] = ended.copy()
    return infos


class PeggleVectorEnv(EngineState, VectorEnv):
    """``num_envs`` Peggle environments in one server, with Gymnasium 1.x autoreset semantics
    exactly as `gymnasium.vector.SyncVectorEnv` has them:

    - ``next_step`` (default): an environment whose episode ended is reset by the next `step`;
      its action there is ignored, its reward is 0, its flags false and its info the reset's.
    - ``same_step``: it is reset within the step that ended it; ``infos["final_obs"]`` (an object
      array of observations) and ``infos["final_info"]`` (a dict of arrays), each masked by
      ``infos["_final_obs"]`` / ``infos["_final_info"]``, hold where it ended.
    - ``disabled``: stepping it raises `PeggleError` (``episode_over``) until
      ``reset(options={"reset_mask": mask})`` resets it.

    ``reset(seed=s)`` gives environment i the seed ``s + i``. Procedural levels
    (``num_levels``, ``start_level``, ``distribution_mode``, ``templates``) as for `PeggleEnv`:
    each environment draws its levels with its own seeded generator. Infos are dicts of arrays with
    ``_key`` masks (``info_layout="rows"``: the server sends one info per environment and they
    are batched here; the same result, slower). Options (``**options``) as for `PeggleEnv`,
    passed to the server as given; ``threads`` defaults to the cores this process may use
    (results are identical for any thread count). ``render()`` returns every
    environment's picture in a tuple, as `gymnasium.vector.SyncVectorEnv` does: text with
    ``render_mode="ansi"``, ``uint8`` arrays of ``(height, width, 3)`` with ``"rgb_array"``
    (``render_width`` pixels wide, as for `PeggleEnv`). ``num_envs`` must be an integer (a
    float or string is refused, not rounded); ``timeout`` and ``backend`` as for `PeggleEnv`.
    """

    def __init__(self, num_envs: int = 1, level: str | os.PathLike | list | None = None, *,
                 levels: list | None = None, autoreset: AutoresetMode | str = "next_step",
                 render_mode: str | None = None, render_width: int | None = None,
                 peggle_path: str | os.PathLike | None = None, info_layout: str = "columns",
                 timeout: float | None = None, backend: str | None = None, **options: Any):
        num_envs = checked_num_envs(num_envs)
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode {render_mode!r} is not None, 'ansi' or 'rgb_array'")
        if level is not None and levels is not None:
            raise ValueError("give level or levels, not both")
        if info_layout not in ("columns", "rows"):
            raise ValueError(f"info_layout {info_layout!r} is not 'columns' or 'rows'")
        mode_enum = _autoreset_mode(autoreset)
        render_width = checked_render_width(render_width)
        timeout = checked_timeout(timeout)
        if options.get("threads") is None:
            options["threads"] = max(1, min(num_envs, cores()))
        def fields_for(spec: dict) -> dict:
            return make_request(levels if levels is not None else level, options, spec=spec, num_envs=num_envs,
                                autoreset=_MODES[mode_enum], info_layout=info_layout)
        self._columns = info_layout == "columns"
        client, fields, made = start(peggle_path, fields_for, timeout, backend)
        self._attach(client)
        self._remember_make(fields, peggle_path)
        self._cycle_warning = SeededCycleWarning(fields, self.client.make_options())
        self.num_envs = int(made["num_envs"])
        self.render_mode = render_mode
        self.render_width = render_width
        self.metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1, "autoreset_mode": mode_enum}
        #: The levels' names, in order (empty with procedural levels).
        self.level_names: list[str] = list(made["levels"])
        #: The procedural levels' settings as the server took them (None with level files).
        self.procedural: dict | None = made.get("procedural")
        #: Aim noise, radians (the standard deviation added to every shot's aim), and where the
        #: bucket starts each episode (``"centre"`` or ``"random"``), as the server took them.
        self.aim_noise: float = float(made["aim_noise"])
        self.bucket_start: str = made["bucket_start"]
        #: The physics playing the games: 1 (fixed steps, the default) or 2 (times of impact).
        self.physics: int = int(made.get("physics", self.client.make_options()["physics"]["default"]))
        self.single_observation_space = space_from(made["observation_space"])
        self.single_action_space = space_from(made["action_space"])
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._obs_shape = self.single_observation_space.shape
        self._obs_dtype = self.single_observation_space.dtype
        self._seeded = False

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return self.metadata["autoreset_mode"]

    def reset(self, *, seed: int | list | None = None, options: dict[str, Any] | None = None):
        """Resets every environment, or those where ``options["reset_mask"]`` (a numpy bool array
        of shape ``(num_envs,)``) is true. ``seed``: an int (environment i gets ``seed + i``),
        None, or a list ``[s, s + 1, ...]``. ``options["level"]``: a level index or name."""
        seed = self._single_seed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._cycle_warning.seeded_reset()
        fields: dict[str, Any] = {}
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is not None:
            if not isinstance(mask, np.ndarray):
                raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
            if mask.shape != (self.num_envs,):
                raise ValueError(f"`options['reset_mask']` must have shape `({self.num_envs},)`, got {mask.shape}")
            if mask.dtype != np.bool_:
                raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
            if not mask.any():
                raise ValueError("`options['reset_mask']` must contain a boolean array with at least one True value, "
                                 f"got reset_mask={mask}")
            fields["reset_mask"] = mask.tolist()
        if options:
            unknown = sorted(set(options) - {"level"})
            if unknown:
                raise ValueError(f"unknown reset option {unknown[0]!r} (known: level, reset_mask)")
            fields["options"] = {"level": level_option(options["level"])}
        if seed is None and not self._seeded:
            seed = int(self.np_random.integers(0, 2**62))  # room for seed + i; the server reads < ~9.2e18
        if seed is not None:
            fields["seed"] = server_seed(seed)
        reply = self._reset_engine(fields, mask)
        self._seeded = self._seeded or seed is not None
        if reply is None:
            native = self._native
            if self._columns:
                return self._native_obs(), info_columns(native, level_names=self.level_names)
            infos = {}
            for i in range(self.num_envs):
                info = info_row(native, i, level_names=self.level_names)
                if info is not None:
                    infos = self._add_info(infos, info, i)
            return self._native_obs(), infos
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)
        types = info_types(self.client)
        if self._columns:
            return obs, decode_info_columns(reply["infos"], self.num_envs, types)
        infos: dict[str, Any] = {}
        for i, info in enumerate(reply["infos"]):
            if info is not None:
                infos = self._add_info(infos, decode_info(info, types), i)
        return obs, infos

    def _single_seed(self, seed) -> int | None:
        """The one seed the server takes for ``seed`` (a list must be consecutive)."""
        if seed is None or isinstance(seed, (int, np.integer)):
            return None if seed is None else int(seed)
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"If seeds are passed as a list the length must match num_envs={self.num_envs} "
                             f"but got length={len(seeds)}.")
        if all(s is None for s in seeds):
            return None
        if all(s is not None for s in seeds) and all(int(s) == int(seeds[0]) + i for i, s in enumerate(seeds)):
            return int(seeds[0])
        raise ValueError("the server seeds environment i with seed + i: give an int, None, or a list "
                         f"[s, s + 1, ..., s + {self.num_envs - 1}], not {seeds}")

    def step(self, actions):
        native = self._native
        if native is not None:
            return self._native_step(native, actions)
        return self._reply_step(self.client.request("step", actions=action_values(actions, self.num_envs, single=False)))

    def _reply_step(self, reply: dict):
        """A step's results from the engine's reply (the request path)."""
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)
        rewards = np.asarray(reply["rewards"], dtype=np.float64)
        terminated = np.asarray(reply["terminated"], dtype=np.bool_)
        truncated = np.asarray(reply["truncated"], dtype=np.bool_)
        final_mask = reply.get("final_mask")
        final_obs = decode_obs(reply, "final_obs", self._obs_shape, self._obs_dtype) if final_mask else None
        ended = terminated | truncated
        types = info_types(self.client)
        if self._columns:
            infos = decode_info_columns(reply["infos"], self.num_envs, types)
            if ended.any() and not final_mask:
                _add_success(infos, ended)
            if final_mask:
                # As SyncVectorEnv: the ended episodes' last observations (an object array) and
                # infos, each with its mask.
                mask = np.asarray(final_mask, dtype=np.bool_)
                ended = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(mask):
                    ended[i] = final_obs[i].copy()
                infos["final_obs"], infos["_final_obs"] = ended, mask
                infos["final_info"] = _add_success(decode_info_columns(reply["final_infos"], self.num_envs, types), mask)
                infos["_final_info"] = mask.copy()
            return obs, rewards, terminated, truncated, infos
        infos: dict[str, Any] = {}
        for i, info in enumerate(reply["infos"]):
            if final_mask and final_mask[i]:
                # As SyncVectorEnv: the ended episode's last observation and info first...
                final_info = decode_info(reply["final_infos"][i], types)
                final_info["is_success"] = bool(final_info["won"])
                infos = self._add_info(infos, {"final_obs": final_obs[i].copy(), "final_info": final_info}, i)
            # ...then the info of what the environment now holds.
            info = decode_info(info, types)
            if ended[i] and not final_mask:
                info["is_success"] = bool(info["won"])
            infos = self._add_info(infos, info, i)
        return obs, rewards, terminated, truncated, infos

    def _native_step(self, native, actions):
        """`step` on the native hot path: the same results as the serve backend's, from the
        library's buffers. Actions it would refuse (or that are not a plain array of num_envs
        finite numbers) go through `action_values` and, if that passes them, the request path,
        so every refusal is the serve backend's own."""
        n = self.num_envs
        plain = (type(actions) is np.ndarray and actions.size == n and actions.dtype.kind in "fiu"
                 and (actions.ndim == 1 or actions.shape == (n, 1)))
        if plain:
            np.copyto(native.actions, actions.reshape(n), casting="unsafe")
            plain = math.isfinite(native.actions.sum())  # NaN or infinity anywhere makes the sum one
        if not plain:
            values = action_values(actions, n, single=False)
            if len(values) != n:  # the engine refuses the count in its own words
                return self._reply_step(self.client.request("step", actions=values))
            native.actions[:] = values
        native.step()
        obs = self._native_obs()
        ints = native.info
        rewards = native.info_real[:, R_REWARD].copy()
        terminated = ints[:, I_TERMINATED] == 1
        truncated = ints[:, I_TRUNCATED] == 1
        final_mask = ints[:, I_HAS_FINAL] == 1
        # np.count_nonzero: a quarter of the cost of `any` on arrays this small.
        any_final = np.count_nonzero(final_mask) > 0
        ended = terminated | truncated
        if self._columns:
            infos = info_columns(native, level_names=self.level_names)
            if np.count_nonzero(ended) and not any_final:
                _add_success(infos, ended)
            if any_final:
                final_obs = native.final_obs
                ended = np.full(n, None, dtype=object)
                for i in np.flatnonzero(final_mask):
                    ended[i] = self._native_row(final_obs[i])
                infos["final_obs"], infos["_final_obs"] = ended, final_mask
                infos["final_info"] = _add_success(info_columns(native, final=True, level_names=self.level_names),
                                                   final_mask)
                infos["_final_info"] = final_mask.copy()
            return obs, rewards, terminated, truncated, infos
        infos: dict[str, Any] = {}
        for i in range(n):
            if final_mask[i]:
                final_info = info_row(native, i, final=True, level_names=self.level_names)
                final_info["is_success"] = bool(final_info["won"])
                infos = self._add_info(infos, {"final_obs": self._native_row(native.final_obs[i]),
                                               "final_info": final_info}, i)
            info = info_row(native, i, level_names=self.level_names)
            if ended[i] and not any_final:
                info["is_success"] = bool(info["won"])
            infos = self._add_info(infos, info, i)
        return obs, rewards, terminated, truncated, infos

    def _native_obs(self) -> np.ndarray:
        """The native buffers' observations as a new array (a caller keeps what it was given)."""
        obs = self._native.obs
        if self._obs_dtype == np.float32:
            return obs.reshape((self.num_envs, *self._obs_shape)).copy()
        return obs.astype(self._obs_dtype).reshape((self.num_envs, *self._obs_shape))

    def _native_row(self, row: np.ndarray) -> np.ndarray:
        """One row of a native buffer as a new observation of the single space."""
        return row.astype(self._obs_dtype).reshape(self._obs_shape)

    def restore(self, token: Snapshot) -> np.ndarray:
        """Puts every environment back as it was at `snapshot` (games, generators, autoreset
        state) and returns their observations then, ``(num_envs, *shape)``; stepping with the
        same actions again gives the same results. The token stays valid."""
        return decode_obs(self._restore(token), "obs", self._obs_shape, self._obs_dtype)

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """Every environment's board: as text with ``render_mode="ansi"``, as pixels with
        ``"rgb_array"``."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return tuple(self.render_rgb(i, self.render_width) for i in range(self.num_envs))
        return tuple(self.render_text(i) for i in range(self.num_envs))

    def render_text(self, env: int = 0) -> str:
        """Environment ``env``'s board as text (80 x 30 cells and a status line)."""
        return self.client.request("render", env=int(env), format="ansi")["text"]

    def render_svg(self, env: int = 0) -> str:
        """Environment ``env``'s board and latest shot as an SVG document."""
        return self.client.request("render", env=int(env), format="svg")["svg"]

    def render_rgb(self, env: int = 0, width: int | None = None) -> np.ndarray:
        """Environment ``env``'s board and latest shot as a new ``uint8`` array of
        ``(height, width, 3)`` (see `PeggleEnv.render_rgb`)."""
        fields = {"env": int(env), "format": "rgb"}
        if width is not None:
            fields["width"] = checked_width(width, "width")
        return decode_rgb(self.client.request("render", **fields))

    def close_extras(self, **kwargs: Any) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
