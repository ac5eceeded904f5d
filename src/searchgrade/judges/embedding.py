"""The embedding judge (cosine similarity against thresholds) and how to choose a threshold."""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from .base import Judge, Pair


def _check_threshold(value, name: str, low: float = -1.0, high: float = 1.0) -> float:
    """A finite real threshold inside [low, high], or a clear error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {value!r}")
    value = float(value)
    if not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} = {value!r} is outside [{low:g}, {high:g}], the range of a cosine similarity")
    return value


class EmbeddingJudge(Judge):
    """Embedding similarity: 2 if cos(q, d) >= threshold, 1 if >= related_threshold (when given), else 0.

    Question and document embeddings come from an encoder of
    :mod:`searchgrade.retrieval.dense` (L2-normalised, so the dot product is the cosine);
    the document is its ``fields`` joined by a newline, the question its text,
    exactly as the dense retrievers embed them, so the on-disk embedding cache
    is shared with the runs. Embeddings are computed on first use.
    """

    def __init__(self, encoder, queries: Mapping[str, str], corpus: Mapping[str, Mapping[str, str]],
                 threshold: float, related_threshold: float | None = None,
                 fields: Sequence[str] = ("title", "text"), progress: bool = False):
        from ..retrieval import dense

        self.encoder = dense.get_encoder(encoder)
        self.name = f"embedding-{self.encoder.name}"
        super().__init__(queries, corpus)
        self.threshold = _check_threshold(threshold, "threshold")
        self.related_threshold = None
        if related_threshold is not None:
            self.related_threshold = _check_threshold(related_threshold, "related_threshold", high=self.threshold)
        self.fields, self.progress = tuple(fields), progress
        self._shared: dict = {}

    def _embeddings(self):
        """(document index, query matrix, query row of each qid), computed once and shared by copies."""
        if "index" not in self._shared:
            from ..retrieval import dense

            index = dense.DenseIndex(self.encoder, self.corpus, self.fields, progress=self.progress)
            self._shared["index"] = index
            self._shared["Q"] = index.encode_queries(self.queries)
            self._shared["row"] = {q: i for i, q in enumerate(self.queries)}
        return self._shared["index"], self._shared["Q"], self._shared["row"]

    def similarity(self, pairs: Iterable[Pair]) -> np.ndarray:
        """Cosine similarity of each (qid, docid) pair's embeddings."""
        qids, docids = self._check_pairs(pairs)
        if not qids:
            return np.zeros(0)
        index, Q, row = self._embeddings()
        D = index.embeddings[[index.position[d] for d in docids]]
        return np.einsum("ij,ij->i", D, Q[[row[q] for q in qids]]).astype(np.float64)

    def with_threshold(self, threshold: float, related_threshold: float | None = None) -> "EmbeddingJudge":
        """The same judge (sharing its embeddings) with other thresholds."""
        other = EmbeddingJudge.__new__(EmbeddingJudge)
        other.__dict__.update(self.__dict__)
        other.threshold = _check_threshold(threshold, "threshold")
        other.related_threshold = None
        if related_threshold is not None:
            other.related_threshold = _check_threshold(related_threshold, "related_threshold", high=other.threshold)
        return other

    def _grades(self, qids, docids):
        """2 above the threshold, 1 above the related threshold, else 0."""
        sim = self.similarity(list(zip(qids, docids)))
        grades = np.where(sim >= self.threshold, 2, 0)
        if self.related_threshold is not None:
            grades = np.where((grades == 0) & (sim >= self.related_threshold), 1, grades)
        return grades

    def __repr__(self) -> str:
        """Name, thresholds and size."""
        rel = "" if self.related_threshold is None else f", related >= {self.related_threshold:.4f}"
        return (f"<EmbeddingJudge {self.name}: answer >= {self.threshold:.4f}{rel}; {len(self.queries)} questions, "
                f"{len(self.corpus)} documents>")


def _finite_scores(values, name: str) -> np.ndarray:
    """A non-empty 1-d array of finite floats, or a clear error."""
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty: a threshold cannot be chosen from no examples")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(arr)).sum())} non-finite values")
    return arr


def choose_threshold(positive, negative) -> float:
    """The score cut that best separates positive from negative examples: argmax_t (TPR(t) + TNR(t)) / 2.

    A score s is called positive when s >= t. Candidates are the midpoints between
    consecutive distinct scores (plus one below and one above all of them); on a tie
    the lowest candidate wins. Balanced accuracy, so unequal class sizes do not pull
    the cut. Typical use: known relevant pairs vs random pairs ("easy tests").
    """
    pos, neg = _finite_scores(positive, "positive"), _finite_scores(negative, "negative")
    values = np.unique(np.concatenate([pos, neg]))
    cands = np.concatenate([[values[0] - 1e-9], (values[1:] + values[:-1]) / 2, [values[-1] + 1e-9]])
    pos_sorted, neg_sorted = np.sort(pos), np.sort(neg)
    tpr = 1.0 - np.searchsorted(pos_sorted, cands, side="left") / pos.size
    tnr = np.searchsorted(neg_sorted, cands, side="left") / neg.size
    return float(cands[int(np.argmax((tpr + tnr) / 2))])
