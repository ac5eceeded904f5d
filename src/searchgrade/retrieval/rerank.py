"""Second stages: a first stage's top candidates per query, re-scored by another model.

:func:`candidates` is each query's top ``n`` documents of a run, in trec_eval order (score
descending, ties by document id descending); :func:`rerank` re-scores them with
``scorer(qid, docids) -> scores`` (a bi-encoder's cosines, :meth:`.dense.DenseIndex.scorer`, or a
cross-encoder's, :meth:`.dense.CrossEncoderScorer.scorer`). The line-up's ``rerank`` kind
(:mod:`.kinds`) is this; combining whole runs is fusion (:mod:`searchgrade.fusion`).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from ..io import trec_order
from ..io.types import Run

__all__ = ["candidates", "rerank"]


def candidates(run: Mapping[str, Mapping[str, float]], n: int) -> dict[str, list[str]]:
    """The first-stage candidate list of each query: its top ``n`` document ids in trec_eval order."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    return {q: trec_order(docs)[:n] for q, docs in run.items()}


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
