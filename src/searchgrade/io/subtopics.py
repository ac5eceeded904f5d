"""Subtopic (intent) qrels: ndeval's ``topic subtopic docno judgment`` lines, and the other forms they come in.

:func:`read_subtopic_qrels` reads a file into ``{qid: {subtopic: {docid: grade}}}`` (ids as
text, grades as integers), the form :func:`searchgrade.evaluate` takes for the diversity
measures (``alpha_nDCG@10``, ``ERR_IA@20``, ...).  :func:`as_subtopic_qrels` takes that dict,
an ir_measures-style DataFrame whose ``iteration`` column is the subtopic (``query_id,
iteration, doc_id, relevance``; ``subtopic_id`` is accepted for ``iteration``), or records
(ir_measures' ``Qrel`` with ``iteration``, pyndeval's ``SubtopicQrel``, 4-tuples
``(qid, subtopic, docid, grade)``).

Rules: a line has exactly 4 fields (split at C whitespace); blank lines and ``#`` lines are
skipped; the grade is a decimal integer; a document judged twice for one subtopic is an error.
``ndeval=True`` adds what ndeval 4.5 requires: topic, subtopic and judgment are natural
numbers (digits only; a negative judgment is refused), returned as ints, so that ``05`` and
``5`` are one topic; and fields after the fourth are ignored, as ndeval's splitter ignores them.
A NUL character is refused, as the TREC readers refuse it: a C program's string ends there, so
ndeval reads a line with a NUL cut short (and its line reader then loses the next line). So is a
carriage return followed by more fields on its line (:func:`check_line_ends`): CR-only line ends
make the whole file one line for ndeval, which keeps its first record and ignores the rest.
Every error names the source and line (:class:`FormatError`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

import numpy as np

from . import fields
from .errors import FormatError
from .sources import decode, raw_bytes, read_source
from .text import _splitter, is_integer

__all__ = ["SubtopicColumns", "read_subtopic_qrels", "subtopic_columns", "parse_subtopic_qrels",
           "as_subtopic_qrels", "nest_subtopics", "ndeval_number", "line_fields",
           "plain_columns", "check_line_ends"]

_FIELDS = "'topic subtopic docno judgment'"
_NDEVAL_MAX_PREFIX = 100000  # ndeval's naturalNumber refuses a value above this before its next digit
_INNER_CR = re.compile(r"\r[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n]")  # a CR with more on its line after it


class SubtopicColumns(NamedTuple):
    """The judgments of a subtopic qrels source, one entry per line, in file order."""

    topics: list  # text; ndeval=True: an int64 array
    subtopics: list  # text; ndeval=True: an int64 array
    docs: list
    grades: np.ndarray  # int64


def ndeval_number(text: str) -> int:
    """ndeval's natural number: digits only, at most what its parser accepts; -1 otherwise."""
    if not text.isascii() or not text.isdigit() or int(text[:-1] or "0") > _NDEVAL_MAX_PREFIX:
        return -1
    return int(text)


def check_line_ends(text: str, source: str, first_line: int = 1) -> None:
    """FormatError at the first NUL character, or at the first carriage return followed on its line by more
    than blanks (CR-only line ends); text starts at line first_line of source."""
    nul = text.find("\x00")
    if nul >= 0:
        raise FormatError(source, first_line + text.count("\n", 0, nul), "NUL character (is this a binary file?)")
    inner = _INNER_CR.search(text) if "\r" in text else None
    if inner is not None:
        raise FormatError(source, first_line + text.count("\n", 0, inner.start()),
                          "a carriage return inside the line (CR-only line ends?): ndeval reads it as a space, so "
                          "what follows it would be more fields of this line, ignored; convert the line ends "
                          "(tr '\\r' '\\n')")


def line_fields(text: str) -> list[list[str]]:
    """The fields of each line of text (a final newline ends the last line), split at C whitespace."""
    split = _splitter(text)
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return list(map(split, rows))


def read_subtopic_qrels(source, *, ndeval: bool = False) -> dict:
    """``{qid: {subtopic: {docid: grade}}}`` from a file of ``topic subtopic docno judgment`` lines.

    ``source`` is a path (gzip too), ``"-"`` or an open file.  See the module docstring for the
    rules; ``ndeval=True`` applies ndeval's (numeric topics and subtopics as ints, judgments >= 0).
    """
    return nest_subtopics(subtopic_columns(source, ndeval=ndeval))


def subtopic_columns(source, *, ndeval: bool = False, repeats: bool = True) -> SubtopicColumns:
    """The judgments of a subtopic qrels source as columns (what :func:`read_subtopic_qrels` nests).

    ``repeats=False`` leaves a (topic, subtopic, document) given twice to the caller to find
    (:class:`searchgrade.measures.subtopics.SubtopicIndex` refuses it; :func:`parse_subtopic_qrels`
    names the line).
    """
    name, content = read_source(source)
    data = raw_bytes(name, content)
    fast = plain_columns(data, ndeval=ndeval, repeats=repeats) if isinstance(data, bytes) else None
    return fast if fast is not None else parse_subtopic_qrels(decode(name, data), name, ndeval=ndeval,
                                                                repeats=repeats)


def parse_subtopic_qrels(text: str, source: str = "<string>", *, ndeval: bool = False,
                         repeats: bool = True) -> SubtopicColumns:
    """The judgments of subtopic qrels text; FormatError naming ``source`` and the line of a bad one."""
    check_line_ends(text, source)
    fast = plain_columns(text.encode("utf-8", "surrogatepass"), ndeval=ndeval, repeats=repeats)
    return fast if fast is not None else _strict(text, source, ndeval)


def plain_columns(data: bytes, *, ndeval: bool = False, repeats: bool = True) -> SubtopicColumns | None:
    """The columns of plain qrels bytes, split by numpy (:mod:`.fields`: no Python object per line); None unless
    the text is ASCII, every line has exactly four fields and every value passes (no comment, no blank line,
    with ``repeats`` no judgment twice): the line-by-line reader then reads it, and names any bad line."""
    if not data.isascii() or any(c in data for c in (b"\x00", b"\x0b", b"\x0c", b"#")) or \
            (b"\r" in data and data.count(b"\r") != data.count(b"\r\n")):
        return None
    if (split := fields.split_fields(np.frombuffer(data, dtype=np.uint8), 4)) is None:
        return None
    a, bounds = split
    cols = [fields.distinct(fields.field_bytes(a, bounds[0][:, j], bounds[1][:, j]), grouped=j == 0) for j in range(4)]
    if any(col is None for col in cols):
        return None
    codes, texts = [c for c, _ in cols], [fields.texts(d) for _, d in cols]
    read = ndeval_number if ndeval else _plain
    numbers = [np.array([read(t) for t in texts[j]], dtype=np.int64) for j in ((0, 1, 3) if ndeval else (3,))]
    if any(not len(n) or n.min() < 0 for n in numbers):
        return None
    if repeats and _repeats(codes, [len(t) for t in texts]):
        return None
    ids = [numbers[j][codes[j]] if ndeval else list(map(texts[j].__getitem__, codes[j].tolist())) for j in (0, 1)]
    return SubtopicColumns(ids[0], ids[1], list(map(texts[2].__getitem__, codes[2].tolist())),
                           numbers[-1][codes[3]])


def _plain(text: str) -> int:
    """A grade that the fast path reads: ASCII digits (-1: other integers take the strict path)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 18 else -1


def _repeats(codes: list, sizes: list) -> bool:
    """Whether a (topic, subtopic, document) triple occurs twice (codes of each column, distinct values of each)."""
    key = codes[0].astype(np.int64)
    for j in (1, 2):
        key = key * max(sizes[j], 1) + codes[j]
    if max(sizes[0], 1) * max(sizes[1], 1) * max(sizes[2], 1) >= 2**62:
        return len(set(zip(*(c.tolist() for c in codes[:3])))) != len(key)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def _strict(text: str, source: str, ndeval: bool) -> SubtopicColumns:
    """The columns, line by line: the first bad line is a FormatError naming it."""
    split = _splitter(text)
    topics, subs, docs, grades = [], [], [], []
    first: dict = {}
    for lineno, line in enumerate(text.split("\n"), 1):
        fields = split(line)
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 4 or (len(fields) > 4 and not ndeval):  # ndeval ignores the fields after the fourth
            raise FormatError(source, lineno, f"expected 4 fields {_FIELDS}, found {len(fields)}")
        topic, sub, doc, grade = fields[:4]
        if ndeval:
            topic, sub, grade = _ndeval_fields(source, lineno, topic, sub, grade)
        elif not is_integer(grade):
            raise FormatError(source, lineno, f"judgment {grade!r} is not an integer")
        key = (topic, sub, doc)
        if key in first:
            raise FormatError(source, lineno, f"document {doc!r} is judged twice for topic {topic} subtopic "
                              f"{sub} (first at line {first[key]})")
        first[key] = lineno
        topics.append(topic)
        subs.append(sub)
        docs.append(doc)
        grades.append(int(grade))
    if not docs:
        raise FormatError(source, None, "no judgment (the file is empty)")
    try:
        return SubtopicColumns(topics, subs, docs, np.array(grades, dtype=np.int64))
    except OverflowError:
        bad = next(i for i, g in enumerate(grades) if not -(2**63) <= g < 2**63)
        raise FormatError(source, first[(topics[bad], subs[bad], docs[bad])],
                          f"judgment {grades[bad]} does not fit in 64 bits") from None


def _ndeval_fields(source: str, lineno: int, topic: str, sub: str, grade: str) -> tuple[int, int, str]:
    """ndeval's checks of one qrels line: numeric topic and subtopic, a judgment that is a natural number."""
    t, s = ndeval_number(topic), ndeval_number(sub)
    if t < 0:
        raise FormatError(source, lineno, f"topic {topic!r} is not a number (ndeval reads numeric topics)")
    if s < 0:
        raise FormatError(source, lineno, f"subtopic {sub!r} is not a number (ndeval reads numeric subtopics)")
    if is_integer(grade) and int(grade) < 0:
        raise FormatError(source, lineno, f"judgment {grade} is negative (ndeval reads judgments 0, 1, 2, ...)")
    if ndeval_number(grade) < 0:
        raise FormatError(source, lineno, f"judgment {grade!r} is not a natural number")
    return t, s, grade


def nest_subtopics(columns: SubtopicColumns) -> dict:
    """``{qid: {subtopic: {docid: grade}}}`` of columns, in file order."""
    out: dict = {}
    topics, subs = (c.tolist() if isinstance(c, np.ndarray) else c for c in columns[:2])
    for t, s, d, g in zip(topics, subs, columns.docs, columns.grades.tolist()):
        out.setdefault(t, {}).setdefault(s, {})[d] = g
    return out


_SUBTOPIC_NAMES = ("iteration", "subtopic_id", "subtopic")


def as_subtopic_qrels(obj) -> dict:
    """``{qid: {subtopic: {docid: grade}}}`` from that dict (as it is), a DataFrame or records with a subtopic.

    A DataFrame needs ``query_id``, ``doc_id``, ``relevance`` and a subtopic column (``iteration``,
    ir_measures' name, or ``subtopic_id``); records are namedtuples with those fields (ir_measures'
    ``Qrel``, pyndeval's ``SubtopicQrel``) or 4-tuples ``(qid, subtopic, docid, grade)``.
    """
    if isinstance(obj, Mapping):
        return obj
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a core dependency
        pd = None
    if pd is not None and isinstance(obj, pd.DataFrame):
        sub = next((c for c in _SUBTOPIC_NAMES if c in obj.columns), None)
        need = ["query_id", "doc_id", "relevance"]
        missing = [c for c in need if c not in obj.columns] + ([] if sub else ["iteration"])
        if missing:
            raise ValueError(f"subtopic qrels DataFrame: no column {', '.join(missing)} (the subtopic is ir_measures' "
                             f"'iteration'); columns are {list(obj.columns)}")
        rows = zip(obj["query_id"].tolist(), obj[sub].tolist(), obj["doc_id"].tolist(), obj["relevance"].tolist())
        return _from_rows(rows, "subtopic qrels DataFrame row")
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray)):
        return _from_rows(map(_record, obj), "subtopic qrels record")
    raise TypeError("subtopic qrels must be a dict {qid: {subtopic: {docid: grade}}}, a DataFrame with an "
                    f"'iteration' column or records, not {type(obj).__name__}")


def _record(rec) -> tuple:
    """(qid, subtopic, docid, grade) of one record."""
    fields = getattr(rec, "_fields", None)
    if fields:
        sub = next((f for f in _SUBTOPIC_NAMES if f in fields), None)
        if sub is None or not {"query_id", "doc_id", "relevance"} <= set(fields):
            raise ValueError(f"subtopic qrels record {rec!r} has no subtopic field ('iteration' or 'subtopic_id')")
        return rec.query_id, getattr(rec, sub), rec.doc_id, rec.relevance
    if isinstance(rec, tuple) and len(rec) == 4:
        return rec
    raise ValueError(f"subtopic qrels record {rec!r} is not (qid, subtopic, docid, grade)")


def _from_rows(rows, what: str) -> dict:
    """Nest (qid, subtopic, docid, grade) rows; a document judged twice for one subtopic is an error."""
    out: dict = {}
    for n, (q, s, d, g) in enumerate(rows):
        docs = out.setdefault(q, {}).setdefault(s, {})
        if d in docs:
            raise ValueError(f"{what} {n}: document {d!r} is judged twice for query {q!r} subtopic {s!r}")
        docs[d] = g
    return out
