"""Reading TREC qrels and runs: the one place that chooses between the bulk and the strict reader.

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
with no data line, a line longer than 1 MiB once inflated (``/dev/zero`` or a binary file is
refused after its first MiB instead of being read until memory runs out).

Sources: a path (str or PathLike; gzip recognised by its magic bytes, whatever the
name), ``"-"`` for standard input, or an open text or binary file.  UTF-8, with an
optional byte-order mark.

In memory, qrels are ``{qid: {docno: grade}}`` and runs ``{qid: {docno: score}}``.
A run read from a file keeps the file's order within each query (dict insertion
order), which is the "input" tie order of ``searchgrade.evaluate``.  A source is read a
block at a time (:mod:`searchgrade.io.sources`): by the bulk reader where every line is
plain (:mod:`searchgrade.io.bulk`), else by the strict line reader (:mod:`searchgrade.io.text`),
which stops at the first bad line without reading on.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import NamedTuple

import numpy as np

from . import bulk
from .errors import FormatError, ReadReport
from .sources import decode, open_source
from .text import read_qrels_blocks, read_run_blocks
from .types import Qrels, Run

__all__ = ["LoadedQrels", "LoadedRun", "load_columns", "load_qrels", "read_qrels", "parse_qrels", "load_run",
           "read_run", "parse_run"]


class LoadedQrels(NamedTuple):
    """What :func:`load_qrels` returns: the qrels and the report of their reading."""

    qrels: Qrels
    report: ReadReport


class LoadedRun(NamedTuple):
    """What :func:`load_run` returns: the run, its name (the first line's run id) and the report."""

    run: Run
    name: str
    report: ReadReport


def _read(source, kind: str, *, columns: bool, name: str | None = None) -> tuple:
    """Read a qrels or run source with the one choice of reader: ``(columns or nested dict, report)``.

    source: a path, ``"-"`` or an open file (name None), or content already read (a str) that
    errors call name.  The source is read a block at a time (:func:`searchgrade.io.sources.open_source`):

    1. from its first block of at least MIN_BYTES on, by the bulk reader (:mod:`searchgrade.io.bulk`),
       which declines at its first irregular block (an irregular line, a document twice: anything
       it does not read exactly as the strict reader would);
    2. for small content, or where the bulk reader declines, by the strict line reader, from the
       start again: it defines the rules, names the line of any error and stops there.

    ``columns=True`` gives :class:`searchgrade.io.bulk.Columns` (what searchgrade.trec_eval
    reads), else ``{qid: {docno: value}}`` in file order.
    """
    opened = open_source(source, name)
    try:
        blocks: Iterator = opened.blocks(bulk.BLOCK)
        first = next(blocks, b"")
        if isinstance(first, bytes) and len(first) >= bulk.MIN_BYTES:
            got = _bulk(chain([first], blocks), opened.name, kind, columns)
            if got is not None:
                return got
            blocks = opened.blocks(bulk.BLOCK)  # the strict reader reads from the start
        else:
            blocks = chain([first], blocks)
        del first
        strict = read_run_blocks if kind == "run" else read_qrels_blocks
        nested, report = strict(_decoded(blocks, opened.name), opened.name,
                                lambda: _decoded(opened.blocks(bulk.BLOCK), opened.name))
    finally:
        opened.close()
    if columns:
        return bulk.columns_of(nested, np.float64 if kind == "run" else np.int64), report
    return nested, report


def _decoded(blocks: Iterable[bytes | str], name: str) -> Iterator[str]:
    """The blocks as text (bytes are UTF-8; a bad byte raises FormatError naming its line)."""
    line = 1
    for block in blocks:
        yield decode(name, block, line)
        line += block.count(b"\n" if isinstance(block, bytes) else "\n")


def _bulk(blocks: Iterable[bytes], name: str, kind: str, columns: bool) -> tuple | None:
    """The bulk reader's ``(columns or nested dict, report)`` of the blocks, or None where it declines or a
    (query, document) pair repeats (the strict reader then names both lines)."""
    got = bulk.read_blocks(blocks, name, kind)
    if got is None:
        return None
    cols, report = got
    if columns:
        return None if bulk.has_repeats(cols) else got
    nested = bulk.nested(cols)
    return None if nested is None else (nested, report)


def load_columns(source, kind: str, *, warn: bool = False) -> tuple[bulk.Columns, ReadReport]:
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
