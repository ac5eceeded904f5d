"""Dense retrieval: searching a corpus with an encoder, and the second-stage scorers (bi- and cross-encoders).

The encoders themselves (:class:`Encoder`, ``e5``, ``use``, ``minilm``, any sentence-transformers
model) and their on-disk embedding cache live in :mod:`.encoders`; every name of that module is
available here too (``dense.get_encoder``, ``dense.Encoder``, ...)::

    index = DenseIndex("e5", collection.corpus)          # documents embedded once (cached on disk)
    run = index.search(collection.queries, k=100)        # {qid: {docid: cosine}}
    score = index.scorer(collection.queries)             # (qid, docids) -> cosines, for rerank.rerank

:class:`CrossEncoderScorer` scores (query, document) pairs with a sentence-transformers
``CrossEncoder`` for a second stage (:func:`searchgrade.retrieval.rerank.rerank`).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from .encoders import (
    ENCODERS,
    ENCODING_VERSION,
    E5Encoder,
    Encoder,
    SentenceTransformerEncoder,
    USEEncoder,
    get_encoder,
    l2_normalise,
    load_sentence_transformers,
    minilm_path,
    model_fingerprint,
    package_version,
)

__all__ = [
    "Encoder",
    "E5Encoder",
    "USEEncoder",
    "SentenceTransformerEncoder",
    "ENCODING_VERSION",
    "CrossEncoderScorer",
    "ENCODERS",
    "get_encoder",
    "minilm_path",
    "DenseIndex",
    "dense_search",
    "doc_text",
    "doc_texts",
    "l2_normalise",
    "top_k_rows",
]

# the names these had before the encoders moved to their own module
_version, _model_fingerprint = package_version, model_fingerprint


class CrossEncoderScorer:
    """A sentence-transformers ``CrossEncoder`` (name or folder) that scores (query, document) pairs for a second stage."""

    def __init__(self, model: str | os.PathLike, batch_size: int = 32, max_length: int | None = None,
                 device: str = "cpu", name: str | None = None):
        self.model_name = str(model)
        self.batch_size, self.max_length, self.device = batch_size, max_length, device
        self.name = name or Path(self.model_name).name or self.model_name
        self._model = None

    @property
    def model(self):
        """The CrossEncoder, loaded on first use (offline unless HF_HUB_OFFLINE=0)."""
        if self._model is None:
            self._model = load_sentence_transformers("CrossEncoder", "cross-encoder", self.model_name,
                                                      device=self.device, max_length=self.max_length)
        return self._model

    def settings(self) -> dict:
        """Model fingerprint, maximum length and library versions."""
        return {"scorer": "cross-encoder", "model": self.model_name, "fingerprint": model_fingerprint(self.model_name),
                "max_length": self.max_length, "sentence-transformers": package_version("sentence-transformers")}

    def score(self, query: str, documents: Sequence[str]) -> np.ndarray:
        """Relevance score of each document for the query (higher is better)."""
        if not documents:
            return np.zeros(0)
        pairs = [(query, d) for d in documents]
        return np.asarray(self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False), dtype=np.float64)

    def scorer(self, queries: Mapping[str, str], corpus: Mapping[str, Mapping[str, str]],
               fields: Sequence[str] = ("title", "text")) -> Callable[[str, Sequence[str]], np.ndarray]:
        """A ``(qid, docids) -> scores`` function for :func:`searchgrade.retrieval.rerank.rerank`."""
        def score(qid: str, docids: Sequence[str]) -> np.ndarray:
            return self.score(queries[qid], [doc_text(corpus[d], fields) for d in docids])
        return score




# ---------------------------------------------------------------------------
# Searching


def doc_text(doc: Mapping[str, str], fields: Sequence[str] = ("title", "text")) -> str:
    """The text a retriever sees for one document: the non-empty ``fields`` joined by a newline."""
    return "\n".join(doc.get(f, "") for f in fields if doc.get(f, ""))


def doc_texts(corpus: Mapping[str, Mapping[str, str]], fields: Sequence[str] = ("title", "text")) -> list[str]:
    """:func:`doc_text` of every document, in corpus order."""
    return [doc_text(corpus[d], fields) for d in corpus]


def top_k_rows(scores: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each row of a (queries x documents) score matrix: the k best column indices and scores.

    Order: score descending, then column ascending (deterministic under ties).
    """
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    out = []
    n = scores.shape[1]
    k = min(k, n)
    for row in scores:
        cand = np.argpartition(-row, k - 1)[:k] if k < n else np.arange(n)
        # keep every column tied with the k-th score, so the tie order is by column, not by argpartition
        kth = row[cand].min()
        cand = np.flatnonzero(row >= kth)
        order = np.lexsort((cand, -row[cand]))[:k]
        out.append((cand[order], row[cand[order]]))
    return out


class DenseIndex:
    """Document embeddings of a corpus, searchable with query texts; also a second-stage scorer."""

    def __init__(self, encoder: str | Encoder, corpus: Mapping[str, Mapping[str, str]],
                 fields: Sequence[str] = ("title", "text"), progress: bool = True,
                 cache: bool | str | os.PathLike = True):
        if not corpus:
            raise ValueError("cannot build a dense index over an empty corpus")
        self.encoder = get_encoder(encoder)
        self.docids = list(corpus)
        self.position = {d: i for i, d in enumerate(self.docids)}
        self.fields = tuple(fields)
        self.cache, self.progress = cache, progress
        self.embeddings = self.encoder.encode_documents(doc_texts(corpus, fields), progress=progress, cache=cache)

    def encode_queries(self, queries: Mapping[str, str]) -> np.ndarray:
        """Query embeddings in the order of ``queries``."""
        return self.encoder.encode_queries(list(queries.values()), progress=self.progress, cache=self.cache)

    def search(self, queries: Mapping[str, str], k: int = 100) -> dict[str, dict[str, float]]:
        """Top-k run by cosine similarity ``{qid: {docid: score}}``."""
        qids = list(queries)
        Q = self.encode_queries(queries)
        run: dict[str, dict[str, float]] = {}
        for start in range(0, len(qids), 1024):
            scores = Q[start:start + 1024] @ self.embeddings.T
            for qid, (idx, vals) in zip(qids[start:start + 1024], top_k_rows(scores, k)):
                run[qid] = {self.docids[i]: float(v) for i, v in zip(idx, vals)}
        return run

    def scorer(self, queries: Mapping[str, str]) -> Callable[[str, Sequence[str]], np.ndarray]:
        """A ``(qid, docids) -> cosine scores`` function for :func:`searchgrade.retrieval.rerank.rerank`."""
        qids = list(queries)
        Q = self.encode_queries(queries)
        row = {q: i for i, q in enumerate(qids)}

        def score(qid: str, docids: Sequence[str]) -> np.ndarray:
            try:
                idx = [self.position[d] for d in docids]
            except KeyError as err:
                raise KeyError(f"document {err.args[0]!r} is not in the indexed corpus") from None
            return (self.embeddings[idx] @ Q[row[qid]]).astype(np.float64)
        return score


def dense_search(encoder: str | Encoder, collection, queries: Mapping[str, str] | None = None, k: int = 100,
                 fields: Sequence[str] = ("title", "text"), progress: bool = True) -> dict[str, dict[str, float]]:
    """Encode a collection's corpus and queries and return the top-k cosine run."""
    corpus = collection.corpus if hasattr(collection, "corpus") else collection
    if queries is None:
        queries = collection.queries
    return DenseIndex(encoder, corpus, fields, progress).search(queries, k)
