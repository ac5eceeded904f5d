"""Tukey's honestly significant difference over every pair of systems: randomised (Carterette 2012) and parametric.

Many systems scored on the same queries form one family: every pair's difference of means
is read against the distribution of the *largest* difference among all ``k`` systems,
``max_j mean_j - min_j mean_j``, under the hypothesis that no system differs from any
other. That keeps the family-wise error rate at ``alpha`` over all ``k (k - 1) / 2`` pairs.

* ``method="randomized"`` (default): Carterette's (2012) randomised Tukey HSD. Under H0 the
  ``k`` scores of each query are exchangeable between the systems, so each trial shuffles
  every query's row of scores independently and records the range of the system means.
  ``p_ij = (#{range* >= |mean_i - mean_j|} + 1) / (n_perm + 1)``. It assumes only that
  exchangeability; it keeps the pairing of systems by query. Seeded.
* ``method="parametric"``: the classical test on a one-way layout, equal to statsmodels'
  ``pairwise_tukeyhsd(scores, systems)``: the within-system mean square ``MSE`` (pooled
  variance, ``N - k`` degrees of freedom), ``q = |mean_i - mean_j| / sqrt(MSE / 2 * (1/n_i + 1/n_j))``
  and ``p = P(Q_{k, N-k} >= q)`` from scipy's studentized range. It ignores that the
  systems were scored on the same queries (the query effect stays in ``MSE``), so it is
  conservative for IR; it is here as the textbook reference. When every system scores one
  value on every query, ``MSE`` is 0: a pair whose means differ gets ``p = 0`` and a pair whose
  means tie gets NaN with a ``RuntimeWarning`` (its statistic is 0 / 0, NaN in statsmodels
  too), not 1.0: no test was possible, and a 1.0 would read as evidence of no difference.
  Such a pair is never significant.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
from scipy import stats as _sp

from .inputs import _positive_int, _rng
from .results import _CHUNK_ELEMENTS, DEFAULT_SEED

__all__ = ["TUKEY_METHODS", "tukey_hsd"]

TUKEY_METHODS = ("randomized", "parametric")
"""How :func:`tukey_hsd` gets its p-values."""


def _checked_matrix(scores) -> tuple[np.ndarray, list]:
    """(queries x systems float matrix, system names) from a wide DataFrame; clear errors."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("scores must be a DataFrame with one row per query and one column per system, "
                        f"not {type(scores).__name__}")
    if scores.shape[1] < 2:
        raise ValueError(f"need at least 2 systems (columns) for Tukey's HSD, got {scores.shape[1]}")
    if scores.shape[0] < 2:
        raise ValueError(f"need at least 2 queries (rows) for Tukey's HSD, got {scores.shape[0]}")
    try:
        matrix = scores.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"scores must be numbers ({exc})") from None
    bad = ~np.isfinite(matrix)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise ValueError(f"system {scores.columns[j]!r} has NaN or infinite scores for {int(bad[:, j].sum())} "
                         "queries: score every system on the same queries first")
    return matrix, list(scores.columns)


def _randomized_ranges(matrix: np.ndarray, n_perm: int, seed) -> np.ndarray:
    """n_perm draws of max - min of the system means after shuffling each query's scores across systems."""
    rng = _rng(seed)
    n, k = matrix.shape
    chunk = max(1, _CHUNK_ELEMENTS // (n * k))
    ranges = np.empty(n_perm)
    done = 0
    while done < n_perm:
        size = min(chunk, n_perm - done)
        shuffled = rng.permuted(np.broadcast_to(matrix, (size, n, k)), axis=2)
        means = shuffled.mean(axis=1)
        ranges[done:done + size] = means.max(axis=1) - means.min(axis=1)
        done += size
    return ranges


def _randomized_p(matrix: np.ndarray, diffs: np.ndarray, n_perm: int, seed) -> np.ndarray:
    """p_ij = (#{range* >= |d_ij|} + 1) / (n_perm + 1), with a 1e-9 relative rounding allowance."""
    ranges = np.sort(_randomized_ranges(matrix, n_perm, seed))
    threshold = np.abs(diffs) - 1e-9 * max(1.0, float(np.abs(matrix).max()))
    at_least = n_perm - np.searchsorted(ranges, threshold, side="left")
    return (at_least + 1) / (n_perm + 1)


def _parametric_p(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Classical Tukey HSD p-values (one-way layout, pooled within-system variance)."""
    n, k = matrix.shape
    if (matrix == matrix[0]).all():
        return _zero_variance_p(matrix[0], pairs)
    means = matrix.mean(axis=0)
    dof = n * k - k
    mse = float(((matrix - means) ** 2).sum()) / dof
    se = np.sqrt(mse / n)                       # sqrt(MSE / 2 * (1/n + 1/n)): every system has n queries
    q = np.array([abs(means[i] - means[j]) for i, j in pairs]) / se
    return np.clip(_sp.studentized_range.sf(q, k, dof), 0.0, 1.0)


def _zero_variance_p(values: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Every system scores one value on every query (MSE = 0): p = 0 where two values differ, NaN where they tie.

    A difference over a zero standard error is infinitely many errors wide (p = 0); two equal means
    over a zero error are 0 / 0, a statistic that does not exist, so the p-value is NaN, with a
    warning, never a 1.0 that would read as evidence of no difference. statsmodels gives the same
    (its 0 / 0 is NaN), except where rounding leaves its error variance a hair above 0.
    """
    out = np.array([0.0 if values[i] != values[j] else np.nan for i, j in pairs])
    if np.isnan(out).any():
        warnings.warn(f"parametric Tukey HSD: every system scores the same on every query, so the error variance "
                      f"is 0 and {int(np.isnan(out).sum())} pair(s) of equal means have no test statistic (0 / 0); "
                      "their p-value is NaN (not significant). method='randomized' gives them p = 1",
                      RuntimeWarning, stacklevel=4)
    return out


def tukey_hsd(scores, *, method: str = "randomized", n_perm: int = 10_000, seed=DEFAULT_SEED) -> pd.DataFrame:
    """Tukey's HSD over every pair of systems; one row per pair (a, b) with mean_a, mean_b, mean_diff, p_value.

    ``scores``: a DataFrame, one row per query and one column per system (every system scored
    on every query). ``method``: ``"randomized"`` (Carterette 2012; ``n_perm`` shuffles,
    ``seed``) or ``"parametric"`` (equal to statsmodels' ``pairwise_tukeyhsd``). Pairs come in
    column order (a before b). The p-values are already adjusted for the whole family of
    pairs: compare them with ``alpha`` directly. See the module docstring.
    """
    if method not in TUKEY_METHODS:
        raise ValueError(f"unknown Tukey method {method!r}: choose 'randomized' or 'parametric'")
    matrix, names = _checked_matrix(scores)
    pairs = list(itertools.combinations(range(len(names)), 2))
    means = matrix.mean(axis=0)
    diffs = np.array([means[i] - means[j] for i, j in pairs])
    if method == "parametric":
        p = _parametric_p(matrix, pairs)
    else:
        p = _randomized_p(matrix, diffs, _positive_int(n_perm, "n_perm"), seed)
    return pd.DataFrame({"a": [names[i] for i, _ in pairs], "b": [names[j] for _, j in pairs],
                         "mean_a": [means[i] for i, _ in pairs], "mean_b": [means[j] for _, j in pairs],
                         "mean_diff": diffs, "p_value": p})
