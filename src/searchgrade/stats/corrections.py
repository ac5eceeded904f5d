"""Corrections for many tests at once: Bonferroni, Holm, Benjamini-Hochberg and Benjamini-Yekutieli.

Two promises, two families of methods:

* The **family-wise error rate** (FWER): the chance that *any* "significant" in the family
  is false stays at most ``alpha``. :func:`bonferroni` (``m * p``) and :func:`holm` (Holm
  1979, a step-down that is never less powerful) keep it under any dependence between tests.
* The **false discovery rate** (FDR): among the results called significant, the *expected
  share* of false ones stays at most ``alpha``. :func:`bh` (Benjamini & Hochberg 1995,
  a step-up) keeps it for independent or positively dependent tests; :func:`by`
  (Benjamini & Yekutieli 2001) for any dependence, at the cost of a factor
  ``sum_{i<=m} 1/i``.

:func:`adjust` picks one by name. Every function returns adjusted p-values in input order
(a Series keeps its index); reject ``H_i`` at level ``alpha`` when ``p_adj_i <= alpha``.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .inputs import _examples

__all__ = ["METHODS", "adjust", "bonferroni", "holm", "bh", "by"]


def _check_pvalues(p_values) -> tuple[np.ndarray, object, object]:
    """p-values as a float array, plus the Series' index and name (None for other input); clear errors."""
    index = name = None
    if isinstance(p_values, pd.Series):
        index, name = p_values.index, p_values.name
    if isinstance(p_values, Mapping) and not isinstance(p_values, pd.Series):
        raise TypeError("p-values come as a list, an array or a Series; for a dict use pd.Series(d)")
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
    return p, index, name


def _in_input_order(p: np.ndarray, order: np.ndarray, adjusted_sorted: np.ndarray, index, name):
    """Adjusted values put back in the input's order (a Series when the input was one)."""
    adjusted = np.empty(p.size)
    adjusted[order] = adjusted_sorted
    if index is not None:
        return pd.Series(adjusted, index=index, name=name)
    return adjusted


def holm(p_values):
    """Holm step-down adjustment, in input order: p_adj_(i) = max_{j<=i} min(1, (m - j + 1) * p_(j)) over sorted p.

    Accepts a list/array (returns a numpy array) or a Series (returns a Series with the same
    index). Reject H_i at level alpha when ``p_adj_i <= alpha``: this controls the
    family-wise error rate at alpha (Holm 1979).
    """
    p, index, name = _check_pvalues(p_values)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    return _in_input_order(p, order, np.maximum.accumulate(stepped), index, name)


def bonferroni(p_values):
    """Bonferroni adjustment: p_adj_i = min(1, m * p_i); controls the family-wise error rate."""
    p, index, name = _check_pvalues(p_values)
    order = np.arange(p.size)
    return _in_input_order(p, order, np.minimum(1.0, p.size * p), index, name)


def _step_up(p_values, any_dependence: bool):
    """BH step-up: p_adj_(i) = min_{j>=i} min(1, c * m / j * p_(j)), c = sum_{i<=m} 1/i under any dependence, else 1."""
    p, index, name = _check_pvalues(p_values)
    m = p.size
    factor = float(np.sum(1.0 / np.arange(1, m + 1))) if any_dependence else 1.0
    order = np.argsort(p, kind="stable")
    raw = factor * m / np.arange(1, m + 1) * p[order]
    stepped = np.minimum.accumulate(raw[::-1])[::-1]
    return _in_input_order(p, order, np.minimum(1.0, stepped), index, name)


def bh(p_values):
    """Benjamini-Hochberg adjustment: p_adj_(i) = min_{j>=i} min(1, m / j * p_(j)); controls the false discovery rate.

    Valid for independent or positively dependent tests (Benjamini & Hochberg 1995).
    """
    return _step_up(p_values, any_dependence=False)


def by(p_values):
    """Benjamini-Yekutieli adjustment: BH times c(m) = sum_{i<=m} 1/i; controls the FDR under any dependence."""
    return _step_up(p_values, any_dependence=True)


METHODS = {"bonferroni": bonferroni, "holm": holm, "bh": bh, "by": by}
"""Correction names accepted by :func:`adjust` (FWER: bonferroni, holm; FDR: bh, by)."""


def adjust(p_values, method: str = "holm"):
    """Adjusted p-values by ``method``: 'bonferroni', 'holm' (FWER) or 'bh', 'by' (FDR); see the module docstring.

    Equals statsmodels' ``multipletests(p, method=...)[1]`` with 'bonferroni', 'holm',
    'fdr_bh' and 'fdr_by'. A list or array gives an array, a Series a Series.
    """
    if method not in METHODS:
        raise ValueError(f"unknown correction method {method!r}: choose one of "
                         f"{', '.join(map(repr, METHODS))}")
    return METHODS[method](p_values)
