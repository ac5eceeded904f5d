"""searchgrade.fusion.checks: every bad parameter is one line naming it (issue 41 D11, D12), never a numpy error."""
from __future__ import annotations

import math

import numpy as np
import pytest

import searchgrade as sg

A = {"q1": {"a": 1.0, "b": 0.5, "c": 0.2}, "q2": {"a": 0.3, "c": 0.9}}
B = {"q1": {"b": 1.0, "c": 0.1}, "q2": {"a": 0.8, "b": 0.7}}
QRELS = {"q1": {"a": 1, "c": 1}, "q2": {"b": 1}}


@pytest.mark.parametrize("method, params, qrels, error, message", [
    ("probfuse", {"n_segments": 0}, QRELS, ValueError, r"fusion probfuse: n_segments must be an integer >= 1, got 0"),
    ("posfuse", {"probs": [[0.5]]}, None, ValueError, r"fusion posfuse: probs has 1 entry for 2 runs \(one per run\)"),
    ("mapfuse", {"map_scores": [0.5]}, None, ValueError, r"fusion mapfuse: map_scores has 1 entry for 2 runs"),
    ("probfuse", {"n_segments": 2, "probs": [[0.5, 0.1], []]}, None, ValueError, r"probs of run 2 is empty"),
    ("bayesfuse", {"log_odds": [[0.5], [math.nan]]}, None, ValueError, r"log_odds must be a finite number, got nan"),
    ("slidefuse", {"w": 2.5}, QRELS, TypeError, r"fusion slidefuse: w must be an integer >= 0, got 2.5"),
    ("rrf", {"k": "60"}, None, TypeError, r"fusion rrf: k must be a number, got '60' \(str\)"),
    ("rrf", {"k": math.nan}, None, ValueError, r"fusion rrf: k must be a finite number, got nan"),
    ("rrf", {"k": -1}, None, ValueError, r"fusion rrf: k must be >= 0, got -1"),
    ("gmnz", {"gamma": math.inf}, None, ValueError, r"fusion gmnz: gamma must be a finite number, got inf"),
    ("rbc", {"phi": 1.5}, None, ValueError, r"fusion rbc: phi must be from 0 to 1, got 1.5"),
    ("logn_isr", {"sigma": math.nan}, None, ValueError, r"fusion logn_isr: sigma must be a finite number"),
    ("wsum", {"weights": ["0.5", 1]}, None, TypeError, r"fusion wsum: weights must be a number, got '0.5'"),
    ("wsum", {"weights": [True, 1]}, None, TypeError, r"fusion wsum: weights must be a number, got True"),
    ("wsum", {"weights": "ab"}, None, TypeError, r"fusion wsum: weights must be a list of numbers, got str"),
    ("rrf", [60], None, TypeError, r"fusion rrf: params must be a dict \{name: value\}, not list \[60\]"),
])
def test_bad_parameters_are_one_line_naming_the_parameter(method, params, qrels, error, message):
    with pytest.raises(error, match=message) as caught:
        sg.fuse([A, B], method, None, params, qrels=qrels)
    assert "\n" not in str(caught.value)


def test_depth_ties_and_empty_runs_are_checked():
    with pytest.raises(ValueError, match=r"fusion: depth must be a positive integer or None, got 2.5"):
        sg.fuse([A, B], "rrf", None, depth=2.5)
    with pytest.raises(ValueError, match=r"fusion: depth must be a positive integer or None, got True"):
        sg.fuse([A, B], "rrf", None, depth=True)
    with pytest.raises(ValueError, match=r"fusion: ties must be one of 'trec', 'input', got 'expected'"):
        sg.fuse([A, B], "rrf", None, ties="expected")
    with pytest.raises(ValueError, match=r"fusion: run 2 is empty \(no query\)"):
        sg.fuse([A, {}], "rrf", None)
    assert sg.fuse([A, B], "rrf", None, depth=np.int64(1))["q1"] == {"b": pytest.approx(1 / 62 + 1 / 61)}


def test_good_values_of_every_kind_still_fuse():
    assert sg.fuse([A, B], "rrf", None, {"k": np.float64(0)})["q1"]["c"] == pytest.approx(1 / 3 + 1 / 2)
    assert sg.fuse([A, B], "slidefuse", None, {"w": 2.0}, qrels=QRELS) == \
        sg.fuse([A, B], "slidefuse", None, {"w": 2}, qrels=QRELS)
    given = sg.fuse([A, B], "mapfuse", None, {"map_scores": np.array([0.5, 0.25])})
    assert given["q1"]["a"] == pytest.approx(0.5 / 1)
    assert sg.fuse([A, B], "wsum", None, {"weights": np.array([1, 0])})["q1"] == {"a": 1.0, "b": 0.5, "c": 0.2}
