"""Combining runs and second stages: reciprocal rank fusion, convex combination, re-ranking the top N.

Runs are ``{qid: {docid: score}}``. Wherever a rank is needed, a run's list
for a query is ordered as trec_eval orders it: score descending, ties broken
by document id descending (:func:`ranking`), so a fused run depends only on
the scores, never on dict order.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

__all__ = ["ranking", "cut", "rrf", "minmax", "convex", "rerank", "candidates"]

Run = dict[str, dict[str, float]]


def ranking(scores: Mapping[str, float]) -> list[str]:
    """Document ids in trec_eval order: score descending, then docid descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def cut(run: Mapping[str, Mapping[str, float]], n: int) -> Run:
    """The top ``n`` documents of each query (trec_eval order), scores unchanged."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    return {q: {d: float(docs[d]) for d in ranking(docs)[:n]} for q, docs in run.items()}


def _as_list(runs, weights) -> tuple[list[Mapping[str, Mapping[str, float]]], list[float]]:
    """Runs (a sequence or a {name: run} mapping) and their weights as parallel lists."""
    if isinstance(runs, Mapping):
        names = list(runs)
        runs_list = [runs[n] for n in names]
        if isinstance(weights, Mapping):
            missing = [n for n in names if n not in weights]
            if missing:
                raise ValueError(f"no weight for run(s) {', '.join(map(str, missing))}")
            weights = [weights[n] for n in names]
    else:
        runs_list = list(runs)
    for i, run in enumerate(runs_list):
        if not isinstance(run, Mapping) or not all(isinstance(v, Mapping) for v in run.values()):
            raise TypeError(f"run {i} is not a {{qid: {{docid: score}}}} mapping; pass a list of runs or {{name: run}}")
    if not runs_list:
        raise ValueError("no runs to fuse")
    if weights is None:
        weights = [1.0] * len(runs_list)
    weights = [float(w) for w in weights]
    if len(weights) != len(runs_list):
        raise ValueError(f"{len(weights)} weights for {len(runs_list)} runs")
    if any(w < 0 or not math.isfinite(w) for w in weights):
        raise ValueError(f"weights must be finite and non-negative, got {weights}")
    return runs_list, weights


def _top(scores: dict[str, float], depth: int | None) -> dict[str, float]:
    """The ``depth`` best entries in trec_eval order (all when depth is None)."""
    order = ranking(scores)
    return {d: scores[d] for d in (order if depth is None else order[:depth])}


def rrf(runs, k: float = 60, weights=None, depth: int | None = 100) -> Run:
    """Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): score(d) = sum over runs r of w_r / (k + rank_r(d)).

    rank_r(d) is d's 1-based rank in run r (trec_eval order); a run that did
    not retrieve d adds nothing. ``runs`` is a list of runs or a
    ``{name: run}`` mapping; ``weights`` default to 1. The fused list of each
    query keeps its ``depth`` best documents (None: all). Queries are the
    union of the runs' queries.
    """
    runs_list, w = _as_list(runs, weights)
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    fused: Run = {}
    for qid in dict.fromkeys(q for r in runs_list for q in r):
        scores: dict[str, float] = {}
        for run, weight in zip(runs_list, w):
            for rank, docid in enumerate(ranking(run.get(qid, {})), 1):
                scores[docid] = scores.get(docid, 0.0) + weight / (k + rank)
        fused[qid] = _top(scores, depth)
    return fused


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Min-max normalisation of one query's list: (s - min) / (max - min); every score 1.0 when max = min."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi == lo:
        return {d: 1.0 for d in scores}
    span = hi - lo
    return {d: (s - lo) / span for d, s in scores.items()}


def convex(runs, weights, depth: int | None = 100) -> Run:
    """Convex combination of min-max-normalised scores: score(d) = sum over runs r of w_r * minmax_r(d).

    Each run's scores are normalised per query over the documents that run
    returned (its own top list): (s - min) / (max - min), so its best document
    gets 1 and its worst 0 (all 1 if the list has a single score). A document
    a run did not return gets 0 from that run. The weights must be
    non-negative and sum to 1; ``runs`` and ``weights`` are parallel
    sequences or ``{name: ...}`` mappings.
    """
    runs_list, w = _as_list(runs, weights)
    if weights is None:
        raise ValueError("convex needs weights (non-negative, summing to 1)")
    if not math.isclose(sum(w), 1.0, rel_tol=0, abs_tol=1e-9):
        raise ValueError(f"convex weights must sum to 1, got {sum(w)!r} from {w}")
    fused: Run = {}
    for qid in dict.fromkeys(q for r in runs_list for q in r):
        scores: dict[str, float] = {}
        for run, weight in zip(runs_list, w):
            for docid, s in minmax(run.get(qid, {})).items():
                scores[docid] = scores.get(docid, 0.0) + weight * s
        for run in runs_list:  # documents only some runs returned still appear with their partial sum
            for docid in run.get(qid, {}):
                scores.setdefault(docid, 0.0)
        fused[qid] = _top(scores, depth)
    return fused


def candidates(run: Mapping[str, Mapping[str, float]], n: int) -> dict[str, list[str]]:
    """The first-stage candidate list of each query: its top ``n`` document ids in trec_eval order."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    return {q: ranking(docs)[:n] for q, docs in run.items()}


def rerank(run: Mapping[str, Mapping[str, float]], scorer: Callable[[str, Sequence[str]], Sequence[float]],
           n: int = 30, progress: bool = False) -> Run:
    """Second stage: re-score each query's top ``n`` first-stage documents with ``scorer(qid, docids)``.

    The result holds exactly those n documents (fewer if the first stage
    returned fewer) with the second-stage scores; documents below rank n are
    left out, so any recall measured at depth n equals the first stage's
    Recall@n: a second stage can reorder its candidates, never add to them.
    """
    from tqdm.auto import tqdm

    out: Run = {}
    for qid, docids in tqdm(candidates(run, n).items(), desc=f"rerank top {n}", disable=not progress, leave=False):
        if not docids:
            out[qid] = {}
            continue
        scores = [float(s) for s in scorer(qid, docids)]
        if len(scores) != len(docids):
            raise ValueError(f"scorer returned {len(scores)} scores for {len(docids)} documents (query {qid})")
        bad = [d for d, s in zip(docids, scores) if not math.isfinite(s)]
        if bad:
            raise ValueError(f"scorer returned a non-finite score for query {qid}, document {bad[0]}")
        out[qid] = dict(zip(docids, scores))
    return out
