"""GMBpref: Bpref per query, its geometric mean over queries (trec_eval's ``gm_bpref``).

A file of its own, as trec_eval keeps ``m_gm_bpref.c`` beside ``m_bpref.c``: the value per query is
Bpref's (:mod:`~searchgrade.measures.kinds.incomplete`, computed once when both are asked), and the
row's ``agg="gmean"`` is trec_eval's geometric mean with its floor.
"""
from __future__ import annotations

from ..family import Family, TrecName
from ..params import REL
from .incomplete import bpref

__all__ = ["ROWS", "gm_bpref"]


# --------------------------------------------------------------------------- kernels
def gm_bpref(ctx, m):
    """GMBpref's value per query: Bpref's (the geometric mean is the summary over queries, the row's agg)."""
    return bpref(ctx, m)


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("GMBpref", gm_bpref, "bpref per query, geometric mean over queries", (REL,), cutoff="none", agg="gmean",
           expected=False, trec=(TrecName("gm_bpref", "plain", per_query=False, place=15),), formula="Bpref per query"),
]
