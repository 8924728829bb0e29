"""`PeggleEnv`: one Peggle environment as a `gymnasium.Env`, served by its own `peggle serve`."""
from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np

from .client import (PeggleError, SeededCycleWarning, start, action_values, checked_width, decode_info, decode_obs,
                     decode_rgb, level_option, make_request, procedural_fields, server_seed, space_from)
from .state import Replayable, Snapshot

RESET_OPTIONS = ("level",)


class PeggleEnv(Replayable, gym.Env):
    """One Peggle environment. One step is one shot, simulated to its end.

    Args:
        level: a bundled level's name (``"first-steps"``, see `peggle_gym.bundled_levels`) or a
            level file (JSON), or a list of them (same as ``levels``). Relative paths are
            resolved against the current working directory.
        levels: level files; each episode plays one, in turn (``level_order="cycle"``, the
            default) or drawn from the seeded generator (``"random"``).
        num_levels, start_level, distribution_mode: procedural levels instead of files, with
            Procgen's names and meaning: each episode plays the level generated from a seed drawn
            (by the environment's seeded generator) from ``[start_level, start_level +
            num_levels)``; ``num_levels=0`` (the default) is unlimited, seeds from ``start_level``
            up to 2**63. ``distribution_mode``: ``"easy"`` or ``"hard"`` (the default, as in
            Procgen). Disjoint seed ranges are disjoint level sets (train on one, test on
            another). Giving any of these (or ``templates``) asks for procedural levels.
        templates: the layouts procedural levels are drawn from (default: all of
            ``arcs, rows, rings, spiral, funnel, bricks, waves, pockets, ramps``); a seed's layout
            is fixed by the seed, so two template lists split levels by layout.
        aim_noise: radians (0 to 1), the standard deviation of the Gaussian added to every shot's
            aim, drawn from the environment's seeded generator; ``info["fired_angle"]`` is the aim
            fired. None: 0 (Peggle-v0); Peggle-v1 registers 0.02.
        bucket_start: ``"centre"`` (the bucket starts each episode at the board's centre moving
            right; None means this) or ``"random"`` (a seeded place and direction; Peggle-v1's).
        cycle_start: where ``reset(seed=s)`` starts ``level_order="cycle"``: ``"first"`` (level
            0; None means this) or ``"seed"`` (level ``s mod len(levels)``; Peggle-v1's).
        encoder: ``"objects"`` (globals then a padded list of ``max_objects`` objects, a flat
            vector), ``"grid"`` (9 x 30 x 40 channels) or ``"pixels"`` (the board as a
            channels-first ``uint8`` picture, ``(3, 72, 96)`` by default, for SB3's
            ``CnnPolicy``).
        pixel_width: the ``pixels`` picture's width, 48 to 800 (None: 96); the height is 3/4 of
            it. Only with ``encoder="pixels"``.
        reward: ``"progress"`` (orange cleared per shot as a fraction, +1 win, -1 loss),
            ``"score"`` (points / 10,000) or ``"win"`` (+1 / -1 at the end).
        action: ``"continuous"`` (``Box(-1, 1, (1,))``, the aim across the cannon's range) or
            ``"discrete"`` (``Discrete(bins)`` evenly spaced aims).
        max_shots: shots after which an episode is truncated.
        mode: a game mode object as in level files (``{"type": "classic", "balls": 10}``), for
            every level instead of its own.
        trajectory: put each shot's ball paths into ``info["trajectory"]``.
        threads: server threads (one environment uses one).
        obs_encoding: ``"f32"`` (a binary frame after each reply line; fastest), ``"b64f32"``
            (base64 inside the line) or ``"json"`` (the same numbers as text).
        render_mode: ``None``, ``"ansi"`` (the server's 80 x 30 text picture with a status
            line) or ``"rgb_array"`` (the board as a ``uint8`` array of ``(height, width, 3)``,
            drawn by the server's rasteriser in the SVG picture's colours, without text).
        render_width: the ``rgb_array`` picture's width in pixels, 16 to 4096 (the server checks
            it at the first `render`); the height follows the board (600 / 800 of the width).
            ``None``: one pixel per board unit, 800 x 600.
        peggle_path: the `peggle` binary (else ``$PEGGLE_BIN``, `peggle` on ``PATH``, or the
            repository's ``.build/release/peggle``).

    Reset options: ``{"level": index or name}`` plays that level (procedural levels: index k
    plays seed ``start_level + k``). ``reset(seed=s)`` makes the
    episode a function of ``s``; ``reset()`` continues the seeded generator (a first ``reset()``
    without any seed draws one from `np_random`, so fresh environments differ).
    Info (reset): level, level_name, score, balls_left, orange_left, shots, status, won,
    game_seed, and with procedural levels level_seed (also on steps). Info (step): the same but game_seed, plus angle, fired_angle, pegs_hit, hits (per kind),
    points, free_balls, caught and, with ``trajectory=True``, trajectory.
    Stepping after the episode ended raises `PeggleError` (code ``episode_over``); actions
    outside the action space raise it with code ``bad_action`` (they are not clipped).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, level: str | os.PathLike | list | None = None, *, levels: list | None = None,
                 level_order: str | None = None, num_levels: int | None = None, start_level: int | None = None,
                 distribution_mode: str | None = None, templates: list | None = None,
                 aim_noise: float | None = None, bucket_start: str | None = None, cycle_start: str | None = None,
                 encoder: str = "objects", max_objects: int = 128, pixel_width: int | None = None,
                 reward: str = "progress", action: str = "continuous", bins: int = 31,
                 max_shots: int = 100, mode: dict | None = None, trajectory: bool = False,
                 threads: int = 1, obs_encoding: str = "f32", render_mode: str | None = None,
                 render_width: int | None = None, peggle_path: str | os.PathLike | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if level is not None and levels is not None:
            raise ValueError("give level or levels, not both")
        fields = make_request(levels if levels is not None else level, level_order=level_order,
                              encoder=encoder, max_objects=max_objects, pixel_width=pixel_width, reward=reward, action=action,
                              bins=bins, max_shots=max_shots, mode=mode, trajectory=trajectory,
                              threads=threads, obs_encoding=obs_encoding, num_envs=1,
                              autoreset="disabled",
                              procedural=procedural_fields(num_levels, start_level, distribution_mode, templates),
                              aim_noise=aim_noise, bucket_start=bucket_start, cycle_start=cycle_start)
        self.render_mode = render_mode
        self.render_width = checked_width(render_width, "render_width")
        self.client, made = start(peggle_path, fields)
        self._remember_make(fields, peggle_path)
        self._cycle_warning = SeededCycleWarning(fields)
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
        self.observation_space = space_from(made["observation_space"])
        self.action_space = space_from(made["action_space"])
        self._obs_shape = self.observation_space.shape
        self._obs_dtype = self.observation_space.dtype
        self._seeded = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
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
        reply = self._send("reset", **fields)
        self._seeded = self._seeded or seed is not None
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)[0]
        return obs, decode_info(reply["infos"][0])

    def step(self, action):
        try:
            reply = self._send("step", actions=action_values(action, 1, single=True))
        except PeggleError as e:
            if e.code != "episode_over":
                raise
            # The server runs one environment as a vector without autoreset; its message speaks
            # of reset masks, which a single environment does not have.
            raise PeggleError("episode_over", "the episode has ended (terminated or truncated); call reset()") from None
        obs = decode_obs(reply, "obs", self._obs_shape, self._obs_dtype)[0]
        return (obs, float(reply["rewards"][0]), bool(reply["terminated"][0]), bool(reply["truncated"][0]),
                decode_info(reply["infos"][0]))

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
