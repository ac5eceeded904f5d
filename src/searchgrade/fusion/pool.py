"""The runs to fuse laid out as columns: one row per run, one column per candidate (query, document).

:class:`Pool` holds every run's score of every candidate document of every query (NaN where a
run did not retrieve the document), so that normalisations and fusion methods are array
operations instead of loops over nested dicts. Candidates are grouped by query (``starts``
gives each query's slice); a query a run does not have is an empty list for that run.

Ranks follow trec_eval's order of a run's scores: score descending, ties broken by document
id descending (:func:`trec_ranks`), so a fused run depends only on the scores, never on the
order of a dict. With ``ties="input"`` a run's tied documents keep the order the run lists
them instead (``tiekey``: each entry's place in its run, as the evaluation's ``ties="input"``
does). :meth:`Pool.to_run` writes a fused run back as ``{qid: {docid: score}}`` in
trec_eval's order either way.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain, islice

import numpy as np
import pandas as pd

from ..measures.qrels import warn_user

__all__ = ["Pool", "build_pool", "ceil_div", "trec_order_index", "trec_ranks", "warn_missing_queries"]


@dataclass(frozen=True)
class Pool:
    """Every run's scores over the union of candidates, grouped by query (see the module docstring)."""

    names: tuple[str, ...]        # how messages name the runs
    qids: tuple                   # fused queries, in order of first appearance over the runs
    starts: np.ndarray            # (n_queries + 1,) each query's slice of the candidates
    cand_q: np.ndarray            # (n_cand,) the query index of each candidate
    docids: np.ndarray            # (n_cand,) object array of document ids
    scores: np.ndarray            # (n_runs, n_cand) float64, NaN: not retrieved by that run
    has_query: np.ndarray         # (n_runs, n_queries) bool: the run has the query
    dockey: np.ndarray            # (n_cand,) each document id's place in the text order of all of them
    ranks: np.ndarray | None = field(default=None, compare=False)  # (n_runs, n_cand) 1-based, NaN absent
    tiekey: np.ndarray | None = field(default=None, compare=False)  # (n_runs, n_cand) ties="input": larger first

    @property
    def n_runs(self) -> int:
        """How many runs are fused."""
        return self.scores.shape[0]

    def with_scores(self, scores: np.ndarray, keeps_order: bool) -> Pool:
        """The same pool with new scores; the ranks are kept when the new scores keep each run's order."""
        return replace(self, scores=scores, ranks=self.ranks if keeps_order else None)

    def ranked(self) -> Pool:
        """The pool with ``ranks`` filled in (each run's trec_eval order of its current scores)."""
        if self.ranks is not None:
            return self
        ranks = (np.stack([trec_ranks(self, row, self.tie_key(r)) for r, row in enumerate(self.scores)])
                 if self.n_runs else self.scores)
        return replace(self, ranks=ranks)

    def tie_key(self, r: int) -> np.ndarray:
        """What breaks run r's ties, larger first: the document id's text order, or (ties="input") its place."""
        return self.dockey if self.tiekey is None else self.tiekey[r]

    def counts(self, present: np.ndarray) -> np.ndarray:
        """Per query, how many candidates are marked in a boolean (n_cand,) array."""
        return np.bincount(self.cand_q[present], minlength=len(self.qids))

    def per_candidate(self, per_query: np.ndarray) -> np.ndarray:
        """A per-query array spread over the candidates."""
        return per_query[self.cand_q]

    def to_run(self, fused: np.ndarray, depth: int | None = None) -> dict:
        """``{qid: {docid: score}}`` of a fused score per candidate, documents in trec_eval order.

        Every query of the pool is a key (an empty dict when no run retrieved anything for it);
        ``depth`` keeps each query's best ``depth`` documents (None: all).
        """
        order = trec_order_index(self, fused)
        sizes = np.diff(self.starts)
        if depth is not None:  # keep the first `depth` of each query's slice
            keep = np.arange(len(order)) - np.repeat(self.starts[:-1], sizes) < depth
            order, sizes = order[keep], np.minimum(sizes, depth)
        pairs = zip(self.docids[order].tolist(), fused[order].tolist())
        return {qid: dict(islice(pairs, n)) for qid, n in zip(self.qids, sizes.tolist())}


def _by_query_stable(q: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``order`` re-sorted by ``q[order]``, stably (a radix sort on 16-bit digits)."""
    key = q[order].astype(np.uint64)
    shift = 0
    while shift == 0 or (key >> np.uint64(shift)).any():
        digit = ((key >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.uint16)
        step = np.argsort(digit, kind="stable")
        order, key = order[step], key[step]
        shift += 16
    return order


def _sorted_order(q: np.ndarray, v: np.ndarray, dockey: np.ndarray) -> np.ndarray:
    """Positions sorted by q, then v descending, then ``dockey`` (the document ids' text order) descending."""
    order = np.argsort(-v, kind="stable")
    sv = v[order]
    if (sv[1:] == sv[:-1]).any():  # ties are broken by document id, descending, as trec_eval breaks them
        flipped = dockey.max(initial=0) - dockey
        first = np.argsort(flipped.astype(np.uint16) if flipped.max(initial=0) < 2 ** 16 else flipped, kind="stable")
        order = first[np.argsort(-v[first], kind="stable")]
    return _by_query_stable(q, order)


def _text_ranks(unique) -> np.ndarray:
    """The place of each of some distinct document ids in their text order."""
    rank = np.empty(len(unique), dtype=np.int64)
    rank[np.array(sorted(range(len(unique)), key=unique.__getitem__), dtype=np.int64)] = np.arange(len(unique))
    return rank


def trec_order_index(pool: Pool, values: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
    """Candidate indices (of ``idx``, default all) sorted by query, then value descending, then docid descending."""
    if idx is None:
        idx = np.arange(len(values))
    return idx[_sorted_order(pool.cand_q[idx], values[idx], pool.dockey[idx])]


def trec_ranks(pool: Pool, row: np.ndarray, key: np.ndarray | None = None) -> np.ndarray:
    """1-based rank of each candidate in one run's list for its query; NaN where absent.

    Ties are broken by ``key`` descending (default: the document ids' text order, trec_eval's).
    """
    idx = np.flatnonzero(~np.isnan(row))
    key = pool.dockey if key is None else key
    order = idx[_sorted_order(pool.cand_q[idx], row[idx], key[idx])]
    q = pool.cand_q[order]
    first = np.searchsorted(q, q, side="left")
    ranks = np.full(len(row), np.nan)
    ranks[order] = np.arange(1, len(order) + 1) - first
    return ranks


def _entry_ranks(qi: np.ndarray, scores: np.ndarray, dockey: np.ndarray) -> np.ndarray:
    """1-based rank of each entry of one run within its query (its list is contiguous): score descending,
    ties by ``dockey`` descending.

    A run whose lists are already in that order (as files and retrievers write them in
    trec_eval's) costs one pass; any other is sorted.
    """
    same = qi[1:] == qi[:-1]
    start = np.flatnonzero(np.concatenate(([True], ~same)))
    block_start = np.repeat(start, np.diff(np.append(start, len(qi))))
    tie = same & (scores[1:] == scores[:-1])
    ordered = bool(np.all((scores[1:] <= scores[:-1]) | ~same)) and bool(np.all(dockey[1:][tie] < dockey[:-1][tie]))
    if ordered:
        return np.arange(len(qi)) - block_start + 1.0
    order = _sorted_order(qi, scores, dockey)
    q = qi[order]
    ranks = np.empty(len(qi))
    ranks[order] = np.arange(1, len(order) + 1) - np.searchsorted(q, q, side="left")
    return ranks


def _entries(run: Mapping, name: str, qindex: dict) -> tuple[np.ndarray, list, np.ndarray]:
    """One run's (query index, document id, score) per entry, checked."""
    lists = list(run.values())
    lens = np.fromiter((len(docs) for docs in lists), dtype=np.int64, count=len(lists))
    total = int(lens.sum())
    try:
        scores = np.fromiter(chain.from_iterable(d.values() for d in lists), dtype=np.float64, count=total)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"fusion: run {name} has a score that is not a number ({exc})") from None
    if not np.isfinite(scores).all():
        at = int(np.flatnonzero(~np.isfinite(scores))[0])
        q = list(run)[int(np.searchsorted(np.cumsum(lens), at, side="right"))]
        raise ValueError(f"fusion: run {name}, query {q!r} has a score that is not finite ({scores[at]})")
    qi = np.repeat(np.array([qindex[q] for q in run], dtype=np.int64), lens)
    return qi, list(chain.from_iterable(lists)), scores


def _doc_text_ranks(unique, runs: Sequence[Mapping], names: Sequence[str]) -> np.ndarray:
    """:func:`_text_ranks` of the distinct document ids; ids that cannot be ordered are a TypeError naming where."""
    try:
        return _text_ranks(unique)
    except TypeError:
        first = type(unique[0])
        for name, run in zip(names, runs):
            for q, docs in run.items():
                odd = next((d for d in docs if type(d) is not first), None)
                if odd is not None:
                    raise TypeError(f"fusion: document ids of different types cannot be ordered: run {name}, "
                                    f"query {q!r} has {odd!r} ({type(odd).__name__}) where another is "
                                    f"{unique[0]!r} ({first.__name__}); use one type (e.g. str)") from None
        raise


def build_pool(runs: Sequence[Mapping], names: Sequence[str], ties: str = "trec") -> Pool:
    """The :class:`Pool` of runs ``{qid: {docid: score}}``; ``names`` name them in messages.

    ``ties``: ``"trec"`` ranks a run's tied documents by document id descending, ``"input"`` in
    the order the run lists them.
    """
    for name, run in zip(names, runs):
        if not isinstance(run, Mapping) or not all(isinstance(v, Mapping) for v in run.values()):
            raise TypeError(f"fusion: run {name} is not a {{qid: {{docid: score}}}} mapping")
    qids = tuple(dict.fromkeys(q for run in runs for q in run))
    qindex = {q: i for i, q in enumerate(qids)}
    parts = [_entries(run, name, qindex) for run, name in zip(runs, names)]
    which = np.repeat(np.arange(len(runs)), [len(p[2]) for p in parts])
    qi = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    docs = np.empty(len(qi), dtype=object)
    docs[:] = list(chain.from_iterable(p[1] for p in parts))
    codes, unique_docs = pd.factorize(docs)
    text_rank = _doc_text_ranks(unique_docs, runs, names)
    n_docs = max(len(unique_docs), 1)
    cand, keys = pd.factorize(qi * n_docs + codes)
    cand_q = keys // n_docs
    order = np.argsort(cand_q, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    where = (which, position[cand])
    scores = np.full((len(runs), len(keys)), np.nan)
    scores[where] = np.concatenate([p[2] for p in parts]) if parts else []
    bounds = np.cumsum([0] + [len(p[2]) for p in parts])
    # an entry's tie key, larger first: its document id's text order, or (ties="input") how early its run lists it
    entry_key = text_rank[codes] if ties == "trec" else np.concatenate(
        [np.arange(b - a, 0, -1) for a, b in zip(bounds[:-1], bounds[1:])] or [np.zeros(0, np.int64)])
    ranks = np.full((len(runs), len(keys)), np.nan)
    ranks[where] = np.concatenate([_entry_ranks(p[0], p[2], entry_key[a:b])
                                   for p, a, b in zip(parts, bounds[:-1], bounds[1:])]) if parts else []
    tiekey = None
    if ties != "trec":
        tiekey = np.zeros((len(runs), len(keys)), dtype=np.int64)
        tiekey[where] = entry_key
    has_query = np.zeros((len(runs), len(qids)), dtype=bool)
    for i, run in enumerate(runs):
        has_query[i, [qindex[q] for q in run]] = True
    cand_q = np.asarray(cand_q[order], dtype=np.int64)
    doc_code = (keys % n_docs)[order]
    return Pool(tuple(names), qids, np.searchsorted(cand_q, np.arange(len(qids) + 1)), cand_q,
                np.asarray(unique_docs, dtype=object)[doc_code], scores, has_query, text_rank[doc_code], ranks,
                tiekey)


def warn_missing_queries(pool: Pool) -> None:
    """One UserWarning naming the queries some runs lack (they are fused over the runs that have them), attributed
    to the caller's line outside searchgrade."""
    lacking = ~pool.has_query
    if not lacking.any():
        return
    parts = []
    for name, row in zip(pool.names, lacking):
        missing = [pool.qids[i] for i in np.flatnonzero(row)]
        if missing:
            few = ", ".join(map(repr, missing[:5])) + (", ..." if len(missing) > 5 else "")
            parts.append(f"run {name} lacks {len(missing)} ({few})")
    n = int(lacking.any(axis=0).sum())
    warn_user(f"fusion: the runs do not have the same queries; {n} {'query is' if n == 1 else 'queries are'} "
              f"fused over the runs that have them: {'; '.join(parts)}")


def ceil_div(a: np.ndarray, b: int | np.ndarray) -> np.ndarray:
    """Integer ceiling of a / b, elementwise."""
    return -(-np.asarray(a) // b)

