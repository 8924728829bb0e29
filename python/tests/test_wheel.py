"""The wheel as a newcomer installs it (docs/distribution.md): skipped unless $PEGGLE_WHEEL names a
wheel built by scripts/wheel.

    PEGGLE_WHEEL=dist/peggle_gym-0.1.0-cp310-abi3-manylinux_2_35_x86_64.whl python -m pytest python/tests/test_wheel.py

A fresh virtual environment outside the repository gets the wheel with pip (gymnasium and numpy
from the package index); then, with a PATH that holds no Swift toolchain, no PEGGLE_BIN and the
working directory elsewhere, Peggle-v1 passes Gymnasium's check_env and plays an episode, `peggle
rate` and `peggle report` rate a bundled level, and `peggle studio` serves its page. The engines in
the wheel (generic, and AVX2-tuned when the building machine has AVX2, BMI2 and FMA, as this one
is taken to be: the same machine builds and tests) must need nothing from the Swift toolchain and
find BLAS and SQLite inside the wheel; the package runs the tuned one on such a CPU, the generic one
with PEGGLE_GENERIC=1, and both play the same games.
"""
import csv
import http.client
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest

import peggle_gym
from peggle_gym import client

WHEEL = os.environ.get("PEGGLE_WHEEL")
pytestmark = pytest.mark.skipif(not WHEEL, reason="set PEGGLE_WHEEL to a wheel built by scripts/wheel")
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
#: Whether this machine has the tuned engine's CPU flags: scripts/wheel then builds it, and the
#: package runs it here.
TUNED = client.TUNED_CPU_FLAGS <= client.cpu_flags(pathlib.Path("/proc/cpuinfo").read_text())
ENGINES = ["peggle", "peggle-avx2"] if TUNED else ["peggle"]
CHOSEN = ENGINES[-1]
#: Each engine's native library beside it (peggle_gym.native.library_beside).
LIBRARIES = [f"libpeggle_env{e.removeprefix('peggle')}.so" for e in ENGINES]


def clean_path() -> str:
    """/usr/bin and /bin without any folder holding a Swift toolchain."""
    folders = [f for f in ("/usr/local/bin", "/usr/bin", "/bin") if os.path.isdir(f)]
    return os.pathsep.join(f for f in folders if not os.path.exists(os.path.join(f, "swift")))


class Installed:
    def __init__(self, root: pathlib.Path):
        self.venv = root / "venv"
        self.work = root / "work"
        self.work.mkdir()
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PEGGLE_BIN", "PEGGLE_GENERIC", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME",
                                 "LD_LIBRARY_PATH")}
        self.env["PATH"] = os.pathsep.join([str(self.venv / "bin"), clean_path()])

    def run(self, *argv, timeout=600, cwd=None, extra_env=None, **kw) -> subprocess.CompletedProcess:
        done = subprocess.run(list(map(str, argv)), cwd=cwd or self.work, env={**self.env, **(extra_env or {})},
                              capture_output=True, text=True, timeout=timeout, **kw)
        assert done.returncode == 0, f"{argv} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def python(self, code: str, extra_env=None) -> dict:
        """Runs ``code`` with the venv's Python; its last output line is JSON."""
        return json.loads(self.run(self.venv / "bin" / "python", "-c", code, extra_env=extra_env)
                          .stdout.strip().splitlines()[-1])

    def bin(self) -> pathlib.Path:
        """The installed package's folder of engines."""
        return pathlib.Path(self.python("import json, peggle_gym; print(json.dumps(peggle_gym.__file__))")).parent / "bin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    wheel = pathlib.Path(WHEEL).resolve()
    assert wheel.is_file(), f"PEGGLE_WHEEL={WHEEL!r} is not a file"
    root = tmp_path_factory.mktemp("wheel")
    assert REPOSITORY not in root.parents
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=300)
    it = Installed(root)
    it.run(it.venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
    return it


def test_no_swift_toolchain_and_no_peggle_bin_are_in_reach(installed):
    assert shutil.which("swift", path=installed.env["PATH"]) is None
    assert "PEGGLE_BIN" not in installed.env
    found = installed.python("import json, peggle_gym; print(json.dumps({'package': peggle_gym.__file__, "
                             "'engine': peggle_gym.find_peggle(), 'version': peggle_gym.__version__}))")
    package = pathlib.Path(found["package"]).parent
    assert installed.venv in package.parents, found
    assert found["engine"] == str(package / "bin" / CHOSEN)
    assert found["version"] == peggle_gym.VERSION


def test_the_engines_and_their_libraries_need_nothing_from_the_swift_toolchain(installed):
    folder = installed.bin()
    assert sorted(p.name for p in folder.iterdir()) == sorted(ENGINES + LIBRARIES)
    for library in LIBRARIES:
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", installed.run("readelf", "-d", folder / library).stdout)
        assert needed and not [n for n in needed if re.search(r"swift|Foundation|dispatch|BlocksRuntime|icu", n)], needed
        assert "not found" not in installed.run("ldd", folder / library).stdout
        # Its Swift runtime stays private (Sources/PeggleNative/exports.map): only the header's
        # functions are global (a few metadata symbols stay in the table bound locally).
        exported = {words[-1] for words in map(str.split, installed.run("nm", "-D", "--defined-only", folder / library)
                                               .stdout.splitlines()) if words[-2].isupper()}
        assert len(exported) == 14 and all(name.startswith("peggle_") for name in exported), sorted(exported)[:20]
    for engine in ENGINES:
        engine = folder / engine
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", installed.run("readelf", "-d", engine).stdout)
        assert needed and not [n for n in needed if re.search(r"swift|Foundation|dispatch|BlocksRuntime|icu", n)], needed
        resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", installed.run("ldd", engine).stdout, re.M))
        assert "not found" not in resolved.values(), resolved
        libs = engine.parents[2] / "peggle_gym.libs"
        for name in ("libopenblas", "libsqlite3"):
            where = [path for lib, path in resolved.items() if lib.startswith(name)]
            assert len(where) == 1 and pathlib.Path(where[0]).resolve().parent == libs.resolve(), (engine, name, resolved)


def test_the_package_and_its_command_run_the_engine_this_cpu_takes_and_peggle_generic_forces(installed):
    """find_peggle() and the `peggle` command (which execs the engine in its own process: its
    /proc/PID/exe is the engine) pick the tuned engine on this CPU, the generic one when forced."""
    folder = installed.bin()
    for extra_env, expected in (({}, CHOSEN), ({"PEGGLE_GENERIC": "1"}, "peggle")):
        found = installed.python("import json, peggle_gym; print(json.dumps(peggle_gym.find_peggle()))", extra_env)
        assert found == str(folder / expected), extra_env
        serve = subprocess.Popen(["peggle", "serve"], cwd=installed.work, env={**installed.env, **extra_env},
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            hello = json.loads(serve.stdout.readline())
            assert hello["engine"] == f"peggle-gym {peggle_gym.VERSION}", hello
            assert os.readlink(f"/proc/{serve.pid}/exe") == os.path.realpath(folder / expected), extra_env
        finally:
            serve.stdin.close()
            serve.wait(timeout=30)


def test_the_wheel_is_a_platform_wheel_for_any_cpython_from_3_10():
    import zipfile
    name = pathlib.Path(WHEEL).name
    assert re.fullmatch(rf"peggle_gym-{re.escape(peggle_gym.VERSION)}-cp310-abi3-manylinux_2_\d+_x86_64\.whl", name), name
    with zipfile.ZipFile(WHEEL) as wheel:
        metadata = wheel.read(f"peggle_gym-{peggle_gym.VERSION}.dist-info/WHEEL").decode()
        extensions = [n for n in wheel.namelist() if n.endswith(".so") and not n.startswith(("peggle_gym/bin/", "peggle_gym.libs/"))]
        engines = {pathlib.PurePath(info.filename).name: info for info in wheel.infolist()
                   if info.filename.startswith("peggle_gym/bin/") and not info.is_dir()}
    # One extension, on the limited API (its file name says abi3), so any CPython from 3.10 loads it.
    assert extensions == ["peggle_gym/_hot.abi3.so"], extensions
    assert "Root-Is-Purelib: false" in metadata
    assert sorted(engines) == sorted(ENGINES + LIBRARIES)
    for name, engine in engines.items():
        assert engine.external_attr >> 16 & 0o111, f"the engine {name} is not executable in the wheel"


def test_the_peggle_command_passes_the_engine_s_errors_and_exit_status_on(installed):
    done = subprocess.run(["peggle", "nonsense"], cwd=installed.work, env=installed.env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Unexpected argument 'nonsense'" in done.stderr, done


def test_peggle_v1_passes_check_env_and_plays_an_episode_in_process(installed):
    """The wheel's default: the engine inside the Python process (the native library beside the
    engine this CPU takes), no server started."""
    result = installed.python("""
import json, gymnasium
from gymnasium.utils.env_checker import check_env
import peggle_gym
env = gymnasium.make("peggle_gym/Peggle-v1")
assert env.unwrapped.backend == "native", env.unwrapped.backend
assert env.unwrapped.client.path.endswith("bin/LIBRARY"), env.unwrapped.client.path
assert env.unwrapped._hot is not None and "site-packages" in peggle_gym.native.HOT.__file__  # the step in C
check_env(env.unwrapped)
obs, info = env.reset(seed=1)
steps, total, done = 0, 0.0, False
while not done:
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    steps, total, done = steps + 1, total + float(reward), terminated or truncated
assert env.observation_space.contains(obs)
env.close()
print(json.dumps({"steps": steps, "level": info["level_name"], "won": info.get("is_success")}))
""".replace("LIBRARY", LIBRARIES[-1]))
    assert result["steps"] >= 1 and result["level"].endswith("(easy)") and result["won"] in (True, False), result


def test_the_peggle_command_rates_and_reports_the_same_games_with_either_engine(installed):
    assert installed.run("peggle", "--version").stdout.strip() == peggle_gym.VERSION
    level = installed.python("import json, peggle_gym; print(json.dumps(peggle_gym.bundled_levels()['first-steps']))")
    reports = {}
    for extra_env in ({}, {"PEGGLE_GENERIC": "1"}):
        folder = installed.work / ("generic" if extra_env else "chosen")
        folder.mkdir()
        rated = installed.run("peggle", "rate", "--agents", "random,greedy", "--budget", "16", "--episodes", "2",
                              "--db", "ratings.sqlite", level, cwd=folder, extra_env=extra_env)
        assert "rated 1 level" in rated.stdout + rated.stderr
        installed.run("peggle", "report", "--db", "ratings.sqlite", "--out", "reports", "--format", "csv",
                      cwd=folder, extra_env=extra_env)
        reports[folder.name] = {name: (folder / "reports" / name).read_text() for name in ("difficulty.csv", "episodes.csv")}
    rows = reports["chosen"]["difficulty.csv"].splitlines()
    assert rows[0].startswith("rank,level,") and len(rows) == 2 and ",First Steps," in rows[1]
    games = reports["chosen"]["episodes.csv"].splitlines()
    assert len(games) == 1 + 18  # 16 greedy games at the adaptive sigmas, 2 random ones
    # The tuned engine (on this CPU) and the generic one play the same games, bit for bit.
    assert reports["generic"] == reports["chosen"]


def test_defaults_that_name_checkout_files_work_from_any_folder(installed):
    """`rate`'s default agents name linear:Agents/linear.json: the policy built into the engine
    stands in for it. (The benchmarks, which play Levels/..., are `peggle-bench`, not in the wheel.)"""
    folder = installed.work / "defaults"
    folder.mkdir()
    level = installed.python("import json, peggle_gym; print(json.dumps(peggle_gym.bundled_levels()['first-steps']))")
    installed.run("peggle", "rate", "--budget", "4", "--episodes", "1", "--db", "defaults.sqlite", level, cwd=folder)
    installed.run("peggle", "report", "--db", "defaults.sqlite", "--out", "reports", "--format", "csv", cwd=folder)
    with open(folder / "reports" / "episodes.csv", newline="") as f:
        games = list(csv.DictReader(f))
    assert sorted({game["agent_kind"] for game in games}) == ["greedy", "linear", "random"], games[:3]
    assert not (folder / "Agents").exists() and not (folder / "Levels").exists()


def test_peggle_studio_serves_its_page(installed):
    """Run where there is no Levels folder, the studio makes one with a copy of the bundled levels
    (read-only: edits save as copies, as in a checkout) and serves its page."""
    here = installed.work / "studio"
    here.mkdir()
    studio = subprocess.Popen([str(installed.venv / "bin" / "peggle"), "studio", "--port", "0"], cwd=here,
                              env=installed.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = studio.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, f"studio printed {line!r}"
        port = int(match.group(1))
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "studio did not accept a connection within 30 s"
                time.sleep(0.2)
        reply = connection.getresponse()
        page = reply.read().decode()
        assert reply.status == 200 and "<title>Peggle Studio" in page
        connection.close()
        bundled = sorted(pathlib.Path(p).name for p in installed.python(
            "import json, peggle_gym; print(json.dumps(sorted(peggle_gym.bundled_levels().values())))"))
        assert sorted(p.name for p in (here / "Levels").glob("*.json")) == bundled and len(bundled) == 15
    finally:
        studio.terminate()
        studio.communicate(timeout=30)
