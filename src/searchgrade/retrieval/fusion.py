"""Combining runs and second stages: reciprocal rank fusion, convex combination, CombSUM/MNZ/MAX, re-ranking the top N.

The line-up's fusion kinds (``rrf``, ``convex``, ``combsum``, ``combmnz``, ``combmax``) with
their line-up arguments: each is a call of the core's fusion (:mod:`searchgrade.fusion`, the
code behind ``searchgrade.fuse``), so there is one implementation of every formula.
Runs are ``{qid: {docid: score}}``. Wherever a rank is needed, a run's list
for a query is ordered as trec_eval orders it: score descending, ties broken
by document id descending (:func:`ranking`), so a fused run depends only on
the scores, never on dict order.

:func:`rrf` and :func:`convex` read every document of their inputs and cut only
the fused list at ``depth``. :func:`combsum`, :func:`combmnz` and :func:`combmax`
(Fox & Shaw 1994) fuse each input's top ``depth`` documents per query, normalised
per query by :func:`normalise`, and warn when ``depth`` cut an input list, so that a
caller learns which documents were ignored.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

from ..fusion import api as _core
from ..io import trec_order
from ..io.types import Run

__all__ = ["ranking", "cut", "rrf", "minmax", "convex", "zscore", "rank_scores", "normalise", "NORMALISATIONS",
           "combsum", "combmnz", "combmax", "rerank", "candidates"]


def ranking(scores: Mapping[str, float]) -> list[str]:
    """Document ids in trec_eval order: score descending, then docid descending (:func:`searchgrade.io.trec_order`)."""
    return trec_order(scores)


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


def _fuse(runs_list: list, method: str, norm: str | None, params: dict, depth: int | None) -> Run:
    """The core's fusion (:mod:`searchgrade.fusion`) of checked runs, without its warning about missing queries."""
    names = [f"run {i}" for i in range(len(runs_list))]
    return _core.fuse_runs(runs_list, names, _core.method_row(method), _core.norm_row(norm), params, depth=depth,
                           warn=False)


def rrf(runs, k: float = 60, weights=None, depth: int | None = 100) -> Run:
    """Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): score(d) = sum over runs r of w_r / (k + rank_r(d)).

    rank_r(d) is d's 1-based rank in run r (trec_eval order); a run that did
    not retrieve d adds nothing. ``runs`` is a list of runs or a
    ``{name: run}`` mapping; ``weights`` default to 1. The fused list of each
    query keeps its ``depth`` best documents (None: all). Queries are the
    union of the runs' queries. This is ``searchgrade.fuse(runs, "rrf", None,
    {"k": k, "weights": weights}, depth=depth)`` without its warning about
    queries some runs lack.
    """
    runs_list, w = _as_list(runs, weights)
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    return _fuse(runs_list, "rrf", None, {"k": k, "weights": w}, depth)


def convex(runs, weights, depth: int | None = 100) -> Run:
    """Convex combination of min-max-normalised scores: score(d) = sum over runs r of w_r * minmax_r(d).

    Each run's scores are normalised per query over the documents that run
    returned (its own top list): (s - min) / (max - min), so its best document
    gets 1 and its worst 0 (all 1 if the list has a single score). A document
    a run did not return gets 0 from that run. The weights must be
    non-negative and sum to 1; ``runs`` and ``weights`` are parallel
    sequences or ``{name: ...}`` mappings. This is ``searchgrade.fuse(runs,
    "wsum", "min-max-one", {"weights": weights}, depth=depth)``.
    """
    runs_list, w = _as_list(runs, weights)
    if weights is None:
        raise ValueError("convex needs weights (non-negative, summing to 1)")
    if not math.isclose(sum(w), 1.0, rel_tol=0, abs_tol=1e-9):
        raise ValueError(f"convex weights must sum to 1, got {sum(w)!r} from {w}")
    return _fuse(runs_list, "wsum", "min-max-one", {"weights": w}, depth)


# the line-up's normalisation names and the core's (searchgrade.fusion.NORMALISATIONS)
_CORE_NORM = {"minmax": "min-max-one", "zscore": "zmuv", "rank": "rank"}
NORMALISATIONS = ("minmax", "zscore", "rank", None)
"""Per-query score normalisations of :func:`normalise` (None: the raw scores)."""


def normalise(scores: Mapping[str, float], method: str | None) -> dict[str, float]:
    """One query's list normalised by ``method``: "minmax" (:func:`minmax`), "zscore" (:func:`zscore`), "rank" (:func:`rank_scores`) or None / "none" (raw)."""
    if method == "none":
        method = None
    if method is not None and method not in _CORE_NORM:
        raise ValueError(f"unknown normalisation {method!r}: choose one of 'minmax', 'zscore', 'rank' or None")
    if method is None or not scores:
        return {d: float(s) for d, s in scores.items()}
    out = _core.normalize({"q": scores}, _CORE_NORM[method])["q"]
    return {d: out[d] for d in scores}


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    """Min-max normalisation of one query's list: (s - min) / (max - min); every score 1.0 when max = min (the core's ``min-max-one``)."""
    return normalise(scores, "minmax")


def zscore(scores: Mapping[str, float]) -> dict[str, float]:
    """Z-score normalisation of one query's list: (s - mean) / sd, population sd (the core's ``zmuv``: 0.0 when sd = 0)."""
    return normalise(scores, "zscore")


def rank_scores(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank normalisation of one query's list of n documents: 1 - (rank - 1) / n (1 for the first, 1/n for the last).

    Ranks follow trec_eval order (:func:`ranking`), so tied scores get distinct values
    decided by document id, as they get distinct ranks in :func:`rrf`.
    """
    return normalise(scores, "rank")


def _run_names(runs, n: int) -> list[str]:
    """How warnings name the n runs: their keys for a {name: run} mapping, else 'run 0', 'run 1', ..."""
    return [repr(name) for name in runs] if isinstance(runs, Mapping) else [f"run {i}" for i in range(n)]


def _warn_cut(names: list[str], runs_list: list, depth: int | None) -> None:
    """One UserWarning per input run whose list for some query is longer than depth (its tail is ignored)."""
    if depth is None:
        return
    for name, run in zip(names, runs_list):
        long = [q for q, docs in run.items() if len(docs) > depth]
        if long:
            few = ", ".join(map(repr, long[:3])) + (", ..." if len(long) > 3 else "")
            warnings.warn(f"fusion input {name} has more than depth={depth} documents for {len(long)} of its "
                          f"{len(run)} queries ({few}): documents below rank {depth} were not fused "
                          "(pass depth=None to fuse every document)", UserWarning, stacklevel=4)


def _comb(runs, weights, normalisation: str | None, depth: int | None, how: str) -> Run:
    """CombSUM / CombMNZ / CombMAX of each input's normalised, weighted top `depth` per query; fused list cut at `depth`."""
    runs_list, w = _as_list(runs, weights)
    normalise({}, normalisation)  # refuse an unknown normalisation before any work
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be positive or None, got {depth}")
    _warn_cut(_run_names(runs, len(runs_list)), runs_list, depth)
    inputs = []
    for run, weight in zip(runs_list, w):
        top = {q: _top(docs, depth) for q, docs in run.items()}
        normed = _core.normalize(top, _CORE_NORM[normalisation]) if normalisation not in (None, "none") else top
        inputs.append({q: {d: weight * s for d, s in docs.items()} for q, docs in normed.items()})
    return _fuse(inputs, how, None, {}, depth)


def combsum(runs, weights=None, normalisation: str | None = "minmax", depth: int | None = 100) -> Run:
    """CombSUM (Fox & Shaw 1994): score(d) = sum over runs r that retrieved d of w_r * norm_r(d).

    ``norm_r`` normalises run r's list for the query (:func:`normalise`: "minmax",
    "zscore", "rank" or None) over its top ``depth`` documents, which are all that is fused
    (a UserWarning names each input cut this way); the fused list keeps its ``depth`` best
    (None: everything). ``runs``: a list of runs or ``{name: run}``; ``weights`` default to 1.
    With "minmax", weights summing to 1 and ``depth=None`` this is :func:`convex`.
    """
    return _comb(runs, weights, normalisation, depth, "sum")


def combmnz(runs, weights=None, normalisation: str | None = "minmax", depth: int | None = 100) -> Run:
    """CombMNZ (Fox & Shaw 1994): ``score(d) = |{r : d in r}| * sum over those runs of w_r * norm_r(d)``.

    CombSUM multiplied by the number of input lists (after the ``depth`` cut) that hold d,
    which rewards documents several runs agree on. Arguments as in :func:`combsum`.
    """
    return _comb(runs, weights, normalisation, depth, "mnz")


def combmax(runs, weights=None, normalisation: str | None = "minmax", depth: int | None = 100) -> Run:
    """CombMAX (Fox & Shaw 1994): score(d) = max over runs r that retrieved d of w_r * norm_r(d).

    A document scores as its best run places it; of one run with weight 1 it is that run's
    normalised top ``depth``. Arguments as in :func:`combsum`.
    """
    return _comb(runs, weights, normalisation, depth, "max")


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
