"""Scoring a run a block of queries at a time, in trec_eval's query order: :func:`score_run_blocks`.

The trec_eval command prints each query's values block by block, in trec_eval's order (query ids compared
as text), so that it never holds every query's rankings at once.  A run file is read and scored a part at
a time in bounded memory, as it comes (:func:`searchgrade.measures.stream.score_source`: one pass when the
file is grouped by query, else spilled by query), each query's values held to the end of the file; then
handed out a block of rows at a time, in trec_eval's order.  A run dict (or the columns of a file read
whole) is scored a block of rows at a time instead (:meth:`Evaluator.scores`' steps, on those lines alone).
Either way each block is a :class:`~searchgrade.measures.engine.Scores`, and the summaries are carried from
block to block (:func:`~searchgrade.measures.summary.running_total`) and come with the last block, bit for
bit those of :meth:`Evaluator.scores` over all the rows.
"""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

from ..io.bulk import Columns
from .engine import Evaluator, Scores, _input, _is_columns, _is_file
from .stream import positive_judgments, score_source
from .summary import finish_total, running_total, summary_order

__all__ = ["score_run_blocks", "ROWS_PER_BLOCK", "LINES_PER_BLOCK"]

# A block holds at most this many queries, and about this many run lines (queries with many documents make
# smaller blocks).  Measured on the benchmark's shapes (benchmarks/bench_trec_eval.py): the peak memory stays
# near that of the read files (118-122 MB on 100,000 x 10, 284 MB in one block), and 2048 rows took less CPU
# time than 1024 at the same peak.
ROWS_PER_BLOCK = 2048
LINES_PER_BLOCK = 1 << 17


def score_run_blocks(qrels, run, measures: Iterable | str, *, summary: bool = False,
                     relstring: int | None = None, block_rows: int | None = None, **options) -> Iterator[Scores]:
    """:func:`~searchgrade.measures.engine.score_run`'s values a block of queries at a time.

    The inputs are read and scored (a run file in bounded memory, see the module's docstring), and the rows
    found (with their warnings), before this returns; the iterator then yields a :class:`Scores` per block
    of rows in trec_eval's order (``rows`` in that order, so ``order`` is ``0 .. n-1``), each with its rows'
    values, relevance strings and ``positive_judgments``.  The last block carries ``summaries`` (with
    ``summary``) over all the rows, as :func:`score_run` gives them.  With no row at all it yields one
    empty block.  ``block_rows`` caps the rows of a block (default: :data:`ROWS_PER_BLOCK`, fewer when the
    queries of a run dict have many documents).
    """
    ev = Evaluator(qrels, measures, **options)
    if _is_file(run):
        held, rows, report = score_source(ev, run, relstring)
        trec_rows = [rows[i] for i in summary_order(rows).tolist()]
        del rows

        def scored(lo: int, hi: int) -> tuple:
            values, strings = held.take(trec_rows[lo: hi])
            return values, positive_judgments(ev, trec_rows[lo: hi]), strings
        per = min(ROWS_PER_BLOCK, block_rows or ROWS_PER_BLOCK)
        return _blocks(ev, scored, trec_rows, per, summary, report, held.close)
    run, report = _input(run, "run")
    rows = ev._rows(run)
    trec_rows = [rows[i] for i in summary_order(rows).tolist()]
    del rows
    lines = len(run.codes) if _is_columns(run) else sum(len(d or ()) for d in run.values())
    per = max(1, min(ROWS_PER_BLOCK, LINES_PER_BLOCK * max(1, len(trec_rows)) // max(1, lines)))
    per = min(per, block_rows) if block_rows else per
    if _is_columns(run):
        part = _column_part(run, trec_rows)
    else:
        def part(lo: int, hi: int) -> dict:
            return {q: run[q] for q in trec_rows[lo: hi] if q in run}
    return _blocks(ev, lambda lo, hi: ev._score_rows(part(lo, hi), trec_rows[lo: hi], relstring), trec_rows, per,
                   summary, report)


def _blocks(ev: Evaluator, scored: Callable, rows: list, per: int, summary: bool, report,
            done: Callable[[], None] = lambda: None) -> Iterator[Scores]:
    """The Scores of each block of ``per`` rows (scored(lo, hi): (values, positive judgments, relevance
    strings) of rows[lo:hi]); done() at the end."""
    totals = dict.fromkeys(m.name for m in ev.measures)
    starts = list(range(0, len(rows), per)) or [0]
    try:
        for lo in starts:
            block = rows[lo: lo + per]
            values, positive, strings = scored(lo, lo + len(block))
            sums = None
            for m in ev.measures:
                totals[m.name] = running_total(totals[m.name], values[m.name], m.agg)
            if summary and lo == starts[-1]:
                sums = {m.name: finish_total(totals[m.name], len(rows), m.agg) for m in ev.measures}
            yield Scores(block, values, np.arange(len(block)), sums, strings, positive, report)
            del values, strings
    finally:
        done()


def _column_part(run: Columns, rows: list):
    """part(lo, hi): a run file's columns of rows[lo:hi] only (a query the run lacks has no line).

    The documents are renumbered within the block, so that the ranking looks up only the block's
    documents in the qrels."""
    code_of = {q: i for i, q in enumerate(run.keys)}
    row_code = np.fromiter((code_of.get(q, -1) for q in rows), dtype=np.int64, count=len(rows))
    del code_of
    counts = np.bincount(run.codes, minlength=len(run.keys))
    starts = np.cumsum(counts) - counts
    grouped = len(run.codes) < 2 or bool((run.codes[1:] >= run.codes[:-1]).all())
    by_query = None if grouped else np.argsort(run.codes, kind="stable")

    def part(lo: int, hi: int) -> Columns:
        code = row_code[lo: hi]
        n = np.where(code >= 0, counts[np.maximum(code, 0)], 0)
        first = np.where(code >= 0, starts[np.maximum(code, 0)], 0)
        at = np.repeat(first - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
        if by_query is not None:
            at = by_query[at]
        docs, doc_codes = np.unique(run.doc_codes[at], return_inverse=True)
        return Columns(np.repeat(np.arange(hi - lo, dtype=np.int32), n), rows[lo: hi],
                       doc_codes.reshape(-1).astype(np.int32, copy=False),
                       list(map(run.doc_keys.__getitem__, docs.tolist())), run.values[at], run.run_ids,
                       run.last_run_id, None if run.doc_fold is None else run.doc_fold[docs])

    return part
