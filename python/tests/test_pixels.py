"""The pixels encoder: a channels-first uint8 picture of the board (issue 15), the same in the
single and vector envs and in every obs encoding, deterministic (a pinned frame hash)."""
import hashlib

import numpy as np
import pytest
from gymnasium import spaces

from peggle_gym import PeggleError

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")


def frame_hash(obs):
    return hashlib.sha256(np.ascontiguousarray(obs).tobytes()).hexdigest()[:16]


def test_space_and_observations_are_uint8_images(make_env):
    env = make_env(encoder="pixels")
    assert env.observation_space == spaces.Box(0, 255, (3, 72, 96), np.uint8)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.uint8 and obs.shape == (3, 72, 96) and obs in env.observation_space
    assert make_env(encoder="pixels", pixel_width=48).observation_space.shape == (3, 36, 48)


def test_a_frame_is_pinned_and_the_same_everywhere(make_env, make_vec):
    """Same seed and actions, same bytes: in every obs encoding, in the vector env, and against
    the pinned hash (a change to the rasteriser or the encoder shows here)."""
    frames = {}
    for encoding in ("f32", "b64f32", "json"):
        env = make_env(encoder="pixels", obs_encoding=encoding)
        env.reset(seed=4)
        frames[encoding], *_ = env.step(np.array([0.25], np.float32))
    assert frame_hash(frames["f32"]) == frame_hash(frames["b64f32"]) == frame_hash(frames["json"])
    vec = make_vec(encoder="pixels", num_envs=2)
    vec.reset(seed=4)
    obs, *_ = vec.step(np.array([[0.25], [0.0]], np.float32))
    assert obs.dtype == np.uint8 and np.array_equal(obs[0], frames["f32"])
    assert frame_hash(frames["f32"]) == "b2ba9842df00f211"


def test_the_picture_follows_the_game(make_env):
    env = make_env(encoder="pixels")
    first, _ = env.reset(seed=4)
    after, *_ = env.step(np.array([0.25], np.float32))
    # The pegs that shot hit are gone and the bucket moved: the picture changed.
    assert not np.array_equal(first, after)
    assert frame_hash(env.reset(seed=4)[0]) == frame_hash(first)


@pytest.mark.parametrize("kwargs, message", [
    (dict(encoder="pixels", pixel_width=47), '"pixel_width" is 47; it must be in 48...800'),
    (dict(pixel_width=96), 'make: "pixel_width" applies to the pixels encoder only \\("encoder" is "objects"\\)'),
])
def test_bad_widths_are_refused_naming_the_field(make_env, kwargs, message):
    with pytest.raises(PeggleError, match=message):
        make_env(**kwargs)


def test_width_must_be_whole(make_env):
    with pytest.raises(PeggleError, match='bad_request: "pixel_width" must be a whole number'):
        make_env(encoder="pixels", pixel_width=96.5)
