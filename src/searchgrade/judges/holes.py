"""Filling the holes of qrels: the unjudged top-k documents of runs, graded by a judge."""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..io import trec_order
from .base import Judge, Pair, _describe
from .pooling import _check_depth, _check_qrels, _check_runs


def _runs_dict(runs) -> Mapping[str, Mapping[str, Mapping[str, float]]]:
    """Accept one run ``{qid: {docid: score}}`` or ``{name: run}``; return ``{name: run}`` (validated)."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("runs must be a non-empty run {qid: {docid: score}} or {system_name: run}")
    first = next(iter(runs.values()))
    inner = next(iter(first.values()), None) if isinstance(first, Mapping) else None
    if isinstance(inner, Mapping):  # {name: {qid: {docid: score}}}
        _check_runs(runs)
        return runs
    _check_runs({"run": runs})
    return {"run": runs}


def holes(qrels: Mapping[str, Mapping[str, int]], runs, k: int) -> list[Pair]:
    """The (qid, docid) pairs in the top ``k`` (trec order) of any run that qrels do not judge (absent or grade < 0).

    ``runs`` is one run or ``{name: run}``. Queries of a run that qrels do not hold are
    not evaluated and so have no holes; if no query of any run is in qrels, the ids are
    mismatched and a ValueError says so. Pairs come sorted, each once.
    """
    k = _check_depth(k)
    _check_qrels(qrels)
    runs = _runs_dict(runs)
    seen: set[Pair] = set()
    overlap = False
    for run in runs.values():
        for qid, docs in run.items():
            judged = qrels.get(qid)
            if judged is None:
                continue
            overlap = True
            for docid in trec_order(docs, k):
                if judged.get(docid, -1) < 0:
                    seen.add((qid, docid))
    if not overlap:
        some_run = next(iter(runs.values()))
        raise ValueError(f"no query of the runs is in qrels (run queries e.g. {_describe(sorted(some_run), 3)}, "
                         f"qrels queries e.g. {_describe(sorted(qrels), 3)}): mismatched ids?")
    return sorted(seen)


def add_judgments(qrels: Mapping[str, Mapping[str, int]], pairs: Sequence[Pair], grades) -> dict[str, dict[str, int]]:
    """A copy of qrels with ``grades[i]`` added for ``pairs[i]``; a pair already judged (grade >= 0) is an error."""
    _check_qrels(qrels)
    pairs = list(pairs)
    grades = list(np.asarray(grades).ravel()) if not isinstance(grades, list) else grades
    if len(pairs) != len(grades):
        raise ValueError(f"{len(pairs)} pairs but {len(grades)} grades: they must match one to one")
    out = {q: dict(docs) for q, docs in qrels.items()}
    for i, ((qid, docid), grade) in enumerate(zip(pairs, grades)):
        if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, (numbers.Integral, np.integer)):
            raise TypeError(f"pair {i} ({qid!r}, {docid!r}): grade {grade!r} is not an integer")
        row = out.setdefault(qid, {})
        if row.get(docid, -1) >= 0:
            raise ValueError(f"pair {i}: ({qid!r}, {docid!r}) is already judged (grade {row[docid]}); "
                             f"add_judgments only fills holes")
        row[docid] = int(grade)
    return out


def fill_holes(qrels: Mapping[str, Mapping[str, int]], runs, judge: Judge, k: int) -> dict[str, dict[str, int]]:
    """qrels with every hole in the top ``k`` of the runs (:func:`holes`) graded by ``judge``."""
    if not isinstance(judge, Judge):
        raise TypeError(f"judge must be a searchgrade.judges.Judge, not {type(judge).__name__}")
    pairs = holes(qrels, runs, k)
    return add_judgments(qrels, pairs, judge.judge_many(pairs))
