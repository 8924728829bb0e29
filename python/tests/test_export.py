"""peggle_gym.export: a trained ranking policy written as the network policy file that the Swift
agent ``mlp:FILE`` plays. A small PPO policy trained here for a few thousand steps is exported;
the native agent (``peggle play --agent mlp:FILE``) and the Python policy then choose the same
bin on at least 99.9% of 10,000 observations from the environment, and their win rates on 100
held-out levels agree within the Wilson interval. Files made for other features are refused by
the engine, naming the field. (docs/agents.md, "Network policies", has the same measurements for
Agents/mlp.json.)"""
import json
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3")  # a guard only: CI installs it (requirements-test.txt)
import torch as th  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402

from peggle_gym import V1_AIM_NOISE, PeggleEnv, find_peggle  # noqa: E402
from peggle_gym.export import (AIM_FEATURES, MODES, ROW_EXTRAS, ExportError, agreement, document, export,  # noqa: E402
                               forward, load_policy, python_actions, row_extras_of, weights_hash)
from peggle_gym.sb3 import AimPolicy, make_vec_env  # noqa: E402
from conftest import PYTHON  # noqa: E402

#: Not the environment's default 31, so the file's bins must reach the native agent.
BINS = 21
HIDDEN = 16


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A PPO ranking policy trained for 4,096 steps on 50 easy levels, saved and exported:
    (model.zip, the exported file, its document)."""
    folder = tmp_path_factory.mktemp("small-policy")
    env = make_vec_env("peggle_gym/Peggle-v1", n_envs=4, seed=0,
                       env_kwargs={"level": None, "encoder": "aim", "action": "discrete", "bins": BINS, "num_levels": 50,
                                   "start_level": 0, "distribution_mode": "easy"})
    try:
        model = PPO(AimPolicy, env, n_steps=256, batch_size=256, n_epochs=4, seed=0, device="cpu",
                    policy_kwargs={"hidden": HIDDEN})
        model.learn(4096)
    finally:
        env.close()
    model.save(folder / "model.zip")
    doc = export(folder / "model.zip", folder / "small.json", command="test_export.py's small policy")
    return folder / "model.zip", folder / "small.json", doc


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval (docs/skill-model.md's `Stats.wilson`)."""
    p, z2 = wins / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def test_the_hash_is_the_swift_agents():
    """The same tiny network MLPAgentTests pins in Swift hashes to the same 16 digits here."""
    w = [0.0] * 20
    w[0], w[1] = 1.5, -0.0
    net = {"rows": [{"inputs": 20, "outputs": 1, "activation": "relu", "weights": [w], "biases": [0.25]}],
           "score": {"inputs": 1, "outputs": 1, "activation": "identity", "weights": [[2.0]], "biases": [-1.0]}}
    assert weights_hash(net) == "34bd1b04ac1efbb5"


def test_the_file_holds_the_policys_network(small):
    model, path, doc = small
    assert json.loads(path.read_text()) == doc
    assert (doc["format"], doc["kind"]) == (1, "mlp")
    assert doc["encoder"] == {"name": "aim", "version": 1, "bins": BINS, "max_aim": 1.45, "max_contacts": 4,
                              "features": list(AIM_FEATURES)}
    net = doc["network"]
    assert [(layer["inputs"], layer["outputs"], layer["activation"]) for layer in net["rows"]] == \
        [(20, HIDDEN, "relu"), (HIDDEN, HIDDEN, "relu")]
    assert net["board"]["pool"] == ["mean", "max"]
    assert [(layer["inputs"], layer["outputs"], layer["activation"]) for layer in net["board"]["layers"]] == \
        [(2 * HIDDEN, HIDDEN, "relu")]
    assert (net["mix"]["inputs"], net["mix"]["outputs"], net["mix"]["activation"]) == (HIDDEN, HIDDEN, "relu")
    assert (net["score"]["inputs"], net["score"]["outputs"], net["score"]["activation"]) == (HIDDEN, 1, "identity")
    assert doc["weights_hash"] == weights_hash(net)
    assert doc["source"]["policy"] == "peggle_gym.policies.AimPolicy" and doc["source"]["hidden"] == HIDDEN
    # Every number reads back as the trained float32, bit for bit.
    policy = load_policy(model)
    trained = policy.mlp_extractor.scorer.rows[0].weight.detach().numpy()
    assert np.array_equal(np.asarray(net["rows"][0]["weights"], dtype=np.float32).view(np.uint32), trained.view(np.uint32))
    # The file's network computes the policy's logits.
    obs = np.random.default_rng(1).random((32, BINS, 20), dtype=np.float32)
    with th.no_grad():
        logits = policy.get_distribution(th.as_tensor(obs)).distribution.logits.numpy()
    scores = forward(doc, obs)
    # Logits are the scores less their log-sum-exp: the same up to one constant per board.
    assert np.allclose(scores - scores.mean(axis=1, keepdims=True), logits - logits.mean(axis=1, keepdims=True), atol=1e-5)
    assert (python_actions(policy, obs) == scores.argmax(axis=1)).all()


#: Observations the agreement test compares: 2,000 in CI (a `peggle play` process a level is most
#: of its time), 10,000 once by hand (`PEGGLE_AGREEMENT_OBSERVATIONS=10000`; the figure in
#: docs/agents.md).
AGREEMENT_OBSERVATIONS = int(os.environ.get("PEGGLE_AGREEMENT_OBSERVATIONS", "2000"))


def test_the_native_agent_chooses_as_the_python_policy_on_every_observation_but_near_ties(small):
    model, path, _ = small
    n = AGREEMENT_OBSERVATIONS
    result = agreement(model, path, n)
    print({k: v for k, v in result.items() if k != "disagreements"}, result["disagreements"])
    assert result["observations"] == n
    assert result["levels"] >= n // 20  # many levels of both distributions, not a few long games
    assert result["agree"] >= n - n // 1000, result["disagreements"]  # 99.9%
    # A disagreement is rounding, never a different network: the two bins are a near-tie.
    for d in result["disagreements"]:
        assert d["gap"] <= 1e-5 * max(1.0, d["scale"]), d


def test_held_out_win_rates_agree_within_the_wilson_interval(small, tmp_path):
    """100 held-out easy levels (seeds 100000..100099), one game each with seed k: the native
    agent through `peggle play --sigma 0.02` (as run.py eval plays the built-in agents) and the
    Python policy in the environment under Peggle-v1's noise and bucket start."""
    model, path, doc = small
    peggle = find_peggle()
    subprocess.run([peggle, "level", "generate", "--seed", "100000", "--count", "100", "--distribution", "easy",
                    "--out", str(tmp_path)], check=True, stdout=subprocess.DEVNULL)
    files = sorted(tmp_path.glob("easy-*.json"))
    assert len(files) == 100
    native = 0
    for k, f in enumerate(files):
        out = subprocess.run([peggle, "play", str(f), "--agent", f"mlp:{path}", "--sigma", str(V1_AIM_NOISE), "--seed", str(k),
                              "--episodes", "1", "--threads", "1", "--json"], check=True, capture_output=True, text=True)
        native += json.loads(out.stdout)["episodes"][0]["won"]
    policy = load_policy(model)
    python = 0
    with PeggleEnv(levels=[str(f) for f in files], encoder="aim", action="discrete", bins=BINS, aim_noise=V1_AIM_NOISE,
                   bucket_start="random", max_shots=200, cycle_start="seed") as env:
        for k in range(len(files)):
            obs, info = env.reset(seed=k, options={"level": k})
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(int(python_actions(policy, obs[None])[0]))
                done = terminated or truncated
            python += bool(info["won"])
    print(f"held-out wins: native {native}/100, Python {python}/100")
    low, high = wilson(python, 100)
    assert low <= native / 100 <= high, (native, python)
    low, high = wilson(native, 100)
    assert low <= python / 100 <= high, (native, python)
    assert 10 < python < 100  # a policy that neither always loses nor always wins tells the two apart


def edited(doc: dict, tmp_path: pathlib.Path, change) -> pathlib.Path:
    copy = json.loads(json.dumps(doc))
    change(copy)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(copy))
    return out


def play_refusal(path: pathlib.Path) -> str:
    out = subprocess.run([find_peggle(), "play", str(PYTHON.parent / "Levels" / "first-steps.json"), "--agent",
                          f"mlp:{path}", "--episodes", "1"], capture_output=True, text=True)
    assert out.returncode == 2, out
    return out.stderr.strip()


def test_the_engine_refuses_a_file_made_for_other_features(small, tmp_path):
    _, _, doc = small

    def other_features(d):
        d["encoder"]["features"][17] = "aim_signed"
    path = edited(doc, tmp_path, other_features)
    assert play_refusal(path) == (f"error: --agent mlp:{path}: {path}: encoder.features[17]: 'aim_signed', but feature 17 "
                                  "of the 'aim' v1 encoder is 'aim_abs' (the network was made for other features, or "
                                  "another order)")

    def wider(d):
        d["network"]["rows"][1]["inputs"] = HIDDEN + 1
    path = edited(doc, tmp_path, wider)
    assert play_refusal(path) == (f"error: --agent mlp:{path}: {path}: network.rows[1].weights[0]: {HIDDEN} numbers, but "
                                  f"inputs is {HIDDEN + 1}")


def test_only_the_ranking_policies_export(tmp_path):
    with PeggleEnv(level=str(PYTHON.parent / "Levels" / "first-steps.json")) as env:
        PPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu").save(tmp_path / "mlp.zip")
    with pytest.raises(ExportError, match=r"the policy is 'ActorCriticPolicy'; only the aim ranking policies"):
        load_policy(tmp_path / "mlp.zip")


def test_the_command_exports_and_says_what_it_wrote(small, tmp_path):
    model, _, doc = small
    out = subprocess.run([sys.executable, "-m", "peggle_gym.export", str(model), str(tmp_path / "cli.json")],
                         cwd=PYTHON, capture_output=True, text=True, check=True)
    said = json.loads(out.stdout)
    assert said == {"out": str(tmp_path / "cli.json"), "bins": BINS, "rows": [20, HIDDEN, HIDDEN],
                    "parameters": 20 * 16 + 16 + 16 * 16 + 16 + 32 * 16 + 16 + 16 * 16 + 16 + 16 + 1,
                    "weights_hash": doc["weights_hash"]}
    missing = subprocess.run([sys.executable, "-m", "peggle_gym.export", str(tmp_path / "none.zip"), str(tmp_path / "x.json")],
                             cwd=PYTHON, capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.startswith("error: ") and "none.zip" in missing.stderr
    assert not (tmp_path / "x.json").exists()


def test_document_refuses_a_policy_whose_features_are_not_the_encoders():
    from gymnasium import spaces
    policy = AimPolicy(spaces.Box(0, 1, (BINS, 19), np.float32), spaces.Discrete(BINS), lambda _: 0.0, hidden=4)
    with pytest.raises(ExportError, match="rows of 19 features; the 'aim' v1 encoder's rows have 20"):
        document(policy)


def test_a_policy_that_reads_the_mode_exports_with_its_search_and_agrees(tmp_path):
    """A ranking policy over the `aim` rows plus the level's mode one-hot (the rows imitate.py's
    clones read), exported with a search: a format-2 file that names both; the native agent's
    network and the Python policy (given the mode the same way) choose the same bin on 2,000
    observations of easy and hard levels; the mode changes the choice; and the file plays."""
    import gymnasium as gym
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import DummyVecEnv
    width = len(AIM_FEATURES) + ROW_EXTRAS["mode_one_hot"]

    class Stub(gym.Env):
        observation_space = spaces.Box(0, 1, (BINS, width), np.float32)
        action_space = spaces.Discrete(BINS)

        def reset(self, *, seed=None, options=None):
            return np.zeros((BINS, width), np.float32), {}

        def step(self, action):
            return np.zeros((BINS, width), np.float32), 0.0, True, False, {}
    # Untrained: the pipeline, not the policy, is under test; a random network's scores are rarely tied.
    PPO(AimPolicy, DummyVecEnv([Stub]), seed=1, device="cpu", policy_kwargs={"hidden": HIDDEN}).save(tmp_path / "mode.zip")
    with pytest.raises(ExportError, match=r"rows of 23 features; .* have 20 \(a policy that reads the mode too needs --row-extras\)"):
        document(load_policy(tmp_path / "mode.zip"))
    doc = export(tmp_path / "mode.zip", tmp_path / "mode.json", row_extras=("mode_one_hot",), search=(4, 2))
    assert (doc["format"], doc["row_extras"], doc["search"]) == (2, ["mode_one_hot"], {"bins": 4, "samples": 2})
    result = agreement(tmp_path / "mode.zip", tmp_path / "mode.json", 2_000)
    print({k: v for k, v in result.items() if k != "disagreements"})
    assert result["observations"] == 2_000 and result["agree"] >= 1_998, result["disagreements"]
    boards = np.random.default_rng(3).random((200, BINS, len(AIM_FEATURES)), dtype=np.float32)
    policy = load_policy(tmp_path / "mode.zip")
    by_mode = [python_actions(policy, row_extras_of(boards, [m] * 200, ("mode_one_hot",))) for m in MODES]
    assert (by_mode[0] != by_mode[2]).sum() >= 10, "the mode one-hot reaches the policy's choice"
    np.testing.assert_allclose(forward(doc, row_extras_of(boards, ["dodge"] * 200, ("mode_one_hot",))).argmax(axis=1), by_mode[2])
    out = subprocess.run([find_peggle(), "play", str(PYTHON.parent / "Levels" / "gauntlet.json"), "--agent",
                          f"mlp:{tmp_path / 'mode.json'}", "--episodes", "2", "--sigma", "0.02", "--json"],
                         capture_output=True, text=True, check=True)
    assert len(json.loads(out.stdout)["episodes"]) == 2
