"""Level files as the `peggle` tools find them, and the levels installed with the package."""
from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence

#: Where the bundled levels are installed: the package's ``levels`` folder (in a source checkout,
#: a link to the repository's ``Levels``).
LEVELS_DIR = pathlib.Path(__file__).resolve().parent / "levels"


def level_file_names(folder: str | os.PathLike) -> list[str]:
    """The names of the level files directly in `folder`, by the one rule the ``peggle`` tools
    follow (docs/levels.md, "A folder of levels"; Swift's ``LevelFolder.levelFileNames``): names
    ending in ``.json``, not hidden (a leading ``.``), not folders (a link to a file counts), in
    the byte order of the names. A folder that cannot be listed raises ValueError naming it."""
    try:
        names = os.listdir(folder)
    except OSError as e:
        raise ValueError(f"{os.fspath(folder)}: cannot be read as a folder ({e.strerror})") from e

    def is_level(name: str) -> bool:
        path = os.path.join(folder, name)
        return name.endswith(".json") and not name.startswith(".") and os.path.exists(path) and not os.path.isdir(path)
    return sorted(filter(is_level, names), key=os.fsencode)


def level_files(paths: Sequence[str | os.PathLike]) -> list[pathlib.Path]:
    """Files as given, folders expanded to their level files (`level_file_names`), as `peggle
    rate` expands them; a folder with none raises ValueError naming it."""
    files: list[pathlib.Path] = []
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            found = level_file_names(p)
            if not found:
                raise ValueError(f"{p}: folder has no level files (*.json)")
            files += [p / name for name in found]
        else:
            files.append(p)
    return files


def bundled_levels() -> dict[str, str]:
    """The levels installed with the package, by name (the file's stem, ``"first-steps"``) to
    their file's path, in the order of their file names (`level_file_names`)."""
    return {pathlib.Path(name).stem: str(LEVELS_DIR / name) for name in level_file_names(LEVELS_DIR)}


def level_path(level: str | os.PathLike) -> str:
    """A level argument as an absolute file path: a bundled level's name (a string without a
    folder or a ``.json`` suffix, such as ``"first-steps"``) is its installed file; anything else
    is a path, made absolute against the working directory (the server may run elsewhere)."""
    if isinstance(level, str) and os.sep not in level and not level.endswith(".json"):
        bundled = bundled_levels()
        if level in bundled:
            return bundled[level]
        if not os.path.exists(level):
            raise ValueError(f"level {level!r} is neither a bundled level ({', '.join(bundled)}) nor a file")
    if not isinstance(level, (str, os.PathLike)):
        raise TypeError(f"a level must be a bundled level's name or a file path, not {level!r}")
    return os.path.abspath(os.path.expanduser(os.fspath(level)))
