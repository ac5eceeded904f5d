"""Ranking a run: sort every query's documents, flatten them, attach the qrels (private).

:func:`rank` turns ``{qid: {docid: score}}`` into a :class:`~searchgrade._measures.Ranked`
context: one entry per retrieved document, query by query, in rank order,
with its qrels grade, plus each query's judged grades best first (the ideal
ranking).  Order: score descending; ties by docid descending in string order
(``ties="trec"``, trec_eval's qsort with strcmp) or in the run's own order
(``ties="input"``, a stable sort); ``ties="expected"`` records the tie groups
instead.  All queries are sorted at once; only tie groups are put in docid
order, one small Python sort per group.
"""
from __future__ import annotations

import math
from itertools import chain, repeat
from typing import Mapping, Sequence

import numpy as np

from ._measures import Ranked
from ._qrels import NONPOOL, QrelsIndex

__all__ = ["rank", "sort_rows"]


def rank(index: QrelsIndex, run: Mapping, rows: Sequence, *, ties: str, judged_only: bool = False,
         max_docs: int | None = None, exact: bool = False) -> Ranked:
    """The run's rows ranked and flattened into a :class:`Ranked` context.

    Tied documents that no measure can tell apart (same qrels code) stay in
    any order unless ``exact``; :meth:`Ranked.docids` always gives the exact order.
    """
    dicts = _row_dicts(run, rows)
    lengths = np.fromiter(map(len, dicts), dtype=np.int64, count=len(rows))
    score = _scores(dicts, rows, run)
    code = _codes(index, rows, dicts, int(lengths.sum()))
    order = sort_rows(score, lengths, dicts, ties, None if exact else code)
    code = code[order]
    seg = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    gid = _tie_groups(score[order], seg) if ties == "expected" else None
    del score
    if max_docs is not None or judged_only:
        keep = _kept(seg, lengths, code, max_docs, judged_only)
        seg, code, order = seg[keep], code[keep], order[keep]
        gid = gid[keep] if gid is not None else None
        lengths = np.bincount(seg, minlength=len(rows))
    ctx = _context(index, rows, seg, code, lengths, gid, ties == "expected", judged_only)
    if exact or ties != "trec":
        ctx.cache["order"], ctx.cache["dicts"] = order, dicts
    else:  # docids() ranks the run again, breaking every tie
        ctx.cache["exact"] = lambda: rank(index, run, rows, ties=ties, judged_only=judged_only,
                                          max_docs=max_docs, exact=True)
    return ctx


def _row_dicts(run: Mapping, rows: Sequence) -> list:
    """Each row's {docid: score} ({} when the run has no ranking for it)."""
    dicts = []
    for q in rows:
        d = run.get(q)
        if not d:
            d = {}
        elif type(d) is not dict and not isinstance(d, Mapping):
            raise TypeError(f"run query {q!r}: expected a dict {{docid: score}}, not {type(d).__name__}")
        dicts.append(d)
    return dicts


def _scores(dicts: list, rows: Sequence, run: Mapping) -> np.ndarray:
    """All scores, row after row, as floats (flattened at C speed; checked only when odd)."""
    score = np.array(list(chain.from_iterable(d.values() for d in dicts)))
    if score.dtype.kind not in "fiu" or (score.dtype.kind == "f" and not np.isfinite(score).all()):
        score = _check_scores(rows, run)
    return score.astype(np.float64, copy=False)


def _check_scores(rows: Sequence, run: Mapping) -> np.ndarray:
    """Scores as floats, or ValueError naming the first query and document with a bad score."""
    out = []
    for q in rows:
        for d, s in (run.get(q) or {}).items():
            try:
                ok = not isinstance(s, (str, bytes, bool, np.bool_)) and math.isfinite(float(s))
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                raise ValueError(f"run query {q!r} document {d!r}: score {s!r} is not a finite number")
            out.append(float(s))
    return np.array(out, dtype=np.float64)


def _codes(index: QrelsIndex, rows: Sequence, dicts: list, total: int) -> np.ndarray:
    """The qrels grade of each retrieved document (NONPOOL when absent): one dict lookup per document."""
    grades = index.grades
    return np.fromiter(chain.from_iterable(map(grades[q].get, d, repeat(NONPOOL, len(d)))
                                           for q, d in zip(rows, dicts)), dtype=np.int64, count=total)


def _tie_groups(s_sorted: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Tie group of each entry in rank order: runs of equal scores within a row."""
    newgrp = np.ones(len(s_sorted), dtype=bool)
    newgrp[1:] = (s_sorted[1:] != s_sorted[:-1]) | (seg[1:] != seg[:-1])
    return np.cumsum(newgrp) - 1


def _kept(seg: np.ndarray, lengths: np.ndarray, code: np.ndarray, max_docs, judged_only) -> np.ndarray:
    """Entries that stay: the first max_docs of each row (trec_eval -M), judged ones only (-J)."""
    pos = np.arange(len(seg)) - np.concatenate(([0], np.cumsum(lengths)[:-1]))[seg]
    keep = np.ones(len(seg), dtype=bool)
    if max_docs is not None:
        keep &= pos < max_docs
    if judged_only:
        keep &= code >= 0
    return keep


def _context(index: QrelsIndex, rows: Sequence, seg, code, lengths, gid, expected: bool,
             judged_only: bool) -> Ranked:
    """The Ranked context of entries in rank order, with the rows' judged grades (the ideal ranking)."""
    n = len(rows)
    rank_ = np.arange(1, len(seg) + 1, dtype=np.int64)
    rank_ -= np.repeat(np.cumsum(lengths) - lengths, lengths)  # 1-based rank within the row
    qcount, qgrade = index.judged(rows)
    qseg = np.repeat(np.arange(n, dtype=np.int64), qcount)
    qrank = np.arange(len(qseg), dtype=np.int64) - np.concatenate(([0], np.cumsum(qcount)[:-1]))[qseg] + 1
    judged, nonpool = code >= 0, code == NONPOOL
    return Ranked(n=n, seg=seg, rank=rank_, grade=np.maximum(code, 0, out=code), judged=judged,
                  nonpool=nonpool, nret=lengths.astype(np.int64), qseg=qseg, qgrade=qgrade,
                  qrank=qrank, expected=expected,
                  gid=(np.unique(gid, return_inverse=True)[1] if gid is not None else None),
                  judged_only=judged_only)


# ------------------------------------------------------------------- sorting
def sort_rows(score: np.ndarray, lengths: np.ndarray, dicts: list, ties: str,
              code: np.ndarray | None = None) -> np.ndarray:
    """Permutation putting each query's documents in rank order (rows stay in place).

    Score descending; ties in input order, or for ties="trec" by docid
    descending in string order.  Given ``code`` (the qrels code of each
    document), a tie group whose documents all have the same code is left as
    it is: no measure can tell its orders apart.
    """
    order = _rank_rows(score, lengths, stable=ties != "trec")
    if ties != "trec" or len(order) < 2:
        return order
    # Tie groups: neighbours in rank order with the same score and the same row.
    s = score[order]
    tie = s[1:] == s[:-1]
    del s
    row_start = np.zeros(len(order), dtype=bool)
    row_start[(np.cumsum(lengths) - lengths)[lengths > 0]] = True
    tie &= ~row_start[1:]
    differ = tie
    if code is not None:
        c = code[order]
        differ = tie & (c[1:] != c[:-1])
        del c
    if not differ.any():
        return order
    first = np.flatnonzero(np.concatenate(([True], ~tie)))  # where each tie group starts
    size = np.diff(np.append(first, len(order)))
    group = np.searchsorted(first, np.flatnonzero(differ), side="right") - 1  # group of each differing pair
    group = group[np.concatenate(([True], group[1:] != group[:-1]))]  # the groups that need docid order
    _sort_groups(order, first[group], size[group], list(chain.from_iterable(dicts)))  # docids in input order
    return order


def _docid_descending(docs: list, positions: list) -> list:
    """The positions sorted by their docid, descending in string order (strcmp, as trec_eval).

    Non-string ids are compared as text; equal texts keep their input order.
    """
    if type(docs[positions[0]]) is str:
        try:  # docids within a query are distinct: the input order of positions does not matter
            return sorted(positions, key=docs.__getitem__, reverse=True)
        except TypeError:  # a mixture of str and other ids
            pass
    return sorted(sorted(positions), key=lambda j: str(docs[j]), reverse=True)


def _sort_groups(order: np.ndarray, lo: np.ndarray, size: np.ndarray, docs: list, chunk: int = 1 << 16) -> None:
    """Put each tie group ``order[lo : lo + size]`` in docid order, in place: one small Python sort per group.

    Groups go a chunk of about ``chunk`` documents at a time, so the Python lists stay small.
    """
    stops = np.cumsum(size)  # end of each group in the concatenation of all groups
    g = 0
    while g < len(lo):
        base = int(stops[g] - size[g])  # documents of the groups before g
        h = max(g + 1, int(np.searchsorted(stops, base + chunk, side="right")))  # groups g .. h-1 this time
        width = size[g:h]
        ends = stops[g:h] - base
        pos = np.repeat(lo[g:h] - (ends - width), width) + np.arange(int(ends[-1]))  # their positions in order
        members = order[pos].tolist()
        cuts = ends.tolist()
        by_docid = chain.from_iterable(_docid_descending(docs, members[a:b]) for a, b in zip([0] + cuts, cuts))
        order[pos] = np.fromiter(by_docid, dtype=np.int64, count=len(members))
        g = h


def _rank_rows(score: np.ndarray, lengths: np.ndarray, stable: bool) -> np.ndarray:
    """Permutation sorting each row (a contiguous block, ``lengths`` long) by score descending; rows stay in place.

    Rows of similar length (the same power of two) are laid out as one padded
    matrix and sorted row by row in one call, so padding at most doubles the
    work.  ``stable`` keeps equal scores in input order.
    """
    kind = "stable" if stable else None
    order = np.empty(len(score), dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    size_class = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for c in np.unique(size_class[lengths > 0]).tolist():
        rows = np.flatnonzero((size_class == c) & (lengths > 0))
        width = int(lengths[rows].max())
        filled = np.arange(width) < lengths[rows][:, None]  # cells holding a row's documents, in input order
        if rows[-1] - rows[0] + 1 == len(rows):  # consecutive rows (the usual case): a slice of the run
            cells = slice(int(starts[rows[0]]), int(starts[rows[-1]] + lengths[rows[-1]]))
        else:
            cells = (starts[rows][:, None] + np.arange(width))[filled]  # their positions in the run
        neg = np.full(filled.shape, -np.inf)
        neg[filled] = score[cells]
        np.negative(neg, out=neg)  # scores are finite, so the padding (+inf) sorts last
        by_score = np.argsort(neg, axis=1, kind=kind)
        del neg
        by_score += starts[rows][:, None]
        order[cells] = by_score[filled]
    return order
