"""searchgrade.fusion.norms on large scores: the exact fraction near 1e15, no overflow near 1e300 (issue 41 D4)."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from searchgrade.fusion import normalize


def _exact_sum(values: list[Fraction]) -> list[Fraction]:
    lo = min(values)
    return [(v - lo) / (sum(values) - lo * len(values)) for v in values]


def _exact_zmuv(values: list[Fraction]) -> list[float]:
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return [math.copysign(math.sqrt((v - mean) ** 2 / var), v - mean) for v in values]


@pytest.mark.parametrize("norm, exact", [("sum", _exact_sum), ("zmuv", _exact_zmuv)])
@pytest.mark.parametrize("base, unit", [(1e15, 1.0), (-3.3e14, 1.0), (1e300, 1e285), (-1.5e308, 1e292)])
def test_large_scores_give_the_exact_fraction_without_a_warning(norm, exact, base, unit):
    rng = np.random.default_rng(4)
    for _ in range(20):
        steps = rng.integers(0, 50, size=int(rng.integers(2, 30)))
        if len(set(steps.tolist())) < 2:
            continue
        docs = {f"d{i}": float(base + int(s) * unit) for i, s in enumerate(steps)}
        with warnings.catch_warnings():
            warnings.simplefilter("error")    # no numpy "overflow encountered in square"
            got = normalize({"q": docs}, norm)["q"]
        want = exact([Fraction(v) for v in docs.values()])
        for d, w in zip(docs, want):
            assert got[d] == pytest.approx(float(w), rel=1e-12, abs=1e-12), (d, docs[d])


def test_min_max_spans_that_overflow_are_scaled_and_ordinary_scores_are_untouched():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = normalize({"q": {"a": 1.7e308, "b": -1.7e308, "c": 0.0}}, "min-max")["q"]
    assert got == {"a": 1.0, "c": 0.5, "b": 0.0}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert normalize(run, "zmuv")["q"] == pytest.approx({"a": 1.5 ** 0.5, "b": 0.0, "c": -(1.5 ** 0.5)})
    assert normalize(run, "sum")["q"] == {"a": 2 / 3, "b": 1 / 3, "c": 0.0}
