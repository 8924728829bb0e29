#!/usr/bin/env python3
"""Scores `peggle estimate` against ratings of levels it was not fitted on: the held-out checks of
docs/estimate-checks.md (issue 35's bar: Spearman's rho, the share inside the 95% interval, every level
outside flagged as out of distribution, and for generated levels no distribution or template
with more than 10% outside). Python 3 standard library only.

    python3 scripts/score_estimate.py --peggle .build/release/peggle --difficulty Levels/handmade/difficulty.csv Levels/handmade/*.json
    python3 scripts/score_estimate.py --peggle BIN --difficulty heldout-report/difficulty.csv --model model.json $HELDOUT/*.json

The ratings are a `peggle report` difficulty.csv, matched to the level files by content hash
(levels it does not rate are left out and counted). A rated bound counts as the range's end
(`<` as 0.001, `>` as 1), as every held-out table and HeldOutEstimateTests count them. Spearman's
rho uses average ranks. Generated levels (files named `easy-000123-waves.json`, as `peggle level
generate` writes them) are also scored per distribution and per template.
"""
import argparse
import collections
import csv
import json
import math
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from family_order import spearman  # noqa: E402  (average ranks)

LOWEST, HIGHEST = 0.001, 1.0
GENERATED = re.compile(r"(easy|hard)-\d+-([a-z]+)\.json$")


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def ratings(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"--difficulty {path}: {e.strerror}")
    rated = {}
    for n, row in enumerate(rows, start=2):
        relation, value = row.get("sigma50_relation"), row.get("sigma50_rad")
        if relation is None or value is None or "level_hash" not in row:
            fail(f"--difficulty {path}: not a peggle report difficulty.csv (no level_hash, sigma50_relation, sigma50_rad)")
        if not value:
            continue
        if relation not in ("=", "<", ">"):
            fail(f"--difficulty {path}: line {n}: sigma50_relation {relation!r} is not =, < or >")
        rated[row["level_hash"]] = float(value) if relation == "=" else (LOWEST if relation == "<" else HIGHEST)
    return rated


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peggle", required=True, help="the peggle binary")
    ap.add_argument("--difficulty", required=True, help="a `peggle report` difficulty.csv rating the levels")
    ap.add_argument("--model", help="the estimate's model file (peggle estimate --model; default the built-in one)")
    ap.add_argument("levels", nargs="+", help="level files")
    a = ap.parse_args()
    rated = ratings(a.difficulty)
    model = ["--model", a.model] if a.model else []

    def run(*args):
        out = subprocess.run([a.peggle, "estimate", *args], capture_output=True, text=True)
        if out.returncode != 0:
            fail(out.stderr.strip())
        return out.stdout

    hashes = {r["file"]: r["level_hash"] for r in csv.DictReader(run("--features", *a.levels).splitlines())}
    rows = [(e, rated[hashes[e["file"]]]) for e in json.loads(run("--json", *model, *a.levels)) if hashes[e["file"]] in rated]
    if len(rows) < 2:
        fail(f"--difficulty {a.difficulty}: rates {len(rows)} of the {len(a.levels)} levels; need 2")

    def score(group):
        rho = spearman([math.log(r) for _, r in group], [math.log(e["sigma50"]) for e, _ in group])
        outside = [(e, r) for e, r in group if not e["sigma50_low"] <= r <= e["sigma50_high"]]
        flagged = sum(e["out_of_distribution"] for e, _ in group)
        return rho, outside, flagged

    rho, outside, flagged = score(rows)
    print(f"{len(rows)} levels rated (of {len(a.levels)} given): Spearman {'n/a' if rho is None else f'{rho:.3f}'}, "
          f"inside the 95% interval {len(rows) - len(outside)} of {len(rows)} ({100 * (len(rows) - len(outside)) / len(rows):.0f}%), "
          f"flagged {flagged}, outside and flagged {sum(e['out_of_distribution'] for e, _ in outside)} of {len(outside)}")
    groups = collections.defaultdict(list)
    for e, r in rows:
        m = GENERATED.search(e["file"])
        if m:
            groups[m.group(1)].append((e, r))
            groups[m.group(2)].append((e, r))
    for name in sorted(groups, key=lambda g: (g not in ("easy", "hard"), g)):
        g = groups[name]
        g_rho, g_out, _ = score(g)
        print(f"  {name}: {len(g)} levels, Spearman {'n/a' if g_rho is None else f'{g_rho:.3f}'}, "
              f"outside {len(g_out)} ({100 * len(g_out) / len(g):.0f}%)")
    for e, r in outside:
        print(f"  outside: {e['file']} ({e['level']}) rated {r:.4g}, estimated {e['sigma50']:.4g} "
              f"({e['sigma50_low']:.4g} to {e['sigma50_high']:.4g}){', flagged' if e['out_of_distribution'] else ''}")


if __name__ == "__main__":
    main()
