"""peggle_gym.ray: a rating sharded over a local Ray instance equals one `peggle rate`, game for
game; reruns add nothing; a worker killed mid-task loses nothing; bad input is refused untouched."""
import gc
import os
import pathlib
import signal
import subprocess
import threading
import time

import pytest

ray = pytest.importorskip("ray")

from conftest import ROOT, children  # noqa: E402
from peggle_gym import find_peggle  # noqa: E402
from peggle_gym.ray import rate  # noqa: E402
from peggle_gym.ray.__main__ import main  # noqa: E402

LEVELS = [str(ROOT / "Levels" / n) for n in ("first-steps.json", "spiral.json", "green-light.json")]
#: A small adaptive rating: the greedy agent's batches are chosen from stored games, so it shows
#: that a shard replays what the target already holds.
OPTIONS = ["--agents", "random,greedy", "--candidates", "8", "--refine", "1x2", "--samples", "2",
           "--episodes", "3", "--batch-size", "4", "--budget", "12", "--batch", "3"]


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """conftest's check, narrowed: while this module's Ray instance lives, Ray's own processes
    (raylet, gcs_server, workers) come and go as children of this process; no `peggle` may stay."""
    before = set(children())
    yield
    gc.collect()
    left = sorted(p for p in set(children()) - before if p.split()[2].startswith("peggle"))
    assert left == [], f"processes left behind: {left}"


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    # The pause hook's marker exists unless a test removes it (then the first shard to start pauses).
    marker = tmp_path_factory.mktemp("ray") / "paused"
    marker.write_text("")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             runtime_env={"env_vars": {"PEGGLE_RAY_TEST_PAUSE_ONCE": str(marker)}})
    yield marker
    ray.shutdown()


def peggle(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([find_peggle(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=ROOT)


def games(db: pathlib.Path, tmp: pathlib.Path) -> list[str]:
    """Every game of a database as `peggle report`'s episodes.csv rows, in a fixed order."""
    out = tmp / f"report-{db.stem}"
    r = peggle("report", "--db", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    header, *rows = (out / "episodes.csv").read_text().splitlines()
    return [header] + sorted(rows)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same rating in one process."""
    tmp = tmp_path_factory.mktemp("reference")
    db = tmp / "one.sqlite"
    r = peggle("rate", *LEVELS, *OPTIONS, "--db", str(db))
    assert r.returncode == 0, r.stderr
    return games(db, tmp)


def test_sharded_rating_equals_one_process_and_a_rerun_adds_nothing(local_ray, reference, tmp_path):
    db = tmp_path / "ray.sqlite"
    seen = []
    result = rate(LEVELS, db, OPTIONS, levels_per_shard=1, progress=False, on_shard=lambda i, line: seen.append(i))
    assert (result.levels, result.shards, result.conflicts) == (3, 3, 0)
    assert sorted(seen) == [0, 1, 2]
    rows = games(db, tmp_path)
    assert rows == reference
    assert result.games_added == len(reference) - 1 and result.games_already_there == 0
    again = rate(LEVELS, db, OPTIONS, levels_per_shard=2, progress=False)
    assert (again.shards, again.games_added, again.games_already_there) == (2, 0, len(reference) - 1)
    assert games(db, tmp_path) == reference


def test_a_target_holding_some_games_gets_only_the_rest(local_ray, reference, tmp_path):
    db = tmp_path / "part.sqlite"
    # First steps rated in full before, spiral stopped after two commits.
    assert peggle("rate", LEVELS[0], *OPTIONS, "--db", str(db)).returncode == 0
    stopped = peggle("rate", LEVELS[1], *OPTIONS, "--db", str(db), "--stop-after-batches", "2")
    assert stopped.returncode == 3, stopped.stderr
    before = len(games(db, tmp_path)) - 1
    result = rate(LEVELS, db, OPTIONS, levels_per_shard=1, progress=False)
    assert result.games_already_there == before
    assert result.games_added == len(reference) - 1 - before
    assert games(db, tmp_path) == reference


def test_a_worker_killed_mid_task_is_retried_and_nothing_is_lost(local_ray, reference, tmp_path):
    marker = local_ray
    marker.unlink()
    db = tmp_path / "killed.sqlite"
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.update(result=rate(LEVELS, db, OPTIONS, levels_per_shard=1,
                                                                         progress=False)))
    runner.start()
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert time.monotonic() < deadline, "no shard paused"
        time.sleep(0.1)
    worker, child = map(int, marker.read_text().split())
    # The paused shard has committed a batch into its own database; the worker dies with it.
    deadline = time.monotonic() + 60
    while True:
        try:
            if "--pause-after-batches" in pathlib.Path(f"/proc/{child}/cmdline").read_text():
                break
        except FileNotFoundError:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.1)
    os.kill(worker, signal.SIGKILL)
    runner.join(timeout=120)
    assert not runner.is_alive()
    # The orphaned `peggle rate` died with its worker (PR_SET_PDEATHSIG).
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{child}") and "Z" not in pathlib.Path(f"/proc/{child}/stat").read_text().split()[2]:
        assert time.monotonic() < deadline, "the paused peggle rate outlived its worker"
        time.sleep(0.1)
    result = outcome["result"]
    assert result.games_added == len(reference) - 1
    assert games(db, tmp_path) == reference


def test_bad_input_is_refused_before_anything_runs(local_ray, tmp_path, capsys):
    db = tmp_path / "bad.sqlite"
    with pytest.raises(ValueError, match="--agents: unknown agent 'bogus'"):
        rate(LEVELS, db, ["--agents", "bogus"], progress=False)
    with pytest.raises(ValueError, match="--db: set by the driver"):
        rate(LEVELS, db, ["--db", "x.sqlite"], progress=False)
    with pytest.raises(ValueError, match="levels_per_shard: 0 must be at least 1"):
        rate(LEVELS, db, [], levels_per_shard=0, progress=False)
    bad_level = tmp_path / "broken.json"
    bad_level.write_text("{}")
    with pytest.raises(ValueError, match="broken.json"):
        rate([bad_level], db, OPTIONS, progress=False)
    assert not db.exists()
    # The command: exit 2 and one message.
    assert main(["rate", LEVELS[0], "--db", str(db), "--budget", "0"]) == 2
    assert "--budget: 0 is outside 1...100000" in capsys.readouterr().err
    assert not db.exists()
    assert main(["rate", LEVELS[0], "--db", str(tmp_path / "missing" / "x.sqlite")]) == 2


def test_the_command_rates_and_reports(local_ray, reference, tmp_path, capsys):
    db = tmp_path / "cli.sqlite"
    assert main(["rate", *LEVELS, "--db", str(db), "--levels-per-shard", "2", "--quiet", *OPTIONS]) == 0
    out = capsys.readouterr().out
    assert f"rated 3 levels in 2 shards: {len(reference) - 1} games added, 0 already there" in out
    assert games(db, tmp_path) == reference


@ray.remote
def _scores_in_a_worker(python_dir: str, level: str) -> tuple:
    """In a Ray worker process: a native vector env, stepped once from seed 3."""
    import sys
    sys.path.insert(0, python_dir)
    import numpy as np
    from peggle_gym import PeggleVectorEnv
    env = PeggleVectorEnv(num_envs=4, level=level, threads=2, backend="native")
    try:
        env.reset(seed=3)
        return env.backend, env.step(np.full((4, 1), 0.35, np.float32))[4]["score"].tolist()
    finally:
        env.close()


def test_a_native_env_plays_in_a_ray_worker_as_in_the_driver(local_ray):
    """The engine inside a Ray worker's process, while the driver holds one of its own."""
    import numpy as np
    from conftest import PYTHON
    from peggle_gym import PeggleVectorEnv
    here = PeggleVectorEnv(num_envs=4, level=LEVELS[0], threads=2, backend="native")
    try:
        here.reset(seed=3)
        expected = here.step(np.full((4, 1), 0.35, np.float32))[4]["score"].tolist()
        assert ray.get(_scores_in_a_worker.remote(str(PYTHON), LEVELS[0]), timeout=120) == ("native", expected)
    finally:
        here.close()


def test_every_policy_file_an_agent_names_is_shipped_to_the_tasks(tmp_path):
    """`--agents` naming `linear:FILE` and `mlp:FILE`: each file is read on the driver and the
    tasks get its bytes under a name of their own (a worker need not see the driver's paths).
    Which agents read a file, and the default agents, are `peggle rate --dry-run --json`'s."""
    from peggle_gym.ray._rating import _agent_files, _checked_agents
    linear, mlp = tmp_path / "l.json", tmp_path / "m.json"
    linear.write_bytes((ROOT / "Agents" / "linear.json").read_bytes())
    mlp.write_bytes((ROOT / "Agents" / "mlp.json").read_bytes())
    db = tmp_path / "x.sqlite"

    def shipped(args):
        return _agent_files(args, _checked_agents(find_peggle(), LEVELS[:1], db, args))
    assert shipped(["--budget", "96", "--agents", f"random,mlp:{mlp},linear:{linear}"]) == (
        ["--budget", "96", "--agents", "random,mlp:agent-0.json,linear:agent-1.json"],
        {"agent-0.json": mlp.read_bytes(), "agent-1.json": linear.read_bytes()})
    assert shipped([f"--agents= greedy ,mlp:{mlp}", "--budget", "12"]) == (
        ["--budget", "12", "--agents", "greedy,mlp:agent-0.json"], {"agent-0.json": mlp.read_bytes()})
    assert not db.exists()  # peggle rate's default agents: test_distribution.py


def test_the_command_passes_on_every_option_of_peggle_rate_that_takes_a_value(tmp_path, capsys):
    """The command asks the binary for `peggle rate`'s options rather than listing them (the list
    it had lacked --placement, --prior and --stop); each reaches `peggle rate`, which checks it."""
    from peggle_gym.ray.__main__ import rate_options
    assert [o["name"] for o in rate_options(find_peggle())] == [
        "--agents", "--method", "--episodes", "--sigmas", "--budget", "--precision", "--batch-size", "--placement",
        "--prior", "--stop", "--physics", "--seed", "--batch", "--max-shots", "--candidates", "--refine", "--samples", "--screen"]
    db = tmp_path / "x.sqlite"
    assert main(["rate", LEVELS[0], "--db", str(db), "--stop", "never"]) == 2
    assert "--stop" in capsys.readouterr().err and not db.exists()
