"""Measures of the retrieved set: SetP, SetR, SetF, SetE, SetRelP, SetAP and Utility (rows, kernels).

Each counts the relevant documents retrieved, the documents retrieved and R (``SetF@k``: the top k as
the set, as ranx's ``f1@k``); trec_eval prints them as ``set_P``, ``set_recall``, ``set_F``,
``set_relative_P``, ``set_map`` and ``utility``.  trec_eval's ``set_F.x`` takes beta^2,
searchgrade's ``SetF(beta=b)`` beta.
"""
from __future__ import annotations

import numpy as np

from ..family import Differs, Family, IrParam, RanxName, TrecName
from ..params import REL, Param, finite, positive, positive_int
from .base import _div, level

__all__ = ["ROWS", "set_p", "set_r", "set_f", "set_e", "set_rel_p", "set_ap", "utility"]


# --------------------------------------------------------------------------- kernels
def _set_counts(ctx, m):
    """(relevant retrieved, retrieved, R) per row; with a cut-off the top k is the set, counted as k documents."""
    L = level(ctx, m)
    if m.cutoff is not None:  # SetF@k (ranx's f1@k): P@k and R@k, a short run padded as P@k pads it
        return ctx.rel_hits(L, m.cutoff), np.full(ctx.n, float(m.cutoff)), ctx.num_rel(L)
    return ctx.rel_hits(L), ctx.nret.astype(np.float64), ctx.num_rel(L)


def set_p(ctx, m):
    """SetP = |relevant retrieved| / |retrieved|."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, nret)


def set_r(ctx, m):
    """SetR = |relevant retrieved| / R."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, R)


def set_f(ctx, m):
    """SetF(beta) = (beta^2 + 1) P R / (beta^2 P + R) over the retrieved set (van Rijsbergen); ``beta2=``
    gives beta^2 itself (trec_eval's set_F.x, x = beta^2)."""
    b2 = m.params["beta2"] if m.params.get("beta2") is not None else m.params.get("beta", 1.0) ** 2
    nrr, nret, R = _set_counts(ctx, m)
    P, Rc = _div(nrr, nret), _div(nrr, R)
    return _div((b2 + 1.0) * P * Rc, b2 * P + Rc)


def set_e(ctx, m):
    """SetE(beta) = 1 - SetF(beta) (van Rijsbergen's effectiveness measure E)."""
    return 1.0 - set_f(ctx, m)


def set_rel_p(ctx, m):
    """SetRelP = |relevant retrieved| / min(|retrieved|, R) (trec_eval set_relative_P)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, np.minimum(nret, R))


def set_ap(ctx, m):
    """SetAP = SetP * SetR = |relevant retrieved|^2 / (|retrieved| R), computed so (trec_eval set_map)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr * nrr, nret * R)


def utility(ctx, m):
    """Utility = a*|rel ret| + b*|nonrel ret| + c*|rel not ret| + d*|nonrel not ret| (trec_eval utility).

    |nonrel not ret| = n_docs + |rel ret| - |ret| - R, with n_docs the collection
    size (trec_eval -N); trec_eval's defaults are a, b, c, d = 1, -1, 0, 0.
    """
    nrr, nret, R = _set_counts(ctx, m)
    p = m.params
    # all four terms, as trec_eval adds them (n_docs 0 without -N): its d * (...) term turns a sum of -0.0
    # into +0.0, so 0 prints as 0.0000, not -0.0000
    return (p.get("a", 1.0) * nrr + p.get("b", -1.0) * (nret - nrr) + p.get("c", 0.0) * (R - nrr)
            + p.get("d", 0.0) * (p.get("n_docs", 0) + nrr - nret - R))


# ----------------------------------------------------------------------------- rows
_BETA = Param("beta", float, 1.0, "weight of recall against precision", check=positive)

_BETA2 = Param("beta2", float, None, "beta^2 given directly (trec_eval's set_F.x: x = beta^2)", check=positive)


def _setf_finish(measure: str, params: dict, given: set) -> dict:
    """SetF/SetE: beta or beta2, not both."""
    if "beta" in given and "beta2" in given:
        raise ValueError(f"measure {measure!r}: beta= and beta2= (beta squared) cannot be combined")
    if "beta2" in params:
        params.pop("beta", None)
    return params


def _setf_normal(params: dict) -> dict:
    """SetF's value depends on beta^2 only: SetF(beta=2) is SetF(beta2=4)."""
    beta2 = params.pop("beta2", None)
    beta = params.pop("beta", 1.0)
    params["beta2"] = beta * beta if beta2 is None else beta2
    return params


def _utility_finish(measure: str, params: dict, given: set) -> dict:
    """Utility: the d term counts non-relevant documents not retrieved, so it needs the collection size."""
    if params.get("d", 0.0) != 0.0 and "n_docs" not in params:
        raise ValueError(f"measure {measure!r}: d= weighs the non-relevant documents not retrieved; "
                         "it needs the collection size n_docs= (trec_eval -N)")
    return params

_UTILITY = (REL,
            Param("a", float, 1.0, "worth of a relevant document retrieved", check=finite),
            Param("b", float, -1.0, "worth of a non-relevant document retrieved", check=finite),
            Param("c", float, 0.0, "worth of a relevant document not retrieved", check=finite),
            Param("d", float, 0.0, "worth of a non-relevant document not retrieved (needs n_docs)", check=finite),
            Param("n_docs", int, None, "documents in the collection (trec_eval -N), for d", check=positive_int))


ROWS = [
    Family("SetP", set_p, "precision of the retrieved set", (REL,), cutoff="none",
           trec=(TrecName("set_P", "plain", place=28, sets=("set",)),),
           ir=(IrParam("relative", family=((True, "SetRelP"), (False, "SetP"))),),
           formula="relevant retrieved / retrieved", ranx="precision (without @k)",
           aliases=("setprecision",), ranx_names=(RanxName("precision", "whole"),)),
    Family("SetR", set_r, "recall of the retrieved set", (REL,), cutoff="none",
           trec=(TrecName("set_recall", "plain", place=30, sets=("set",)),), formula="relevant retrieved / R",
           ranx="recall (without @k)",
           aliases=("setrecall",), ranx_names=(RanxName("recall", "whole"),)),
    Family("SetF", set_f, "F_beta of the retrieved set (SetF@k: of P@k and R@k)", (REL, _BETA, _BETA2),
           finish=_setf_finish,
           normal=_setf_normal,
           trec=(TrecName("set_F", "doubles", params=("beta2",),
                          note="trec_eval's parameter x is beta^2: F = (x+1)PR/(xP+R)", place=32, sets=("set",)),),
           formula="``F_beta = (1+b^2)PR/(b^2P+R)`` of P = SetP and R = SetR (``SetF@k``: of P@k and R@k, a "
                   "short run padded as P@k pads it, ranx's ``f1@k``); trec_eval's ``set_F_x`` takes "
                   "``x = beta^2``: ``SetF(beta2=x)`` (``set_F_4`` is ``SetF(beta=2)``)",
           cite="van Rijsbergen 1979", ranx="f1 (beta=1; f1@k: the top k as the set)",
           differs=Differs("F parameter", "``set_F.x``: x = beta^2", "ir_measures' SetF(beta=b) runs set_F.b: "
                           "beta^2 = b", "``f1`` only"),
           ranx_names=(RanxName("f1"),), ir_rename=(("beta", "beta2"),)),
    Family("SetE", set_e, "van Rijsbergen's E = 1 - F_beta", (REL, _BETA, _BETA2), cutoff="none", finish=_setf_finish,
           normal=_setf_normal, formula="``E = 1 - F_beta``", cite="van Rijsbergen 1979"),
    Family("SetRelP", set_rel_p, "relevant retrieved / min(retrieved, R)", (REL,), cutoff="none",
           trec=(TrecName("set_relative_P", "plain", place=29, sets=("set",)),),
           formula="relevant retrieved / min(retrieved, R)"),
    Family("SetAP", set_ap, "SetP * SetR (trec_eval set_map)", (REL,), cutoff="none",
           trec=(TrecName("set_map", "plain", place=31, sets=("set",)),), formula="``SetP * SetR``"),
    Family("Utility", utility, "linear utility a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
           _UTILITY, cutoff="none",
           trec=(TrecName("utility", "doubles", params=("a", "b", "c", "d"), place=17, sets=("set",)),),
           finish=_utility_finish,
           formula="``a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret``, defaults 1, -1, 0, 0; ``d`` "
                   "needs the collection size ``n_docs=`` (trec_eval -N)"),
]
