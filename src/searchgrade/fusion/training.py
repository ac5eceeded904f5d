"""What the trained fusion methods learn from relevance judgements, as ranx 0.3.21's ``*_train`` functions learn it.

Every estimate starts from a run's hit lists: for each training query, 1 at each rank
(trec_eval order of the normalised scores) that holds a relevant document (grade >= 1),
else 0. The training queries of a run are those it has that the qrels judge, the
evaluation's default (``missing="ignore"``): a qrels query the run lacks, and a run query
without judgements, take no part. ``Q`` is their number.

==============  ===========================================================================
learned         from the hit lists
==============  ===========================================================================
probfuse        per segment k of n_segments equal parts of each list (ceil(n / n_segments)
                ranks each), the mean over the Q queries of the segment's share of hits
segfuse         per fixed segment (ranks 1-5, 6-15, 16-35, ... 2556-5115), the mean over
                the Q queries of hits / segment size
slidefuse,      per position i, hits at i / queries whose list reaches i
posfuse
mapfuse         the run's MAP (searchgrade's ``map``, trec_eval's AP) over its training queries
bayesfuse       per band of ranks (1-5, 6-10, 11-15, 16-20, 21-30, 31-100, 101-200, 201-500,
                501-1000), log(p / (1 - p)) with p the mean precision of the band (0.001
                added to a p or 1 - p of 0)
==============  ===========================================================================
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .pool import Pool, ceil_div
from .kernels import SEGFUSE_BOUNDS

__all__ = ["hit_lists", "probfuse_probs", "segfuse_probs", "position_probs", "bayes_log_odds", "map_score"]

BAYES_CUTS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _relevant(pool: Pool, qrels: Mapping) -> np.ndarray:
    """Per candidate: judged relevant (grade >= 1)."""
    rel = np.zeros(len(pool.docids), dtype=np.float64)
    bounds = pool.starts.tolist()
    for i, qid in enumerate(pool.qids):
        grades = qrels.get(qid)
        if grades:
            a, b = bounds[i], bounds[i + 1]
            rel[a:b] = [grades.get(d, 0) >= 1 for d in pool.docids[a:b].tolist()]
    return rel


def hit_lists(pool: Pool, qrels: Mapping) -> list[list[np.ndarray]]:
    """Per run, the hit list of each of its training queries (see the module docstring)."""
    rel = _relevant(pool, qrels)
    out = []
    for r in range(pool.n_runs):
        ranks = pool.ranks[r]
        idx = np.flatnonzero(~np.isnan(ranks))
        idx = idx[np.lexsort((ranks[idx], pool.cand_q[idx]))]
        bounds = np.searchsorted(pool.cand_q[idx], np.arange(len(pool.qids) + 1))
        hits = rel[idx]
        out.append([hits[bounds[i]:bounds[i + 1]] for i, qid in enumerate(pool.qids)
                    if pool.has_query[r, i] and qid in qrels])
        if not out[-1]:
            raise ValueError(f"fusion: run {pool.names[r]} has no query the qrels judge, so nothing to learn from")
    return out


def probfuse_probs(hits: list[np.ndarray], n_segments: int) -> np.ndarray:
    """ProbFuse's probability of relevance of each of n_segments segments."""
    probs = np.zeros(n_segments)
    for h in hits:
        if len(h):
            k = np.arange(len(h)) // ceil_div(len(h), n_segments)
            count = np.bincount(k, minlength=n_segments)
            probs += np.divide(np.bincount(k, h, minlength=n_segments), count, out=np.zeros(n_segments),
                               where=count > 0)
    return probs / len(hits)


def segfuse_probs(hits: list[np.ndarray]) -> np.ndarray:
    """SegFuse's probability of relevance of each of its ten segments."""
    sizes = np.diff(SEGFUSE_BOUNDS)
    probs = np.zeros(len(sizes))
    for h in hits:
        h = h[:SEGFUSE_BOUNDS[-1]]
        k = np.searchsorted(SEGFUSE_BOUNDS, np.arange(len(h)), side="right") - 1
        probs += np.bincount(k, h, minlength=len(sizes)) / sizes
    return probs / len(hits)


def position_probs(hits: list[np.ndarray]) -> np.ndarray:
    """Per position, the share of queries whose list reaches it that have a relevant document there."""
    longest = max((len(h) for h in hits), default=0)
    num, den = np.zeros(longest), np.zeros(longest)
    for h in hits:
        num[:len(h)] += h
        den[:len(h)] += 1
    return num / np.maximum(den, 1)


def bayes_log_odds(hits: list[np.ndarray]) -> np.ndarray:
    """BayesFuse's log-odds of relevance of each of the first 1000 ranks (constant within a band)."""
    odds = np.zeros(BAYES_CUTS[-1])
    for start, end in zip(BAYES_CUTS[:-1], BAYES_CUTS[1:]):
        p = 0.0
        for h in hits:
            p += h[start:end].sum() / (end - start) / len(hits)
        p = p if p != 0 else p + 0.001
        q = 1 - p if 1 - p != 0 else 0.001
        odds[start:end] = np.log(p / q)
    return odds


def map_score(pool: Pool, r: int, qrels: Mapping) -> float:
    """The MAP of run ``r`` (its current order) over its training queries, by searchgrade's ``map``."""
    from ..metrics import mean

    ranks = pool.ranks[r]
    run = {}
    bounds = pool.starts.tolist()
    for i, qid in enumerate(pool.qids):
        if pool.has_query[r, i] and qid in qrels:
            a, b = bounds[i], bounds[i + 1]
            present = ~np.isnan(ranks[a:b])
            run[qid] = dict(zip(pool.docids[a:b][present].tolist(), (-ranks[a:b][present]).tolist()))
    judged = {q: qrels[q] for q in run}
    return float(mean(judged, run, "map").iloc[0])
