"""Ranking a run: sort every query's documents, flatten them, attach the qrels (private).

:func:`rank` turns a run -- ``{qid: {docid: score}}`` or the columns of a run
file (:class:`searchgrade.io.bulk.Columns`) -- into a
:class:`~searchgrade.measures.kinds.base.Ranked` context: one entry per
retrieved document, query by query, in rank order, with its qrels grade, plus
each query's judged grades best first (the ideal ranking).  Both forms take one
path: the run's entries of the rows, row after row in input order (dicts are
read in their order, columns grouped by row), each entry's grade found by one
join with the qrels' columns, then one sort.  Order: score descending; ties by
docid descending in string order (``ties="trec"``, trec_eval's qsort with
strcmp) or in the run's own order (``ties="input"``, a stable sort);
``ties="expected"`` records the tie groups instead.  All queries are sorted at
once; only tie groups are then put in docid order, all of them in one sort.
"""
from __future__ import annotations

import math
from itertools import chain, repeat
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from .kinds.base import Ranked
from .qrels import NONPOOL, QrelsIndex, id_texts, text_matches, warn_user

__all__ = ["rank", "sort_rows"]


def _small(n: int) -> type:
    """The smaller integer type that holds 0 .. n (int32 or int64), for temporaries."""
    return np.int32 if n < 2**31 - 1 else np.int64


def _entry_type(index: QrelsIndex, rows: Sequence, lengths: np.ndarray) -> type:
    """int32 for the rows and ranks of the entries when every product a kernel forms of them fits (a row
    times the longest ranking, retrieved or ideal, plus 2, as trec_walk's keys are), else int64."""
    longest = max(int(lengths.max(initial=0)), int(index.judged(rows)[0].max(initial=0))) + 2
    return np.int32 if len(rows) * longest < 2**31 and int(lengths.sum()) < 2**31 else np.int64


class _Entries(NamedTuple):
    """The run's entries of the rows, row after row, each row in input order."""

    lengths: np.ndarray  # entries per row
    score: np.ndarray  # float64
    doc: np.ndarray  # code of each entry's document: its id is doc_keys[code]
    doc_keys: list  # document ids (of a file's columns: distinct; of dicts: every entry's, in order)
    fold: np.ndarray | None = None  # the ids' folds (a file's columns, read by the bulk reader), else None


def rank(index: QrelsIndex, run, rows: Sequence, *, ties: str, judged_only: bool = False,
         max_docs: int | None = None, exact: bool = False) -> Ranked:
    """The run's rows ranked and flattened into a :class:`Ranked` context.

    ``run`` is ``{qid: {docid: score}}`` or a run file's columns.  Tied documents that no
    measure can tell apart (same qrels code) stay in any order unless ``exact``;
    :meth:`Ranked.docids` always gives the exact order.
    """
    columns = hasattr(run, "doc_codes")
    entries = _column_entries(run, rows) if columns else _dict_entries(run, rows)
    lengths = entries.lengths
    seg = np.repeat(np.arange(len(rows), dtype=_entry_type(index, rows, lengths)), lengths)
    # a file's columns: grades by one join with the qrels' columns; dicts: one dict lookup per document
    code = _codes(index, rows, seg, entries) if columns else _dict_codes(index, rows, run, len(seg))
    if not (columns and index.from_file):  # ids read from two files are text on both sides
        _check_doc_types(index, rows, entries, code)
    # a file's documents are distinct within a query: its ties need no input order to fall back on
    order = sort_rows(entries.score, lengths, ties, lambda at: _tie_key(entries, at), None if exact else code,
                      stable=not (columns and ties == "trec"))
    code = code[order]
    gid = _tie_groups(entries.score[order], seg) if ties == "expected" else None
    if max_docs is not None or judged_only:
        keep = _kept(seg, lengths, code, max_docs, judged_only)
        seg, code, order = seg[keep], code[keep], order[keep]
        gid = gid[keep] if gid is not None else None
        lengths = np.bincount(seg, minlength=len(rows))
    ctx = _context(index, rows, seg, code, lengths, gid, ties == "expected", judged_only)
    if exact or ties != "trec":
        doc, keys = entries.doc, entries.doc_keys
        ctx.cache["docids"] = lambda: [keys[c] for c in doc[order].tolist()]
    else:  # docids() ranks the run again, breaking every tie
        ctx.cache["exact"] = lambda: rank(index, run, rows, ties=ties, judged_only=judged_only,
                                          max_docs=max_docs, exact=True)
    return ctx


def _dict_entries(run: Mapping, rows: Sequence) -> _Entries:
    """The entries of ``{qid: {docid: score}}``: each row's dict in its order."""
    dicts = _row_dicts(run, rows)
    lengths = np.fromiter(map(len, dicts), dtype=np.int64, count=len(rows))
    docs = list(chain.from_iterable(dicts))  # each entry its own code: no hashing of the ids here
    return _Entries(lengths, _scores(dicts, rows, run), np.arange(len(docs)), docs)


def _column_entries(run, rows: Sequence) -> _Entries:
    """The entries of a run file's columns: the rows' lines grouped by row, each row in file order.

    When every line belongs to a row, in row order (the usual file), the columns are used as they are.
    """
    row_of = {q: i for i, q in enumerate(rows)}
    rrow = np.fromiter((row_of.get(q, -1) for q in run.keys), dtype=_small(len(rows)), count=len(run.keys))[run.codes]
    lengths = np.bincount(rrow[rrow >= 0], minlength=len(rows)).astype(np.int64)
    score, doc = np.asarray(run.values, dtype=np.float64), np.asarray(run.doc_codes)
    if len(rrow) and (rrow[0] >= 0) and (rrow[1:] >= rrow[:-1]).all():
        return _Entries(lengths, score, doc, run.doc_keys, getattr(run, "doc_fold", None))
    keep = np.flatnonzero(rrow >= 0)
    rrow = rrow[keep]
    if len(rrow) > 1 and not (rrow[1:] >= rrow[:-1]).all():  # lines not in row order: group them
        keep = keep[np.argsort(rrow, kind="stable")]
    del rrow
    return _Entries(lengths, score[keep], doc[keep], run.doc_keys, getattr(run, "doc_fold", None))


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


def _dict_codes(index: QrelsIndex, rows: Sequence, run: Mapping, total: int) -> np.ndarray:
    """The qrels grade of each entry of dict rows (NONPOOL when absent): one dict lookup per document."""
    grades, empty = index.grades, {}
    return np.fromiter(chain.from_iterable(map(grades[q].get, run.get(q) or empty, repeat(NONPOOL))
                                           for q in rows), dtype=np.int64, count=total)


def _codes(index: QrelsIndex, rows: Sequence, seg: np.ndarray, entries: _Entries) -> np.ndarray:
    """The qrels grade of each entry (NONPOOL when the qrels do not judge it): one join on (row, document)."""
    qdoc, qdoc_keys = index.doc_ids()
    to_qdoc = index.doc_codes(entries.doc_keys, entries.fold)
    qrow, mine = index.judgments(rows)  # the rows' judgments, grouped by row
    n_qdocs = max(len(qdoc_keys), 1)
    qkey = qrow * n_qdocs + qdoc[mine]
    del qrow
    return _grades(seg, to_qdoc[entries.doc], qkey, index.grade[mine], n_qdocs)


_TABLE_KEYS = 1 << 22  # (row, document) pairs of one block of rows, found through a table (16 MB)


def _grades(seg: np.ndarray, qd: np.ndarray, qkey: np.ndarray, qgrade: np.ndarray, n_qdocs: int) -> np.ndarray:
    """Each entry's qrels grade, NONPOOL where the qrels do not judge it.

    seg: the entry's row (non-decreasing); qd: its document's qrels code (-1: not in the qrels);
    qkey (grouped by row, in any order within a row) and qgrade: the qrels of the rows by key
    row * n_qdocs + document code.  A block of rows at a time, so that the temporaries stay a
    block's size.
    """
    code = np.full(len(seg), NONPOOL, dtype=np.int64)
    if not len(qkey) or not len(seg):
        return code
    rows = int(seg[-1]) + 1
    step = min(max(1, _TABLE_KEYS // n_qdocs), rows)
    cuts = np.arange(0, rows + step, step)
    ends, qends = np.searchsorted(seg, cuts), np.searchsorted(qkey, cuts * n_qdocs)
    # a table pays when it is not much larger than the entries it serves (else: binary search)
    table = None
    if n_qdocs <= _TABLE_KEYS and step * n_qdocs <= 16 * len(seg) * step / rows:
        table = np.full(step * n_qdocs, -1, dtype=_small(len(qkey)))
    for r0, a, b, qa, qb in zip(cuts.tolist(), ends.tolist(), ends[1:].tolist(), qends.tolist(), qends[1:].tolist()):
        if a == b or qa == qb:
            continue
        d = qd[a:b]
        known = np.flatnonzero(d >= 0)
        key = (seg[a:b][known] - r0) * n_qdocs + d[known]
        local = qkey[qa:qb] - r0 * n_qdocs
        if table is not None:  # a table of the block's (row, document) pairs: one gather
            table[local] = np.arange(qa, qb, dtype=table.dtype)
            at = table[key]
            table[local] = -1
            hit = at >= 0
        else:
            by_key = np.argsort(local)
            local = local[by_key]
            at = np.minimum(np.searchsorted(local, key), len(local) - 1)
            hit = local[at] == key
            at = qa + by_key[at]
        code[a + known[hit]] = qgrade[at[hit]]
    return code


def _check_doc_types(index: QrelsIndex, rows: Sequence, entries: _Entries, code: np.ndarray) -> None:
    """Warn when a row retrieves no judged document only because its document ids differ in type (1 vs '1')."""
    lengths = entries.lengths
    some = np.flatnonzero(lengths > 0)
    if len(some) == 0:
        return
    starts = np.cumsum(lengths) - lengths
    hits = np.add.reduceat((code != NONPOOL).astype(np.int64), starts[some])
    pairs = []
    missed = some[hits == 0].tolist()
    if not missed:
        return
    grades = index.grades
    for i in missed:  # rows without a single judged document: their ids' text
        qrels_docs = grades[rows[i]]
        run_docs = [entries.doc_keys[c] for c in entries.doc[starts[i]: starts[i] + lengths[i]].tolist()]
        kinds = set(map(type, qrels_docs))
        if len(kinds) == 1 and type(run_docs[0]) in kinds:  # the usual case: one type (first id seen)
            continue
        pairs += [(rows[i], judged, d) for d, judged in text_matches(run_docs, {t: d for d in qrels_docs
                                                                               for t in id_texts(d)})]
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
    rank_ = np.arange(1, len(seg) + 1, dtype=seg.dtype)
    rank_ -= np.repeat((np.cumsum(lengths) - lengths).astype(seg.dtype), lengths)  # 1-based rank within the row
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
def sort_rows(score: np.ndarray, lengths: np.ndarray, ties: str, tie_key=None,
              code: np.ndarray | None = None, stable: bool = True) -> np.ndarray:
    """Permutation putting each query's documents in rank order (rows stay in place).

    Score descending; ties in input order, or for ties="trec" by docid descending in
    string order: ``tie_key(entries)`` gives keys whose descending order is that order
    (equal keys keep input order, unless ``stable=False``: for keys that never tie).
    Given ``code`` (the qrels code of each document), a tie group whose documents all
    have the same code is left as it is: no measure can tell its orders apart.
    """
    order = _rank_rows(score, lengths, stable=stable or ties != "trec")
    if ties != "trec" or len(order) < 2:
        return order
    # Tie groups: neighbours in rank order with the same score and the same row.
    s = score[order]
    tie = s[1:] == s[:-1]
    del s
    row_start = np.zeros(len(order), dtype=bool)
    row_start[(np.cumsum(lengths) - lengths)[lengths > 0]] = True
    tie &= ~row_start[1:]
    del row_start
    differ = tie
    if code is not None:
        c = code[order]
        differ = tie & (c[1:] != c[:-1])
        del c
    if not differ.any():
        return order
    first = np.flatnonzero(np.concatenate(([True], ~tie)))  # where each tie group starts
    del tie
    size = np.diff(np.append(first, len(order)))
    group = np.searchsorted(first, np.flatnonzero(differ), side="right") - 1  # group of each differing pair
    group = group[np.concatenate(([True], group[1:] != group[:-1]))]  # the groups that need docid order
    _sort_groups(order, first[group], size[group], tie_key)
    return order


def _sort_groups(order: np.ndarray, lo: np.ndarray, size: np.ndarray, tie_key) -> None:
    """Put each tie group ``order[lo : lo + size]`` in docid order (tie_key descending), in place.

    Members of a group are in input order before (a stable sort), and equal keys keep it.  The groups
    are sorted a few at a time (about _SORT_CELLS members), so the sort's temporaries stay small.
    """
    ends = np.cumsum(size)
    pos = np.repeat((lo - (ends - size)).astype(order.dtype), size)
    pos += np.arange(int(ends[-1]), dtype=order.dtype)  # the groups' positions, in order
    members = order[pos]
    key = tie_key(members)
    span = int(key.max()) + 1
    g0 = 0
    while g0 < len(size):
        a = int(ends[g0] - size[g0])
        g1 = max(int(np.searchsorted(ends, a + _SORT_CELLS, side="right")), g0 + 1)
        b = int(ends[g1 - 1])
        group = np.repeat(np.arange(g1 - g0, dtype=np.int64), size[g0:g1])
        if (g1 - g0) * span < 2**62:  # (group, key descending) as one integer
            by = np.argsort(group * span + (span - 1 - key[a:b]), kind="stable")
        else:
            by = np.lexsort((-key[a:b], group))
        order[pos[a:b]] = members[a:b][by]
        g0 = g1


def _tie_key(entries: _Entries, at: np.ndarray) -> np.ndarray:
    """Keys of the entries ``at`` whose descending order is trec_eval's: docid descending in strcmp order.

    Ids are compared as text (their UTF-8 bytes' order is the code points' order); two ids
    with one text (``1`` and ``"1"``) get one key and keep their input order.
    """
    codes = entries.doc[at]
    if len(at) >= len(entries.doc_keys):  # rank every document once
        keys, inverse = entries.doc_keys, codes
    elif len(entries.doc_keys) == len(entries.doc):  # dicts: each entry its own code, no repeats
        keys, inverse = list(map(entries.doc_keys.__getitem__, codes.tolist())), slice(None)
    else:
        used, inverse = np.unique(codes, return_inverse=True)
        keys = list(map(entries.doc_keys.__getitem__, used.tolist()))
    if set(map(type, keys)) != {str}:
        keys = list(map(str, keys))
    by_text = {text: i for i, text in enumerate(sorted(set(keys)))}  # code point order: strcmp's on UTF-8
    return np.fromiter(map(by_text.__getitem__, keys), dtype=np.int64, count=len(keys))[inverse]


def _rank_rows(score: np.ndarray, lengths: np.ndarray, stable: bool) -> np.ndarray:
    """Permutation sorting each row (a contiguous block, ``lengths`` long) by score descending; rows stay in place.

    Rows of similar length (the same power of two) are laid out as padded
    matrices of at most about _SORT_CELLS cells and sorted row by row in one
    call each, so padding at most doubles the work and the matrices stay small
    beside the run (peak memory).  ``stable`` keeps equal scores in input order.
    """
    kind = "stable" if stable else None
    order = np.empty(len(score), dtype=_small(len(score)))
    starts = np.cumsum(lengths) - lengths
    size_class = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for c in sorted(set(size_class[lengths > 0].tolist())):  # not np.unique: it imports numpy.ma (0.1 s)
        every = np.flatnonzero((size_class == c) & (lengths > 0))
        step = max(1, _SORT_CELLS >> int(c))
        for lo in range(0, len(every), step):
            _sort_class(score, lengths, starts, every[lo: lo + step], kind, order)
    return order


_SORT_CELLS = 1 << 18  # cells of one padded matrix of _rank_rows (2 MB of scores)


def _sort_class(score: np.ndarray, lengths: np.ndarray, starts: np.ndarray, rows: np.ndarray, kind,
                order: np.ndarray) -> None:
    """Sort rows of one size class by score descending as one padded matrix; write their permutation in order."""
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
