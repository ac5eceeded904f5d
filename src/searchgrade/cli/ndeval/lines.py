"""A block of an ndeval run file (whole lines) as columns: :func:`run_lines`.

Each line is ``topic Q0 docno rank score runid``: a topic is a natural number, optionally after a
task prefix ending in ``-`` (``wt09-5`` is topic 5); the rank is a natural number; the score is read
only under ``-traditional``, as ndeval's ``sscanf("%lf")`` reads it (``0x10``, ``1.5x``, ``1e`` and
``inf`` are numbers; a score it reads nothing of, or NaN, is refused: ndeval would order by an
undefined value).  Fields after the sixth are ignored, as ndeval's splitter ignores them; a line with
fewer is refused, a blank line too (ndeval: a syntax error).

A block of plain lines (exactly six fields separated by spaces or tabs, LF or CRLF line ends, plain
numbers) is split by numpy alone (:mod:`searchgrade.io.fields`: no Python object per line); any other
block is read line by line, which also names the first line ndeval cannot read
(:class:`~searchgrade.io.FormatError`).  A NUL character and CR-only line ends are refused
(:func:`searchgrade.io.subtopics.check_line_ends`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...io import fields
from ...io.cnumbers import scan_double
from ...io.errors import FormatError, shown
from ...io.sources import decode
from ...io.subtopics import check_line_ends, line_fields, ndeval_number
from .docs import as_doc_bytes

__all__ = ["RunLines", "run_lines", "ndeval_topic", "first_fields"]

_RUN_FIELDS = "'topic Q0 docno rank score runid'"
_MAX_RANK_PREFIX = 100000  # ndeval's naturalNumber: the value before the last digit is at most this


class RunLines(NamedTuple):
    """A block's lines as columns (one entry per line, in file order)."""

    topic: np.ndarray  # int64: ndeval's topic number
    docs: np.ndarray  # docnos as bytes (S dtype, NUL-padded to a multiple of 8 bytes)
    rank: np.ndarray  # int64
    score: np.ndarray | None  # float64, read under -traditional only
    line: np.ndarray  # int64: 1-based line number in the file


def ndeval_topic(text: str) -> int:
    """ndeval's parseTopic: a natural number, or the number after a prefix's first '-' (``wt09-5``); -1 if none."""
    if text and text[0] in "0123456789":
        return ndeval_number(text)
    cut = text.find("-")
    return ndeval_number(text[cut + 1:]) if cut >= 0 else -1


def first_fields(raw: bytes) -> list[str]:
    """The fields of the first line of a block (its run id is the sixth)."""
    end = raw.find(b"\n")
    return line_fields(raw[: end if end >= 0 else len(raw)].decode("utf-8", "replace"))[0]


def run_lines(raw: bytes, name: str, first_line: int, traditional: bool) -> RunLines:
    """The lines of raw (a block of the file ``name`` starting at line ``first_line``) as columns; FormatError
    at the first line ndeval cannot read, or that searchgrade refuses (see the module docstring)."""
    fast = _fast(raw, first_line, traditional)
    return fast if fast is not None else _strict(raw, name, first_line, traditional)


# ------------------------------------------------------------------ plain lines, by numpy
_MASKS = np.array([(1 << 8 * k) - 1 for k in range(8)] + [2**64 - 1], dtype="<u8")  # a word's first k bytes


def _fast(raw: bytes, first_line: int, traditional: bool) -> RunLines | None:
    """The columns of a block of plain lines, or None where the line reader must decide."""
    if b"\x00" in raw or b"\x0b" in raw or b"\x0c" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    if (split := fields.split_fields(np.frombuffer(raw, dtype=np.uint8), 6)) is None:
        return None
    a, bounds = split
    (starts, lengths), words = (bounds[0].T, bounds[1].T), _words(a)
    topic = _topics(_field_words(words, starts[0], lengths[0]))
    rank = _naturals(words, starts[3], lengths[3])
    score = _fast_scores(a, starts[4], lengths[4]) if traditional else None
    if topic is None or rank is None or (traditional and score is None):
        return None
    docs = _field_words(words, starts[2], lengths[2])
    return RunLines(topic, docs.view(f"S{8 * docs.shape[1]}").ravel(), rank, score,
                    np.arange(first_line, first_line + len(rank), dtype=np.int64))


def _words(a: np.ndarray) -> np.ndarray:
    """The little-endian 8-byte word that starts at each byte of a (8 zero bytes appended): a field's first 8
    bytes in one read."""
    padded = np.concatenate((a, np.zeros(8, dtype=np.uint8)))
    return np.ndarray((len(a) + 1,), dtype="<u8", buffer=padded, strides=(1,))


def _field_words(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A field of every line as a (lines, k) matrix of little-endian words: its bytes, NUL-padded to 8 k (each row
    ends with a NUL, as :func:`searchgrade.io.fields.texts` needs)."""
    k = int(lengths.max(initial=0)) // 8 + 1
    out = np.empty((len(starts), k), dtype="<u8")
    end = len(words) - 1
    for j in range(k):
        out[:, j] = words[np.minimum(starts + 8 * j, end)] & _MASKS[np.clip(lengths - 8 * j, 0, 8)]
    return out


def _topics(mat: np.ndarray) -> np.ndarray | None:
    """The topic field (a word matrix) as ndeval's numbers, each distinct text read once; None if one is not a
    topic."""
    got = fields.distinct(mat.view(np.uint8).reshape(len(mat), -1), grouped=True)
    if got is None:
        return None
    numbers = np.array([ndeval_topic(t) for t in fields.texts(got[1])], dtype=np.int64)
    return numbers[got[0]] if len(numbers) and numbers.min() >= 0 else None


def _naturals(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """The rank field as ndeval's natural numbers (ASCII digits, at most 8 here), or None where the line reader
    must decide."""
    if not len(starts) or int(lengths.max()) > 8:
        return None
    digits = (words[starts] & _MASKS[lengths]).view(np.uint8).reshape(-1, 8)
    value = np.zeros(len(starts), dtype=np.int64)
    for k in range(int(lengths.max())):
        digit = digits[:, k].astype(np.int64) - 48
        inside = k < lengths
        if not np.array_equal((digit >= 0) & (digit <= 9), inside):  # a byte that is no digit, in the field
            return None
        np.copyto(value, value * 10 + digit, where=inside)
    return value if bool((value // 10 <= _MAX_RANK_PREFIX).all()) else None


def _fast_scores(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """The score field as sscanf reads it: plain decimals by numpy, any other text one distinct text at a time;
    None if one is not a number (the line reader names it)."""
    score = fields.decimals(a, starts, lengths)
    if score is None:
        got = fields.distinct(fields.field_bytes(a, starts, lengths))
        if got is None:
            return None
        values = [scan_double(t) for t in fields.texts(got[1])]
        if any(v is None or math.isnan(v) for v in values):
            return None
        score = np.array(values, dtype=np.float64)[got[0]]
    return score if not np.isnan(score).any() else None


# ------------------------------------------------------------------ any lines, one at a time
def _strict(raw: bytes, name: str, first_line: int, traditional: bool) -> RunLines:
    """The columns, line by line: FormatError at the first line ndeval cannot read (or searchgrade refuses)."""
    text = decode(name, raw, first_line)
    check_line_ends(text, name, first_line)
    rows = line_fields(text)
    topics, ranks, scores = [], [], []
    topic_of: dict = {}
    for i, f in enumerate(rows):
        if len(f) < 6:
            raise FormatError(name, first_line + i, f"expected 6 fields {_RUN_FIELDS}, found {len(f)}")
        topic = topic_of.get(f[0])
        if topic is None:
            topic = topic_of[f[0]] = ndeval_topic(f[0])
        if topic < 0:
            raise FormatError(name, first_line + i, f"topic {shown(f[0])} is not a number (ndeval reads numeric "
                              "topics, optionally after a prefix ending in '-', such as wt09-5)")
        rank = ndeval_number(f[3])
        if rank < 0:
            raise FormatError(name, first_line + i, f"rank {shown(f[3])} is not a natural number")
        if traditional:
            scores.append(_score(f[4], name, first_line + i))
        topics.append(topic)
        ranks.append(rank)
    return RunLines(np.array(topics, dtype=np.int64), as_doc_bytes([f[2] for f in rows]),
                    np.array(ranks, dtype=np.int64), np.array(scores, dtype=np.float64) if traditional else None,
                    np.arange(first_line, first_line + len(rows), dtype=np.int64))


def _score(text: str, name: str, line: int) -> float:
    """A -traditional score as ndeval's sscanf reads it; FormatError where it reads none or NaN."""
    value = scan_double(text)
    if value is None or math.isnan(value):
        what = "NaN, which orders nothing" if value is not None else "not a number"
        raise FormatError(name, line, f"score {shown(text)} is {what} (-traditional orders by the score; ndeval "
                          "would order by an undefined value)")
    return value
