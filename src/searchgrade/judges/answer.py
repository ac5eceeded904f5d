"""The answer-containment judge and how many documents hold each answer (its trap)."""
from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .base import Judge, _document_text, normalise_text


class AnswerJudge(Judge):
    """Answer containment: 2 if one of the question's answer texts occurs in the document, else 0 (never 1).

    Matching is on :func:`normalise_text` of both sides (NFC, case-folded,
    whitespace runs as one space). The document is its ``fields`` joined by a
    newline. The judge reads no meaning: an answer such as a year is found in
    every paragraph that mentions that year (see :func:`answer_spread`).
    """

    name = "answer"

    def __init__(self, answers: Mapping[str, Sequence[str]], corpus: Mapping[str, object],
                 fields: Sequence[str] = ("title", "text")):
        if not isinstance(answers, Mapping):
            raise TypeError(f"answers must be a dict {{qid: [answer texts]}}, not {type(answers).__name__}")
        clean: dict[str, list[str]] = {}
        for qid, texts in answers.items():
            if isinstance(texts, str) or not isinstance(texts, Sequence) or not texts:
                raise ValueError(f"question {qid!r}: answers must be a non-empty list of strings, got {texts!r}")
            norm = [normalise_text(t) for t in texts]
            if not all(norm):
                raise ValueError(f"question {qid!r}: an answer text is empty after normalisation ({texts!r})")
            clean[qid] = norm
        super().__init__({q: q for q in clean}, corpus)
        self.answers, self.fields = clean, tuple(fields)
        self._text: dict[str, str] = {}

    def _doc(self, docid: str) -> str:
        """The normalised text of one document (memoised)."""
        text = self._text.get(docid)
        if text is None:
            text = self._text[docid] = normalise_text(_document_text(self.corpus[docid], self.fields))
        return text

    def _grades(self, qids, docids):
        """2 where an answer occurs in the document."""
        return np.array([2 if any(a in self._doc(d) for a in self.answers[q]) else 0 for q, d in zip(qids, docids)])


def answer_spread(answers: Mapping[str, Sequence[str]], corpus: Mapping[str, object],
                  fields: Sequence[str] = ("title", "text")) -> pd.Series:
    """Per question: how many documents contain one of its answer texts (normalised as :class:`AnswerJudge` does).

    One pass per distinct answer over all documents joined by a separator, so the
    whole of KorQuAD (5,774 answers, 961 paragraphs) takes about a second.
    """
    if not corpus:
        raise ValueError("answer_spread: the corpus is empty")
    texts = [normalise_text(_document_text(doc, fields)) for doc in corpus.values()]
    sep = "\x00"
    starts, pos = [], 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + 1
    big = sep.join(texts)
    memo: dict[str, set[int]] = {}

    def docs_with(answer: str) -> set[int]:
        """Positions (in corpus order) of the documents containing ``answer``."""
        found = memo.get(answer)
        if found is None:
            found, i = set(), big.find(answer)
            while i >= 0:
                found.add(bisect.bisect_right(starts, i) - 1)
                i = big.find(answer, i + 1)
            memo[answer] = found
        return found

    counts = {}
    for qid, texts_q in answers.items():
        if isinstance(texts_q, str) or not texts_q:
            raise ValueError(f"question {qid!r}: answers must be a non-empty list of strings, got {texts_q!r}")
        hit: set[int] = set()
        for a in texts_q:
            norm = normalise_text(a)
            if not norm or sep in norm:
                raise ValueError(f"question {qid!r}: answer {a!r} is empty or holds a NUL character")
            hit |= docs_with(norm)
        counts[qid] = len(hit)
    out = pd.Series(counts, name="documents_with_answer", dtype=np.int64)
    out.index.name = "qid"
    return out
