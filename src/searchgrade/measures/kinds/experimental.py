"""trec_eval's experimental measures: binG, and G, ndcg_rel and Rndcg, written as its walk down the ideal ranking.

binG discounts each relevant document by the non-relevant ones above it.  G, ndcg_rel and Rndcg are
defined by trec_eval as a sequential walk down its ideal ranking
(:func:`~searchgrade.measures.kinds.ideal._trec_ideal`); here each sum is taken in trec_eval's order,
so every value is bit for bit trec_eval's.  Their ``gains=`` are trec_eval's ``G.1=3``, in the order given.
"""
from __future__ import annotations

import numpy as np

from ..family import Family, TrecName
from ..params import REL, Param, gain_map, gain_order
from .base import _div, _local_cumsum, level
from .gains import _gain, _gain_entries, _log2_table
from .ideal import _Ideal, _trec_ideal

__all__ = ["ROWS", "bin_g", "g_measure", "ndcg_rel", "rndcg"]


# --------------------------------------------------------------------------- kernels
def bin_g(ctx, m):
    """binG = (1/R) sum over retrieved relevant docs of 1 / log2(2 + |non-relevant above|) (trec_eval)."""
    L = level(ctx, m)
    idx = ctx.where("rel", L)
    nonrel_above = ctx.rank[idx] - ctx.running(idx, np.ones(len(idx), dtype=bool))
    return _div(ctx.rowsum(ctx.seg[idx], 1.0 / np.log2(2.0 + nonrel_above)), ctx.num_rel(L))


def _trec_results(ctx, m) -> tuple[np.ndarray, np.ndarray]:
    """(positions, gains) of the retrieved entries whose gain is not 0, in rank order (trec_eval's get_gain)."""
    idx = _gain_entries(ctx, m)
    gain = _gain(ctx, m, ctx.grade[idx], ctx.seg[idx], ctx.judged[idx])
    nonzero = gain != 0
    return idx[nonzero], gain[nonzero]


def _running(x: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Running sum of x within each row (inclusive), from one cumulative sum: exact for whole numbers only."""
    totals = np.bincount(seg, weights=x, minlength=n)
    return np.cumsum(x) - (np.cumsum(totals) - totals)[seg]


def _exact_sums(*arrays: np.ndarray) -> bool:
    """Whether one running sum over all rows of each array (whole numbers) stays exact: below 2**53 in size."""
    return all(float(np.abs(a).sum()) < 2.0**53 for a in arrays)


def _at(cum: np.ndarray, start: np.ndarray, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
    """cum's running value after the first k entries of each row (0 for k = 0)."""
    k = np.asarray(k, dtype=np.int64)
    out = np.zeros(len(k))
    some = k > 0
    out[some] = cum[start[rows[some]] + k[some] - 1]
    return out


def _ideal_dcg_running(ctx, ideal: _Ideal) -> np.ndarray:
    """Running ideal DCG of each ideal entry: the sum of gain / log2(position + 1) so far (trec_eval's order)."""
    return _local_cumsum(ideal.gain / _log2_table(ctx, ideal.pos)[ideal.pos], ideal.seg, ctx.n)


def g_measure(ctx, m):
    """G (trec_eval, experimental): sum_i g_i / log2(2 + cost_i - gain so far_i), over the total ideal gain.

    cost_i sums max(ideal gain at rank j, 1) over ranks j <= i (1 once the ideal list is exhausted);
    gain so far_i sums the retrieved gains of ranks <= i.  ``gains=`` as trec_eval's G.1=g,...
    """
    ideal = _trec_ideal(ctx, m)
    idx, x = _trec_results(ctx, m)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    count = ideal.count
    cost = np.maximum(ideal.gain, 1.0)
    if ideal.integral and _exact_sums(cost, x):  # whole numbers: every running sum is exact, in any order
        within = np.minimum(rank, count[seg])
        sum_cost = _at(_running(cost, ideal.seg, ctx.n), ideal.start, seg, within) + (rank - within)
        sum_res = _running(x, seg, ctx.n)
    else:  # added rank after rank, as trec_eval does
        row_cost = np.ones(len(ctx.seg))
        inside = ctx.rank <= count[ctx.seg]
        row_cost[inside] = cost[ideal.start[ctx.seg[inside]] + ctx.rank[inside] - 1]
        sum_cost = _local_cumsum(row_cost, ctx.seg, ctx.n)[idx]
        sum_res = _local_cumsum(x, seg, ctx.n)
    with np.errstate(divide="ignore", invalid="ignore"):  # huge gains: log2 of 0 or less, as in C
        total_g = ctx.rowsum(seg, x / np.log2((2.0 + sum_cost) - sum_res))
    return _div(total_g, ctx.rowsum(ideal.seg, ideal.gain))


def _trec_running_dcg(ctx, m):
    """What ndcg_rel and Rndcg walk: trec_eval's ideal ranking, the retrieved gains x with their rows and
    ranks, the ideal ranking's running DCG and the retrieved running DCG (within each row)."""
    ideal = _trec_ideal(ctx, m)
    idx, x = _trec_results(ctx, m)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    dcg_ = _local_cumsum(x / _log2_table(ctx, rank)[rank], seg, ctx.n)
    return ideal, x, seg, rank, _ideal_dcg_running(ctx, ideal), dcg_


def ndcg_rel(ctx, m):
    """ndcg_rel (trec_eval, experimental): nDCG averaged over relevant docs; unretrieved ones get the final nDCG.

    At each retrieved document of positive gain at rank i: DCG@i / ideal DCG@min(i, M), M the number of
    documents of positive gain in the ideal ranking; the M - (those retrieved) others add DCG / ideal DCG
    of the whole lists; the sum is divided by M (0 unless positive).  ``gains=`` as trec_eval's.
    """
    ideal, x, seg, rank, running_idcg, dcg_ = _trec_running_dcg(ctx, m)
    M = ideal.count
    pos = x > 0
    rows = seg[pos]
    with np.errstate(divide="ignore", invalid="ignore"):  # a row whose walk never starts: as C, inf and nan
        terms = dcg_[pos] / _at(running_idcg, ideal.start, rows, np.minimum(rank[pos], M[rows]))
        total = ctx.rowsum(rows, terms)
        n_found = np.bincount(rows, minlength=ctx.n)
        final_dcg = ctx.rowsum(seg, np.where(_last_of_row(seg), dcg_, 0.0))
        final_idcg = _at(running_idcg, ideal.start, np.arange(ctx.n), M)
        total = total + ((M - n_found).astype(np.float64) * final_dcg) / final_idcg
        return np.where(total > 0, total / np.maximum(M, 1), 0.0)


def _last_of_row(seg: np.ndarray) -> np.ndarray:
    """True at the last entry of each row (seg non-decreasing)."""
    return np.append(seg[1:] != seg[:-1], True) if len(seg) else np.zeros(0, dtype=bool)


def rndcg(ctx, m):
    """Rndcg (trec_eval, experimental): nDCG averaged at each rank where the ideal gain level drops.

    With the ideal ranking's gains y_1 .. y_M: nDCG is taken after rank i for every i < M with
    y_{i+1} != y_i, after rank M (where the ideal gain drops to 0), and after the last retrieved rank when
    it lies beyond M + 1; DCG after rank i sums the retrieved ranks <= i only.  0 when R = 0.  ``gains=``
    as trec_eval's (its 0/0 when no such point has an ideal DCG above 0 is 0 here).
    """
    R = ctx.num_rel(level(ctx, m))
    ideal, _, seg, rank, running_idcg, dcg_ = _trec_running_dcg(ctx, m)
    M = ideal.count
    # the points: i (1-based) where the next ideal gain differs, and i = M
    change = np.flatnonzero(np.append((ideal.seg[1:] == ideal.seg[:-1]) & (ideal.gain[1:] != ideal.gain[:-1]),
                                      False) | _last_of_row(ideal.seg))
    rows, at = ideal.seg[change], ideal.pos[change]
    nret = ctx.nret
    beyond = np.flatnonzero((M > 0) & (M + 1 < nret))  # the retrieved list goes on past the ideal one
    rows = np.concatenate((rows, beyond))
    at = np.concatenate((at, nret[beyond]))
    ideal_at = np.concatenate((running_idcg[change], _at(running_idcg, ideal.start, beyond, M[beyond])))
    order = np.lexsort((at, rows))  # each row's points in order: the sum is taken in trec_eval's order
    rows, at, ideal_at = rows[order], at[order], ideal_at[order]
    # DCG after rank `at`: the running DCG of the last retrieved entry of the row ranked <= at
    span = int(max(nret.max(initial=0), M.max(initial=0))) + 2
    found = np.searchsorted(seg * span + rank, rows * span + at, side="right") - 1
    first = np.searchsorted(seg, rows, side="left")
    dcg_at = np.where(found >= first, dcg_[np.maximum(found, 0)] if len(dcg_) else 0.0, 0.0)
    total = ctx.rowsum(rows, dcg_at / ideal_at)
    points = np.bincount(rows, minlength=ctx.n)
    return np.where((R > 0) & (points > 0), _div(total, points), 0.0)


# ----------------------------------------------------------------------------- rows
_TREC_GAINS = Param("gains", dict, None, "gain per grade {grade: gain} (trec_eval's grade=gain parameters); grades "
                    "not listed gain their grade", check=gain_map)


ROWS = [
    Family("binG", bin_g, "trec_eval binG (experimental)", (REL,), cutoff="none", expected=False,
           trec=(TrecName("binG", "plain", place=19),),
           formula="``(1/R) sum_{relevant retrieved} 1 / log2(2 + non-relevant above it)``"),
    Family("G", g_measure, "trec_eval G (experimental)", (_TREC_GAINS,), cutoff="none", expected=False, graded=True,
           trec=(TrecName("G", "pairs", params=("gains",), place=20),), normal=gain_order,
           formula="``sum_i g_i / log2(2 + cost_i - gain so far_i)`` over the total ideal gain, cost_i summing "
                   "max(ideal gain, 1) over ranks <= i; ``gains={g: v}`` as trec_eval's ``G.1=3``"),
    Family("nDCG_rel", ndcg_rel, "trec_eval ndcg_rel (experimental)", (_TREC_GAINS,), cutoff="none", expected=False,
           graded=True, trec=(TrecName("ndcg_rel", "pairs", params=("gains",), place=22),), normal=gain_order,
           formula="nDCG averaged over the relevant documents (at each one retrieved; the final nDCG for the "
                   "others); ``gains={g: v}`` as trec_eval's"),
    Family("RnDCG", rndcg, "trec_eval Rndcg (experimental)", (REL, _TREC_GAINS), cutoff="none", expected=False,
           trec=(TrecName("Rndcg", "pairs", params=("gains",), place=23),), normal=gain_order,
           formula="nDCG averaged at each rank where the ideal gain drops; ``gains={g: v}`` as trec_eval's"),
]
