"""ndeval's run files: ``topic Q0 docno rank score runid`` lines, ordered and cut as ndeval orders and cuts them.

A topic is a natural number, optionally after a task prefix ending in ``-`` (``wt09-5`` is topic
5); the rank is a natural number.  ndeval orders each topic by rank (``-traditional``: by score
descending, then docno descending), refuses a rank given twice, keeps the first ``-M`` documents
and then refuses a document given twice.  Fields after the sixth are ignored, as ndeval's
splitter ignores them.  Every refusal is a :class:`~searchgrade.io.FormatError` naming the file
and line.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...io.errors import FormatError
from ...io.sources import decode, raw_bytes, read_source
from ...io.subtopics import line_fields, ndeval_number, uniform_fields

__all__ = ["NdevalRun", "read_ndeval_run", "ndeval_topic"]


class NdevalRun(NamedTuple):
    """A run as ndeval evaluates it: its id and ``{topic: {docno: score}}`` (topics ascending)."""

    runid: str
    run: dict  # scores that put each topic in ndeval's order under trec_eval's tie rule


def ndeval_topic(text: str) -> int:
    """ndeval's parseTopic: a natural number, or the number after a prefix's first '-' (``wt09-5``); -1 if none."""
    if text[:1].isdigit():
        return ndeval_number(text)
    cut = text.find("-")
    return ndeval_number(text[cut + 1:]) if cut >= 0 else -1


class _Lines(NamedTuple):
    topic: np.ndarray  # int64
    docs: list
    rank: np.ndarray  # int64
    score: np.ndarray | None  # float64 (traditional only)
    lineno: np.ndarray  # int64, 1-based
    runid: str


def read_ndeval_run(path: str, *, traditional: bool = False, depth: int | None = None) -> NdevalRun:
    """The run file at ``path``, checked, ordered and cut at ``depth`` as ndeval does."""
    name, content = read_source(path)
    text = decode(name, raw_bytes(name, content))
    lines = _parse(text, name, traditional)
    if traditional:  # score descending, then docno descending (ndeval's resultCompareByScore)
        by_doc = _text_rank(lines.docs)
        order = np.lexsort((-by_doc, -lines.score, lines.topic))
    else:
        order = np.lexsort((lines.rank, lines.topic))
        _refuse_repeats(name, lines, order, lines.rank[order], "rank")
    topic = lines.topic[order]
    start = np.r_[True, topic[1:] != topic[:-1]]
    pos = np.arange(len(order)) - np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))
    if depth is not None:
        order, pos = order[pos < depth], pos[pos < depth]
    docs = list(map(lines.docs.__getitem__, order.tolist()))
    values = (lines.score[order] if traditional else -(pos + 1.0)).tolist()
    topic = lines.topic[order]
    cuts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1], True]).tolist()
    run = {int(topic[a]): dict(zip(docs[a:b], values[a:b])) for a, b in zip(cuts[:-1], cuts[1:])}
    if sum(map(len, run.values())) < len(docs):  # a document twice within the depth: find its lines
        first: dict = {}  # each docno's code: the position of its first occurrence
        codes = np.fromiter(map(first.setdefault, lines.docs, range(len(lines.docs))), dtype=np.int64,
                            count=len(lines.docs))
        by_doc = order[np.lexsort((codes[order], lines.topic[order]))]
        _refuse_repeats(name, lines, by_doc, codes[by_doc], "document")
    return NdevalRun(lines.runid, run)


def _text_rank(docs: list) -> np.ndarray:
    """Each docno's rank among the distinct docnos in strcmp order (code points of UTF-8 text)."""
    rank = {d: i for i, d in enumerate(sorted(set(docs)))}
    return np.fromiter(map(rank.__getitem__, docs), dtype=np.int64, count=len(docs))


def _refuse_repeats(name: str, lines: _Lines, order: np.ndarray, key: np.ndarray, what: str) -> None:
    """FormatError at the later line of the first (topic, key) pair given twice (entries in ``order``)."""
    topic = lines.topic[order]
    same = np.flatnonzero((topic[1:] == topic[:-1]) & (key[1:] == key[:-1]))
    if not len(same):
        return
    a, b = order[same[0]], order[same[0] + 1]
    first, later = sorted((int(lines.lineno[a]), int(lines.lineno[b])))
    shown = int(lines.rank[a]) if what == "rank" else repr(lines.docs[a])
    raise FormatError(name, later, f"duplicate {what} {shown} for topic {int(topic[same[0]])} "
                      f"(first at line {first}; ndeval refuses it)")


def _parse(text: str, name: str, traditional: bool) -> _Lines:
    """The run's lines as columns; FormatError at the first line ndeval cannot read."""
    tokens = uniform_fields(text, 6)
    if tokens is None:  # a line with more or fewer fields, a blank line: line by line
        return _parse_lines(line_fields(text), name, traditional)
    cols = [tokens[i::6] for i in (0, 2, 3, 4)]
    del tokens
    topics = {t: ndeval_topic(t) for t in set(cols[0])}
    if min(topics.values()) < 0 or not all(r.isascii() and r.isdigit() and len(r) < 7 for r in set(cols[2])):
        return _parse_lines(line_fields(text), name, traditional)  # the error, with its line
    n = len(cols[1])
    ranks = {r: int(r) for r in set(cols[2])}
    rank = np.fromiter(map(ranks.__getitem__, cols[2]), dtype=np.int64, count=n)
    score = _scores(cols[3], name) if traditional else None
    return _Lines(np.fromiter(map(topics.__getitem__, cols[0]), dtype=np.int64, count=n), cols[1], rank, score,
                  np.arange(1, n + 1, dtype=np.int64), text.split("\n", 1)[0].split()[5])


def _parse_lines(fields: list, name: str, traditional: bool) -> _Lines:
    """The run's lines as columns, line by line; FormatError at the first line ndeval cannot read."""
    if not fields:
        raise FormatError(name, None, "the run file is empty (ndeval refuses it)")
    if not all(len(f) >= 6 for f in fields):
        bad = next(i for i, f in enumerate(fields) if len(f) < 6)
        raise FormatError(name, bad + 1, f"expected 6 fields 'topic Q0 docno rank score runid', found "
                          f"{len(fields[bad])}")
    topics = {t: ndeval_topic(t) for t in {f[0] for f in fields}}
    if min(topics.values()) < 0:
        bad = next(i for i, f in enumerate(fields) if topics[f[0]] < 0)
        raise FormatError(name, bad + 1, f"topic {fields[bad][0]!r} is not a number (ndeval reads numeric "
                          "topics, optionally after a prefix ending in '-', such as wt09-5)")
    ranks = [ndeval_number(f[3]) for f in fields]
    if min(ranks) < 0:
        bad = ranks.index(min(ranks))
        raise FormatError(name, bad + 1, f"rank {fields[bad][3]!r} is not a natural number")
    score = _scores([f[4] for f in fields], name) if traditional else None
    return _Lines(np.fromiter((topics[f[0]] for f in fields), dtype=np.int64, count=len(fields)),
                  [f[2] for f in fields], np.array(ranks, dtype=np.int64), score,
                  np.arange(1, len(fields) + 1, dtype=np.int64), fields[0][5])


def _scores(texts: list, name: str) -> np.ndarray:
    """The scores (-traditional orders by them): finite decimal numbers."""
    try:
        out = np.fromiter(map(float, texts), dtype=np.float64, count=len(texts))
    except ValueError:
        out = None
    if out is not None and np.isfinite(out).all():
        return out
    for i, text in enumerate(texts):
        try:
            ok = math.isfinite(float(text))
        except ValueError:
            ok = False
        if not ok:
            raise FormatError(name, i + 1, f"score {text!r} is not a finite number (-traditional orders by it)")
    return out  # not reached
