"""Expected reciprocal rank: ERR (Chapelle et al. 2009), its kernel and its row.

ERR's grade scale is the query's largest grade unless ``max_grade=`` fixes it; ir_measures computes
ERR with gdeval.pl, which fixes it at 4, so an ir_measures *object* ``ERR@k`` is read as
``max_grade=4`` (the row's ``ir_fixed``), and the kernel warns where the two readings differ.
"""
from __future__ import annotations

import numpy as np

from ..family import Differs, Family
from ..params import MAX_GRADE
from ..qrels import warn_user
from .base import _local_cumsum
from .gains import _pow2

__all__ = ["ROWS", "err"]


# --------------------------------------------------------------------------- kernels
def _warn_grade_scale(m, top: np.ndarray) -> None:
    """ERR without max_grade=: say so when a query's largest grade is not ir_measures' (gdeval's) fixed 4."""
    other = sorted(set(top[(top > 0) & (top != 4)].tolist()))
    if other:
        at = "" if m.cutoff is None else f"@{m.cutoff}"
        shown = ", ".join(map(str, other[:3])) + (", ..." if len(other) > 3 else "")
        warn_user(f"{m.name}: no max_grade=, so each query's grade scale is its largest grade (here {shown}); "
                  f"ir_measures' ERR{at} fixes it at 4: ERR(max_grade=4){at} gives its value")


def err(ctx, m):
    """ERR@k = sum_i (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^g_i - 1) / 2^gmax (Chapelle et al. 2009).

    gmax is ``max_grade=`` or the query's largest grade; grades above it count
    as gmax.  R_i = 2^(g_i - gmax) - 2^-gmax and log(1 - R_j) (exactly
    -gmax log 2 when g_j = gmax) are computed with ldexp and log1p, so any grade
    stays finite; the product runs within each query on its own.
    """
    top = np.full(ctx.n, m.params["max_grade"], np.int64) if "max_grade" in m.params else ctx.top_grade()
    if "max_grade" not in m.params:
        _warn_grade_scale(m, top)
    idx = ctx.where("gain")  # only grades > 0 have R > 0 (and 1 - R < 1)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    if m.cutoff is not None:
        keep = rank <= m.cutoff
        idx, seg, rank = idx[keep], seg[keep], rank[keep]
    gmax = top[seg]
    g = np.minimum(ctx.grade[idx], gmax)
    stop = _pow2(g - gmax) - _pow2(-gmax)
    with np.errstate(divide="ignore"):
        log_keep = np.where(g == gmax, -gmax * np.log(2.0), np.log1p(_pow2(-gmax) - _pow2(g - gmax)))
    before = _local_cumsum(log_keep, seg, ctx.n, exclusive=True)  # log prod_{j<i} (1 - R_j)
    return ctx.rowsum(seg, stop * np.exp(before) / rank)


# ----------------------------------------------------------------------------- rows
ROWS = [
    Family("ERR", err, "expected reciprocal rank", (MAX_GRADE,), expected=False, graded=True,
           formula="``sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)``, ``R_i = (2^g_i - 1) / 2^gmax``; gmax is the "
                   "largest grade in the query's qrels unless ``ERR(max_grade=4)@k`` (without max_grade= a warning "
                   "names the queries' largest grades other than 4, where ir_measures' ERR@k, which fixes 4, "
                   "differs; an ir_measures object ERR@k is read as max_grade=4); computed as "
                   "``2^(g-gmax) - 2^-gmax`` in log space, so any grade stays finite",
           cite="Chapelle et al. 2009",
           differs=Differs("ERR gmax", "(no ERR)", "ERR@k via gdeval.pl, which fixes gmax = 4 (grades > 4 refused)",
                           "(no ERR)"),
           ir_fixed=(("max_grade", 4),)),
]
