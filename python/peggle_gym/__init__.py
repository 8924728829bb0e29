"""Peggle Gym for Python: Gymnasium environments served by the Swift `peggle serve` binary.

    import gymnasium as gym
    import peggle_gym  # registers the ids below

    env = gym.make("peggle_gym/Peggle-v1")                        # generated easy levels, unlimited seeds
    env = gym.make("peggle_gym/PeggleHard-v1")                    # generated hard levels, unlimited seeds
    env = gym.make("peggle_gym/Peggle-v1", level="first-steps")   # a bundled level, by name
    envs = gym.make_vec("peggle_gym/Peggle-v1", num_envs=8, level="first-steps")

Peggle-v1 adds aim noise (`V1_AIM_NOISE` radians), a random bucket start and seeded level cycles
(`V1_KWARGS`) to Peggle-v0, which plays every shot exactly where it is aimed. `gym.make_vec` uses
`PeggleVectorEnv` (one server stepping all N environments in parallel) unless
``vectorization_mode="sync"`` or ``"async"`` is asked for. Given no level and no procedural
argument, an environment plays generated levels of the easy distribution with unlimited seeds
(`DEFAULT_LEVELS`, Procgen's ``num_levels=0``); ``PeggleEasy-v1`` and ``PeggleHard-v1`` are
Peggle-v1 on the easy and the hard distribution, by name.
"""
from gymnasium.envs.registration import register, registry

from .engines import VERSION, find_peggle
from .errors import PeggleError, PeggleServerDied, PeggleTimeout
from .level_paths import LEVELS_DIR, bundled_levels, level_file_names, level_files
from .pipe import PROTOCOL_VERSION, PeggleClient
from .requests import DEFAULT_LEVELS, make_options
from .asynchronous import PeggleAsyncVectorEnv
from .env import PeggleEnv
from .state import Snapshot
from .vector import PeggleVectorEnv

__all__ = ["PeggleEnv", "PeggleVectorEnv", "PeggleAsyncVectorEnv", "PeggleClient", "PeggleError", "PeggleServerDied", "PeggleTimeout", "Snapshot",
           "find_peggle", "bundled_levels", "level_files", "level_file_names", "make_options", "LEVELS_DIR", "PROTOCOL_VERSION", "DEFAULT_LEVELS",
           "ENV_ID", "ENV_ID_V1", "ENV_ID_EASY", "ENV_ID_HARD", "ENV_IDS", "V1_AIM_NOISE", "V1_KWARGS"]
__version__ = VERSION

#: The registered ids: v0 shoots exactly where it aims; v1 is v0 with `V1_KWARGS`.
ENV_ID = "peggle_gym/Peggle-v0"
ENV_ID_V1 = "peggle_gym/Peggle-v1"
#: Peggle-v1 on generated levels of one distribution (Procgen's ``distribution_mode``), unlimited seeds.
ENV_ID_EASY = "peggle_gym/PeggleEasy-v1"
ENV_ID_HARD = "peggle_gym/PeggleHard-v1"

#: Peggle-v1's aim noise, radians: the middle of the rater's "hard" tier (sigma50 0.01 to 0.03,
#: docs/skill-model.md), 8 board units of error at a peg 400 units from the cannon, two thirds of a
#: peg's radius. Medium and easy levels stay winnable; aims that need a few units of precision
#: become gambles, and no two seeds play the same episode.
V1_AIM_NOISE = 0.02

#: What Peggle-v1 sets (docs/environment.md says why); any of them can still be passed to make.
V1_KWARGS = {"aim_noise": V1_AIM_NOISE, "bucket_start": "random", "cycle_start": "seed"}


class _SpecKwargs(dict):
    """A registered spec's keyword arguments that let ``gym.make_vec(..., vector_kwargs=
    {"autoreset_mode": m})`` reach `PeggleVectorEnv` on the default path. Gymnasium refuses any
    ``vector_kwargs`` for a ``vector_entry_point`` (it passes only kwargs on), and it reads them
    with ``spec.kwargs.pop("vector_kwargs", given)`` right after ``pop("vectorization_mode",
    given)``: there ``autoreset_mode`` becomes our ``autoreset`` argument. Any other key is left
    for Gymnasium to refuse; the sync and async modes get their ``vector_kwargs`` untouched."""

    def pop(self, key, *default):
        if key == "vectorization_mode" and default:
            self.__dict__["_mode"] = getattr(default[0], "value", default[0])
        elif (key == "vector_kwargs" and default and key not in self
              and self.__dict__.get("_mode") in (None, "vector_entry_point")):
            rest = dict(default[0] or {})
            if "autoreset_mode" in rest:
                self.setdefault("autoreset", rest.pop("autoreset_mode"))
            return rest
        return super().pop(key, *default)


#: Every registered id with the keyword arguments it registers; each one plays with none given.
ENV_IDS = {ENV_ID: {}, ENV_ID_V1: V1_KWARGS,
           ENV_ID_EASY: {**V1_KWARGS, "distribution_mode": "easy"},
           ENV_ID_HARD: {**V1_KWARGS, "distribution_mode": "hard"}}

# Registered without Gymnasium's wrappers, so `gym.make` returns the environment itself: each
# wrapper costs every step a call (about a microsecond each of a one-env step's few above the
# engine, docs/performance.md). The passive checker checks only an env's first reset and step;
# the tests run `check_env` on every id instead, and `gym.make(..., disable_env_checker=False)`
# still adds it. OrderEnforcing refuses a step before the first reset, which the environment
# refuses itself (PeggleError ``not_reset``); `gymnasium.wrappers.OrderEnforcing(env)` adds it.
for _id, _kwargs in ENV_IDS.items():
    if _id not in registry:
        register(id=_id, entry_point="peggle_gym.env:PeggleEnv", disable_env_checker=True, order_enforce=False,
                 vector_entry_point="peggle_gym.vector:PeggleVectorEnv", kwargs=_SpecKwargs(_kwargs))
