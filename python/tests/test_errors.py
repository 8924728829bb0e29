"""Error paths: bad levels, bad actions, wrong order, a server that dies or misbehaves, and the
server process's lifetime (close, garbage collection, no zombies)."""
import gc
import json
import os
import signal
import sys
import time

import numpy as np
import pytest

from peggle_gym import PeggleClient, PeggleEnv, PeggleError, PeggleServerDied, PeggleVectorEnv, find_peggle
from conftest import LEVEL, process_gone

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def test_a_missing_level_file_is_named(make_env, tmp_path):
    missing = tmp_path / "nowhere.json"
    with pytest.raises(PeggleError) as e:
        make_env(level=str(missing))
    assert e.value.code == "level_error" and str(missing) in e.value.message


def test_an_invalid_level_is_refused_with_the_reason(make_env, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "name": "Bad", "power": "none", "pegs": [], "blocks": []}))
    with pytest.raises(PeggleError) as e:
        make_env(level=str(bad))
    assert e.value.code == "level_error" and str(bad) in e.value.message and "mode" in e.value.message
    bad.write_text("{ not json")
    with pytest.raises(PeggleError, match="level_error"):
        make_env(level=str(bad))


def test_bad_make_arguments_are_refused(make_env, make_vec):
    with pytest.raises(PeggleError, match='bad_request.*"encoder" is "photo"; expected one of: objects, grid, pixels'):
        make_env(encoder="photo")
    with pytest.raises(PeggleError, match="bad_request.*num_envs"):
        make_vec(num_envs=0)
    with pytest.raises(PeggleError, match="level_error.*max_objects"):
        make_env(max_objects=3)
    # PeggleEnv() plays the default levels (test_distribution.py); an empty list is refused.
    with pytest.raises(ValueError, match="levels is empty"):
        PeggleEnv(levels=[])


@pytest.mark.backends("serve")  # a server process's own
def test_a_failed_make_leaves_no_server(tmp_path, peggle_bin, monkeypatch):
    started = []
    real_init = PeggleClient.__init__

    def spy(self, *a, **kw):
        real_init(self, *a, **kw)
        started.append(self.pid)

    monkeypatch.setattr(PeggleClient, "__init__", spy)
    with pytest.raises(PeggleError):
        PeggleEnv(level=str(tmp_path / "nowhere.json"))
    assert len(started) == 1 and process_gone(started[0])


def test_wrong_action_counts(make_env, make_vec):
    env = make_env()
    env.reset(seed=0)
    with pytest.raises(PeggleError, match="bad_action.*one action"):
        env.step([0.1, 0.2])
    vec = make_vec(num_envs=3)
    vec.reset(seed=0)
    with pytest.raises(PeggleError) as e:
        vec.step(np.zeros((4, 1), np.float32))
    assert e.value.code == "bad_action" and "4 actions for 3" in e.value.message
    with pytest.raises(PeggleError, match="bad_action.*numbers"):
        vec.step(["a", "b", "c"])


def test_the_right_number_of_actions_in_the_wrong_shape_is_refused(make_env, make_vec):
    env = make_env()
    env.reset(seed=0)
    with pytest.raises(PeggleError) as e:
        env.step(np.zeros((1, 1), np.float32))
    assert (e.value.code, e.value.message) == ("bad_action", "actions of shape (1, 1) for one environment: give () or (1,)")
    assert env.step(np.float32(0.1))[4]["shots"] == 1 and env.step(np.array([0.2]))[4]["shots"] == 2
    vec = make_vec(num_envs=2)
    vec.reset(seed=0)
    for shape in [(2, 1, 1), (1, 2)]:
        with pytest.raises(PeggleError) as e:
            vec.step(np.zeros(shape, np.float32))
        assert (e.value.code, e.value.message) == ("bad_action", f"actions of shape {shape} for 2 environments: give (2,) or (2, 1)")
    assert (vec.step(np.zeros(2))[4]["shots"] == 1).all() and (vec.step([[0.1], [0.2]])[4]["shots"] == 2).all()


def test_a_whole_number_past_int64_is_an_action_outside_the_space(make_env):
    env = make_env(action="discrete", bins=31)
    env.reset(seed=0)
    with pytest.raises(PeggleError) as e:
        env.step(2**70)
    assert (e.value.code, e.value.message) == ("bad_action", "action 1.1805916207174113e+21 of environment 0 is not in the "
                                                              "action space Discrete(31)")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 1.5, -1.0001])
def test_non_finite_and_out_of_range_actions_are_refused_and_change_nothing(make_env, bad):
    env, twin = make_env(), make_env()
    env.reset(seed=4)
    twin.reset(seed=4)
    with pytest.raises(PeggleError) as e:
        env.step(np.array([bad], np.float32))
    assert e.value.code == "bad_action"
    # The server still serves, and the refused step left the episode as it was.
    assert np.array_equal(env.step([0.3])[0], twin.step([0.3])[0])


def test_discrete_actions_must_be_whole_bins(make_env, make_vec):
    env = make_env(action="discrete", bins=5)
    env.reset(seed=0)
    for bad in (5, -1, 2.5):
        with pytest.raises(PeggleError, match="bad_action"):
            env.step(bad)
    env.step(np.int64(4))
    vec = make_vec(num_envs=2, action="discrete", bins=5)
    vec.reset(seed=0)
    with pytest.raises(PeggleError, match="bad_action.*environment 1"):
        vec.step(np.array([0, 7]))


def test_step_before_reset(make_env, make_vec):
    with pytest.raises(PeggleError) as e:
        make_env().step([0.0])
    assert e.value.code == "not_reset"
    with pytest.raises(PeggleError, match="not_reset"):
        make_vec().step(np.zeros((4, 1), np.float32))
    with pytest.raises(PeggleError, match="not_reset"):
        make_env(render_mode="ansi").render()


@pytest.mark.backends("serve")  # a server process's own
def test_a_killed_server_gives_a_clear_exception(make_env):
    env = make_env()
    env.reset(seed=0)
    os.kill(env.client.pid, signal.SIGKILL)
    with pytest.raises(PeggleServerDied) as e:
        env.step([0.0])
    assert e.value.code == "server_died" and isinstance(e.value, PeggleError)
    assert f"pid {env.client.pid}" in e.value.message and "SIGKILL" in e.value.message
    assert process_gone(env.client.pid)  # reaped: no zombie
    with pytest.raises(PeggleServerDied):  # and it stays dead
        env.reset()
    env.close()  # closing a dead server is fine


def test_close_ends_the_engine_and_a_second_close_is_fine(make_env, backend):
    env = make_env()
    env.reset(seed=0)
    env.close()
    assert env.client.closed
    if backend == "serve":
        assert process_gone(env.client.pid)
    env.close()
    with pytest.raises(PeggleError, match="closed"):
        env.reset()


@pytest.mark.backends("serve")  # a server process's own
def test_garbage_collection_ends_the_server(peggle_bin):
    env = PeggleEnv(level=LEVEL)
    vec = PeggleVectorEnv(3, level=LEVEL)
    pids = [env.client.pid, vec.client.pid]
    env.reset(seed=0)
    vec.reset(seed=0)
    del env, vec
    gc.collect()
    assert all(process_gone(p) for p in pids)


def test_a_vector_env_closes_through_gymnasium_close(make_vec, backend):
    vec = make_vec()
    vec.close()
    assert vec.closed and vec.client.closed
    if backend == "serve":
        assert process_gone(vec.client.pid)


def test_server_stderr_is_passed_to_sys_stderr(tmp_path, capsys):
    # A stand-in server that complains and exits before its hello.
    fake = tmp_path / "peggle"
    fake.write_text("#!/bin/sh\necho 'peggle serve: something broke' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(PeggleServerDied) as e:
        PeggleClient(fake)
    assert "exited with code 3" in e.value.message and "something broke" in e.value.message
    assert "peggle serve: something broke" in capsys.readouterr().err


@pytest.mark.parametrize("script, message", [
    ("echo 'hello there'; cat", "did not greet"),
    ("echo '{\"hello\":\"peggle serve\",\"protocol\":99}'; cat", "protocol 99"),
])
def test_a_server_speaking_another_protocol_is_refused(tmp_path, script, message):
    fake = tmp_path / "peggle"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    with pytest.raises(PeggleError, match=message) as e:
        PeggleClient(fake)
    assert e.value.code == "protocol"


def test_a_silent_server_times_out(tmp_path, monkeypatch):
    import peggle_gym.pipe as pipe
    monkeypatch.setattr(pipe, "HELLO_TIMEOUT", 0.3)
    fake = tmp_path / "peggle"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(PeggleServerDied, match="no hello line"):
        PeggleClient(fake)
    assert time.monotonic() - started < 10


def test_binary_lookup(tmp_path, monkeypatch, peggle_bin):
    with pytest.raises(FileNotFoundError, match="peggle_path"):
        find_peggle(tmp_path / "nope")
    assert find_peggle(peggle_bin) == peggle_bin
    monkeypatch.setenv("PEGGLE_BIN", str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="PEGGLE_BIN"):
        find_peggle()
    monkeypatch.setenv("PEGGLE_BIN", peggle_bin)
    assert find_peggle() == peggle_bin


def test_errors_carry_code_and_message_and_the_server_keeps_serving(peggle_bin):
    with PeggleClient() as c:
        assert c.hello["protocol"] == 1 and c.hello["engine"].startswith("peggle-gym")
        with pytest.raises(PeggleError) as e:
            c.request("step", actions=[0])
        assert (e.value.code, e.value.message) == ("not_made", "send make first")
        assert isinstance(e.value, RuntimeError)
        with pytest.raises(PeggleError, match="unknown_command"):
            c.request("fly")
        assert c.request("make", level=LEVEL)["num_envs"] == 1
    assert c.closed and process_gone(c.pid)


@pytest.mark.backends("serve")  # a server process's own
def test_no_server_outlives_the_interpreter(tmp_path, peggle_bin):
    # A child interpreter that makes an env and exits without closing it: the finalizer at exit
    # ends the server; the child prints the pid so we can check it is gone.
    import subprocess
    code = (f"import sys; sys.path.insert(0, {str(os.path.dirname(os.path.dirname(__file__)))!r}); "
            f"from peggle_gym import PeggleEnv; e = PeggleEnv(level={LEVEL!r}); e.reset(seed=0); print(e.client.pid)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    pid = int(out.stdout.strip())
    deadline = time.monotonic() + 5
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_gone(pid)


def test_a_forked_child_leaves_the_parents_server_alone(make_env):
    env = make_env()
    env.reset(seed=0)
    pid = os.fork()
    if pid == 0:  # the child: its copy of the client refuses, and closing it touches nothing
        code = 1
        try:
            env.step([0.0])
        except PeggleError as e:
            code = 0 if e.code == "wrong_process" else 2
        env.close()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert env.step([0.1])[4]["shots"] == 1  # the parent's server still answers


def test_a_reply_left_unread_by_an_interrupt_is_skipped(peggle_bin):
    with PeggleClient() as c:
        c.request("make", level=LEVEL)

        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        c._read_line = interrupted  # Ctrl-C while waiting for the reset's reply
        with pytest.raises(KeyboardInterrupt):
            c.request("reset", seed=0)
        del c._read_line
        reply = c.request("spaces")  # gets its own reply, not the reset's
        assert "observation_space" in reply and "obs_shape" not in reply
