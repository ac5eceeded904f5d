"""searchgrade.fusion.kernels: a run with an empty list for a query (issue 41 D5)."""
from __future__ import annotations

import pytest

import searchgrade as sg

RUNS = [{"q1": {"a": 1.0, "b": 0.5}}, {"q1": {}}]
QRELS = {"q1": {"a": 1}}


@pytest.mark.parametrize("method, params", [("slidefuse", {"w": 1}), ("slidefuse", {"w": 0}), ("posfuse", {}),
                                            ("probfuse", {"n_segments": 2}), ("segfuse", {})])
def test_a_run_with_an_empty_list_adds_nothing_to_the_query(method, params):
    fused = sg.fuse(RUNS, method, None, params, qrels=QRELS)
    alone = sg.fuse(RUNS[:1], method, None, params, qrels=QRELS)
    assert fused["q1"] == pytest.approx(alone["q1"]) and set(fused["q1"]) == {"a", "b"}


def test_slidefuse_window_on_the_d5_reproducer():
    # run 1's positions: P(relevant) = [1, 0]; w=1: both ranks average positions 1-2
    assert sg.fuse(RUNS, "slidefuse", None, {"w": 1}, qrels=QRELS) == {"q1": {"b": 0.5, "a": 0.5}}
    tuned = sg.optimize_fusion(QRELS, RUNS, "slidefuse", None, max_w=3)
    assert [t["w"] for t, _ in tuned.trials] == [1, 2, 3]
