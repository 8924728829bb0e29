"""Which `peggle` executable to run, and what it must be: this package's version, and on this
CPU the wheel's tuned engine or its generic one (docs/distribution.md, "Generic and tuned")."""
from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Mapping

#: This package's version. The `peggle` executable it runs must be the same version (its hello
#: line's ``engine``, checked at start); pyproject.toml reads it from here, and a test keeps it
#: equal to the Swift package's `PeggleGym.version` (docs/distribution.md).
VERSION = "0.1.0"

#: Where a wheel carries its engines (scripts/wheel puts the release `peggle` executables there):
#: `BUNDLED_PEGGLE`, built for any CPU of its architecture, and `BUNDLED_PEGGLE_TUNED`, built for
#: CPUs with `TUNED_CPU_FLAGS` (about 10% faster: docs/distribution.md, "Generic and tuned").
BUNDLED_PEGGLE = pathlib.Path(__file__).resolve().parent / "bin" / "peggle"
BUNDLED_PEGGLE_TUNED = BUNDLED_PEGGLE.with_name("peggle-avx2")

#: What the tuned engine's code may use, as /proc/cpuinfo names it: the instruction sets LLVM's
#: `haswell` lets the compiler emit on its own (``abm`` is LZCNT). Package.swift tunes for it when
#: the building machine has avx2, bmi2 and fma; every CPU with those has the rest, but a virtual
#: machine may hide some, and a missing one would stop the engine with an illegal instruction.
TUNED_CPU_FLAGS = frozenset({"avx2", "bmi2", "fma", "avx", "f16c", "bmi1", "abm", "movbe", "popcnt", "sse4_2", "sse4_1",
                             "ssse3", "pni", "cx16", "lahf_lm"})

#: Set to anything but empty or ``0``, the wheel's generic engine runs even on a CPU the tuned one
#: suits (the same variable makes `swift build` skip the tuning: Package.swift).
GENERIC_VARIABLE = "PEGGLE_GENERIC"


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The flags every CPU in /proc/cpuinfo's text lists (each processor has a ``flags`` line;
    only a flag all of them have is safe for a process the kernel may move); empty if none."""
    lines = [line.partition(":")[2].split() for line in cpuinfo.splitlines() if line.split(":")[0].strip() == "flags"]
    return frozenset.intersection(*map(frozenset, lines)) if lines else frozenset()


def _this_cpuinfo() -> str:
    # Not cached with functools.cache: peggle_gym.ray ships this package to Ray's workers by value,
    # and an lru_cache wrapper would travel by reference, which a worker without the package
    # installed cannot import. Reading the file costs well under a millisecond.
    try:
        return pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux: no tuned engine is built for it anyway
        return ""


def bundled_peggle(cpuinfo: str | None = None, environ: Mapping[str, str] = os.environ) -> pathlib.Path:
    """Which of the wheel's engines to run: `BUNDLED_PEGGLE_TUNED` when the CPU (``cpuinfo``, the
    text of /proc/cpuinfo, read when None) has every one of `TUNED_CPU_FLAGS`, the file is there
    and `GENERIC_VARIABLE` is not set in ``environ``; else the generic `BUNDLED_PEGGLE`. Whether
    that file exists is the caller's question (a source install has neither)."""
    forced = environ.get(GENERIC_VARIABLE, "") not in ("", "0")
    if forced or not BUNDLED_PEGGLE_TUNED.exists():
        return BUNDLED_PEGGLE
    flags = cpu_flags(_this_cpuinfo() if cpuinfo is None else cpuinfo)
    return BUNDLED_PEGGLE_TUNED if TUNED_CPU_FLAGS <= flags else BUNDLED_PEGGLE


def source_checkout_peggle() -> str:
    """The release build of the Swift package this file lives in (a source checkout), found by
    walking up to the folder holding ``Package.swift``; FileNotFoundError saying how to build it."""
    for folder in pathlib.Path(__file__).resolve().parents:
        if (folder / "Package.swift").is_file():
            candidate = folder / ".build" / "release" / "peggle"
            if _executable(str(candidate)):
                return str(candidate)
            raise FileNotFoundError(
                f"no peggle binary: build it with `cd {folder} && swift build -c release`, "
                "or pass peggle_path=..., or set PEGGLE_BIN")
    raise FileNotFoundError(
        "no peggle binary: install the peggle_gym wheel (scripts/wheel builds it; docs/distribution.md), "
        "pass peggle_path=..., set PEGGLE_BIN, or put `peggle` on PATH")


def find_peggle(peggle_path: str | os.PathLike | None = None) -> str:
    """The `peggle` binary to run: ``peggle_path`` if given, else ``$PEGGLE_BIN``, else the
    executable inside the installed wheel (`bundled_peggle`: ``peggle_gym/bin/peggle-avx2`` on an
    AVX2 CPU, else ``peggle_gym/bin/peggle``), else `peggle` on ``PATH``, else
    ``.build/release/peggle`` of the Swift package this file lives in (a source checkout)."""
    if peggle_path is not None:
        path = os.fspath(peggle_path)
        if not _executable(path):
            raise FileNotFoundError(f"peggle_path {path!r} is not an executable file")
        return path
    env = os.environ.get("PEGGLE_BIN")
    if env:
        if not _executable(env):
            raise FileNotFoundError(f"PEGGLE_BIN={env!r} is not an executable file")
        return env
    bundled = bundled_peggle()
    if bundled.exists():
        if not _executable(str(bundled)):
            raise FileNotFoundError(f"the wheel's engine {bundled} is not executable: reinstall peggle_gym "
                                    "(pip install --force-reinstall ...), or set PEGGLE_BIN")
        return str(bundled)
    on_path = shutil.which("peggle")
    if on_path:
        return on_path
    return source_checkout_peggle()


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
