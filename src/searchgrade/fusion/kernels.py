"""The arithmetic of fusion: what each run gives a candidate (contributions) and how the runs' values are combined.

A contribution kernel maps run ``r`` of a ranked :class:`~.pool.Pool` to one value per
candidate (NaN where the run gives nothing); a combiner maps the ``(runs, candidates)``
matrix of contributions to the fused score of each candidate. Both follow ranx 0.3.21's
formulas and its treatment of a document a run did not retrieve: 0 in sums, 1e9 in CombMIN,
-1e9 in CombMAX, left out of the count, median and average of CombMNZ/MED/ANZ, and
log(0.001/0.999) in BayesFuse. ``rank`` is 1-based, in trec_eval order; ``n`` is the
run's list length for the query and ``C`` the number of candidates of the query.
"""
from __future__ import annotations

import numpy as np

from .pool import Pool, ceil_div

__all__ = ["MIN_ODD", "SEGFUSE_BOUNDS", "contribution", "combiner"]

MIN_ODD = float(np.log(0.001 / 0.999))  # BayesFuse's log-odds of a document a run did not retrieve
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])  # 0, 5, 15, 35, ... 5115


def _ranks(pool: Pool, r: int) -> np.ndarray:
    """Run r's ranks (NaN where absent)."""
    return pool.ranks[r]


def _length(pool: Pool, r: int) -> np.ndarray:
    """The run's list length for each candidate's query."""
    return pool.counts(~np.isnan(pool.ranks[r]))[pool.cand_q]


# ------------------------------------------------------------------ contributions: (pool, r, params) -> row

def c_scores(pool: Pool, r: int, p: dict) -> np.ndarray:
    """The (normalised) scores themselves."""
    return pool.scores[r]


def c_rrf(pool: Pool, r: int, p: dict) -> np.ndarray:
    """w / (k + rank), w = 1 unless weights are given."""
    w = 1.0 if p.get("weights") is None else p["weights"][r]
    return w / (p["k"] + _ranks(pool, r))


def c_isr(pool: Pool, r: int, p: dict) -> np.ndarray:
    """1 / rank^2."""
    ranks = _ranks(pool, r)
    return 1.0 / (ranks * ranks)


def c_rbc(pool: Pool, r: int, p: dict) -> np.ndarray:
    """(1 - phi) * phi^(rank - 1)."""
    return (1 - p["phi"]) * p["phi"] ** (_ranks(pool, r) - 1)


def c_borda(pool: Pool, r: int, p: dict) -> np.ndarray:
    """C - (rank - 1) points; a candidate the run did not retrieve gets (C - n + 1) / 2."""
    ranks = _ranks(pool, r)
    c = np.diff(pool.starts)[pool.cand_q]
    return np.where(np.isnan(ranks), (c - _length(pool, r) + 1) / 2, c - (ranks - 1))


def c_probfuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """P(segment k) / k for the segment k (1-based) of the rank, the list cut into n_segments equal parts."""
    probs = np.asarray(p["probs"][r], dtype=np.float64)
    ranks = _ranks(pool, r)
    size = np.maximum(ceil_div(_length(pool, r), len(probs)), 1)
    k = np.where(np.isnan(ranks), 0, ranks - 1).astype(np.int64) // size
    return np.where(np.isnan(ranks), np.nan, probs[np.minimum(k, len(probs) - 1)] / (k + 1))


def c_segfuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """P(segment) * (score + 1), segments 0-5, 5-15, 15-35, ... (0 past rank 5115)."""
    probs = np.asarray(p["probs"][r], dtype=np.float64)
    ranks = _ranks(pool, r)
    k = np.searchsorted(SEGFUSE_BOUNDS, np.where(np.isnan(ranks), 0, ranks - 1), side="right") - 1
    value = np.where(k < len(probs), probs[np.minimum(k, len(probs) - 1)], 0.0)
    return np.where(np.isnan(ranks), np.nan, value * (pool.scores[r] + 1))


def c_slidefuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """The mean of the position probabilities from rank - w to rank + w (within the list); 0 past the
    positions seen in training."""
    probs = np.asarray(p["probs"][r], dtype=np.float64)
    ranks, n = _ranks(pool, r), _length(pool, r)
    out = np.full(len(ranks), np.nan)
    present = np.flatnonzero(~np.isnan(ranks))   # (a run with an empty list for a query has none there)
    pos = (ranks[present] - 1).astype(np.int64)
    a = np.maximum(pos - p["w"], 0)
    b = np.minimum(pos + p["w"], n[present] - 1)
    padded = np.zeros(max(int(n.max(initial=0)), len(probs)) + 1)
    padded[1:len(probs) + 1] = probs
    cum = np.cumsum(padded)
    out[present] = (cum[b + 1] - cum[a]) / (b - a + 1)
    return out


def c_mapfuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """MAP of the run / rank."""
    return p["map_scores"][r] / _ranks(pool, r)


def c_posfuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """P(relevant at this position), 0 past the positions seen in training."""
    return _by_position(p["probs"][r], _ranks(pool, r), 0.0)


def c_bayesfuse(pool: Pool, r: int, p: dict) -> np.ndarray:
    """The log-odds of relevance of the rank's band (MIN_ODD past rank 1000)."""
    return _by_position(p["log_odds"][r], _ranks(pool, r), MIN_ODD)


def _by_position(values, ranks: np.ndarray, beyond: float) -> np.ndarray:
    """values[rank - 1], ``beyond`` past the end, NaN where absent."""
    values = np.append(np.asarray(values, dtype=np.float64), beyond)
    pos = np.where(np.isnan(ranks), 0, ranks - 1).astype(np.int64)
    return np.where(np.isnan(ranks), np.nan, values[np.minimum(pos, len(values) - 1)])


# ------------------------------------------------------------------ combiners: (matrix, pool, params) -> fused

def _count(m: np.ndarray) -> np.ndarray:
    """How many runs have each candidate."""
    return (~np.isnan(m)).sum(axis=0)


def _total(m: np.ndarray, weights=None, missing: float = 0.0) -> np.ndarray:
    """Sum over the runs in their order (so floats add up as ranx adds them), ``missing`` where absent."""
    acc = np.zeros(m.shape[1])
    for r, row in enumerate(m):
        row = np.where(np.isnan(row), missing, row)
        acc += row if weights is None else weights[r] * row
    return acc


def k_sum(m, pool, p):
    """Sum over the runs (0 where absent)."""
    return _total(m)


def k_min(m, pool, p):
    """Smallest value (1e9 where absent)."""
    return np.where(np.isnan(m), 1e9, m).min(axis=0)


def k_max(m, pool, p):
    """Largest value (-1e9 where absent)."""
    return np.where(np.isnan(m), -1e9, m).max(axis=0)


def k_med(m, pool, p):
    """Median of the present values."""
    return np.nanmedian(m, axis=0)


def k_anz(m, pool, p):
    """Sum / number of runs that have it."""
    return _total(m) / _count(m)


def k_mnz(m, pool, p):
    """Sum * number of runs that have it."""
    return _total(m) * _count(m)


def k_gmnz(m, pool, p):
    """Sum * count^gamma."""
    return _total(m) * _count(m) ** p["gamma"]


def k_log_mnz(m, pool, p):
    """Sum * log(count)."""
    return _total(m) * np.log(_count(m))


def k_logn_mnz(m, pool, p):
    """Sum * log(count + sigma)."""
    return _total(m) * np.log(_count(m) + p["sigma"])


def k_wsum(m, pool, p):
    """Sum of weight * value."""
    return _total(m, p["weights"])


def k_wmnz(m, pool, p):
    """Sum * the sum of the weights of the runs that have it."""
    weights = np.asarray(p["weights"], dtype=np.float64)
    return _total(m) * _total(np.where(np.isnan(m), np.nan, weights[:, None]))


def k_mixed(m, pool, p):
    """Sum of weight * value, times sqrt(count)."""
    return _total(m, p["weights"]) * np.sqrt(_count(m))


def k_sum_odds(m, pool, p):
    """Sum of log-odds (MIN_ODD where absent)."""
    return _total(m, missing=MIN_ODD)


contribution = {name[2:]: fn for name, fn in dict(globals()).items() if name.startswith("c_")}
"""Contribution kernels by short name."""
combiner = {name[2:]: fn for name, fn in dict(globals()).items() if name.startswith("k_")}
"""Combiners by short name."""
