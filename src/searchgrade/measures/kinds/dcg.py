"""Discounted cumulative gain: nDCG (trec_eval's ``ndcg`` and ``ndcg_cut_k``), DCG and CG (rows, kernels).

The gain of a grade is the grade (linear, trec_eval's), ``2^g - 1`` (``gain=exp``, Burges et al. 2005) or
a map ``gains={g: v}`` (trec_eval's ``ndcg.1=4``, ir_measures' ``gains``); the discount is
``log2(i+1)`` or Jarvelin-Kekalainen's (``discount=jk``).  The ideal ranking sorts the judged
documents by gain, or is trec_eval's own walk (``ideal=trec``, :mod:`~searchgrade.measures.kinds.ideal`).
Gain maps and discounts are shared with the other graded kinds (:mod:`~searchgrade.measures.kinds.gains`).
"""
from __future__ import annotations

import numpy as np

from ..family import TREC_CUTS, Differs, Family, IrParam, RanxName, TrecName
from ..params import Param, above_one, gain_map, gain_order
from .base import _div
from .gains import _discounted, _gain, _gain_entries, _gain_items, _unscale
from .ideal import _trec_ideal

__all__ = ["ROWS", "ndcg", "dcg", "cg"]


# --------------------------------------------------------------------------- kernels
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


# ----------------------------------------------------------------------------- rows
_GAIN = Param("gain", str, "linear", "gain of grade g: g (linear, trec_eval) or 2^g - 1 (exp, Burges et al. 2005)",
              choices=("linear", "exp"))

_DISCOUNT = Param("discount", str, "log2", "1/log2(i+1), or Jarvelin-Kekalainen (jk): 1 before rank b, "
                  "1/log_b(i) from rank b on", choices=("log2", "jk"))

_BASE = Param("b", float, 2.0, "log base of discount=jk", check=above_one)

_GAINS = Param("gains", dict, None, "custom gain per grade {grade: gain}; grades not listed gain their grade "
               "(trec_eval ndcg's parameters, ir_measures' gains)", check=gain_map)

_IDEAL = Param("ideal", str, "sorted", "ideal ranking under gains=: judged documents by decreasing gain (sorted), or "
               "trec_eval's (trec: its gains ordered by qsort with a comparator that truncates their differences to "
               "integers, the walk stopped at the first gain <= 0)", choices=("sorted", "trec"))


def _dcg_finish(measure: str, params: dict, given: set) -> dict:
    """nDCG/DCG/CG: b only with discount=jk (then 2 unless given); gains only with linear gain; ideal= with gains.

    With the sorted ideal a grade that gains itself is the default, so {1:1,2:5} is {2:5}, in grade order;
    trec_eval's ideal (ideal=trec) keeps the map as given: its order of gains depends on it.
    """
    if "gains" in params and params.get("ideal") != "trec":
        params["gains"] = {g: v for g, v in sorted(params["gains"].items()) if v != g}
        if not params["gains"]:
            del params["gains"]
    if "ideal" in given and "gains" not in params:
        raise ValueError(f"measure {measure!r}: ideal= only applies with gains= (with every grade gaining "
                         "itself the two ideal rankings are one)")
    if "gains" not in params:
        params.pop("ideal", None)
    if "b" in given and params.get("discount") != "jk":
        raise ValueError(f"measure {measure!r}: b= only applies with discount=jk")
    if params.get("discount") != "jk":
        params.pop("b", None)
    if "gains" in params and params.get("gain") == "exp":
        raise ValueError(f"measure {measure!r}: gains= replaces the gain of each grade; it cannot be combined "
                         "with gain=exp")
    return params


def _ndcg_normal(params: dict) -> dict:
    """nDCG's value depends on the order of gains only with trec_eval's ideal ranking."""
    return gain_order(params) if params.get("ideal") == "trec" else params


ROWS = [
    Family("nDCG", ndcg, "normalised discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS, _IDEAL),
           graded=True,
           trec=(TrecName("ndcg", "pairs", params=("gains",), implied_with_gains=(("ideal", "trec"),), place=21),
                 TrecName("ndcg_cut", "cut", TREC_CUTS, place=24)),
           ir=(IrParam("dcg", "gain", (("log2", "linear"), ("exp-log2", "exp"))),), finish=_dcg_finish,
           normal=_ndcg_normal,
           formula="``DCG@k / IDCG@k``, IDCG the DCG of all judged documents sorted by grade; ``gains={g: v}`` "
                   "gives grade g the gain v, other grades their own (ir_measures' ``gains``; IDCG then sorts by "
                   "gain, leaving out gains below 0); ``ideal=trec`` builds IDCG as trec_eval's ``ndcg.1=4`` does; "
                   "``gain=exp`` is computed scaled by ``2^-gmax``, so any grade stays finite",
           cite="Järvelin & Kekäläinen 2002", ranx="ndcg, ndcg_burges (gain=exp)",
           differs=Differs("nDCG gain", "linear (the grade), all grades, log2(rank+1)", "linear, as trec_eval",
                           "``ndcg``: linear, ``ndcg_burges``: 2^g - 1; grades < rel_lvl dropped"),
           ranx_names=(RanxName("ndcg"), RanxName("ndcg_burges", params="gain=exp"))),
    Family("DCG", dcg, "discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS), graded=True,
           finish=_dcg_finish,
           formula="``sum_{i<=k} gain(g_i) / log2(i+1)``: gain = g (linear, trec_eval) or ``2^g - 1`` with "
                   "``gain=exp`` (Burges et al. 2005); ``discount=jk,b=B``: 1 for ``i < B``, ``1/log_B(i)`` after; "
                   "``DCG(gain=exp)`` beyond float range is a ValueError",
           cite="Järvelin & Kekäläinen 2002", ranx="dcg, dcg_burges (gain=exp)",
           ranx_names=(RanxName("dcg"), RanxName("dcg_burges", params="gain=exp"))),
    Family("CG", cg, "cumulated gain", (_GAIN, _GAINS), graded=True, finish=_dcg_finish,
           formula="``sum_{i<=k} gain(g_i)``", cite="Järvelin & Kekäläinen 2002"),
]
