"""Relevance without ids: a retrieved text graded by the judged passages or reference texts it holds.

Chunkers rename chunks, so a retriever's ids often match no qrels. Both functions here take what
:func:`searchgrade.retrieve` returns with ``texts=True`` (the run and each result's text) and
give back :class:`Graded`: a run and qrels over the *judged* ids, which every measure scores as it
scores any run (recall counts every judged passage, found or not)::

    run, texts = sg.retrieve(retriever, queries, k=10, texts=True)
    graded = by_passages(run, texts, text_keys(qrels, corpus))
    sg.evaluate(graded.qrels, graded.run, ["R@10", "nDCG@10", "RR"])

The text key (:func:`by_passages`; chapter 8's answer key, :mod:`searchgrade.rag.passage_keys`)
    A retrieved text matches a judged passage when, after :func:`searchgrade.rag.normalise`, it
    contains one of the passage's sentences whole (it holds the passage, a window of it, or a
    merge of it with others) or, with ``contained=True``, lies inside the passage's sentences
    joined and is at least ``min_chars`` long (a piece smaller than a sentence).
Kiwi-tokenised ROUGE (:func:`by_rouge`; ranx-k's method, :mod:`.rouge`)
    A retrieved text matches a reference text when their ROUGE F1 is at least ``threshold``.

A text's matches are ordered best first: by grade, then the key's order, for passages; by F1,
then the references' order, for ROUGE. Walking down each query's ranking, a text takes the place
of its best match not credited yet; a text that matches nothing keeps its id (prefixed
``retrieved:`` if that id is also a judged id of the query) and is non-relevant.

Where ``convention="searchgrade"`` (the default) and ranx-k 0.0.17's
``evaluate_with_ranx_similarity(method="kiwi_rouge", evaluation_mode="reference_based")``
(``convention="ranx-k"``) differ on purpose:

* a later text whose matches were all credited already stays in its rank as a non-relevant
  result (it takes a place in the prompt and repeats evidence); ranx-k removes it, moving the
  texts below it up one rank. A text whose best match is taken but whose second match is not
  is credited with the second here; ranx-k looks only at the best and removes the text;
* every reference is relevant in the qrels, so recall counts the references nothing matched;
  ranx-k marks relevant only the references some text matched best, so its recall is 1 whenever
  anything matched;
* ROUGE-2 divides by the number of adjacent pairs (ranx-k: of distinct pairs; see :mod:`.rouge`).

With ``convention="ranx-k"`` the run and qrels give ranx-k's ``hit_rate@k``, ``ndcg@k``,
``map@k`` and ``mrr`` as ``Success@k``, ``nDCG@k``, ``AP@k`` and ``RR``. ranx-k's graded mode (the
F1 as a fractional grade) has no counterpart: qrels grades are integers.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from ..io import trec_order
from ..rag.passage_keys import PassageKey, passage_keys
from ..rag.quotes import normalise
from .rouge import ROUGE_KINDS, kiwi_tokens, rouge_f1

__all__ = ["Graded", "CONVENTIONS", "text_keys", "by_passages", "by_rouge"]

#: How matches are credited: searchgrade's, or ranx-k 0.0.17's (see the module docstring).
CONVENTIONS = ("searchgrade", "ranx-k")
_PREFIX = "retrieved:"


class Graded(NamedTuple):
    """A run and qrels over judged ids, and ``matched``: ``{qid: {retrieved id: judged id}}`` of the credited texts."""

    run: dict[str, dict[str, float]]
    qrels: dict[str, dict[str, int]]
    matched: dict[str, dict[str, str]]


def _sentences(text: str) -> list[str]:
    """The sentences of a text, as chapter 8 cuts them (:func:`searchgrade.retrieval.chunking.split_sentences`)."""
    from ..retrieval.chunking import split_sentences

    return [text[s:e] for s, e in split_sentences(text)]


def text_keys(qrels: Mapping[str, Mapping[str, int]], corpus: Mapping, split: Callable[[str], Sequence[str]] | None
              = None, min_chars: int = 10) -> dict[str, list[PassageKey]]:
    """The text key of passage-level qrels: :func:`searchgrade.rag.passage_keys` with each passage its own chunk.

    ``corpus`` is ``{passage_id: {"text": ...}}`` (a collection's corpus); ``split`` cuts a text
    into sentences (default: chapter 8's splitter, a sentence ending at . ! ? before a space).
    """
    return passage_keys(qrels, corpus, {p: p for row in qrels.values() for p in row}, split or _sentences,
                        min_chars)


def _ranking(run: Mapping, texts: Mapping, qid: str) -> list[tuple[str, str]]:
    """``[(docid, text)]`` of one query in trec_eval's order; a result without a text is an error."""
    ranked = []
    for docid in trec_order(run[qid]):
        text = texts.get(qid, {}).get(docid)
        if not isinstance(text, str):
            raise ValueError(f"query {qid!r}: result {docid!r} has no text to grade (retrieve with texts=True, "
                             "from a retriever that returns texts)")
        ranked.append((docid, text))
    return ranked


def _credit(qid: str, ranked: list[str], prefs: list[list[str]], judged: Sequence[str], convention: str,
            graded: Graded) -> set[str]:
    """Walk one ranking, crediting each text with its preferred judged id (see the module docstring)."""
    credited: dict[str, str] = {}
    row: dict[str, float] = {}
    judged_set = set(judged)
    for i, (docid, options) in enumerate(zip(ranked, prefs)):
        score = float(len(ranked) - i)
        free = [j for j in options if j not in credited.values()]
        if convention == "ranx-k" and options and options[0] in credited.values():
            continue  # ranx-k drops a text whose best match is taken
        choice = (options[:1] if convention == "ranx-k" else free[:1])
        if choice:
            credited[docid] = choice[0]
            row[choice[0]] = score
        else:
            row[_PREFIX + docid if docid in judged_set else docid] = score
    graded.run[qid] = row
    graded.matched[qid] = credited
    return set(credited.values())


def _check_convention(convention: str) -> None:
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(map(repr, CONVENTIONS))}, got {convention!r}")


def by_passages(run: Mapping, texts: Mapping, keys: Mapping[str, Sequence[PassageKey]], *,
                contained: bool = True, min_chars: int = 10) -> Graded:
    """Grade retrieved texts by the judged passages they hold (the text key); qrels are the keys' grades.

    ``keys``: :func:`text_keys` or :func:`searchgrade.rag.passage_keys`. Queries of ``keys`` the run
    lacks keep their qrels (an empty ranking is :func:`searchgrade.evaluate`'s business).
    """
    graded = Graded({}, {q: {k.passage_id: k.grade for k in ks} for q, ks in keys.items()}, {})
    for qid in run:
        ks = sorted(keys.get(qid, ()), key=lambda key: -key.grade)
        ranked = _ranking(run, texts, qid)
        prefs = [[k.passage_id for k in ks if _holds(normalise(text), k, contained, min_chars)]
                 for _, text in ranked]
        _credit(qid, [d for d, _ in ranked], prefs, [k.passage_id for k in ks], "searchgrade", graded)
    return graded


def _holds(text: str, key: PassageKey, contained: bool, min_chars: int) -> bool:
    """True when a normalised text contains a quote of the passage, or (``contained``) lies inside its quotes."""
    if any(q in text for q in key.quotes):
        return True
    return contained and len(text) >= min_chars and text in "".join(key.quotes)


def _references(references: Mapping, qid: str) -> dict[str, str]:
    """One query's references as ``{ref_id: text}`` (a list is numbered reference-1, reference-2, ...)."""
    refs = references.get(qid, {})
    if not isinstance(refs, Mapping):
        if isinstance(refs, str):
            raise TypeError(f"query {qid!r}: references are a list of texts or {{id: text}}, not one string")
        refs = {f"reference-{i}": t for i, t in enumerate(refs, 1)}
    for ref_id, text in refs.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"query {qid!r}: reference {ref_id!r} is not a non-empty text")
    return dict(refs)


def by_rouge(run: Mapping, texts: Mapping, references: Mapping, *, threshold: float = 0.7, rouge: str = "rougeL",
             convention: str = "searchgrade") -> Graded:
    """Grade retrieved texts by Kiwi-tokenised ROUGE F1 against reference texts (ranx-k's method).

    ``references``: ``{qid: [text, ...]}`` (ranx-k's ``reference_contexts``) or ``{qid: {ref_id:
    text}}``. ``threshold``: the least F1 that matches (ranx-k's default 0.7); ``rouge``: ``"rouge1"``,
    ``"rouge2"`` or ``"rougeL"``. Qrels: every reference relevant (``convention="ranx-k"``: only
    those credited; see the module docstring).
    """
    _check_convention(convention)
    if rouge not in ROUGE_KINDS:
        raise ValueError(f"rouge must be one of {', '.join(ROUGE_KINDS)}, got {rouge!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise ValueError(f"threshold must be a number from 0 to 1, got {threshold!r}")
    tokens: dict[str, list[str]] = {}

    def tok(text: str) -> list[str]:
        if text not in tokens:
            tokens[text] = kiwi_tokens(text)
        return tokens[text]

    graded = Graded({}, {}, {})
    for qid in dict.fromkeys([*references, *run]):
        refs = _references(references, qid)
        ranked = _ranking(run, texts, qid) if qid in run else []
        prefs = []
        for _, text in ranked:
            sims = [(rouge_f1(tok(r), tok(text), rouge, convention == "ranx-k"), i, rid)
                    for i, (rid, r) in enumerate(refs.items())]
            prefs.append([rid for s, _, rid in sorted(sims, key=lambda x: (-x[0], x[1])) if s >= threshold])
        found = _credit(qid, [d for d, _ in ranked], prefs, list(refs), convention, graded)
        if qid not in run:
            del graded.run[qid]
        if refs:
            graded.qrels[qid] = {r: int(convention == "searchgrade" or r in found) for r in refs}
    return graded
