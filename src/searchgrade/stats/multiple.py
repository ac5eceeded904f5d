"""Many comparisons at once: every pair of systems (:func:`pairwise`), every measure of two systems
(:func:`measurewise`), corrected; means over repeated runs."""
from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .corrections import METHODS, adjust, holm
from .inputs import _as_series_or_array, _check_finite, _examples, _paired, _paired_systems
from .results import DEFAULT_SEED
from .significance import permutation_test, sign_test, t_test
from .tukey import tukey_hsd

__all__ = ["CORRECTIONS", "TESTS", "holm", "mean_over_runs", "measurewise", "pairwise"]

CORRECTIONS = (*METHODS, "tukey", "tukey-parametric")
"""Corrections :func:`pairwise` accepts (None: none); :func:`measurewise` takes those of :data:`METHODS`."""


TESTS: dict[str, Callable] = {
    "permutation": permutation_test,
    "randomization": permutation_test,
    "t": t_test,
    "sign": sign_test,
}
"""Test names accepted by :func:`pairwise` and :func:`measurewise`."""


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


def _check_correction(correction, allowed) -> None:
    """Refuse a correction not in ``allowed`` (None always allowed) before any test runs."""
    if correction is not None and correction not in allowed:
        raise ValueError(f"unknown correction {correction!r}: choose one of "
                         f"{', '.join(map(repr, allowed))} or None")


def _add_adjustment(out: pd.DataFrame, correction, alpha: float, tukey_p=None) -> pd.DataFrame:
    """Append p_<correction> (e.g. p_holm, p_bh, p_tukey) and significant columns."""
    if correction is None:
        out["significant"] = out["p_value"] <= alpha
        return out
    column = "p_tukey" if correction.startswith("tukey") else f"p_{correction}"
    out[column] = tukey_p if tukey_p is not None else adjust(out["p_value"].to_numpy(), correction)
    out["significant"] = out[column] <= alpha
    return out


def _wide(systems: dict, pairs_ids: dict) -> pd.DataFrame:
    """Queries x systems for Tukey's HSD: the systems on the query ids every pair shared."""
    ids = None
    for x_ids in pairs_ids.values():
        ids = x_ids if ids is None or x_ids is None else ids.intersection(x_ids, sort=False)
    columns = {}
    for name, scores in systems.items():
        s = _as_series_or_array(scores, f"system {name!r}")
        columns[name] = s.reindex(ids).to_numpy() if ids is not None else s
    return pd.DataFrame(columns, index=ids)


def pairwise(table, test="permutation", *, measure: str | None = None, correction="holm",
             alpha: float = 0.05, on: str = "strict", n_perm_tukey: int = 10_000, tukey_seed=DEFAULT_SEED,
             **test_kwargs) -> pd.DataFrame:
    """Test every pair of systems; one row per pair (a, b) with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_<correction>.

    ``table``: ``{system: Series of per-query scores}``, ``{system: evaluate() DataFrame}``
    with ``measure=``, or a wide DataFrame (index qid, one column per system). Pairs come in
    the systems' order (a before b). ``test``: a name in :data:`TESTS`; ``test_kwargs`` go
    to it (e.g. ``n_perm=``, ``seed=``; every pair uses the same seed). ``correction``: one
    of :data:`CORRECTIONS` over all pairs (column ``p_holm``, ``p_bonferroni``, ``p_bh`` or
    ``p_by``), ``"tukey"`` (Carterette's randomised Tukey HSD over the systems,
    ``n_perm_tukey`` shuffles seeded by ``tukey_seed``; column ``p_tukey``),
    ``"tukey-parametric"`` (statsmodels' ``pairwise_tukeyhsd``; column ``p_tukey``) or None.
    ``significant`` is the corrected p (or the raw p without correction) ``<= alpha``.
    """
    fn = _get_test(test)
    _check_correction(correction, CORRECTIONS)
    systems = _systems_table(table, measure)
    rows, ids = [], {}
    for name_a, name_b in itertools.combinations(systems, 2):
        x, y, ids[(name_a, name_b)] = _paired_systems(systems, name_a, name_b, on)
        result = fn(x, y, **test_kwargs)
        rows.append({"a": name_a, "b": name_b, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                     "mean_diff": float((x - y).mean()), "p_value": float(result.p_value), "n": int(x.size)})
    out = pd.DataFrame(rows)
    tukey_p = None
    if correction is not None and correction.startswith("tukey"):
        method = "parametric" if correction == "tukey-parametric" else "randomized"
        tukey_p = tukey_hsd(_wide(systems, ids), method=method, n_perm=n_perm_tukey,
                            seed=tukey_seed)["p_value"].to_numpy()
    return _add_adjustment(out, correction, alpha, tukey_p)


def measurewise(df_a: pd.DataFrame, df_b: pd.DataFrame, measures=None, *, test="permutation",
                correction="holm", alpha: float = 0.05, on: str = "strict", **test_kwargs) -> pd.DataFrame:
    """Test two systems on each measure; one row per measure with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm.

    ``df_a`` and ``df_b`` are :func:`searchgrade.evaluate` DataFrames (index qid, one column
    per measure). ``measures``: one name, a list, or None for every column of ``df_a``
    (each must be in ``df_b``). ``correction`` (one of :data:`~.corrections.METHODS` or None)
    adjusts over the measures compared, in column ``p_<correction>``; Tukey's HSD compares
    systems, not measures, and is refused here.
    """
    fn = _get_test(test)
    _check_correction(correction, tuple(METHODS))
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
