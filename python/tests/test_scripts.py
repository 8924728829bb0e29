"""The README example and the measurement script run."""
import json
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
    assert r.stdout.splitlines()[-1] == f"next: {peggle_bin} bench rating {out} --threads 2"
    again = subprocess.run([str(ROOT / "scripts" / "rating-corpus"), str(out), "3"], capture_output=True, text=True,
                           timeout=120, env=env)
    assert again.returncode == 2 and again.stderr == f"error: {out} already exists; remove it or name another folder\n"
