"""Interpolated precision: IPrec at a recall level (trec_eval's ``iprec_at_recall``) and 11pt (``11pt_avg``).

The interpolated precision at recall r is the best precision at any rank whose recall is at least r,
the level r*R rounded half up to a whole number of relevant documents (trec_eval 10; pytrec_eval
runs trec_eval 9's rounding, a documented difference).
"""
from __future__ import annotations

import numpy as np

from ..family import Differs, Family, TrecName
from ..params import REL, Param, recall_levels
from .base import _dense_rank, level

__all__ = ["ROWS", "STANDARD_LEVELS", "iprec", "eleven_pt"]


# --------------------------------------------------------------------------- kernels
def _lround(x):
    """C's lround for non-negative doubles: round half away from zero."""
    f = np.floor(x)
    return f + ((x - f) >= 0.5)


def _iprec(ctx, L, levels):
    """Interpolated precision at each recall level: rows x levels (trec_eval iprec_at_recall)."""
    R = ctx.num_rel(L)
    out = np.zeros((ctx.n, len(levels)))
    if ("iprec", L) not in ctx.cache:
        ctx.cache[("iprec", L)] = _interpolated(ctx, L)
    smax, nrr, start = ctx.cache[("iprec", L)]
    if len(smax) == 0:
        return out
    for c_i, r in enumerate(levels):
        c = _lround(r * R)  # the recall level as a number of relevant documents
        c = np.maximum(c, 1)  # recall 0: the best precision anywhere
        ok = (c <= nrr) & (nrr > 0)
        rows = np.flatnonzero(ok)
        out[rows, c_i] = smax[start[rows] + c[rows].astype(np.int64) - 1]
    return out


def _interpolated(ctx, L) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(interpolated precision at each relevant retrieved document, their count per row, each row's first)."""
    idx = ctx.where("rel", L)
    seg = ctx.seg[idx]
    nrr = np.bincount(seg, minlength=ctx.n)
    start = np.concatenate(([0], np.cumsum(nrr)[:-1]))
    if len(idx) == 0:
        return np.zeros(0), nrr, start
    j = ctx.running(idx, np.ones(len(idx), dtype=bool)).astype(np.float64)  # j-th relevant document of its row
    prec = j / ctx.rank[idx]
    # Suffix maximum of precision within each row, on exact integer codes of the values (their order):
    # a row's codes are offset above every later row's, so the running maximum restarts at each row.
    code = _dense_rank(prec)
    values = np.empty(int(code.max()) + 1)
    values[code] = prec
    off = (seg.max() - seg[::-1]) * len(values)
    return values[np.maximum.accumulate(code[::-1] + off) - off][::-1], nrr, start


def iprec(ctx, m):
    """IPrec@r = max precision at any rank whose recall >= r, the level r*R rounded as trec_eval does."""
    return _iprec(ctx, level(ctx, m), [m.cutoff])[:, 0]


#: trec_eval's recall levels (iprec_at_recall's defaults, 11pt_avg's levels).
STANDARD_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def eleven_pt(ctx, m):
    """11pt = mean of IPrec at recall 0.0, 0.1, ..., 1.0 (or at ``levels=``), summed from the last level to
    the first and then divided, as trec_eval's 11pt_avg adds them."""
    levels = m.params.get("levels") or STANDARD_LEVELS
    iprec_ = _iprec(ctx, level(ctx, m), levels)
    total = np.zeros(ctx.n)
    for c in range(len(levels) - 1, -1, -1):
        total = total + iprec_[:, c]
    return total / len(levels)


# ----------------------------------------------------------------------------- rows
_LEVELS = Param("levels", tuple, None, "recall levels averaged over (default 0, 0.1, ..., 1; trec_eval 11pt_avg.x,y,..)",
                check=recall_levels)

_IPREC_NOTE = "pytrec_eval (trec_eval 9) turns a recall level r into (long)(r*R + 0.9) documents, not lround(r*R)"


def _eleven_finish(measure: str, params: dict, given: set) -> dict:
    """11pt: the standard levels are the default, written or not."""
    if params.get("levels") == STANDARD_LEVELS:
        del params["levels"]
    return params


ROWS = [
    Family("IPrec", iprec, "interpolated precision at a recall level", (REL,), cutoff="recall", expected=False,
           trec=(TrecName("iprec_at_recall", "level", STANDARD_LEVELS, note=_IPREC_NOTE, place=10,
                          sets=("official",)),),
           formula="max precision at ranks where recall >= r, the level r*R rounded half up to a whole number of "
                   "relevant documents (trec_eval 10)",
           differs=Differs("IPrec level r", "lround(r * R) relevant documents",
                           "trec_eval 9: (long)(r * R + 0.9) relevant documents")),
    Family("11pt", eleven_pt, "11-point interpolated average precision (IPrec averaged over recall levels)",
           (REL, _LEVELS), cutoff="none", expected=False, finish=_eleven_finish,
           trec=(TrecName("11pt_avg", "list", params=("levels",), note=_IPREC_NOTE, place=18),),
           formula="mean of IPrec at r = 0, 0.1, ..., 1 (``levels=[..]``: other levels, trec_eval's "
                   "``11pt_avg.0.2,0.5,0.8``), summed last level first",
           aliases=("11ptavg",)),
]
