"""Many comparisons at once: Holm's correction, every pair of systems, every measure of two systems, means over runs."""
from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .inputs import _as_series_or_array, _check_finite, _examples, _paired, _paired_systems
from .significance import permutation_test, sign_test, t_test


def holm(p_values):
    """Holm step-down adjustment, in input order: p_adj_(i) = max_{j<=i} min(1, (m - j + 1) * p_(j)) over sorted p.

    Accepts a list/array (returns a numpy array) or a Series (returns a Series with the same
    index). Reject H_i at level alpha when ``p_adj_i <= alpha``: this controls the
    family-wise error rate at alpha (Holm 1979).
    """
    index = name = None
    if isinstance(p_values, pd.Series):
        index, name = p_values.index, p_values.name
    if isinstance(p_values, Mapping) and not isinstance(p_values, pd.Series):
        raise TypeError("holm takes a list, an array or a Series of p-values; for a dict use pd.Series(d)")
    try:
        p = np.asarray(p_values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"p-values must be numbers ({exc})") from None
    if p.ndim != 1:
        raise ValueError(f"p-values must be one-dimensional, got shape {p.shape}")
    if p.size == 0:
        raise ValueError("empty family: no p-values to adjust")
    if np.isnan(p).any():
        raise ValueError(f"NaN p-value(s) at position(s) {_examples(np.flatnonzero(np.isnan(p)).tolist())}")
    if ((p < 0) | (p > 1)).any():
        bad = np.flatnonzero((p < 0) | (p > 1))
        raise ValueError(f"p-values must lie in [0, 1]; position(s) {_examples(bad.tolist())} hold "
                         f"{_examples(p[bad].tolist())}")
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted_sorted = np.maximum.accumulate(stepped)
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    if index is not None:
        return pd.Series(adjusted, index=index, name=name)
    return adjusted


TESTS: dict[str, Callable] = {
    "permutation": permutation_test,
    "randomization": permutation_test,
    "t": t_test,
    "sign": sign_test,
}
"""Test names accepted by :func:`pairwise` and :func:`compare`."""


def _get_test(test) -> Callable:
    """The test function for a name in TESTS (or a callable returning .p_value), or a clear error."""
    if callable(test):
        return test
    if test not in TESTS:
        hint = " (bootstrap gives an interval, not a p-value: use bootstrap_ci)" if test == "bootstrap" else ""
        raise ValueError(f"unknown test {test!r}: choose one of {', '.join(repr(k) for k in TESTS)}{hint}")
    return TESTS[test]


def _systems_table(table, measure) -> dict[str, object]:
    """{system: per-query scores} from a dict of Series/DataFrames or a wide DataFrame."""
    if isinstance(table, pd.DataFrame):
        if measure is not None:
            raise ValueError("measure= is for a dict of evaluate() DataFrames; a wide DataFrame "
                             "already holds one column per system")
        systems = {str(c) if not isinstance(c, str) else c: table[c] for c in table.columns}
    elif isinstance(table, Mapping):
        systems = {}
        for name, scores in table.items():
            if isinstance(scores, pd.DataFrame):
                if measure is None:
                    raise ValueError(f"system {name!r} is a DataFrame: pass measure= to choose one "
                                     f"of its columns {list(scores.columns)[:8]}")
                if measure not in scores.columns:
                    raise KeyError(f"system {name!r} has no measure {measure!r}; its columns are "
                                   f"{list(scores.columns)}")
                scores = scores[measure]
            systems[name] = scores
    else:
        raise TypeError("table must be a dict {system: per-query scores} or a DataFrame with one "
                        f"column per system, not {type(table).__name__}")
    if len(systems) < 2:
        raise ValueError(f"need at least 2 systems to compare, got {len(systems)}")
    return systems


def _add_adjustment(out: pd.DataFrame, correction, alpha: float) -> pd.DataFrame:
    """Append p_adj (Holm) and significant columns."""
    if correction == "holm":
        out["p_holm"] = holm(out["p_value"].to_numpy())
        out["significant"] = out["p_holm"] <= alpha
    elif correction is None:
        out["significant"] = out["p_value"] <= alpha
    else:
        raise ValueError(f"unknown correction {correction!r}: choose 'holm' or None")
    return out


def pairwise(table, test="permutation", *, measure: str | None = None, correction="holm",
             alpha: float = 0.05, on: str = "strict", **test_kwargs) -> pd.DataFrame:
    """Test every pair of systems; one row per pair (a, b) with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm.

    ``table``: ``{system: Series of per-query scores}``, ``{system: evaluate() DataFrame}``
    with ``measure=``, or a wide DataFrame (index qid, one column per system). Pairs come in
    the systems' order (a before b). ``test``: a name in :data:`TESTS`; ``test_kwargs`` go
    to it (e.g. ``n_perm=``, ``seed=``; every pair uses the same seed). ``p_holm`` is Holm's
    adjustment over all pairs (``correction=None`` omits it); ``significant`` is
    ``p_holm <= alpha``.
    """
    fn = _get_test(test)
    systems = _systems_table(table, measure)
    rows = []
    for name_a, name_b in itertools.combinations(systems, 2):
        x, y, _ = _paired_systems(systems, name_a, name_b, on)
        result = fn(x, y, **test_kwargs)
        rows.append({"a": name_a, "b": name_b, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                     "mean_diff": float((x - y).mean()), "p_value": float(result.p_value), "n": int(x.size)})
    out = pd.DataFrame(rows)
    return _add_adjustment(out, correction, alpha)


def compare(df_a: pd.DataFrame, df_b: pd.DataFrame, measures=None, *, test="permutation",
            correction="holm", alpha: float = 0.05, on: str = "strict", **test_kwargs) -> pd.DataFrame:
    """Test two systems on each measure; one row per measure with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm.

    ``df_a`` and ``df_b`` are :func:`searchgrade.evaluate` DataFrames (index qid, one column
    per measure). ``measures``: one name, a list, or None for every column of ``df_a``
    (each must be in ``df_b``). ``p_holm`` adjusts over the measures compared.
    """
    fn = _get_test(test)
    for label, df in (("df_a", df_a), ("df_b", df_b)):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{label} must be a DataFrame of per-query scores (index qid, one column "
                            f"per measure), not {type(df).__name__}")
    if measures is None:
        measures = list(df_a.columns)
    elif isinstance(measures, str):
        measures = [measures]
    else:
        measures = list(measures)
    if not measures:
        raise ValueError("no measures to compare")
    for label, df in (("df_a", df_a), ("df_b", df_b)):
        missing = [m for m in measures if m not in df.columns]
        if missing:
            raise KeyError(f"{label} has no column(s) {missing}; its columns are {list(df.columns)}")
    rows = []
    for measure in measures:
        x, y, _ = _paired(df_a[measure].rename(f"df_a[{measure!r}]"),
                          df_b[measure].rename(f"df_b[{measure!r}]"), on)
        result = fn(x, y, **test_kwargs)
        rows.append({"measure": measure, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                     "mean_diff": float((x - y).mean()), "p_value": float(result.p_value), "n": int(x.size)})
    out = pd.DataFrame(rows).set_index("measure")
    return _add_adjustment(out, correction, alpha)


def mean_over_runs(runs: Sequence) -> pd.Series:
    """Per-query mean over repeated runs of one system: mean_r score_r(q); every run must cover the same queries.

    ``runs``: a list of Series (or ``{qid: score}`` dicts) from repeated measurements of the
    same condition. The result feeds the tests above (e.g. :func:`sign_test` on run means,
    as the source article on repeated measurement does).
    """
    if isinstance(runs, (pd.Series, pd.DataFrame, Mapping)) or not isinstance(runs, Sequence):
        raise TypeError("runs must be a list of per-query score Series (one per repeated run)")
    if len(runs) == 0:
        raise ValueError("no runs to average")
    series = []
    for i, run in enumerate(runs):
        s = _as_series_or_array(run, f"run {i}")
        if not isinstance(s, pd.Series):
            raise TypeError(f"run {i} is a plain array: pass Series or {{qid: score}} dicts so runs "
                            "are matched by query id")
        if len(s) == 0:
            raise ValueError(f"empty sample: run {i} has no queries")
        _check_finite(s.to_numpy(), s.index, f"run {i}")
        series.append(s)
    first = series[0]
    for i, s in enumerate(series[1:], start=1):
        only_0 = first.index.difference(s.index)
        only_i = s.index.difference(first.index)
        if len(only_0) or len(only_i):
            raise ValueError(f"run {i} covers different queries from run 0: {len(only_0) + len(only_i)} "
                             f"query ids differ (only in run 0: {_examples(only_0) or 'none'}; "
                             f"only in run {i}: {_examples(only_i) or 'none'})")
    stacked = np.vstack([s.reindex(first.index).to_numpy() for s in series])
    return pd.Series(stacked.mean(axis=0), index=first.index, name=first.name)
