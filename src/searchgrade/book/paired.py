"""Paired tests of chosen retriever pairs, and which rank flips between two measures survive them (chapter 5).

A difference between two means, or a flip in the order of two retrievers
between two measures (:func:`searchgrade.book.lineup.rank_flips`), is only
worth reporting when the paired test says it is not chance. Both functions
here use the paired permutation test of :mod:`searchgrade.stats` on per-query
scores (``{retriever: evaluate() DataFrame}``) and Holm's correction over
every test they run, so the family is exactly the set of comparisons asked for:

- :func:`compare_pairs`: chosen pairs x chosen measures, one row per test;
- :func:`check_flips`: both differences of every flip; a flip is ``real``
  when both are significant after the correction.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .. import stats

__all__ = ["compare_pairs", "check_flips"]


def _scores(per_query: Mapping[str, pd.DataFrame], name: str, measure: str) -> pd.Series:
    """The per-query scores of one retriever on one measure, with a clear error when absent."""
    if name not in per_query:
        raise KeyError(f"no per-query scores for retriever {name!r}; have {sorted(per_query)}")
    table = per_query[name]
    if measure not in table.columns:
        raise KeyError(f"retriever {name!r} has no measure {measure!r}; its columns are {list(table.columns)}")
    return table[measure].rename(name)


def compare_pairs(per_query: Mapping[str, pd.DataFrame], pairs: Sequence[tuple[str, str]],
                  measures: Sequence[str], *, n_perm: int = 10_000, seed=stats.DEFAULT_SEED,
                  alpha: float = 0.05) -> pd.DataFrame:
    """One row per (a, b, measure): mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm over all rows, significant.

    Every test uses the same seed (as :func:`searchgrade.stats.pairwise`).
    """
    if not pairs or not measures:
        raise ValueError("compare_pairs needs at least one pair and one measure")
    rows = []
    for a, b in pairs:
        for m in measures:
            x, y = _scores(per_query, a, m), _scores(per_query, b, m)
            test = stats.permutation_test(x, y, n_perm=n_perm, seed=seed)
            rows.append({"a": a, "b": b, "measure": m, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                         "mean_diff": test.mean_diff, "p_value": test.p_value})
    out = pd.DataFrame(rows)
    out["p_holm"] = stats.holm(out["p_value"].to_numpy())
    out["significant"] = out["p_holm"] <= alpha
    return out


def check_flips(flips: pd.DataFrame, per_query: Mapping[str, pd.DataFrame], *, n_perm: int = 10_000,
                seed=stats.DEFAULT_SEED, alpha: float = 0.05) -> pd.DataFrame:
    """The flips of lineup.rank_flips with both margins tested: p_a, p_b (Holm over all 2 x flips tests), real.

    ``p_a`` tests ``ahead_on_a`` against ``ahead_on_b`` on ``measure_a``, ``p_b``
    the reverse on ``measure_b``; ``real`` is True when both adjusted p-values
    are at most ``alpha``. An empty table of flips comes back empty.
    """
    columns = [*flips.columns, "p_a", "p_b", "real"]
    if flips.empty:
        return pd.DataFrame(columns=columns)
    p = []
    for row in flips.itertuples(index=False):
        for winner, loser, m in ((row.ahead_on_a, row.ahead_on_b, row.measure_a),
                                 (row.ahead_on_b, row.ahead_on_a, row.measure_b)):
            x, y = _scores(per_query, winner, m), _scores(per_query, loser, m)
            p.append(stats.permutation_test(x, y, n_perm=n_perm, seed=seed).p_value)
    adjusted = stats.holm(p)
    out = flips.reset_index(drop=True).copy()
    out["p_a"], out["p_b"] = adjusted[0::2], adjusted[1::2]
    out["real"] = (out["p_a"] <= alpha) & (out["p_b"] <= alpha)
    return out[columns]
