"""Docnos as ndeval compares them (bytes, strcmp): 64-bit keys, the judged lookup, repeats within a topic.

A block of a run holds its docnos as a numpy bytes array (``S`` dtype: UTF-8, NUL-padded to a
multiple of 8 bytes; a docno holds no NUL, the reader refuses one).  Each docno gets a 64-bit key
folded from its 8-byte words (padding words left out, so that the key does not depend on the
padding); keys only propose: two rows are the same docno when their bytes are equal, checked for
every proposal, so a collision of keys never merges two docnos.
"""
from __future__ import annotations

import numpy as np

from ...measures.subtopics import SubtopicIndex

__all__ = ["as_doc_bytes", "doc_keys", "JudgedDocs", "first_repeat"]

_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd constants: the fold of a docno's words, and a topic's share of a key
_TOPIC = np.uint64(0xC2B2AE3D27D4EB4F)


def as_doc_bytes(docs: list) -> np.ndarray:
    """Docnos (str) as the bytes array a block holds (UTF-8, NUL-padded to a multiple of 8 bytes)."""
    encoded = [d.encode("utf-8", "surrogatepass") for d in docs]
    width = (max(map(len, encoded), default=0) // 8 + 1) * 8
    return np.array(encoded, dtype=f"S{width}")


def doc_keys(docs: np.ndarray) -> np.ndarray:
    """One 64-bit key per docno of a bytes array (itemsize a multiple of 8), whatever its padding."""
    words = docs.view(np.uint64).reshape(len(docs), -1)
    key = words[:, 0].copy()
    for j in range(1, words.shape[1]):
        word = words[:, j]
        np.copyto(key, (key ^ word) * _MIX, where=word != 0)
    return key


def _pair_keys(topic: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """A key per (topic, docno) pair."""
    return keys ^ (topic.astype(np.uint64) * _TOPIC)


class JudgedDocs:
    """The judged (topic, docno) pairs of subtopic qrels, found by key: :meth:`numbers` gives each run line's
    document number in the :class:`~searchgrade.measures.subtopics.SubtopicIndex` (-1: not judged)."""

    def __init__(self, index: SubtopicIndex):
        self.index = index
        self.topic = np.asarray(index.qids, dtype=np.int64)[np.asarray(index.doc_query, dtype=np.int64)] \
            if index.n_docs else np.zeros(0, np.int64)
        self.docs = as_doc_bytes(index.doc_ids)
        keys = _pair_keys(self.topic, doc_keys(self.docs))
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]
        unique = len(keys) < 2 or bool((self.keys[1:] != self.keys[:-1]).all())
        self.by_text = None if unique else {(t, d): i for i, (t, d) in
                                            enumerate(zip(self.topic.tolist(), self.docs.tolist()))}
        # a bit per slot of a hash of the keys: most documents of a run are not judged, and one look at the
        # bits (a few MB at most) passes on only the few that may be, to the binary search
        bits = min(max(16, (64 * len(keys)).bit_length()), 24)
        self.shift = np.uint64(64 - bits)
        self.bits = np.zeros(1 << bits, dtype=bool)
        self.bits[self._slots(keys)] = True

    def _slots(self, pair: np.ndarray) -> np.ndarray:
        """The slot of each pair key in :attr:`bits`."""
        return ((pair * _MIX) >> self.shift).astype(np.intp)

    def numbers(self, topic: np.ndarray, docs: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """The document number of each (topic, docno) of a block (``keys``: :func:`doc_keys` of docs); -1 where
        the pair is not judged."""
        out = np.full(len(docs), -1, dtype=np.int64)
        if not len(self.keys) or not len(docs):
            return out
        if self.by_text is not None:  # two judged pairs share a key (never seen): look each row up by its text
            got = map(self.by_text.get, zip(topic.tolist(), docs.tolist()), [-1] * len(docs))
            return np.fromiter(got, dtype=np.int64, count=len(docs))
        maybe = np.flatnonzero(self.bits[self._slots(_pair_keys(topic, keys))])
        pair = _pair_keys(topic[maybe], keys[maybe])
        at = np.minimum(np.searchsorted(self.keys, pair), len(self.keys) - 1)
        found = self.keys[at] == pair
        hit, number = maybe[found], self.order[at[found]]
        same = (self.topic[number] == topic[hit]) & (self.docs[number] == docs[hit])
        out[hit[same]] = number[same]
        return out


def first_repeat(group: np.ndarray, docs: np.ndarray, keys: np.ndarray) -> tuple[int, int] | None:
    """The rows (earlier, later) of a docno given twice in one group (the smallest group that has one; in it the
    docno first in strcmp order), or None.  ``group``: each row's (its topic); ``keys``: :func:`doc_keys` of docs."""
    mixed = np.sort(_pair_keys(group, keys))
    if len(mixed) < 2 or not (mixed[1:] == mixed[:-1]).any():
        return None
    twice = mixed[1:][mixed[1:] == mixed[:-1]]
    rows = np.flatnonzero(np.isin(_pair_keys(group, keys), twice))  # rows whose key comes twice: check their bytes
    seen: dict = {}
    found = []
    for row, g, d in zip(rows.tolist(), group[rows].tolist(), docs[rows].tolist()):
        if (g, d) in seen:
            found.append((g, d, seen[(g, d)], row))
        else:
            seen[(g, d)] = row
    return min(found)[2:] if found else None
