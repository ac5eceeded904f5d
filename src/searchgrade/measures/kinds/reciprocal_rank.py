"""Reciprocal rank: RR (trec_eval's ``recip_rank``, ranx's ``mrr``), its kernel and its C/W/L user model.

RR is 1 over the rank of the first relevant document (0 when none is retrieved, or none within the
cut-off of RR@k); ``ties="expected"`` averages it over the orders of the first tie group holding a
relevant document.  Its user model reads until the first gain (Kantor & Voorhees 2000).
"""
from __future__ import annotations

import numpy as np

from ..family import Family, RanxName, TrecName
from ..params import REL
from .base import gammaln, level
from .user_model import ONE, UserModel

__all__ = ["ROWS", "RR_MODEL", "reciprocal_rank"]


# --------------------------------------------------------------------------- kernels
def reciprocal_rank(ctx, m):
    """RR = 1 / rank of the first relevant document (0 if none, or none within the cutoff k)."""
    L, k = level(ctx, m), m.cutoff
    rel = ctx.rel(L)
    out = np.zeros(ctx.n)
    idx = np.flatnonzero(rel)
    if len(idx) == 0:
        return out
    seg = ctx.seg[idx]  # rows of the relevant entries, non-decreasing
    first = np.flatnonzero(np.concatenate(([True], seg[1:] != seg[:-1])))
    rows = seg[first]
    first_idx = idx[first]
    ranks = ctx.rank[first_idx].astype(np.float64)
    if not ctx.expected:
        val = 1.0 / ranks
        if k is not None:
            val = np.where(ranks <= k, val, 0.0)
        out[rows] = val
        return out
    # Expected value over the first tie group holding a relevant document: with
    # s documents before it, n in it and r relevant, the first relevant one sits
    # at s + j with P(j) = C(n-j, r-1) / C(n, r), j = 1 .. n-r+1.
    size, start0, _ = ctx.groups()
    relf = rel.astype(np.float64)
    r_g = np.bincount(ctx.gid, weights=relf, minlength=len(size))
    for row, i in zip(rows, first_idx):
        g = ctx.gid[i]
        n, r, s = int(size[g]), int(r_g[g]), int(start0[g])
        j = np.arange(1, n - r + 2, dtype=np.float64)
        logp = (gammaln(n - j + 1) - gammaln(r) - gammaln(n - j - r + 2)) - (
            gammaln(n + 1) - gammaln(r + 1) - gammaln(n - r + 1))
        pos = s + j
        w = np.exp(logp) / pos
        if k is not None:
            w = np.where(pos <= k, w, 0.0)
        out[row] = w.sum()
    return out


def _c_rr(i, g, G, m):
    """RR: C(i) = 1 while no gain has been seen (and i < k for RR@k), 0 from the first gain."""
    go = G == 0
    return (go & (i < m.cutoff) if m.cutoff is not None else go).astype(np.float64)


#: RR's C/W/L user model: searchgrade.cwl draws its curves.
RR_MODEL = UserModel(_c_rr, *ONE, gain="binary")


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("RR", reciprocal_rank, "reciprocal rank of the first relevant document", (REL,),
           curve=RR_MODEL, trec=(TrecName("recip_rank", "plain", place=9, sets=("official",)),),
           formula="``1 / (rank of the first relevant document)``; ``RR@k`` 0 beyond k",
           cite="Kantor & Voorhees 2000", ranx="mrr",
           aliases=("mrr",), ranx_names=(RanxName("mrr"),)),
]
