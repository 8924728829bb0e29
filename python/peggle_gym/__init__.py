"""Peggle Gym for Python: Gymnasium environments served by the Swift `peggle serve` binary.

    import gymnasium as gym
    import peggle_gym  # registers "peggle_gym/Peggle-v0"

    env = gym.make("peggle_gym/Peggle-v0", level="Levels/first-steps.json")
    envs = gym.make_vec("peggle_gym/Peggle-v0", num_envs=8, level="Levels/first-steps.json")

`gym.make_vec` uses `PeggleVectorEnv` (one server stepping all N environments in parallel) unless
``vectorization_mode="sync"`` or ``"async"`` is asked for.
"""
from gymnasium.envs.registration import register, registry

from .client import PROTOCOL_VERSION, PeggleClient, PeggleError, PeggleServerDied, find_peggle
from .env import PeggleEnv
from .vector import PeggleVectorEnv

__all__ = ["PeggleEnv", "PeggleVectorEnv", "PeggleClient", "PeggleError", "PeggleServerDied", "find_peggle",
           "PROTOCOL_VERSION", "ENV_ID"]
__version__ = "0.1.0"

#: The registered id.
ENV_ID = "peggle_gym/Peggle-v0"

if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="peggle_gym.env:PeggleEnv",
             vector_entry_point="peggle_gym.vector:PeggleVectorEnv")
