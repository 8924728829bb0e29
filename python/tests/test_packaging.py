"""Levels that travel with the package: bundled levels by name, installed with the package (the
same bytes as Levels/), and the README's example running from an empty folder after a pip install."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import gymnasium as gym
import pytest

import peggle_gym
from conftest import LEVEL, PYTHON, ROOT

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

LEVELS = sorted((ROOT / "Levels").glob("*.json"))


def test_every_bundled_level_is_in_the_package_by_name():
    bundled = peggle_gym.bundled_levels()
    assert list(bundled) == [p.stem for p in LEVELS] and len(bundled) == 15
    for p in LEVELS:
        assert pathlib.Path(bundled[p.stem]).read_bytes() == p.read_bytes()


def test_a_level_by_name_is_the_file_and_paths_still_work(make_env, tmp_path, monkeypatch):
    by_name = make_env(level="first-steps")
    by_path = make_env(level=LEVEL)
    assert by_name.level_names == by_path.level_names == ["First Steps"]
    assert by_name.reset(seed=2)[0].tobytes() == by_path.reset(seed=2)[0].tobytes()
    both = make_env(levels=["fortress", pathlib.Path(LEVEL)])
    assert both.level_names == ["Fortress", "First Steps"]
    # A file in the working directory, by a relative path, still wins over nothing: it is a path.
    shutil.copy(LEVEL, tmp_path / "mine.json")
    monkeypatch.chdir(tmp_path)
    assert make_env(level="mine.json").level_names == ["First Steps"]


def test_an_unknown_level_name_is_refused_naming_it(make_env):
    with pytest.raises(ValueError) as e:
        make_env(level="first-stepz")
    assert str(e.value).startswith("level 'first-stepz' is neither a bundled level (bench-grid, brick-road, first-steps,")
    assert str(e.value).endswith(") nor a file")


def test_the_readme_example_is_example_py():
    example = (PYTHON / "example.py").read_text()
    for readme in (ROOT / "README.md", PYTHON / "README.md"):
        block = re.search(r"```python\n(# One Peggle episode.*?)```", readme.read_text(), re.S).group(1)
        assert block == example, readme


def test_the_example_runs_from_an_empty_folder_after_pip_install(tmp_path, peggle_bin):
    """pip installs a copy of python/ (with the Levels it links to) into a folder of its own;
    the example then runs in an empty folder, twice, printing the same game."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "Levels", src / "Levels")
    shutil.copytree(PYTHON, src / "python", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".pytest_cache"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(src / "python")], check=True, capture_output=True,
                   timeout=300)
    installed = site / "peggle_gym" / "levels"
    assert not installed.is_symlink()
    assert sorted(p.name for p in installed.iterdir()) == [p.name for p in LEVELS]
    for p in LEVELS:
        assert (installed / p.name).read_bytes() == p.read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    shutil.copy(PYTHON / "example.py", empty / "example.py")
    # The installed package, not this checkout's; gymnasium and numpy from this interpreter.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PEGGLE_BIN": peggle_bin,
           "PYTHONPATH": os.pathsep.join([str(site)] + [p for p in sys.path if p.endswith("site-packages")])}
    runs = [subprocess.run([sys.executable, "example.py"], cwd=empty, env=env, capture_output=True, text=True,
                           timeout=120) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert runs[0].stdout == runs[1].stdout and "First Steps" in runs[0].stdout
    assert os.listdir(empty) == ["example.py"]


def test_vector_kwargs_autoreset_mode_works_on_every_path(peggle_bin):
    from gymnasium.vector import AutoresetMode
    for mode in ("vector_entry_point", "sync", None):
        kw = {} if mode is None else {"vectorization_mode": mode}
        envs = gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=2, level="first-steps", max_shots=2,
                            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}, **kw)
        try:
            assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
            assert type(envs).__name__ == ("SyncVectorEnv" if mode == "sync" else "PeggleVectorEnv")
        finally:
            envs.close()
    # Anything else in vector_kwargs is still Gymnasium's to refuse, naming it.
    with pytest.raises(gym.error.Error, match="copy"):
        gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=2, level="first-steps", vector_kwargs={"copy": False})
