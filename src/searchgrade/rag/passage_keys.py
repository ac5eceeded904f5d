"""Answer keys for judged passages that survive rechunking: quotes of each passage, not chunk ids.

A collection judged at the passage level (MIRACL: ``qid 0 docid grade``) is
indexed for RAG in chunks, and chunks change whenever the chunking does. This
module writes the judgments down as an *answer key* that holds, for each
judged passage, two things a team might have stored:

``chunk_id``
    the content-hash id of the chunk that held the passage when the key was
    written (one chunk per passage); an id answer key matches a retrieved
    chunk only when the ids are equal;
``quotes``
    the passage's sentences, normalised as :func:`searchgrade.rag.normalise`
    does; a text answer key matches a retrieved chunk when the chunk's
    normalised text contains one of them whole.

With quotes, a chunk *takes its passage's grade*: a window cut from a judged
passage holds some of its sentences, a chunk merged from two passages holds
all the sentences of both. That is an assumption (a window of a relevant
passage may miss the sentence that answers); :func:`chunk_grades` applies it
and the book checks it by hand on a sample.

Scores over a ranked list of chunks for one question, with ``E`` its relevant
passages (grade >= ``min_grade``)::

    EvidenceRecall@k = |{e in E : some chunk c_r, r <= k, matches e}| / |E|
    AllEvidence@k    = 1 if EvidenceRecall@k = 1, else 0

:func:`evidence_scores` computes both for every question, matching by
``"text"`` or by ``"id"``. :func:`subtopic_qrels` gives each relevant passage of a
question as a subtopic, the input of the diversity measures (``StRecall@k`` equals
``EvidenceRecall@k``; ``alpha_nDCG@k`` charges for chunks that repeat a passage).
"""
from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .quotes import normalise

__all__ = ["PassageKey", "MATCHES", "passage_keys", "key_matches", "chunk_grades", "subtopic_qrels",
           "redundant_chunks", "evidence_scores"]

#: The two ways a key can match a retrieved chunk.
MATCHES = ("text", "id")


@dataclass(frozen=True)
class PassageKey:
    """One judged passage of one question: its id, grade, the chunk id it had, and its normalised quotes."""

    passage_id: str
    grade: int
    chunk_id: str
    quotes: tuple[str, ...]


def _quotes(text: str, split: Callable[[str], Sequence[str]], min_chars: int) -> tuple[str, ...]:
    """Normalised sentences of ``text`` of at least ``min_chars`` characters; the whole text if none is long enough."""
    quotes = [q for q in (normalise(s) for s in split(text)) if len(q) >= min_chars]
    whole = normalise(text)
    return tuple(dict.fromkeys(quotes)) if quotes else ((whole,) if whole else ())


def passage_keys(qrels: Mapping[str, Mapping[str, int]], corpus: Mapping[str, Mapping[str, str]],
                 chunk_ids: Mapping[str, str], split: Callable[[str], Sequence[str]],
                 min_chars: int = 10) -> dict[str, list[PassageKey]]:
    """The answer key ``{qid: [PassageKey, ...]}`` of passage-level judgments.

    ``corpus`` is ``{passage_id: {"text": ...}}``; ``chunk_ids`` gives each
    judged passage's chunk id in the chunking of the day; ``split`` cuts a text
    into sentences (e.g. with :func:`searchgrade.retrieval.chunking.split_sentences`).
    Sentences shorter than ``min_chars`` after normalisation (a stray "(1995)."
    would match chunks everywhere) are not quotes; a passage with no longer
    sentence is quoted whole. A judged passage missing from ``corpus`` or
    ``chunk_ids`` is an error naming it.
    """
    if isinstance(min_chars, bool) or not isinstance(min_chars, int) or min_chars < 1:
        raise ValueError(f"min_chars must be a positive integer, got {min_chars!r}")
    keys: dict[str, list[PassageKey]] = {}
    for qid, row in qrels.items():
        keys[qid] = []
        for pid, grade in row.items():
            if pid not in corpus:
                raise KeyError(f"question {qid!r}: judged passage {pid!r} is not in the corpus")
            if pid not in chunk_ids:
                raise KeyError(f"question {qid!r}: judged passage {pid!r} has no chunk id")
            quotes = _quotes(corpus[pid]["text"], split, min_chars)
            if not quotes:
                raise ValueError(f"question {qid!r}: passage {pid!r} has no text to quote")
            keys[qid].append(PassageKey(pid, int(grade), chunk_ids[pid], quotes))
    return keys


def key_matches(key: PassageKey, chunk: Mapping[str, str], match: str = "text") -> bool:
    """True when ``chunk`` (``{"chunk_id", "text"}``) holds the passage: an equal id, or one of its quotes whole."""
    _check_match(match)
    if match == "id":
        return chunk["chunk_id"] == key.chunk_id
    text = normalise(chunk["text"])
    return any(q in text for q in key.quotes)


def _holders(quotes: set[str], texts: Sequence[str]) -> dict[str, list[int]]:
    """``{quote: [index of each text that contains it]}``, by one search per quote over all texts joined."""
    starts, pos = [], 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + 1
    hay = "\x00".join(texts)
    out: dict[str, list[int]] = {}
    for q in quotes:
        found: list[int] = []
        i = hay.find(q)
        while i >= 0:
            found.append(bisect.bisect_right(starts, i) - 1)
            i = hay.find(q, i + 1)
        out[q] = sorted(set(found))
    return out


def _check_match(match: str) -> None:
    if match not in MATCHES:
        raise ValueError(f"match must be one of {', '.join(MATCHES)}, got {match!r}")


def _key_holders(keys: Mapping[str, Sequence[PassageKey]], chunks: Sequence[Mapping[str, str]],
                 match: str) -> Callable[[PassageKey], list[int]]:
    """A function giving, for a key, the positions in ``chunks`` of the chunks that match it."""
    _check_match(match)
    if match == "id":
        where: dict[str, list[int]] = {}
        for i, c in enumerate(chunks):
            where.setdefault(c["chunk_id"], []).append(i)
        return lambda key: where.get(key.chunk_id, [])
    found = _holders({q for ks in keys.values() for key in ks for q in key.quotes},
                     [normalise(c["text"]) for c in chunks])
    return lambda key: sorted({i for q in key.quotes for i in found[q]})


def chunk_grades(keys: Mapping[str, Sequence[PassageKey]], chunks: Sequence[Mapping[str, str]],
                 match: str = "text") -> dict[str, dict[str, int]]:
    """Judgments mapped onto a chunking: ``{qid: {chunk_id: grade}}``, a chunk taking the highest grade it matches.

    Chunks that match no judged passage of a question stay unjudged for it.
    """
    holders = _key_holders(keys, chunks, match)
    out: dict[str, dict[str, int]] = {}
    for qid, ks in keys.items():
        row: dict[str, int] = {}
        for key in ks:
            for i in holders(key):
                cid = chunks[i]["chunk_id"]
                row[cid] = max(row.get(cid, key.grade), key.grade)
        out[qid] = row
    return out


def subtopic_qrels(keys: Mapping[str, Sequence[PassageKey]], chunks: Sequence[Mapping[str, str]],
                   match: str = "text", min_grade: int = 1) -> dict[str, dict[str, dict[str, int]]]:
    """Each relevant passage as a subtopic: ``{qid: {passage_id: {chunk_id: 1}}}`` for diversity measures.

    A chunk that matches two relevant passages (a merge of both) covers both
    subtopics; two chunks that match one passage (overlapping windows) are
    redundant. A relevant passage no chunk matches is a subtopic with no
    relevant chunk. Questions with no relevant passage are left out.
    """
    holders = _key_holders(keys, chunks, match)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for qid, ks in keys.items():
        topics = {key.passage_id: {chunks[i]["chunk_id"]: 1 for i in holders(key)}
                  for key in ks if key.grade >= min_grade}
        if topics:
            out[qid] = topics
    return out


def redundant_chunks(subtopics: Mapping[str, Mapping[str, Mapping[str, int]]],
                     ranked: Mapping[str, Sequence[Mapping[str, str]]], k: int) -> pd.Series:
    """Per question of ``subtopics``: top-``k`` chunks that cover relevant subtopics, all of them already covered above.

    ``subtopics`` is :func:`subtopic_qrels`' output; such a chunk repeats
    evidence the reader already has (what alpha-nDCG discounts).
    """
    _check_k(k)
    out = {}
    for qid, topics in subtopics.items():
        seen: set[str] = set()
        repeats = 0
        for chunk in list(ranked.get(qid, ()))[:k]:
            covered = {t for t, row in topics.items() if row.get(chunk["chunk_id"], 0) > 0}
            repeats += bool(covered) and covered <= seen
            seen |= covered
        out[qid] = repeats
    return pd.Series(out, name=f"Redundant@{k}", dtype=int).rename_axis("qid")


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")


def evidence_scores(keys: Mapping[str, Sequence[PassageKey]], ranked: Mapping[str, Sequence[Mapping[str, str]]],
                    k: int, match: str = "text", min_grade: int = 1) -> pd.DataFrame:
    """Per question (index ``qid``): relevant passages, found ones, ``EvidenceRecall@k`` and ``AllEvidence@k``.

    ``ranked`` is ``{qid: [chunk, ...]}`` in rank order. Questions of ``keys``
    with no relevant passage are left out; a question with relevant passages
    but no ranking scores 0 (nothing was retrieved).
    """
    _check_k(k)
    rows = {}
    for qid, ks in keys.items():
        relevant = [key for key in ks if key.grade >= min_grade]
        if not relevant:
            continue
        top = list(ranked.get(qid, ()))[:k]
        found = sum(any(key_matches(key, c, match) for c in top) for key in relevant)
        rows[qid] = {"relevant": len(relevant), "found": found,
                     f"EvidenceRecall@{k}": found / len(relevant),
                     f"AllEvidence@{k}": float(found == len(relevant))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("qid")
