"""Ranking a run: sort every query's documents, flatten them, attach the qrels (private).

:func:`rank` turns ``{qid: {docid: score}}`` into a :class:`~searchgrade.measures.kernels.base.Ranked`
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

from .kernels.base import Ranked, _dense_rank
from .qrels import NONPOOL, QrelsIndex, warn_user

__all__ = ["rank", "sort_rows", "rank_columns"]


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
    _check_doc_types(index, rows, dicts, code, lengths)
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


def _check_doc_types(index: QrelsIndex, rows: Sequence, dicts: list, code: np.ndarray, lengths: np.ndarray) -> None:
    """Warn when a row retrieves no judged document only because its document ids differ in type (1 vs '1')."""
    some = np.flatnonzero(lengths > 0)
    if len(some) == 0:
        return
    starts = (np.cumsum(lengths) - lengths)[some]
    hits = np.add.reduceat((code != NONPOOL).astype(np.int64), starts)
    pairs = []
    for i in some[hits == 0].tolist():  # rows without a single judged document: look at their ids' text
        judged = index.grades[rows[i]]
        kinds = set(map(type, judged))
        if len(kinds) == 1 and type(next(iter(dicts[i]))) in kinds:  # the usual case: one type (first id seen)
            continue
        texts = {str(d): d for d in judged}
        pairs += [(rows[i], texts[str(d)], d) for d in dicts[i] if str(d) in texts]
    if pairs:
        queries = len({q for q, _, _ in pairs})
        q, judged, retrieved = pairs[0]
        warn_user(f"{queries} quer{'y retrieves' if queries == 1 else 'ies retrieve'} no judged document "
                  f"because document ids differ from the qrels' only in type: query {q!r}: qrels {judged!r} "
                  f"({type(judged).__name__}) vs run {retrieved!r} ({type(retrieved).__name__}); convert "
                  "the ids to one type (e.g. str) on both sides")


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


# -------------------------------------------------------------- from columns
_DENSE_KEYS = 1 << 23  # up to this many (row, document) pairs, grades are found through a table (32 MB)


def rank_columns(qrels, run, *, complete: bool, max_docs: int | None = None,
                 judged_only: bool = False) -> tuple[list, Ranked]:
    """trec_eval's rows and ranking straight from columns (:class:`searchgrade.io.bulk.Columns`).

    What searchgrade.trec_eval evaluates, without building ``{qid: {docid: ...}}`` dicts: the rows
    are the qrels queries that the run ranks (every qrels query when ``complete``) in strcmp order,
    each ranked by score descending, ties by docid descending in strcmp order (trec_eval's qsort),
    then cut to ``max_docs`` and to the judged documents if ``judged_only``.  Both column sets hold
    no (query, document) pair twice.  The same ranking as :func:`rank` with ``ties="trec"``.
    """
    qgrade_all = np.asarray(qrels.values, dtype=np.int64)
    if len(qgrade_all) and qgrade_all.min() == NONPOOL:
        raise ValueError("qrels: a grade does not fit (grades are integers from -2**63 + 1 to 2**63 - 1)")
    in_run = set(run.keys)
    rows = sorted(qrels.keys if complete else [q for q in qrels.keys if q in in_run])
    row_of = {q: i for i, q in enumerate(rows)}
    n = len(rows)
    qrow = np.fromiter((row_of.get(q, -1) for q in qrels.keys), dtype=np.int64, count=len(qrels.keys))[qrels.codes]
    rrow = np.fromiter((row_of.get(q, -1) for q in run.keys), dtype=np.int64, count=len(run.keys))[run.codes]
    # the qrels of the rows, by (row, document) key; documents numbered by the qrels' own codes
    qdoc_code = {d: i for i, d in enumerate(qrels.doc_keys)}
    n_qdocs = max(len(qrels.doc_keys), 1)
    mine = qrow >= 0
    qkey = qrow[mine] * n_qdocs + qrels.doc_codes[mine]
    qgrade = qgrade_all[mine]
    by_key = np.argsort(qkey, kind="stable")
    qkey, qgrade_by_key = qkey[by_key], qgrade[by_key]
    # the run's entries of the rows, ranked: row, score descending, docid descending
    keep = rrow >= 0
    seg0, score = rrow[keep], np.asarray(run.values, dtype=np.float64)[keep]
    rdoc = run.doc_codes[keep]
    doc_rank = np.empty(len(run.doc_keys), dtype=np.int64)
    doc_rank[_strcmp_order(run.doc_keys)] = np.arange(len(run.doc_keys))
    order = _trec_order(seg0, score, doc_rank[rdoc], n, len(run.doc_keys))
    seg, rdoc = seg0[order], rdoc[order]
    # each entry's qrels grade (NONPOOL when the qrels do not judge it)
    to_qdoc = np.fromiter((qdoc_code.get(d, -1) for d in run.doc_keys), dtype=np.int64, count=len(run.doc_keys))
    code = _grades(seg, to_qdoc[rdoc], qkey, qgrade_by_key, n * n_qdocs, n_qdocs)
    lengths = np.bincount(seg, minlength=n).astype(np.int64)
    if max_docs is not None or judged_only:
        kept = _kept(seg, lengths, code, max_docs, judged_only)
        seg, code = seg[kept], code[kept]
        lengths = np.bincount(seg, minlength=n).astype(np.int64)
    # every row's judged grades (>= 0), best first: the ideal ranking
    judged = qgrade >= 0
    jrow, jgrade = qrow[mine][judged], qgrade[judged]
    ideal = np.lexsort((-jgrade, jrow))
    qcount = np.bincount(jrow, minlength=n)
    qseg = np.repeat(np.arange(n, dtype=np.int64), qcount)
    return rows, _ranked(n, seg, code, lengths, qseg, jgrade[ideal], qcount, judged_only)


def _grades(seg: np.ndarray, qd: np.ndarray, qkey: np.ndarray, qgrade_by_key: np.ndarray, n_keys: int,
            n_qdocs: int) -> np.ndarray:
    """Each ranked entry's qrels grade, NONPOOL where the qrels do not judge it.

    seg: the entry's row; qd: its document's qrels code (-1: not in the qrels); qkey (sorted) and
    qgrade_by_key: the qrels of the rows by key row * n_qdocs + document code.
    """
    code = np.full(len(seg), NONPOOL, dtype=np.int64)
    known = np.flatnonzero(qd >= 0)
    if len(known) and len(qkey):
        key = seg[known] * n_qdocs + qd[known]
        if n_keys <= _DENSE_KEYS:  # a table of every (row, document): one gather
            table = np.full(n_keys, -1, dtype=np.int32)
            table[qkey] = np.arange(len(qkey), dtype=np.int32)
            at = table[key]
            hit = at >= 0
        else:
            at = np.minimum(np.searchsorted(qkey, key), len(qkey) - 1)
            hit = qkey[at] == key
        code[known[hit]] = qgrade_by_key[at[hit]]
    return code


def _trec_order(seg: np.ndarray, score: np.ndarray, doc_rank: np.ndarray, rows: int, docs: int) -> np.ndarray:
    """Permutation sorting entries by row, score descending, docid descending (one integer key when it fits).

    The vectorised form of :func:`searchgrade.io.trec_order` over many rows at once.
    """
    if len(seg) == 0:
        return np.zeros(0, dtype=np.int64)
    by_score = _dense_rank(score)
    scores = int(by_score.max()) + 1
    if rows * scores * docs < 2**62:  # (row, score descending, docid descending) as one int64: unique
        return np.argsort(seg * (scores * docs) + (scores - 1 - by_score) * docs + (docs - 1 - doc_rank))
    return np.lexsort((-doc_rank, -by_score, seg))


def _strcmp_order(docs: list) -> np.ndarray:
    """Positions of the document ids in strcmp order of their UTF-8 bytes (code point order)."""
    if not docs:
        return np.zeros(0, dtype=np.int64)
    return np.argsort(np.array(docs, dtype=str), kind="stable")


def _ranked(n: int, seg, code, lengths, qseg, qgrade, qcount, judged_only: bool) -> Ranked:
    """The Ranked context of entries in rank order (seg, qrels code) and the rows' judged grades, best first."""
    rank_ = np.arange(1, len(seg) + 1, dtype=np.int64)
    rank_ -= np.repeat(np.cumsum(lengths) - lengths, lengths)
    qrank = np.arange(len(qseg), dtype=np.int64) - np.repeat(np.cumsum(qcount) - qcount, qcount) + 1
    judged, nonpool = code >= 0, code == NONPOOL
    return Ranked(n=n, seg=seg, rank=rank_, grade=np.maximum(code, 0), judged=judged, nonpool=nonpool,
                  nret=lengths, qseg=qseg, qgrade=qgrade, qrank=qrank, judged_only=judged_only)
