"""trec_eval's ideal ranking: the gains its walk meets, in the order its qsort leaves them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gains import _gain_items


# ------------------------------------------------ trec_eval's walk down the ideal ranking
@dataclass
class _Ideal:
    """trec_eval's ideal ranking of every row: the gains its walk meets, in the order it meets them."""

    seg: np.ndarray  # row of each ideal entry, rows in order
    gain: np.ndarray  # its gain (> 0: the walk stops at the first gain <= 0)
    pos: np.ndarray  # its 1-based position in the row's ideal ranking
    count: np.ndarray  # entries per row (M)
    start: np.ndarray  # first entry of each row
    integral: bool  # every gain (ideal and of any retrieved document) is a whole number


_MAX_TREC_GRADE = 1 << 16  # trec_eval's setup_gains keeps one entry per grade from 0 to the largest


def _c_int(x: float) -> int:
    """C's conversion of a double to int on x86-64 (cvttsd2si): truncation; INT_MIN when out of range."""
    if x != x or not -2.0**31 - 1 < x < 2.0**31:
        return -(2**31)
    return int(x)


def _glibc_qsort(items: list) -> list:
    """(grade, gain) pairs ordered as trec_eval's setup_gains orders them: glibc's qsort (a merge sort,
    halves of n // 2 and the rest, the left element first unless the comparison is > 0) with
    comp_rel_gain, which returns the difference of the gains converted to int (0 when they differ by
    less than 1), so gains closer than 1 keep their order in the list."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_qsort(items[:half]), _glibc_qsort(items[half:])
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _c_int(left[i][1] - right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _walk_order(gains: list, top: int) -> list:
    """trec_eval's gain levels for a query whose largest grade is ``top``, in the order its walk takes
    them (the largest gain first): the grades given gains, in the order given, then every other grade
    from 0 to ``top`` with gain = grade, sorted by :func:`_glibc_qsort`, then reversed."""
    given = dict(gains)
    levels = list(gains) + [(g, float(g)) for g in range(top + 1) if g not in given]
    return _glibc_qsort(levels)[::-1]


def _trec_ideal(ctx, m) -> _Ideal:
    """The ideal ranking that trec_eval's ndcg, ndcg_rel, Rndcg and G walk down (m_ndcg.c and others).

    The walk goes through the gain levels from the last of :func:`_walk_order` on, taking as many
    entries of a level as the query has judged documents of that grade, and stops at the first level
    with documents whose gain is not positive; it does not start at all when the level it starts from
    (the last in the list, documents or not) has a gain <= 0.  With every grade gaining itself this is
    the judged documents of positive grade, best first.
    """
    gains = _gain_items(m)
    key = ("trec_ideal", tuple(gains))
    if key in ctx.cache:
        return ctx.cache[key]
    qseg, qgrade = ctx.qseg, ctx.qgrade
    if not gains:
        keep = qgrade > 0
        seg, gain = qseg[keep], qgrade[keep].astype(np.float64)
        integral = True
    else:
        top = ctx.top_grade()
        if len(top) and int(top.max()) > _MAX_TREC_GRADE:
            raise ValueError(f"measure {m.name!r}: gains per grade on qrels with a grade above {_MAX_TREC_GRADE} "
                             f"(here {int(top.max())}) are refused: trec_eval's walk keeps an entry for every "
                             "grade from 0 to the largest")
        step = np.zeros(len(qgrade), dtype=np.int64)  # position of each judgment's level in the walk
        gain = np.zeros(len(qgrade))
        starts = np.ones(ctx.n, dtype=bool)  # the walk starts: its first level has a gain > 0
        row_top = top[qseg]
        for t in np.unique(row_top).tolist():
            order = _walk_order(gains, t)
            where = np.flatnonzero(row_top == t)
            position = np.zeros(t + 1, dtype=np.int64)
            level_gain = np.zeros(t + 1)
            for i, (g, v) in enumerate(order):
                if 0 <= g <= t:
                    position[g], level_gain[g] = i, v
            step[where] = position[qgrade[where]]
            gain[where] = level_gain[qgrade[where]]
            starts[top == t] = order[0][1] > 0
        walk = np.lexsort((step, qseg))  # rows stay in order; within a row, the walk's order
        seg, gain = qseg[walk], gain[walk]
        stop = gain <= 0  # the walk ends at the first of these in its row
        before = np.concatenate(([0], np.cumsum(np.bincount(seg[stop], minlength=ctx.n))[:-1]))
        keep = (np.cumsum(stop) - before[seg] == 0) & starts[seg]
        seg, gain = seg[keep], gain[keep]
        integral = all(float(v).is_integer() for _, v in gains)
    count = np.bincount(seg, minlength=ctx.n)
    start = np.cumsum(count) - count
    pos = np.arange(1, len(seg) + 1, dtype=np.int64) - start[seg]
    ctx.cache[key] = out = _Ideal(seg, gain, pos, count, start, integral)
    return out
