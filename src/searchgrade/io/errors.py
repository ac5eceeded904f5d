"""What the TREC readers report: FormatError, InputWarning and the ReadReport of one source."""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass

FIRST_LINES = 10  # how many line numbers a LineSet keeps
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # src/searchgrade/


class FormatError(ValueError):
    """A malformed qrels or run source: ``str()`` is ``"{path}:{line}: {problem}"``.

    ``path`` names the source (a file, ``<stdin>``, ``run DataFrame``); ``line`` is the
    1-based line, or None when the problem concerns the whole source or a DataFrame row
    (the row is then named in ``problem``).
    """

    def __init__(self, path: str, line: int | None, problem: str):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.problem))


def shown(text: str, keep: int = 40, quote: bool = True) -> str:
    """``repr(text)`` (or text itself, quote=False), or for a long text its first characters and its length:
    an error message stays one short line."""
    if len(text) <= keep:
        return repr(text) if quote else text
    return f"{text[:keep - 10]!r}... ({len(text)} characters)"


def did_you_mean(text: str, known) -> str:
    """'; did you mean X?' for the known name closest to ``text`` (ignoring case), else ''."""
    import difflib

    lowered = {str(k).lower(): str(k) for k in known}
    close = difflib.get_close_matches(str(text).lower(), list(lowered), n=1, cutoff=0.6)
    return f"; did you mean {lowered[close[0]]!r}?" if close else ""


class SourceError(FormatError):
    """A FormatError that every reader of the source would give (bytes that are not UTF-8, a line longer than
    the readers take, a broken gzip stream, no data line): raised as soon as it is seen, and no other reader
    is tried."""


class InputWarning(UserWarning):
    """A reader skipped or ignored part of its input (comment lines, fields after the run id, ...)."""


class LineTally:
    """Counts lines with one property and keeps the first FIRST_LINES of their numbers (while reading)."""

    __slots__ = ("count", "first")

    def __init__(self):
        self.count = 0
        self.first: list[int] = []

    def add(self, lineno: int) -> None:
        """Count one more line."""
        self.count += 1
        if len(self.first) < FIRST_LINES:
            self.first.append(lineno)

    def freeze(self) -> LineSet:
        """The tally as an immutable LineSet."""
        return LineSet(self.count, tuple(self.first))


@dataclass(frozen=True)
class LineSet:
    """How many lines of a source share a property, and the first (up to 10) of their numbers."""

    count: int = 0
    first: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return self.count > 0

    def __str__(self) -> str:
        more = ", ..." if self.count > len(self.first) else ""
        lines = "line" if self.count == 1 else "lines"
        return f"{self.count} {lines} ({', '.join(map(str, self.first))}{more})"

    @classmethod
    def of(cls, numbers) -> LineSet:
        """A LineSet of the given ascending line numbers (a range or a sequence)."""
        return cls(len(numbers), tuple(numbers[:FIRST_LINES]))


@dataclass(frozen=True)
class ReadReport:
    """What a reader did with one qrels or run source: what it read, skipped and ignored.

    ``lines`` counts every line of the source, ``records`` the judgments or retrieved
    documents read.  Skipped: ``blank`` lines and ``comments`` (first non-blank character
    ``#``).  Ignored, in runs: ``extra_fields`` (fields after the run id) and ``odd_ranks``
    (a rank field that is not an integer; ranks never matter, documents are ordered by
    score).  ``run_ids`` are a run's distinct run ids in order of first appearance,
    ``last_run_id`` the run id of its last line (the one trec_eval prints).
    """

    source: str
    format: str  # "run" or "qrels"
    lines: int
    records: int
    queries: int
    blank: LineSet = LineSet()
    comments: LineSet = LineSet()
    extra_fields: LineSet = LineSet()
    odd_ranks: LineSet = LineSet()
    run_ids: tuple[str, ...] = ()
    last_run_id: str | None = None

    def notes(self) -> list[str]:
        """One sentence per thing skipped or ignored that a reader warns about (blank run lines are not)."""
        out = []
        if self.blank and self.format == "qrels":
            out.append(f"skipped {self.blank}: blank, which trec_eval 10.0 refuses in qrels (\"Malformed line\")")
        if self.comments:
            out.append(f"skipped {self.comments} starting with '#' (comments, as trec_eval 10.0 reads them)")
        if self.extra_fields:
            out.append(f"ignored the fields after the run id on {self.extra_fields}, as trec_eval does")
        if self.odd_ranks:
            out.append(f"the rank field is not an integer on {self.odd_ranks}; ranks are ignored "
                       "(documents are ordered by score), but check the columns are "
                       "'qid iter docno rank score runid'")
        if len(self.run_ids) > 1:
            shown = ", ".join(self.run_ids[:5]) + (", ..." if len(self.run_ids) > 5 else "")
            out.append(f"{len(self.run_ids)} different run ids ({shown}); the run's name is the first line's, "
                       f"{self.run_ids[0]} (trec_eval prints the last line's, {self.last_run_id})")
        return out

    def warn(self) -> None:
        """Issue an InputWarning naming the source if anything was skipped or ignored."""
        notes = self.notes()
        if notes:
            warnings.warn(f"{self.source}: " + "; ".join(notes), InputWarning, stacklevel=caller_stacklevel())


def caller_stacklevel() -> int:
    """The warnings.warn stacklevel of the first frame outside the searchgrade package."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
