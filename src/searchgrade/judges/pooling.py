"""TREC-style pooling replayed on a fully judged collection: the pool, its qrels, leave-one-out and what it found."""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Mapping

import pandas as pd

from ..io import trec_order
from ..io.types import Qrels, Run

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
