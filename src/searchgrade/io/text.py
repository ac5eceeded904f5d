"""The strict line-by-line reader of TREC qrels and runs: the rules, and the errors that name the line.

These rules are what trec_eval 10.0's readers (``get_qrels.c``, ``get_trec_results.c``)
accept, minus what it would read as garbage:

* fields are separated by C whitespace (space, tab, CR, VT, FF), not by other Unicode spaces;
* a line whose first non-blank character is ``#`` is a comment, in runs and in qrels;
* blank lines are skipped (trec_eval 10.0 refuses them in qrels);
* a run line has at least 6 fields, ``qid iter docno rank score runid``; what follows the
  run id is ignored, and so are iter and rank (a rank that is not an integer is reported);
* a qrels line has exactly 4 fields, ``qid iter docno rel``;
* scores are finite decimal numbers, grades decimal integers that fit trec_eval's ``long``
  (64 bits); a document twice in one query is an error; so is a source with no data line.

It reads a text, or a source's texts one block of lines after another (:func:`read_run_blocks`,
:func:`read_qrels_blocks`), and stops at the first bad line without reading on.
:mod:`searchgrade.io.bulk` reads regular files faster and hands everything else to this module.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple, Sequence

from .errors import FIRST_LINES, FormatError, LineTally, ReadReport, shown

RUN_FIELDS = "'qid iter docno rank score runid'"
QRELS_FIELDS = "'qid iter docno rel'"
GRADE_MIN, GRADE_MAX = -(2**63), 2**63 - 1  # trec_eval's long on 64-bit systems

# Characters str.split() splits at that C's isspace() does not (trec_eval keeps them in fields).
NOT_C_SPACE = re.compile("[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_c_fields = re.compile(r"[^ \t\n\r\x0b\x0c]+").findall
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _splitter(text: str):
    """str.split where it agrees with C whitespace (almost every file), else a C-whitespace splitter."""
    if text.isascii():  # a flag of the str: free; then only the ASCII separators \x1c-\x1f matter
        odd = any(c in text for c in "\x1c\x1d\x1e\x1f")
    else:
        odd = NOT_C_SPACE.search(text) is not None
    return _c_fields if odd else str.split


_BLANK = re.compile(r"^[ \t\r\x0b\x0c]*(?:\n|\Z)", re.MULTILINE)  # a blank line (or the end of the text)
_INK = re.compile(r"[^ \t\r\x0b\x0c\n]")  # a character that makes its line not blank


class Lines(NamedTuple):
    """The lines of a text that hold something, their 1-based numbers, how many lines in all, the blank ones."""

    lines: list  # the lines, blank ones left out
    numbers: Sequence[int]  # the number of each
    total: int  # lines in the text, blank ones too
    blank: LineTally | None  # the blank lines, counted here (None: the text had none)


def _lines(text: str, source: str, first_line: int = 1) -> Lines:
    """The lines of text (a final newline ends the last line), numbered from first_line; a NUL character
    is an error.

    Blank lines are left out as runs, found in C: 64 MB of newlines make no list of 64 million
    empty strings (what ``split`` would give), only their count and the first numbers.
    """
    nul = text.find("\x00")
    if nul >= 0:
        raise FormatError(source, first_line + text.count("\n", 0, nul), "NUL character (is this a binary file?)")
    first_blank = _BLANK.search(text)
    if first_blank is None or first_blank.start() == len(text):  # no blank line: the usual case
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        return Lines(lines, range(first_line, first_line + len(lines)), len(lines), None)
    lines, numbers, first = [], [], []
    number, at, prev, pos = first_line, 0, first_line - 1, 0
    while (ink := _INK.search(text, pos)) is not None:  # the next line with a character that is not blank
        start = text.rfind("\n", 0, ink.start()) + 1
        end = text.find("\n", ink.start())
        end = len(text) if end < 0 else end
        number += text.count("\n", at, start)
        if number > prev + 1 and len(first) < FIRST_LINES:  # the first blank lines' numbers
            first.extend(range(prev + 1, min(number, prev + 1 + FIRST_LINES - len(first))))
        lines.append(text[start:end])
        numbers.append(number)
        at, prev, pos = start, number, end + 1
    total = text.count("\n") + (not text.endswith("\n"))
    if len(first) < FIRST_LINES:
        first.extend(range(prev + 1, min(first_line + total, prev + 1 + FIRST_LINES - len(first))))
    blank = LineTally()
    blank.count, blank.first = total - len(lines), first
    return Lines(lines, numbers, total, blank)


class _Text(NamedTuple):
    """One text of a source: its lines (numbered on from the texts before it), its splitter, whether it is ASCII
    (then float() and isdecimal() need no extra character checks) and whether it has an underscore."""

    lines: Lines
    split: Callable
    ascii: bool
    underscore: bool


def _texts(texts: Iterable[str], source: str, blank: LineTally, first_line: int = 1,
           line_map: Sequence[int] | None = None) -> Iterator[_Text]:
    """The texts of a source one after another, their blank lines counted into blank; the first text's first
    line is numbered first_line.  line_map: the number in the source of each line (``line_map[i]`` for the
    line numbered ``first_line + i``), for texts made of lines taken from a source (a spill file)."""
    line = first_line
    for text in texts:
        if not text:
            continue
        lines = _lines(text, source, line)
        if line_map is not None:
            lines = lines._replace(numbers=[line_map[n - first_line] for n in lines.numbers])
        if lines.blank is not None:
            blank.count += lines.blank.count
            blank.first.extend(lines.blank.first[:FIRST_LINES - len(blank.first)])
        yield _Text(lines, _splitter(text), text.isascii(), "_" in text)
        line += lines.total


def is_integer(text: str) -> bool:
    """True for an ASCII decimal integer such as '7', '-1' or '+3' (no underscores, no other digits)."""
    return _INTEGER.fullmatch(text) is not None


def grade(text: str, source: str, lineno: int) -> int:
    """A relevance grade: a decimal integer within [GRADE_MIN, GRADE_MAX]."""
    if not (text.isdecimal() and text.isascii()) and not is_integer(text):
        raise FormatError(source, lineno, f"relevance grade {shown(text)} is not an integer")
    digits = text.lstrip("+-").lstrip("0")
    # beyond 19 digits no grade fits; int() of more than 4300 would fail with Python's own message
    value = int(text) if len(digits) <= 19 else GRADE_MAX + 1
    if len(text) > 18 and not GRADE_MIN <= value <= GRADE_MAX:
        raise FormatError(source, lineno, f"relevance grade {shown(text, quote=False)} is outside the 64-bit "
                                          f"range of trec_eval's grades, {GRADE_MIN} to {GRADE_MAX}")
    return value


def score(text: str, source: str, lineno: int) -> float:
    """A score: a finite decimal number (Python's float syntax without underscores or non-ASCII digits)."""
    try:
        if "_" in text or not text.isascii():
            raise ValueError
        value = float(text)
    except ValueError:
        raise FormatError(source, lineno, f"score {shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise FormatError(source, lineno, f"score {shown(text)} is not finite")
    return value


def _first_line(lines: Lines, stop: int, split, qid: str, docno: str) -> int | None:
    """1-based number of the first data line of lines before the one numbered stop + 1 that holds (qid, docno)."""
    for line, number in zip(lines.lines, lines.numbers):
        if number > stop:
            break
        f = split(line)
        if len(f) >= 3 and f[0] == qid and f[2] == docno and not f[0].startswith("#"):
            return number
    return None


def _duplicate(source: str, lineno: int, what: str, qid: str, docno: str, text: _Text,
               again: Callable[[], Iterable[str]] | None) -> FormatError:
    """The error for (qid, docno) again on line lineno: its first line is in this text, or in one before it,
    found by reading the source again from its start (``again()``: its texts)."""
    first = _first_line(text.lines, lineno - 1, text.split, qid, docno)
    if first is None and again is not None:
        for earlier in _texts(again(), source, LineTally()):
            first = _first_line(earlier.lines, lineno - 1, earlier.split, qid, docno)
            numbers = earlier.lines.numbers
            if first is not None or (len(numbers) and numbers[-1] >= lineno):
                break
    return duplicate_error(source, lineno, what, qid, docno, first)


def duplicate_error(source: str, lineno: int, what: str, qid: str, docno: str, first: int | None) -> FormatError:
    """The error for a (query, document) pair on line lineno that is already on line first (what: "document" in
    a run, "judgment" in qrels): every reader's words for it."""
    return FormatError(source, lineno, f"duplicate {what}: query {qid} document {docno} is already on line {first}")


def empty(source: str, what: str, blank, comments, error=FormatError) -> FormatError:
    """The error for a source without data lines (blank, comments: LineTally or LineSet; error: its class)."""
    found = [f"{t.count} {name}" for t, name in ((blank, "blank"), (comments, "comment")) if t.count]
    detail = f" (only {' and '.join(found)} lines)" if found else ""
    return error(source, None, f"empty file: no {what} lines{detail}")


def read_run_text(text: str, source: str) -> tuple[dict, ReadReport]:
    """Read run text line by line: ``({qid: {docno: score}}, report)``, queries and documents in file order."""
    return read_run_blocks([text], source)


def read_run_blocks(texts: Iterable[str], source: str, again: Callable[[], Iterable[str]] | None = None, *,
                    first_line: int = 1, line_map: Sequence[int] | None = None,
                    empty_ok: bool = False) -> tuple[dict, ReadReport]:
    """Read a run given as texts that end at line ends, one after another (:func:`read_run_text`); the first
    bad line stops the reading.  ``again()`` gives the texts again from the start, to name the first line of a
    document found twice in two texts.

    A part of a source (the streaming reader's, :mod:`searchgrade.io.stream`): ``first_line`` is the number
    of its first line, ``line_map`` the source's number of each of its lines (see :func:`_texts`), and
    ``empty_ok`` reads a part without data lines as ``({}, report)`` instead of refusing it."""
    isfinite = math.isfinite
    run: dict[str, dict[str, float]] = {}
    blank, comments, extra, odd = LineTally(), LineTally(), LineTally(), LineTally()
    run_ids: dict[str, None] = {}
    last_id = None
    total = 0
    for text in _texts(texts, source, blank, first_line, line_map):
        split, plain = text.split, text.ascii and not text.underscore
        total += text.lines.total
        for lineno, line in zip(text.lines.numbers, text.lines.lines):
            f = split(line)
            if len(f) != 6 or f[0][0] == "#":
                if not f:
                    blank.add(lineno)
                    continue
                if f[0][0] == "#":
                    comments.add(lineno)
                    continue
                if len(f) < 6:
                    swapped = " (a qrels line: are the qrels and the run swapped?)" if len(f) == 4 else ""
                    raise FormatError(source, lineno, f"expected 6 fields {RUN_FIELDS}, found {len(f)}{swapped}")
                extra.add(lineno)
                f = f[:6]
            qid, _, docno, rank, score_text, run_id = f
            if not (plain and rank.isdecimal()) and not is_integer(rank):
                odd.add(lineno)
            try:
                value = float(score_text) if plain else score(score_text, source, lineno)
            except FormatError:  # score() names what is wrong ('nan' is not finite, as on the plain path)
                raise
            except ValueError:
                raise FormatError(source, lineno, f"score {shown(score_text)} is not a number") from None
            if not isfinite(value):
                raise FormatError(source, lineno, f"score {shown(score_text)} is not finite")
            if run_id != last_id:
                last_id = run_id
                run_ids.setdefault(run_id)
            docs = run.get(qid)
            if docs is None:
                docs = run[qid] = {}
            elif docno in docs:
                raise _duplicate(source, lineno, "document", qid, docno, text, again)
            docs[docno] = value
    if not run and not empty_ok:
        raise empty(source, "run", blank, comments)
    records = sum(map(len, run.values()))
    report = ReadReport(source, "run", total, records, len(run), blank.freeze(), comments.freeze(),
                        extra.freeze(), odd.freeze(), tuple(run_ids), last_id)
    return run, report


def read_qrels_text(text: str, source: str) -> tuple[dict, ReadReport]:
    """Read qrels text line by line: ``({qid: {docno: grade}}, report)``."""
    return read_qrels_blocks([text], source)


def read_qrels_blocks(texts: Iterable[str], source: str,
                      again: Callable[[], Iterable[str]] | None = None) -> tuple[dict, ReadReport]:
    """Read qrels given as texts that end at line ends, one after another (see :func:`read_run_blocks`)."""
    qrels: dict[str, dict[str, int]] = {}
    blank, comments = LineTally(), LineTally()
    total = 0
    for text in _texts(texts, source, blank):
        split, plain = text.split, text.ascii
        total += text.lines.total
        for lineno, line in zip(text.lines.numbers, text.lines.lines):
            f = split(line)
            if len(f) != 4 or f[0][0] == "#":
                if not f:
                    blank.add(lineno)
                    continue
                if f[0][0] == "#":
                    comments.add(lineno)
                    continue
                more = ""
                if len(f) > 4:
                    more = " (qrels lines have no fields after the grade" + (
                        "; a run line: are the qrels and the run swapped?)" if len(f) == 6 else ")")
                raise FormatError(source, lineno, f"expected 4 fields {QRELS_FIELDS}, found {len(f)}{more}")
            qid, _, docno, rel = f
            value = int(rel) if plain and rel.isdecimal() and len(rel) < 19 else grade(rel, source, lineno)
            docs = qrels.get(qid)
            if docs is None:
                docs = qrels[qid] = {}
            elif docno in docs:
                raise _duplicate(source, lineno, "judgment", qid, docno, text, again)
            docs[docno] = value
    if not qrels:
        raise empty(source, "qrels", blank, comments)
    records = sum(map(len, qrels.values()))
    report = ReadReport(source, "qrels", total, records, len(qrels), blank.freeze(), comments.freeze())
    return qrels, report
