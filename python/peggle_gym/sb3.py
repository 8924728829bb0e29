"""Stable-Baselines3 over one server: `PeggleSB3VecEnv`, an SB3 ``VecEnv`` that steps all its
environments in one `PeggleVectorEnv` (one ``peggle serve`` process, stepping them in parallel on
its threads), and `make_vec_env`, shaped like ``stable_baselines3.common.env_util.make_vec_env``
so that switching is a change of import. SB3's own ``make_vec_env`` starts one server per
environment in a ``DummyVecEnv``; this one does not. `AimPolicy` (PPO, A2C) and `AimDQNPolicy`
(DQN) rank the shots of the ``aim`` observation (`peggle_gym.policies`). Needs the ``sb3`` extra
(``pip install -e "python[sb3]"``)."""
from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from . import ENV_ID, ENV_ID_V1, V1_KWARGS
from .policies import AimDQNPolicy, AimPolicy
from .vector import PeggleVectorEnv

__all__ = ["PeggleSB3VecEnv", "make_vec_env", "AimPolicy", "AimDQNPolicy"]

# Methods of one environment that `env_method` runs per index (each takes the environment's
# index in the vector); every other method belongs to the whole vector.
_PER_ENV_METHODS = ("render_rgb", "render_text", "render_svg")


def _rows(infos: dict, n: int) -> list[dict]:
    """Gymnasium's vector infos (a dict of arrays with ``_key`` masks, nested for dicts such as
    ``hits``) back to one dict per environment, holding only the keys that environment has."""
    rows: list[dict] = [{} for _ in range(n)]
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        mask = infos.get("_" + key)
        column = _rows(value, n) if isinstance(value, dict) else value
        for i in range(n):
            if mask is None or mask[i]:
                rows[i][key] = column[i]
    return rows


class PeggleSB3VecEnv(VecEnv):
    """``num_envs`` Peggle environments as one SB3 ``VecEnv``, all in one `PeggleVectorEnv`.

    SB3's conventions, exactly as its ``DummyVecEnv`` has them over single `PeggleEnv`s (a test
    compares the two step for step): ``step`` returns ``dones = terminated | truncated``; an
    environment whose episode ended is reset within the step (the server's ``same_step``
    autoreset), so its returned observation is the next episode's first, its info is the ending
    step's with ``terminal_observation`` (the last observation) and ``is_success`` (the game was
    won), and the reset's info goes to ``reset_infos[i]``; every info has
    ``TimeLimit.truncated`` (truncated at ``max_shots`` and not terminated). Rewards are float32.

    Seeding as SB3 2.x: ``seed(s)`` makes the next ``reset()`` give environment i the seed
    ``s + i`` (the server's own rule, so one seeded reset of the vector); later autoresets
    continue each environment's generator. ``set_options({"level": k})`` applies to the next
    reset of all environments (one server resets them together, so options must be the same for
    every environment).

    ``get_attr`` reads the vector's attributes (``render_mode``, ``aim_noise``, ``level_names``,
    ...; ``observation_space`` and ``action_space`` are one environment's), the same for every
    index; ``set_attr`` sets one for all environments; ``env_method`` runs ``render_rgb``,
    ``render_text`` and ``render_svg`` per environment and ``get_wrapper_attr`` as ``get_attr``.
    The underlying `PeggleVectorEnv` is ``venv`` (for ``snapshot``/``restore``).

    Args:
        num_envs: environments in the server.
        venv: an existing `PeggleVectorEnv` with ``autoreset="same_step"`` to use instead of
            making one (then give no other argument).
        **kwargs: `PeggleVectorEnv`'s arguments (``level``, ``aim_noise``, ``encoder``, ...);
            ``autoreset`` is always ``"same_step"``.
    """

    def __init__(self, num_envs: int = 1, *, venv: PeggleVectorEnv | None = None, **kwargs: Any):
        if venv is None:
            if "autoreset" in kwargs:
                raise ValueError(f"autoreset is {kwargs['autoreset']!r}; PeggleSB3VecEnv always uses 'same_step' "
                                 "(SB3's VecEnv resets an ended environment within the step)")
            venv = PeggleVectorEnv(num_envs=num_envs, autoreset="same_step", **kwargs)
        else:
            if kwargs:
                raise ValueError(f"give venv or PeggleVectorEnv arguments, not both (got {sorted(kwargs)})")
            if venv.autoreset_mode is not AutoresetMode.SAME_STEP:
                raise ValueError(f"venv's autoreset is {venv.autoreset_mode.name}; PeggleSB3VecEnv needs SAME_STEP")
        self.venv = venv
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # MARK: reset and step

    def reset(self):
        fields: dict[str, Any] = {}
        if any(s is not None for s in self._seeds):
            fields["seed"] = [None if s is None else int(s) for s in self._seeds]
        options = self._options
        if any(options):
            if any(o != options[0] for o in options):
                raise ValueError(f"set_options gave the environments different options ({options}); one server "
                                 "resets them together, so they must be the same")
            fields["options"] = dict(options[0])
        obs, infos = self.venv.reset(**fields)
        self.reset_infos = _rows(infos, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        dones = terminated | truncated
        final = infos.get("_final_obs")
        rows = _rows({k: v for k, v in infos.items() if k not in ("final_obs", "_final_obs", "final_info", "_final_info")},
                     self.num_envs)
        if final is not None:
            ended_infos = _rows(infos["final_info"], self.num_envs)
        for i in np.flatnonzero(dones):
            # SB3's convention: the ending step's info, with the last observation; the new
            # episode's reset info is kept apart.
            self.reset_infos[i] = rows[i]
            rows[i] = ended_infos[i]
            rows[i]["terminal_observation"] = infos["final_obs"][i]
            rows[i]["is_success"] = bool(rows[i]["won"])
        for i in range(self.num_envs):
            rows[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, rewards.astype(np.float32), dones, rows

    def close(self) -> None:
        self.venv.close()

    # MARK: attributes and methods

    def _indices(self, indices: None | int | Iterable[int]) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        if attr_name == "observation_space":
            value = self.venv.single_observation_space
        elif attr_name == "action_space":
            value = self.venv.single_action_space
        else:
            value = getattr(self.venv, attr_name)  # AttributeError as SB3 expects for a missing one
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        if sorted(self._indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"set_attr({attr_name!r}) for indices {indices}: the environments share one server and "
                             "one set of attributes, so an attribute can only be set for all of them")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name in _PER_ENV_METHODS:
            method = getattr(self.venv, method_name)
            return [method(i, *method_args, **method_kwargs) for i in self._indices(indices)]
        if method_name == "get_wrapper_attr":
            return self.get_attr(*method_args, indices=indices, **method_kwargs)
        raise AttributeError(f"env_method({method_name!r}): PeggleSB3VecEnv runs {', '.join(_PER_ENV_METHODS)} and "
                             "get_wrapper_attr per environment; other methods belong to the whole vector "
                             "(call them on .venv, e.g. venv.snapshot())")

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        # The environments live in the server, unwrapped.
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return [self.venv.render_rgb(i, self.venv.render_width) for i in range(self.num_envs)]


def _env_kwargs(env_id: Any, env_kwargs: dict | None) -> dict:
    """`PeggleVectorEnv` arguments for ``env_id``: a registered Peggle id (its spec's keyword
    arguments, then ``env_kwargs``) or a level (Peggle-v1's settings and that level)."""
    kwargs = dict(env_kwargs or {})
    if callable(env_id) and not isinstance(env_id, str):
        raise TypeError(f"env_id {env_id!r} is a callable: SB3's make_vec_env calls it once per environment, each "
                        "with its own server; give a Peggle env id or a level here, or use SB3's make_vec_env")
    if isinstance(env_id, str):
        registered = env_id.split(":", 1)[1] if env_id.startswith("peggle_gym:") else env_id
        if registered in (ENV_ID, ENV_ID_V1):
            return {**dict(gym.spec(registered).kwargs), **kwargs}
        if registered in gym.registry:
            raise ValueError(f"env_id {env_id!r} is not {ENV_ID!r} or {ENV_ID_V1!r} (a level's name or file): "
                             "peggle_gym.sb3.make_vec_env makes Peggle environments only")
    if "level" in kwargs or "levels" in kwargs:
        raise ValueError(f"env_id is the level {env_id!r}, and env_kwargs gives level(s) too")
    return {**V1_KWARGS, "level": env_id, **kwargs}


def make_vec_env(env_id: str | os.PathLike, n_envs: int = 1, seed: int | None = None, start_index: int = 0,
                 monitor_dir: str | None = None, wrapper_class: Callable | None = None, env_kwargs: dict | None = None,
                 vec_env_cls: type | None = None, vec_env_kwargs: dict | None = None,
                 monitor_kwargs: dict | None = None, wrapper_kwargs: dict | None = None) -> VecMonitor:
    """``n_envs`` Peggle environments in one server, as SB3's ``make_vec_env`` would make them,
    wrapped in SB3's ``VecMonitor`` (episode returns and lengths in ``info["episode"]``, so
    SB3 logs ``ep_rew_mean``).

    ``env_id``: ``"peggle_gym/Peggle-v1"`` or ``"peggle_gym/Peggle-v0"`` (with or without the
    ``"peggle_gym:"`` prefix; a level then comes in ``env_kwargs``), or a level (a bundled
    level's name or a file), which plays it under Peggle-v1's settings. ``seed``: environment i's
    first reset is seeded ``seed + i`` (SB3 2.x: ``VecEnv.seed``); None draws one, as SB3 does.
    ``env_kwargs``: `PeggleVectorEnv` arguments. ``monitor_dir``: the episodes also go to
    ``monitor_dir/<start_index>.monitor.csv`` (one file for all environments, which SB3's
    ``load_results`` reads like its per-environment files). ``monitor_kwargs``: only
    ``info_keywords`` (``VecMonitor``'s). ``start_index`` names that file only.

    Refused, because they need one process or one object per environment: ``wrapper_class`` and
    ``wrapper_kwargs`` (wrap the returned VecEnv in a ``VecEnvWrapper`` instead, e.g.
    ``VecFrameStack``), ``vec_env_cls`` other than `PeggleSB3VecEnv`, and ``vec_env_kwargs``.
    """
    if wrapper_class is not None or wrapper_kwargs:
        raise ValueError(f"wrapper_class {wrapper_class!r} (and wrapper_kwargs) would wrap each environment on its "
                         "own, but here they all live in one server: wrap the returned VecEnv in a VecEnvWrapper "
                         "(e.g. VecFrameStack), or use stable_baselines3's make_vec_env")
    if vec_env_cls is not None and vec_env_cls is not PeggleSB3VecEnv:
        raise ValueError(f"vec_env_cls {vec_env_cls!r}: peggle_gym.sb3.make_vec_env makes a PeggleSB3VecEnv (one "
                         "server for all environments); use stable_baselines3's make_vec_env for one per environment")
    if vec_env_kwargs:
        raise ValueError(f"vec_env_kwargs {vec_env_kwargs!r}: PeggleSB3VecEnv takes none; its environments' "
                         "arguments (threads too) go in env_kwargs")
    unknown = sorted(set(monitor_kwargs or {}) - {"info_keywords"})
    if unknown:
        raise ValueError(f"monitor_kwargs {unknown[0]!r}: VecMonitor, which monitors all environments together, "
                         "takes only info_keywords")
    if isinstance(n_envs, bool) or not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
        raise ValueError(f"n_envs is {n_envs!r}; it must be a whole number of at least 1")
    kwargs = _env_kwargs(env_id, env_kwargs)
    for key in ("num_envs", "autoreset"):
        if key in kwargs:
            raise ValueError(f"env_kwargs {key!r} is {kwargs[key]!r}: n_envs sets the number of environments, and "
                             "autoreset is always same_step (SB3's convention)")
    vec_env = PeggleSB3VecEnv(int(n_envs), **kwargs)
    try:
        filename = None
        if monitor_dir is not None:
            os.makedirs(monitor_dir, exist_ok=True)
            filename = os.path.join(monitor_dir, str(start_index))
        monitored = VecMonitor(vec_env, filename=filename, **(monitor_kwargs or {}))
    except BaseException:
        vec_env.close()
        raise
    vec_env.seed(seed)
    return monitored
