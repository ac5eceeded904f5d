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

:mod:`searchgrade.io.bulk` reads regular files faster and hands everything else to this module.
"""
from __future__ import annotations

import math
import re

from .errors import FormatError, LineTally, ReadReport

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


def _lines(text: str, source: str) -> list[str]:
    """The lines of text (a final newline ends the last line); a NUL character is an error."""
    nul = text.find("\x00")
    if nul >= 0:
        raise FormatError(source, text.count("\n", 0, nul) + 1, "NUL character (is this a binary file?)")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def is_integer(text: str) -> bool:
    """True for an ASCII decimal integer such as '7', '-1' or '+3' (no underscores, no other digits)."""
    return _INTEGER.fullmatch(text) is not None


def grade(text: str, source: str, lineno: int) -> int:
    """A relevance grade: a decimal integer within [GRADE_MIN, GRADE_MAX]."""
    if not (text.isdecimal() and text.isascii()) and not is_integer(text):
        raise FormatError(source, lineno, f"relevance grade {text!r} is not an integer")
    value = int(text)
    if len(text) > 18 and not GRADE_MIN <= value <= GRADE_MAX:
        raise FormatError(source, lineno, f"relevance grade {text} is outside the 64-bit range of trec_eval's "
                                          f"grades, {GRADE_MIN} to {GRADE_MAX}")
    return value


def score(text: str, source: str, lineno: int) -> float:
    """A score: a finite decimal number (Python's float syntax without underscores or non-ASCII digits)."""
    try:
        if "_" in text or not text.isascii():
            raise ValueError
        value = float(text)
    except ValueError:
        raise FormatError(source, lineno, f"score {text!r} is not a number") from None
    if not math.isfinite(value):
        raise FormatError(source, lineno, f"score {text!r} is not finite")
    return value


def _first_line(lines: list[str], stop: int, split, qid: str, docno: str) -> int:
    """1-based number of the first data line before index stop that holds (qid, docno)."""
    for i in range(stop):
        f = split(lines[i])
        if len(f) >= 3 and f[0] == qid and f[2] == docno and not f[0].startswith("#"):
            return i + 1
    raise AssertionError("duplicate without a first occurrence")  # pragma: no cover


def _empty(source: str, what: str, blank: LineTally, comments: LineTally) -> FormatError:
    """The error for a source without data lines."""
    found = [f"{t.count} {name}" for t, name in ((blank, "blank"), (comments, "comment")) if t.count]
    detail = f" (only {' and '.join(found)} lines)" if found else ""
    return FormatError(source, None, f"empty file: no {what} lines{detail}")


def read_run_text(text: str, source: str) -> tuple[dict, ReadReport]:
    """Read run text line by line: ``({qid: {docno: score}}, report)``, queries and documents in file order."""
    lines = _lines(text, source)
    split = _splitter(text)
    plain = text.isascii() and "_" not in text  # then float() and isdecimal() need no extra character checks
    isfinite = math.isfinite
    run: dict[str, dict[str, float]] = {}
    blank, comments, extra, odd = LineTally(), LineTally(), LineTally(), LineTally()
    run_ids: dict[str, None] = {}
    last_id = None
    for lineno, line in enumerate(lines, 1):
        f = split(line)
        if len(f) != 6 or f[0][0] == "#":
            if not f:
                blank.add(lineno)
                continue
            if f[0][0] == "#":
                comments.add(lineno)
                continue
            if len(f) < 6:
                raise FormatError(source, lineno, f"expected 6 fields {RUN_FIELDS}, found {len(f)}")
            extra.add(lineno)
            f = f[:6]
        qid, _, docno, rank, score_text, run_id = f
        if not (plain and rank.isdecimal()) and not is_integer(rank):
            odd.add(lineno)
        try:
            value = float(score_text) if plain else score(score_text, source, lineno)
        except ValueError:
            raise FormatError(source, lineno, f"score {score_text!r} is not a number") from None
        if not isfinite(value):
            raise FormatError(source, lineno, f"score {score_text!r} is not finite")
        if run_id != last_id:
            last_id = run_id
            run_ids.setdefault(run_id)
        docs = run.get(qid)
        if docs is None:
            docs = run[qid] = {}
        elif docno in docs:
            first = _first_line(lines, lineno - 1, split, qid, docno)
            raise FormatError(source, lineno,
                              f"duplicate document: query {qid} document {docno} is already on line {first}")
        docs[docno] = value
    if not run:
        raise _empty(source, "run", blank, comments)
    records = sum(map(len, run.values()))
    report = ReadReport(source, "run", len(lines), records, len(run), blank.freeze(), comments.freeze(),
                        extra.freeze(), odd.freeze(), tuple(run_ids), last_id)
    return run, report


def read_qrels_text(text: str, source: str) -> tuple[dict, ReadReport]:
    """Read qrels text line by line: ``({qid: {docno: grade}}, report)``."""
    lines = _lines(text, source)
    split = _splitter(text)
    plain = text.isascii()
    qrels: dict[str, dict[str, int]] = {}
    blank, comments = LineTally(), LineTally()
    for lineno, line in enumerate(lines, 1):
        f = split(line)
        if len(f) != 4 or f[0][0] == "#":
            if not f:
                blank.add(lineno)
                continue
            if f[0][0] == "#":
                comments.add(lineno)
                continue
            more = " (qrels lines have no fields after the grade)" if len(f) > 4 else ""
            raise FormatError(source, lineno, f"expected 4 fields {QRELS_FIELDS}, found {len(f)}{more}")
        qid, _, docno, rel = f
        value = int(rel) if plain and rel.isdecimal() and len(rel) < 19 else grade(rel, source, lineno)
        docs = qrels.get(qid)
        if docs is None:
            docs = qrels[qid] = {}
        elif docno in docs:
            first = _first_line(lines, lineno - 1, split, qid, docno)
            raise FormatError(source, lineno,
                              f"duplicate judgment: query {qid} document {docno} is already on line {first}")
        docs[docno] = value
    if not qrels:
        raise _empty(source, "qrels", blank, comments)
    records = sum(map(len, qrels.values()))
    report = ReadReport(source, "qrels", len(lines), records, len(qrels), blank.freeze(), comments.freeze())
    return qrels, report
