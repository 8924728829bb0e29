"""render_mode="rgb_array": the server's rasteriser as numpy arrays, in PeggleEnv and PeggleVectorEnv."""

import gymnasium as gym
import numpy as np
import pytest

import peggle_gym
from peggle_gym import PeggleError
from conftest import LEVEL, checked

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

ORANGE = [0xFF, 0x7A, 0x1A]   # SVGPalette.peg(.orange)
CANNON = [0xC9, 0xCE, 0xD6]   # SVGPalette.cannon
BOARD = [0x0E, 0x16, 0x26]    # SVGPalette.board
# The first shot's colour (#ffe14d) as its path is drawn: at 0.9 opacity over the board.
SHOT = 0.9 * np.array([0xFF, 0xE1, 0x4D]) + 0.1 * np.array(BOARD)


def path_pixels(frame: np.ndarray) -> int:
    """Pixels close to the colour of the first shot's path (and of the rings of pegs it lit)."""
    return int((np.abs(frame.astype(float) - SHOT).max(axis=2) < 30).sum())


def test_rgb_array_is_a_uint8_picture_of_the_board(make_env):
    env = make_env(render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.shape == (600, 800, 3)
    assert frame.flags.writeable and frame.flags.c_contiguous
    # first-steps has an orange peg at (400, 320); the cannon is at (400, 20).
    assert frame[320, 400].tolist() == ORANGE
    assert frame[20, 400].tolist() == CANNON
    assert frame[200, 400].tolist() == BOARD
    # A new array each time: drawing on one frame does not change the next.
    frame[:] = 0
    assert env.render()[320, 400].tolist() == ORANGE


def test_render_width_scales_the_picture(make_env):
    env = make_env(render_mode="rgb_array", render_width=200)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (150, 200, 3)
    assert frame[80, 100].tolist() == ORANGE  # (400, 320) at a quarter of the scale
    assert env.render_rgb(width=64).shape == (48, 64, 3)


def test_the_latest_shot_is_drawn_with_trajectories(make_env):
    env = make_env(render_mode="rgb_array", trajectory=True)
    env.reset(seed=0)
    before = env.render()
    assert path_pixels(before) == 0
    _, _, _, _, info = env.step(np.array([0.2], np.float32))
    after = env.render()
    assert info["pegs_hit"] > 0
    assert path_pixels(after) > 200
    # The same game in another server: the same pixels.
    again = make_env(render_mode="rgb_array", trajectory=True)
    again.reset(seed=0)
    again.step(np.array([0.2], np.float32))
    assert np.array_equal(again.render(), after)
    # Without trajectories the shot leaves no path (and its pegs are simply gone).
    plain = make_env(render_mode="rgb_array")
    plain.reset(seed=0)
    plain.step(np.array([0.2], np.float32))
    assert path_pixels(plain.render()) == 0


def test_render_rgb_works_in_any_render_mode(make_env):
    env = make_env(render_mode="ansi")
    env.reset(seed=1)
    assert env.render_rgb().shape == (600, 800, 3)
    assert isinstance(env.render(), str)


def test_check_env_passes_with_rgb_array(make_env):
    checked(make_env(render_mode="rgb_array"), allowed=["not having a spec"])


def test_check_env_passes_through_gymnasium_make_with_rgb_array(peggle_bin):
    env = gym.make(peggle_gym.ENV_ID, level=LEVEL, max_shots=3, render_mode="rgb_array", render_width=160)
    try:
        checked(env, allowed=["different from the unwrapped"])
        env.reset(seed=0)
        assert env.render().shape == (120, 160, 3)
    finally:
        env.close()


def test_vector_render_is_a_tuple_of_frames_like_sync_vector_env(make_vec, peggle_bin):
    env = make_vec(num_envs=2, render_mode="rgb_array", trajectory=True, render_width=320)
    assert "rgb_array" in env.metadata["render_modes"]
    actions = np.array([[0.2], [-0.4]], np.float32)
    env.reset(seed=5)
    env.step(actions)
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    assert all(f.dtype == np.uint8 and f.shape == (240, 320, 3) for f in frames)
    assert not np.array_equal(frames[0], frames[1])  # different aims, different pictures
    assert np.array_equal(env.render_rgb(1, width=320), frames[1])
    sync = gym.make_vec(peggle_gym.ENV_ID, num_envs=2, vectorization_mode="sync", level=LEVEL, max_shots=3,
                        trajectory=True, render_mode="rgb_array", render_width=320)
    try:
        sync.reset(seed=5)
        sync.step(actions)
        expected = sync.render()
        assert isinstance(expected, tuple) and len(expected) == 2
        assert all(np.array_equal(a, b) for a, b in zip(frames, expected))
    finally:
        sync.close()


def test_a_bad_width_gets_the_servers_message(make_env, make_vec):
    # render_width is checked when the environment is made (test_hostile_inputs.py); a width
    # given to render_rgb is the server's to check.
    with pytest.raises(ValueError, match=r"^render_width is 5; it must be in 16\.\.\.4096 pixels, or None$"):
        make_env(render_mode="rgb_array", render_width=5)
    with pytest.raises(ValueError, match=r"^render_width is 10000; it must be in 16\.\.\.4096 pixels, or None$"):
        make_vec(num_envs=2, render_mode="rgb_array", render_width=10_000)
    env = make_env(render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(PeggleError) as e:
        env.render_rgb(width=5)
    assert e.value.code == "bad_request"
    assert e.value.message == '"width" is 5; it must be in 16...4096'
    with pytest.raises(PeggleError, match=r'"width" is 5000; it must be in 16\.\.\.4096'):
        env.render_rgb(width=5000)
    vec = make_vec(num_envs=2, render_mode="rgb_array")
    vec.reset(seed=0)
    with pytest.raises(PeggleError, match=r'"width" is 10000'):
        vec.render_rgb(1, width=10_000)
    # The environments go on working after a refused render.
    assert env.render_rgb(width=16).shape == (12, 16, 3)
    with pytest.raises(TypeError, match="render_width"):
        make_env(render_mode="rgb_array", render_width="wide")
    with pytest.raises(TypeError, match="width"):
        env.render_rgb(width=1.5)
    with pytest.raises(ValueError, match="render_mode"):
        make_env(render_mode="human")
    with pytest.raises(ValueError, match="render_mode"):
        make_vec(render_mode="human")
