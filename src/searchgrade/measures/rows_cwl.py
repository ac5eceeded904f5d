"""The C/W/L measure families' registry rows (cwl_eval's measures, as ir_measures names them).

Rows of :data:`searchgrade.measures.registry.FAMILIES`, kept here so that the registry stays one readable
file; their kernels and conventions are in :mod:`searchgrade.measures.kernels.cwl`.
"""
from __future__ import annotations

from typing import Callable

from .family import Family
from .kernels import cwl as _cwl_kernels
from .params import Param, fmt_value, open_unit, positive, positive_int

__all__ = ["ROWS"]

# ------------------------------------------------- C/W/L measures (cwl_eval, via ir_measures)
# ir_measures' names and parameters (its cwl_eval provider); kernels and conventions in searchgrade.measures.kernels.cwl.
def _at_least(low: float) -> Callable:
    """A check refusing values below ``low``."""
    return lambda v: f"must be at least {fmt_value(low)}" if v < low else None


def _goal(v) -> str | None:
    """A C/W/L goal T: positive, and 2T a finite float (C(i) holds i + 2T)."""
    return positive(v) or ("must be at most 1e307 (2T must stay a finite float)" if v > 1e307 else None)


def _inst_goal(v) -> str | None:
    """INST's T: below 0.25 its C(i) = ((i + 2T - G(i) - 1)/(i + 2T - G(i)))^2 can exceed 1."""
    return "must be at least 0.25 (below it INST's C(i) can exceed 1)" if v < 0.25 else _goal(v)


def _cwl_finish(measure: str, params: dict, given: set) -> dict:
    """C/W/L gains (grade - min_rel) / (max_rel - min_rel) need max_rel > min_rel."""
    if params.get("max_rel") is not None and params["max_rel"] <= params.get("min_rel", 0):
        raise ValueError(f"measure {measure!r}: max_rel={params['max_rel']} must be greater than "
                         f"min_rel={params.get('min_rel', 0)}")
    return params


_T = Param("T", float, 1.0, "the user's goal: the total gain wanted (T documents at full gain)", check=_goal)
_MIN_REL = Param("min_rel", int, 0, "grade at or below which a document gains 0", check=_at_least(0))
_MAX_REL = Param("max_rel", int, None, "grade that earns full gain 1, higher grades count as it (default: the "
                 "query's largest grade; ir_measures requires it)", check=positive_int)
_CWL_GAIN = (_MIN_REL, _MAX_REL)
_NERR_CITE = "Azzopardi, Mackenzie & Moffat, ICTIR 2021; cwl_eval's NERReq8..11"


def _cwl(name, kernel, doc, params, **kw) -> Family:
    """A C/W/L family: graded (gain from min_rel/max_rel), its user model, no trec_eval or pytrec_eval counterpart."""
    return Family(name, kernel, doc, tuple(params) + _CWL_GAIN, graded=True, finish=_cwl_finish,
              curve=getattr(_cwl_kernels, f"{name}_MODEL"), **kw)


ROWS = [
    _cwl("INST", _cwl_kernels.inst, "adaptive user model with goal T",
         (Param("T", float, 1.0, _T.doc, check=_inst_goal),), cutoff="none", expected=False,
         formula="``C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2``, ``T_i = T - G(i)``",
         cite="Moffat, Bailey, Scholer & Thomas, ADCS 2015"),
    _cwl("INSQ", _cwl_kernels.insq, "weighted precision with patience from T", (_T,), cutoff="none",
         formula="``C(i) = ((i + 2T - 1) / (i + 2T))^2``", cite="Moffat, Scholer & Thomas, ADCS 2012"),
    _cwl("BPM", _cwl_kernels.bpm, "Bejeweled Player Model (static): read until gain T or k documents",
         (_T,), cutoff="required", expected=False,
         formula="``C(i) = 1`` if ``G(i) < T`` and ``i < k``, else 0 (unit costs): the user reads s "
                 "documents, each with weight ``1/s``, value ``G(s)/s``", cite="Zhang et al., SIGIR 2017"),
    _cwl("SDCG", _cwl_kernels.sdcg, "scaled DCG@k: DCG over the DCG of k documents at full gain",
         (Param("dcg", str, "log2", "DCG discount (ir_measures: only log2)", choices=("log2",)),),
         cutoff="required",
         formula="``C(i) = log2(i+1) / log2(i+2)`` for ``i < k``, 0 from k: DCG@k over the DCG of k fully "
                 "relevant documents (cwl_eval's ``NDCG-k@k``)", cite="Järvelin & Kekäläinen 2002"),
    _cwl("NERR8", _cwl_kernels.nerr8, "C/W/L approximation of ERR, truncated at k", (),
         cutoff="required", expected=False, formula="``C(i) = 1 - g(i)`` for ``i < k``, 0 from k",
         cite=_NERR_CITE),
    _cwl("NERR9", _cwl_kernels.nerr9, "C/W/L approximation of ERR, truncated at k", (),
         cutoff="required", expected=False, formula="``C(i) = i/(i+1) * (1 - g(i))`` for ``i < k``, 0 from k",
         cite=_NERR_CITE),
    _cwl("NERR10", _cwl_kernels.nerr10, "C/W/L approximation of ERR with persistence p",
         (Param("p", float, 0.9, "persistence: the chance of going on, times 1 - g(i)", check=open_unit),),
         cutoff="none", expected=False, formula="``C(i) = p * (1 - g(i))``", cite=_NERR_CITE),
    _cwl("NERR11", _cwl_kernels.nerr11, "C/W/L approximation of ERR with goal T", (_T,), cutoff="none",
         expected=False, formula="``C(i) = ((i + 2T - 1) / (i + 2T))^2 * (1 - g(i))``", cite=_NERR_CITE),
]
