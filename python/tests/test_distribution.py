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
from peggle_gym import PeggleClient, PeggleEnv, PeggleError, find_peggle
from conftest import ROOT, LEVEL


def test_the_package_and_the_engine_are_one_version(peggle_bin):
    swift = (ROOT / "Sources" / "PeggleGame" / "Version.swift").read_text()
    assert re.search(r'public static let version = "([^"]+)"', swift).group(1) == peggle_gym.VERSION
    assert peggle_gym.__version__ == peggle_gym.VERSION
    assert 'version = {attr = "peggle_gym.client.VERSION"}' in (ROOT / "python" / "pyproject.toml").read_text()
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
    monkeypatch.setattr(client, "BUNDLED_PEGGLE", path)
    monkeypatch.delenv("PEGGLE_BIN", raising=False)
    with pytest.raises(PeggleError, match=r"reinstall it \(pip install --force-reinstall"):
        PeggleClient()


def test_the_wheel_engine_comes_after_peggle_bin_and_before_path(tmp_path, monkeypatch, peggle_bin):
    bundled = tmp_path / "bin" / "peggle"
    monkeypatch.setattr(client, "BUNDLED_PEGGLE", bundled)
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


def test_the_peggle_command_execs_the_engine_with_the_same_arguments(tmp_path, monkeypatch):
    bundled = tmp_path / "peggle"
    bundled.write_text("#!/bin/sh\n")
    bundled.chmod(0o755)
    monkeypatch.setattr(cli, "BUNDLED_PEGGLE", bundled)
    ran = []
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: ran.append((path, argv)))
    monkeypatch.setattr(sys, "argv", ["/venv/bin/peggle", "rate", "--db", "x y.sqlite"])
    cli.main()
    assert ran == [(str(bundled), [str(bundled), "rate", "--db", "x y.sqlite"])]


def test_the_peggle_command_without_an_engine_says_how_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "BUNDLED_PEGGLE", tmp_path / "none")
    monkeypatch.setattr(cli, "source_checkout_peggle", lambda: (_ for _ in ()).throw(FileNotFoundError("no peggle binary: build it")))
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 127 and "peggle: no peggle binary: build it" in capsys.readouterr().err


@pytest.mark.parametrize("env_id, distribution", [
    (peggle_gym.ENV_ID, "easy"), (peggle_gym.ENV_ID_V1, "easy"),
    (peggle_gym.ENV_ID_EASY, "easy"), (peggle_gym.ENV_ID_HARD, "hard")])
def test_every_registered_id_plays_bare(env_id, distribution, peggle_bin):
    env = gym.make(env_id)
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


def test_ray_rating_s_default_agents_work_outside_a_checkout(tmp_path, monkeypatch):
    """peggle_gym.ray adds `peggle rate`'s default agents: from a checkout it ships the driver's
    Agents/linear.json to the tasks; elsewhere it leaves the path to each task's engine, which
    plays the copy built into it (docs/distribution.md, "From any folder")."""
    from peggle_gym.ray._rating import _agent_files
    monkeypatch.chdir(tmp_path)
    assert _agent_files([]) == (["--agents", "random,greedy,linear:Agents/linear.json"], {})
    monkeypatch.chdir(ROOT)
    args, files = _agent_files([])
    assert args == ["--agents", "random,greedy,linear:agent-0.json"]
    assert files == {"agent-0.json": (ROOT / "Agents" / "linear.json").read_bytes()}
