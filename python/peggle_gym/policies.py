"""Policies that rank shots: one small network scores every row of the ``aim`` observation (row b
describes the shot at aim bin b) with the same weights, and the scores become the action
distribution over the bins (PHYRE's action ranking; our linear agent does the same with 20
weights). The networks are permutation-equivariant over the bins: they learn "a shot whose first
contact is an orange peg is good", not "bin 17 is good", so what they learn carries over to
levels they never saw.

- `AimPolicy`: Stable-Baselines3's ``ActorCriticPolicy`` for PPO (and A2C): the logits of the
  categorical distribution over bins are the rows' scores; the value reads the rows pooled.
- `AimDQNPolicy`: a ``DQNPolicy`` whose Q-value of bin b is its row's score plus a value of the
  whole board.

Both need ``encoder="aim"`` and ``action="discrete"`` (the action bins are the rows:
docs/environment.md) and torch (the ``sb3`` extra). ``PPO(AimPolicy, env)`` or
``PPO("MlpPolicy", env, policy_kwargs=...)`` with ``policy=AimPolicy``; keyword ``hidden`` sets
the width of every layer (default 64).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork

__all__ = ["AimPolicy", "AimDQNPolicy", "AimRows", "RowScorer"]


def _check_spaces(observation_space: spaces.Space, action_space: spaces.Space) -> tuple[int, int]:
    """(bins, features) of an aim observation whose rows are the discrete action's bins."""
    if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 2:
        raise ValueError(f"the aim policies need the aim encoder's observation, a Box of shape (bins, features); "
                         f"got {observation_space} (make the env with encoder='aim')")
    if not isinstance(action_space, spaces.Discrete):
        raise ValueError(f"the aim policies score one row per action: they need action='discrete', got {action_space}")
    bins, features = observation_space.shape
    if int(action_space.n) != bins:
        raise ValueError(f"the observation has {bins} rows but the action has {action_space.n} bins; "
                         "with encoder='aim' they are the same bins")
    return bins, features


class AimRows(BaseFeaturesExtractor):
    """Passes the ``(batch, bins, features)`` rows through unchanged (SB3's default extractor
    would flatten them and lose which numbers belong to which shot)."""

    def __init__(self, observation_space: spaces.Box):
        super().__init__(observation_space, features_dim=int(np.prod(observation_space.shape)))

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return observations


class RowScorer(th.nn.Module):
    """The shared network: each row through the same MLP (``features -> hidden -> hidden``), the
    board as the mean and max of the rows, and each row's latent conditioned on the board (its own
    latent plus a projection of the board's, through a ReLU), so a row is scored relative to what
    else the board offers. Every operation treats the rows alike, so permuting the rows permutes
    the outputs."""

    def __init__(self, features: int, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.rows = th.nn.Sequential(th.nn.Linear(features, hidden), th.nn.ReLU(),
                                     th.nn.Linear(hidden, hidden), th.nn.ReLU())
        self.board = th.nn.Sequential(th.nn.Linear(2 * hidden, hidden), th.nn.ReLU())
        self.mix = th.nn.Linear(hidden, hidden)

    def forward(self, rows: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """(row latents ``(batch, bins, hidden)``, board latent ``(batch, hidden)``)."""
        e = self.rows(rows)
        board = self.board(th.cat([e.mean(dim=1), e.amax(dim=1)], dim=1))
        return th.relu(self.mix(e) + board.unsqueeze(1)), board


class _ActorCritic(th.nn.Module):
    """SB3's ``mlp_extractor`` contract: the actor's latent is every row's latent (flattened,
    ``bins * hidden``), the critic's the board's."""

    def __init__(self, features: int, hidden: int):
        super().__init__()
        self.scorer = RowScorer(features, hidden)
        self.critic = th.nn.Sequential(th.nn.Linear(hidden, hidden), th.nn.ReLU())
        # Nominal: SB3 sizes a throwaway action head from it; `AimPolicy._build` replaces that head.
        self.latent_dim_pi = hidden
        self.latent_dim_vf = hidden

    def forward(self, rows: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        z, board = self.scorer(rows)
        return z.flatten(1), self.critic(board)

    def forward_actor(self, rows: th.Tensor) -> th.Tensor:
        return self.scorer(rows)[0].flatten(1)

    def forward_critic(self, rows: th.Tensor) -> th.Tensor:
        return self.critic(self.scorer(rows)[1])


class _RowLogits(th.nn.Module):
    """The same linear score for every row's latent: ``(batch, bins * hidden) -> (batch, bins)``."""

    def __init__(self, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.score = th.nn.Linear(hidden, 1)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.score(latent.view(latent.shape[0], -1, self.hidden)).squeeze(-1)


class AimPolicy(ActorCriticPolicy):
    """PPO's (or A2C's) actor-critic over the aim rows: the action's logits are the rows' scores
    (`RowScorer` then one shared linear score), the value a small MLP of the pooled rows.
    ``hidden``: width of every layer (default 64). Other arguments as SB3's
    ``ActorCriticPolicy`` (``net_arch`` and the features extractor are fixed by the design and
    refused)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule, hidden: int = 64,
                 **kwargs: Any):
        _, self._features = _check_spaces(observation_space, action_space)
        for key in ("net_arch", "features_extractor_class", "share_features_extractor"):
            if kwargs.get(key) is not None and key != "share_features_extractor":
                raise ValueError(f"AimPolicy: {key} is fixed by the ranking design; set hidden= for its width")
        kwargs.pop("share_features_extractor", None)
        self.hidden = int(hidden)
        super().__init__(observation_space, action_space, lr_schedule, features_extractor_class=AimRows,
                         share_features_extractor=True, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _ActorCritic(self._features, self.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # The ranking head in place of SB3's dense one, initialised as SB3 initialises its action
        # head (orthogonal, gain 0.01: nearly uniform over the bins at first), and the optimizer
        # made again so that it holds the new head's parameters.
        self.action_net = _RowLogits(self.hidden)
        if self.ortho_init:
            self.action_net.apply(partial(self.init_weights, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(hidden=self.hidden)
        for key in ("net_arch", "features_extractor_class", "features_extractor_kwargs", "share_features_extractor"):
            data.pop(key, None)
        return data


class _AimQ(th.nn.Module):
    """Q of bin b: its row's score plus the board's value (a dueling split without the mean
    subtraction: the scores already rank, the value carries the scale of the return)."""

    def __init__(self, features: int, hidden: int):
        super().__init__()
        self.scorer = RowScorer(features, hidden)
        self.score = th.nn.Linear(hidden, 1)
        self.value = th.nn.Linear(hidden, 1)

    def forward(self, rows: th.Tensor) -> th.Tensor:
        z, board = self.scorer(rows)
        return self.score(z).squeeze(-1) + self.value(board)


class AimQNetwork(QNetwork):
    """SB3's ``QNetwork`` with `_AimQ` as its ``q_net``."""

    def __init__(self, observation_space, action_space, features_extractor, features_dim, hidden: int = 64, **kwargs):
        _, features = _check_spaces(observation_space, action_space)
        super().__init__(observation_space, action_space, features_extractor, features_dim, net_arch=[], **kwargs)
        self.hidden = int(hidden)
        self.q_net = _AimQ(features, self.hidden)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(hidden=self.hidden)
        return data


class AimDQNPolicy(DQNPolicy):
    """DQN's policy over the aim rows: Q-values from `AimQNetwork` (online and target).
    ``hidden``: width of every layer (default 64)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule, hidden: int = 64,
                 **kwargs: Any):
        _check_spaces(observation_space, action_space)
        if kwargs.get("net_arch") is not None or kwargs.get("features_extractor_class") is not None:
            raise ValueError("AimDQNPolicy: net_arch and the features extractor are fixed by the ranking design; "
                             "set hidden= for its width")
        self.hidden = int(hidden)
        super().__init__(observation_space, action_space, lr_schedule, features_extractor_class=AimRows, **kwargs)

    def make_q_net(self) -> AimQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        net_args.pop("net_arch", None)
        return AimQNetwork(hidden=self.hidden, **net_args).to(self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(hidden=self.hidden)
        for key in ("net_arch", "features_extractor_class", "features_extractor_kwargs"):
            data.pop(key, None)
        return data
