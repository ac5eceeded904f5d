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
``5`` are one topic.  Every error names the source and line (:class:`FormatError`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

import numpy as np

from .errors import FormatError
from .sources import decode, raw_bytes, read_source
from .text import _splitter, is_integer

__all__ = ["SubtopicColumns", "read_subtopic_qrels", "subtopic_columns", "parse_subtopic_qrels",
           "as_subtopic_qrels", "nest_subtopics", "ndeval_number", "line_fields",
           "uniform_fields"]

_FIELDS = "'topic subtopic docno judgment'"
_NDEVAL_MAX_PREFIX = 100000  # ndeval's naturalNumber refuses a value above this before its next digit


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
    return parse_subtopic_qrels(decode(name, raw_bytes(name, content)), name, ndeval=ndeval, repeats=repeats)


def parse_subtopic_qrels(text: str, source: str = "<string>", *, ndeval: bool = False,
                         repeats: bool = True) -> SubtopicColumns:
    """The judgments of subtopic qrels text; FormatError naming ``source`` and the line of a bad one."""
    fast = _fast(text, ndeval, repeats)
    return fast if fast is not None else _strict(text, source, ndeval)


def _fast(text: str, ndeval: bool, repeats: bool = True) -> SubtopicColumns | None:
    """Every line four fields, grades and ids that pass, no repeats: the columns without a loop per line; else None."""
    tokens = uniform_fields(text, 4)
    if tokens is None:
        return None
    columns = [tokens[i::4] for i in range(4)]
    del tokens
    read = ndeval_number if ndeval else _plain
    values = []
    for col in (0, 1, 3) if ndeval else (3,):
        table = {key: read(key) for key in set(columns[col])}
        if min(table.values(), default=-1) < 0:
            return None
        values.append(np.fromiter(map(table.__getitem__, columns[col]), dtype=np.int64, count=len(columns[col])))
    topics, subs = (values[0], values[1]) if ndeval else (columns[0], columns[1])
    docs, grade = columns[2], values[-1]
    if repeats and _repeats(topics, subs, docs):
        return None
    return SubtopicColumns(topics, subs, docs, grade)


def _plain(text: str) -> int:
    """A grade that the fast path reads: ASCII digits (-1: other integers take the strict path)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 18 else -1


def _repeats(topics, subs, docs: list) -> bool:
    """Whether a (topic, subtopic, document) triple occurs twice."""
    codes = []
    for col in (topics, subs, docs):
        table: dict = {}  # each id's code: the position of its first occurrence
        codes.append(np.fromiter(map(table.setdefault, col, range(len(col))), dtype=np.int64, count=len(col)))
    n = len(docs) + 1
    key = np.sort((codes[0] * n + codes[1]) * n + codes[2]) if n < 2**21 else None
    if key is None:
        return len(set(zip(topics, subs, docs))) != len(docs)
    return bool((key[1:] == key[:-1]).any())


def uniform_fields(text: str, n: int) -> list | None:
    """The whitespace-separated fields of text when every line has exactly n of them (no blank line), else None.

    The count per line is checked on the bytes with numpy, without splitting each line.
    """
    if _splitter(text) is not str.split or not text:
        return None
    tokens = text.split()
    lines = text.count("\n") + (not text.endswith("\n"))
    if len(tokens) != n * lines:
        return None
    b = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    space = b <= 32  # C whitespace and other control bytes: an extra split only sends the text to the strict path
    starts = np.flatnonzero(~space[1:] & space[:-1]) + 1
    if len(b) and not space[0]:
        starts = np.r_[0, starts]
    ends = np.r_[np.flatnonzero(b == 10), len(b)][:lines]
    del b, space
    before = np.searchsorted(starts, ends)  # fields that start before each line's end
    return tokens if bool((before == n * np.arange(1, lines + 1)).all()) else None


def _strict(text: str, source: str, ndeval: bool) -> SubtopicColumns:
    """The columns, line by line: the first bad line is a FormatError naming it."""
    split = _splitter(text)
    topics, subs, docs, grades = [], [], [], []
    first: dict = {}
    for lineno, line in enumerate(text.split("\n"), 1):
        fields = split(line)
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise FormatError(source, lineno, f"expected 4 fields {_FIELDS}, found {len(fields)}")
        topic, sub, doc, grade = fields
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
