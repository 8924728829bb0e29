"""Named, versioned splits of procedural levels: which levels a policy trains on and which fixed
episodes it is evaluated on (docs/baselines.md#named-splits).

    from peggle_gym import PeggleEnv
    from peggle_gym.splits import split_options, evaluation_episodes

    train_env = PeggleEnv(**split_options("easy-v1", "train"), aim_noise=0.02)
    test_env = PeggleEnv(**split_options("easy-v1", "test"), aim_noise=0.02)
    for level, seed in evaluation_episodes("easy-v1"):
        obs, info = test_env.reset(seed=seed, options={"level": level})
        ...

A split is declared once, here, and never changed: a different set of levels or episodes is a
new version (``easy-v2``), so a figure quoted with a split's name can be made again. Its levels
are also a function of the level generator (``LevelGenerator.version`` 1, docs/generator.md): a
generator that changed what a seed makes would change every split, and would need new names.

- ``easy-v1``: train on easy level seeds 0 to 199, test on easy seeds 100,000 to 100,099 (the
  protocol docs/baselines.md used before splits had names), all nine templates.
- ``hard-v1``: the same seeds on the hard distribution.
- ``xt-easy-v1``, ``xt-hard-v1``: cross-template (PHYRE's setting): train on six templates (seeds
  0 to 199), test on the other three (seeds 100,000 to 100,099), so no test level shares a layout
  with a train level. The held-out three are one from each family of layouts (see
  `HELD_OUT_TEMPLATES`), so every kind of structure is still seen in training and the test asks
  for new arrangements of familiar pieces, not for objects never met.

Evaluation episode (k, r), for test level index k in [0, test_levels) and repeat r in
[0, repeats): ``reset(seed=r * test_levels + k, options={"level": k})``, level seed
``test_start + k``. Repeat 0 is the one-episode-per-level protocol (level k, seed k); the repeats
give each level a win rate (10 episodes), which the per-level statistics need: with one episode a
level's score is 0 or 1, and the interquartile mean of 0/1 scores is a clipped function of the
mean (it reads 1.0 for any agent winning more than three quarters), not a second statistic.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The generator's templates in its own order (``LevelTemplate.allCases``). A seed's template is
#: ``templates[pick(seed's first draw, len(templates))]``, so the order of a list matters: every
#: split lists its templates in this order, and the default (all nine) is this list.
TEMPLATES = ("arcs", "rows", "rings", "spiral", "funnel", "bricks", "waves", "pockets", "ramps")

#: The families the cross-template splits stratify by (docs/generator.md's template table):
#: curves of round or brick pegs; fields and rings (rows and closed loops of pegs); walls and
#: blocks (peg or block walls, pockets, springy ramps that throw the ball back up).
TEMPLATE_FAMILIES = {
    "curves": ("arcs", "spiral", "bricks", "waves"),
    "fields": ("rows", "rings"),
    "walls": ("funnel", "pockets", "ramps"),
}

#: Held out of training in the cross-template splits: one template per family, each the one
#: whose layout is most its own within its family (a single asymmetric arm; closed rings; block
#: walls that make compartments along the bottom), while its family's building blocks (curves
#: of pegs, staggered fields, walls and springy blocks) stay in training through the others.
HELD_OUT_TEMPLATES = ("rings", "spiral", "pockets")
TRAIN_TEMPLATES = tuple(t for t in TEMPLATES if t not in HELD_OUT_TEMPLATES)

#: The two parts of a split.
PARTS = ("train", "test")


@dataclass(frozen=True)
class Split:
    """One named split: train levels (seeds [train_start, train_start + train_levels), drawn
    from `train_templates`) and test levels (seeds [test_start, test_start + test_levels) from
    `test_templates`), both of `distribution`, and `repeats` evaluation episodes per test level."""
    name: str
    distribution: str
    train_start: int
    train_levels: int
    train_templates: tuple[str, ...]
    test_start: int
    test_levels: int
    test_templates: tuple[str, ...]
    repeats: int
    about: str

    def options(self, part: str) -> dict:
        """The environment's make options for `part` ("train" or "test")."""
        if part not in PARTS:
            raise ValueError(f"split part {part!r} is not one of: {', '.join(PARTS)}")
        start, count, templates = ((self.train_start, self.train_levels, self.train_templates) if part == "train"
                                   else (self.test_start, self.test_levels, self.test_templates))
        return {"num_levels": count, "start_level": start, "distribution_mode": self.distribution,
                "templates": list(templates)}

    def episodes(self) -> list[tuple[int, int]]:
        """The evaluation episodes as (level index, environment seed), repeat by repeat: the
        first `test_levels` are level k with seed k."""
        n = self.test_levels
        return [(k, r * n + k) for r in range(self.repeats) for k in range(n)]


def _within(name: str, distribution: str) -> Split:
    return Split(name, distribution, 0, 200, TEMPLATES, 100_000, 100, TEMPLATES, 10,
                 f"{distribution} levels: train seeds 0-199, test seeds 100,000-100,099, all nine templates")


def _cross(name: str, distribution: str) -> Split:
    return Split(name, distribution, 0, 200, TRAIN_TEMPLATES, 100_000, 100, HELD_OUT_TEMPLATES, 10,
                 f"{distribution} levels: train seeds 0-199 of {', '.join(TRAIN_TEMPLATES)}; test seeds "
                 f"100,000-100,099 of {', '.join(HELD_OUT_TEMPLATES)} (templates never seen in training)")


#: Every split, by name. Declared once; never edited (a change is a new version).
SPLITS: dict[str, Split] = {s.name: s for s in (
    _within("easy-v1", "easy"),
    _within("hard-v1", "hard"),
    _cross("xt-easy-v1", "easy"),
    _cross("xt-hard-v1", "hard"),
)}


def get_split(name: str) -> Split:
    """The split called `name`; an unknown name is a ValueError listing the known ones."""
    if not isinstance(name, str) or name not in SPLITS:
        raise ValueError(f"unknown split {name!r}; known splits: {', '.join(SPLITS)}")
    return SPLITS[name]


def split_options(name: str, part: str) -> dict:
    """The environment's make options (num_levels, start_level, distribution_mode, templates) for
    `part` ("train" or "test") of split `name`: ``PeggleEnv(**split_options("easy-v1", "test"))``."""
    return get_split(name).options(part)


def evaluation_episodes(name: str) -> list[tuple[int, int]]:
    """Split `name`'s fixed evaluation episodes, (level index k, environment seed), played on its
    test part: ``reset(seed=seed, options={"level": k})``."""
    return get_split(name).episodes()
