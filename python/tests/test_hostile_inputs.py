"""Hostile inputs to the Python client (issue 33): arguments that used to be rounded or checked too
late, and a server that stops answering. Each ends in its own exact error; a refused argument is
refused before a server is started."""
import copy
import json
import os
import signal
import sys
import time

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleClient, PeggleEnv, PeggleError, PeggleServerDied, PeggleTimeout, PeggleVectorEnv
from peggle_gym.client import RGB_WIDTHS
from conftest import LEVEL, process_gone

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

#: Seconds a timeout may overrun on a busy machine (killing and reaping the server included).
MARGIN = 5.0


@pytest.fixture
def no_server(monkeypatch):
    """Fails the test if a `PeggleClient` is constructed: a refusal must come before any server."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("a server was started")
    monkeypatch.setattr(PeggleClient, "__init__", refuse)


def fake_server(tmp_path, body: str) -> str:
    """A stand-in `peggle` binary: a Python script that runs ``body`` (after a hello line has been
    written by ``hello()``)."""
    fake = tmp_path / "peggle"
    fake.write_text(f"#!{sys.executable}\nimport os, sys, time\n"
                    f"HELLO = b'{{\"hello\":\"peggle serve\",\"protocol\":1,\"engine\":\"peggle-gym {peggle_gym.VERSION}\"}}\\n'\n"
                    f"{body}\n")
    fake.chmod(0o755)
    return str(fake)


# MARK: num_envs

NOT_INTEGERS = [2.5, 4.0, "4", True, False, np.float64(2.0), [2], None]


@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_a_non_integer_num_envs_is_refused_not_rounded(bad, no_server):
    message = f"num_envs must be a positive integer, got {bad!r}"
    with pytest.raises(TypeError) as e:
        PeggleVectorEnv(bad, level=LEVEL)
    assert str(e.value) == message
    with pytest.raises(TypeError) as e:
        PeggleVectorEnv(num_envs=bad, level=LEVEL)
    assert str(e.value) == message
    # gym.make_vec takes the registered vector entry point, PeggleVectorEnv.
    with pytest.raises(TypeError) as e:
        gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=bad, level=LEVEL)
    assert str(e.value) == message


def test_numpy_integers_are_integers(make_vec):
    vec = make_vec(num_envs=np.int64(3))
    assert vec.num_envs == 3 and type(vec.num_envs) is int
    assert vec.reset(seed=0)[0].shape[0] == 3
    assert make_vec(num_envs=np.uint8(2)).num_envs == 2


@pytest.mark.parametrize("count", [0, -1, 4097])
def test_a_num_envs_out_of_range_gets_the_servers_range(count, make_vec):
    with pytest.raises(PeggleError) as e:
        make_vec(num_envs=count)
    assert (e.value.code, e.value.message) == ("bad_request", f'"num_envs" is {count}; it must be in 1...4096')


# MARK: render_width

@pytest.mark.parametrize("bad", [0, -1, 5, 15, 4097, 10_000, 2**63, np.int64(1 << 40)], ids=repr)
def test_a_render_width_out_of_range_is_refused_at_make(bad, no_server):
    message = f"render_width is {int(bad)}; it must be in 16...4096 pixels, or None"
    for make in (lambda: PeggleEnv(level=LEVEL, render_mode="rgb_array", render_width=bad),
                 lambda: PeggleVectorEnv(2, level=LEVEL, render_mode="rgb_array", render_width=bad),
                 lambda: gym.make(peggle_gym.ENV_ID_V1, level=LEVEL, render_mode="rgb_array", render_width=bad),
                 lambda: gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=2, level=LEVEL, render_mode="rgb_array",
                                      render_width=bad),
                 # Checked whatever the render mode: render_rgb() and SB3's get_images() use it too.
                 lambda: PeggleEnv(level=LEVEL, render_width=bad)):
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value) == message


@pytest.mark.parametrize("bad", ["wide", "64", 64.0, 1.5, True, [64]], ids=repr)
def test_a_render_width_that_is_not_a_whole_number_is_refused_at_make(bad, no_server):
    message = f"render_width must be a whole number of pixels or None, not {bad!r}"
    for make in (lambda: PeggleEnv(level=LEVEL, render_mode="rgb_array", render_width=bad),
                 lambda: PeggleVectorEnv(2, level=LEVEL, render_mode="rgb_array", render_width=bad)):
        with pytest.raises(TypeError) as e:
            make()
        assert str(e.value) == message


def test_the_make_time_range_is_the_servers(make_env, make_vec):
    # The client's RGB_WIDTHS must be the range the server's render takes: both ends work, and
    # the server's own refusal just past them names the same range.
    env = make_env(render_mode="rgb_array", render_width=RGB_WIDTHS.start)
    env.reset(seed=0)
    assert env.render().shape == (12, 16, 3)
    for width in (RGB_WIDTHS.start - 1, RGB_WIDTHS.stop):
        with pytest.raises(PeggleError) as e:
            env.render_rgb(width=width)
        assert (e.value.code, e.value.message) == (
            "bad_request", f'"width" is {width}; it must be in {RGB_WIDTHS.start}...{RGB_WIDTHS.stop - 1}')
    vec = make_vec(num_envs=1, render_mode="rgb_array", render_width=RGB_WIDTHS.stop - 1)
    vec.reset(seed=0)
    assert vec.render()[0].shape == (3072, 4096, 3)


def test_render_height_is_not_an_argument(make_env):
    # The height follows the board; a render_height is an unknown make field, named by the server.
    with pytest.raises(PeggleError) as e:
        make_env(render_mode="rgb_array", render_height=300)
    known = ", ".join(peggle_gym.make_options())
    assert (e.value.code, e.value.message) == ("bad_request", f'make: unknown field "render_height" (known: {known})')


# MARK: timeout

@pytest.mark.parametrize("bad, kind", [(0, ValueError), (-1, ValueError), (0.0, ValueError),
                                       (float("nan"), ValueError), (float("inf"), ValueError),
                                       ("5", TypeError), (True, TypeError), ([5], TypeError)], ids=repr)
def test_a_bad_timeout_is_refused_before_a_server_starts(bad, kind, no_server):
    message = f"timeout must be a positive number of seconds or None, got {bad!r}"
    for make in (lambda: PeggleEnv(level=LEVEL, timeout=bad),
                 lambda: PeggleVectorEnv(2, level=LEVEL, timeout=bad),
                 lambda: gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=2, level=LEVEL, timeout=bad)):
        with pytest.raises(kind) as e:
            make()
        assert str(e.value) == message
    with pytest.raises(kind) as e:
        gym.make(peggle_gym.ENV_ID_V1, level=LEVEL, timeout=bad)
    if kind is TypeError:  # gym.make re-raises a TypeError with the kwargs appended
        assert str(e.value).startswith(f"{message} was raised from the environment creator for {peggle_gym.ENV_ID_V1} ")
    else:
        assert str(e.value) == message


@pytest.mark.parametrize("bad", [0, float("nan"), "5"], ids=repr)
def test_a_client_refuses_a_bad_timeout_before_starting_its_server(bad, monkeypatch):
    import subprocess

    def refuse(*args, **kwargs):
        raise AssertionError("a server was started")
    monkeypatch.setattr(subprocess, "Popen", refuse)
    with pytest.raises((TypeError, ValueError)) as e:
        PeggleClient(timeout=bad)
    assert str(e.value) == f"timeout must be a positive number of seconds or None, got {bad!r}"

@pytest.mark.backends("serve")  # a server process's timeout
def test_the_timeout_reaches_the_client_and_not_the_server(make_env, make_vec):
    env = make_env(timeout=7)
    assert env.client.timeout == 7.0
    assert "timeout" not in env._make_fields  # a client option: the make request does not carry it
    env.reset(seed=0)
    env.step([0.1])  # a server that answers in time is unaffected
    assert copy.deepcopy(env).client.timeout == 7.0  # a copy's client waits as this one does
    vec = gym.make_vec(peggle_gym.ENV_ID_V1, num_envs=2, level=LEVEL, max_shots=3, timeout=np.float32(2.5))
    try:
        assert vec.client.timeout == 2.5 and "timeout" not in vec._make_fields
    finally:
        vec.close()
    single = gym.make(peggle_gym.ENV_ID_V1, level=LEVEL, timeout=30)
    try:
        assert single.unwrapped.client.timeout == 30.0
    finally:
        single.close()
    assert make_env().client.timeout is None  # the default: wait for ever, as before
    with pytest.raises(ValueError, match=r"^timeout must be a positive number of seconds or None, got -2$"):
        env.client.timeout = -2
    assert env.client.timeout == 7.0


def expected_timeout(client, cmd: str, rid: int, timeout: float) -> str:
    return (f"timeout: peggle serve (pid {client.pid}, {client.path}) did not answer {cmd} (request id {rid}) "
            f"within the client's timeout of {timeout:g} s; the client killed it and is closed. Make a new "
            "environment; if the server is only slow (large num_envs, a busy machine), pass a larger timeout=..., "
            "or timeout=None to wait for ever")


def leave_no_stopped_server(pid: int) -> None:
    """Resumes and kills a server the client did not (a failing test must not leave it stopped)."""
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


@pytest.mark.backends("serve")  # a server process's timeout
@pytest.mark.parametrize("vector", [False, True])
def test_a_stopped_server_times_out_and_the_client_is_closed(vector, make_env, make_vec):
    timeout = 1.0
    env = make_vec(num_envs=2, timeout=timeout) if vector else make_env(timeout=timeout)
    client, pid = env.client, env.client.pid
    env.reset(seed=0)
    actions = np.zeros((2, 1), np.float32) if vector else np.zeros(1, np.float32)
    try:
        os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        with pytest.raises(PeggleTimeout) as e:
            env.step(actions)
        waited = time.monotonic() - started
        assert timeout <= waited < timeout + MARGIN, waited
        rid = client._next_id - 1  # the step's id (make, spec and reset came before it)
        assert rid == 4
        assert str(e.value) == expected_timeout(client, "step", rid, timeout)
        assert e.value.code == "timeout" and isinstance(e.value, PeggleServerDied) and isinstance(e.value, PeggleError)
        # The server is gone (killed and reaped, though stopped) and the client closed, not left
        # out of step with a reply that might still come.
        assert process_gone(pid) and client.closed
        with pytest.raises(PeggleTimeout) as again:
            env.reset(seed=1)
        assert again.value is e.value
        env.close()  # closing after a timeout is fine
    finally:
        leave_no_stopped_server(pid)

@pytest.mark.backends("serve")  # a server process's timeout
def test_a_timeout_covers_make_itself(peggle_bin, monkeypatch):
    # A server stopped between its hello and the make request: the make times out, and the
    # constructor leaves no server behind.
    pids = []
    real_request = PeggleClient.request

    def stop_before_make(self, cmd, **fields):
        if cmd == "make":
            pids.append(self.pid)
            os.kill(self.pid, signal.SIGSTOP)
        return real_request(self, cmd, **fields)

    monkeypatch.setattr(PeggleClient, "request", stop_before_make)
    try:
        started = time.monotonic()
        with pytest.raises(PeggleTimeout) as e:
            PeggleEnv(level=LEVEL, timeout=0.5)
        assert time.monotonic() - started < 0.5 + MARGIN
        # Request 1 is spec: the make request is composed from the server's procedural fields.
        assert " did not answer make (request id 2) within the client's timeout of 0.5 s" in str(e.value)
        assert process_gone(pids[0])
    finally:
        for pid in pids:
            leave_no_stopped_server(pid)


def test_a_reply_already_buffered_is_used_without_waiting_on_the_pipe(tmp_path):
    # The server writes its hello and the reply to request 1 in one write, then neither reads nor
    # writes again: the reply is in the client's buffer, not the pipe, and must still be found.
    reply = json.dumps({"id": 1, "ok": True, "answer": 42}).encode()
    fake = fake_server(tmp_path, f"os.write(1, HELLO + {reply!r} + b'\\n')\ntime.sleep(60)")
    with PeggleClient(fake, timeout=0.5) as client:
        assert client._buffer  # the reply came with the hello
        assert client.request("anything") == {"answer": 42}
        started = time.monotonic()
        with pytest.raises(PeggleTimeout) as e:  # nothing more is coming
            client.request("anything")
        assert 0.5 <= time.monotonic() - started < 0.5 + MARGIN
        assert str(e.value) == expected_timeout(client, "anything", 2, 0.5)
    assert process_gone(client.pid)


def test_a_timeout_covers_a_frame_cut_short(tmp_path):
    # A reply line announcing 64 bytes of frame, followed by only 8 of them.
    line = json.dumps({"id": 1, "ok": True, "frame_bytes": 64}).encode()
    fake = fake_server(tmp_path, f"os.write(1, HELLO)\nsys.stdin.buffer.readline()\n"
                                 f"os.write(1, {line!r} + b'\\n' + bytes(8))\ntime.sleep(60)")
    with PeggleClient(fake, timeout=0.5) as client:
        with pytest.raises(PeggleTimeout) as e:
            client.request("step")
        assert str(e.value) == expected_timeout(client, "step", 1, 0.5)
    assert process_gone(client.pid)


def test_a_timeout_covers_a_server_that_stops_reading(tmp_path):
    # A request larger than the pipe holds, to a server that never reads: the write waits, and
    # the timeout ends the wait.
    fake = fake_server(tmp_path, "os.write(1, HELLO)\ntime.sleep(60)")
    with PeggleClient(fake, timeout=0.5) as client:
        started = time.monotonic()
        with pytest.raises(PeggleTimeout) as e:
            client.request("step", actions=[0.5] * 500_000)
        assert 0.5 <= time.monotonic() - started < 0.5 + MARGIN
        assert str(e.value) == expected_timeout(client, "step", 1, 0.5)
    assert process_gone(client.pid)


def test_without_a_timeout_a_slow_reply_is_waited_for(tmp_path):
    # The default (None) waits as long as the server takes: here 1.5 s, three times the timeout
    # that the test above gives up after.
    reply = json.dumps({"id": 1, "ok": True, "answer": "late"}).encode()
    fake = fake_server(tmp_path, f"os.write(1, HELLO)\nsys.stdin.buffer.readline()\ntime.sleep(1.5)\n"
                                 f"os.write(1, {reply!r} + b'\\n')\nsys.stdin.buffer.readline()")
    with PeggleClient(fake) as client:
        assert client.timeout is None
        assert client.request("anything") == {"answer": "late"}
