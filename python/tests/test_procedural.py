"""Procedural levels (Procgen's num_levels / start_level / distribution_mode) through the Python
environments: seeded draws from a seed range, the level seed in the info, strict arguments."""
import numpy as np
import pytest

from peggle_gym import PeggleEnv, PeggleError
from conftest import LEVEL, checked

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def level_seeds(env, seed, episodes):
    """The level seeds of `episodes` resets, the first with `seed`."""
    seeds = [env.reset(seed=seed)[1]["level_seed"]]
    seeds += [env.reset()[1]["level_seed"] for _ in range(episodes - 1)]
    return seeds


def test_episodes_draw_seeded_levels_from_the_range(make_env):
    env = make_env(level=None, num_levels=20, start_level=100, distribution_mode="easy")
    assert env.level_names == []
    assert env.procedural == {"num_levels": 20, "start_level": 100, "distribution_mode": "easy",
                              "templates": ["arcs", "rows", "rings", "spiral", "funnel", "bricks", "waves",
                                            "pockets", "ramps"]}
    obs, info = env.reset(seed=4)
    assert isinstance(info["level_seed"], np.uint64) and 100 <= info["level_seed"] < 120
    assert info["level"] == info["level_seed"] - 100
    assert info["level_name"].endswith(f" {info['level_seed']} (easy)")
    assert obs in env.observation_space
    _, _, _, _, step_info = env.step(np.array([0.1], dtype=np.float32))
    assert step_info["level_seed"] == info["level_seed"]
    a = level_seeds(env, 4, 30)
    assert a == level_seeds(env, 4, 30)
    assert a != level_seeds(env, 5, 30)
    assert len(set(a)) >= 10 and all(100 <= s < 120 for s in a)


def test_train_and_test_ranges_never_share_a_level(make_env):
    train = make_env(level=None, num_levels=100, start_level=0)
    test = make_env(level=None, num_levels=100, start_level=100)
    assert set(level_seeds(train, 0, 60)).isdisjoint(level_seeds(test, 0, 60))


def test_a_level_index_forces_a_seed_and_templates_restrict_layouts(make_env):
    env = make_env(level=None, num_levels=50, start_level=1000, templates=["spiral"], distribution_mode="hard")
    _, info = env.reset(seed=0, options={"level": 7})
    assert info["level_seed"] == 1007 and info["level_name"] == "Spiral 1007 (hard)"
    with pytest.raises(PeggleError, match="bad_request: level 50 is outside 0..<50"):
        env.reset(options={"level": 50})
    with pytest.raises(PeggleError, match="procedural levels are chosen by index"):
        env.reset(options={"level": "Spiral 1007 (hard)"})


def test_check_env_passes_on_procedural_levels(make_env):
    checked(make_env(level=None, num_levels=0, start_level=12345), allowed=["not having a spec"])


def test_the_vector_env_reports_level_seeds_per_environment(make_vec):
    envs = make_vec(level=None, num_levels=30, start_level=500, num_envs=3)
    _, infos = envs.reset(seed=9)
    seeds = infos["level_seed"]
    assert seeds.dtype == np.uint64 and seeds.shape == (3,) and infos["_level_seed"].all()
    assert all(500 <= s < 530 for s in seeds)
    _, _, _, _, infos = envs.step(np.zeros((3, 1), dtype=np.float32))
    assert list(infos["level_seed"]) == list(seeds)
    again = make_vec(level=None, num_levels=30, start_level=500, num_envs=3)
    assert list(again.reset(seed=9)[1]["level_seed"]) == list(seeds)


def test_procedural_arguments_are_checked(make_env, make_vec):
    with pytest.raises(ValueError, match="give level files or procedural levels"):
        PeggleEnv(level=LEVEL, num_levels=3)
    # The server checks every option (the package passes them through) and names the field.
    with pytest.raises(PeggleError, match='bad_request: make: "level_order" applies to level files'):
        PeggleEnv(num_levels=3, level_order="random")
    with pytest.raises(TypeError, match="templates must be a list"):
        PeggleEnv(templates="arcs")
    with pytest.raises(PeggleError, match='bad_request: "num_levels" must be a whole number'):
        PeggleEnv(num_levels=2.5)
    with pytest.raises(PeggleError, match='bad_request: "num_levels" is -1'):
        make_env(level=None, num_levels=-1)
    with pytest.raises(PeggleError, match='bad_request: "distribution_mode" is "extreme"; expected one of: easy, hard'):
        make_vec(level=None, distribution_mode="extreme")
    with pytest.raises(PeggleError, match='bad_request: "templates\\[0\\]" is "blob"'):
        make_env(level=None, templates=["blob"])
    with pytest.raises(PeggleError, match="bad_request: max_objects is 64; generated levels have up to 128"):
        make_env(level=None, start_level=3, max_objects=64)


def test_which_arguments_are_procedural_is_the_servers_word():
    """The package keeps no list of procedural fields: the server's spec marks them, and a
    request is composed from the marks of the server it goes to."""
    import peggle_gym
    from peggle_gym.client import make_request, procedural_fields
    spec = peggle_gym.make_options()
    assert procedural_fields(spec) == ["num_levels", "start_level", "distribution_mode", "templates"]
    assert all("procedural" not in o for name, o in spec.items() if name not in procedural_fields(spec))
    # A server that marked only num_levels: templates alone would be a plain option beside level files.
    only = {name: {k: v for k, v in o.items() if name == "num_levels" or k != "procedural"} for name, o in spec.items()}
    fields = make_request(LEVEL, {"templates": ["rows"]}, spec=only, num_envs=1, autoreset="disabled")
    assert fields["templates"] == ["rows"] and len(fields["levels"]) == 1
    with pytest.raises(ValueError, match=r"procedural levels \(templates=...\)"):
        make_request(LEVEL, {"templates": ["rows"]}, spec=spec, num_envs=1, autoreset="disabled")
    # Given no levels and no argument the spec marks, the package's default levels.
    assert make_request(None, {}, spec=spec, num_envs=1, autoreset="disabled")["distribution_mode"] == "easy"


def test_a_tier_distribution_plays_levels_the_estimate_puts_in_the_tier(make_env, peggle_bin, tmp_path):
    """A curriculum asks for a tier: the level of each seed is a candidate the instant estimate
    puts there, named by its generator seed, and `peggle level generate` writes the same level."""
    import json
    import subprocess
    env = make_env(level=None, num_levels=2, start_level=0, distribution_mode="tier-easy")
    assert env.procedural["distribution_mode"] == "tier-easy"
    names = {env.reset(seed=0, options={"level": k})[1]["level_name"] for k in range(2)}
    assert len(names) == 2
    for name in names:
        template, seed, dist = name.split(" ")
        assert dist == "(easy)"
        subprocess.run([peggle_bin, "level", "generate", "--count", "1", "--seed", seed, "--distribution", "easy",
                        "--template", template.lower(), "--out", str(tmp_path / seed)], check=True, capture_output=True)
        (file,) = (tmp_path / seed).iterdir()
        est = json.loads(subprocess.run([peggle_bin, "estimate", "--json", str(file)], check=True, capture_output=True,
                                        text=True).stdout)
        assert est[0]["level"] == name and est[0]["tier"] == "easy"
    with pytest.raises(PeggleError, match="distribution_mode"):
        make_env(level=None, num_levels=2, distribution_mode="tier-impossible")
