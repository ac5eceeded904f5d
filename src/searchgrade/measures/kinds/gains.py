"""Gains of graded measures: a grade as gain, trec_eval's exponential scale, gain maps, log2 discounts."""
from __future__ import annotations

import numpy as np


_EXP_FLOOR = -1100  # 2^-1100 is 0 in float64: exponents below it need not be told apart


def _pow2(e: np.ndarray) -> np.ndarray:
    """2^e for integer exponents e <= 0, exact down to the smallest float (np.ldexp)."""
    return np.ldexp(1.0, np.maximum(e, _EXP_FLOOR).astype(np.int32))


def _exp_scale(ctx, m) -> np.ndarray | None:
    """Per-row exponent s by which exponential gains are scaled down (2^-s), or None for linear gains.

    s is the row's largest qrels grade: every retrieved grade is at most s, so
    (2^g - 1) / 2^s = 2^(g-s) - 2^-s lies in [0, 1) and stays finite for any grade.
    """
    if m.params.get("gain", "linear") != "exp":
        return None
    return ctx.top_grade()


def _gain(ctx, m, grade, seg, judged=None):
    """Gain of each grade (entries in rows seg): linear g, custom gains={g: v}, or exp (2^g - 1) / 2^s.

    Custom gains apply to judged documents (``judged``; None: all are, as in
    the ideal ranking): an unjudged document gains 0 even when grade 0 has a
    gain (trec_eval's ndcg.0=v).  Exponential gains come scaled by 2^-s per row
    (:func:`_exp_scale`): nDCG's ratio does not change (a power of two scales
    exactly), DCG and CG scale back.
    """
    scale = _exp_scale(ctx, m)
    if scale is not None:  # grade 0 gains exactly 0: compute the others only
        out = np.zeros(len(grade))
        pos = np.flatnonzero(grade > 0)
        s = scale[seg[pos]]
        out[pos] = _pow2(grade[pos] - s) - _pow2(-s)
        return out
    g = grade.astype(np.float64)
    gains = _gain_items(m)
    if gains:
        out = g.copy()
        for level, value in gains:
            hit = grade == level
            out[hit if level or judged is None else hit & judged] = value
        return out
    return g


def _gain_items(m) -> list:
    """The measure's gains per grade as (grade, gain) pairs, in the order given (none: [])."""
    gains = m.params.get("gains") or ()
    return list(gains.items()) if isinstance(gains, dict) else list(gains)


def _gain_entries(ctx, m) -> np.ndarray:
    """Positions of the retrieved entries that can gain: grade > 0, or judged when grade 0 has a gain."""
    return ctx.where("judged") if dict(_gain_items(m)).get(0) else ctx.where("gain")


def _unscale(ctx, m, values: np.ndarray) -> np.ndarray:
    """DCG/CG values computed with scaled exponential gains, scaled back by 2^s; ValueError on overflow."""
    scale = _exp_scale(ctx, m)
    if scale is None:
        return values
    with np.errstate(over="ignore"):
        out = np.ldexp(values, np.minimum(scale, 2000).astype(np.int32))
    bad = ~np.isfinite(out)
    if bad.any():
        g = int(scale[np.flatnonzero(bad)[0]])
        raise ValueError(f"measure {m.name!r}: with gain=exp the gain 2^g - 1 of grade {g} does not fit in a "
                         f"float (the largest is about 2^1024); nDCG(gain=exp), a ratio, stays finite")
    return out


def _discounted(m, w, rank, ctx=None):
    """Gains w at ranks ``rank`` discounted: w / log2(rank + 1) (a division, as trec_eval's), or
    Jarvelin-Kekalainen: w for rank < b, w / log_b(rank) from rank b on."""
    if m.params.get("discount", "log2") == "jk":
        rank = rank.astype(np.float64)
        b = float(m.params.get("b", 2))
        return w * np.where(rank < b, 1.0, np.log(b) / np.log(np.maximum(rank, b)))
    return w / _log2_table(ctx, rank)[rank]


def _log2_table(ctx, rank) -> np.ndarray:
    """log2(r + 1) for r = 0 .. the largest rank (index r), kept in the context: one log2 per rank."""
    top = int(rank.max(initial=0))
    table = ctx.cache.get("log2") if ctx is not None else None
    if table is None or len(table) <= top:
        table = np.log2(np.arange(max(top, 1023) + 1, dtype=np.float64) + 1.0)
        if ctx is not None:
            ctx.cache["log2"] = table
    return table
