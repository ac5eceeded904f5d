"""Repeated measurement: per-item means over runs, each metric's mean and range, and a paired sign test."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..stats import SignTestResult, sign_test


def _check_runs(runs: Sequence[pd.DataFrame], what: str) -> None:
    if not runs:
        raise ValueError(f"{what}: no runs given")
    first = runs[0]
    for i, r in enumerate(runs[1:], start=2):
        if set(r.index) != set(first.index):
            raise ValueError(f"{what}: run {i} scores other items than run 1 "
                             f"({len(set(r.index) ^ set(first.index))} ids differ)")
        if list(r.columns) != list(first.columns):
            raise ValueError(f"{what}: run {i} has columns {list(r.columns)}, run 1 has {list(first.columns)}")


def item_means(runs: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per-item mean of each metric over several runs of one condition (same items, same columns)."""
    _check_runs(runs, "item_means")
    stacked = pd.concat([r.loc[runs[0].index] for r in runs], keys=range(len(runs)), names=["run"])
    return stacked.groupby(level=1, sort=False).mean().loc[runs[0].index]


def run_summary(runs: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per metric: the mean over runs of the run's item mean, its min and max, and the number of runs."""
    _check_runs(runs, "run_summary")
    means = pd.DataFrame([r.select_dtypes("number").mean() for r in runs])
    out = pd.DataFrame({"mean": means.mean(), "min": means.min(), "max": means.max()})
    out["runs"] = len(runs)
    out.index.name = "metric"
    return out


def sign_test_runs(runs_a: Sequence[pd.DataFrame], runs_b: Sequence[pd.DataFrame], metric: str) -> SignTestResult:
    """Sign test on per-item run means of ``metric``, B (after) against A (before), paired by item.

    ``up`` counts items whose mean rose from A to B, ``down`` those that fell;
    ties are dropped and ``p = min(1, 2 * sum_{i<=min(up,down)} C(n, i) / 2^n)``
    with ``n = up + down`` (:func:`searchgrade.stats.sign_test`).
    """
    a = item_means(runs_a)
    b = item_means(runs_b)
    if set(a.index) != set(b.index):
        raise ValueError("the two conditions score different items; a paired test needs the same items")
    for name, df in (("A", a), ("B", b)):
        if metric not in df.columns:
            raise KeyError(f"metric {metric!r} is not a column of condition {name} (columns: {list(df.columns)})")
    return sign_test(b[metric].rename("B"), a[metric].rename("A"))
