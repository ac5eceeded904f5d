"""Measures for incomplete judgments, and how incomplete they are: Bpref, infAP, Judged, Hole and Unj.

Bpref (Buckley & Voorhees 2004) skips unjudged documents; infAP (Yilmaz & Aslam 2006) estimates AP
from the judged sample, as trec_eval computes it; Judged@k, Hole@k and Unj@k (trec_eval's ``unj_k``)
say how much of the top k has a judgment.  GMBpref, Bpref's geometric mean over queries, is in
:mod:`~searchgrade.measures.kinds.gm_bpref`.
"""
from __future__ import annotations

import numpy as np

from ..family import Differs, Family, RanxName, TrecName
from ..params import REL
from .base import INFAP_EPSILON, _div, level

__all__ = ["ROWS", "bpref", "infap", "judged_at", "hole_at", "unjudged_at"]


# --------------------------------------------------------------------------- kernels
def bpref(ctx, m):
    """Bpref = (1/R) sum over retrieved relevant r of (1 - min(N_r, R) / min(N, R)) (Buckley & Voorhees 2004).

    N_r: judged non-relevant documents ranked above r; N: judged non-relevant
    documents in the qrels.  Unjudged documents are skipped (trec_eval's bpref).
    """
    L = level(ctx, m)
    if ("bpref", L) in ctx.cache:  # Bpref and GMBpref: one value per query
        return ctx.cache[("bpref", L)].copy()
    R = ctx.num_rel(L)
    N = ctx.num_judged_nonrel(L)
    idx = ctx.where("judged")  # only judged documents matter: visit those
    rel = ctx.grade[idx] >= L
    n_above = ctx.running(idx, ~rel)  # judged non-relevant at or above each entry
    seg = ctx.seg[idx][rel]
    terms = 1.0 - _div(np.minimum(n_above[rel], R[seg]), np.minimum(N, R)[seg])
    ctx.cache[("bpref", L)] = out = _div(ctx.rowsum(seg, terms), R)
    return out.copy()


def infap(ctx, m):
    """infAP (Yilmaz & Aslam 2006) exactly as trec_eval computes it; equals AP when every document is judged.

    Only documents in the pool (judged, or pooled and unjudged) count: the running counts are taken over
    those entries alone, the terms at the relevant ones.
    """
    L = level(ctx, m)
    idx = np.flatnonzero(~ctx.nonpool)  # in the pool: judged, or pooled but unjudged (negative grade)
    judged = ctx.judged[idx]
    rel = judged & (ctx.grade[idx] >= L)
    rel_so_far = ctx.running(idx, rel)[rel].astype(np.float64)
    nonrel_so_far = ctx.running(idx, judged & ~rel)[rel].astype(np.float64)
    unj_so_far = ctx.running(idx, ~judged)[rel].astype(np.float64)
    seg = ctx.seg[idx][rel]
    j = ctx.rank[idx][rel] - 1.0
    safe_j = np.maximum(j, 1.0)
    e = INFAP_EPSILON
    term = 1.0 / (j + 1) + (j / (j + 1)) * ((rel_so_far - 1 + nonrel_so_far + unj_so_far) / safe_j) * (
        (rel_so_far - 1 + e) / (rel_so_far - 1 + nonrel_so_far + 2 * e))
    term = np.where(j == 0, 1.0, term)
    return _div(ctx.rowsum(seg, term), ctx.num_rel(L))


def judged_at(ctx, m):
    """Judged@k = |documents with a judgment (grade >= 0) in the top k| / k."""
    return ctx.ssum(ctx.lin(ctx.judged), ctx.top(m.cutoff)) / m.cutoff


def hole_at(ctx, m):
    """Hole@k = 1 - Judged@k (a short run's missing ranks count as holes)."""
    return 1.0 - judged_at(ctx, m)


def unjudged_at(ctx, m):
    """Unj@k = |unjudged documents in the top k| / k (trec_eval unj_k; = Hole@k when at least k retrieved)."""
    return ctx.ssum(ctx.lin(~ctx.judged), ctx.top(m.cutoff)) / m.cutoff


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("Bpref", bpref, "binary preference", (REL,), cutoff="none", expected=False,
           trec=(TrecName("bpref", "plain", place=8, sets=("official",)),),
           formula="``(1/R) sum_{relevant retrieved r} (1 - min(N_r, R) / min(N, R))``, N_r judged non-relevant "
                   "above r, N judged non-relevant in the qrels", cite="Buckley & Voorhees 2004",
           ranx="bpref (NaN when a query has no relevant or no judged non-relevant document)",
           ranx_names=(RanxName("bpref", "whole"),)),
    Family("infAP", infap, "inferred AP (trec_eval)", (REL,), cutoff="none", expected=False,
           trec=(TrecName("infAP", "plain", place=14),),
           formula="AP estimated from the judged sample, counting only pooled documents; AP when every document "
                   "is judged", cite="Yilmaz & Aslam 2006"),
    Family("Judged", judged_at, "fraction of the top k with a judgment", cutoff="required", graded=True,
           formula="judged documents (grade >= 0) in the top k, divided by k",
           differs=Differs("Judged@k", "(``unj_k``: unjudged / k)", "ir_measures: documents in the qrels (grade -1 "
                           "too) / min(k, retrieved)")),
    Family("Hole", hole_at, "1 - Judged@k", cutoff="required", graded=True, formula="``1 - Judged@k``"),
    Family("Unj", unjudged_at, "unjudged in top k / k (trec_eval unj_k)", cutoff="required", graded=True,
           trec=(TrecName("unj", "cut", (5, 10, 20), pytrec_eval=False, place=36),),
           formula="unjudged documents in the top k divided by k (``Hole@k`` when at least k are retrieved)"),
]
