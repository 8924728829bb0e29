"""The native backend as a guest in someone's process (issue 47): how it is found and checked,
forks, threads, hostile input, memory; and its C interface as the header declares it."""
import copy
import ctypes
import gc
import multiprocessing
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleEnv, PeggleError, PeggleVectorEnv, native
from peggle_gym.backends import backend_for
from conftest import LEVEL, PYTHON, ROOT

HEADER = ROOT / "Sources" / "CPeggleEnv" / "include" / "peggle_env.h"


def library(peggle_bin) -> str:
    return native.find_library(peggle_bin)


# MARK: the interface as declared

def test_the_python_tables_are_the_headers():
    text = HEADER.read_text()

    def members(enum: str) -> list[str]:
        body = re.search(r"typedef enum " + enum + r" \{(.*?)\}", text, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        return [m.split("=")[0].strip() for m in body.split(",") if m.strip()]

    ints = members("peggle_info_int")
    assert ints[-1] == "PEGGLE_INFO_INTS"
    assert [n.removeprefix("PEGGLE_I_").lower() for n in ints[:-1]] == list(native.INFO_INTS)
    reals = members("peggle_info_real")
    assert [n.removeprefix("PEGGLE_R_").lower() for n in reals[:-1]] == list(native.INFO_REALS)
    statuses = members("peggle_status")
    assert statuses.index("PEGGLE_CLOSED") == native.PEGGLE_CLOSED
    assert statuses.index("PEGGLE_WRONG_PROCESS") == native.PEGGLE_WRONG_PROCESS
    assert f"#define PEGGLE_ABI_VERSION {native.ABI_VERSION}" in text
    fields = re.search(r"typedef struct peggle_buffers \{(.*?)\} peggle_buffers;", text, re.S).group(1)
    fields = re.sub(r"/\*.*?\*/", "", fields, flags=re.S)
    names = [re.search(r"(\w+);", line).group(1) for line in fields.split("\n") if ";" in line]
    assert names == [f for f, _ in native.Buffers._fields_]


def test_the_library_exports_the_headers_functions_and_nothing_else_of_peggle(peggle_bin):
    declared = set(re.findall(r"^\w[\w \*]*?\b(peggle_\w+)\(", HEADER.read_text(), re.M))
    out = subprocess.run(["nm", "-D", "--defined-only", library(peggle_bin)], capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.split()[-1].startswith("peggle_")}
    assert declared == exported and len(declared) == 14


def test_a_c_program_plays_through_the_header(tmp_path, peggle_bin):
    """What a C (or any foreign-function) caller does: make through a request line, bind its own
    buffers, reset and step; the same observation the Python backend gives."""
    lib = pathlib.Path(library(peggle_bin))
    source = tmp_path / "play.c"
    source.write_text(r'''
#include "peggle_env.h"
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    int32_t env = peggle_open(0);
    char line[600];
    snprintf(line, sizeof line, "{\"cmd\":\"make\",\"level\":\"%s\",\"max_objects\":40,\"num_envs\":2}", argv[1]);
    int64_t length, frame;
    if (peggle_request(env, line, (int64_t)strlen(line), &length, &frame) != PEGGLE_OK) return 2;
    static float obs[2 * 697], final_obs[2 * 697];
    double actions[2] = {0.25, -0.5}, real[2 * PEGGLE_INFO_REALS], final_real[2 * PEGGLE_INFO_REALS];
    uint8_t mask[2];
    int64_t info[2 * PEGGLE_INFO_INTS], final_info[2 * PEGGLE_INFO_INTS];
    peggle_buffers b = {2, 697, actions, mask, obs, final_obs, info, real, final_info, final_real};
    if (peggle_bind(env, &b) || peggle_reset(env, 9, -1, 0) || peggle_step(env)) return 3;
    printf("%lld %lld %.17g", (long long)info[PEGGLE_I_SCORE], (long long)info[PEGGLE_INFO_INTS + PEGGLE_I_SCORE], (double)obs[697]);
    for (int i = 0; i < 2 * 697; i++) printf(" %a", obs[i]);
    printf("\n");
    return peggle_close(env) == PEGGLE_OK && peggle_close(env) == PEGGLE_CLOSED ? 0 : 4;
}
''')
    exe = tmp_path / "play"
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc, "no C compiler"
    subprocess.run([cc, "-O1", f"-I{HEADER.parent}", str(source), str(lib), f"-Wl,-rpath,{lib.parent}", "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe), LEVEL], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    words = out.stdout.split()
    env = PeggleVectorEnv(num_envs=2, level=LEVEL, max_objects=40, backend="native")
    try:
        env.reset(seed=9)
        obs, _, _, _, infos = env.step(np.array([[0.25], [-0.5]], np.float32))
    finally:
        env.close()
    assert [int(words[0]), int(words[1])] == infos["score"].tolist()
    assert [float.fromhex(w) for w in words[3:]] == obs.reshape(-1).astype(np.float64).tolist()


# MARK: finding and checking the library

def test_the_default_backend_is_native_where_the_library_is_and_serve_elsewhere(tmp_path, peggle_bin, monkeypatch):
    monkeypatch.delenv("PEGGLE_BACKEND", raising=False)
    assert backend_for(None, peggle_bin) == "native"
    lonely = tmp_path / "peggle"
    shutil.copy(peggle_bin, lonely)  # an engine with no library beside it
    assert backend_for(None, lonely) == "serve"
    env = PeggleEnv(level=LEVEL, peggle_path=lonely)
    try:
        assert env.backend == "serve"
    finally:
        env.close()
    with pytest.raises(FileNotFoundError) as e:
        PeggleEnv(level=LEVEL, peggle_path=lonely, backend="native")
    assert str(e.value) == (f"no native library libpeggle_env.so beside the engine {lonely} (build it with `swift build "
                            "-c release`, which makes both, or use backend='serve')")
    monkeypatch.setenv("PEGGLE_BACKEND", "serve")
    assert backend_for(None, peggle_bin) == "serve" and backend_for("native", peggle_bin) == "native"
    monkeypatch.setenv("PEGGLE_BACKEND", "pipe")
    with pytest.raises(ValueError, match=r"^\$PEGGLE_BACKEND is 'pipe'; it must be 'native' or 'serve'$"):
        PeggleEnv(level=LEVEL)
    with pytest.raises(ValueError, match="^backend is 'fast'; it must be 'native' or 'serve'$"):
        gym.make(peggle_gym.ENV_ID_V1, backend="fast")


def test_a_library_of_another_release_or_no_library_is_refused(tmp_path, peggle_bin, monkeypatch):
    not_a_library = tmp_path / "libpeggle_env.so"
    not_a_library.write_text("hello")
    with pytest.raises(PeggleError) as e:
        native.load(str(not_a_library))
    assert e.value.code == "protocol" and e.value.message.startswith(f"{not_a_library} cannot be loaded: ")
    monkeypatch.setattr(native, "_LIBRARIES", {})
    monkeypatch.setattr(native, "VERSION", "9.9.9")
    with pytest.raises(PeggleError) as e:
        native.load(library(peggle_bin))
    assert e.value.message == (f"{library(peggle_bin)} is peggle-gym {peggle_gym.VERSION} with ABI 1, but this peggle_gym "
                               "is 9.9.9 and needs peggle-gym 9.9.9 with ABI 1: use the engine of the same release "
                               "(swift build -c release in the same checkout, or reinstall the wheel)")


# MARK: a guest in the process

pytestmark = pytest.mark.backends("native")


def test_observations_handed_out_never_change(peggle_bin):
    env = PeggleVectorEnv(num_envs=2, level=LEVEL, max_shots=8)
    single = PeggleEnv(level=LEVEL, max_shots=8)
    try:
        kept = [env.reset(seed=0)[0]]
        first = single.reset(seed=0)[0]
        kept_single = [first, first.copy()]
        for a in (0.1, -0.3, 0.6, 0.2):
            obs, _, _, _, infos = env.step(np.full((2, 1), a, np.float32))
            kept.append(obs)
            single.step(np.array([a], np.float32))
        assert not np.array_equal(kept[0], kept[-1])
        assert all(k.flags.owndata or k.base is not None for k in kept)
        again = PeggleVectorEnv(num_envs=2, level=LEVEL, max_shots=8)
        try:
            replayed = [again.reset(seed=0)[0]] + [again.step(np.full((2, 1), a, np.float32))[0] for a in (0.1, -0.3, 0.6, 0.2)]
        finally:
            again.close()
        assert all(np.array_equal(a, b) for a, b in zip(kept, replayed))
        assert np.array_equal(kept_single[0], kept_single[1])
    finally:
        env.close()
        single.close()


def test_the_engine_steps_without_the_gil(peggle_bin):
    """While one thread is inside a long step, another runs Python: the main thread sleeps, then
    counts, and the stepping thread has not returned yet. With the GIL held through the step the
    main thread could not wake before the step ended."""
    env = PeggleVectorEnv(num_envs=2048, level=str(ROOT / "Levels" / "spiral.json"), max_objects=200, threads=1)
    try:
        env.reset(seed=0)
        actions = np.random.default_rng(0).uniform(-1, 1, (2048, 1)).astype(np.float32)
        inside, done = threading.Event(), threading.Event()

        def step():
            inside.set()
            env.step(actions)
            done.set()
        t = threading.Thread(target=step)
        t.start()
        inside.wait()
        time.sleep(0.005)
        counted = sum(range(10_000))
        still_stepping = not done.is_set()
        t.join()
        assert counted == 49_995_000 and still_stepping
    finally:
        env.close()


def test_a_closed_env_in_another_thread_raises_and_the_interpreter_lives(peggle_bin):
    env = PeggleVectorEnv(num_envs=64, level=LEVEL, threads=2)
    env.reset(seed=0)
    errors: list = []

    def stepping():
        rng = np.random.default_rng(1)
        try:
            while True:
                env.step(rng.uniform(-1, 1, (64, 1)).astype(np.float32))
        except PeggleError as e:
            errors.append((e.code, e.message))
    t = threading.Thread(target=stepping)
    t.start()
    time.sleep(0.05)
    env.close()
    t.join(timeout=30)
    assert not t.is_alive()
    assert errors and errors[0][0] == "closed"


def test_use_after_close_double_close_and_garbage_collection(peggle_bin):
    env = PeggleEnv(level=LEVEL)
    env.reset(seed=0)
    lib, handle = env.client.lib, env.client.handle
    env.close()
    env.close()
    with pytest.raises(PeggleError) as e:
        env.step(np.zeros(1, np.float32))
    assert (e.value.code, e.value.message) == ("closed", f"no open environment has handle {handle} (it was closed, or never opened)")
    with pytest.raises(PeggleError) as e:
        env.reset()
    assert (e.value.code, e.value.message) == ("closed", f"no open environment has handle {handle} (it was closed, or never opened)")
    with pytest.raises(PeggleError, match="^closed: the client is closed$"):
        env.render_svg()
    other = PeggleVectorEnv(num_envs=2, level=LEVEL)
    other.reset(seed=0)
    handle = other.client.handle
    del other
    gc.collect()
    assert lib.peggle_close(handle) == native.PEGGLE_CLOSED  # the finalizer closed it


@pytest.mark.parametrize("bad", [np.array(["0.3"]), np.array([[0.1, 0.2]]), np.array([np.nan]), "0.2", None, [0.1, 0.2],
                                 np.array([1e300]), np.array([True])], ids=repr)
def test_hostile_actions_raise_as_serve_does(bad, peggle_bin):
    results = []
    for backend in ("native", "serve"):
        env = PeggleEnv(level=LEVEL, backend=backend)
        try:
            env.reset(seed=0)
            with pytest.raises(PeggleError) as e:
                env.step(bad)
            results.append((e.value.code, e.value.message))
            assert env.step(np.array([0.1], np.float32))[4]["shots"] == 1  # a refused step changed nothing
        finally:
            env.close()
    assert results[0] == results[1]


def hostile_lines() -> list[str]:
    """Request lines to throw at both backends: the serve transcript's requests cut, spliced and
    bit-flipped (seeded), and lines picked for what they stress."""
    rng = np.random.default_rng(47)
    base = [line for line in (ROOT / "Tests" / "Fixtures" / "serve" / "transcript.requests.jsonl").read_text().splitlines() if line]
    base = [line.replace("Levels/", str(ROOT / "Levels") + "/") for line in base]
    lines = ['{"cmd":"make","levels":' + "[" * 20_000 + "]" * 20_000 + "}", '{"cmd":"step","actions":[' + "1e400," * 3 + "0]}",
             '{"cmd":"reset","seed":99999999999999999999999}', '{"cmd":"make","num_envs":4096,"max_objects":10000,"num_levels":1}',
             '{"cmd":"render","format":"rgb","width":4096}', '{"cmd":"\u0000"}', '{"cmd":"step","actions":' + '"x"' * 3 + "}",
             '{"cmd":"make","level":"' + "a" * 100_000 + '"}', '{"cmd":"restore","snapshot":-1}', "[]", "", "null",
             '{"cmd":"make","mode":{"type":"dodge","shots":1e400}}', '{"cmd":"step","actions":[0.1]', "{" * 100_000]
    for k in range(300):
        if k % 4 == 0:  # the transcript's own lines between, so later lines meet made environments
            lines.append(base[(k // 4) % len(base)])
            continue
        line = bytearray(base[rng.integers(len(base))].encode())
        for _ in range(rng.integers(1, 4)):
            kind = rng.integers(3)
            if kind == 0 and line:
                line[rng.integers(len(line))] = int(rng.integers(32, 127))
            elif kind == 1 and line:
                del line[rng.integers(len(line)):]
            else:
                other = base[rng.integers(len(base))].encode()
                at = int(rng.integers(len(line) + 1))
                line[at:at] = other[rng.integers(len(other)):]
        lines.append(line.decode("utf-8", errors="replace"))
    return lines


def test_hostile_request_lines_get_the_servers_replies(peggle_bin):
    """The same lines, as they are, through both backends: each reply line (an answer, or a
    refusal with its code and message) is the same text, and the process lives through them."""
    from peggle_gym.backends import open_client
    # Not `close`: it ends a server (and means nothing to a library session, whose handle closes).
    lines = [line.replace("\n", " ") for line in hostile_lines() if line.strip() and "close" not in line]
    replies = {}
    for backend in ("native", "serve"):
        client = open_client(backend, peggle_bin)
        try:
            replies[backend] = [raw_request(client, line) for line in lines]
        finally:
            client.close()
    assert replies["native"] == replies["serve"]
    refused = [r for r in replies["native"] if '"ok":false' in r]
    assert len(refused) > 100 and len(refused) < len(lines)


def raw_request(client, line: str) -> str:
    """The reply line to ``line`` sent as it is (the clients themselves send only objects)."""
    if client.backend == "native":
        data = line.encode()
        n, f = ctypes.c_int64(), ctypes.c_int64()
        client.lib.peggle_request(client.handle, data, len(data), ctypes.byref(n), ctypes.byref(f))
        text = ctypes.create_string_buffer(max(1, n.value))
        client.lib.peggle_reply(client.handle, text, None)
        return text.raw[:n.value].decode()
    import select
    from peggle_gym.pipe import _ready
    with client._lock:
        view = memoryview(line.encode() + b"\n")
        while view:  # the pipe takes a long line in parts
            try:
                view = view[os.write(client._in, view):]
            except BlockingIOError:
                _ready(client._in, select.POLLOUT, None)
        reply = client._read_line().decode()
        frame = __import__("json").loads(reply).get("frame_bytes")
        if frame:
            client._read_exact(frame)
    return reply


def test_a_thousand_makes_and_closes_keep_memory_flat(peggle_bin):
    def rss_mb() -> float:
        return int(pathlib.Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    def cycle():
        env = PeggleVectorEnv(num_envs=4, level=LEVEL, max_shots=2)
        env.reset(seed=0)
        env.step(np.zeros((4, 1), np.float32))
        env.close()
    for _ in range(100):
        cycle()
    gc.collect()
    before = rss_mb()
    for _ in range(1000):
        cycle()
    gc.collect()
    assert rss_mb() - before < 8.0


def test_the_memory_budget_holds(peggle_bin):
    with pytest.raises(PeggleError) as e:
        PeggleVectorEnv(num_envs=4096, level=LEVEL, max_objects=10_000)
    assert e.value.code == "memory_budget"
    assert e.value.message.startswith("make: 4096 environments of 170017 observation floats would hold about ")


# MARK: forks

def _forked(body, timeout: float = 60.0) -> int:
    """Runs ``body()`` in a forked child; its exit code (the child is killed, and the test fails,
    if it has not exited within ``timeout`` seconds: a fork must never hang)."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            code = body()
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def test_a_forked_child_makes_its_own_envs_and_steps_them_on_every_thread(peggle_bin):
    parent = PeggleVectorEnv(num_envs=8, level=LEVEL, threads=2)
    try:
        parent.reset(seed=2)
        expected = parent.step(np.full((8, 1), 0.3, np.float32))[4]["score"].tolist()
        parent.reset(seed=2)

        def child() -> int:
            try:
                parent.step(np.zeros((8, 1), np.float32))
                return 1
            except PeggleError as e:
                if e.code != "wrong_process":
                    return 2
            env = PeggleVectorEnv(num_envs=8, level=LEVEL, threads=2)
            env.reset(seed=2)
            got = env.step(np.full((8, 1), 0.3, np.float32))[4]["score"].tolist()
            env.close()
            parent.close()  # the parent's handle: refused in the child, and left to the parent
            return 0 if got == expected else 3
        assert _forked(child) == 0
        assert parent.step(np.full((8, 1), 0.3, np.float32))[4]["score"].tolist() == expected
    finally:
        parent.close()


def _pool_scores(seed: int) -> list:
    env = PeggleVectorEnv(num_envs=4, level=LEVEL, threads=2)
    try:
        env.reset(seed=seed)
        return env.step(np.full((4, 1), -0.2, np.float32))[4]["score"].tolist()
    finally:
        env.close()


def test_multiprocessing_fork_workers_play_as_the_parent_does(peggle_bin):
    here = _pool_scores(5)  # the parent has used the library (and its threads) before forking
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(_pool_scores, [5, 5, 6]) == [here, here, _pool_scores(6)]


def test_sb3_subproc_vec_env_with_fork(peggle_bin):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv
    made = PeggleEnv(level=LEVEL)  # one in the parent first
    made.reset(seed=0)
    venv = SubprocVecEnv([lambda: PeggleEnv(level=LEVEL, max_shots=3)] * 2, start_method="fork")
    try:
        venv.seed(4)
        venv.reset()
        _, rewards, dones, infos = venv.step(np.zeros((2, 1), np.float32))
        assert len(infos) == 2 and all(i["shots"] == 1 for i in infos)
    finally:
        venv.close()
        made.close()


def test_deepcopy_copies_the_engine_state_in_the_library(peggle_bin, monkeypatch):
    env = gym.make(peggle_gym.ENV_ID_V1, level="first-steps", max_shots=1_000_000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for a in rng.uniform(-1, 1, (300, 1)).astype(np.float32):
        if any(env.step(a)[2:4]):
            env.reset()
    sent = []
    monkeypatch.setattr(native.NativeClient, "request", lambda self, cmd, **f: sent.append(cmd))
    clone = copy.deepcopy(env)
    monkeypatch.undo()
    try:
        assert sent == []  # no request (no save_state, no step): the library copied the state
        for a in rng.uniform(-1, 1, (20, 1)).astype(np.float32):
            a1, a2 = env.step(a), clone.step(a)
            assert a1[4] == a2[4] and np.array_equal(a1[0], a2[0])
            if a1[2] or a1[3]:
                env.reset(), clone.reset()
    finally:
        clone.close()
        env.close()
