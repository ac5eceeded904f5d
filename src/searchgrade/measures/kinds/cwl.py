"""The C/W/L families of cwl_eval as ir_measures names them (INST, INSQ, BPM, SDCG, NERR8..11): models, rows, kernels.

Each family's C(i) (g(i) the gain at rank i and ``G(i) = g(1) + ... + g(i)``) is written twice here, as a
function of its :class:`~searchgrade.measures.kinds.user_model.UserModel` and in its row's formula (shown in
:mod:`searchgrade.metrics`' formula table); the framework (W, L, the sums over the ranks with gain,
the curves) is :mod:`searchgrade.measures.kinds.user_model`.

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

* Depth: every ranking is cut at N = :data:`~.user_model.DEPTH` = 1000 ranks (cwl_eval's
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

from typing import Callable

import numpy as np

from ..family import Family
from ..params import Param, fmt_value, open_unit, positive, positive_int
from .user_model import ONE, UserModel, adaptive, static

__all__ = ["ROWS", "inst", "insq", "bpm", "sdcg", "nerr8", "nerr9", "nerr10", "nerr11"]


# ------------------------------------------------------------------ C(i) of each measure
def _goal(m) -> float:
    """The measure's T (the user's goal; 1 where the family has none)."""
    return float(m.params.get("T", 1.0))


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


# ------------------------------------- runs of zero gain in closed form (see user_model)
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


# The user model of each C/W/L family; its row names it (Family.curve), and searchgrade.cwl draws its curves.
SDCG_MODEL = UserModel(_c_sdcg)
INSQ_MODEL = UserModel(_c_insq)
INST_MODEL = UserModel(_c_inst, _span_square, _tail_square)
BPM_MODEL = UserModel(_c_bpm, *ONE)
NERR8_MODEL = UserModel(_c_nerr8, *ONE)
NERR9_MODEL = UserModel(_c_nerr9, _span_harmonic, _tail_harmonic)
NERR10_MODEL = UserModel(_c_nerr10, _span_geometric, _tail_geometric)
NERR11_MODEL = UserModel(_c_nerr11, _span_square, _tail_square)


# --------------------------------------------------------------------------- kernels
def inst(ctx, m):
    """INST(T) = sum_i W(i) g(i), C(i) = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - G(i) (Moffat et al. 2015)."""
    return adaptive(ctx, m, INST_MODEL)


def insq(ctx, m):
    """INSQ(T) = sum_i W(i) g(i), C(i) = ((i + 2T - 1)/(i + 2T))^2 (Moffat, Scholer & Thomas 2012)."""
    return static(ctx, m, INSQ_MODEL)


def bpm(ctx, m):
    """BPM(T)@k = G(s)/s, s = min(k, first rank with G(i) >= T, N): C(i) = [G(i) < T][i < k] (Zhang et al. 2017)."""
    return adaptive(ctx, m, BPM_MODEL)


def sdcg(ctx, m):
    """SDCG@k = sum_{i<=k} g(i)/log2(i+1) / sum_{i<=k} 1/log2(i+1): C(i) = log2(i+1)/log2(i+2) for i < k."""
    return static(ctx, m, SDCG_MODEL)


def nerr8(ctx, m):
    """NERR8@k = sum_i W(i) g(i), C(i) = 1 - g(i) for i < k, 0 from k (Azzopardi, Mackenzie & Moffat 2021)."""
    return adaptive(ctx, m, NERR8_MODEL)


def nerr9(ctx, m):
    """NERR9@k = sum_i W(i) g(i), C(i) = i/(i+1) (1 - g(i)) for i < k, 0 from k (Azzopardi et al. 2021)."""
    return adaptive(ctx, m, NERR9_MODEL)


def nerr10(ctx, m):
    """NERR10(p) = sum_i W(i) g(i), C(i) = p (1 - g(i)) (Azzopardi et al. 2021)."""
    return adaptive(ctx, m, NERR10_MODEL)


def nerr11(ctx, m):
    """NERR11(T) = sum_i W(i) g(i), C(i) = ((i + 2T - 1)/(i + 2T))^2 (1 - g(i)) (Azzopardi et al. 2021)."""
    return adaptive(ctx, m, NERR11_MODEL)


# ----------------------------------------------------------------------------- rows
def _at_least(low: float) -> Callable:
    """A check refusing values below ``low``."""
    return lambda v: f"must be at least {fmt_value(low)}" if v < low else None


def _goal_check(v) -> str | None:
    """A C/W/L goal T: positive, and 2T a finite float (C(i) holds i + 2T)."""
    return positive(v) or ("must be at most 1e307 (2T must stay a finite float)" if v > 1e307 else None)


def _inst_goal(v) -> str | None:
    """INST's T: below 0.25 its C(i) = ((i + 2T - G(i) - 1)/(i + 2T - G(i)))^2 can exceed 1."""
    return "must be at least 0.25 (below it INST's C(i) can exceed 1)" if v < 0.25 else _goal_check(v)


def _cwl_finish(measure: str, params: dict, given: set) -> dict:
    """C/W/L gains (grade - min_rel) / (max_rel - min_rel) need max_rel > min_rel."""
    if params.get("max_rel") is not None and params["max_rel"] <= params.get("min_rel", 0):
        raise ValueError(f"measure {measure!r}: max_rel={params['max_rel']} must be greater than "
                         f"min_rel={params.get('min_rel', 0)}")
    return params


_T = Param("T", float, 1.0, "the user's goal: the total gain wanted (T documents at full gain)", check=_goal_check)
_MIN_REL = Param("min_rel", int, 0, "grade at or below which a document gains 0", check=_at_least(0))
_MAX_REL = Param("max_rel", int, None, "grade that earns full gain 1, higher grades count as it (default: the "
                 "query's largest grade; ir_measures requires it)", check=positive_int)
_CWL_GAIN = (_MIN_REL, _MAX_REL)
_NERR_CITE = "Azzopardi, Mackenzie & Moffat, ICTIR 2021; cwl_eval's NERReq8..11"


def _cwl(name, kernel, model, doc, params, **kw) -> Family:
    """A C/W/L family: graded (gain from min_rel/max_rel), its user model, no trec_eval or pytrec_eval counterpart."""
    return Family(name, kernel, doc, tuple(params) + _CWL_GAIN, graded=True, finish=_cwl_finish, curve=model, **kw)


ROWS = [
    _cwl("INST", inst, INST_MODEL, "adaptive user model with goal T",
         (Param("T", float, 1.0, _T.doc, check=_inst_goal),), cutoff="none", expected=False,
         formula="``C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2``, ``T_i = T - G(i)``",
         cite="Moffat, Bailey, Scholer & Thomas, ADCS 2015"),
    _cwl("INSQ", insq, INSQ_MODEL, "weighted precision with patience from T", (_T,), cutoff="none",
         formula="``C(i) = ((i + 2T - 1) / (i + 2T))^2``", cite="Moffat, Scholer & Thomas, ADCS 2012"),
    _cwl("BPM", bpm, BPM_MODEL, "Bejeweled Player Model (static): read until gain T or k documents",
         (_T,), cutoff="required", expected=False,
         formula="``C(i) = 1`` if ``G(i) < T`` and ``i < k``, else 0 (unit costs): the user reads s "
                 "documents, each with weight ``1/s``, value ``G(s)/s``", cite="Zhang et al., SIGIR 2017"),
    _cwl("SDCG", sdcg, SDCG_MODEL, "scaled DCG@k: DCG over the DCG of k documents at full gain",
         (Param("dcg", str, "log2", "DCG discount (ir_measures: only log2)", choices=("log2",)),),
         cutoff="required",
         formula="``C(i) = log2(i+1) / log2(i+2)`` for ``i < k``, 0 from k: DCG@k over the DCG of k fully "
                 "relevant documents (cwl_eval's ``NDCG-k@k``)", cite="Järvelin & Kekäläinen 2002"),
    _cwl("NERR8", nerr8, NERR8_MODEL, "C/W/L approximation of ERR, truncated at k", (),
         cutoff="required", expected=False, formula="``C(i) = 1 - g(i)`` for ``i < k``, 0 from k",
         cite=_NERR_CITE),
    _cwl("NERR9", nerr9, NERR9_MODEL, "C/W/L approximation of ERR, truncated at k", (),
         cutoff="required", expected=False, formula="``C(i) = i/(i+1) * (1 - g(i))`` for ``i < k``, 0 from k",
         cite=_NERR_CITE),
    _cwl("NERR10", nerr10, NERR10_MODEL, "C/W/L approximation of ERR with persistence p",
         (Param("p", float, 0.9, "persistence: the chance of going on, times 1 - g(i)", check=open_unit),),
         cutoff="none", expected=False, formula="``C(i) = p * (1 - g(i))``", cite=_NERR_CITE),
    _cwl("NERR11", nerr11, NERR11_MODEL, "C/W/L approximation of ERR with goal T", (_T,), cutoff="none",
         expected=False, formula="``C(i) = ((i + 2T - 1) / (i + 2T))^2 * (1 - g(i))``", cite=_NERR_CITE),
]
