"""A `peggle rate` run spread over a Ray cluster (docs/distributed.md).

The driver splits the levels into shards of whole levels. Each shard is one Ray task: it writes
its levels (and the weights of any linear agent) into a temporary folder on its node, starts from
the games the target database already holds for those levels, runs `peggle rate` there into a
shard database, and returns the database's bytes. The driver merges each shard into the target
with `peggle db merge` as it arrives. A game is a function of its level, agent, seed and sigma,
so the merged database holds the same games as one `peggle rate` of all the levels would.
"""
from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable, Sequence

from ..engines import find_peggle
from ..level_paths import level_files

#: Levels per shard unless asked: a shard is the unit of retry and of merging, so small enough to
#: lose little when a node fails, large enough that merging (a process per shard) stays cheap.
DEFAULT_LEVELS_PER_SHARD = 4

#: Options the driver owns: it gives every shard its own database and thread count.
_DRIVER_OWNED = {"--db", "--threads"}


class ShardFailed(RuntimeError):
    """`peggle rate` refused a shard's input or failed: not retried (it would fail again)."""


class ShardInterrupted(RuntimeError):
    """`peggle rate` was killed by a signal (its node under memory pressure, an operator):
    Ray retries the task, which starts again from the same games."""


@dataclasses.dataclass
class RateResult:
    """What a distributed rating did."""
    levels: int
    shards: int
    games_added: int
    games_already_there: int
    conflicts: int
    seconds: float
    db: str


def _checked_agents(peggle: str, files: Sequence[str | os.PathLike], db: str | os.PathLike,
                    rate_args: list[str]) -> list[dict]:
    """Checks everything before any task starts, options, agents and every level, with `peggle rate
    --dry-run --json` (a refusal is a ValueError with its message), and returns its agents."""
    check = _run([peggle, "rate", *map(str, files), "--db", str(db), *rate_args, "--dry-run", "--json"])
    if check.returncode != 0:
        raise ValueError("\n".join(line.removeprefix("error: ") for line in check.stderr.strip().splitlines()))
    return json.loads(check.stdout)["agents"]


def _agent_files(rate_args: list[str], agents: list[dict]) -> tuple[list[str], dict[str, bytes]]:
    """The task's arguments and the policy files its agents are made from: ``agents`` is what
    `peggle rate --dry-run --json` said of them (the agents given, or its default, each with
    the file it reads: `peggle` knows the kinds and the defaults, not this driver). Each file is
    read here (the driver's paths) and the task names its own copy of it; the other agents, and
    a default policy `peggle` plays from the copy built into it, go as they are. An agent's
    identity is its weights' hash, never the path, so the stored games do not change."""
    args, files, specs = [], {}, []
    skip = False
    for a in rate_args:
        if skip:
            skip = False
        elif a == "--agents":
            skip = True
        elif not a.startswith("--agents="):
            args.append(a)
    for agent in agents:
        if agent["file"] is None:
            specs.append(agent["text"])
        else:
            name = f"agent-{len(files)}.json"
            files[name] = pathlib.Path(agent["file"]).read_bytes()
            specs.append(f"{agent['kind']}:{name}")
    return args + ["--agents", ",".join(specs)], files


def _die_with_parent() -> None:
    """In the child: SIGKILL when the process that started it dies (Linux), so a killed Ray
    worker leaves no `peggle rate` running on."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _claim_test_pause() -> bool:
    """Whether this task is the one to pause ($PEGGLE_RAY_TEST_PAUSE_ONCE names a marker file that
    does not exist yet): the first task to create the claim file wins, so exactly one pauses."""
    pause = os.environ.get("PEGGLE_RAY_TEST_PAUSE_ONCE")
    if not pause or os.path.exists(pause):
        return False
    try:
        os.close(os.open(pause + ".claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def rate_shard(levels: list[tuple[str, bytes]], agents: dict[str, bytes], rate_args: list[str],
               start: bytes | None, threads: int, peggle_path: str | None) -> dict:
    """One shard, run where Ray places it: `peggle rate` of `levels` (names and bytes) into a
    database that starts as `start` (the target's games of these levels, or nothing). Returns the
    database's bytes and the command's last line."""
    peggle = find_peggle(peggle_path)
    with tempfile.TemporaryDirectory(prefix="peggle-shard-") as folder:
        root = pathlib.Path(folder)
        for name, data in agents.items():
            (root / name).write_bytes(data)
        paths = []
        for i, (name, data) in enumerate(levels):
            path = root / "levels" / f"{i:05d}-{name}"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data)
            paths.append(str(path))
        db = root / "shard.sqlite"
        if start is not None:
            db.write_bytes(start)
        command = [peggle, "rate", *paths, "--db", str(db), "--threads", str(threads), *rate_args]
        if _claim_test_pause():
            # Test hook (docs/distributed.md): one shard pauses after its first commit and says
            # where, so a test can kill its worker mid-task.
            command += ["--pause-after-batches", "1"]
        proc = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_die_with_parent)
        if "--pause-after-batches" in command:
            pause = os.environ["PEGGLE_RAY_TEST_PAUSE_ONCE"]
            with open(pause + ".tmp", "w") as f:
                f.write(f"{os.getpid()} {proc.pid}\n")
            os.rename(pause + ".tmp", pause)
        out, err = proc.communicate()
        if proc.returncode < 0:
            raise ShardInterrupted(f"peggle rate was killed by signal {-proc.returncode}")
        if proc.returncode != 0:
            raise ShardFailed(err.strip() or f"peggle rate exited with code {proc.returncode}")
        lines = out.strip().splitlines()
        # The run ends with a checkpoint, so the main file alone holds every game.
        return {"db": db.read_bytes(), "summary": lines[-1] if lines else ""}


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class _Bar:
    """One progress line over all shards on standard error: redrawn in place on a terminal,
    a line per merged shard otherwise."""

    def __init__(self, shards: int, levels: int, enabled: bool):
        self.shards, self.levels, self.enabled = shards, levels, enabled
        self.tty = enabled and sys.stderr.isatty()
        self.start = time.monotonic()

    def show(self, done: int, levels_done: int, games: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = width * done // max(self.shards, 1)
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.shards} shards, "
                f"{levels_done}/{self.levels} levels, {games} games added, {time.monotonic() - self.start:.0f} s")
        sys.stderr.write(("\r\x1b[K" + line) if self.tty else line + "\n")
        sys.stderr.flush()

    def end(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def rate(levels: Sequence[str | os.PathLike], db: str | os.PathLike, rate_args: Sequence[str] = (), *,
         address: str | None = None, levels_per_shard: int = DEFAULT_LEVELS_PER_SHARD, cpus_per_task: int = 1,
         max_retries: int = 3, peggle_path: str | os.PathLike | None = None, progress: bool = True,
         on_shard: Callable[[int, str], None] | None = None) -> RateResult:
    """Rates `levels` (files or folders) into `db` on a Ray cluster, with `peggle rate`'s options
    in `rate_args` (e.g. ``["--agents", "random,greedy", "--budget", "96"]``; not `--db` or
    `--threads`: each task gets its own database and `cpus_per_task` threads). Connects with
    ``ray.init(address=...)`` unless Ray is already initialised (``address=None`` starts a local
    instance). Games `db` already holds are not played again; a shard is merged into `db` as soon
    as it is done, so an interrupted run keeps every merged shard and resumes when run again.
    ``peggle_path`` is the binary on every node (else each node's ``$PEGGLE_BIN`` or ``PATH``)."""
    import ray

    start_time = time.monotonic()
    if levels_per_shard < 1:
        raise ValueError(f"levels_per_shard: {levels_per_shard} must be at least 1")
    if cpus_per_task < 1:
        raise ValueError(f"cpus_per_task: {cpus_per_task} must be at least 1")
    if max_retries < 0:
        raise ValueError(f"max_retries: {max_retries} must be 0 or more")
    rate_args = list(rate_args)
    for a in rate_args:
        if a.split("=")[0] in _DRIVER_OWNED:
            raise ValueError(f"{a.split('=')[0]}: set by the driver (the database is db=..., threads cpus_per_task=...)")
    db = pathlib.Path(db)
    if not db.parent.is_dir():
        raise ValueError(f"db: {db}: the folder {db.parent} does not exist")
    peggle = find_peggle(peggle_path)
    files = level_files(levels)
    if not files:
        raise ValueError("no level to rate")
    task_args, agents = _agent_files(rate_args, _checked_agents(peggle, files, db, rate_args))
    contents = [(f.name, f.read_bytes()) for f in files]
    shards = [contents[i:i + levels_per_shard] for i in range(0, len(contents), levels_per_shard)]
    shard_files = [files[i:i + levels_per_shard] for i in range(0, len(files), levels_per_shard)]

    if not ray.is_initialized():
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
    # The task's code travels with it (by value), so nodes need only Python, Ray and the binary.
    import peggle_gym
    ray.cloudpickle.register_pickle_by_value(peggle_gym)
    remote = ray.remote(rate_shard).options(num_cpus=cpus_per_task, max_retries=max_retries,
                                            retry_exceptions=[ShardInterrupted])
    passed_path = os.fspath(peggle_path) if peggle_path is not None else None
    with tempfile.TemporaryDirectory(prefix=".peggle-ray-", dir=db.parent) as scratch:
        scratch = pathlib.Path(scratch)
        pending = {}
        for index, (shard, names) in enumerate(zip(shards, shard_files)):
            start = None
            if db.exists():
                # The games the target holds for these levels, so the shard replays them.
                extract = scratch / f"start-{index}.sqlite"
                r = _run([peggle, "db", "merge", str(db), "--into", str(extract),
                          *[x for n in names for x in ("--level", str(n))]])
                if r.returncode != 0:
                    raise RuntimeError(f"reading {db}'s games for shard {index}: {r.stderr.strip()}")
                start = extract.read_bytes()
                extract.unlink()
            pending[remote.remote(shard, agents, task_args, start, cpus_per_task, passed_path)] = index
        bar = _Bar(len(shards), len(files), progress)
        done = levels_done = added = there = conflicts = 0
        bar.show(0, 0, 0)
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                index = pending.pop(ready[0])
                try:
                    out = ray.get(ready[0])
                except ray.exceptions.RayTaskError as e:
                    cause = e.cause if getattr(e, "cause", None) is not None else e
                    raise RuntimeError(f"shard {index} ({shard_files[index][0]} ...): {cause}") from None
                path = scratch / f"shard-{index}.sqlite"
                path.write_bytes(out["db"])
                r = _run([peggle, "db", "merge", str(path), "--into", str(db), "--json"])
                if r.returncode not in (0, 1):
                    raise RuntimeError(f"merging shard {index} into {db}: {r.stderr.strip()}")
                merged = json.loads(r.stdout)
                added += merged["games_added"]
                there += merged["games_already_there"]
                conflicts += merged["conflicts"]
                if r.returncode == 1:
                    sys.stderr.write(r.stderr)
                path.unlink()
                done += 1
                levels_done += len(shards[index])
                bar.show(done, levels_done, added)
                if on_shard is not None:
                    on_shard(index, out["summary"])
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            bar.end()
    return RateResult(levels=len(files), shards=len(shards), games_added=added, games_already_there=there,
                      conflicts=conflicts, seconds=time.monotonic() - start_time, db=str(db))

