"""Python's level-folder expansion (`peggle_gym.level_files`, `level_file_names`, the bundled
levels and `peggle_gym.ray`'s shards) against the tool's (Swift's `LevelFolder`, docs/levels.md
"A folder of levels"): the same files of the same folder, in the same order, and the same refusal."""
import json
import os
import pathlib
import subprocess

import pytest

import peggle_gym
from peggle_gym import ray as peggle_ray
from conftest import LEVEL


def tricky_folder(root: pathlib.Path) -> pathlib.Path:
    """Levels under names whose order or membership a careless rule gets wrong, beside files and
    folders that are not levels."""
    folder = root / "levels"
    folder.mkdir()
    level = pathlib.Path(LEVEL).read_bytes()
    for name in ["b.json", "a.json", "B.json", "a-b.json", "a_b.json", "é.json", "Ω.json", "10.json", "9.json"]:
        (folder / name).write_bytes(level)
    for name in [".hidden.json", "upper.JSON", "notes.txt", "difficulty.csv", "json"]:
        (folder / name).write_text("not a level")  # reading any of these would fail the tool
    (folder / "folder.json").mkdir()
    (folder / "below").mkdir()
    (folder / "below" / "deep.json").write_bytes(level)
    os.symlink(folder / "a.json", folder / "link.json")
    os.symlink(folder / "gone.json", folder / "dangling.json")
    return folder


def tool_files(peggle_bin: str, *arguments: str) -> list[str]:
    """The files `peggle estimate` reads for these arguments, in its order."""
    out = subprocess.run([peggle_bin, "estimate", "--json", *arguments], check=True, capture_output=True, text=True).stdout
    return [e["file"] for e in json.loads(out)]


def test_python_expands_a_folder_as_the_tool_does(peggle_bin, tmp_path):
    folder = tricky_folder(tmp_path)
    expected = ["10.json", "9.json", "B.json", "a-b.json", "a.json", "a_b.json", "b.json", "link.json", "é.json", "Ω.json"]
    assert peggle_gym.level_file_names(folder) == expected
    python = [str(p) for p in peggle_gym.level_files([folder, LEVEL])]
    assert python == [str(folder / name) for name in expected] + [LEVEL]
    assert tool_files(peggle_bin, str(folder), LEVEL) == python
    assert peggle_ray.level_files is peggle_gym.level_files  # the shards' expansion is the same function


def test_a_folder_without_levels_is_refused_alike(peggle_bin, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / ".draft.json").write_text("{}")
    (empty / "difficulty.csv").write_text("")
    with pytest.raises(ValueError) as refused:
        peggle_gym.level_files([empty])
    run = subprocess.run([peggle_bin, "estimate", str(empty)], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"error: {refused.value}\n" == f"error: {empty}: folder has no level files (*.json)\n"
    with pytest.raises(ValueError, match=r"file\.json: cannot be read as a folder \(Not a directory\)"):
        (tmp_path / "file.json").write_text("{}")
        peggle_gym.level_file_names(tmp_path / "file.json")


def test_the_bundled_levels_are_their_folders_level_files(peggle_bin):
    names = peggle_gym.level_file_names(peggle_gym.LEVELS_DIR)
    assert list(peggle_gym.bundled_levels()) == [n.removesuffix(".json") for n in names] and len(names) >= 15
    assert list(peggle_gym.bundled_levels().values()) == tool_files(peggle_bin, str(peggle_gym.LEVELS_DIR))
