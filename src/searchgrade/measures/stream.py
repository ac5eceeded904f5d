"""Evaluating a run a batch of queries at a time, its per-query values held to its end: streaming evaluation.

Two ways in, both on an :class:`~searchgrade.measures.engine.Evaluator`'s steps:

* :func:`score_source` reads a run file in bounded memory (:class:`searchgrade.io.stream.RunParts`:
  one pass when it is grouped by query, else spilled to temporary files by query) and scores each part's
  queries as it comes: what ``sg.evaluate``/``sg.mean`` on a path and the trec_eval command do.
* :class:`Stream` (``Evaluator.stream()``) takes rankings pushed one query at a time, ``add(query,
  ranking)``, from code that produces them (a retriever's loop, a data loader), and ``finish()``.

Each batch of whole queries is ranked and scored on its own (the values of a query depend on its lines
alone); a query's values -- a number per measure, nothing of its ranking -- are kept in a :class:`Held`
store, which moves them to a temporary file beyond HELD_BYTES.  The rows (natural order), the warnings
about unmatched queries, the queries the run lacks (``missing="zero"``) and the summaries (added up in
trec_eval's query order, :mod:`~searchgrade.measures.summary`) are made at the end, as
:meth:`Evaluator.scores` makes them over the whole run: the values and summaries are the same, bit for bit.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import closing
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a function needs it: the trec_eval command never does
    import pandas as pd

from ..io.bulk import Columns
from ..io.stream import Restart, RunParts, log
from .summary import aggregate, frame

__all__ = ["Held", "Stream", "score_source", "HELD_BYTES", "BATCH_QUERIES", "BATCH_DOCS"]

HELD_BYTES = 1 << 23  # per-query values kept in memory; beyond, they go to a temporary file
BATCH_QUERIES = 2048  # a pushed batch is scored when it holds this many queries ...
BATCH_DOCS = 1 << 17  # ... or this many documents
NO_LINES = Columns(np.zeros(0, dtype=np.int32), [], np.zeros(0, dtype=np.int32), [], np.zeros(0), (), None)


class Held:
    """Per-query values of a run, query by query as they were scored: ``add`` a batch, ``take`` any rows.

    Each query's values are one row of int64 (a float kept as its bits), so that a row comes back exactly;
    past ``limit`` bytes in memory the rows go to a temporary file, read back by position.  ``rows``: the
    query ids in the order added; ``strings``: their relevance strings (when added with them).
    """

    def __init__(self, names: Sequence[str], limit: int | None = None):
        self.names, self.limit = list(names), HELD_BYTES if limit is None else limit
        self.rows: list = []
        self.at: dict = {}  # query id -> position
        self.strings: list | None = None
        self._dtypes: list | None = None
        self._parts: list[np.ndarray] = []
        self._bytes = self._in_file = 0
        self._file = None

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, rows: Sequence, values: dict, strings: list | None = None) -> None:
        """Keep the values ``{name: one value per row}`` (and relevance strings) of rows."""
        if self._dtypes is None:
            self._dtypes = [np.asarray(values[name]).dtype for name in self.names]
        if strings is not None:
            if self.strings is None:
                self.strings = []
            self.strings.extend(strings)
        if not len(rows):
            return
        matrix = np.empty((len(rows), len(self.names)), dtype=np.int64)
        for j, (name, dtype) in enumerate(zip(self.names, self._dtypes)):
            x = np.asarray(values[name]).astype(dtype, copy=False)
            matrix[:, j] = x.view(np.int64) if dtype.kind == "f" else x
        self.at.update(zip(rows, range(len(self.rows), len(self.rows) + len(rows))))
        self.rows.extend(rows)
        self._parts.append(matrix)
        self._bytes += matrix.nbytes
        if self._bytes > self.limit:
            self._spill()

    def _spill(self) -> None:
        """Move the rows in memory to the temporary file."""
        if self._file is None:
            import tempfile  # here: most runs hold their values in memory (start-up time)

            self._file = tempfile.TemporaryFile(prefix="searchgrade-values-")
            log("values of more than %s queries held: moved to a temporary file", f"{len(self.rows):,}")
        for part in self._parts:
            self._file.write(part.tobytes())
            self._in_file += len(part)
        self._file.flush()
        self._parts, self._bytes = [], 0

    def take(self, rows: Sequence) -> tuple[dict, list | None]:
        """({name: values of rows, in that order}, their relevance strings or None)."""
        at = np.fromiter(map(self.at.__getitem__, rows), dtype=np.int64, count=len(rows))
        matrix = np.empty((len(rows), len(self.names)), dtype=np.int64)
        in_file = at < self._in_file
        if in_file.any():
            matrix[in_file] = self._read(at[in_file])
        if not in_file.all():
            self._gather(at, ~in_file, matrix)
        values = {}
        for j, (name, dtype) in enumerate(zip(self.names, self._dtypes or [])):
            column = np.ascontiguousarray(matrix[:, j])
            values[name] = column.view(np.float64).astype(dtype, copy=False) if dtype.kind == "f" \
                else column.astype(dtype, copy=False)
        strings = None if self.strings is None else [self.strings[i] for i in at.tolist()]
        return values, strings

    def _gather(self, at: np.ndarray, where: np.ndarray, out: np.ndarray) -> None:
        """out[where] = the rows at positions at[where], each in a part in memory (no copy of the parts joined)."""
        ends = np.cumsum([len(part) for part in self._parts]) + self._in_file
        which = np.searchsorted(ends, at, side="right")
        for i in np.unique(which[where]).tolist():
            rows = where & (which == i)
            out[rows] = self._parts[i][at[rows] - (ends[i] - len(self._parts[i]))]

    def _read(self, at: np.ndarray) -> np.ndarray:
        """The rows at positions at (each in the file) in that order: runs of consecutive rows read at once."""
        width = 8 * len(self.names)
        order = np.argsort(at, kind="stable")
        runs = np.split(at[order], np.flatnonzero(np.diff(at[order]) != 1) + 1)
        fd = self._file.fileno()
        data = b"".join(os.pread(fd, width * len(run), width * int(run[0])) for run in runs)
        out = np.empty((len(at), len(self.names)), dtype=np.int64)
        out[order] = np.frombuffer(data, dtype=np.int64).reshape(len(at), len(self.names))
        return out

    def close(self) -> None:
        """Drop the temporary file, if any."""
        if self._file is not None:
            self._file.close()
            self._file = None


def score_source(ev, source, relstring: int | None = None, **reading) -> tuple[Held, list, object]:
    """(held values, rows, read report) of a run source scored a part at a time by the evaluator ``ev``.

    rows are the query ids that get a row, in natural order (the run's queries with qrels, and with
    ``missing="zero"`` every qrels query; the others warned about as :meth:`Evaluator.scores` warns); the
    queries the run lacks are scored on an empty ranking.  ``reading``: :class:`RunParts`' sizes.
    """
    names = [m.name for m in ev.measures]
    held, seen, parts = Held(names), {}, RunParts(source, **reading)
    index = ev._index
    with closing(iter(parts)) as it:
        for part in it:
            if isinstance(part, Restart):  # not grouped: read again from the start, spilled
                held.close()
                held, seen = Held(names), {}
                continue
            seen.update(dict.fromkeys(part.keys))
            rows = [q for q in part.keys if q in index.ids]
            for lo in range(0, len(rows), BATCH_QUERIES):  # a part of many short rankings, a batch at a time
                batch = rows[lo: lo + BATCH_QUERIES]
                values, _, strings = ev._score_rows(part, batch, relstring)
                held.add(batch, values, strings)
    parts.report.warn()
    rows = index.rows(seen, ev.options.missing)
    _score_absent(ev, held, rows, relstring)
    return held, rows, parts.report


def _score_absent(ev, held: Held, rows: list, relstring: int | None) -> None:
    """Score the rows that no ranking came for (``missing="zero"``) on an empty ranking (and learn the values'
    types, when there is no row at all)."""
    absent = [q for q in rows if q not in held.at]
    for lo in range(0, len(absent), BATCH_QUERIES):
        batch = absent[lo: lo + BATCH_QUERIES]
        values, _, strings = ev._score_rows(NO_LINES, batch, relstring)
        held.add(batch, values, strings)
    if not len(held):  # no row at all: the values' types, from no row
        held.add([], *ev._score_rows(NO_LINES, [], relstring)[::2])


def positive_judgments(ev, rows: Sequence) -> int:
    """The judgments with a grade above 0 of the rows' qrels (what :class:`Scores` calls positive_judgments)."""
    return int(np.count_nonzero(ev._index.judged(rows)[1] > 0))


class Stream:
    """Rankings pushed one query at a time (``Evaluator.stream()``): ``add(query, ranking)``, then ``finish()``.

    ``ranking`` is ``{docid: score}`` (as a run dict holds it) or a list or tuple of docids, best first
    (scored n, n - 1, ..., 1).  The queries are scored a batch at a time (``batch_queries`` queries or
    ``batch_docs`` documents) and only their values are kept, so that memory holds a batch of rankings,
    never the run.  A query added twice is a ValueError; a query without qrels is skipped (warned about at
    ``finish``, as ``evaluate`` warns).  ``finish()`` returns what ``Evaluator.evaluate`` returns for a run
    dict of the same rankings, and :meth:`mean` then what ``sg.mean`` returns: the same values, bit for bit.
    """

    def __init__(self, evaluator, *, batch_queries: int = BATCH_QUERIES, batch_docs: int = BATCH_DOCS):
        if not evaluator.measures:
            raise ValueError("no measures requested")
        self._ev, self._limits = evaluator, (batch_queries, batch_docs)
        self._held = Held([m.name for m in evaluator.measures])
        self._seen: dict = {}
        self._batch: dict = {}
        self._docs = 0
        self._table: pd.DataFrame | None = None

    def add(self, query, ranking) -> None:
        """Add one query's ranking: ``{docid: score}``, or docids best first."""
        if self._table is not None:
            raise ValueError("this stream is finished: start another with Evaluator.stream()")
        if query in self._seen:
            raise ValueError(f"query {query!r} was added before: add each query's ranking once")
        ranking = _as_ranking(query, ranking)
        self._seen[query] = None
        if query in self._ev._index.ids:
            self._batch[query] = ranking
            self._docs += len(ranking)
            if len(self._batch) >= self._limits[0] or self._docs >= self._limits[1]:
                self._score_batch()

    def _score_batch(self) -> None:
        """Score the batch's queries and keep their values."""
        if self._batch:
            rows = list(self._batch)
            values, _, _ = self._ev._score_rows(self._batch, rows, None)
            self._held.add(rows, values)
        self._batch, self._docs = {}, 0

    def finish(self) -> pd.DataFrame:
        """The per-query table of every query added (one row per query with qrels, natural order; with
        ``missing="zero"`` the qrels queries never added too, scored on an empty ranking)."""
        if self._table is None:
            self._score_batch()
            rows = self._ev._index.rows(self._seen, self._ev.options.missing)
            _score_absent(self._ev, self._held, rows, None)
            self._table = frame(rows, self._held.take(rows)[0])
            self._held.close()
        return self._table

    def mean(self) -> pd.Series:
        """The summary of :meth:`finish`'s table, as ``sg.mean`` gives it (finishes the stream)."""
        return aggregate(self.finish(), self._ev.measures)


def _as_ranking(query, ranking) -> Mapping:
    """A ranking as ``{docid: score}``: a mapping as it is; a list or tuple of docids best first scored n .. 1."""
    if isinstance(ranking, Mapping):
        return ranking
    if not isinstance(ranking, (list, tuple)):
        raise TypeError(f"query {query!r}: a ranking is {{docid: score}} or a list of docids best first, not "
                        f"{type(ranking).__name__}")
    scored = {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}
    if len(scored) < len(ranking):
        twice = next(doc for i, doc in enumerate(ranking) if doc in ranking[:i])
        raise ValueError(f"query {query!r}: document {twice!r} is twice in the ranking")
    return scored
