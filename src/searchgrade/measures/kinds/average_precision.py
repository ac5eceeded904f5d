"""Average precision: AP (AP@k, trec_eval's ``map`` and ``map_cut_k``) and GMAP, its geometric mean over queries.

AP is the mean of the precision at each relevant document, divided by R (the relevant documents in the
qrels, retrieved or not); ``ties="expected"`` takes its expectation over the orders of tied documents in
closed form (McSherry & Najork 2008).  ranx calls AP ``map``; GMAP is trec_eval's ``gm_map``.
"""
from __future__ import annotations

import numpy as np

from ..family import TREC_CUTS, Family, RanxName, TrecName
from ..params import REL
from .base import _div, level

__all__ = ["ROWS", "average_precision"]


# --------------------------------------------------------------------------- kernels
def average_precision(ctx, m):
    """AP = (1/R) * sum over relevant ranks i (within the cutoff) of P@i; AP@k keeps the divisor R."""
    L, k = level(ctx, m), m.cutoff
    rel = ctx.rel(L)
    R = ctx.num_rel(L)
    if not ctx.expected:  # only relevant ranks add a term: P@i = (i-th relevant of the row) / rank
        idx = ctx.where("rel", L)
        seg, rank = ctx.seg[idx], ctx.rank[idx]
        crel = ctx.running(idx, np.ones(len(idx), dtype=bool))
        terms = crel / rank
        if k is not None:
            seg, terms = seg[rank <= k], terms[rank <= k]
        return _div(ctx.rowsum(seg, terms), R)
    # E[AP] (McSherry & Najork 2008): for position i in tie group G (n docs,
    # r relevant, C relevant documents in earlier groups, i0 = positions of G
    # before i): E[rel_i * sum_{j<=i} rel_j] = r/n * (1 + C + i0*(r-1)/(n-1)).
    size, start0, first = ctx.groups()
    relf = rel.astype(np.float64)
    r = np.bincount(ctx.gid, weights=relf, minlength=len(size))
    crel = ctx.segcumsum(relf)
    c_before = (crel - relf)[first]  # relevant documents before each group
    n_e = size[ctx.gid].astype(np.float64)
    r_e = r[ctx.gid]
    i0 = ctx.rank - 1 - start0[ctx.gid]
    pair = _div(r_e - 1, n_e - 1)
    terms = (r_e / n_e) * (1 + c_before[ctx.gid] + i0 * pair) / ctx.rank
    return _div(ctx.ssum(terms, ctx.top(k)), R)


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("AP", average_precision, "average precision (AP@k: divided by R)", (REL,),
           trec=(TrecName("map", "plain", place=5, sets=("official",)),
                 TrecName("map_cut", "cut", TREC_CUTS, place=25)),
           formula="``(1/R) sum_i rel_i * P@i``; ``AP@k`` (``map_cut_k``) sums ``i <= k``", ranx="map",
           aliases=("map",), ranx_names=(RanxName("map"),)),
    Family("GMAP", average_precision, "AP per query, geometric mean over queries", (REL,), agg="gmean",
           trec=(TrecName("gm_map", "plain", per_query=False, place=6, sets=("official",)),), formula="AP per query"),
]
