"""C/W/L measures: the user models (C(i) of each family) and the kernels for INST, INSQ, BPM, SDCG and the NERRs (private).

The curves a reader draws, :func:`searchgrade.cwl`, live in :mod:`searchgrade.curves`;
this module is the bottom layer the measure registry calls and imports nothing above it.

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

C(i) of each C/W/L family (INST, INSQ, BPM, SDCG, NERR8..NERR11), g(i) the gain at
rank i and ``G(i) = g(1) + ... + g(i)``, is its registry row's formula
(:mod:`searchgrade.measures.registry`, shown in :mod:`searchgrade.metrics`' formula table).
Three classic measures have a C/W/L form too (the curves :func:`searchgrade.cwl` draws):

==========  ===============================================  ==================================================
measure     C(i)                                             source
==========  ===============================================  ==================================================
P@k         1 for i < k, 0 from k                            W(i) = 1/k on ranks 1..k
RR          1 until the first rank with g > 0, 0 from there  Kantor & Voorhees 2000 (TREC-5 confusion track)
RBP(p)      p                                                Moffat & Zobel 2008, ACM TOIS 27(1)
==========  ===============================================  ==================================================

INSQ's C depends on the rank only (T fixes how patient the user is); INST,
BPM and the NERRs adapt to the gain already seen.  T is the user's goal: the
total gain they want (T documents at full gain).

``ties="expected"``: where C depends on the rank only (SDCG, INSQ, like P and
RBP) W does not depend on the gains, the value is linear in them and its mean
over the orders of a tie group is exact with each tied rank given the group's
mean gain.  Where C depends on the gains read so far (INST, BPM, the NERRs)
the value is not linear in them and no closed form is known: those measures
refuse ``ties="expected"``, like ERR.

cwl_eval's conventions (1.0.12, read from its source; ir_measures 0.4.3 runs it
the same way), and where searchgrade follows or differs:

* Depth: every ranking is cut at N = :data:`DEPTH` = 1000 ranks (cwl_eval's
  ``--max_depth``, ir_measures' ``max_n``) and a shorter one is padded with
  gain 0 up to N, so W is normalised over ranks 1..N even where the list ends
  earlier.  Followed.  The kernels visit only the ranks with gain and sum each
  run of zero gain between them (retrieved or padding) in closed form; the
  curves compute every rank one by one, and the tests check that both agree.
* Gain of a grade: ``g = (min(max(grade, min_rel), max_rel) - min_rel) / (max_rel -
  min_rel)``, negative grades counting as 0 (ir_measures' cwl_eval provider;
  cwl_eval itself reads gains in [0, 1] from its gain file).  Unjudged
  documents gain 0 (cwl_eval's worst case).  Followed.  searchgrade's own
  addition: without ``max_rel=`` (which ir_measures requires) the query's
  largest grade is the full gain, as for searchgrade's graded RBP and ERR.
* G(i) includes rank i and is summed left to right in floating point, as
  cwl_eval's ``np.cumsum``: BPM's test ``G(i) < T`` sees the same roundings.
* Order: cwl_eval reads the ranking in the result file's line order (it
  ignores the rank and score columns); ir_measures sorts by score, keeping tied
  documents in input order.  searchgrade's ``ties="trec"`` and ``"input"``
  apply as for every measure.
* Queries: cwl_eval scores every query of the result file (one missing from
  the gain file gains nothing) and none that the result file lacks;
  ir_measures scores every qrels query, an absent one 0.  searchgrade's
  ``missing=`` applies as for every measure (``"zero"`` is ir_measures').
* Parameters: T > 0, and for INST T >= 0.25 (below it C(i) can exceed 1:
  ``x = i + 2T - G(i)`` reaches 2T, and ``((x-1)/x)^2 > 1`` when x < 1/2);
  ``min_rel >= 0``, ``max_rel > min_rel``, ``0 < p < 1``.  cwl_eval and
  ir_measures check none of these and compute whatever the formula gives.
  Defaults as ir_measures': T = 1, p = 0.9 (NERR10), min_rel = 0.
* Residuals (cwl_eval ``-r``, unjudged documents at full gain) are not computed.
* The curves' L puts C(N) = 0 (the user who reaches the last rank stops there),
  so L sums to 1 and ``sum_i i L(i) = 1/W(1)``; cwl_eval's ``l_vector`` keeps
  C(N) as it is, which is why its ETC and ED differ for INST and INSQ.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .base import _div, _row_scan

__all__ = ["DEPTH", "cwl_gain", "dense", "inst", "insq", "bpm", "sdcg",
           "nerr8", "nerr9", "nerr10", "nerr11"]

#: cwl_eval's evaluation depth (``--max_depth``; ir_measures passes ``max_n=1000``).
DEPTH = 1000


# ------------------------------------------------------------------ C(i) of each measure
def _goal(m) -> float:
    """The measure's T (the user's goal; 1 where the family has none)."""
    return float(m.params.get("T", 1.0))


def _c_precision(i, g, G, m):
    """P@k: C(i) = 1 for i < k, 0 from k."""
    return (i < m.cutoff).astype(np.float64)


def _c_rr(i, g, G, m):
    """RR: C(i) = 1 while no gain has been seen (and i < k for RR@k), 0 from the first gain."""
    go = G == 0
    return (go & (i < m.cutoff) if m.cutoff is not None else go).astype(np.float64)


def _c_rbp(i, g, G, m):
    """RBP(p): C(i) = p."""
    return np.full(len(i), float(m.params["p"]))


def _c_sdcg(i, g, G, m):
    """SDCG@k: C(i) = log2(i+1) / log2(i+2) for i < k, 0 from k."""
    return np.where(i < m.cutoff, np.log2(i + 1.0) / np.log2(i + 2.0), 0.0)


def _c_insq(i, g, G, m):
    """INSQ(T): C(i) = ((i + 2T - 1) / (i + 2T))^2."""
    x = i + 2.0 * _goal(m)
    return ((x - 1.0) / x) ** 2


def _c_inst(i, g, G, m):
    """INST(T): C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = T - G(i)."""
    x = i + 2.0 * _goal(m) - G
    return ((x - 1.0) / x) ** 2


def _c_bpm(i, g, G, m):
    """BPM(T)@k: C(i) = 1 if G(i) < T and i < k, else 0."""
    return ((G < _goal(m)) & (i < m.cutoff)).astype(np.float64)


def _c_nerr8(i, g, G, m):
    """NERR8@k: C(i) = 1 - g(i) for i < k, 0 from k."""
    return np.where(i < m.cutoff, 1.0 - g, 0.0)


def _c_nerr9(i, g, G, m):
    """NERR9@k: C(i) = i/(i+1) * (1 - g(i)) for i < k, 0 from k."""
    return np.where(i < m.cutoff, i / (i + 1.0) * (1.0 - g), 0.0)


def _c_nerr10(i, g, G, m):
    """NERR10(p): C(i) = p * (1 - g(i))."""
    return float(m.params["p"]) * (1.0 - g)


def _c_nerr11(i, g, G, m):
    """NERR11(T): C(i) = ((i + 2T - 1) / (i + 2T))^2 * (1 - g(i))."""
    return _c_insq(i, g, G, m) * (1.0 - g)


# ---------------------------------------------- runs of zero gain, in closed form
# Between two ranks with gain, and after the last one, every gain is 0 and G stays G(n): C(j)
# depends on j alone there.  For such a run of ranks n+1..h (h >= n) each model gives
#   span(n, G, m, h) = prod_{j=n+1..h} C(j)                     (how much of the user goes through it)
#   tail(n, G, m, h) = sum_{i=n+1..h} prod_{j=n+1..i-1} C(j)    (the weight its ranks receive)
# both relative to prod_{j<=n} C(j).  A run of no ranks (h = n) has span 1 and tail 0.
def _span_one(n, G, m, h):
    """C(j) = 1 inside the run (RR and BPM before they stop, NERR8): nothing is lost.  Where C(n) = 0
    (RR after a gain, BPM once G >= T) nobody enters the run, whatever its span."""
    return np.ones(np.shape(n))


def _tail_flat(n, G, m, h):
    """C(j) = 1: each of the h - n ranks of the run weighs as much as rank n+1."""
    return np.maximum(h - n, 0).astype(np.float64)


def _span_harmonic(n, G, m, h):
    """NERR9: C(j) = j/(j+1) telescopes to (n+1)/(h+1)."""
    return (n + 1.0) / (h + 1.0)


def _tail_harmonic(n, G, m, h):
    """NERR9: prod_{j=n+1..i-1} j/(j+1) = (n+1)/i, so the sum is (n+1)(H_h - H_n) (digamma differences)."""
    from scipy.special import digamma  # imported here: the trec_eval CLI never needs scipy

    return (n + 1.0) * (digamma(h + 1.0) - digamma(n + 1.0))


def _span_geometric(n, G, m, h):
    """NERR10 with gain 0: C(j) = p, so p^(h-n)."""
    return float(m.params["p"]) ** (h - n)


def _tail_geometric(n, G, m, h):
    """NERR10 with gain 0: (1 - p^(h-n)) / (1 - p)."""
    p = float(m.params["p"])
    return (1.0 - p ** (h - n)) / (1.0 - p)


def _square_x(m, G):
    """x of C(j) = ((j + x - 1)/(j + x))^2 on a run of zero gain: 2T for NERR11 (INSQ), 2T - G(n) for INST."""
    return 2.0 * _goal(m) - (G if m.family == "INST" else 0.0)


def _span_square(n, G, m, h):
    """((j + x - 1)/(j + x))^2 telescopes: prod_{j=n+1..h} = ((n + x)/(h + x))^2 = (1 - (h - n)/(h + x))^2."""
    x = _square_x(m, G)
    return (1.0 - (h - n) / (h + x)) ** 2


def _tail_square(n, G, m, h):
    """prod_{j=n+1..i-1} = ((n+x)/(i-1+x))^2, summed: a^2 sum_{j<d} (a+j)^-2 with a = n+x, d = h-n.

    For a < 1000 with Hurwitz's zeta, a^2 (zeta(2, a) - zeta(2, a+d)); from 1000 on, where that
    difference cancels (INST's T of 1e13 lost digits, 1e20 gave 1.0 and 1e200 NaN), by Euler-Maclaurin
    in terms of r = a/(a+d) and e = d/(a+d), which never overflow: d r + e (2r + e)/2 + e (3r^2 + 3re + e^2)/(6a)
    - (1 - r^5)/(30 a^3), the next term below a^-5/42 (1e-17 of the value).
    """
    from scipy.special import zeta

    a = np.asarray(n + _square_x(m, G), dtype=np.float64)
    d = np.asarray(h - n, dtype=np.float64)
    small = a < 1000.0
    out = np.empty(np.broadcast(a, d).shape)
    a_s, d_s = np.broadcast_to(a, out.shape)[small], np.broadcast_to(d, out.shape)[small]
    out[small] = a_s ** 2 * (zeta(2.0, a_s) - zeta(2.0, a_s + d_s))
    a_l, d_l = np.broadcast_to(a, out.shape)[~small], np.broadcast_to(d, out.shape)[~small]
    r, e = a_l / (a_l + d_l), d_l / (a_l + d_l)
    out[~small] = (d_l * r + e * (2 * r + e) / 2 + e * (3 * r * r + 3 * r * e + e * e) / (6 * a_l)
                   - (1 - r ** 5) / 30 / a_l / a_l / a_l)
    return out


@dataclass(frozen=True)
class _Model:
    """A C/W/L measure: its C(i), and for adaptive ones its runs of zero gain in closed form."""

    c: Callable  # c(rank i, gain g(i), gain so far G(i), measure) -> C(i), all arrays
    span: Callable | None = None  # None: C depends on the rank only (static)
    tail: Callable | None = None
    gain: str = "cwl"  # the gain of a grade: cwl_gain (min_rel/max_rel), "binary" at rel=, or "rbp" (RBP's)


_ONE = (_span_one, _tail_flat)
# The user model of each C/W/L family; the registry's rows name them (Family.curve), and
# searchgrade.cwl draws curves for exactly the families whose row has one.
P_MODEL = _Model(_c_precision, gain="binary")
RR_MODEL = _Model(_c_rr, *_ONE, gain="binary")
RBP_MODEL = _Model(_c_rbp, gain="rbp")
SDCG_MODEL = _Model(_c_sdcg)
INSQ_MODEL = _Model(_c_insq)
INST_MODEL = _Model(_c_inst, _span_square, _tail_square)
BPM_MODEL = _Model(_c_bpm, *_ONE)
NERR8_MODEL = _Model(_c_nerr8, *_ONE)
NERR9_MODEL = _Model(_c_nerr9, _span_harmonic, _tail_harmonic)
NERR10_MODEL = _Model(_c_nerr10, _span_geometric, _tail_geometric)
NERR11_MODEL = _Model(_c_nerr11, _span_square, _tail_square)


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
def _static(ctx, m, model: _Model):
    """Measures whose C depends on the rank only: sum_i W(i) g(i), W computed once (tie groups averaged)."""
    h = _horizon(m)
    w = dense(model, m, np.zeros(h))[1]
    if ctx.expected:
        gain = ctx.lin(cwl_gain(ctx, m))
        return ctx.ssum(np.where(ctx.rank <= h, gain * w[np.minimum(ctx.rank, h) - 1], 0.0))
    idx = ctx.where("gain")  # only grades > 0 can gain
    idx = idx[ctx.rank[idx] <= h]
    return ctx.rowsum(ctx.seg[idx], cwl_gain(ctx, m, idx) * w[ctx.rank[idx] - 1])


def _adaptive(ctx, m, model: _Model):
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


def inst(ctx, m):
    """INST(T) = sum_i W(i) g(i), C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - G(i) (Moffat et al. 2015)."""
    return _adaptive(ctx, m, INST_MODEL)


def insq(ctx, m):
    """INSQ(T) = sum_i W(i) g(i), C(i) = ((i + 2T - 1)/(i + 2T))^2 (Moffat, Scholer & Thomas 2012)."""
    return _static(ctx, m, INSQ_MODEL)


def bpm(ctx, m):
    """BPM(T)@k = G(s)/s, s = min(k, first rank with G(i) >= T, N): C(i) = [G(i) < T][i < k] (Zhang et al. 2017)."""
    return _adaptive(ctx, m, BPM_MODEL)


def sdcg(ctx, m):
    """SDCG@k = sum_{i<=k} g(i)/log2(i+1) / sum_{i<=k} 1/log2(i+1): C(i) = log2(i+1)/log2(i+2) for i < k."""
    return _static(ctx, m, SDCG_MODEL)


def nerr8(ctx, m):
    """NERR8@k = sum_i W(i) g(i), C(i) = 1 - g(i) for i < k, 0 from k (Azzopardi, Mackenzie & Moffat 2021)."""
    return _adaptive(ctx, m, NERR8_MODEL)


def nerr9(ctx, m):
    """NERR9@k = sum_i W(i) g(i), C(i) = i/(i+1) (1 - g(i)) for i < k, 0 from k (Azzopardi et al. 2021)."""
    return _adaptive(ctx, m, NERR9_MODEL)


def nerr10(ctx, m):
    """NERR10(p) = sum_i W(i) g(i), C(i) = p (1 - g(i)) (Azzopardi et al. 2021)."""
    return _adaptive(ctx, m, NERR10_MODEL)


def nerr11(ctx, m):
    """NERR11(T) = sum_i W(i) g(i), C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i)) (Azzopardi et al. 2021)."""
    return _adaptive(ctx, m, NERR11_MODEL)


# ------------------------------------------------------------------------- curves
def dense(model: _Model, m, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(C, W) of one list over ranks 1..len(gain), as dense arrays: the continuation probability C(i) of a
    C/W/L user model (a registry row's ``curve``) for measure m, and the weights W(i) (summing to 1), for
    gains read in that order (the truncation rank is len(gain)); :func:`searchgrade.cwl` draws them."""
    rank = np.arange(1, len(gain) + 1, dtype=np.float64)
    C = model.c(rank, gain, np.cumsum(gain), m)
    P = np.concatenate(([1.0], np.cumprod(C[:-1])))
    return C, P / P.sum()
