"""The README example and the measurement script run."""
import json
import os
import subprocess
import sys

from conftest import PYTHON, ROOT


def test_the_example_plays_one_episode():
    out = subprocess.run([sys.executable, str(PYTHON / "example.py")], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert "First Steps: " in out and out.splitlines()[-1].split(":")[0] in ("won", "lost", "playing")


def test_the_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable, str(PYTHON / "bench_episodes.py"), "--episodes", "2", "--vector-episodes", "4",
                          "--num-envs", "2", "--max-shots", "3"], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    report = json.loads(out)
    assert report["single"]["episodes"] == 2 and report["single"]["steps_per_sec"] > 0
    assert report["vector"]["episodes"] >= 4 and report["vector"]["num_envs"] == 2
    assert report["vector"]["shots"] <= report["vector"]["steps"]


def test_the_rating_corpus_script_writes_both_distributions(tmp_path, peggle_bin):
    out = tmp_path / "corpus"
    env = {"PEGGLE_BIN": peggle_bin, "PATH": "/usr/bin:/bin"}
    r = subprocess.run([str(ROOT / "scripts" / "rating-corpus"), str(out), "3"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name.split("-")[0] + "-" + p.name.split("-")[1] for p in out.iterdir()) == [
        "easy-000001", "easy-000002", "easy-000003", "hard-000001", "hard-000002", "hard-000003"]
    assert r.stdout.splitlines()[-1] == f"next: {os.path.dirname(peggle_bin)}/peggle-bench rating {out} --threads 2"
    again = subprocess.run([str(ROOT / "scripts" / "rating-corpus"), str(out), "3"], capture_output=True, text=True,
                           timeout=120, env=env)
    assert again.returncode == 2 and again.stderr == f"error: {out} already exists; remove it or name another folder\n"


def test_the_prior_fit_writes_a_distribution_over_every_shape(tmp_path):
    # A tiny corpus: two levels of a greedy agent (one that always wins, one that wins below
    # sigma 0.01 only) and a random agent's games, which the fit must leave out.
    import sqlite3
    db = tmp_path / "c.sqlite"
    c = sqlite3.connect(db)
    c.executescript(
        "CREATE TABLE level (id INTEGER PRIMARY KEY, content_hash TEXT);"
        "CREATE TABLE agent (id INTEGER PRIMARY KEY, kind TEXT);"
        "CREATE TABLE episode (level_id INTEGER, agent_id INTEGER, sigma REAL, status TEXT, won INTEGER);"
        "INSERT INTO level VALUES (1, 'aaaa'), (2, 'bbbb'); INSERT INTO agent VALUES (1, 'greedy'), (2, 'random');")
    rows = [(1, 1, s, "won", 1) for s in (0.01, 0.1, 1.0) for _ in range(4)]
    rows += [(2, 1, s, "won" if s < 0.01 else "lost", int(s < 0.01)) for s in (0.001, 0.00316228, 0.01, 0.1) for _ in range(4)]
    rows += [(1, 2, 0.0, "lost", 0)] * 5
    c.executemany("INSERT INTO episode VALUES (?, ?, ?, ?, ?)", rows)
    c.commit()
    out = tmp_path / "Prior.swift"
    r = subprocess.run([str(ROOT / "scripts" / "fit-prior"), "--db", str(db), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 levels, 28 games of the skill agent" in r.stdout
    text = out.read_text()
    assert 'populationVersion = "population-1"' in text
    body = text.split("populationShapeWeights: [Double] = [")[1].split("]")[0]
    weights = [float(w) for w in body.replace("\n", " ").split(",") if w.strip()]
    assert len(weights) == 200
    assert abs(sum(weights) - 1) < 1e-5
    assert min(weights) > 0
