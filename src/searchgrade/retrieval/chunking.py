"""Chunking documents for RAG retrieval, content-hash chunk ids, and a BM25 index over chunks.

A RAG system does not retrieve documents but *chunks*: pieces of documents
cut by some rule. This module cuts a corpus ``{doc_id: {"title", "text"}}``
in three ways:

``paragraph``
    one chunk per document (a KorQuAD document is one paragraph);
``sentences``
    windows of ``size`` consecutive sentences, each window sharing
    ``overlap`` sentences with the next (stride ``size - overlap``);
``chars``
    windows of ``size`` characters with ``overlap`` characters shared.

With ``prefix_title=True`` every chunk's indexed text starts with the
document title and a newline (a common indexing improvement).

A chunk's id is a hash of its content, as chunk ids usually are:
``chunk_id = "c" + sha256(doc_id + "\\x00" + text)[:16]``. Changing the
boundaries, or only adding a title in front, changes every id, which is why
an evaluation set labelled with chunk ids cannot score another chunking while
one labelled with verbatim quotes can (:func:`chunk_qrels` builds the id
labels that such a set would hold).

:class:`ChunkIndex` is BM25 (:class:`searchgrade.retrieval.BM25Okapi`) over
the chunks with a Korean tokeniser (:mod:`searchgrade.retrieval.korean`). A chunk's
tokens are the tokens of its *pieces* (title, sentences) concatenated, and
each distinct piece is tokenised once, so two chunkings of one corpus share
the tokenising work; piece tokens are cached on disk under
``data/cache/tokens/`` (:mod:`.tokens`, shared with BM25 runs). :func:`interleave` merges several rankings (e.g. those
of a question's sub-questions) round-robin into one, dropping repeats.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "Chunk",
    "METHODS",
    "split_sentences",
    "chunk_id",
    "paragraph_chunks",
    "sentence_chunks",
    "char_chunks",
    "chunk_corpus",
    "chunk_qrels",
    "split_quotes",
    "ChunkIndex",
    "interleave",
]

METHODS = ("paragraph", "sentences", "chars")

# A sentence ends at . ! ? (or the Korean full stop 。), possibly followed by closing quotes or brackets,
# where whitespace follows: "57.6 kg" and "Inc.의" do not end a sentence.
_SENTENCE_END = re.compile(r"[.!?。][\"'”’」』)\]]*(?=\s)")


@dataclass(frozen=True)
class Chunk:
    """One chunk: content-hash id, source document, indexed text, character span in the document text, pieces."""

    chunk_id: str
    doc_id: str
    text: str
    start: int
    end: int
    pieces: tuple[str, ...]

    def as_dict(self) -> dict:
        """``{"chunk_id", "doc_id", "text"}``: the form :mod:`searchgrade.rag` scores."""
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "text": self.text}


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``: a sentence ends at . ! ? before whitespace.

    Whitespace between sentences belongs to no span; ``text[start:end]`` is
    the sentence without surrounding spaces. A text without a sentence end is
    one sentence; an empty or blank text has none.
    """
    if not isinstance(text, str):
        raise TypeError(f"split_sentences() needs a str, got {type(text).__name__}")
    spans = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((pos, m.end()))
        pos = m.end()
    spans.append((pos, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def chunk_id(doc_id: str, text: str) -> str:
    """Content-hash id of a chunk: ``"c" + sha256(doc_id + "\\x00" + text)[:16]``."""
    return "c" + hashlib.sha256(f"{doc_id}\x00{text}".encode("utf-8")).hexdigest()[:16]


def _docs(corpus) -> Mapping[str, Mapping[str, str]]:
    """The ``{doc_id: {"title", "text"}}`` mapping of a corpus or collection, checked."""
    corpus = corpus.corpus if hasattr(corpus, "corpus") else corpus
    if not isinstance(corpus, Mapping):
        raise TypeError(f"corpus must be a mapping of document id to document, got {type(corpus).__name__}")
    for doc_id, doc in corpus.items():
        if not isinstance(doc, Mapping) or not isinstance(doc.get("text"), str):
            raise TypeError(f"corpus document {doc_id!r} must be a mapping with a 'text' str")
    return corpus


def _make(doc_id: str, doc: Mapping[str, str], start: int, end: int, pieces: list[str],
          prefix_title: bool) -> Chunk:
    """A chunk of ``doc['text'][start:end]``, with the title in front when asked."""
    body = doc["text"][start:end]
    title = doc.get("title") or ""
    if prefix_title and title:
        text, pieces = f"{title}\n{body}", [title, *pieces]
    else:
        text = body
    return Chunk(chunk_id(doc_id, text), doc_id, text, start, end, tuple(pieces))


def paragraph_chunks(corpus, prefix_title: bool = False) -> list[Chunk]:
    """One chunk per document (its whole text); pieces are the document's sentences."""
    out = []
    for doc_id, doc in _docs(corpus).items():
        text = doc["text"]
        spans = split_sentences(text)
        if not spans:
            continue
        out.append(_make(doc_id, doc, spans[0][0], spans[-1][1], [text[s:e] for s, e in spans], prefix_title))
    return out


def _window_starts(n: int, size: int, overlap: int) -> list[int]:
    """Starts of windows of ``size`` items with stride ``size - overlap`` covering ``n`` items, none redundant."""
    stride = size - overlap
    starts = [0]
    while starts[-1] + size < n:
        starts.append(starts[-1] + stride)
    return starts


def _check_window(size: int, overlap: int, what: str) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"{what} window size must be a positive integer, got {size!r}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < size:
        raise ValueError(f"{what} overlap must be an integer in 0..size-1 ({size - 1}), got {overlap!r}")


def sentence_chunks(corpus, size: int = 3, overlap: int = 1, prefix_title: bool = False) -> list[Chunk]:
    """Windows of ``size`` sentences, stride ``size - overlap``; any ``overlap + 1`` consecutive sentences share a window."""
    _check_window(size, overlap, "sentence")
    out = []
    for doc_id, doc in _docs(corpus).items():
        text = doc["text"]
        spans = split_sentences(text)
        if not spans:
            continue
        for s in _window_starts(len(spans), size, overlap):
            window = spans[s:s + size]
            out.append(_make(doc_id, doc, window[0][0], window[-1][1], [text[a:b] for a, b in window],
                             prefix_title))
    return out


def char_chunks(corpus, size: int = 200, overlap: int = 50, prefix_title: bool = False) -> list[Chunk]:
    """Windows of ``size`` characters, stride ``size - overlap``, cut anywhere (even inside a word)."""
    _check_window(size, overlap, "character")
    out = []
    for doc_id, doc in _docs(corpus).items():
        text = doc["text"]
        if not text.strip():
            continue
        for s in _window_starts(len(text), size, overlap):
            e = min(s + size, len(text))
            out.append(_make(doc_id, doc, s, e, [text[s:e]], prefix_title))
    return out


def chunk_corpus(corpus, method: str = "paragraph", prefix_title: bool = False, **params) -> list[Chunk]:
    """Chunks of a corpus by ``method`` (``paragraph``, ``sentences``, ``chars``) and its parameters, in corpus order."""
    makers = {"paragraph": paragraph_chunks, "sentences": sentence_chunks, "chars": char_chunks}
    if method not in makers:
        raise ValueError(f"unknown chunking method {method!r}; known: {', '.join(METHODS)}")
    return makers[method](corpus, prefix_title=prefix_title, **params)


def _quote_holders(items: Sequence[Mapping], chunks: Sequence[Chunk]):
    """For each item and evidence quote: the ids of the chunks of its documents that contain it."""
    from ..rag import gold, normalise

    by_doc: dict[str, list[tuple[str, str]]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append((c.chunk_id, normalise(c.text)))
    for it in items:
        for i, (q, allowed) in enumerate(gold(it).quotes):
            holders = [cid for d in sorted(allowed) for cid, t in by_doc.get(d, []) if q in t]
            yield it, i, holders


def chunk_qrels(items: Sequence[Mapping], chunks: Sequence[Chunk]) -> dict[str, dict[str, int]]:
    """Chunk-id labels ``{item_id: {chunk_id: 1}}``: the chunks that contain an evidence quote of their own document."""
    qrels: dict[str, dict[str, int]] = {it["id"]: {} for it in items}
    for it, _, holders in _quote_holders(items, chunks):
        for cid in holders:
            qrels[it["id"]][cid] = 1
    return qrels


def split_quotes(items: Sequence[Mapping], chunks: Sequence[Chunk]) -> list[tuple[str, int]]:
    """``(item_id, evidence index)`` of every quote that no single chunk of its documents holds whole."""
    return [(it["id"], i) for it, i, holders in _quote_holders(items, chunks) if not holders]


# ---------------------------------------------------------------------------
# BM25 over chunks


class ChunkIndex:
    """BM25 (rank_bm25's Okapi variant) over chunks with a Korean tokeniser; searches return :class:`Chunk` lists."""

    def __init__(self, chunks: Sequence[Chunk], tokeniser: str = "ko-kiwi", k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, cache: bool = True, progress: bool = False):
        from .korean import get_tokeniser
        from .sparse import BM25Okapi
        from .tokens import tokenise

        self.chunks = list(chunks)
        if not self.chunks:
            raise ValueError("cannot index an empty list of chunks")
        ids = [c.chunk_id for c in self.chunks]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"chunk id {dup!r} occurs more than once; chunk ids must be unique")
        self.tokeniser = get_tokeniser(tokeniser)
        pieces = sorted({p for c in self.chunks for p in c.pieces})
        tokens = tokenise(self.tokeniser, pieces, cache, progress, desc=f"{self.tokeniser.name} pieces")
        table = dict(zip(pieces, tokens))
        self.chunk_tokens = [[t for p in c.pieces for t in table[p]] for c in self.chunks]
        self.bm25 = BM25Okapi(self.chunk_tokens, k1=k1, b=b, epsilon=epsilon)
        self.by_id = {c.chunk_id: c for c in self.chunks}

    def __len__(self) -> int:
        """Number of chunks."""
        return len(self.chunks)

    def search(self, query: str, k: int = 10) -> list[Chunk]:
        """The k best chunks sharing a term with the query (score descending, then chunk position)."""
        idx, _ = self.bm25.top_k(self.tokeniser(query), k)
        return [self.chunks[i] for i in idx]

    def scored(self, query: str, k: int = 10) -> list[tuple[Chunk, float]]:
        """Like :meth:`search`, with each chunk's BM25 score."""
        idx, scores = self.bm25.top_k(self.tokeniser(query), k)
        return [(self.chunks[i], float(s)) for i, s in zip(idx, scores)]

    def run(self, queries: Mapping[str, str], k: int = 10) -> dict[str, dict[str, float]]:
        """A run ``{qid: {chunk_id: score}}`` for :func:`searchgrade.evaluate`."""
        return {q: {c.chunk_id: s for c, s in self.scored(text, k)} for q, text in queries.items()}


def interleave(rankings: Sequence[Sequence[Chunk]], k: int | None = None) -> list[Chunk]:
    """Round-robin merge of rankings (rank 1 of each, then rank 2 of each, ...), repeats dropped, cut at ``k``.

    The order of ``rankings`` breaks ties within a round: with the original
    question's ranking first, its chunk leads every round.
    """
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    seen: set[str] = set()
    out: list[Chunk] = []
    depth = max((len(r) for r in rankings), default=0)
    for r in range(depth):
        for ranking in rankings:
            if r < len(ranking) and ranking[r].chunk_id not in seen:
                seen.add(ranking[r].chunk_id)
                out.append(ranking[r])
                if k is not None and len(out) == k:
                    return out
    return out
