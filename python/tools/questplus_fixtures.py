"""Writes Tests/Fixtures/questplus/watson2017.json: Watson's (2017) QUEST+ examples as the Python
`questplus` package runs them, for the Swift test of Sources/PeggleDifficulty/QuestPlus.swift.

The three runs are the package's own tests (questplus/tests/test_qp.py, questplus 2023.1):
Example 1 (threshold alone), the "Implementation" run (threshold and slope) and Example 2
(threshold, slope and lapse), each a Weibull in dB with the responses Watson lists. For every trial
the fixture holds the stimulus QUEST+ chose (checked here against the package test's expected
sequence), the smallest expected entropy and the gap to the runner-up (so the Swift test can show
that no choice is a floating-point tie), and after the last trial the posterior's mode and mean.

    python3 -m venv /tmp/qp && /tmp/qp/bin/pip install questplus==2023.1
    /tmp/qp/bin/python python/tools/questplus_fixtures.py > Tests/Fixtures/questplus/watson2017.json
"""
import json
import sys

import numpy as np
from questplus.qp import QuestPlus

C, I = "Correct", "Incorrect"

# From questplus/tests/test_qp.py (test_threshold, test_threshold_slope, test_threshold_slope_lapse).
RUNS = [
    dict(
        name="example1",
        title="Watson 2017, Example 1: contrast threshold {1, 1, 2}",
        threshold=list(range(-40, 1)), slope=[3.5], guess=[0.5], lapse=[0.02],
        expected=[-18, -22, -25, -28, -30, -22, -13, -15, -16, -18, -19, -20, -21, -22, -23, -19, -20, -20, -18,
                  -18, -19, -17, -17, -18, -18, -18, -19, -19, -19, -19, -19, -19],
        responses=[C, C, C, C, I, I, C, C, C, C, C, C, C, C, I, C, C, I, C, C, I, C, C, C, C, C, C, C, C, C, C, C],
        mode=dict(threshold=-20),
    ),
    dict(
        name="implementation",
        title="Watson 2017, Implementation: contrast threshold and slope",
        threshold=list(range(-40, 1)), slope=[2, 3, 4, 5], guess=[0.5], lapse=[0.02],
        expected=[-18, -22, -12, -13, -15, -16, -17, -18, -19, -21, -24, -25, -26, -27, -21, -22, -23, -20, -20,
                  -20, -21, -19, -19, -20, -20, -20, -19, -19, -19, -19, -19, -20, -20, -20, -20, -20, -21, -21,
                  -20, -20, -20, -19, -18, -18, -19, -19, -19, -18, -18, -17, -18, -18, -18, -17, -17, -17, -17,
                  -17, -17, -17, -18, -18, -18, -18],
        responses=[C, I, C, C, C, C, C, C, C, C, C, C, C, I, C, C, I, C, C, C, I, C, C, C, C, I, C, C, C, C, C, C,
                   C, C, C, C, C, I, C, C, I, I, C, C, C, C, I, C, I, C, C, C, I, C, C, C, C, C, C, C, C, C, C, C],
        mode=dict(threshold=-20, slope=3),
    ),
    dict(
        name="example2",
        title="Watson 2017, Example 2: contrast threshold, slope and lapse {1, 3, 2}",
        threshold=list(range(-40, 1)), slope=[2, 3, 4, 5], guess=[0.5], lapse=[0, 0.01, 0.02, 0.03, 0.04],
        expected=[-18, -22, -25, -28, -30, -21, -12, -14, -15, -16, -18, -19, -20, -22, -23, -18, -19, -16, -17,
                  -17, -18, -18, -18, -19, -19, -17, -17, -18, -18, -18, -18, -19, -19, -20, -18, -18, -18, -18,
                  -18, -19, -19, -19, -19, -20, -18, -18, -18, -18, -18, -18, -18, -18, -18, -19, -19, -19, -20,
                  -18, -18, -18, -18, -19, -19, -19, -18, -18, -18, -18, -19, -19, -19, -19, -19, -19, -19, -19,
                  -20, -21, -19, -19, -19, -19, -19, -19, -19, -18, -19, -19, -16, -16, -16, -16, -16, -16, 0, 0,
                  -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -21, -21, -19, -19, -19,
                  -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19, -19],
        responses=[C, C, C, C, I, I, C, C, C, C, C, C, C, C, I, C, I, C, C, C, C, C, C, C, I, C, C, C, C, C, C, C,
                   C, I, C, C, C, C, C, C, C, C, C, I, C, C, C, I, C, C, C, C, C, C, C, C, I, C, C, C, C, C, C, I,
                   C, C, C, C, C, C, C, C, C, C, C, C, C, I, C, I, C, C, C, C, I, C, C, I, C, C, C, C, C, C, C, I,
                   C, C, C, C, C, C, C, C, C, C, C, C, C, C, C, I, C, C, C, I, C, I, I, C, C, C, C, I, C, C, C, C],
        mode=dict(threshold=-20, slope=5, lapse=0.04),
    ),
]


def run(spec):
    q = QuestPlus(
        stim_domain=dict(intensity=np.array(spec["threshold"])),
        param_domain=dict(threshold=np.array(spec["threshold"]), slope=np.array(spec["slope"]),
                          lower_asymptote=np.array(spec["guess"]), lapse_rate=np.array(spec["lapse"])),
        outcome_domain=dict(response=[C, I]), func="weibull", stim_scale="dB",
        stim_selection_method="min_entropy", param_estimation_method="mode")
    trials = []
    for expected, response in zip(spec["expected"], spec["responses"]):
        stim = q.next_stim
        assert stim == dict(intensity=expected), (spec["name"], len(trials), stim, expected)
        # The expected entropies of every stimulus, as next_stim computes them, for the gap.
        new = q.posterior * q.likelihoods
        pk = new.sum(dim=list(q.param_domain.keys()))
        new = new / pk
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -(new * np.log(new)).sum(dim=list(q.param_domain.keys()))
        eh = np.sort((pk * h).sum(dim="response").values.ravel())
        trials.append(dict(stimulus=expected, correct=response == C, expectedEntropy=float(eh[0]),
                           runnerUpGap=float(eh[1] - eh[0])))
        q.update(stim=stim, outcome=dict(response=response))
    mode = q.param_estimate
    q.param_estimation_method = "mean"
    mean = q.param_estimate
    for k, v in spec["mode"].items():
        key = "lapse_rate" if k == "lapse" else k
        assert np.isclose(mode[key], v), (spec["name"], k, mode[key], v)
    names = dict(threshold="threshold", slope="slope", lapse_rate="lapse")
    return dict(
        name=spec["name"], title=spec["title"], function="weibull-dB", guess=spec["guess"][0],
        threshold=spec["threshold"], slope=spec["slope"], lapse=spec["lapse"], stimuli=spec["threshold"],
        trials=trials,
        mode={names[k]: float(mode[k]) for k in names},
        mean={names[k]: float(mean[k]) for k in names},
    )


json.dump(dict(source="questplus 2023.1, questplus/tests/test_qp.py; Watson (2017) J. Vision 17(3):10",
               generator="python/tools/questplus_fixtures.py", runs=[run(s) for s in RUNS]),
          sys.stdout, indent=1)
sys.stdout.write("\n")
