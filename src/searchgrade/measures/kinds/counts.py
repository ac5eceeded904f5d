"""Counts summed over queries: NumQ, NumRet, NumRel, NumRelRet and NumNonRelJudgedRet (rows, kernels).

trec_eval's ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret`` and ``num_nonrel_judged_ret``:
integers per query, summed (not averaged) over queries.  ir_measures' ``NumRet(rel=1)`` is NumRelRet.
"""
from __future__ import annotations

import numpy as np

from ..family import ANY, Family, IrParam, TrecName
from ..params import REL
from .base import level

__all__ = ["ROWS", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]


# --------------------------------------------------------------------------- kernels
def num_q(ctx, m):
    """NumQ = 1 per query evaluated (summed by aggregate: trec_eval's num_q)."""
    return np.ones(ctx.n)


def num_ret(ctx, m):
    """NumRet = number of documents retrieved (after max_docs / judged_only)."""
    return ctx.nret.astype(np.float64)


def num_rel(ctx, m):
    """NumRel = R, the qrels documents with grade >= rel level."""
    return ctx.num_rel(level(ctx, m)).copy()


def num_rel_ret(ctx, m):
    """NumRelRet = number of relevant documents retrieved."""
    return ctx.rel_hits(level(ctx, m))


def num_nonrel_judged_ret(ctx, m):
    """NumNonRelJudgedRet = retrieved documents judged non-relevant (0 <= grade < rel level)."""
    L = level(ctx, m)
    if ctx.expected:
        return ctx.ssum(ctx.lin(ctx.judged & ~ctx.rel(L)))
    idx = ctx.where("judged")
    return np.bincount(ctx.seg[idx[ctx.grade[idx] < L]], minlength=ctx.n).astype(np.float64)


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("NumQ", num_q, "queries evaluated", cutoff="none", agg="sum", integer=True, graded=True,
           trec=(TrecName("num_q", "plain", per_query=False, place=1, sets=("official", "set")),),
           formula="1 per query evaluated"),
    Family("NumRet", num_ret, "documents retrieved", cutoff="none", agg="sum", integer=True, graded=True,
           trec=(TrecName("num_ret", "plain", place=2, sets=("official", "set")),),
           ir=(IrParam("rel", "rel", family=((ANY, "NumRelRet"),)),),
           formula="documents retrieved"),
    Family("NumRel", num_rel, "relevant documents in qrels", (REL,), cutoff="none", agg="sum", integer=True,
           trec=(TrecName("num_rel", "plain", place=3, sets=("official", "set")),), formula="R"),
    Family("NumRelRet", num_rel_ret, "relevant documents retrieved", (REL,), cutoff="none", agg="sum",
           integer=True, trec=(TrecName("num_rel_ret", "plain", place=4, sets=("official", "set")),),
           formula="relevant documents retrieved"),
    Family("NumNonRelJudgedRet", num_nonrel_judged_ret, "judged non-relevant documents retrieved", (REL,),
           cutoff="none", agg="sum", integer=True, trec=(TrecName("num_nonrel_judged_ret", "plain", place=33),),
           formula="retrieved documents with ``0 <= grade < rel``"),
]
