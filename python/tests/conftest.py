"""Shared fixtures. The tests import `peggle_gym` from this source tree (installed or not) and run
the binary the package finds: $PEGGLE_BIN when set (scripts/test points it at the release build), else
`peggle` on PATH, else the repository's .build/release/peggle."""
import gc
import os
import warnings
import pathlib
import sys

import pytest

PYTHON = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PYTHON))

ROOT = PYTHON.parent
LEVEL = str(ROOT / "Levels" / "first-steps.json")


def process_gone(pid: int) -> bool:
    """True once `pid` has exited and been reaped (a zombie still answers signal 0)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def children() -> list[str]:
    """This process's child processes (running or zombie), as "pid state command" lines."""
    me, found = os.getpid(), []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name_end = text.rindex(")")
        state, ppid = text[name_end + 2:].split()[:2]
        if int(ppid) == me:
            found.append(f"{stat.parent.name} {state} {text[text.index('(') + 1:name_end]}")
    return found


#: The engines an environment can run on (peggle_gym.backends.BACKENDS).
BACKENDS = ("native", "serve")


def pytest_configure(config):
    config.addinivalue_line("markers", "backends(*names): run the test once on each backend named "
                                       "($PEGGLE_BACKEND set for its whole run)")


def pytest_generate_tests(metafunc):
    """A test marked ``backends("native", "serve")`` (a module's ``pytestmark`` marks all of its
    tests) runs once per backend, named in its id: every environment it makes, directly, through
    gym.make or in a helper, runs on that backend, so one test asserts the same behaviour of
    both. ``backends("serve")`` marks what only a server has (its process, pipe and timeout)."""
    marker = metafunc.definition.get_closest_marker("backends")
    if marker is not None:
        metafunc.parametrize("backend", marker.args, indirect=True)


@pytest.fixture(autouse=True)
def backend(request, monkeypatch):
    """The backend a test runs on (None: the default, for tests that make no environment)."""
    chosen = getattr(request, "param", None)
    if chosen is not None:
        monkeypatch.setenv("PEGGLE_BACKEND", chosen)
    return chosen


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """Every test ends with no server (or zombie) of ours left: each one closes what it made."""
    before = set(children())
    yield
    gc.collect()
    left = sorted(set(children()) - before)
    assert left == [], f"processes left behind: {left}"


@pytest.fixture(scope="session")
def peggle_bin():
    from peggle_gym import find_peggle
    try:
        return find_peggle()
    except FileNotFoundError as e:
        pytest.fail(f"{e} (the Python tests need the peggle binary)")


@pytest.fixture
def make_env(peggle_bin):
    """Makes `PeggleEnv`s (first-steps, 3 shots unless told) and closes them after the test."""
    from peggle_gym import PeggleEnv
    made = []

    def make(**kw):
        if "levels" not in kw:
            kw.setdefault("level", LEVEL)
        kw.setdefault("max_shots", 3)
        env = PeggleEnv(**kw)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


@pytest.fixture
def make_vec(peggle_bin):
    """Makes `PeggleVectorEnv`s (first-steps, 3 shots, 4 environments unless told) and closes them
    after the test."""
    from peggle_gym import PeggleVectorEnv
    made = []

    def make(**kw):
        if "levels" not in kw:
            kw.setdefault("level", LEVEL)
        kw.setdefault("max_shots", 3)
        kw.setdefault("num_envs", 4)
        env = PeggleVectorEnv(**kw)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()


def checked(env, allowed=()):
    """Runs gymnasium's check_env and fails on any warning whose text contains none of `allowed`."""
    from gymnasium.utils.env_checker import check_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    unexpected = [str(w.message) for w in caught if not any(a in str(w.message) for a in allowed)]
    assert unexpected == []
