"""The relevance judge interface: the 0/1/2 rubric, the :class:`Judge` base class and the text it reads."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import numpy as np



GRADES = (0, 1, 2)
RUBRIC = {
    0: "unrelated: the document does not help answer the question",
    1: "related: same subject or entity, but the answer is not in the document",
    2: "contains the answer: a reader could answer the question from this document alone",
}

Pair = tuple[str, str]


def _describe(ids: Sequence[str], limit: int = 5) -> str:
    """A short list of ids for error messages."""
    shown = ", ".join(repr(i) for i in list(ids)[:limit])
    return shown + (f" ... ({len(ids)} in all)" if len(ids) > limit else "")


def normalise_text(text: str) -> str:
    """Unicode NFC, case-folded, every whitespace run made one space, stripped: the form answers are matched in."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text).casefold()).strip()


def _document_text(doc, fields: Sequence[str]) -> str:
    """The document's ``fields`` joined by a newline (as the retrievers see it)."""
    if isinstance(doc, str):
        return doc
    if not isinstance(doc, Mapping):
        raise TypeError(f"a document must be a dict of fields or a string, not {type(doc).__name__}")
    return "\n".join(doc.get(f, "") for f in fields if doc.get(f, ""))


class Judge:
    """A relevance judge: ``judge(qid, docid)`` gives a grade 0/1/2 (:data:`RUBRIC`); ``judge_many`` grades pairs in a batch.

    A judge is bound to the questions and documents it may be asked about; a pair
    naming an unknown question or document is refused (usually mismatched ids).
    Subclasses implement ``_grades(qids, docids) -> array of grades``.
    """

    name = "judge"

    def __init__(self, queries: Mapping[str, str], corpus: Mapping[str, object]):
        if not isinstance(queries, Mapping) or not isinstance(corpus, Mapping):
            raise TypeError("a judge needs queries {qid: text} and a corpus {docid: document} as dicts")
        if not queries:
            raise ValueError(f"{self.name} judge: no questions to judge")
        if not corpus:
            raise ValueError(f"{self.name} judge: no documents to judge")
        self.queries, self.corpus = queries, corpus

    def judge(self, qid: str, docid: str) -> int:
        """The grade (0, 1 or 2) of one document for one question."""
        return int(self.judge_many([(qid, docid)])[0])

    def judge_many(self, pairs: Iterable[Pair]) -> np.ndarray:
        """Grades of many (qid, docid) pairs, in order, as an int array (empty input -> empty array)."""
        qids, docids = self._check_pairs(pairs)
        if not qids:
            return np.zeros(0, dtype=np.int64)
        grades = np.asarray(self._grades(qids, docids), dtype=np.int64)
        if grades.shape != (len(qids),) or not np.isin(grades, GRADES).all():
            raise AssertionError(f"{self.name} judge returned grades outside {GRADES} or of the wrong length")
        return grades

    def _check_pairs(self, pairs) -> tuple[list[str], list[str]]:
        """Split pairs into qids and docids, refusing malformed pairs and unknown ids."""
        if isinstance(pairs, (str, bytes)) or (isinstance(pairs, tuple) and len(pairs) == 2
                                               and all(isinstance(x, str) for x in pairs)):
            raise TypeError("judge_many takes a list of (qid, docid) pairs, not a single pair; use judge(qid, docid)")
        qids, docids = [], []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"pair {i}: expected (qid, docid), got {pair!r}")
            qid, docid = pair
            if qid not in self.queries:
                raise ValueError(f"pair {i}: question {qid!r} is not among the {len(self.queries)} questions this "
                                 f"{self.name} judge knows (mismatched ids?)")
            if docid not in self.corpus:
                raise ValueError(f"pair {i}: document {docid!r} is not among the {len(self.corpus)} documents this "
                                 f"{self.name} judge knows (mismatched ids?)")
            qids.append(qid)
            docids.append(docid)
        return qids, docids

    def _grades(self, qids: list[str], docids: list[str]) -> np.ndarray:
        """Grades of already-checked pairs."""
        raise NotImplementedError

    def __repr__(self) -> str:
        """Name and size."""
        return f"<{type(self).__name__} {self.name}: {len(self.queries)} questions, {len(self.corpus)} documents>"
