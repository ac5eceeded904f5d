"""Precision and recall at a depth: P, R, Hit, Hits, RelP, Rprec and RprecMult (rows, kernels, P's user model).

Each counts the relevant documents (grade >= the measure's ``rel=``, or the evaluation's rel_level) in
the top k, or in the top R, and divides by what its name says.  trec_eval prints them as ``P_k``,
``recall_k``, ``success_k``, ``relative_P_k``, ``Rprec`` and ``Rprec_mult_x`` (pytrec_eval reports the
same keys); ranx calls P, R, Hit, Hits and Rprec ``precision``, ``recall``, ``hit_rate``, ``hits`` and
``r-precision``.
"""
from __future__ import annotations

import numpy as np

from ..family import TREC_CUTS, Family, RanxName, TrecName
from ..params import REL, Param, positive
from .base import _div, gammaln, level
from .user_model import UserModel

__all__ = ["ROWS", "P_MODEL", "precision", "recall", "relative_precision", "hits", "hit", "r_precision", "rprec_mult"]


# --------------------------------------------------------------------------- kernels
def precision(ctx, m):
    """P@k = |relevant in top k| / k (trec_eval P_k; a short run counts as non-relevant padding)."""
    k = m.cutoff
    return ctx.rel_hits(level(ctx, m), k) / k


def recall(ctx, m):
    """R@k = |relevant in top k| / R (0 when R = 0)."""
    L = level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), ctx.num_rel(L))


def relative_precision(ctx, m):
    """RelP@k = |relevant in top k| / min(k, R) (trec_eval relative_P_k)."""
    L = level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), np.minimum(m.cutoff, ctx.num_rel(L)))


def hits(ctx, m):
    """Hits@k = |relevant in top k|, a count per query (ranx's hits; no cut-off: every document retrieved)."""
    return ctx.rel_hits(level(ctx, m), m.cutoff)


def hit(ctx, m):
    """Hit@k = 1 if a relevant document is in the top k, else 0 (trec_eval success_k; no cut-off: retrieved)."""
    L, k = level(ctx, m), (np.inf if m.cutoff is None else m.cutoff)
    rel = ctx.rel(L)
    if not ctx.expected:
        return (ctx.rel_hits(L, k) > 0).astype(np.float64)
    # Expected value: 1 - P(no relevant document in the top k).  A tie group of
    # size n holding r relevant documents, of which m positions fall within the
    # cutoff, contributes P(none of the m is relevant) = C(n-r, m) / C(n, m).
    size, start0, first = ctx.groups()
    r = np.bincount(ctx.gid, weights=rel.astype(np.float64), minlength=len(size))
    inside = np.clip(k - start0, 0, size).astype(np.float64)
    zero = inside > size - r  # cannot avoid a relevant document
    logp = np.zeros(len(size))
    ok = ~zero & (inside > 0) & (r > 0)
    n_, r_, m_ = size[ok].astype(np.float64), r[ok], inside[ok]
    logp[ok] = gammaln(n_ - r_ + 1) - gammaln(n_ - r_ - m_ + 1) - gammaln(n_ + 1) + gammaln(n_ - m_ + 1)
    row = ctx.seg[first]
    sure = np.bincount(row[zero], minlength=ctx.n) > 0
    p_none = np.exp(np.bincount(row, weights=logp, minlength=ctx.n))
    return np.where(sure, 1.0, 1.0 - p_none)


def r_precision(ctx, m):
    """Rprec = |relevant in top R| / R: precision after R documents (0 when R = 0)."""
    L = level(ctx, m)
    R = ctx.num_rel(L)
    return _div(ctx.rel_hits(L, R), R)


def rprec_mult(ctx, m):
    """RprecMult(m=x) = P@c with c = floor(x*R + 0.9) (trec_eval Rprec_mult_x; 0 when c = 0)."""
    L = level(ctx, m)
    R = ctx.num_rel(L)
    with np.errstate(over="ignore"):  # m = 1e308: c = inf, and P at an infinite depth is 0
        c = np.floor(m.params["m"] * R + 0.9)
    return _div(ctx.rel_hits(L, c), c)


def _c_precision(i, g, G, m):
    """P@k: C(i) = 1 for i < k, 0 from k."""
    return (i < m.cutoff).astype(np.float64)


#: P@k's C/W/L user model (W(i) = 1/k on ranks 1..k): searchgrade.cwl draws its curves.
P_MODEL = UserModel(_c_precision, gain="binary")


# ----------------------------------------------------------------------------- rows
_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # Rprec_mult


ROWS = [
    Family("P", precision, "precision at k", (REL,), cutoff="required",
           trec=(TrecName("P", "cut", TREC_CUTS, place=11, sets=("official",)),),
           curve=P_MODEL, formula="``sum_{i<=k} rel_i / k``", ranx="precision",
           aliases=("precision",), ranx_names=(RanxName("precision", "@k"),)),
    Family("R", recall, "recall at k", (REL,), cutoff="required",
           trec=(TrecName("recall", "cut", TREC_CUTS, place=13),),
           formula="``sum_{i<=k} rel_i / R``", ranx="recall",
           aliases=("recall",), ranx_names=(RanxName("recall", "@k"),)),
    Family("Hit", hit, "1 if a relevant document is in the top k (success)", (REL,),
           trec=(TrecName("success", "cut", (1, 5, 10), place=27),),
           formula="1 if ``sum_{i<=k} rel_i > 0`` else 0 (no cut-off: any relevant document retrieved)",
           ranx="hit_rate",
           aliases=("success",), ranx_names=(RanxName("hit_rate"),)),
    Family("Hits", hits, "relevant documents in the top k, a count averaged over queries", (REL,),
           formula="``sum_{i<=k} rel_i`` (no cut-off: every document retrieved); the mean over queries, where "
                   "NumRelRet sums", ranx="hits",
           ranx_names=(RanxName("hits"),)),
    Family("RelP", relative_precision, "relevant in top k / min(k, R)", (REL,), cutoff="required",
           trec=(TrecName("relative_P", "cut", TREC_CUTS, place=26),), formula="``sum_{i<=k} rel_i / min(k, R)``"),
    Family("Rprec", r_precision, "precision after R documents", (REL,), cutoff="none",
           trec=(TrecName("Rprec", "plain", place=7, sets=("official",)),), formula="``P@R``", ranx="r-precision",
           ranx_names=(RanxName("r-precision", "whole"),)),
    Family("RprecMult", rprec_mult, "precision after floor(m*R + 0.9) documents",
           (REL, Param("m", float, 1.0, "multiple of R", check=positive)), cutoff="none",
           trec=(TrecName("Rprec_mult", "level", _MULTS, target="m", place=16),),
           formula="``P@c``, ``c = floor(m*R + 0.9)`` (0 when c = 0)"),
]
