"""Agreement of two rankings of the same systems: Kendall's tau-b and the AP correlation tau_ap."""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .inputs import _check_finite, _examples


def _two_rankings(a, b) -> tuple[np.ndarray, np.ndarray, list]:
    """Scores of the same systems from two {system: score} mappings/Series, aligned; mismatch refused."""
    sa, sb = [], []
    for x, label in ((a, "a"), (b, "b")):
        if isinstance(x, Mapping) and not isinstance(x, pd.Series):
            x = pd.Series(dict(x), dtype=object)
        if not isinstance(x, pd.Series):
            raise TypeError(f"{label} must be a {{system: score}} dict or a Series indexed by system, "
                            f"not {type(x).__name__}")
        if x.index.has_duplicates:
            raise ValueError(f"{label} lists system(s) {_examples(x.index[x.index.duplicated()].unique())} more than once")
        try:
            x = pd.Series(x.to_numpy(dtype=float), index=x.index)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{label} must hold numeric scores ({exc})") from None
        (sa if label == "a" else sb).append(x)
    sa, sb = sa[0], sb[0]
    only_a, only_b = sa.index.difference(sb.index), sb.index.difference(sa.index)
    if len(only_a) or len(only_b):
        raise ValueError(f"the two rankings cover different systems: {len(only_a) + len(only_b)} differ "
                         f"(only in a: {_examples(only_a) or 'none'}; only in b: {_examples(only_b) or 'none'})")
    if len(sa) < 2:
        raise ValueError(f"need at least 2 systems to compare rankings, got {len(sa)}")
    x = sa.to_numpy()
    y = sb.reindex(sa.index).to_numpy()
    _check_finite(x, sa.index, "a")
    _check_finite(y, sa.index, "b")
    return x, y, list(sa.index)


def kendall_tau(a, b) -> float:
    """Kendall's tau-b of two rankings of the same systems: (C - D) / sqrt((P - T_a)(P - T_b)).

    ``C``/``D``: concordant/discordant system pairs, ``P = m(m-1)/2`` pairs, ``T_a``/``T_b``:
    pairs tied in a/b. Without ties this is ``(C - D) / P``. Same value as
    ``scipy.stats.kendalltau(x, y).statistic``. Inputs: ``{system: score}`` dicts or Series.
    """
    x, y, names = _two_rankings(a, b)
    iu = np.triu_indices(x.size, k=1)
    dx = np.sign(x[:, None] - x[None, :])[iu]
    dy = np.sign(y[:, None] - y[None, :])[iu]
    pairs = dx.size
    untied_a = pairs - int(np.count_nonzero(dx == 0))
    untied_b = pairs - int(np.count_nonzero(dy == 0))
    if untied_a == 0 or untied_b == 0:
        raise ValueError(f"every system has the same score in {'a' if untied_a == 0 else 'b'}: "
                         "Kendall's tau is undefined")
    return float((dx * dy).sum() / math.sqrt(untied_a * untied_b))


def tau_ap(estimate, reference, *, symmetric: bool = False) -> float:
    """AP correlation (Yilmaz, Aslam & Robertson 2008): tau_AP = 2/(m-1) * sum_{i=2..m} C(i)/(i-1) - 1.

    Systems are read top-down in ``estimate`` (highest score first); ``C(i)`` is how many of
    the ``i - 1`` systems above position ``i`` are also above it in ``reference``. Like
    Kendall's tau it is 1 for identical and -1 for reversed rankings, but a swap near the top
    costs more than one near the bottom. Not symmetric: ``symmetric=True`` returns the mean of
    ``tau_ap(a, b)`` and ``tau_ap(b, a)``. Ties in either ranking are refused (tau_AP is
    defined for strict rankings).
    """
    x, y, names = _two_rankings(estimate, reference)
    for values, label in ((x, "estimate"), (y, "reference")):
        uniq, counts = np.unique(values, return_counts=True)
        if (counts > 1).any():
            tied_value = uniq[counts > 1][0]
            tied = [names[i] for i in np.flatnonzero(values == tied_value)]
            raise ValueError(f"tau_AP needs rankings without ties, but in {label} systems "
                             f"{_examples(tied)} share the score {tied_value:g}")

    def one_way(est: np.ndarray, ref: np.ndarray) -> float:
        order = np.argsort(-est, kind="stable")
        ref_sorted = ref[order]
        m = est.size
        # above[i, j]: j is above i in the reference, for j ranked above i in the estimate
        above = ref_sorted[None, :] > ref_sorted[:, None]
        correct = np.tril(above, k=-1).sum(axis=1)[1:]           # C(i) for positions i = 2..m
        return float(2.0 / (m - 1) * np.sum(correct / np.arange(1, m)) - 1.0)

    value = one_way(x, y)
    if symmetric:
        value = 0.5 * (value + one_way(y, x))
    return value
