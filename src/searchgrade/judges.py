"""Who decides what is relevant: TREC-style pooling simulated on a fully judged collection.

A test collection such as Cranfield judged every document for every query. TREC could
not: it judged only the *pool*, the union of the top ``depth`` documents of every
participating system (Spärck Jones & van Rijsbergen 1975; Harman 1993), and treated the
rest as unjudged. The functions here replay that on complete judgments, so the cost of
pooling can be measured:

* :func:`pool` builds the pool from a set of runs;
* :func:`pooled_qrels` keeps only the judgments a pool would have produced;
* :func:`leave_one_out` rebuilds the pool without one system (Zobel 1998), the test of
  whether a new system would be treated fairly by judgments it did not contribute to;
* :func:`pool_coverage` and :func:`unique_relevant` count what a pool found.

Runs are ``{qid: {docid: score}}`` and qrels ``{qid: {docid: grade}}`` as everywhere in
searchgrade; a set of runs is ``{system_name: run}``. Rankings follow trec_eval's order
(score descending, ties by docid descending), so a pool does not depend on dict order.

Relevance judges fill the holes a pool leaves: automatic assessors behind one interface,
``judge(qid, docid) -> grade`` with the 0/1/2 scale of :data:`RUBRIC` (0 unrelated, 1 related,
2 contains the answer) and a batch method ``judge_many(pairs)``:

* :class:`AnswerJudge` says 2 when one of the question's answer texts occurs in the document
  (KorQuAD keeps each question's answer), else 0; :func:`answer_spread` counts how many
  documents contain each answer, the trap of this judge;
* :class:`EmbeddingJudge` says 2 when the cosine similarity of question and document
  embeddings reaches a threshold (optionally 1 above a lower one), else 0;
  :func:`choose_threshold` picks a threshold on easy pairs (known relevant vs random);
* :func:`make_judge` builds one by name (:data:`JUDGES`);
* :func:`holes` and :func:`fill_holes` find the unjudged top-k documents of runs and give
  them the judge's grade; :func:`agreement` and :func:`validate` compare a judge with
  a labelled sample (:func:`read_labels` checks a label file, :func:`draw_label_sample` draws one).
"""
from __future__ import annotations

import bisect
import json
import math
import numbers
import operator
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .io import trec_order


__all__ = [
    "pool",
    "pooled_qrels",
    "leave_one_out",
    "pool_coverage",
    "unique_relevant",
    "trec_order",
    "RUBRIC",
    "GRADES",
    "Judge",
    "AnswerJudge",
    "EmbeddingJudge",
    "JUDGES",
    "make_judge",
    "normalise_text",
    "answer_spread",
    "choose_threshold",
    "holes",
    "add_judgments",
    "fill_holes",
    "agreement",
    "validate",
    "LabelFileError",
    "LABEL_SOURCES",
    "read_labels",
    "draw_label_sample",
    "easy_pairs",
]

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Pool = dict[str, set[str]]


def _check_depth(depth) -> int:
    """depth as an int >= 1, or a clear error."""
    if isinstance(depth, bool):
        raise TypeError(f"pool depth must be an integer >= 1, not the bool {depth!r}")
    try:
        depth = operator.index(depth)
    except TypeError:
        raise TypeError(f"pool depth must be an integer >= 1, not {depth!r} ({type(depth).__name__})") from None
    if depth < 1:
        raise ValueError(f"pool depth must be >= 1, got {depth}: a pool of depth {depth} judges nothing")
    return depth


def _check_runs(runs) -> None:
    """Raise if runs is not a non-empty {system: {qid: {docid: finite score}}} mapping."""
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must be a dict {{system_name: run}}, not {type(runs).__name__}")
    if not runs:
        raise ValueError("runs is empty: a pool needs at least one system's run ({system_name: run})")
    for system, run in runs.items():
        if not isinstance(run, Mapping):
            raise TypeError(f"the run of system {system!r} must be a dict {{qid: {{docid: score}}}}, "
                            f"not {type(run).__name__}")
        if not run:
            raise ValueError(f"the run of system {system!r} is empty: it has no queries")
        for qid, docs in run.items():
            if not isinstance(docs, Mapping):
                raise TypeError(f"system {system!r}, query {qid!r}: expected {{docid: score}}, "
                                f"not {type(docs).__name__}")
            for docid, score in docs.items():
                if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
                    raise ValueError(f"system {system!r}, query {qid!r}, document {docid!r}: "
                                     f"score {score!r} is not a finite number")


def pool(runs: Mapping[str, Mapping[str, Mapping[str, float]]], depth: int) -> Pool:
    """The pool: per query, the union over systems of each system's top ``depth`` documents (trec order).

    pool(q) = ∪_s top_depth(run_s(q)), the ranking being score descending, ties by docid
    descending (trec_eval). Queries that no system retrieved anything for are absent.
    """
    depth = _check_depth(depth)
    _check_runs(runs)
    result: Pool = {}
    for run in runs.values():
        for qid, docs in run.items():
            top = trec_order(docs, depth)
            if top:
                result.setdefault(qid, set()).update(top)
    return result


def _check_qrels(qrels) -> None:
    """Raise if qrels is not a non-empty {qid: {docid: int grade}} mapping."""
    if not isinstance(qrels, Mapping):
        raise TypeError(f"qrels must be a dict {{qid: {{docid: grade}}}}, not {type(qrels).__name__}")
    if not qrels:
        raise ValueError("qrels is empty: there are no judgments to pool")
    for qid, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise TypeError(f"qrels query {qid!r}: expected {{docid: grade}}, not {type(docs).__name__}")


def pooled_qrels(qrels: Mapping[str, Mapping[str, int]], pool: Mapping[str, set[str]]) -> Qrels:
    """The judgments a pool would have produced: pooled documents keep their true grade (0 if unjudged), others vanish.

    For each query of the pool, pooled(q) = {d: qrels(q).get(d, 0) for d in pool(q)}: the
    assessor sees every pooled document, and a document the complete judgments never marked
    is judged non-relevant. Documents outside the pool become unjudged (absent). A query of
    ``qrels`` that the pool does not cover gets no judgments at all and is absent from the
    result, as in TREC. A pooled query that ``qrels`` lacks is an error (usually mismatched ids).
    """
    _check_qrels(qrels)
    if not isinstance(pool, Mapping):
        raise TypeError(f"pool must be a dict {{qid: set of docids}}, not {type(pool).__name__}")
    unknown = sorted(q for q in pool if q not in qrels)
    if unknown:
        shown = ", ".join(repr(q) for q in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise ValueError(f"{len(unknown)} pooled queries have no judgments in qrels ({shown}); "
                         f"do the run and the qrels use the same query ids?")
    result: Qrels = {}
    for qid in qrels:  # keep the qrels' query order
        docs = pool.get(qid)
        if not docs:
            continue
        truth = qrels[qid]
        result[qid] = {docid: truth.get(docid, 0) for docid in sorted(docs)}
    return result


def leave_one_out(
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    depth: int,
    system: str,
) -> Qrels:
    """Pooled qrels from every run except ``system``'s (Zobel 1998): how judgments treat a system that did not contribute."""
    _check_runs(runs)
    if system not in runs:
        known = ", ".join(repr(s) for s in runs)
        raise ValueError(f"system {system!r} is not among the runs ({known})")
    others = {name: run for name, run in runs.items() if name != system}
    if not others:
        raise ValueError(f"leaving out {system!r} leaves no system to build the pool from")
    return pooled_qrels(qrels, pool(others, depth))


def pool_coverage(
    qrels: Mapping[str, Mapping[str, int]], pool: Mapping[str, set[str]], rel_level: int = 1
) -> pd.DataFrame:
    """Per query of qrels: pool size, relevant documents in the pool and in all (grade >= rel_level).

    Columns ``pooled`` (``|pool(q)|``), ``relevant`` (``|{d: qrels(q)[d] >= rel_level}|``),
    ``relevant_pooled`` (those inside the pool) and ``found`` = relevant_pooled / relevant
    (NaN when the query has no relevant document). Index: query ids (name "qid").
    """
    _check_qrels(qrels)
    rows = []
    for qid, truth in qrels.items():
        docs = pool.get(qid, set())
        rel = {d for d, g in truth.items() if g >= rel_level}
        found = len(rel & docs)
        rows.append((qid, len(docs), len(rel), found, found / len(rel) if rel else math.nan))
    df = pd.DataFrame(rows, columns=["qid", "pooled", "relevant", "relevant_pooled", "found"])
    return df.set_index("qid")


def unique_relevant(
    qrels: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    depth: int,
    rel_level: int = 1,
) -> pd.Series:
    """Per system: relevant documents (summed over queries) that only this system put in the depth-``depth`` pool."""
    depth = _check_depth(depth)
    _check_runs(runs)
    _check_qrels(qrels)
    tops = {name: pool({name: run}, depth) for name, run in runs.items()}
    counts = {}
    for name, mine in tops.items():
        n = 0
        for qid, docs in mine.items():
            truth = qrels.get(qid, {})
            others = set().union(*(tops[o].get(qid, set()) for o in tops if o != name))
            n += sum(1 for d in docs - others if truth.get(d, 0) >= rel_level)
        counts[name] = n
    return pd.Series(counts, name="unique_relevant", dtype=int)


# ---------------------------------------------------------------------------
# Relevance judges: automatic assessors on the 0/1/2 scale

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
        from .retrieval import dense

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
            from .retrieval import dense

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


# ---------------------------------------------------------------------------
# Filling the holes of qrels


def _runs_dict(runs) -> Mapping[str, Mapping[str, Mapping[str, float]]]:
    """Accept one run ``{qid: {docid: score}}`` or ``{name: run}``; return ``{name: run}`` (validated)."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("runs must be a non-empty run {qid: {docid: score}} or {system_name: run}")
    first = next(iter(runs.values()))
    inner = next(iter(first.values()), None) if isinstance(first, Mapping) else None
    if isinstance(inner, Mapping):  # {name: {qid: {docid: score}}}
        _check_runs(runs)
        return runs
    _check_runs({"run": runs})
    return {"run": runs}


def holes(qrels: Mapping[str, Mapping[str, int]], runs, k: int) -> list[Pair]:
    """The (qid, docid) pairs in the top ``k`` (trec order) of any run that qrels do not judge (absent or grade < 0).

    ``runs`` is one run or ``{name: run}``. Queries of a run that qrels do not hold are
    not evaluated and so have no holes; if no query of any run is in qrels, the ids are
    mismatched and a ValueError says so. Pairs come sorted, each once.
    """
    k = _check_depth(k)
    _check_qrels(qrels)
    runs = _runs_dict(runs)
    seen: set[Pair] = set()
    overlap = False
    for run in runs.values():
        for qid, docs in run.items():
            judged = qrels.get(qid)
            if judged is None:
                continue
            overlap = True
            for docid in trec_order(docs, k):
                if judged.get(docid, -1) < 0:
                    seen.add((qid, docid))
    if not overlap:
        some_run = next(iter(runs.values()))
        raise ValueError(f"no query of the runs is in qrels (run queries e.g. {_describe(sorted(some_run), 3)}, "
                         f"qrels queries e.g. {_describe(sorted(qrels), 3)}): mismatched ids?")
    return sorted(seen)


def add_judgments(qrels: Mapping[str, Mapping[str, int]], pairs: Sequence[Pair], grades) -> dict[str, dict[str, int]]:
    """A copy of qrels with ``grades[i]`` added for ``pairs[i]``; a pair already judged (grade >= 0) is an error."""
    _check_qrels(qrels)
    pairs = list(pairs)
    grades = list(np.asarray(grades).ravel()) if not isinstance(grades, list) else grades
    if len(pairs) != len(grades):
        raise ValueError(f"{len(pairs)} pairs but {len(grades)} grades: they must match one to one")
    out = {q: dict(docs) for q, docs in qrels.items()}
    for i, ((qid, docid), grade) in enumerate(zip(pairs, grades)):
        if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, (numbers.Integral, np.integer)):
            raise TypeError(f"pair {i} ({qid!r}, {docid!r}): grade {grade!r} is not an integer")
        row = out.setdefault(qid, {})
        if row.get(docid, -1) >= 0:
            raise ValueError(f"pair {i}: ({qid!r}, {docid!r}) is already judged (grade {row[docid]}); "
                             f"add_judgments only fills holes")
        row[docid] = int(grade)
    return out


def fill_holes(qrels: Mapping[str, Mapping[str, int]], runs, judge: Judge, k: int) -> dict[str, dict[str, int]]:
    """qrels with every hole in the top ``k`` of the runs (:func:`holes`) graded by ``judge``."""
    if not isinstance(judge, Judge):
        raise TypeError(f"judge must be a searchgrade.judges.Judge, not {type(judge).__name__}")
    pairs = holes(qrels, runs, k)
    return add_judgments(qrels, pairs, judge.judge_many(pairs))


# ---------------------------------------------------------------------------
# Judges against a labelled sample


def _grades_array(values, name: str) -> np.ndarray:
    """Integer grades in GRADES, or a clear error."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a flat list of grades")
    if arr.size and (arr.dtype.kind not in "iu" or not np.isin(arr, GRADES).all()):
        bad = [v for v in arr.tolist() if v not in GRADES or isinstance(v, bool)]
        raise ValueError(f"{name} holds values outside the grades {GRADES}: {bad[:5]}")
    return arr.astype(np.int64)


def agreement(reference, predicted) -> dict:
    """How a judge's grades agree with reference (hand) labels on the 0/1/2 scale.

    Returns ``n``; ``accuracy`` (exact grade); Cohen's ``kappa`` = (p_o - p_e) / (1 - p_e)
    with p_e from the two marginal distributions (NaN when p_e = 1); ``answer_precision``
    = P(label 2 | judge 2) and ``answer_recall`` = P(judge 2 | label 2) (NaN when
    undefined); ``confusion``, a DataFrame (rows: reference label, columns: judge grade).
    """
    ref, pred = _grades_array(reference, "reference"), _grades_array(predicted, "predicted")
    if ref.size == 0:
        raise ValueError("agreement of an empty sample: there is nothing to compare")
    if ref.size != pred.size:
        raise ValueError(f"{ref.size} reference labels but {pred.size} judge grades: they must match one to one")
    n = ref.size
    confusion = pd.DataFrame(0, index=pd.Index(GRADES, name="label"), columns=pd.Index(GRADES, name="judge"))
    for r, p in zip(ref, pred):
        confusion.loc[int(r), int(p)] += 1
    p_o = float((ref == pred).mean())
    p_e = float(sum((ref == g).mean() * (pred == g).mean() for g in GRADES))
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else math.nan
    said2, is2 = pred == 2, ref == 2
    return {
        "n": int(n),
        "accuracy": p_o,
        "kappa": kappa,
        "answer_precision": float((is2 & said2).sum() / said2.sum()) if said2.any() else math.nan,
        "answer_recall": float((is2 & said2).sum() / is2.sum()) if is2.any() else math.nan,
        "confusion": confusion,
    }


def validate(judge: Judge, labels: pd.DataFrame, by: str = "source") -> pd.DataFrame:
    """A judge against a labelled sample, per group of ``by`` (default: the sample's source) and over all rows.

    Columns: n, accuracy, kappa, share the judge calls 2, share labelled 2,
    answer_precision, answer_recall (see :func:`agreement`).
    """
    if not isinstance(labels, pd.DataFrame):
        raise TypeError(f"labels must be a DataFrame with qid, docid and label columns, not {type(labels).__name__}")
    missing = [c for c in ("qid", "docid", "label", by) if c not in labels.columns]
    if missing:
        raise ValueError(f"labels lack the column(s) {', '.join(missing)}")
    if labels.empty:
        raise ValueError("the label sample is empty: a judge cannot be validated on no pairs")
    grades = judge.judge_many(list(zip(labels["qid"], labels["docid"])))
    rows = {}
    groups = [(g, labels[by] == g) for g in sorted(labels[by].unique())] + [("all", np.ones(len(labels), bool))]
    for name, mask in groups:
        mask = np.asarray(mask)
        a = agreement(labels["label"].to_numpy()[mask], grades[mask])
        rows[name] = {"n": a["n"], "accuracy": a["accuracy"], "kappa": a["kappa"],
                      "judge_2": float((grades[mask] == 2).mean()),
                      "label_2": float((labels["label"].to_numpy()[mask] == 2).mean()),
                      "answer_precision": a["answer_precision"], "answer_recall": a["answer_recall"]}
    out = pd.DataFrame(rows).T
    out["n"] = out["n"].astype(int)
    out.index.name = by
    return out


# ---------------------------------------------------------------------------
# The labelled sample: drawing it and reading it back


LABEL_SOURCES = {
    "a": "gold pair: the question's own (judged relevant) paragraph",
    "b": "random paragraph: drawn uniformly from the paragraphs not judged for the question",
    "c": "top-ranked hole: in a retriever's top k for the question, not in the qrels",
}
_LABEL_KEYS = {"qid", "docid", "source", "label", "note", "retrievers", "rank"}


class LabelFileError(ValueError):
    """A malformed label file; ``str()`` is ``"{path}:{line}: {problem}"``."""

    def __init__(self, path, line: int | None, problem: str):
        self.path, self.line, self.problem = str(path), line, problem
        super().__init__(f"{self.path}:{line}: {problem}" if line is not None else f"{self.path}: {problem}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.problem))


def read_labels(path: str | os.PathLike, collection=None, min_rows: int = 0,
                sources: Iterable[str] = ()) -> pd.DataFrame:
    """Read a JSON Lines label file (qid, docid, source a/b/c, label 0/1/2, optional note) and check its schema.

    Every problem names the file and line: invalid JSON, a missing or unknown key, a
    label outside {0, 1, 2}, an unknown source, a pair labelled twice. With a
    ``collection``: ids must exist in it, source-a pairs must be judged relevant there
    and source-b/c pairs must not be in its qrels. ``min_rows`` and ``sources`` (each
    must occur) check the sample as a whole. Returns a DataFrame in file order with a
    ``line`` column.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such label file")
    rows, seen = [], {}
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise LabelFileError(path, lineno, f"not valid UTF-8 ({err.reason})") from None
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise LabelFileError(path, lineno, f"invalid JSON: {err.msg} (column {err.colno})") from None
            if not isinstance(obj, dict):
                raise LabelFileError(path, lineno, f"expected a JSON object, got {type(obj).__name__}")
            for key in ("qid", "docid", "source", "label"):
                if key not in obj:
                    raise LabelFileError(path, lineno, f"missing key {key!r}")
            extra = sorted(set(obj) - _LABEL_KEYS)
            if extra:
                raise LabelFileError(path, lineno, f"unknown key(s) {', '.join(extra)}; allowed: "
                                                   f"{', '.join(sorted(_LABEL_KEYS))}")
            for key in ("qid", "docid"):
                if not isinstance(obj[key], str) or not obj[key].strip():
                    raise LabelFileError(path, lineno, f"{key} must be a non-empty string, got {obj[key]!r}")
            label = obj["label"]
            if isinstance(label, bool) or not isinstance(label, int) or label not in GRADES:
                raise LabelFileError(path, lineno, f"label {label!r} is not one of {GRADES} "
                                                   f"(0 unrelated, 1 related, 2 contains the answer)")
            if obj["source"] not in LABEL_SOURCES:
                raise LabelFileError(path, lineno, f"source {obj['source']!r} is not one of "
                                                   f"{', '.join(LABEL_SOURCES)}")
            note = obj.get("note", "")
            if not isinstance(note, str):
                raise LabelFileError(path, lineno, f"note must be a string, got {note!r}")
            if "retrievers" in obj and not (isinstance(obj["retrievers"], list)
                                            and all(isinstance(x, str) and x for x in obj["retrievers"])):
                raise LabelFileError(path, lineno, f"retrievers must be a list of run names, got {obj['retrievers']!r}")
            if "rank" in obj and (isinstance(obj["rank"], bool) or not isinstance(obj["rank"], int) or obj["rank"] < 1):
                raise LabelFileError(path, lineno, f"rank must be an integer >= 1, got {obj['rank']!r}")
            key = (obj["qid"], obj["docid"])
            if key in seen:
                raise LabelFileError(path, lineno, f"pair ({key[0]!r}, {key[1]!r}) is labelled twice "
                                                   f"(first on line {seen[key]})")
            seen[key] = lineno
            if collection is not None:
                _check_label_ids(path, lineno, obj, collection)
            rows.append({"line": lineno, "qid": obj["qid"], "docid": obj["docid"], "source": obj["source"],
                         "label": label, "note": note,
                         "retrievers": ",".join(obj.get("retrievers", [])), "rank": obj.get("rank", 0)})
    if not rows:
        raise LabelFileError(path, None, "the label file holds no labels")
    df = pd.DataFrame(rows)
    if len(df) < min_rows:
        raise LabelFileError(path, None, f"{len(df)} labelled pairs; at least {min_rows} are required")
    absent = [s for s in sources if s not in set(df["source"])]
    if absent:
        raise LabelFileError(path, None, f"no pair from source(s) {', '.join(absent)} "
                                         f"({'; '.join(LABEL_SOURCES[s] for s in absent if s in LABEL_SOURCES)})")
    return df


def _check_label_ids(path, lineno: int, obj: dict, collection) -> None:
    """Label ids must exist in the collection; a/b/c must agree with its qrels."""
    qid, docid, source = obj["qid"], obj["docid"], obj["source"]
    if qid not in collection.queries:
        raise LabelFileError(path, lineno, f"question {qid!r} is not in collection {collection.name!r}")
    if docid not in collection.corpus:
        raise LabelFileError(path, lineno, f"document {docid!r} is not in collection {collection.name!r}")
    grade = collection.qrels.get(qid, {}).get(docid)
    if source == "a" and (grade is None or grade <= 0):
        raise LabelFileError(path, lineno, f"source a (gold pair), but ({qid!r}, {docid!r}) is not judged relevant "
                                           f"in {collection.name!r}")
    if source in ("b", "c") and grade is not None:
        raise LabelFileError(path, lineno, f"source {source}, but ({qid!r}, {docid!r}) is already judged "
                                           f"(grade {grade}) in {collection.name!r}")


def _chosen_questions(collection, n: int, rng: np.random.Generator, exclude: Iterable[str] = ()) -> list[str]:
    """``n`` distinct judged questions drawn without replacement (collection order, minus ``exclude``)."""
    excluded = set(exclude)
    pool_q = [q for q in collection.queries if q in collection.qrels and q not in excluded
              and any(g > 0 for g in collection.qrels[q].values())]
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"the number of questions must be >= 1, got {n}")
    if n > len(pool_q):
        raise ValueError(f"{n} questions requested but only {len(pool_q)} judged questions are available")
    return [pool_q[i] for i in rng.choice(len(pool_q), size=n, replace=False)]


def _random_other(collection, qid: str, rng: np.random.Generator, docids: list[str]) -> str:
    """A paragraph drawn uniformly from those not judged for ``qid``."""
    judged = collection.qrels.get(qid, {})
    while True:
        d = docids[int(rng.integers(len(docids)))]
        if d not in judged:
            return d


def draw_label_sample(collection, runs: Mapping[str, Mapping[str, Mapping[str, float]]], n_questions: int,
                      n_top: int, depth: int = 5, seed: int = 0) -> pd.DataFrame:
    """Pairs to label by hand: (a) each drawn question's gold paragraphs, (b) one random paragraph per question,
    (c) ``n_top`` pairs drawn uniformly from the holes in the runs' top ``depth`` for those questions.

    Seeded (numpy ``default_rng(seed)``), so the same inputs draw the same sample.
    Columns: qid, docid, source (a/b/c), retrievers (runs that ranked a source-c pair
    in their top ``depth``), rank (its best rank there).
    """
    depth = _check_depth(depth)
    _check_runs(runs)
    rng = np.random.default_rng(seed)
    chosen = _chosen_questions(collection, n_questions, rng)
    docids = list(collection.corpus)
    rows = []
    for q in chosen:
        for d, g in collection.qrels[q].items():
            if g > 0:
                rows.append({"qid": q, "docid": d, "source": "a", "retrievers": "", "rank": 0})
    for q in chosen:
        rows.append({"qid": q, "docid": _random_other(collection, q, rng, docids), "source": "b",
                     "retrievers": "", "rank": 0})
    found: dict[Pair, dict] = {}
    for q in chosen:
        for name, run in runs.items():
            for rank, d in enumerate(trec_order(run.get(q, {}), depth), 1):
                if d in collection.qrels.get(q, {}):
                    continue
                entry = found.setdefault((q, d), {"retrievers": [], "rank": rank})
                entry["retrievers"].append(name)
                entry["rank"] = min(entry["rank"], rank)
    candidates = list(found)
    if n_top > len(candidates):
        raise ValueError(f"{n_top} top-ranked holes requested but the runs leave only {len(candidates)} "
                         f"in their top {depth} for these {n_questions} questions")
    for i in sorted(rng.choice(len(candidates), size=n_top, replace=False)):
        q, d = candidates[i]
        rows.append({"qid": q, "docid": d, "source": "c", "retrievers": ",".join(found[(q, d)]["retrievers"]),
                     "rank": found[(q, d)]["rank"]})
    return pd.DataFrame(rows)


def easy_pairs(collection, n_questions: int, seed: int = 0, exclude: Iterable[str] = ()) -> pd.DataFrame:
    """The easy test without labels: per drawn question its gold paragraph (expected 2) and one random paragraph (expected 0).

    Questions in ``exclude`` (e.g. those of the labelled sample) are never drawn,
    so a threshold chosen here is not tuned on the labelled pairs. Columns: qid, docid,
    expected.
    """
    rng = np.random.default_rng(seed)
    chosen = _chosen_questions(collection, n_questions, rng, exclude)
    docids = list(collection.corpus)
    rows = []
    for q in chosen:
        gold = [d for d, g in collection.qrels[q].items() if g > 0]
        rows.append({"qid": q, "docid": gold[0], "expected": 2})
        rows.append({"qid": q, "docid": _random_other(collection, q, rng, docids), "expected": 0})
    return pd.DataFrame(rows)
