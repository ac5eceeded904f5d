"""Fusion: every method and normalisation of ranx 0.3.21, with ranx's values and trec_eval's ranks.

To add a method, register a :class:`Method` row in :mod:`.methods` (parameters, a contribution and a combiner
of :mod:`.kernels`, the paper); a normalisation is a :class:`Norm` row of :mod:`.norms`.

``searchgrade.fuse(runs, method="rrf", norm="min-max", params={"k": 60})`` fuses runs;
``searchgrade.optimize_fusion(qrels, runs, "wsum", metric="ndcg@10", folds=5)`` tunes a method on
ranx's grid and says what the tuning is worth on queries it did not see. numpy and pandas only.

=================  ====================================================================
module             holds
=================  ====================================================================
:mod:`.pool`       the runs as columns (one per candidate document), trec_eval ranks
:mod:`.norms`      the normalisations, one registry row each
:mod:`.kernels`    what each run gives a candidate, and how the runs' values combine
:mod:`.condorcet`  Condorcet's pairwise sort
:mod:`.training`   what the trained methods learn from relevance judgements
:mod:`.methods`    the methods, one registry row each (parameters, kernels, paper)
:mod:`.checks`     what each parameter may be, and the one-line errors for the rest
:mod:`.api`        :func:`fuse`, :func:`normalize`
:mod:`.grids`      ranx's grids of parameter settings, refused when empty or too large
:mod:`.tuning`     :func:`optimize_fusion` and its held-out folds
=================  ====================================================================

Where searchgrade and ranx differ on purpose: ties are ranked as trec_eval ranks them (score
descending, then document id descending; ranx's order of tied scores is its sort's, which
``ties="input"`` follows when given ranx's runs as dicts, see :func:`fuse`); runs
with different queries are fused over the runs that have each query, with a warning (ranx
asserts); Condorcet and rank-based methods after ``borda`` start from a fixed order where
ranx starts from a Python set's (see :mod:`.condorcet`, :mod:`.norms`); ``rrf`` takes
``weights``; ``min-max-one`` (the line-up's ``convex``) is searchgrade's own; ``sum`` and
``zmuv`` round less on large scores (see :mod:`.norms`); parameters are checked
(:mod:`.checks`) where ranx lets numpy fail; a weight grid is made without ranx's 11**n
enumeration and refused above ``max_trials`` (:mod:`.grids`).
"""
from __future__ import annotations

from .api import fuse, normalize
from .methods import METHODS, REQUIRED, Method
from .norms import NORMS, Norm
from .tuning import FusionTuning, optimize_fusion

NORMALISATIONS = tuple(dict.fromkeys(n.name for n in NORMS.values()))
"""The normalisations' names (ranx's seven and ``min-max-one``); None means none."""

__all__ = ["fuse", "normalize", "optimize_fusion", "FusionTuning", "METHODS", "NORMS", "NORMALISATIONS",
           "Method", "Norm", "REQUIRED", "method_table"]


def method_table():
    """The methods as a DataFrame: name, parameters with defaults, what is learned, formula, paper."""
    import pandas as pd

    def show(v):
        return "required" if v is REQUIRED else v

    return pd.DataFrame([{"method": m.name, "params": ", ".join(f"{k}={show(v)}" for k, v in m.params.items()),
                          "learned from qrels": ", ".join(m.learns), "formula": m.doc, "paper": m.cite}
                         for m in METHODS.values()])
