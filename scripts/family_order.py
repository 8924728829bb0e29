#!/usr/bin/env python3
"""How well `peggle estimate` and `peggle rate` order the families of known order
(Levels/families, docs/estimate-checks.md "Families of known order"): for each family, Spearman's rho
between the level's index (1 = easiest) and -ln sigma50, so +1 is the known order and -1 is
backwards. Ranks are average ranks (levels at the same value or bound tie); a family whose
sigma50s are all equal has no rho ("n/a"). Python 3 standard library only.

    python3 scripts/family_order.py --peggle .build/release/peggle                 # the estimate
    python3 scripts/family_order.py --peggle BIN --difficulty famreport/difficulty.csv   # and the rater
    python3 scripts/family_order.py --peggle BIN --model model.json     # another model than the built-in one

The rater's column reads sigma50 from a `peggle report` difficulty.csv by the level's content
hash (a database may also hold earlier versions of a family under the same names); a bound (`<`
or `>`) counts as its value and is marked in the per-level lines; a family with a level not in
the file has no rater's rho.
"""
import argparse
import csv
import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAMILIES = ROOT / "Levels" / "families"


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return None if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def fmt(rho):
    return "n/a" if rho is None else f"{rho:+.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peggle", required=True, help="the peggle binary")
    ap.add_argument("--difficulty", help="a `peggle report` difficulty.csv holding the families' ratings")
    ap.add_argument("--families", default=str(FAMILIES), help="the families' folder (default Levels/families)")
    ap.add_argument("--model", help="the estimate's model file (peggle estimate --model; default the built-in one)")
    args = ap.parse_args()

    rated = {}
    if args.difficulty:
        with open(args.difficulty, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["sigma50_rad"]:
                    rated[row["level_hash"]] = (row["sigma50_relation"], float(row["sigma50_rad"]))

    print("family | levels | estimate rho | rater rho | estimate sigma50 by level | rater sigma50 by level")
    for folder in sorted(p for p in pathlib.Path(args.families).iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.json"), key=lambda p: int(p.stem))
        model = ["--model", args.model] if args.model else []
        out = subprocess.run([args.peggle, "estimate", "--json", *model, *map(str, files)], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr)
        est = json.loads(out.stdout)
        index = list(range(1, len(files) + 1))
        e_rho = spearman(index, [-math.log(e["sigma50"]) for e in est])
        features = subprocess.run([args.peggle, "estimate", "--features", *map(str, files)], capture_output=True,
                                  text=True, check=True).stdout.splitlines()
        names = [row["level_hash"] for row in csv.DictReader(features)]   # in file order
        r_text, r_rho = "", ""
        if all(n in rated for n in names):
            r_rho = fmt(spearman(index, [-math.log(rated[n][1]) for n in names]))
            r_text = " ".join(("" if rated[n][0] == "=" else rated[n][0]) + f"{rated[n][1]:.4g}" for n in names)
        print(f"{folder.name} | {len(files)} | {fmt(e_rho)} | {r_rho} | "
              + " ".join(f"{e['sigma50']:.3g}" for e in est) + f" | {r_text}")


if __name__ == "__main__":
    main()
