"""Condorcet fusion (Montague & Aslam 2002), plain and weighted, with ranx 0.3.21's pairwise rule.

For two candidates x and y of a query, each run votes for x when it ranks x above y (a
document a run did not retrieve sits below all it did; two it did not retrieve are a vote
for y); with weights a run's vote counts its weight. x goes first when its votes are at
least y's. The candidates are sorted by that comparison and scored C, C - 1, ..., 1.

When the majority relation is a strict order (no tied votes, no cycle) every sort gives the
same answer, and it is ranx's. Otherwise the answer depends on the order the sort starts
from: ranx starts from a Python set of document ids, whose order changes between processes
(string hashing); searchgrade starts from the candidates in the order the runs list them
(run 1's list in trec_eval order, then what run 2 adds, and so on), so its result is the
same every time.
"""
from __future__ import annotations

from functools import cmp_to_key

import numpy as np

from .pool import Pool

__all__ = ["condorcet"]

ABSENT = 1_000_000  # the position of a document a run did not retrieve


def _start_order(ranks: np.ndarray) -> np.ndarray:
    """Column indices of one query's candidates by (first run that retrieved it, its rank there)."""
    present = ~np.isnan(ranks)
    first = present.argmax(axis=0)
    rank = ranks[first, np.arange(ranks.shape[1])]
    return np.lexsort((rank, first))


def _sorted(positions: list[list[int]], weights: list[float] | None, start: list[int]) -> list[int]:
    """The candidates (column indices) in Condorcet order."""
    runs = range(len(positions))

    def compare(x: int, y: int) -> int:
        if weights is None:
            x_votes = sum(positions[r][x] < positions[r][y] for r in runs)
            y_votes = len(positions) - x_votes
        else:
            x_votes = y_votes = 0
            for r in runs:
                if positions[r][x] < positions[r][y]:
                    x_votes += weights[r]
                else:
                    y_votes += weights[r]
        return -1 if x_votes >= y_votes else 1

    return sorted(start, key=cmp_to_key(compare))


def condorcet(m, pool: Pool, p: dict) -> np.ndarray:
    """Condorcet scores of every candidate (``p["weights"]``: None, or one weight per run)."""
    weights = p.get("weights")
    weights = None if weights is None else [float(w) for w in weights]
    fused = np.zeros(len(pool.docids))
    bounds = pool.starts.tolist()
    for i in range(len(pool.qids)):
        a, b = bounds[i], bounds[i + 1]
        if a == b:
            continue
        ranks = pool.ranks[:, a:b]
        positions = np.where(np.isnan(ranks), ABSENT, ranks - 1).astype(np.int64).tolist()
        order = _sorted(positions, weights, _start_order(ranks).tolist())
        fused[a + np.asarray(order)] = np.arange(b - a, 0, -1)
    return fused
