"""ndeval's run files, read a block at a time: each topic ordered, checked and cut as ndeval does (:class:`RunReader`).

ndeval orders each topic by rank (``-traditional``: by score descending, then docno descending),
refuses a rank given twice, keeps the first ``-M`` documents and then refuses a document given
twice.  What it reads line by line (:mod:`.lines`: fields, topic, rank; and the scores searchgrade
refuses) stops the reading at the first bad line.  The duplicates ndeval finds after reading the
whole file, so they are raised once it is read: a duplicate rank before a duplicate document, each
in the first topic (by number) that has one.  Every refusal is a :class:`~searchgrade.io.FormatError`
naming the file and line.

The file is read in pieces of about :data:`BLOCK_BYTES` (:func:`searchgrade.io.sources.open_source`:
a path, gzip, ``"-"``), each split into columns (:mod:`.lines`), gathered into blocks of
:data:`BLOCK_LINES` lines.  Run files are grouped by topic (ndeval's own, trec_eval's, Anserini's):
a topic is complete once a line of another topic follows it, so each block's complete topics are
ordered, checked, cut and handed on as a :class:`TopicBlock` (only the judged documents' positions
and numbers), and the last topic waits for the next block; the memory held is a block of lines and
the longest topic.  A file whose topic comes back after another topic is not grouped:
:meth:`RunReader.blocks` raises :class:`Ungrouped` and ``blocks(grouped=False)`` reads it again
whole, its lines grouped by topic (holding the whole file's columns, as ndeval holds its lines).
"""
from __future__ import annotations

from typing import Iterator, NamedTuple

import numpy as np

from ...io.errors import FormatError
from ...io.sources import open_source
from .docs import JudgedDocs, doc_keys, first_repeat
from .lines import RunLines, first_fields, run_lines

__all__ = ["RunReader", "TopicBlock", "Ungrouped", "BLOCK_BYTES", "BLOCK_LINES"]

# Bytes of the file split into columns at a time (cut at a line end): splitting takes several times as much
# memory for a moment.  The columns (about 40 bytes a line) are then gathered into blocks of at least
# BLOCK_LINES lines before their topics are ordered and scored (each block costs every kernel a call).
# Measured on benchmarks/bench_ndeval.py's 2M lines: 2**16 lines and 1 MiB took the least memory (71 MB, the
# qrels' reading about as much) at the same CPU time as larger blocks (2**18 lines and 4 MiB: 124 MB).
BLOCK_BYTES = 1 << 20
BLOCK_LINES = 1 << 16
_RANK_SPAN = 1 << 21  # above every rank ndeval reads (at most 1,000,009): a (topic, rank) key is one int64


class Ungrouped(Exception):
    """The run's lines are not grouped by topic (a topic comes back after another one)."""


class TopicBlock(NamedTuple):
    """Complete topics of a run, ordered and cut as ndeval does: what the diversity measures need of them."""

    topics: np.ndarray  # int64: the topics, each once, in file order
    lengths: np.ndarray  # documents each topic keeps (after -M)
    seg: np.ndarray  # judged documents: the index of each one's topic in topics
    pos: np.ndarray  # its 1-based position in ndeval's order of the topic
    doc: np.ndarray  # its document number in the subtopic index


class RunReader:
    """A run file as ndeval reads it: ``runid`` (its first line's) and :meth:`blocks`, the complete topics."""

    def __init__(self, source, judged: JudgedDocs, *, traditional: bool = False, depth: int | None = None):
        self.opened = open_source(source)
        self.name, self.judged = self.opened.name, judged
        self.traditional, self.depth = traditional, depth
        self.runid = ""
        self._errors: dict = {}

    def close(self) -> None:
        """Close what was opened to read the source (a pipe named by its path)."""
        self.opened.close()

    def blocks(self, grouped: bool = True) -> Iterator[TopicBlock]:
        """The run's topics a block at a time (grouped: as they come, raising Ungrouped where a topic comes back;
        else the whole file grouped first); FormatError at the first bad line, or for a duplicate at the end."""
        self._errors = {}
        parts = self._parts()
        yield from (self._stream(parts) if grouped else self._whole(parts))
        for what in ("rank", "document"):
            if what in self._errors:
                raise self._errors[what][1]

    def _parts(self) -> Iterator[RunLines]:
        """The file's blocks as columns (the run id read from the first line); FormatError if it is empty."""
        line = 1
        for raw in self.opened.blocks(BLOCK_BYTES):
            if not raw:
                continue
            if isinstance(raw, str):  # text that is no UTF-8 (lone surrogates): as bytes, for the line reader
                raw = raw.encode("utf-8", "surrogatepass")
            part = run_lines(raw, self.name, line, self.traditional)
            if line == 1 and len(part.topic):
                self.runid = first_fields(raw)[5]
            line += len(part.topic)
            if len(part.topic):
                yield part
        if line == 1:
            raise FormatError(self.name, None, "the run file is empty (ndeval refuses it)")

    def _stream(self, parts: Iterator[RunLines]) -> Iterator[TopicBlock]:
        """Grouped lines: each block's complete topics as they come; Ungrouped where a topic comes back."""
        carry: list = []  # the lines of the last topic so far, which the next lines may go on
        done: set = set()
        for batch in _batches(parts):
            if carry and all(bool((p.topic == carry[0].topic[0]).all()) for p in batch):
                carry += batch  # a topic longer than a block: joined once, when it ends
                continue
            lines = _joined(*carry, *batch)
            heads = _heads(lines.topic)
            topics = lines.topic[heads].tolist()
            if len(set(topics)) != len(topics) or not done.isdisjoint(topics):
                raise Ungrouped(self.name)
            done.update(topics[:-1])
            if heads[-1]:
                yield from self._block(_rows(lines, slice(0, heads[-1])))
            carry = [_rows(lines, slice(heads[-1], None))]
        if carry:
            yield from self._block(_joined(*carry))

    def _whole(self, parts: Iterator[RunLines]) -> Iterator[TopicBlock]:
        """Any lines: the whole file's, grouped by topic (lines of a topic in file order), a block at a time."""
        lines = _joined(*parts)
        lines = _rows(lines, np.argsort(lines.topic, kind="stable"))
        heads = np.append(_heads(lines.topic), len(lines.topic))
        start = 0
        while start < len(lines.topic):
            end = heads[min(np.searchsorted(heads, start + BLOCK_LINES), len(heads) - 1)]
            yield from self._block(_rows(lines, slice(start, end)))
            start = end

    def _block(self, lines: RunLines) -> Iterator[TopicBlock]:
        """Complete topics ordered, checked and cut; their judged documents looked up (nothing if one is refused)."""
        heads = _heads(lines.topic)
        sizes = np.diff(np.append(heads, len(lines.topic)))
        group = np.repeat(np.arange(len(heads)), sizes)
        order = self._order(lines, group)
        if order is None:  # a duplicate rank (recorded): nothing of this block is scored
            return
        pos = np.arange(1, len(order) + 1) - np.repeat(heads, sizes)
        if self.depth is not None:
            order, pos = order[pos <= self.depth], pos[pos <= self.depth]
        topic, docs = lines.topic[order], lines.docs[order]
        keys = doc_keys(docs)
        twice = first_repeat(topic, docs, keys)
        if twice is not None:
            self._refuse("document", lines, order[list(twice)], docs[twice[0]].decode("utf-8", "replace"))
            return
        number = self.judged.numbers(topic, docs, keys)
        hit = np.flatnonzero(number >= 0)
        kept = group[order]
        yield TopicBlock(lines.topic[heads], np.bincount(kept, minlength=len(heads)), kept[hit], pos[hit],
                         number[hit])

    def _order(self, lines: RunLines, group: np.ndarray) -> np.ndarray | None:
        """The rows in ndeval's order (topics as they come); None after recording a duplicate rank."""
        if self.traditional:
            return _by_score(lines, group)
        key = group * _RANK_SPAN + lines.rank
        if len(key) < 2 or bool((key[1:] > key[:-1]).all()):
            return np.arange(len(key))
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        if not len(same):
            return order
        first = min(same.tolist(), key=lambda i: (lines.topic[order[i]], lines.rank[order[i]]))
        self._refuse("rank", lines, order[[first, first + 1]], int(lines.rank[order[first]]))
        return None

    def _refuse(self, what: str, lines: RunLines, rows: np.ndarray, shown) -> None:
        """Record a duplicate (rows: its two lines), keeping the first topic's (ndeval reports that one)."""
        topic = int(lines.topic[rows[0]])
        first, later = sorted(lines.line[rows].tolist())
        key = (topic, shown)
        if what in self._errors and self._errors[what][0] <= key:
            return
        text = shown if what == "rank" else repr(shown)
        self._errors[what] = (key, FormatError(self.name, later, f"duplicate {what} {text} for topic {topic} "
                                               f"(first at line {first}; ndeval refuses it)"))


def _by_score(lines: RunLines, group: np.ndarray) -> np.ndarray:
    """-traditional's order: topics as they come, each by score descending, then docno descending (strcmp)."""
    down = -lines.score
    order = np.lexsort((down, group))
    tied = (group[order][1:] == group[order][:-1]) & (down[order][1:] == down[order][:-1])
    if tied.any():  # docnos decide between equal scores: their order as bytes, strcmp's
        text_rank = np.empty(len(order), dtype=np.int64)
        text_rank[np.argsort(lines.docs, kind="stable")] = np.arange(len(order))
        order = np.lexsort((-text_rank, down, group))
    return order


def _batches(parts: Iterator[RunLines]) -> Iterator[list]:
    """The parts in lists of at least BLOCK_LINES lines (the last may have fewer)."""
    batch, lines = [], 0
    for part in parts:
        batch.append(part)
        lines += len(part.topic)
        if lines >= BLOCK_LINES:
            yield batch
            batch, lines = [], 0
    if batch:
        yield batch


def _heads(topic: np.ndarray) -> np.ndarray:
    """The first row of each run of equal topics."""
    return np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])


def _rows(lines: RunLines, which) -> RunLines:
    """Some rows of the columns (a slice or an index array)."""
    return RunLines(*(None if col is None else col[which] for col in lines))


def _joined(*parts: RunLines) -> RunLines:
    """Blocks of columns one after another (docnos padded to the widest)."""
    if len(parts) == 1:
        return parts[0]
    width = max(p.docs.dtype.itemsize for p in parts)
    cols = [np.concatenate([getattr(p, f) for p in parts]) if getattr(parts[0], f) is not None else None
            for f in RunLines._fields if f != "docs"]
    docs = np.concatenate([p.docs.astype(f"S{width}") for p in parts])
    return RunLines(cols[0], docs, *cols[1:])
