"""Hostile inputs to the Python client (issue 33): arguments that used to be rounded or checked too
late. Each is refused with its own exact message, before a server is started where the client can
tell."""
import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleClient, PeggleEnv, PeggleError, PeggleVectorEnv
from peggle_gym.client import RGB_WIDTHS
from conftest import LEVEL


@pytest.fixture
def no_server(monkeypatch):
    """Fails the test if a `PeggleClient` is constructed: a refusal must come before any server."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("a server was started")
    monkeypatch.setattr(PeggleClient, "__init__", refuse)


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
