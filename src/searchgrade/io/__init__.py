"""Readers and writers of TREC qrels and runs, and the one front door for every input form.

A qrels line is ``qid iter docno rel`` and a run line is
``qid iter docno rank score runid``, fields separated by whitespace.  The readers accept
what trec_eval 10.0 accepts and report what they skip or ignore instead of dropping it
silently (an :class:`InputWarning`; :func:`load_run` / :func:`load_qrels` also return a
:class:`ReadReport`):

* ``#`` lines (first non-blank character ``#``) are comments, in runs and in qrels
  (trec_eval 10.0 documents them for both; its qrels reader crashes on some layouts);
* fields after a run's run id are ignored, as trec_eval does (its ``results.trunc``
  fixture has "junk at end of lines"); a qrels line has exactly 4 fields, as in trec_eval;
* iter and rank are ignored (trec_eval orders by score); a rank that is not an integer is
  reported, since it often means the columns are out of order;
* blank lines are skipped and counted, and reported in qrels (trec_eval 10.0 refuses them there);
* fields are split at C whitespace (space, tab, CR, VT, FF) as trec_eval does, so a
  no-break space or an ideographic space is part of an id.

Everything else is an error that names the source and the line (:class:`FormatError`,
``run.gz:17: ...``, ``<stdin>:3: ...``): too few fields, a score that is not a finite
decimal number, a grade that is not a decimal integer in trec_eval's 64-bit range
(``-2**63`` to ``2**63 - 1``), a document twice in one query, invalid UTF-8, a source
with no data line, a line longer than 1 MiB (``/dev/zero`` or a binary file is refused
after its first MiB instead of being read until memory runs out).

Sources: a path (str or PathLike; gzip recognised by its magic bytes, whatever the
name), ``"-"`` for standard input, or an open text or binary file.  UTF-8, with an
optional byte-order mark.

In memory, qrels are ``{qid: {docno: grade}}`` and runs ``{qid: {docno: score}}``.
A run read from a file keeps the file's order within each query (dict insertion
order), which is the "input" tie order of ``searchgrade.evaluate``.  :func:`as_qrels`
and :func:`as_run` also take pandas DataFrames and ir_measures' namedtuples.
Subtopic qrels for the diversity measures (ndeval's ``topic subtopic docno judgment``
lines) are read by :func:`read_subtopic_qrels` into ``{qid: {subtopic: {docid: grade}}}``
(:mod:`searchgrade.io.subtopics`; :func:`as_subtopic_qrels` takes DataFrames and records).

The writers put query ids in plain string order ("10" sorts before "9") and a
run's documents in trec_eval's order (score descending, ties by docno
descending). Scores are written with ``repr``, the shortest text that reads
back as the identical float, so write-then-read round trips are exact.
"""
from __future__ import annotations

import io
import math
import operator
import os
import zlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import bulk as _trec_bulk
from . import text as _trec_text
from .types import Qrels, Run
from .errors import FormatError, InputWarning, LineSet, ReadReport, SourceError
from .subtopics import as_subtopic_qrels, read_subtopic_qrels
from .sources import (GZIP_MAGIC, decode, file_blocks, is_source, raw_bytes, read_source, regular_file,
                      stream_blocks)

if TYPE_CHECKING:
    import pandas as pd

# pandas is imported on first use (DataFrames): a file is read by numpy alone, or by the strict line reader.

__all__ = [
    "FormatError",
    "InputWarning",
    "ReadReport",
    "trec_order",
    "parse_qrels",
    "read_qrels",
    "load_qrels",
    "parse_run",
    "read_run",
    "load_run",
    "as_qrels",
    "as_run",
    "qrels_frame",
    "run_frame",
    "write_run",
    "write_qrels",
    "read_subtopic_qrels",
    "as_subtopic_qrels",
]



class LoadedQrels(NamedTuple):
    """What :func:`load_qrels` returns: the qrels and the report of their reading."""

    qrels: Qrels
    report: ReadReport


class LoadedRun(NamedTuple):
    """What :func:`load_run` returns: the run, its name (the first line's run id) and the report."""

    run: Run
    name: str
    report: ReadReport


# ------------------------------------------------------------------------------- reading
def _read(source, kind: str, *, columns: bool, name: str | None = None) -> tuple:
    """Read a qrels or run source with the one choice of reader: ``(columns or nested dict, report)``.

    source: a path, ``"-"`` or an open file (name None), or content already read (bytes or
    str) that errors call name.  The choice, made here only:

    1. a regular file of at least MIN_BYTES, or gzip content read whole: the bulk reader, fed a
       block at a time (the file, or the inflated text, is never held whole);
    2. else the whole content, read once: the bulk reader if it is at least MIN_BYTES of bytes;
    3. when the bulk reader declines (an irregular line, a document twice: anything it does
       not read exactly as the strict reader would) or for small content: the strict line
       reader, which defines the rules and names the line of any error.

    ``columns=True`` gives :class:`searchgrade.io.bulk.Columns` (what searchgrade.trec_eval
    reads), else ``{qid: {docno: value}}`` in file order.
    """
    tried = False
    if name is None:
        if regular_file(source) and os.stat(source).st_size >= _trec_bulk.MIN_BYTES:
            tried = True
            got = _blocks(lambda: file_blocks(source, _trec_bulk.BLOCK), str(source), kind, columns)
            if got is not None:
                return got
        name, source = read_source(source)
        if not tried and isinstance(source, bytes) and source.startswith(GZIP_MAGIC):  # inflated a block at a time
            tried = True
            got = _blocks(lambda: stream_blocks(io.BufferedReader(io.BytesIO(source)), name, _trec_bulk.BLOCK),
                          name, kind, columns)
            if got is not None:
                return got
    data = raw_bytes(name, source)
    del source
    if not tried and isinstance(data, bytes) and len(data) >= _trec_bulk.MIN_BYTES:
        got = _bulk_result(_trec_bulk.read_blocks(_trec_bulk.split_blocks(data), name, kind), columns)
        if got is not None:
            return got
    strict = _trec_text.read_run_text if kind == "run" else _trec_text.read_qrels_text
    nested, report = strict(decode(name, data), name)
    if columns:
        return _trec_bulk.columns_of(nested, np.float64 if kind == "run" else np.int64), report
    return nested, report


def _blocks(blocks, name: str, kind: str, columns: bool) -> tuple | None:
    """The bulk reader's result on ``blocks()``, or None where the strict reader must read the source
    (which then gives any error; a SourceError, every reader's error, is raised at once)."""
    try:
        got = _trec_bulk.read_blocks(blocks(), name, kind)
    except SourceError:
        raise
    except (FormatError, OSError, EOFError, zlib.error):  # the strict path gives the error
        got = None
    return _bulk_result(got, columns)


def _bulk_result(got: tuple | None, columns: bool) -> tuple | None:
    """The bulk reader's ``(columns, report)`` as asked for, or None where a (query, document) pair repeats."""
    if got is None:
        return None
    cols, report = got
    if columns:
        return None if _trec_bulk.has_repeats(cols) else got  # the strict reader names both lines
    nested = _trec_bulk.nested(cols)
    return None if nested is None else (nested, report)


def load_columns(source, kind: str, *, warn: bool = False) -> tuple[_trec_bulk.Columns, ReadReport]:
    """A qrels (``kind="qrels"``) or run (``kind="run"``) source -- a path, ``"-"`` or an open file -- as
    columns, the form the evaluation engine reads (:class:`searchgrade.io.bulk.Columns`: query and document
    codes, values), with its read report: the rules and errors of :func:`load_qrels` / :func:`load_run`.
    ``warn=True`` also warns about what was skipped."""
    cols, report = _read(source, kind, columns=True)
    if warn:
        report.warn()
    return cols, report


def _text(lines: Iterable[str] | str, source: str) -> str:
    """Lines as one text; a single string is taken as it is (lines end at newlines only)."""
    if isinstance(lines, str):
        return lines
    if isinstance(lines, (bytes, bytearray)):
        raise TypeError(f"{source}: expected str lines, not bytes; read_run / read_qrels read binary files")
    lines = [line.removesuffix("\n") for line in lines]
    text = "\n".join(lines)
    if text.count("\n") != max(len(lines) - 1, 0):
        lineno = next(i for i, line in enumerate(lines, 1) if "\n" in line)
        raise FormatError(source, lineno, "a line holds a line break (pass one line per item, or one string)")
    return text


def load_qrels(source, *, warn: bool = False) -> LoadedQrels:
    """Read qrels from a path, ``"-"`` or an open file: ``(qrels, report)``; warn=True also warns on skips."""
    qrels, report = _read(source, "qrels", columns=False)
    if warn:
        report.warn()
    return LoadedQrels(qrels, report)


def read_qrels(source, *, warn: bool = True) -> Qrels:
    """Read TREC qrels (a path, ``.gz`` too, ``"-"`` or an open file) into ``{qid: {docno: grade}}``."""
    return load_qrels(source, warn=warn).qrels


def parse_qrels(lines: Iterable[str] | str, source: str = "<string>", *, warn: bool = True) -> Qrels:
    """Parse qrels lines ``qid iter docno rel`` (a string or one line per item) into ``{qid: {docno: grade}}``."""
    qrels, report = _read(_text(lines, source), "qrels", columns=False, name=source)
    if warn:
        report.warn()
    return qrels


def load_run(source, *, warn: bool = False) -> LoadedRun:
    """Read a run from a path, ``"-"`` or an open file: ``(run, name, report)``; warn=True also warns."""
    run, report = _read(source, "run", columns=False)
    if warn:
        report.warn()
    return LoadedRun(run, report.run_ids[0], report)


def read_run(source, with_name: bool = False, *, warn: bool = True) -> Run | tuple[Run, str]:
    """Read a TREC run (a path, ``.gz`` too, ``"-"`` or an open file); with_name=True also returns the first run id."""
    run, name, _ = load_run(source, warn=warn)
    return (run, name) if with_name else run


def parse_run(
    lines: Iterable[str] | str, source: str = "<string>", with_name: bool = False, *, warn: bool = True
) -> Run | tuple[Run, str]:
    """Parse run lines ``qid iter docno rank score runid`` into ``{qid: {docno: score}}``, in file order."""
    run, report = _read(_text(lines, source), "run", columns=False, name=source)
    if warn:
        report.warn()
    return (run, report.run_ids[0]) if with_name else run


# --------------------------------------------------------------------------- any input form
def as_qrels(obj, *, columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels ``{qid: {docid: grade}}`` from any input form; a dict is returned as it is.

    Accepted: a dict; a pandas DataFrame with columns ``query_id, doc_id, relevance``
    (ir_measures) or ``qid, docno, rel`` / ``label`` (trec, pyterrier), or named by
    ``columns={"query_id": ..., "doc_id": ..., "relevance": ...}``; an iterable of
    ``ir_measures.Qrel`` (or other namedtuples or dicts with those fields); a path,
    ``"-"`` or an open file (:func:`read_qrels`).  DataFrame ids must be str or integers
    (written in decimal), grades integers (integral floats too) in the 64-bit range.
    """
    return _as(obj, columns, "qrels")


def as_run(obj, *, columns: Mapping[str, str] | None = None) -> Run:
    """A run ``{qid: {docid: score}}`` from any input form; a dict is returned as it is.

    Accepted: a dict; a pandas DataFrame with columns ``query_id, doc_id, score``
    (ir_measures) or ``qid, docno, score`` (trec, pyterrier), or named by ``columns=``;
    an iterable of ``ir_measures.ScoredDoc`` (or other namedtuples or dicts with those
    fields); a path, ``"-"`` or an open file (:func:`read_run`).  Each query keeps its
    rows' order (the "input" tie order); scores must be finite numbers.
    """
    return _as(obj, columns, "run")


def _as(obj, columns, kind: str) -> dict:
    """The dispatcher behind as_qrels and as_run."""
    if isinstance(obj, Mapping) or is_source(obj):
        if columns is not None:
            raise ValueError(f"columns= names DataFrame or record columns; {type(obj).__name__} has none")
        if isinstance(obj, Mapping):
            return obj
        return read_qrels(obj) if kind == "qrels" else read_run(obj)
    from . import frames as _frames

    from_frame = _frames.qrels_from_frame if kind == "qrels" else _frames.run_from_frame
    if isinstance(obj, _frames.pd.DataFrame):
        return from_frame(obj, columns)
    if isinstance(obj, Iterable) and not isinstance(obj, (bytes, bytearray)):
        roles = _frames.QRELS_ROLES if kind == "qrels" else _frames.RUN_ROLES
        source = f"{kind} records"
        return from_frame(_frames.records_frame(obj, roles, columns, source), None, source, "record")
    shape = "{qid: {docid: grade}}" if kind == "qrels" else "{qid: {docid: score}}"
    raise TypeError(f"{kind} must be a dict {shape}, a DataFrame, records, a path, '-' or an open file, "
                    f"not {type(obj).__name__}")


def qrels_frame(obj, *, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Qrels (anything :func:`as_qrels` takes) as a DataFrame ``query_id, doc_id, relevance``."""
    from . import frames as _frames

    return _frames.frame_of(as_qrels(obj, columns=columns), "relevance", np.int64)


def run_frame(obj, *, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A run (anything :func:`as_run` takes) as a DataFrame ``query_id, doc_id, score``, in the run's order."""
    from . import frames as _frames

    return _frames.frame_of(as_run(obj, columns=columns), "score", np.float64)


# ------------------------------------------------------------------------------- writing
def _check_token(value, what: str) -> str:
    """A qid, docno or run name must be a non-empty str without whitespace to survive a round trip."""
    if not isinstance(value, str):
        raise TypeError(f"{what} {value!r} must be a str, not {type(value).__name__}")
    if value.split() != [value]:
        raise ValueError(f"{what} {value!r} must be non-empty and contain no whitespace")
    return value


def _check_tokens(values: Iterable, what: str) -> list[str]:
    """_check_token on many values at once: one join and split in C, the slow path only on failure."""
    values = list(values)
    try:
        if " ".join(values).split() == values:
            return values
    except TypeError:
        pass
    for value in values:
        _check_token(value, what)
    raise AssertionError("unreachable")  # pragma: no cover


def _write_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Write lines (UTF-8, '\\n' endings), creating the parent folder if needed."""
    from pathlib import Path  # here: pathlib (and urllib, ipaddress) would cost trec_eval's start-up 10 ms

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(lines)


def trec_order(docs: Mapping[str, float], depth: int | None = None) -> list[str]:
    """Document ids in trec_eval's order: score descending, ties broken by docid descending (strcmp)."""
    ranked = sorted(((float(score), docid) for docid, score in docs.items()), reverse=True)
    return [docid for _, docid in ranked[:depth]]


def write_run(
    run: Mapping[str, Mapping[str, float]],
    path: str | os.PathLike,
    name: str = "searchgrade",
    depth: int | None = None,
) -> None:
    """Write ``qid Q0 docno rank score name`` lines in trec_eval order; queries in sorted (str) order."""
    _check_token(name, "run name")
    if depth is not None and (isinstance(depth, bool) or operator.index(depth) < 1):
        raise ValueError(f"depth must be a positive integer or None, not {depth!r}")
    out: list[str] = []
    for qid in sorted(_check_tokens(run, "query id")):
        docs = run[qid]
        docnos = _check_tokens(docs, f"query {qid}: document id")
        try:
            scores = [float(score) for score in docs.values()]
        except (TypeError, ValueError):
            bad = next((d, s) for d, s in docs.items() if not _is_number(s))
            raise ValueError(f"query {qid} document {bad[0]}: score {bad[1]!r} is not a number") from None
        if not all(map(math.isfinite, scores)):
            bad = next((d, s) for d, s in zip(docnos, scores) if not math.isfinite(s))
            raise ValueError(f"query {qid} document {bad[0]}: score {bad[1]!r} is not finite")
        floats = dict(zip(docnos, scores))
        ranked = [(floats[docno], docno) for docno in trec_order(floats, depth)]
        # repr() is the shortest text that float() reads back as the identical double.
        out.extend(
            f"{qid} Q0 {docno} {rank} {score!r} {name}\n" for rank, (score, docno) in enumerate(ranked, 1)
        )
    if not out:
        raise ValueError(f"run has no documents; {path} would be an empty, unreadable run file")
    _write_lines(path, out)


def _is_number(value) -> bool:
    """True if float(value) works."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | os.PathLike) -> None:
    """Write ``qid 0 docno grade`` lines; queries in sorted (str) order, documents in dict order."""
    out: list[str] = []
    for qid in sorted(_check_tokens(qrels, "query id")):
        _check_tokens(qrels[qid], f"query {qid}: document id")
        for docno, grade in qrels[qid].items():
            try:
                if isinstance(grade, bool):
                    raise TypeError
                value = operator.index(grade)
            except TypeError:
                raise ValueError(f"query {qid} document {docno}: grade {grade!r} is not an integer") from None
            out.append(f"{qid} 0 {docno} {value}\n")
    if not out:
        raise ValueError(f"qrels have no judgments; {path} would be an empty, unreadable qrels file")
    _write_lines(path, out)
