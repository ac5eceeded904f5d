"""C/W/L curves: C(i), W(i) and L(i) of a measure over the ranks of one list (:func:`cwl`, :class:`CWLCurves`).

The user models and the conventions (depth, gain of a grade, ties) are those of the
C/W/L framework in :mod:`searchgrade.measures.kinds.user_model`; this module draws them rank by rank for a
reader, on top of the measure parser and the :class:`~searchgrade.metrics.Evaluator`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .measures.kinds.rbp import rbp_gain
from .measures.kinds.user_model import DEPTH, cwl_gain, dense
from .measures.names import parse_measure
from .measures.registry import FAMILIES
from .metrics import Evaluator

__all__ = ["CWLCurves", "cwl", "CURVE_FAMILIES", "DEPTH"]

# The user model of every family whose registry row has one (Family.curve)
_MODELS = {f.name: f.curve for f in FAMILIES.values() if f.curve is not None}
#: Families :func:`searchgrade.cwl` draws curves for.
CURVE_FAMILIES = tuple(_MODELS)


@dataclass(frozen=True, repr=False)
class CWLCurves:
    """The C(i), W(i), L(i) of a measure over ranks 1..depth for one list of gains."""

    measure: str  # the measure's printed name
    gain: np.ndarray  # g(i) in [0, 1], 0 after the list ends
    C: np.ndarray  # continuation probability after rank i (as the measure defines it)
    W: np.ndarray  # share of attention on rank i: sums to 1
    L: np.ndarray  # probability that rank i is the last one read, with C(depth) = 0: sums to 1

    @property
    def value(self) -> float:
        """The measure's value: sum_i W(i) g(i) (expected gain per document read, cwl_eval's EU)."""
        return float(self.W @ self.gain)

    @property
    def expected_depth(self) -> float:
        """1 / W(1) = sum_i i L(i): how many documents the user reads on average (cwl_eval's ED)."""
        return float(1.0 / self.W[0])

    def __repr__(self) -> str:
        return (f"CWLCurves(measure={self.measure!r}, depth={len(self.gain)}, value={self.value:.4f}, "
                f"expected_depth={self.expected_depth:.4f})")

    def frame(self) -> pd.DataFrame:
        """The curves as a DataFrame indexed by rank (columns gain, C, W, L)."""
        index = pd.RangeIndex(1, len(self.gain) + 1, name="rank")
        return pd.DataFrame({"gain": self.gain, "C": self.C, "W": self.W, "L": self.L}, index=index)


def cwl(measure, ranking, qrels=None, *, depth: int = DEPTH) -> CWLCurves:
    """C(i), W(i) and L(i) of ``measure`` over ranks 1..depth, for a list of gains or a ranking and its qrels.

    Without ``qrels``, ``ranking`` is the gains g(1), g(2), ... in [0, 1]
    (cwl_eval's gain file values).  With ``qrels`` (``{docid: grade}``) it is a
    list of document ids and each gets the gain the measure's user model gives its
    grade: binary at ``rel=`` (default 1) for P and RR, RBP's gain, and
    :func:`cwl_gain` for the C/W/L families.  Measures: the families of
    :data:`CURVE_FAMILIES`, every registry row with a user model (RBP without a
    cutoff: RBP@k does not renormalise its weights).  Ranks past the list have
    gain 0; ranks past ``depth`` are never read (cwl_eval's depth is 1000).
    """
    m = parse_measure(measure)
    model = _MODELS.get(m.family)
    if model is None:
        raise ValueError(f"measure {m.name!r}: cwl() draws C/W/L curves for {', '.join(CURVE_FAMILIES)}")
    if m.family == "RBP" and m.cutoff is not None:
        raise ValueError(f"measure {m.name!r}: RBP@k cuts its weights without renormalising them, so it has "
                         "no C/W/L form; use RBP without a cutoff")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"cwl(): depth={depth!r} must be a positive integer")
    gain = _gains(m, ranking) if qrels is None else _ranking_gains(m, ranking, qrels)
    gain = np.concatenate((gain, np.zeros(max(depth - len(gain), 0))))[:depth]
    C, W = dense(model, m, gain)
    stop = C.copy()
    stop[-1] = 0.0  # the user who reaches the last rank stops there
    L = W / W[0] * (1.0 - stop)
    return CWLCurves(m.name, gain, C, W, L)


def _gains(m, values) -> np.ndarray:
    """A list of gains as floats in [0, 1]; ValueError otherwise."""
    try:
        gain = np.array(list(values), dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"measure {m.name!r}: gains must be numbers in [0, 1] (pass qrels= to rank "
                         "document ids)") from None
    if gain.ndim != 1 or not np.all((gain >= 0) & (gain <= 1)):
        raise ValueError(f"measure {m.name!r}: gains must be numbers in [0, 1], as cwl_eval's gain files "
                         "hold (pass qrels= to give grades)")
    return gain


def _ranking_gains(m, ranking, qrels) -> np.ndarray:
    """The gain of each document of ``ranking`` under measure m, from the query's qrels ``{docid: grade}``."""
    ranking = list(ranking)
    if len(set(ranking)) != len(ranking):
        raise ValueError("cwl(): a document appears twice in the ranking")
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    ev = Evaluator({"q": dict(qrels)}, [m], ties="input", missing="zero",
                   judged_only=bool(m.params.get("judged_only", False)))
    _, ctx = ev.rank(run)
    gain = _MODELS[m.family].gain  # each user model says how a grade becomes a gain
    if gain == "binary":
        return ctx.rel(m.params.get("rel", 1)).astype(np.float64)
    if gain == "rbp":
        return rbp_gain(ctx, m)
    return cwl_gain(ctx, m)
