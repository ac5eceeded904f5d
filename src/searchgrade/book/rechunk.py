"""Chapter 8's rechunking of MIRACL-ko: sentence windows, merged neighbours, cached BM25 rankings over chunks.

MIRACL-ko's passages are paragraphs of Korean Wikipedia articles, ``<article>#<n>``
(:mod:`searchgrade.collections.miracl`), so a passage can be cut smaller (windows of
its sentences, :func:`searchgrade.retrieval.chunking.sentence_chunks`) or merged with
the next paragraph of its article when the judged pool holds both
(:func:`merged_neighbours`). :func:`pool_counts` counts what the pool allows;
:func:`answer_key` writes the people's judgments as a
:mod:`searchgrade.rag.passage_keys` key; :func:`ranked_chunks` is BM25 with Kiwi over a
chunking, its rankings cached on disk by content hash under ``chunk_runs/`` in
:func:`searchgrade.places.cache_root` (the chunk ids hash every chunk's text,
so a changed chunking or question never reuses a stale ranking).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence

from ..rag.passage_keys import PassageKey, passage_keys
from ..places import cache_root
from ..retrieval.chunking import Chunk, ChunkIndex, chunk_id, paragraph_chunks, split_sentences

__all__ = ["article_of", "neighbours", "pool_counts", "merged_neighbours", "sentences", "answer_key",
           "ranked_chunks", "variant_queries", "BM25_SETTINGS"]

#: BM25 over chunks: the line-up's bm25-kiwi settings (lineups/book.toml).
BM25_SETTINGS = {"tokeniser": "ko-kiwi", "k1": 1.5, "b": 0.75, "epsilon": 0.25}


def article_of(passage_id: str) -> tuple[str, int]:
    """``("44", 2)`` for MIRACL's ``"44#2"``; an id without ``#<number>`` is an error naming it."""
    article, sep, n = passage_id.rpartition("#")
    if not sep or not n.isdigit():
        raise ValueError(f"passage id {passage_id!r} is not <article>#<paragraph number>")
    return article, int(n)


def neighbours(corpus: Mapping[str, object]) -> list[tuple[str, str]]:
    """Pairs ``(a#n, a#n+1)`` of passages of one article that are both in ``corpus``, in corpus order."""
    return [(p, f"{a}#{n + 1}") for p in corpus for a, n in [article_of(p)] if f"{a}#{n + 1}" in corpus]


def pool_counts(collection) -> dict[str, int]:
    """What the judged pool allows: adjacent pairs, relevant judgments with a neighbour, multi-evidence questions."""
    corpus, qrels = collection.corpus, collection.qrels
    pairs = neighbours(corpus)
    paired = {p for pair in pairs for p in pair}
    relevant = [(q, d) for q, row in qrels.items() for d, g in row.items() if g > 0]
    per_question = Counter(q for q, _ in relevant)
    return {"passages": len(corpus), "questions": len(collection.queries), "adjacent_pairs": len(pairs),
            "relevant": len(relevant), "relevant_with_neighbour": sum(d in paired for _, d in relevant),
            "multi_evidence": sum(n >= 2 for n in per_question.values())}


def _merge(corpus: Mapping[str, Mapping[str, str]], ids: Sequence[str]) -> Chunk:
    """One chunk of consecutive passages of an article: the title, then each passage's text on its own line."""
    title = corpus[ids[0]].get("title") or ""
    bodies = [corpus[p]["text"].strip() for p in ids]
    text = "\n".join([title, *bodies]) if title else "\n".join(bodies)
    pieces = [title] if title else []
    for body in bodies:
        pieces += [body[s:e] for s, e in split_sentences(body)]
    doc = "+".join(ids)
    return Chunk(chunk_id(doc, text), doc, text, 0, len(text), tuple(pieces))


def merged_neighbours(corpus: Mapping[str, Mapping[str, str]]) -> list[Chunk]:
    """Passages merged in pairs with the next paragraph of their article where the pool has it.

    Within each article the passages present are walked in paragraph order and
    taken two at a time while they are adjacent (#n with #n+1); a passage with no
    free neighbour stays one chunk. Every chunk starts with the article title, as
    the line-up's passages do.
    """
    corpus = getattr(corpus, "corpus", corpus)
    by_article: dict[str, list[int]] = {}
    for p in corpus:
        a, n = article_of(p)
        by_article.setdefault(a, []).append(n)
    out = []
    for a, numbers in by_article.items():
        numbers.sort()
        i = 0
        while i < len(numbers):
            take = 2 if i + 1 < len(numbers) and numbers[i + 1] == numbers[i] + 1 else 1
            out.append(_merge(corpus, [f"{a}#{n}" for n in numbers[i:i + take]]))
            i += take
    return out


def sentences(text: str) -> list[str]:
    """The sentences of a text (:func:`searchgrade.retrieval.chunking.split_sentences`)."""
    return [text[s:e] for s, e in split_sentences(text)]


def answer_key(collection, min_chars: int = 10) -> dict[str, list[PassageKey]]:
    """The judgments as an answer key, written when one chunk held one passage (title + text, as the line-up)."""
    ids = {c.doc_id: c.chunk_id for c in paragraph_chunks(collection, prefix_title=True)}
    return passage_keys(collection.qrels, collection.corpus, ids, sentences, min_chars)


def _run_key(chunks: Sequence[Chunk], queries: Mapping[str, str], k: int) -> str:
    """SHA-256 over the BM25 settings, every chunk id (a hash of its text) and pieces, every question and ``k``."""
    h = hashlib.sha256(json.dumps([BM25_SETTINGS, k], sort_keys=True).encode("utf-8"))
    for c in chunks:
        h.update(json.dumps([c.chunk_id, c.pieces], ensure_ascii=False).encode("utf-8"))
    for q, text in queries.items():
        h.update(json.dumps([q, text], ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()[:24]


def ranked_chunks(chunks: Sequence[Chunk], queries: Mapping[str, str], k: int = 20,
                  cache: bool = True) -> dict[str, list[dict]]:
    """``{qid: [chunk dict, ...]}``: BM25 (Kiwi) top ``k`` of each question, read from or written to the disk cache."""
    by_id = {c.chunk_id: c for c in chunks}
    path = cache_root() / "chunk_runs" / f"{_run_key(chunks, queries, k)}.json"
    ranking = None
    if cache and path.is_file():
        try:
            ranking = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            ranking = None
        if not isinstance(ranking, dict) or set(ranking) != set(queries) or any(
                cid not in by_id for ids in ranking.values() for cid in ids):
            ranking = None
    if ranking is None:
        index = ChunkIndex(chunks, **BM25_SETTINGS)
        ranking = {q: [c.chunk_id for c in index.search(text, k)] for q, text in queries.items()}
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(ranking, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
    return {q: [by_id[cid].as_dict() for cid in ids] for q, ids in ranking.items()}


def variant_queries(queries: Mapping[str, str], runs: int = 5, seed: int = 2026) -> list[dict[str, str]]:
    """``runs`` rewrites of every question (:func:`searchgrade.book.variants.rewrite` with Kiwi), run ``r`` seeded ``[seed, r]``.

    The rewriter stands in for what makes a RAG system's retrieval differ from
    run to run (an LLM rewriting the question); the same seeds give the same
    rewrites, so a rebuilt book measures the same runs.
    """
    import numpy as np

    from ..retrieval.korean import get_tokeniser
    from .variants import rewrite

    kiwi = get_tokeniser(BM25_SETTINGS["tokeniser"])
    out = []
    for r in range(runs):
        rng = np.random.default_rng([seed, r])
        out.append({q: rewrite(text, rng, tokenise=kiwi) for q, text in queries.items()})
    return out
