"""The C/W/L framework shared by every measure with a user model: :class:`UserModel`, its weights, its curves.

The C/W/L framework (Moffat, Thomas & Scholer, "Users versus models: what
observation tells us about effectiveness metrics", CIKM 2013; Moffat, Bailey,
Scholer & Thomas, "Incorporating user expectations and behavior into the
measurement of search effectiveness", ACM TOIS 35(3), 2017; implemented by
cwl_eval, Azzopardi, Thomas & Moffat, SIGIR 2019) describes a measure by the
user who reads the ranking:

* ``C(i)``: the probability that a user who has read rank i goes on to rank i+1;
* ``W(i) = prod_{j<i} C(j) / sum_{m=1..N} prod_{j<m} C(j)``: the share of the
  user's attention that rank i receives (W sums to 1);
* ``L(i) = prod_{j<i} C(j) * (1 - C(i))``: the probability that rank i is the last one read;
* the measure = ``sum_i W(i) g(i)``, the expected gain per document read
  (cwl_eval's EU), and ``1 / W(1) = sum_i i L(i)`` the expected depth (its ED).

Each family with a user model keeps its C(i) in its own kind module (P's in
:mod:`~searchgrade.measures.kinds.precision`, RR's, RBP's, and the C/W/L families' in
:mod:`~searchgrade.measures.kinds.cwl`) and names it in its row (``Family.curve``);
:func:`searchgrade.cwl` draws the curves of exactly those families.  Here: the
:class:`UserModel` type, cwl_eval's depth and gain of a grade, the kernels that sum
``W(i) g(i)`` over the ranks with gain (:func:`static`, :func:`adaptive`) and the dense
curves (:func:`dense`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .base import _div, _row_scan

__all__ = ["DEPTH", "UserModel", "ONE", "cwl_gain", "dense", "static", "adaptive"]

#: cwl_eval's evaluation depth (``--max_depth``; ir_measures passes ``max_n=1000``).
DEPTH = 1000


# ---------------------------------------------- runs of zero gain, in closed form
# Between two ranks with gain, and after the last one, every gain is 0 and G stays G(n): C(j)
# depends on j alone there.  For such a run of ranks n+1..h (h >= n) each model gives
#   span(n, G, m, h) = prod_{j=n+1..h} C(j)                     (how much of the user goes through it)
#   tail(n, G, m, h) = sum_{i=n+1..h} prod_{j=n+1..i-1} C(j)    (the weight its ranks receive)
# both relative to prod_{j<=n} C(j).  A run of no ranks (h = n) has span 1 and tail 0.
def span_one(n, G, m, h):
    """C(j) = 1 inside the run (RR and BPM before they stop, NERR8): nothing is lost.  Where C(n) = 0
    (RR after a gain, BPM once G >= T) nobody enters the run, whatever its span."""
    return np.ones(np.shape(n))


def tail_flat(n, G, m, h):
    """C(j) = 1: each of the h - n ranks of the run weighs as much as rank n+1."""
    return np.maximum(h - n, 0).astype(np.float64)


@dataclass(frozen=True)
class UserModel:
    """A C/W/L measure: its C(i), and for adaptive ones its runs of zero gain in closed form."""

    c: Callable  # c(rank i, gain g(i), gain so far G(i), measure) -> C(i), all arrays
    span: Callable | None = None  # None: C depends on the rank only (static)
    tail: Callable | None = None
    gain: str = "cwl"  # the gain of a grade: cwl_gain (min_rel/max_rel), "binary" at rel=, or "rbp" (RBP's)


#: span and tail of a model whose C is 1 on a run of zero gain (RR, BPM, NERR8).
ONE = (span_one, tail_flat)


def _horizon(m, depth: int = DEPTH) -> int:
    """The last rank a user can read: the cutoff (where C(k) = 0) or the depth, whichever comes first."""
    return depth if m.cutoff is None else min(int(m.cutoff), depth)


# ------------------------------------------------------------------------- gains
def cwl_gain(ctx, m, idx=None) -> np.ndarray:
    """g = (min(max(grade, min_rel), M) - min_rel) / (M - min_rel) for the entries idx (default all), M =
    max_rel or the query's largest grade; 0 where M <= min_rel.  Unjudged documents have grade 0 (gain 0)."""
    idx = slice(None) if idx is None else idx
    lo = int(m.params.get("min_rel", 0))
    seg = ctx.seg[idx]
    if m.params.get("max_rel") is not None:
        hi = np.full(len(seg), int(m.params["max_rel"]), np.int64)
    else:
        hi = ctx.top_grade()[seg]
    top = np.minimum(np.maximum(ctx.grade[idx], lo), hi) - lo
    return _div(np.maximum(top, 0).astype(np.float64), (hi - lo).astype(np.float64))


# ----------------------------------------------------------------- row-wise scans
def _before(x: np.ndarray, first: np.ndarray, start: float) -> np.ndarray:
    """x of the previous entry in the same row; ``start`` for a row's first entry."""
    out = np.empty(len(x))
    out[1:] = x[:-1]
    out[first] = start
    return out


# ------------------------------------------------------------------------ kernels
def static(ctx, m, model: UserModel):
    """Measures whose C depends on the rank only: sum_i W(i) g(i), W computed once (tie groups averaged)."""
    h = _horizon(m)
    w = dense(model, m, np.zeros(h))[1]
    if ctx.expected:
        gain = ctx.lin(cwl_gain(ctx, m))
        return ctx.ssum(np.where(ctx.rank <= h, gain * w[np.minimum(ctx.rank, h) - 1], 0.0))
    idx = ctx.where("gain")  # only grades > 0 can gain
    idx = idx[ctx.rank[idx] <= h]
    return ctx.rowsum(ctx.seg[idx], cwl_gain(ctx, m, idx) * w[ctx.rank[idx] - 1])


def adaptive(ctx, m, model: UserModel):
    """sum_i W(i) g(i) = sum_i P(i) g(i) / sum_{i<=h} P(i), P(i) = prod_{j<i} C(j), visiting ranks with gain only.

    With gains at ranks r_1 < r_2 < ... of a row (r_0 = 0, G(0) = 0):
    P(r_k) = P(r_{k-1}) C(r_{k-1}) span(r_{k-1}, r_k - 1), and the ranks between
    add P(r_{k-1}) C(r_{k-1}) tail(r_{k-1}, r_k - 1); after the last gain the run
    reaches the horizon h (the cutoff or the depth, retrieved or not).
    """
    h = _horizon(m)
    idx = ctx.where("gain")
    idx = idx[ctx.rank[idx] <= h]
    g = cwl_gain(ctx, m, idx)
    idx, g = idx[g > 0], g[g > 0]  # a row without gain scores 0
    if not len(idx):
        return np.zeros(ctx.n)
    seg, r = ctx.seg[idx], ctx.rank[idx].astype(np.float64)
    first = np.r_[True, seg[1:] != seg[:-1]]
    last = np.r_[seg[1:] != seg[:-1], True]
    G = _row_scan(g, seg, ctx.n, np.add)
    C = model.c(r, g, G, m)
    r0, G0 = _before(r, first, 0.0), _before(G, first, 0.0)  # where the run of zero gain before r starts
    P = _row_scan(_before(C, first, 1.0) * model.span(r0, G0, m, r - 1), seg, ctx.n, np.multiply)
    into = _before(P * C, first, 1.0)  # the share of the user entering that run
    weight = ctx.rowsum(seg, P + into * model.tail(r0, G0, m, r - 1))
    weight += ctx.rowsum(seg[last], (P * C)[last] * model.tail(r[last], G[last], m, h))
    return _div(ctx.rowsum(seg, P * g), weight)


# ------------------------------------------------------------------------- curves
def dense(model: UserModel, m, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(C, W) of one list over ranks 1..len(gain), as dense arrays: the continuation probability C(i) of a
    C/W/L user model (a family row's ``curve``) for measure m, and the weights W(i) (summing to 1), for
    gains read in that order (the truncation rank is len(gain)); :func:`searchgrade.cwl` draws them."""
    rank = np.arange(1, len(gain) + 1, dtype=np.float64)
    C = model.c(rank, gain, np.cumsum(gain), m)
    P = np.concatenate(([1.0], np.cumprod(C[:-1])))
    return C, P / P.sum()
