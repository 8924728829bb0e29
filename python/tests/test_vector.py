"""PeggleVectorEnv: spaces, the three autoreset modes with Gymnasium 1.x semantics (checked by hand
and against gymnasium's own SyncVectorEnv over PeggleEnv), reset masks, determinism."""
import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

from peggle_gym import PeggleError
from conftest import ROOT

#: Every test here runs on both backends (conftest.py).
pytestmark = pytest.mark.backends("native", "serve")

PURPLE = str(ROOT / "Levels" / "purple-haze.json")

# Short, varied episodes: two balls (lost after two shots unless a free ball is won), at most four
# shots, so envs end at different steps.
SHORT = dict(max_shots=4, mode={"type": "classic", "balls": 2})
N = 4
STEPS = 12
SEED = 7


def action_stream(steps=STEPS, n=N, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (n, 1)).astype(np.float32) for _ in range(steps)]


def same(a, b):
    return data_equivalence(a, b, exact=True)


def test_spaces_and_metadata(make_vec):
    env = make_vec(num_envs=3)
    assert env.num_envs == 3
    assert env.single_observation_space == gym.spaces.Box(-1, 1, (2193,), np.float32)
    assert env.observation_space == gym.spaces.Box(-1, 1, (3, 2193), np.float32)
    assert env.single_action_space == gym.spaces.Box(-1, 1, (1,), np.float32)
    assert env.action_space == gym.spaces.Box(-1, 1, (3, 1), np.float32)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    env = make_vec(num_envs=2, action="discrete", bins=5, encoder="grid", autoreset=AutoresetMode.DISABLED)
    assert env.action_space == gym.spaces.MultiDiscrete([5, 5])
    assert env.observation_space.shape == (2, 9, 30, 40)
    assert env.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    obs, _ = env.reset(seed=0)
    assert obs in env.observation_space
    obs, rewards, terminated, truncated, _ = env.step(env.action_space.sample())
    assert obs in env.observation_space and obs.dtype == np.float32
    assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_


def test_reset_infos_are_gymnasium_dicts_of_arrays(make_vec):
    env = make_vec(**SHORT)
    obs, infos = env.reset(seed=SEED)
    assert obs.shape == (N, 2193)
    assert infos["score"].dtype == np.int64 and infos["_score"].all()
    assert infos["game_seed"].dtype == np.uint64 and len(set(infos["game_seed"].tolist())) == N
    assert infos["status"].dtype == object and list(infos["status"]) == ["playing"] * N
    _, _, _, _, infos = env.step(np.zeros((N, 1), np.float32))
    assert infos["angle"].dtype == np.float64 and infos["_angle"].all()  # angle 0 still a float
    assert infos["hits"]["blue"].shape == (N,) and infos["_hits"].all()
    assert "game_seed" not in infos


def has(infos, key, i):
    """Whether env i reported `key` (Gymnasium's `_key` mask; absent when no env did)."""
    return key in infos and bool(infos["_" + key][i])


def masked(infos, mask):
    """The entries of a vector info dict (recursively) for the envs in `mask`, masks left out."""
    return {k: masked(v, mask) if isinstance(v, dict) else v[mask] for k, v in infos.items() if not k.startswith("_")}


def run_next_step(env, actions, seed=SEED):
    out = [env.reset(seed=seed) + (None, None, None)]
    for a in actions:
        obs, rew, term, trunc, infos = env.step(a)
        out.append((obs, infos, rew, term, trunc))
    return out


def test_next_step_resets_an_ended_env_on_the_following_step(make_vec, make_env):
    actions = action_stream()
    steps = run_next_step(make_vec(**SHORT), actions)
    ended_somewhere = mixed = False
    for t in range(1, len(steps)):
        obs, infos, rew, term, trunc = steps[t]
        _, prev_infos, _, prev_term, prev_trunc = steps[t - 1]
        ended = (prev_term | prev_trunc) if t > 1 else np.zeros(N, bool)
        mixed |= 0 < ended.sum() < N
        for i in range(N):
            if ended[i]:
                ended_somewhere = True
                # The reset step: action ignored, reward 0, flags false, the reset's info.
                assert rew[i] == 0 and not term[i] and not trunc[i]
                assert has(infos, "game_seed", i) and not has(infos, "angle", i) and infos["shots"][i] == 0
            else:
                assert has(infos, "angle", i) and not has(infos, "game_seed", i)
                assert infos["shots"][i] == (prev_infos["shots"][i] + 1 if t > 1 else 1)
                assert trunc[i] == (not term[i] and infos["shots"][i] == SHORT["max_shots"])
    assert ended_somewhere and mixed

    # Each env's observations are those of a single PeggleEnv seeded SEED + i playing the same
    # shots, reset (without a seed) at the step after each end.
    for i in range(N):
        single = make_env(**SHORT)
        obs, _ = single.reset(seed=SEED + i)
        assert np.array_equal(steps[0][0][i], obs)
        done = False
        for t, a in enumerate(actions, start=1):
            if done:
                obs, _ = single.reset()
                rew, done = 0.0, False
            else:
                obs, rew, term, trunc, _ = single.step(a[i])
                done = term or trunc
            assert np.array_equal(steps[t][0][i], obs) and steps[t][2][i] == rew


def test_next_step_ignores_the_action_of_an_env_being_reset(make_vec):
    actions = action_stream()
    first = run_next_step(make_vec(**SHORT), actions)
    # Same run, but every env being reset gets a wild (out of range) action: nothing changes.
    wild = [a.copy() for a in actions]
    for t in range(1, len(actions)):
        _, _, _, term, trunc = first[t]
        wild[t][term | trunc] = 5.0
    assert any((w != a).any() for w, a in zip(wild, actions))
    second = run_next_step(make_vec(**SHORT), wild)
    assert same(first, second)


def test_same_step_resets_at_once_and_hands_back_the_final_obs_and_info(make_vec):
    # Lockstep with a disabled-mode env that, after each end, takes its last observation and info
    # and then resets the ended envs with a mask: that is what same_step must do in one step.
    fast = make_vec(autoreset="same_step", **SHORT)
    slow = make_vec(autoreset="disabled", **SHORT)
    obs_f, info_f = fast.reset(seed=SEED)
    obs_s, info_s = slow.reset(seed=SEED)
    assert same((obs_f, info_f), (obs_s, info_s))
    ends = 0
    for a in action_stream():
        obs_f, rew_f, term_f, trunc_f, info_f = fast.step(a)
        obs_s, rew_s, term_s, trunc_s, info_s = slow.step(a)
        assert same((rew_f, term_f, trunc_f), (rew_s, term_s, trunc_s))
        ended = term_s | trunc_s
        if not ended.any():
            assert same((obs_f, info_f), (obs_s, info_s))
            assert "final_obs" not in info_f
            continue
        ends += ended.sum()
        assert same(info_f["_final_obs"], ended) and same(info_f["_final_info"], ended)
        for i in np.flatnonzero(ended):
            assert same(info_f["final_obs"][i], obs_s[i])  # the episode's last observation
            assert info_f["final_info"]["shots"][i] == info_s["shots"][i] > 0
            assert info_f["final_info"]["status"][i] == info_s["status"][i]
        assert all(info_f["final_obs"][i] is None for i in np.flatnonzero(~ended))
        assert same(masked(info_f["final_info"], ended), masked(info_s, ended))
        # The observation handed back in the step is the reset one.
        obs_r, info_r = slow.reset(options={"reset_mask": ended})
        assert same(obs_f, obs_r)
        assert (info_f["shots"][ended] == 0).all() and info_f["_game_seed"][ended].all()
        assert same(info_f["game_seed"][ended], info_r["game_seed"][ended])
    assert ends >= 2


def test_disabled_refuses_an_ended_env_until_a_masked_reset(make_vec):
    env = make_vec(autoreset="disabled", **SHORT)
    env.reset(seed=SEED)
    zeros = np.zeros((N, 1), np.float32)
    for a in action_stream():
        obs, _, term, trunc, _ = env.step(a)
        ended = term | trunc
        if ended.any() and not ended.all():
            break
        if ended.all():
            env.reset(options={"reset_mask": ended})
    else:
        pytest.fail("no step ended some envs but not all")
    with pytest.raises(PeggleError) as e:
        env.step(zeros)
    assert e.value.code == "episode_over"
    assert f"environment {np.flatnonzero(ended)[0]} has ended" in e.value.message
    # Resetting only the others does not help; their rows change, the ended ones' do not.
    obs_others, infos = env.reset(options={"reset_mask": ~ended})
    assert same(infos["_shots"], ~ended) and np.array_equal(obs_others[ended], obs[ended])
    with pytest.raises(PeggleError, match="has ended"):
        env.step(zeros)
    obs_r, infos = env.reset(options={"reset_mask": ended})
    assert same(infos["_shots"], ended) and (infos["shots"][ended] == 0).all()
    assert np.array_equal(obs_r[~ended], obs_others[~ended])
    _, _, _, _, infos = env.step(zeros)
    assert (infos["shots"] == 1).all()


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_matches_gymnasium_sync_vector_env_over_peggle_env(mode, make_vec, make_env):
    ours = make_vec(autoreset=mode, **SHORT)
    theirs = gym.vector.SyncVectorEnv([lambda: make_env(**SHORT) for _ in range(N)],
                                      autoreset_mode=ours.metadata["autoreset_mode"])
    try:
        assert same(ours.reset(seed=SEED), theirs.reset(seed=SEED))
        for a in action_stream(steps=16):
            got, want = ours.step(a), theirs.step(a)
            assert same(got, want)
            ended = got[2] | got[3]
            if mode == "disabled" and ended.any():
                assert same(ours.reset(options={"reset_mask": ended}),
                            theirs.reset(options={"reset_mask": ended.copy()}))
    finally:
        theirs.close()


def test_reset_mask_is_checked_as_gymnasium_checks_it(make_vec):
    env = make_vec(autoreset="disabled")
    env.reset(seed=0)
    with pytest.raises(TypeError):
        env.reset(options={"reset_mask": [True] * N})
    with pytest.raises(TypeError):
        env.reset(options={"reset_mask": np.ones(N, dtype=int)})
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.ones(N + 1, dtype=bool)})
    with pytest.raises(ValueError):
        env.reset(options={"reset_mask": np.zeros(N, dtype=bool)})
    options = {"reset_mask": np.array([True, False, False, True])}
    obs, infos = env.reset(options=options)
    assert "reset_mask" in options  # the caller's options are left alone
    assert list(infos["_shots"]) == [True, False, False, True]


def test_same_seed_same_everything_in_two_servers(make_vec):
    actions = action_stream(steps=10)
    a = run_next_step(make_vec(level=PURPLE, trajectory=True, **SHORT), actions, seed=123)
    b = run_next_step(make_vec(level=PURPLE, trajectory=True, threads=3, **SHORT), actions, seed=123)
    assert same(a, b)
    assert any(len(info["trajectory"][0]) > 0 for _, info, *_ in a[1:] if "trajectory" in info)


def test_different_seeds_differ(make_vec):
    # The seed drives purple roaming: on purple-haze the purple peg moves after each shot.
    actions = action_stream(steps=6)
    a = run_next_step(make_vec(level=PURPLE, **SHORT), actions, seed=1)
    b = run_next_step(make_vec(level=PURPLE, **SHORT), actions, seed=1 + N)  # seeds 1+i and 5+i share no env
    assert not set(a[0][1]["game_seed"].tolist()) & set(b[0][1]["game_seed"].tolist())
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, b))


def test_seed_lists_must_be_consecutive(make_vec):
    env = make_vec()
    obs_int, _ = env.reset(seed=40)
    obs_list, _ = env.reset(seed=[40, 41, 42, 43])
    assert np.array_equal(obs_int, obs_list)
    with pytest.raises(ValueError, match="seed \\+ i"):
        env.reset(seed=[1, 5, 2, 3])
    with pytest.raises(ValueError, match="num_envs"):
        env.reset(seed=[1, 2])


def test_render_every_env_as_text(make_vec):
    env = make_vec(num_envs=2, render_mode="ansi")
    env.reset(seed=0)
    frames = env.render()
    assert len(frames) == 2 and all("First Steps: playing" in f for f in frames)
    assert "<svg" in env.render_svg(1)
    with pytest.raises(PeggleError, match="outside"):
        env.render_svg(2)


def test_encodings_agree_bit_for_bit_with_final_observations(make_vec):
    # same_step puts final observations in the frame after obs; every encoding must carry the
    # same float32 bits for both.
    runs = []
    for enc in ("json", "b64f32", "f32"):
        env = make_vec(autoreset="same_step", obs_encoding=enc, **SHORT)
        obs, _ = env.reset(seed=SEED)
        got = [obs.view(np.uint32)]
        finals = 0
        for a in action_stream():
            obs, rew, term, trunc, info = env.step(a)
            got.append(obs.view(np.uint32))
            got.append(rew)
            for i in np.flatnonzero(info.get("_final_obs", np.zeros(N, bool))):
                got.append(info["final_obs"][i].view(np.uint32))
                finals += 1
        assert finals >= 2
        runs.append(got)
    for other in runs[1:]:
        assert len(other) == len(runs[0])
        assert all(np.array_equal(x, y) for x, y in zip(runs[0], other))


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_column_infos_equal_rows_through_add_info(make_vec, mode):
    """The server's columns layout (the default) decodes to exactly what Gymnasium's own
    `_add_info` builds from one info object per environment: keys, masks, dtypes and values,
    trajectories and final infos included, in every autoreset mode and after masked resets."""
    kw = dict(SHORT, autoreset=mode, trajectory=True, levels=[PURPLE, str(ROOT / "Levels" / "first-steps.json")])
    columns, rows = make_vec(**kw), make_vec(info_layout="rows", **kw)
    assert same(columns.reset(seed=SEED), rows.reset(seed=SEED))
    seen_final = seen_masked = False
    for actions in action_stream(steps=16, seed=3):
        got, want = columns.step(actions), rows.step(actions)
        assert same(got, want)
        seen_final |= "final_info" in got[4]
        ended = got[2] | got[3]
        if mode == "disabled" and ended.any():
            masked = columns.reset(options={"reset_mask": ended})
            assert same(masked, rows.reset(options={"reset_mask": ended}))
            assert not masked[1]["_score"].all()  # the masks say which environments were reset
            seen_masked = True
    assert "trajectory" in got[4] and got[4]["trajectory"].dtype == object
    assert seen_final == (mode == "same_step")
    assert seen_masked == (mode == "disabled")


def test_infos_are_typed_by_the_engine_s_spec(make_vec):
    """No info key is restated in Python: the serve backend types each column and row value by
    the ``info`` list of the engine's ``spec`` (`InfoTypes`), and both backends' arrays have the
    types it declares. A type the client does not know, or a key the spec does not declare, is
    refused naming it."""
    from peggle_gym.replies import InfoTypes, info_types
    envs = make_vec(**SHORT, trajectory=True, level=None, num_levels=5)  # procedural: every key
    declared = envs.client.request("spec")["info"]
    types = info_types(envs.client)
    assert types.types == {k["name"]: k["type"] for k in declared}
    assert types.nested["hits"].types == {k["name"]: "int" for k in declared[13]["keys"]}
    dtypes = {"int": np.int64, "uint64": np.uint64, "number": np.float64, "bool": np.bool_, "string": object,
              "trajectory": object}
    seen = set()
    for infos in [envs.reset(seed=SEED)[1]] + [envs.step(a)[4] for a in action_stream(steps=3)]:
        for key, values in infos.items():
            if key in types.types and types.types[key] != "object":
                assert values.dtype == dtypes[types.types[key]], key
                seen.add(key)
    assert seen == {k for k, t in types.types.items() if t != "object"}
    with pytest.raises(PeggleError, match="info key 'x' has type 'complex', which this peggle_gym does not know"):
        InfoTypes([{"name": "x", "type": "complex"}])
    with pytest.raises(PeggleError, match="sent info key 'y', which its spec does not declare"):
        types.columns({"y": [1]}, 1)


def test_info_layout_is_checked(make_vec):
    with pytest.raises(ValueError, match="info_layout 'cols'"):
        make_vec(info_layout="cols")
