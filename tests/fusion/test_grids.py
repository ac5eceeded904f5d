"""searchgrade.fusion.grids: ranx's grids, made at their own size, refused when empty or too large (issue 41 D6, D9).

That the grids equal ranx's is tests/fusion/test_api_ranx.py's test_grids_are_ranx_grids.
"""
from __future__ import annotations

import math
from itertools import product

import pytest

import searchgrade as sg
from searchgrade.fusion import grids
from searchgrade.fusion.grids import MAX_TRIALS, grid

A = {"q1": {"a": 1.0, "b": 0.5, "c": 0.2}, "q2": {"a": 0.3, "c": 0.9}}
B = {"q1": {"b": 1.0, "c": 0.1}, "q2": {"a": 0.8, "b": 0.7}}
QRELS = {"q1": {"a": 1, "c": 1}, "q2": {"b": 1}}


@pytest.mark.parametrize("method, options, message", [
    ("wsum", {"step": 0.3}, r"optimize_fusion wsum: no weights from 0 to 1 by step=0.3 add up to 1 \(use a step"),
    ("wsum", {"step": -0.1}, r"optimize_fusion wsum: step must be above 0, got -0.1"),
    ("wsum", {"step": 0}, r"optimize_fusion wsum: step must be above 0, got 0"),
    ("mixed", {"step": math.nan}, r"optimize_fusion mixed: step must be a finite number, got nan"),
    ("rrf", {"min_k": 100, "max_k": 10}, r"optimize_fusion rrf: min_k=100 is above max_k=10, so the grid is empty"),
    ("rrf", {"step": 0}, r"optimize_fusion rrf: step must be above 0, got 0"),
    ("rbc", {"max_phi": "1"}, r"optimize_fusion rbc: max_phi must be a finite number, got '1'"),
])
def test_an_empty_or_impossible_grid_is_one_line(method, options, message):
    with pytest.raises(ValueError, match=message) as caught:
        sg.optimize_fusion(QRELS, [A, B], method, **options)
    assert "\n" not in str(caught.value)


def test_weight_grid_is_made_without_enumerating_every_tuple(monkeypatch):
    # ranx filters all len(values) ** n tuples; here only the tuples whose steps add up to 1 are made
    made = []
    original = grids._compositions

    def counting(total, parts, most):
        for t in original(total, parts, most):
            made.append(t)
            yield t

    monkeypatch.setattr(grids, "_compositions", counting)
    settings = grid("wsum", 6, step=0.1)
    made = [t for t in made if len(t) == 6]   # (the recursion's partial tuples pass through it too)
    assert len(made) == math.comb(10 + 5, 5) == 3003 < 11 ** 6
    assert len(settings) <= len(made) and all(sum(s["weights"]) == 1.0 for s in settings)


def test_weight_grid_keeps_ranx_order_and_float_filter():
    values = [round(x / 10, 1) for x in range(11)]
    expected = [list(seq) for seq in product(values, repeat=3) if sum(seq) == 1.0]
    assert [g["weights"] for g in grid("wsum", 3)] == expected


def test_a_grid_above_max_trials_is_refused_with_its_size_and_how_to_narrow_it():
    with pytest.raises(ValueError) as caught:
        sg.optimize_fusion(QRELS, [A, B] * 5, "wsum")
    text = str(caught.value)
    assert "the grid has 92,378 settings (10 runs, step=0.1)" in text and f"max_trials={MAX_TRIALS:,}" in text
    assert "step=0.2 gives 2,002" in text and "\n" not in text
    with pytest.raises(ValueError, match=r"the grid has 99,001 settings \(phi from 0.01 to 1.0 by 1e-05\)"):
        grid("rbc", 2, step=0.00001)
    assert len(grid("wsum", 2, max_trials=11)) == 11
    with pytest.raises(ValueError, match="more than max_trials=10 "):
        grid("wsum", 2, max_trials=10)
