"""A run of any size read in bounded memory: whole queries, a part at a time (the streaming reader).

:class:`RunParts` hands out a run source's lines as parts, each part the
:class:`~searchgrade.io.bulk.Columns` of whole queries (every line of a query in one part), so that
a reading holds a part, never the run:

* A run grouped by query -- each query's lines together, the queries in any order, as Anserini,
  Pyserini and trec_eval write runs -- is read in one pass: blocks of about UNIT_BYTES, each cut before
  the lines of its last query, which are carried over to the next block (they may go on there).
* A run that is not grouped is found out at the first part that brings back a query of an earlier
  part.  The parts handed out so far are then void (a :class:`Restart` says so and why), and the run
  is read again from its start and spilled: each data line, with its line number, to one of N temporary
  files chosen by a hash of its query id, N from the run's size (a file should hold about SPILL_BYTES);
  then each file is read back whole, as whole queries.  A file that came out too large is spilled again,
  a level down, with another hash.
* A stream (standard input, a pipe) is copied to a temporary file as it is read the first time, so that
  it can be read again (:func:`searchgrade.io.sources.open_spooled`).

Every line is read by the readers of :mod:`searchgrade.io.bulk` and :mod:`searchgrade.io.text`, with
their rules: an error names the source and its line, as :func:`searchgrade.io.load_run` names it.  A
document twice in one query can only be seen once the query's lines are together: within a part, or in
a spill file when read back; where the whole-file reader would stop at a duplicate before another bad
line, so does this one (a spill file's line numbers are the source's).  What happens is logged (logger
``searchgrade.io.stream``, level INFO): the trec_eval command prints it with ``--stream_info``.
"""
from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import NamedTuple

import numpy as np

from . import bulk
from .errors import FIRST_LINES, FormatError, LineTally, ReadReport
from .sources import GZIP_MAGIC, cuts, decode, open_spooled
from .text import duplicate_error, empty, read_run_blocks

__all__ = ["RunParts", "Restart", "UNIT_BYTES", "SPILL_BYTES"]

UNIT_BYTES = 1 << 22  # bytes of run text read at a time: a part holds about this much, or one query's lines
SPILL_BYTES = 1 << 24  # bytes of run text a spill file is meant to hold when it is read back
MAX_FILES = 256  # spill files open at once, at most (fewer where the limit of open files is low)
LEVELS = 3  # how many times a spill file that came out too large is spilled again
MIN_BYTES = bulk.MIN_BYTES  # a smaller part is read by the strict reader (the bulk reader's start costs more)
GZIP_RATIO = 4  # a gzip file's text is guessed to be this many times its size on disk
_READ = 1 << 16  # bytes read from the source at a time when parts are smaller than this (tests)
_WHITE = frozenset(b" \t\r\x0b\x0c\n")  # C whitespace, which ends a field
_RECORD = np.dtype("<i8")


def log(message: str, *args) -> None:
    """Log an INFO line on the logger ``searchgrade.io.stream``: only where logging is in use (imported), so
    that a command that does not log never imports it (start-up time)."""
    if "logging" in sys.modules:
        sys.modules["logging"].getLogger(__name__).info(message, *args)


class Restart(NamedTuple):
    """The parts handed out before are void: the run is not grouped by query and is read again, spilled."""

    reason: str


class _NotGrouped(Exception):
    """A part brought back a query of an earlier part (the message says which, and where)."""


class RunParts:
    """A run source's queries, a part at a time: iterate for :class:`~searchgrade.io.bulk.Columns` of whole
    queries (and at most one :class:`Restart`); ``report`` is the whole run's
    :class:`~searchgrade.io.errors.ReadReport` once the iteration is over.

    source: a path (gzip too), ``"-"`` or an open file.  ``unit_bytes`` and ``spill_bytes`` (defaults
    UNIT_BYTES, SPILL_BYTES) size the parts and the spill files (tests make them tiny).  ``grouped``
    says, after the iteration, whether one pass did; ``files`` how many spill files were written.
    """

    def __init__(self, source, *, unit_bytes: int | None = None, spill_bytes: int | None = None):
        self.source = source
        self.unit = unit_bytes or UNIT_BYTES
        self.spill = spill_bytes or SPILL_BYTES
        self.report: ReadReport | None = None
        self.grouped: bool | None = None
        self.files = 0
        self.name = str(source)
        self._tally: _Tally | None = None
        self._folder: str | None = None
        self._spills = 0  # spill folders made (their files are named after it)

    def __iter__(self) -> Iterator:
        with ExitStack() as stack:
            def folder() -> str:
                if self._folder is None:
                    import tempfile  # here: most runs never need a temporary file (start-up time)

                    self._folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="searchgrade-run-"))
                return self._folder
            opened = open_spooled(self.source, folder)
            stack.callback(opened.close)
            self.name = opened.name
            try:
                yield from self._one_pass(opened)
                self.grouped = True
                return
            except _NotGrouped as why:
                reason = str(why)
            self.grouped = False
            yield Restart(reason)
            yield from self._spilled(opened, folder, reason)

    # ------------------------------------------------------------------------ grouped: one pass
    def _units(self, opened) -> Iterator[bytes | str]:
        """The source's text in blocks of about unit bytes, cut after line ends."""
        for block in opened.blocks(max(self.unit, _READ)):
            if isinstance(block, str) or len(block) <= self.unit:
                yield block
            else:
                for start, end in cuts(block, self.unit):
                    yield block[start:end]

    def _one_pass(self, opened) -> Iterator[bulk.Columns]:
        """The parts of a run grouped by query; _NotGrouped as soon as a part brings back an earlier query."""
        self._tally = _Tally(self.name)
        closed: set = set()
        carry, carry_qid, line, checked = b"", None, 1, 0
        for block in self._units(opened):
            if isinstance(block, str):  # text that cannot be UTF-8 encoded (held whole already): one part
                yield from self._whole(block, line, closed)
                continue
            unit = carry + block if carry else block
            cut, qid = last_query(unit, len(carry), carry_qid)
            if cut == 0 and qid is not None:  # one query so far: read on, its lines checked now and then
                carry, carry_qid = unit, qid
                if len(carry) >= max(self.unit, 2 * checked):
                    self._check(carry, line, closed)
                    checked = len(carry)
                continue
            part, carry, carry_qid, checked = unit[:cut], unit[cut:], qid, 0
            yield from self._whole(part, line, closed)
            line = self._tally.lines + 1  # the parts' lines so far, counted by their reader
        if carry:
            yield from self._whole(carry, line, closed)
        self.report = self._tally.report()
        log("%s: %s lines read in one pass, grouped by query (%s queries; parts of about %s)", self.name,
                 f"{self.report.lines:,}", f"{self.report.queries:,}", _size(self.unit))

    def _check(self, carry: bytes, line: int, closed: set) -> None:
        """The lines of one query read so far (each time they have doubled), so that a bad line or a document
        twice stops the reading there, not at the query's end (an endless stream of one line); the report
        comes when the query is read whole."""
        for _ in self._whole(carry, line, closed, tally=False):
            pass

    def _whole(self, part: bytes | str, line: int, closed: set, tally: bool = True) -> Iterator[bulk.Columns]:
        """The columns of a part of whole queries (its first line numbered line), if none came before it."""
        try:
            cols, report, _ = self._read(part, line)
        except FormatError as err:  # an earlier query back before the bad line: spilled, the error comes there
            if isinstance(part, bytes) and err.line is not None and _comes_back(part, line, err.line, closed):
                raise _NotGrouped(f"a query of lines before {line} comes back before line {err.line}") from None
            raise
        back = next((q for q in cols.keys if q in closed), None)
        if back is not None:
            raise _NotGrouped(f"query {back} comes back in lines {line}-{line + report.lines - 1} "
                              f"after other queries")
        if tally:
            self._tally.add(report)
            closed.update(cols.keys)
            if cols.keys:
                yield cols

    def _read(self, part: bytes | str, line: int, docs: bool = True,
              line_map=None) -> tuple[bulk.Columns, ReadReport, bool]:
        """(columns, report, whether the bulk reader read it, row by line) of a part, its first line numbered
        line: by the bulk reader where it can, else by the strict reader (which names the line of an error).
        docs=False: the bulk reader leaves the documents out (bulk.read_unit)."""
        if isinstance(part, bytes) and len(part) >= MIN_BYTES and line_map is None:
            got = bulk.read_unit(part, self.name, line, twice=not docs, docs=docs)
            if got is not None:
                return got[0], got[1], True
        text = decode(self.name, part, line)
        nested, report = read_run_blocks([text], self.name, first_line=line, line_map=line_map, empty_ok=True)
        return bulk.columns_of(nested, np.float64), report, False

    # ----------------------------------------------------------------------- not grouped: spilled
    def _spilled(self, opened, folder: Callable[[], str], reason: str) -> Iterator[bulk.Columns]:
        """The run read again from its start, spilled to files by query, each file read back as whole queries."""
        self._tally = _Tally(self.name)
        n = _file_count(opened.size(), self.spill)
        spill = _Spill(folder(), n, 0, 0)
        log("%s is not grouped by query (%s): read again from its start and spilled to %d temporary "
                 "files in %s", self.name, reason, n, folder())
        line = 1
        with spill:
            try:
                for unit in self._units(opened):
                    line = self._spill_unit(spill, unit, line)
            except FormatError as err:
                raise self._earliest(spill, err) from None
        self.files = n
        log("%s: %s lines spilled to %d files (%s), read back one file at a time", self.name,
                 f"{line - 1:,}", n, _size(sum(map(os.path.getsize, spill.paths))))
        found = _Found()
        yield from self._read_back(spill.paths, 1, found)
        if found.errors:
            raise min(found.errors, key=lambda err: err.line)
        self.report = self._tally.report(found.queries)

    def _spill_unit(self, spill: "_Spill", unit: bytes | str, line: int) -> int:
        """Read a unit (its first line numbered line) and spill its data lines; the next unit's first line."""
        lines = unit.count(b"\n") + (not unit.endswith(b"\n"))
        try:  # a document twice in a query is found when the files are read back
            cols, report, by_bulk = self._read(unit, line, docs=False)
        except FormatError as err:  # the lines before the bad one are good: spilled, for _earliest
            if err.line is not None and err.line > line:
                spill.add_lines(unit, np.arange(line, line + lines), err.line - line)
            raise
        self._tally.add(report)
        if by_bulk:
            spill.add_rows(unit, cols, np.arange(line, line + len(cols.codes)))
        else:
            spill.add_lines(unit, np.arange(line, line + lines))
        return line + lines

    def _read_back(self, paths: list[str], level: int, found: "_Found") -> Iterator[bulk.Columns]:
        """Each spill file's lines as whole queries (a file too large spilled again); a document twice in a
        query goes to found.errors (nothing more is handed out after one: the caller raises the earliest)."""
        for i, path in enumerate(paths):
            text, numbers = _load(path)
            os.unlink(path)
            if len(text) > 2 * self.spill and level <= LEVELS and not found.errors:
                yield from self._again(text, numbers, i, level, found)
                continue
            try:
                cols = self._spilled_columns(text, numbers)
            except FormatError as err:
                found.errors.append(err)
                continue
            found.queries += len(cols.keys)
            if cols.keys and not found.errors:
                yield cols

    def _again(self, text: bytes, numbers: np.ndarray, i: int, level: int, found: "_Found") -> Iterator:
        """A spill file too large, spilled again with another hash (read back whole if that cannot split it)."""
        n = _file_count(len(text), self.spill)
        self._spills += 1
        spill = _Spill(self._folder, n, level, self._spills)
        with spill:
            at = 0
            for start, end in cuts(text, self.unit):
                part = text[start:end]
                lines = part.count(b"\n")
                got = bulk.read_unit(part, self.name, 1, twice=True, docs=False) if len(part) >= MIN_BYTES else None
                if got is not None:
                    spill.add_rows(part, got[0], numbers[at: at + lines])
                else:
                    spill.add_lines(part, numbers[at: at + lines])
                at += lines
        sizes = [os.path.getsize(path) for path in spill.paths]
        log("%s: spill file %d of level %d holds %s: spilled again to %d files", self.name, i, level,
            _size(len(text)), n)
        del text, numbers
        yield from self._read_back(spill.paths, LEVELS + 1 if max(sizes) >= sum(sizes) else level + 1, found)

    def _spilled_columns(self, text: bytes, numbers: np.ndarray) -> bulk.Columns:
        """A spill file's lines (line numbers: numbers) as columns; FormatError at a document twice in a query."""
        got = bulk.read_unit(text, self.name, 1, twice=True)
        if got is None:  # ids the bulk reader cannot read: the strict reader, with the source's line numbers
            return self._read(text, 1, line_map=numbers.tolist())[0]
        cols = got[0]
        twice = _first_repeat(cols)
        if twice is not None:
            first, again = twice
            raise duplicate_error(self.name, int(numbers[again]), "document", cols.keys[cols.codes[again]],
                                  cols.doc_keys[cols.doc_codes[again]], int(numbers[first]))
        return cols

    def _earliest(self, spill: "_Spill", err: FormatError) -> FormatError:
        """err, or a document twice in a query on an earlier line (in the lines spilled so far)."""
        spill.close()
        found = [err]
        for path in spill.paths:
            text, numbers = _load(path)
            try:
                self._spilled_columns(text, numbers)
            except FormatError as twice:
                found.append(twice)
        return min(found, key=lambda e: (e.line is None, e.line or 0))


def last_query(unit: bytes, known: int = 0, known_qid: bytes | None = None) -> tuple[int, bytes | None]:
    """(where the lines of the last query of unit begin, its id as bytes): the lines at the end of unit whose
    first field is the last data line's (blank and comment lines among them).  unit[:known] is known to hold
    that query's lines only when its id is known_qid.  (len(unit), None) when unit has no data line; 0 when
    every data line is the last query's."""
    end, cut, qid = len(unit), len(unit), None
    while end > 0:
        start = unit.rfind(b"\n", 0, end - 1) + 1
        after = start + len(qid) if qid is not None else 0
        if qid is not None and unit.startswith(qid, start) and unit[after: after + 1] and unit[after] in _WHITE:
            first = qid
        else:
            fields = unit[start:end].split(None, 1)
            first = fields[0] if fields and fields[0][:1] != b"#" else None
        if first is not None:
            if qid is None:
                qid = first
            elif first != qid:
                return cut, qid
            cut = start
            if start <= known and qid == known_qid:
                return 0, qid
        end = start
    return (0 if qid is not None else len(unit)), qid


def _comes_back(part: bytes, line: int, bad: int, closed: set) -> bool:
    """Whether a line of part (first numbered line) before line bad holds a query of the set closed."""
    for text in part.split(b"\n", bad - line)[: bad - line]:
        fields = text.split(None, 1)
        if fields and fields[0].decode("utf-8", "replace") in closed:
            return True
    return False


def _first_repeat(cols: bulk.Columns) -> tuple[int, int] | None:
    """(first row, row again) of the earliest (query, document) pair found twice, rows in order; or None."""
    if not bulk.has_repeats(cols):
        return None
    key = cols.codes.astype(np.int64) * max(len(cols.doc_keys), 1) + cols.doc_codes
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])  # order[same + 1] repeats order[same]
    again = order[same + 1]
    at = int(np.argmin(again))
    return int(order[same[at]]), int(again[at])


def _file_count(size: int | None, spill: int) -> int:
    """How many spill files for a run of size bytes (None: unknown), each meant to hold about spill bytes."""
    limit = MAX_FILES
    try:
        import resource

        limit = min(limit, max(2, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 4))
    except (ImportError, OSError, ValueError):
        pass
    wanted = -(-(size or 64 * spill) // spill)
    return int(min(max(wanted, 2), limit))


def _size(n: int) -> str:
    """Bytes as MiB for a log line."""
    return f"{n / 2**20:,.1f} MiB"


def _load(path: str) -> tuple[bytes, np.ndarray]:
    """A spill file's (lines, their line numbers), its records joined."""
    with open(path, "rb") as fh:
        data = fh.read()
    texts, numbers, at = [], [], 0
    while at < len(data):
        n_bytes, n_lines = np.frombuffer(data, _RECORD, 2, at).tolist()
        at += 16
        texts.append(data[at: at + n_bytes])
        numbers.append(np.frombuffer(data, _RECORD, n_lines, at + n_bytes))
        at += n_bytes + 8 * n_lines
    del data
    return b"".join(texts), (np.concatenate(numbers) if numbers else np.zeros(0, dtype=_RECORD))


class _Spill:
    """N temporary files, each the data lines of the queries whose id hashes to it, with their line numbers
    (records of: bytes and lines as two int64, the lines' bytes, their numbers as int64)."""

    def __init__(self, folder: str, n: int, salt: int, serial: int):
        self.n, self.salt = n, salt
        self.paths = [os.path.join(folder, f"spill-{serial}-{i}") for i in range(n)]
        self.files = [open(path, "wb") for path in self.paths]
        self.of: dict = {}  # query id -> file

    def __enter__(self) -> "_Spill":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close every file (their records are complete)."""
        for fh in self.files:
            fh.close()

    def which(self, qid: bytes) -> int:
        """The file of a query id (its UTF-8 bytes)."""
        got = self.of.get(qid)
        if got is None:
            got = self.of[qid] = zlib.crc32(qid, self.salt) % self.n
        return got

    def _write(self, i: int, text: bytes | np.ndarray, numbers: np.ndarray) -> None:
        self.files[i].write(np.array([len(text), len(numbers)], dtype=_RECORD).tobytes())
        self.files[i].write(text)
        self.files[i].write(np.ascontiguousarray(numbers, dtype=_RECORD).tobytes())

    def add_rows(self, unit: bytes, cols: bulk.Columns, numbers: np.ndarray) -> None:
        """Spill the lines of unit that the bulk reader read as cols (row i: line i; numbers: theirs)."""
        if not len(cols.codes):
            return
        if not unit.endswith(b"\n"):
            unit += b"\n"
        a = np.frombuffer(unit, dtype=np.uint8)
        ends = np.flatnonzero(a == 10)[: len(cols.codes)] + 1
        starts = np.concatenate(([0], ends[:-1]))
        files = np.fromiter((self.which(q.encode("utf-8")) for q in cols.keys), dtype=np.int64,
                            count=len(cols.keys))[cols.codes]
        order = np.argsort(files, kind="stable")
        lines = [unit[s:e] for s, e in zip(starts[order].tolist(), ends[order].tolist())]
        numbers = numbers[order]
        lo = 0
        for i, hi in enumerate(np.cumsum(np.bincount(files, minlength=self.n)).tolist()):
            if hi > lo:
                self._write(i, b"".join(lines[lo:hi]), numbers[lo:hi])
            lo = hi

    def add_lines(self, unit: bytes, numbers: np.ndarray, stop: int | None = None) -> None:
        """Spill the data lines of unit (line i numbered numbers[i]; the first stop lines only), read one by one."""
        lines: dict[int, list] = {}
        split = unit.split(b"\n")
        for i, text in enumerate(split[:stop]):
            fields = text.split(None, 1)
            if fields and fields[0][:1] != b"#":
                lines.setdefault(self.which(fields[0]), []).append(i)
        for i, rows in lines.items():
            self._write(i, b"".join(split[r] + b"\n" for r in rows), numbers[rows])


class _Found:
    """What reading the spill files back found: the queries, and the documents twice in a query (errors)."""

    def __init__(self):
        self.queries = 0
        self.errors: list[FormatError] = []


class _Tally:
    """The read reports of a run's parts added up into the run's."""

    def __init__(self, name: str):
        self.name, self.lines, self.records, self.queries = name, 0, 0, 0
        self.blank, self.comments, self.extra, self.odd = LineTally(), LineTally(), LineTally(), LineTally()
        self.run_ids: dict = {}
        self.last: str | None = None

    def add(self, report: ReadReport) -> None:
        """Add a part's report (the parts in the source's order)."""
        self.lines += report.lines
        self.records += report.records
        self.queries += report.queries
        for tally, lines in ((self.blank, report.blank), (self.comments, report.comments),
                             (self.extra, report.extra_fields), (self.odd, report.odd_ranks)):
            tally.count += lines.count
            tally.first.extend(lines.first[: FIRST_LINES - len(tally.first)])
        self.run_ids.update(dict.fromkeys(report.run_ids))
        self.last = report.last_run_id or self.last

    def report(self, queries: int | None = None) -> ReadReport:
        """The run's report (queries: its distinct queries, where the parts' counts do not add up to it);
        FormatError for a run without a data line."""
        if not self.records:
            raise empty(self.name, "run", self.blank, self.comments)
        return ReadReport(self.name, "run", self.lines, self.records, self.queries if queries is None else queries,
                          self.blank.freeze(), self.comments.freeze(), self.extra.freeze(), self.odd.freeze(),
                          tuple(self.run_ids), self.last)
