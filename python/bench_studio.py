"""Peggle Studio's speed, as a user meets it (docs/performance.md, "Studio").

1. Cold start: a new `peggle studio` process each round; the time from starting it to the page
   being ready in the browser (Debian's chromium through Selenium, already running): the server's
   start, the page, its script and style, and the page's first API calls (config, new level, level
   list), until the page marks itself ready.
2. A shot's reply: POST /api/play for every bundled level, the first shot at 21 angles across
   the aim range, and the tenth shot of a game (the server replays the nine before it), timed
   from the request to the whole reply read, over HTTP on this machine.
3. The live estimate after an edit: for every bundled level, 20 accepted edits (a peg moved 2
   board units right, then back) each followed by POST /api/estimate of the edited level, as the
   page does; timed from sending the edit to the estimate's reply read (the designer's wait).

4. A designer's library (`--library FOLDER`, e.g. 10,000 levels from `peggle level generate`):
   from starting the studio to its first list reply and to the index complete (and the studio's
   CPU time then, the build's cost on a shared machine); then, median of
   `--rounds` x 5 requests each, the first page of the list (200 levels), a text filter, a sort by
   name (descending) and a mode filter; one file rewritten outside the studio (a new name) until
   the list shows it; the server's resident memory at the end. The folder is copied first, so the
   rewrite touches only the copy.

Usage: python python/bench_studio.py [--peggle .build/release/peggle] [--rounds 5] [--only estimate] [--json]
       python python/bench_studio.py --only library --library /tmp/lib10k
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]


def start(peggle, folder):
    t0 = time.perf_counter()
    proc = subprocess.Popen([peggle, "studio", "--levels", str(folder), "--port", "0"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().split()[2]
    return proc, url, t0


def stop(proc):
    proc.terminate()
    proc.wait(timeout=10)
    proc.stdout.close()


def post(url, body):
    data = json.dumps(body).encode()
    t0 = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})) as r:
        reply = r.read()
    return time.perf_counter() - t0, json.loads(reply)


def cold_starts(peggle, rounds, folder):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    out = []
    try:
        driver.get("about:blank")
        for _ in range(rounds):
            proc, url, t0 = start(peggle, folder)
            try:
                server = time.perf_counter() - t0
                driver.get(url)  # returns after the load event; the page is ready after its API calls
                while driver.execute_script("return document.body.dataset.ready") != "1":
                    time.sleep(0.002)
                total = time.perf_counter() - t0
                in_page = driver.execute_script("return performance.now()") / 1000
                out.append({"server_s": server, "total_s": total, "navigation_to_ready_s": in_page})
            finally:
                stop(proc)
    finally:
        driver.quit()
    return out


def shots(peggle, folder):
    proc, url, _ = start(peggle, folder)
    rows = []
    try:
        angles = [-1.2 + 2.4 * k / 20 for k in range(21)]
        for path in sorted((ROOT / "Levels").glob("*.json")):
            if path.name == "bench-grid.json":
                continue
            level = path.read_text()
            first = [post(url + "api/play", {"level": level, "angles": [a]})[0] for a in angles]
            # The tenth shot: nine shots replayed first (fewer if the game ends sooner).
            played, times = [], []
            for a in angles[:10]:
                t, reply = post(url + "api/play", {"level": level, "angles": played + [a]})
                played.append(a)
                times.append(t)
                if reply["state"]["status"] != "playing":
                    break
            rows.append({"level": path.stem, "first_median_ms": statistics.median(first) * 1000,
                         "first_max_ms": max(first) * 1000, "last_shot": len(played), "last_ms": times[-1] * 1000})
    finally:
        stop(proc)
    return rows


def movable_peg(url, level):
    """A peg of `level` that can move 2 units right (the first one the editor accepts), with the move."""
    for peg in json.loads(level)["pegs"]:
        op = {"type": "move", "id": peg["id"], "x": peg["x"] + 2, "y": peg["y"]}
        try:
            post(url + "api/edit", {"level": level, "op": op})
            return peg, op
        except urllib.error.HTTPError:
            continue
    raise SystemExit("no peg of the level can move")


def estimates(peggle, folder, edits=20):
    proc, url, _ = start(peggle, folder)
    rows = []
    try:
        for path in sorted((ROOT / "Levels").glob("*.json")):
            if path.name == "bench-grid.json":
                continue
            level = path.read_text()
            peg, there = movable_peg(url, level)
            back = dict(there, x=peg["x"])
            times, tiers = [], set()
            for k in range(edits):
                t0 = time.perf_counter()
                _, edited = post(url + "api/edit", {"level": level, "op": there if k % 2 == 0 else back})
                _, estimate = post(url + "api/estimate", {"level": edited["level"]})
                times.append(time.perf_counter() - t0)
                level = edited["level"]
                tiers.add(estimate["tier"])
            rows.append({"level": path.stem, "median_ms": statistics.median(times) * 1000, "max_ms": max(times) * 1000,
                         "tiers": sorted(tiers)})
    finally:
        stop(proc)
    return rows


def get(url):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        reply = r.read()
    return time.perf_counter() - t0, json.loads(reply)


def library(peggle, source, rounds):
    """Part 4 on a copy of `source` (see the docstring); times in ms."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp) / "lib"
        shutil.copytree(source, folder)
        files = sorted(folder.glob("*.json"))
        proc, url, t0 = start(peggle, folder)
        try:
            first_reply = None
            while True:
                _, page = get(url + "api/levels?limit=1")
                first_reply = first_reply or time.perf_counter() - t0
                if page["complete"]:
                    break
                time.sleep(0.01)
            built = time.perf_counter() - t0
            # The studio's CPU time so far: the build's cost whatever else shares the machine.
            stat = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
            built_cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
            queries = {"first page": "api/levels", "filter": "api/levels?q=arcs%2012",
                       "sort by name, descending": "api/levels?sort=name&order=desc",
                       "mode filter": "api/levels?mode=dodge"}
            times = {name: [] for name in queries}
            for _ in range(rounds):
                for name, path in queries.items():
                    for _ in range(5):
                        times[name].append(get(url + path)[0])
            # One level rewritten in place, outside the studio, with a name no other level has.
            target = files[len(files) // 2]
            level = json.loads(target.read_text())
            level["name"] = "Edited Outside"
            target.write_text(json.dumps(level))
            t_edit = time.perf_counter()
            while get(url + "api/levels?q=edited%20outside")[1]["matched"] != 1:
                pass
            edited = time.perf_counter() - t_edit
            rss = next(int(line.split()[1]) for line in open(f"/proc/{proc.pid}/status") if line.startswith("VmRSS"))
            count = page["total"]
        finally:
            stop(proc)
    return {"levels": count, "first_reply_s": first_reply, "index_complete_s": built, "index_cpu_s": built_cpu,
            "median_ms": {name: statistics.median(t) * 1000 for name, t in times.items()},
            "edited_file_shown_ms": edited * 1000, "rss_mb": rss / 1024}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peggle", default=str(ROOT / ".build" / "release" / "peggle"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=["cold-start", "shots", "estimate", "library"])
    ap.add_argument("--library", help="a folder of levels for part 4 (run only with it)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    parts = {"cold_start": lambda f: cold_starts(args.peggle, args.rounds, f), "shots": lambda f: shots(args.peggle, f),
             "estimate": lambda f: estimates(args.peggle, f)}
    if args.library:
        parts["library"] = lambda f: library(args.peggle, args.library, args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp) / "levels"
        shutil.copytree(ROOT / "Levels", folder)
        result = {name: run(folder) for name, run in parts.items() if args.only in (None, name.replace("_", "-"))}
    if args.json:
        print(json.dumps(result))
        return
    if "library" in result:
        r = result["library"]
        print("library of %d levels: first list reply %.2f s after start, index complete %.2f s (%.1f s of CPU); %s; an edited "
              "file shown in %.1f ms; %.0f MB resident" % (r["levels"], r["first_reply_s"], r["index_complete_s"], r["index_cpu_s"], ", ".join(
                  "%s %.1f ms" % kv for kv in r["median_ms"].items()), r["edited_file_shown_ms"], r["rss_mb"]))
    if "estimate" in result:
        rows = result["estimate"]
        print("edit -> estimate round trip, ms (20 edits per level): median %.1f to %.1f per level, slowest %.1f" % (
            min(r["median_ms"] for r in rows), max(r["median_ms"] for r in rows), max(r["max_ms"] for r in rows)))
        for r in rows:
            print("%-14s %8.1f ms median %8.1f ms max  %s" % (r["level"], r["median_ms"], r["max_ms"], ", ".join(r["tiers"])))
    if "cold_start" in result:
        cs = result["cold_start"]
        print("cold start to page ready, s (median of %d): server %.3f, total %.3f (navigation to ready %.3f); slowest total %.3f" % (
            len(cs), statistics.median(r["server_s"] for r in cs), statistics.median(r["total_s"] for r in cs),
            statistics.median(r["navigation_to_ready_s"] for r in cs), max(r["total_s"] for r in cs)))
    if "shots" not in result:
        return
    print("%-14s %12s %10s %10s %8s" % ("level", "first median", "first max", "last shot", "its ms"))
    for r in result["shots"]:
        print("%-14s %9.1f ms %7.1f ms %10d %8.1f" % (r["level"], r["first_median_ms"], r["first_max_ms"], r["last_shot"], r["last_ms"]))


if __name__ == "__main__":
    main()
