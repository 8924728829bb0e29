"""python -m peggle_gym.ray rate LEVELS... --db FILE [--address auto] [driver options] [peggle rate options]

The driver's own options come first in the help; the others are `peggle rate`'s, passed to it
unchanged (their defaults and checks are its own), so a command line moves between the two by
changing its first words. Exit codes: 0 done, 1 conflicting games reported by a merge, 2 bad input,
3 a shard failed (the shards merged before it are kept; run again to resume), 130 interrupted.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from ..engines import find_peggle
from . import DEFAULT_LEVELS_PER_SHARD, rate
from ._rating import _DRIVER_OWNED


def rate_options(peggle: str) -> list[dict]:
    """`peggle rate`'s options that a distributed rating passes on, as the binary describes them
    (swift-argument-parser's ``--experimental-dump-help``): each shown option that takes a value,
    but those the driver owns (``--db``, ``--threads``); flags (``--dry-run``) are not passed."""
    r = subprocess.run([peggle, "rate", "--experimental-dump-help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise ValueError(f"{peggle} rate --experimental-dump-help failed: {r.stderr.strip()}")
    options = []
    for a in json.loads(r.stdout)["command"]["arguments"]:
        name = "--" + a["preferredName"]["name"] if a.get("preferredName") else None
        if a["kind"] == "option" and a.get("shouldDisplay", True) and name not in _DRIVER_OWNED:
            options.append({"name": name, "metavar": a.get("valueName", name[2:]).upper().replace("-", "_"),
                            "help": a.get("abstract", "")})
    return options


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] != "rate":
        print("usage: python -m peggle_gym.ray rate LEVELS... --db FILE [options]  (rate --help for the options)",
              file=sys.stderr)
        return 2
    r = parser = argparse.ArgumentParser(
        prog="python -m peggle_gym.ray rate",
        description="peggle rate, sharded over Ray workers and merged into one database as the shards finish.")
    r.add_argument("levels", nargs="+", help="level files, or folders whose *.json files are levels")
    r.add_argument("--db", default="peggle.sqlite", help="the database to merge every shard into (default: peggle.sqlite)")
    r.add_argument("--address", default=None,
                   help="the Ray cluster: 'auto' (the one `ray start` began on this machine) or host:port; "
                        "default: a local Ray instance for this run")
    r.add_argument("--levels-per-shard", type=int, default=DEFAULT_LEVELS_PER_SHARD,
                   help=f"levels per Ray task (default: {DEFAULT_LEVELS_PER_SHARD})")
    r.add_argument("--cpus-per-task", type=int, default=1, help="CPUs (and peggle rate threads) per task (default: 1)")
    r.add_argument("--max-retries", type=int, default=3, help="retries of a task whose worker died (default: 3)")
    r.add_argument("--peggle", default=None, help="the peggle binary on every node (default: $PEGGLE_BIN or PATH there)")
    r.add_argument("--quiet", action="store_true", help="no progress line")
    # The binary is asked for its options (and refused, if missing) before the command line is read.
    given = argparse.ArgumentParser(add_help=False)
    given.add_argument("--peggle", default=None)
    try:
        passing = rate_options(find_peggle(given.parse_known_args(argv[1:])[0].peggle))
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    passed = r.add_argument_group("peggle rate's options (passed on unchanged: its defaults and its checks)")
    for o in passing:
        passed.add_argument(o["name"], default=None, metavar=o["metavar"], help=o["help"].replace("%", "%%"))
    args = parser.parse_intermixed_args(argv[1:])
    options = []
    for o in passing:
        value = getattr(args, o["name"][2:].replace("-", "_"))
        if value is not None:
            options += [o["name"], value]
    try:
        result = rate(args.levels, args.db, options, address=args.address, levels_per_shard=args.levels_per_shard,
                      cpus_per_task=args.cpus_per_task, max_retries=args.max_retries, peggle_path=args.peggle,
                      progress=not args.quiet)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; every merged shard is kept: run the same command again to resume", file=sys.stderr)
        return 130
    except RuntimeError as e:
        print(f"error: {e}\nthe shards merged before it are kept: run the same command again to resume", file=sys.stderr)
        return 3
    print(f"rated {result.levels} levels in {result.shards} shards: {result.games_added} games added, "
          f"{result.games_already_there} already there, in {result.seconds:.1f} s; database {result.db}")
    if result.conflicts:
        print(f"{result.conflicts} conflicting games (kept as they were in {result.db})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
