"""Subtopic (intent) qrels checked and indexed once, for the diversity kernels (private).

:class:`SubtopicIndex` holds ``{qid: {subtopic: {docid: grade}}}`` as flat columns: every
judged (query, document) pair gets a number (its *doc*), and every judgment a row of
(doc, subtopic column, grade), sorted by doc and then column.  A query's subtopics are
numbered in natural order (``2`` before ``10``), so that sums over a document's subtopics run
in ndeval's order (its subtopic numbers ascending).  :meth:`SubtopicIndex.collapsed` is what
the ordinary measures see of the same judgments: each document's largest grade over the
subtopics.  :meth:`SubtopicIndex.level` gives, for one relevance level, which judgments count
(ndeval: any positive judgment counts as 1), how many documents each subtopic has, and how
many subtopics each query keeps (a subtopic no document is relevant to is dropped).
"""
from __future__ import annotations

from itertools import repeat
from typing import Mapping, NamedTuple

import numpy as np

from .kinds.base import Ranked
from .qrels import _as_grade, natural_key

__all__ = ["SubtopicIndex", "Level", "is_subtopic_qrels"]


def is_subtopic_qrels(qrels) -> bool:
    """True when ``qrels`` is a dict ``{qid: {subtopic: {docid: grade}}}`` (a query's values are dicts)."""
    if not isinstance(qrels, Mapping):
        return False
    for subs in qrels.values():
        if isinstance(subs, Mapping) and subs:
            return isinstance(next(iter(subs.values())), Mapping)
    return False


def _distinct(x: np.ndarray) -> np.ndarray:
    """The distinct values of x, ascending (np.unique without its import of numpy.ma)."""
    x = np.sort(x)
    return x[np.r_[True, x[1:] != x[:-1]]] if len(x) else x


class Level(NamedTuple):
    """The judgments that count at one relevance level."""

    doc: np.ndarray  # doc number of each relevant judgment, sorted by (doc, column)
    col: np.ndarray  # its subtopic column
    start: np.ndarray  # first relevant judgment of each doc (CSR over doc numbers)
    count: np.ndarray  # relevant judgments of each doc
    actual: np.ndarray  # subtopics with a relevant document, per query
    per_sub: np.ndarray  # (queries, max columns): relevant documents of each subtopic


class SubtopicIndex:
    """``{qid: {subtopic: {docid: grade}}}`` checked and indexed (see the module docstring).

    :meth:`from_columns` builds it from a file's columns (one entry per judgment) without nesting them.
    """

    def __init__(self, qrels: Mapping):
        topics, subs, docs, grades = [], [], [], []
        for qid, by_sub in qrels.items():
            if not isinstance(by_sub, Mapping):
                raise TypeError(f"subtopic qrels query {qid!r}: expected a dict {{subtopic: {{docid: grade}}}}, "
                                f"not {type(by_sub).__name__}")
            for sub, judged in by_sub.items():
                if not isinstance(judged, Mapping):
                    raise TypeError(f"subtopic qrels query {qid!r} subtopic {sub!r}: expected a dict "
                                    f"{{docid: grade}}, not {type(judged).__name__}")
                topics += [qid] * len(judged)
                subs += [sub] * len(judged)
                docs += judged
                grades += [g if type(g) is int else _as_grade(qid, d, g) for d, g in judged.items()]
        self._build(topics, subs, docs, grades, list(qrels))  # a query without judgments keeps its row

    @classmethod
    def from_columns(cls, topics: list, subtopics: list, docs: list, grades) -> SubtopicIndex:
        """The index of one entry per judgment (a file's columns: each (topic, subtopic, doc) once)."""
        index = cls.__new__(cls)
        index._build(topics, subtopics, list(docs), grades)
        return index

    def _build(self, topics, subs, docs: list, grades, qids: list | None = None) -> None:
        """Number the queries, subtopic columns and (query, document) pairs; sort the judgments by (doc, column).

        ``topics`` and ``subs`` are lists, or int64 arrays (ndeval's numbers: queries in numeric order).
        """
        try:
            grade = np.asarray(grades, dtype=np.int64)
        except OverflowError:
            raise ValueError("subtopic qrels: a grade does not fit in a 64-bit integer") from None
        if isinstance(topics, np.ndarray):
            distinct = _distinct(topics)
            self.qids = distinct.tolist()
            query = np.searchsorted(distinct, topics)
        else:
            self.qids = list(dict.fromkeys(topics)) if qids is None else qids
            pos = {q: i for i, q in enumerate(self.qids)}
            query = np.fromiter(map(pos.__getitem__, topics), dtype=np.int64, count=len(topics))
        self._qpos = {q: i for i, q in enumerate(self.qids)}
        col = self._columns(query, subs)
        first: dict = {}  # each docid's code: the position of its first occurrence
        code = np.fromiter(map(first.setdefault, docs, range(len(docs))), dtype=np.int64, count=len(docs))
        self.doc_code, self._nd = first, max(len(docs), 1)
        self._keys, doc = np.unique(query * self._nd + code, return_inverse=True)
        self.doc_query = (self._keys // self._nd).tolist()
        self.doc_ids = [docs[c] for c in (self._keys % self._nd).tolist()]
        self.n_docs = len(self._keys)
        by = np.lexsort((col, doc))
        self.doc, self.col, self.grade = doc[by], col[by], grade[by]
        twice = np.flatnonzero((self.doc[1:] == self.doc[:-1]) & (self.col[1:] == self.col[:-1]))
        if len(twice):
            d = int(self.doc[twice[0]])
            raise ValueError(f"subtopic qrels query {self.qids[self.doc_query[d]]!r}: document "
                             f"{self.doc_ids[d]!r} is judged twice for one subtopic")
        self._levels: dict = {}
        self._best: np.ndarray | None = None

    def _columns(self, query: np.ndarray, subs) -> np.ndarray:
        """Each judgment's subtopic column: its subtopic's place among its query's, in natural order."""
        if isinstance(subs, np.ndarray):  # numbers: natural order is numeric order
            distinct = _distinct(subs)
            ranked = np.searchsorted(distinct, subs)
        else:
            distinct = sorted(dict.fromkeys(subs), key=natural_key)
            rank = {s: i for i, s in enumerate(distinct)}
            ranked = np.fromiter(map(rank.__getitem__, subs), dtype=np.int64, count=len(subs))
        ns = max(len(distinct), 1)
        pairs, at = np.unique(query * ns + ranked, return_inverse=True)
        pq = pairs // ns
        cols = np.arange(len(pairs)) - np.searchsorted(pq, pq)  # place after the first pair of its query
        self.width = int(cols.max()) + 1 if len(cols) else 0
        return cols[at]

    def best_grades(self) -> np.ndarray:
        """Each judged document's largest grade over its query's subtopics, by doc number (what the ordinary
        measures see)."""
        if self._best is None:
            starts = np.flatnonzero(np.r_[True, self.doc[1:] != self.doc[:-1]]) if len(self.doc) else np.zeros(0, int)
            self._best = np.maximum.reduceat(self.grade, starts) if len(starts) else np.zeros(0, np.int64)
        return self._best

    def collapsed(self) -> dict:
        """``{qid: {docid: grade}}``: each judged document's largest grade over the query's subtopics."""
        best = self.best_grades().tolist()
        bounds = np.searchsorted(np.asarray(self.doc_query, dtype=np.int64), np.arange(len(self.qids) + 1)).tolist()
        return {q: dict(zip(self.doc_ids[bounds[i]: bounds[i + 1]], best[bounds[i]: bounds[i + 1]]))
                for i, q in enumerate(self.qids)}

    def level(self, rel: int) -> Level:
        """The judgments with grade >= rel, their CSR layout, and the subtopics each query keeps."""
        if rel not in self._levels:
            keep = self.grade >= rel
            doc, col = self.doc[keep], self.col[keep]
            count = np.bincount(doc, minlength=self.n_docs)
            start = np.cumsum(count) - count
            query = np.asarray(self.doc_query, dtype=np.int64)[doc] if len(doc) else np.zeros(0, np.int64)
            width = max(self.width, 1)
            per_sub = np.bincount(query * width + col, minlength=len(self.qids) * width).reshape(-1, width)
            actual = (per_sub > 0).sum(axis=1)
            self._levels[rel] = Level(doc, col, start, count, actual, per_sub)
        return self._levels[rel]

    def text_rank(self, docs: np.ndarray) -> np.ndarray:
        """The rank of each of these doc numbers' ids among them, compared as text (strcmp order on UTF-8)."""
        ids = [self.doc_ids[d] for d in docs.tolist()]
        texts = np.array(ids if all(type(d) is str for d in ids) else list(map(str, ids)))
        rank = np.empty(len(ids), dtype=np.int64)
        rank[np.argsort(texts, kind="stable")] = np.arange(len(ids))
        return rank

    def doc_numbers(self, rows: list, seg: np.ndarray, docids: list) -> np.ndarray:
        """The doc number of each (row, docid) pair (rows[seg[i]], docids[i]); -1 when not judged."""
        code = np.fromiter(map(self.doc_code.get, docids, repeat(-1)), dtype=np.int64, count=len(docids))
        key = self.query_positions(rows)[seg] * self._nd + code
        at = np.minimum(np.searchsorted(self._keys, key), max(len(self._keys) - 1, 0))
        found = (code >= 0) & (self._keys[at] == key) if len(self._keys) else np.zeros(len(key), bool)
        return np.where(found, at, -1)

    def judged_context(self, rows: list, lengths: np.ndarray, seg: np.ndarray, rank: np.ndarray,
                       doc: np.ndarray) -> Ranked:
        """The ranked context of rankings given by their judged documents only, for the diversity kernels.

        ``rows`` are query ids of this index, ``lengths`` the documents each ranking holds; each judged
        document has its row ``seg`` (non-decreasing), its 1-based ``rank`` (increasing within a row) and its
        doc number ``doc``.  The diversity kernels read only the relevant documents of a ranking, so their
        values are those of the whole ranking; the ordinary measures also need the unjudged documents and the
        qrels' statistics, which this context leaves out (never compute them from it).
        """
        none = np.zeros(0, dtype=np.int64)
        ctx = Ranked(len(rows), seg, rank, self.best_grades()[doc], np.ones(len(doc), dtype=bool),
                     np.zeros(len(doc), dtype=bool), lengths, none, none, none)
        ids = self.doc_ids
        ctx.cache["docids"] = lambda: [ids[d] for d in doc.tolist()]
        ctx.cache["subtopics"] = (self, list(rows))
        return ctx

    def query_positions(self, rows: list) -> np.ndarray:
        """The position in :attr:`qids` of each row's query."""
        return np.fromiter(map(self._qpos.__getitem__, rows), dtype=np.int64, count=len(rows))

def diversity_split(qrels, measures: list) -> tuple:
    """(qrels for the ordinary measures, SubtopicIndex or None) of an evaluation's qrels and measures.

    Subtopic qrels (a nested dict, a :class:`SubtopicIndex` built already, or a DataFrame or records
    with a subtopic when a diversity measure is asked for) are indexed, and the ordinary measures see
    each document's largest grade over its subtopics.  A diversity measure asked of ordinary qrels is
    a ValueError.
    """
    from .registry import FAMILIES

    need = [m.name for m in measures if FAMILIES[m.family].subtopics]
    if isinstance(qrels, SubtopicIndex):
        index = qrels
    elif is_subtopic_qrels(qrels):
        index = SubtopicIndex(qrels)
    elif need and not isinstance(qrels, Mapping) and not isinstance(qrels, (str, bytes)) and \
            not hasattr(qrels, "read") and not hasattr(qrels, "__fspath__"):
        from ..io.subtopics import as_subtopic_qrels

        nested = as_subtopic_qrels(qrels)
        if all(len(subs) <= 1 for subs in nested.values()):  # ir_measures warns here and goes on
            raise ValueError(f"measure {need[0]!r}: every query of these qrels has a single subtopic (one "
                             "'iteration' value): they look like ordinary qrels, and a diversity measure of "
                             "them means nothing; to score single-intent queries anyway, pass the dict "
                             "{qid: {subtopic: {docid: grade}}}")
        index = SubtopicIndex(nested)
    elif need:
        raise ValueError(f"measure{'s' if len(need) > 1 else ''} {', '.join(map(repr, need))} need"
                         f"{'' if len(need) > 1 else 's'} subtopic qrels {{qid: {{subtopic: {{docid: grade}}}}}} "
                         "(searchgrade.io.read_subtopic_qrels reads ndeval's 'topic subtopic docno judgment' "
                         "files; a DataFrame needs an 'iteration' column); these qrels have no subtopics")
    else:
        return qrels, None
    return index.collapsed(), (index if need else None)
