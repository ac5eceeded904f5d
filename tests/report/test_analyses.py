"""Tests of searchgrade.report.analyses' paired tests: chosen pairs and rank flips tested with the permutation test and Holm."""
import numpy as np
import pandas as pd
import pytest

from searchgrade import stats
from searchgrade.book import diagnostics
from searchgrade.report import analyses

N = 40
IDS = [f"q{i}" for i in range(N)]


def _per_query():
    """Three retrievers: big beats small on P@1 and small beats big on R@100, clearly; flat ties big on R@100."""
    big = pd.DataFrame({"P@1": [1.0] * 30 + [0.0] * 10, "R@100": [0.0] * 20 + [1.0] * 20}, index=IDS)
    small = pd.DataFrame({"P@1": [0.0] * 30 + [0.0] * 10, "R@100": [1.0] * 40}, index=IDS)
    flat = pd.DataFrame({"P@1": [0.0] * 39 + [1.0], "R@100": [1.0, 0.0] * 20}, index=IDS)
    return {"big": big, "small": small, "flat": flat}


def test_compare_pairs_rows_and_holm():
    per_query = _per_query()
    got = analyses.compare_pairs(per_query, [("big", "small"), ("big", "flat")], ["P@1", "R@100"], n_perm=2000, seed=3)
    assert list(zip(got["a"], got["b"], got["measure"])) == [
        ("big", "small", "P@1"), ("big", "small", "R@100"), ("big", "flat", "P@1"), ("big", "flat", "R@100")]
    assert got.loc[0, "mean_diff"] == pytest.approx(0.75) and got.loc[1, "mean_diff"] == pytest.approx(-0.5)
    assert got.loc[3, "mean_diff"] == 0.0 and got.loc[3, "p_value"] == 1.0
    np.testing.assert_allclose(got["p_holm"], stats.holm(got["p_value"].to_numpy()))
    assert list(got["significant"]) == [True, True, True, False]


def test_compare_pairs_errors():
    with pytest.raises(KeyError, match="no per-query scores"):
        analyses.compare_pairs(_per_query(), [("big", "nope")], ["P@1"])
    with pytest.raises(KeyError, match="no measure"):
        analyses.compare_pairs(_per_query(), [("big", "small")], ["nDCG@10"])
    with pytest.raises(ValueError, match="at least one"):
        analyses.compare_pairs(_per_query(), [], ["P@1"])


def test_check_flips():
    per_query = _per_query()
    table = pd.DataFrame({n: df.mean() for n, df in per_query.items()}).T
    flips = diagnostics.rank_flips(table, ["P@1", "R@100"])
    got = analyses.check_flips(flips, per_query, n_perm=2000, seed=3)
    pairs = {(r.ahead_on_a, r.ahead_on_b): r for r in got.itertuples()}
    # big vs small: 0.75 ahead on P@1, 0.5 behind on R@100 -> both real
    assert pairs[("big", "small")].real
    # big vs flat: big ahead on P@1 (0.75 vs 0.025), tied on R@100 (0.5 each) -> not a flip
    assert ("big", "flat") not in pairs
    # small vs flat: flat 0.025 ahead on P@1 (one query), small 0.5 ahead on R@100 -> flip, but not real
    assert not pairs[("flat", "small")].real and pairs[("flat", "small")].p_a > 0.05
    assert len(got) == len(flips)


def test_check_flips_empty():
    empty = diagnostics.rank_flips(pd.DataFrame({"P@1": [1.0, 0.0], "R@100": [1.0, 0.0]}, index=["x", "y"]))
    got = analyses.check_flips(empty, _per_query())
    assert got.empty and {"p_a", "p_b", "real"} <= set(got.columns)
