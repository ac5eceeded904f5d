"""Rank-biased precision: RBP and RBP_resid (trec_eval's ``rbp`` and ``rbp_resid``), and RBP's user model.

A user goes on from rank i to rank i+1 with probability p (Moffat & Zobel 2008).  The gain of a grade
is scaled to [0, 1] by the query's largest grade, fixed by ``max_grade=``, binary at ``rel=``, given
per grade by ``gains=`` (rescaled as trec_eval's ``rbp.1=g`` does), or the grade itself (ranx's ``rbp``).
"""
from __future__ import annotations

import numpy as np

from ..family import Differs, Family, RanxName, TrecName
from ..params import MAX_GRADE, Param, gain_map, open_unit, positive_int
from .gains import _gain, _gain_items
from .user_model import UserModel

__all__ = ["ROWS", "RBP_MODEL", "rbp_gain", "rbp", "rbp_resid"]


# --------------------------------------------------------------------------- kernels
def rbp_gain(ctx, m):
    """RBP's gain of every ranked document of ctx (a :class:`~searchgrade.measures.kinds.base.Ranked`)
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


def _c_rbp(i, g, G, m):
    """RBP(p): C(i) = p."""
    return np.full(len(i), float(m.params["p"]))


#: RBP's C/W/L user model: searchgrade.cwl draws its curves.
RBP_MODEL = UserModel(_c_rbp, gain="rbp")


# ----------------------------------------------------------------------------- rows
_P = Param("p", float, 0.8, "persistence: the chance of going on to the next rank", check=open_unit)

_RBP_GAIN = Param("gain", str, "scaled", "scaled: grade / the largest grade (or as rel=, max_grade=, gains= say); "
                  "grade: the grade itself, unscaled (ranx's rbp)", choices=("scaled", "grade"))

_RBP_GAINS = Param("gains", dict, None, "gain per grade {grade: gain} (trec_eval's rbp.1=g,..): the query's gains "
                   "(grades up to its largest, listed or not, and every listed one) rescaled to [0, 1] by "
                   "(gain - min) / (max - min), min and max taken with 0, when one lies outside [0, 1]",
                   check=gain_map)

_TAIL = Param("tail", str, "always", "the residual p^n: always added, or only when an unjudged document was "
              "retrieved (unjudged: trec_eval's rbp_resid, which prints 0 otherwise)", choices=("always", "unjudged"))

_RBP_NOTE = ("trec_eval 10 rescales graded gains with uninitialised min/max (undefined); on binary qrels "
             "it agrees with searchgrade")


def _rbp_finish(measure: str, params: dict, given: set) -> dict:
    """RBP: binary (rel=), a fixed grade scale (max_grade=) and gains per grade (gains=) exclude each other."""
    chosen = [name for name in ("rel", "max_grade", "gains") if name in params]
    chosen += ["gain"] if params.get("gain") == "grade" else []
    if len(chosen) > 1:
        what = {"rel": "rel= (binary gain)", "max_grade": "max_grade= (graded scale)", "gains": "gains= (gain per grade)",
                "gain": "gain=grade (unscaled grades)"}
        raise ValueError(f"measure {measure!r}: {' and '.join(what[c] for c in chosen)} cannot be combined")
    return params


ROWS = [
    Family("RBP", rbp, "rank-biased precision", (_P, Param("rel", int, None, "binary gain at this grade (default: "
           "graded gain grade / max grade)", check=positive_int), MAX_GRADE, _RBP_GAINS, _RBP_GAIN), graded=True,
           trec=(TrecName("rbp", "pairs", params=("p", "gains"), implied=(("p", 0.9),), pytrec_eval=False,
                          note=_RBP_NOTE, place=34),),
           finish=_rbp_finish, curve=RBP_MODEL,
           formula="``(1-p) sum_i gain_i p^(i-1)``, p^(i-1) by repeated multiplication as in trec_eval; gain = "
                   "``g_i / max grade in the query's qrels`` (binary qrels: rel_i), or binary ``rel_i`` at level r "
                   "with ``RBP(p=..,rel=r)``, or ``gains={g: v}`` rescaled to [0, 1] as trec_eval's ``rbp.g=v``",
           cite="Moffat & Zobel 2008", ranx="rbp (gain=grade; rbp.95: p = 0.95)",
           # ranx/metrics/rank_biased_precision.py, _rank_biased_precision: weighted_hit_list[i] = qrels[j, 1]
           # after clean_qrels (grades >= rel_lvl kept); its docstring's "r_i is either 0 or 1" is not what it does
           differs=Differs("RBP gain", "graded gains, rescaled with uninitialised min/max (undefined for grades > 1)",
                           "pytrec_eval: no rbp; ir_measures: p=0.8 by default, binary through cwl_eval (which "
                           "needs rel=), graded through trectools", "the raw grade as gain (not rescaled, not binary); "
                           "grades < rel_lvl gain 0"),
           ranx_names=(RanxName("rbp", "whole", params="gain=grade"),)),
    Family("RBP_resid", rbp_resid, "RBP residual: the most unjudged documents could add", (_P, _TAIL), graded=True,
           trec=(TrecName("rbp_resid", "pairs", params=("p",), implied=(("p", 0.9), ("tail", "unjudged")),
                          pytrec_eval=False, place=35),),
           formula="``p^n + (1-p) sum_{i<=n, unjudged} p^(i-1)``, n = documents retrieved: the most RBP could "
                   "still grow; ``tail=unjudged`` is trec_eval's ``rbp_resid``, 0 when no unjudged document was "
                   "retrieved", cite="Moffat & Zobel 2008"),
]
