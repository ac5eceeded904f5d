"""Judges by name: :data:`JUDGES` and :func:`make_judge` over a collection."""
from __future__ import annotations

from collections.abc import Sequence

from .answer import AnswerJudge
from .base import Judge
from .embedding import EmbeddingJudge


def _answer_judge(collection, fields: Sequence[str] = ("title", "text")) -> AnswerJudge:
    """An :class:`AnswerJudge` over a collection that keeps answer texts in ``meta["answers"]``."""
    answers = getattr(collection, "meta", {}).get("answers")
    if not answers:
        raise ValueError(f"collection {getattr(collection, 'name', '?')!r} keeps no answer texts (meta['answers']); "
                         f"the answer judge needs them (KorQuAD has them)")
    return AnswerJudge(answers, collection.corpus, fields)


def _embedding_judge(collection, encoder="e5", threshold: float | None = None,
                     related_threshold: float | None = None, fields: Sequence[str] = ("title", "text"),
                     progress: bool = False) -> EmbeddingJudge:
    """An :class:`EmbeddingJudge` over a collection's questions and documents."""
    if threshold is None:
        raise ValueError("the embedding judge needs a threshold (cosine in [-1, 1]); choose one with "
                         "choose_threshold on easy pairs")
    return EmbeddingJudge(encoder, collection.queries, collection.corpus, threshold, related_threshold, fields,
                          progress)


JUDGES = {"answer": _answer_judge, "embedding": _embedding_judge}


def make_judge(name: str, collection, **options) -> Judge:
    """A judge by name over a collection: ``"answer"`` (answer containment) or ``"embedding"`` (encoder=, threshold=)."""
    if name not in JUDGES:
        raise ValueError(f"unknown judge {name!r}; known judges: {', '.join(sorted(JUDGES))}")
    return JUDGES[name](collection, **options)
