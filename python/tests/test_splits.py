"""Named splits (peggle_gym.splits): train and test never share a level seed, the cross-template
splits never share a template, the evaluation episodes are fixed, and the environment plays what
the split says (checked on the levels it generates)."""
import pytest

from peggle_gym.splits import (HELD_OUT_TEMPLATES, SPLITS, TEMPLATE_FAMILIES, TEMPLATES, TRAIN_TEMPLATES,
                               evaluation_episodes, get_split, split_options)

NAMES = ["easy-v1", "hard-v1", "xt-easy-v1", "xt-hard-v1"]


def seeds(options):
    return set(range(options["start_level"], options["start_level"] + options["num_levels"]))


def test_the_named_splits_and_what_they_hold():
    assert list(SPLITS) == NAMES
    for name in NAMES:
        train, test = split_options(name, "train"), split_options(name, "test")
        distribution = "hard" if "hard" in name else "easy"
        assert train["distribution_mode"] == test["distribution_mode"] == distribution
        assert seeds(train) == set(range(200)) and seeds(test) == set(range(100_000, 100_100))
        assert not seeds(train) & seeds(test)
    for name in ("easy-v1", "hard-v1"):
        assert split_options(name, "train")["templates"] == split_options(name, "test")["templates"] == list(TEMPLATES)


def test_cross_template_splits_hold_out_three_templates_one_per_family():
    for name in ("xt-easy-v1", "xt-hard-v1"):
        train, test = split_options(name, "train")["templates"], split_options(name, "test")["templates"]
        assert len(train) == 6 and len(test) == 3 and not set(train) & set(test)
        assert set(train) | set(test) == set(TEMPLATES)
        # Listed in the generator's order: a seed's template is an index into the list.
        assert train == [t for t in TEMPLATES if t in train] and test == [t for t in TEMPLATES if t in test]
    assert sorted(HELD_OUT_TEMPLATES) == ["pockets", "rings", "spiral"] and set(TRAIN_TEMPLATES).isdisjoint(HELD_OUT_TEMPLATES)
    for family, members in TEMPLATE_FAMILIES.items():
        assert len(set(members) & set(HELD_OUT_TEMPLATES)) == 1, family
        assert set(members) & set(TRAIN_TEMPLATES), family
    assert sorted(t for m in TEMPLATE_FAMILIES.values() for t in m) == sorted(TEMPLATES)


def test_evaluation_episodes_are_fixed():
    for name in NAMES:
        episodes = evaluation_episodes(name)
        assert len(episodes) == 1000 and len({seed for _, seed in episodes}) == 1000
        # Repeat 0 is level k with seed k (the one-episode-per-level protocol), repeat r seed 100 r + k.
        assert episodes[:100] == [(k, k) for k in range(100)]
        assert episodes[100] == (0, 100) and episodes[999] == (99, 999)
        assert all(sum(1 for k, _ in episodes if k == level) == 10 for level in (0, 57, 99))
        assert evaluation_episodes(name) == episodes  # the same list every time


def test_options_are_a_fresh_copy_each_time():
    options = split_options("xt-easy-v1", "train")
    options["templates"].append("rings")
    options["num_levels"] = 5
    assert split_options("xt-easy-v1", "train")["templates"] == list(TRAIN_TEMPLATES)
    assert split_options("xt-easy-v1", "train")["num_levels"] == 200


def test_unknown_names_and_parts_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown split 'easy'; known splits: easy-v1, hard-v1, xt-easy-v1, xt-hard-v1"):
        split_options("easy", "train")
    with pytest.raises(ValueError, match=r"unknown split 'medium-v1'"):
        evaluation_episodes("medium-v1")
    with pytest.raises(ValueError, match=r"unknown split None"):
        get_split(None)
    with pytest.raises(ValueError, match=r"split part 'valid' is not one of: train, test"):
        split_options("easy-v1", "valid")


def test_the_template_order_is_the_binarys(peggle_bin):
    from peggle_gym import make_options
    assert tuple(make_options(peggle_bin)["templates"]["choices"]) == TEMPLATES


def test_the_environment_plays_the_splits_levels(make_env):
    """Every train and test level of the cross-template splits, by the environment's own names:
    the seed and the distribution the split says, a train template on train levels and a
    held-out one on test levels; on easy-v1 the explicit list of nine is the default's draw."""
    def names(options, indices):
        env = make_env(levels=None, level=None, max_shots=100, **options)
        out = []
        for k in indices:
            _, info = env.reset(seed=0, options={"level": k})
            out.append((int(info["level_seed"]), info["level_name"]))
        return out

    for name in ("xt-easy-v1", "xt-hard-v1"):
        distribution = get_split(name).distribution
        for part, allowed, count in (("train", TRAIN_TEMPLATES, 200), ("test", HELD_OUT_TEMPLATES, 100)):
            options = split_options(name, part)
            played = names(options, range(count))
            assert [s for s, _ in played] == [options["start_level"] + k for k in range(count)]
            templates = [n.split(" ")[0].lower() for _, n in played]
            assert set(templates) == set(allowed), (name, part)  # each one, and nothing else
            assert all(n == f"{n.split(' ')[0]} {s} ({distribution})" for s, n in played)
    explicit = names(split_options("easy-v1", "test"), range(100))
    default = names({k: v for k, v in split_options("easy-v1", "test").items() if k != "templates"}, range(100))
    assert explicit == default and len({n.split(" ")[0] for _, n in explicit}) == 9
