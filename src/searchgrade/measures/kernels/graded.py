"""Kernels of the graded measures: DCG, nDCG, CG, RBP, ERR."""
from __future__ import annotations

import numpy as np

from ..qrels import warn_user
from .base import _div, _local_cumsum
from .gains import _discounted, _gain, _gain_entries, _gain_items, _pow2, _unscale
from .ideal import _trec_ideal


def _dcg(ctx, m, discounted=True):
    """Per-row DCG (or CG) of the run within the cutoff."""
    if not ctx.expected:  # documents with grade 0 gain 0 (unless gains= says otherwise): visit the others only
        idx = _gain_entries(ctx, m)
        seg, rank = ctx.seg[idx], ctx.rank[idx]
        if m.cutoff is not None:
            keep = rank <= m.cutoff
            idx, seg, rank = idx[keep], seg[keep], rank[keep]
        w = _gain(ctx, m, ctx.grade[idx], seg, ctx.judged[idx])
        if discounted:
            w = _discounted(m, w, rank, ctx)
        return ctx.rowsum(seg, w)
    gain = ctx.lin(_gain(ctx, m, ctx.grade, ctx.seg, ctx.judged))
    w = _discounted(m, gain, ctx.rank, ctx) if discounted else gain
    return ctx.ssum(w, ctx.top(m.cutoff))


def _ideal_dcg(ctx, m, discounted=True):
    """Per-row DCG of the ideal ranking within the cutoff: all judged documents by decreasing gain (a gain
    below 0 is left out), or with ``ideal=trec`` trec_eval's walk over its gains (:func:`_trec_ideal`)."""
    if m.params.get("ideal") == "trec":
        ideal = _trec_ideal(ctx, m)
        seg, g, pos = ideal.seg, ideal.gain, ideal.pos
    else:
        g = _gain(ctx, m, ctx.qgrade, ctx.qseg)
        if _gain_items(m):  # custom gains need not follow the grades' order
            g = np.maximum(g[np.lexsort((-g, ctx.qseg))], 0.0)
        seg, pos = ctx.qseg, ctx.qrank
    if m.cutoff is not None:
        keep = pos <= m.cutoff
        seg, g, pos = seg[keep], g[keep], pos[keep]
    w = _discounted(m, g, pos, ctx) if discounted else g
    return np.bincount(seg, weights=w, minlength=ctx.n)


def ndcg(ctx, m):
    """nDCG@k = DCG@k / ideal DCG@k, DCG@k = sum_{i<=k} gain(g_i) * discount(i) (0 if no positive gain)."""
    return _div(_dcg(ctx, m), _ideal_dcg(ctx, m))


def dcg(ctx, m):
    """DCG@k = sum over ranks i <= k of gain(g_i) * discount(i) (not normalised)."""
    return _unscale(ctx, m, _dcg(ctx, m))


def cg(ctx, m):
    """CG@k = sum over ranks i <= k of gain(g_i) (cumulated gain, no discount)."""
    return _unscale(ctx, m, _dcg(ctx, m, discounted=False))


def rbp_gain(ctx, m):
    """RBP's gain of every ranked document of ctx (a :class:`~searchgrade.measures.kernels.base.Ranked`)
    under measure m: binary at rel= if given; min(grade, G) / G with G = max_grade= if given; with gains= the
    gain of each grade, rescaled as trec_eval's rbp does (:func:`_rbp_scale`); otherwise grade / the
    largest grade in the query's qrels (trec_eval's rbp with every grade gaining itself)."""
    if "rel" in m.params:
        return ctx.rel(m.params["rel"]).astype(np.float64)
    if m.params.get("gain") == "grade":  # ranx's rbp: the grade itself
        return np.maximum(ctx.grade.astype(np.float64), 0.0)
    if _gain_items(m):
        gain = _gain(ctx, m, ctx.grade, ctx.seg, ctx.judged)
        lo, hi = _rbp_scale(ctx, m)
        lo, hi = lo[ctx.seg], hi[ctx.seg]
        rescale = ctx.judged & ((lo < 0) | (hi > 1))  # documents without a judgment gain 0 (trec_eval's get_gain)
        gain[rescale] = (gain[rescale] - lo[rescale]) / (hi[rescale] - lo[rescale])
        return gain
    grade = np.maximum(ctx.grade.astype(np.float64), 0.0)
    if "max_grade" in m.params:
        gmax = float(m.params["max_grade"])
        return np.minimum(grade, gmax) / gmax
    gain = np.zeros(len(grade))  # grade / the row's largest grade, where the grade is above 0
    idx = ctx.where("gain")
    gain[idx] = grade[idx] / ctx.max_grade()[ctx.seg[idx]]
    return gain


def _rbp_scale(ctx, m) -> tuple[np.ndarray, np.ndarray]:
    """Per row (min, max) of trec_eval's rbp gains, both taken with 0: the gains listed, and grade g
    for each grade g from 0 to the row's largest that is not listed (m_rbp.c, its min and max zeroed)."""
    given = dict(_gain_items(m))
    top = ctx.top_grade()
    lo, hi = np.zeros(ctx.n), np.zeros(ctx.n)
    for t in np.unique(top).tolist():
        table = list(given.values()) + [float(g) for g in range(t + 1) if g not in given]
        rows = top == t
        lo[rows], hi[rows] = min(0.0, *table), max(0.0, *table)
    return lo, hi


def _powers(p: float, n: int) -> np.ndarray:
    """p^0 .. p^n, each the one before times p, as trec_eval's loops take them (np.cumprod is sequential)."""
    pw = np.full(n + 1, p)
    pw[0] = 1.0
    return np.cumprod(pw)


def rbp(ctx, m):
    """RBP(p) = (1 - p) * sum_i gain_i * p^(i-1) (Moffat & Zobel 2008)."""
    p = m.params["p"]
    pw = _powers(p, int(ctx.nret.max(initial=0)))
    gain = rbp_gain(ctx, m)
    if ctx.expected:
        return (1 - p) * ctx.ssum(ctx.lin(gain) * pw[ctx.rank - 1], ctx.top(m.cutoff))
    idx = np.flatnonzero(gain != 0)  # adding gain 0 changes no sum
    if m.cutoff is not None:
        idx = idx[ctx.rank[idx] <= m.cutoff]
    return (1 - p) * ctx.rowsum(ctx.seg[idx], gain[idx] * pw[ctx.rank[idx] - 1])


def rbp_resid(ctx, m):
    """RBP_resid(p) = p^n + (1 - p) * sum over unjudged ranks i <= n of p^(i-1), n = min(k, docs retrieved).

    With ``tail=unjudged`` (trec_eval's rbp_resid) the value is 0 when no unjudged document is
    among the n: trec_eval sets it only then, dropping the residual p^n of the documents not retrieved.
    """
    p = m.params["p"]
    k = m.cutoff
    n = ctx.nret if k is None else np.minimum(ctx.nret, k)
    pw = _powers(p, int(ctx.nret.max(initial=0)))
    unjudged = ~ctx.judged
    if ctx.expected:
        value = pw[n] + (1 - p) * ctx.ssum(ctx.lin(unjudged) * pw[ctx.rank - 1], ctx.top(k))
    else:
        idx = np.flatnonzero(unjudged if k is None else unjudged & (ctx.rank <= k))
        value = pw[n] + (1 - p) * ctx.rowsum(ctx.seg[idx], pw[ctx.rank[idx] - 1])
    if m.params.get("tail") == "unjudged":
        inside = unjudged if k is None else unjudged & (ctx.rank <= k)
        value = np.where(np.bincount(ctx.seg[inside], minlength=ctx.n) > 0, value, 0.0)
    return value


def _warn_grade_scale(m, top: np.ndarray) -> None:
    """ERR without max_grade=: say so when a query's largest grade is not ir_measures' (gdeval's) fixed 4."""
    other = sorted(set(top[(top > 0) & (top != 4)].tolist()))
    if other:
        at = "" if m.cutoff is None else f"@{m.cutoff}"
        shown = ", ".join(map(str, other[:3])) + (", ..." if len(other) > 3 else "")
        warn_user(f"{m.name}: no max_grade=, so each query's grade scale is its largest grade (here {shown}); "
                  f"ir_measures' ERR{at} fixes it at 4: ERR(max_grade=4){at} gives its value")


def err(ctx, m):
    """ERR@k = sum_i (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^g_i - 1) / 2^gmax (Chapelle et al. 2009).

    gmax is ``max_grade=`` or the query's largest grade; grades above it count
    as gmax.  R_i = 2^(g_i - gmax) - 2^-gmax and log(1 - R_j) (exactly
    -gmax log 2 when g_j = gmax) are computed with ldexp and log1p, so any grade
    stays finite; the product runs within each query on its own.
    """
    top = np.full(ctx.n, m.params["max_grade"], np.int64) if "max_grade" in m.params else ctx.top_grade()
    if "max_grade" not in m.params:
        _warn_grade_scale(m, top)
    idx = ctx.where("gain")  # only grades > 0 have R > 0 (and 1 - R < 1)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    if m.cutoff is not None:
        keep = rank <= m.cutoff
        idx, seg, rank = idx[keep], seg[keep], rank[keep]
    gmax = top[seg]
    g = np.minimum(ctx.grade[idx], gmax)
    stop = _pow2(g - gmax) - _pow2(-gmax)
    with np.errstate(divide="ignore"):
        log_keep = np.where(g == gmax, -gmax * np.log(2.0), np.log1p(_pow2(-gmax) - _pow2(g - gmax)))
    before = _local_cumsum(log_keep, seg, ctx.n, exclusive=True)  # log prod_{j<i} (1 - R_j)
    return ctx.rowsum(seg, stop * np.exp(before) / rank)
