"""What a pip-installed package relies on: one version for the package and its engine (checked
at start), where the engine is found, the `peggle` command, and ids that play with no arguments."""
import pathlib
import re
import sys

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
import peggle_gym._cli as cli
import peggle_gym.client as client
import peggle_gym.engines as engines
from peggle_gym import PeggleClient, PeggleEnv, PeggleError, find_peggle
from conftest import ROOT, LEVEL, checked

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def test_the_package_and_the_engine_are_one_version(peggle_bin):
    swift = (ROOT / "Sources" / "PeggleGame" / "Version.swift").read_text()
    assert re.search(r'public static let version = "([^"]+)"', swift).group(1) == peggle_gym.VERSION
    assert peggle_gym.__version__ == peggle_gym.VERSION
    assert 'version = {attr = "peggle_gym.engines.VERSION"}' in (ROOT / "python" / "pyproject.toml").read_text()
    with PeggleClient(peggle_bin) as c:
        assert c.hello["engine"] == f"peggle-gym {peggle_gym.VERSION}"


def fake(tmp_path, hello: str) -> pathlib.Path:
    path = tmp_path / "peggle"
    path.write_text(f"#!/bin/sh\necho '{hello}'\ncat\n")
    path.chmod(0o755)
    return path


def test_an_engine_of_another_version_is_refused_naming_both(tmp_path):
    path = fake(tmp_path, '{"hello":"peggle serve","protocol":1,"engine":"peggle-gym 9.9.9"}')
    with pytest.raises(PeggleError) as e:
        PeggleClient(path)
    assert e.value.code == "protocol"
    message = e.value.message
    assert "peggle-gym 9.9.9" in message and f"peggle_gym is {peggle_gym.VERSION}" in message
    assert "swift build -c release" in message and "PEGGLE_BIN" in message
    path = fake(tmp_path, '{"hello":"peggle serve","protocol":1}')
    with pytest.raises(PeggleError, match="an unnamed engine speaking protocol 1"):
        PeggleClient(path)


def test_a_broken_wheel_engine_says_reinstall(tmp_path, monkeypatch):
    path = fake(tmp_path, '{"hello":"peggle serve","protocol":1,"engine":"peggle-gym 0.0.1"}')
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE", path)
    monkeypatch.delenv("PEGGLE_BIN", raising=False)
    with pytest.raises(PeggleError, match=r"reinstall it \(pip install --force-reinstall"):
        PeggleClient()


def test_the_wheel_engine_comes_after_peggle_bin_and_before_path(tmp_path, monkeypatch, peggle_bin):
    bundled = tmp_path / "bin" / "peggle"
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE", bundled)
    on_path = tmp_path / "path"
    on_path.mkdir()
    (on_path / "peggle").write_text("#!/bin/sh\n")
    (on_path / "peggle").chmod(0o755)
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.delenv("PEGGLE_BIN", raising=False)
    # No wheel engine (a source install): PATH.
    assert find_peggle() == str(on_path / "peggle")
    bundled.parent.mkdir()
    bundled.write_text("#!/bin/sh\n")
    bundled.chmod(0o644)
    with pytest.raises(FileNotFoundError, match="is not executable: reinstall"):
        find_peggle()
    bundled.chmod(0o755)
    assert find_peggle() == str(bundled)
    monkeypatch.setenv("PEGGLE_BIN", peggle_bin)
    assert find_peggle() == peggle_bin
    assert find_peggle(peggle_path=str(on_path / "peggle")) == str(on_path / "peggle")


# /proc/cpuinfo's text on two kinds of x86-64 machine: a two-thread Haswell (Core i7-4770, its
# flags line abridged), and an AVX one without AVX2, BMI2 or FMA (Sandy Bridge).
HASWELL_FLAGS = ("fpu cx8 cmov mmx fxsr sse sse2 ht syscall nx lm pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe "
                 "popcnt aes xsave avx f16c rdrand lahf_lm abm fsgsbase bmi1 avx2 bmi2 erms invpcid xsaveopt")
HASWELL = f"""processor\t: 0
model name\t: Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz
flags\t\t: {HASWELL_FLAGS}
bugs\t\t: spectre_v1

processor\t: 1
model name\t: Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz
flags\t\t: {HASWELL_FLAGS}
bugs\t\t: spectre_v1
"""
SANDY_BRIDGE = """processor\t: 0
flags\t\t: fpu cx8 cmov mmx fxsr sse sse2 lm pni ssse3 cx16 sse4_1 sse4_2 popcnt xsave avx lahf_lm
"""


def test_cpu_flags_are_those_every_processor_lists():
    assert client.cpu_flags(HASWELL) == set(HASWELL_FLAGS.split())
    assert client.cpu_flags(SANDY_BRIDGE) == {"fpu", "cx8", "cmov", "mmx", "fxsr", "sse", "sse2", "lm", "pni", "ssse3",
                                              "cx16", "sse4_1", "sse4_2", "popcnt", "xsave", "avx", "lahf_lm"}
    # A processor without bmi2 takes it out of the machine's flags: the kernel may move a process there.
    assert client.cpu_flags(HASWELL.replace(" bmi2 ", " ", 1)) == client.cpu_flags(HASWELL) - {"bmi2"}
    # No flags line (an arm64 machine says "Features"; no /proc at all reads as ""): none.
    assert client.cpu_flags("processor\t: 0\nFeatures\t: fp asimd avx2\n") == frozenset()
    assert client.cpu_flags("") == frozenset()


@pytest.fixture
def wheel_bin(tmp_path, monkeypatch):
    """A wheel's bin folder with both engines (fakes that print their name), this machine's CPU
    read as HASWELL, and no PEGGLE_BIN or PEGGLE_GENERIC."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in ("peggle", "peggle-avx2"):
        (folder / name).write_text(f"#!/bin/sh\necho {name}\n")
        (folder / name).chmod(0o755)
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE", folder / "peggle")
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE_TUNED", folder / "peggle-avx2")
    monkeypatch.setattr(engines, "_this_cpuinfo", lambda: HASWELL)
    monkeypatch.delenv("PEGGLE_BIN", raising=False)
    monkeypatch.delenv("PEGGLE_GENERIC", raising=False)
    return folder


def test_the_wheel_runs_its_tuned_engine_only_where_the_cpu_has_what_it_may_use(wheel_bin):
    tuned, generic = wheel_bin / "peggle-avx2", wheel_bin / "peggle"
    assert client.bundled_peggle(HASWELL, {}) == tuned
    assert client.bundled_peggle(SANDY_BRIDGE, {}) == generic
    # Any one of the instruction sets the tuned code may use missing (a virtual machine can hide
    # MOVBE or LZCNT while showing AVX2): the generic engine.
    assert client.TUNED_CPU_FLAGS <= set(HASWELL_FLAGS.split())
    for flag in client.TUNED_CPU_FLAGS:
        assert client.bundled_peggle(HASWELL.replace(f" {flag} ", " "), {}) == generic, flag
    assert client.bundled_peggle("", {}) == generic
    # None reads this machine's /proc/cpuinfo (HASWELL here) and the process's environment.
    assert client.bundled_peggle() == tuned


def test_peggle_generic_forces_the_generic_engine(wheel_bin):
    generic = wheel_bin / "peggle"
    assert client.bundled_peggle(HASWELL, {"PEGGLE_GENERIC": "1"}) == generic
    assert client.bundled_peggle(HASWELL, {"PEGGLE_GENERIC": "yes"}) == generic
    # Empty or 0 is unset, as for `swift build` (Package.swift).
    assert client.bundled_peggle(HASWELL, {"PEGGLE_GENERIC": "0"}) == wheel_bin / "peggle-avx2"
    assert client.bundled_peggle(HASWELL, {"PEGGLE_GENERIC": ""}) == wheel_bin / "peggle-avx2"


def test_a_wheel_without_the_tuned_engine_runs_the_generic_one(wheel_bin):
    (wheel_bin / "peggle-avx2").unlink()
    assert client.bundled_peggle(HASWELL, {}) == wheel_bin / "peggle"
    assert find_peggle() == str(wheel_bin / "peggle")


def test_find_peggle_chooses_between_the_wheel_s_engines_after_peggle_bin(wheel_bin, monkeypatch, peggle_bin):
    assert find_peggle() == str(wheel_bin / "peggle-avx2")
    monkeypatch.setenv("PEGGLE_GENERIC", "1")
    assert find_peggle() == str(wheel_bin / "peggle")
    monkeypatch.setattr(engines, "_this_cpuinfo", lambda: SANDY_BRIDGE)
    monkeypatch.delenv("PEGGLE_GENERIC")
    assert find_peggle() == str(wheel_bin / "peggle")
    monkeypatch.setattr(engines, "_this_cpuinfo", lambda: HASWELL)
    (wheel_bin / "peggle-avx2").chmod(0o644)
    with pytest.raises(FileNotFoundError, match="peggle-avx2 is not executable: reinstall"):
        find_peggle()
    monkeypatch.setenv("PEGGLE_BIN", peggle_bin)
    assert find_peggle() == peggle_bin
    assert find_peggle(peggle_path=wheel_bin / "peggle") == str(wheel_bin / "peggle")


def test_a_broken_tuned_engine_says_reinstall(wheel_bin):
    with pytest.raises(PeggleError, match=r"reinstall it \(pip install --force-reinstall"):
        client.check_hello(str(wheel_bin / "peggle-avx2"), {"protocol": 1, "engine": "peggle-gym 0.0.1"})


@pytest.mark.parametrize("environment, engine", [({}, "peggle-avx2"), ({"PEGGLE_GENERIC": "1"}, "peggle")])
def test_the_peggle_command_execs_the_engine_with_the_same_arguments(wheel_bin, monkeypatch, environment, engine):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    ran = []
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: ran.append((path, argv)))
    monkeypatch.setattr(sys, "argv", ["/venv/bin/peggle", "rate", "--db", "x y.sqlite"])
    cli.main()
    assert ran == [(str(wheel_bin / engine), [str(wheel_bin / engine), "rate", "--db", "x y.sqlite"])]


def test_the_peggle_command_without_an_engine_says_how_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE", tmp_path / "none")
    monkeypatch.setattr(engines, "BUNDLED_PEGGLE_TUNED", tmp_path / "none-avx2")
    monkeypatch.setattr(cli, "source_checkout_peggle", lambda: (_ for _ in ()).throw(FileNotFoundError("no peggle binary: build it")))
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 127 and "peggle: no peggle binary: build it" in capsys.readouterr().err


@pytest.mark.parametrize("env_id, distribution", [
    (peggle_gym.ENV_ID, "easy"), (peggle_gym.ENV_ID_V1, "easy"),
    (peggle_gym.ENV_ID_EASY, "easy"), (peggle_gym.ENV_ID_HARD, "hard")])
def test_every_registered_id_plays_bare(env_id, distribution, peggle_bin):
    """Each id passes check_env (the ids are registered without Gymnasium's passive checker, which
    `disable_env_checker=False` still adds) and plays generated levels of its distribution."""
    env = gym.make(env_id)
    assert "PassiveEnvChecker" not in str(env)
    checked(env.unwrapped, allowed=["not having a spec"])
    checker = gym.make(env_id, disable_env_checker=False)
    assert "PassiveEnvChecker" in str(checker)
    checker.close()
    try:
        obs, info = env.reset(seed=3)
        assert info["level_name"].endswith(f"({distribution})"), info["level_name"]
        seeds = {info["level_seed"]}
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs) and np.isfinite(reward)
        for seed in range(4, 40):
            seeds.add(env.reset(seed=seed)[1]["level_seed"])
        # Unlimited seeds (num_levels 0): no two of 37 seeded resets draw the same level.
        assert len(seeds) == 37
    finally:
        env.close()


def test_a_distribution_id_with_a_level_file_is_refused(peggle_bin):
    with pytest.raises(ValueError, match="give level files or procedural levels"):
        gym.make(peggle_gym.ENV_ID_HARD, level=LEVEL)
    # The plain ids take a level as before.
    env = gym.make(peggle_gym.ENV_ID_V1, level="first-steps")
    try:
        assert env.reset(seed=0)[1]["level_name"] == "First Steps"
    finally:
        env.close()


def test_a_bare_environment_plays_the_default_levels(peggle_bin):
    assert peggle_gym.DEFAULT_LEVELS == {"distribution_mode": "easy"}
    with PeggleEnv() as env:
        _, info = env.reset(seed=0)
        assert "level_seed" in info and info["level_name"].endswith("(easy)")
    # Any procedural argument given: the rest are the server's defaults (hard, as Procgen's).
    with PeggleEnv(num_levels=5) as env:
        assert env.reset(seed=0)[1]["level_name"].endswith("(hard)")


def test_ray_rating_s_default_agents_work_outside_a_checkout(tmp_path, monkeypatch, peggle_bin):
    """peggle_gym.ray passes `peggle rate`'s default agents on (as its `--dry-run --json` names
    them): from a checkout it ships the driver's Agents/linear.json to the tasks; elsewhere it
    leaves the path to each task's engine, which plays the copy built into it
    (docs/distribution.md, "From any folder")."""
    from peggle_gym.ray._rating import _agent_files, _checked_agents

    def shipped():
        return _agent_files([], _checked_agents(peggle_bin, [LEVEL], tmp_path / "x.sqlite", []))
    monkeypatch.chdir(tmp_path)
    assert shipped() == (["--agents", "random,greedy,linear:Agents/linear.json"], {})
    monkeypatch.chdir(ROOT)
    args, files = shipped()
    assert args == ["--agents", "random,greedy,linear:agent-0.json"]
    assert files == {"agent-0.json": (ROOT / "Agents" / "linear.json").read_bytes()}
