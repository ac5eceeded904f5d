"""Qrels checked and indexed once, for any number of runs (private).

:class:`QrelsIndex` checks the grades (integers that fit in 64 bits), keeps
each query's ``{docid: grade}``, the queries in natural order, and a table of
every query's judged grades (grade >= 0) best first, from which the ideal
rankings are read.  :meth:`QrelsIndex.rows` decides which queries of a run get
a row and reports, as a ``UserWarning``, run queries without qrels, qrels
queries without a ranking, and query ids of different types (int vs str)
that keep the two from matching.
"""
from __future__ import annotations

import numbers
import re
import sys
import warnings
from itertools import chain
from typing import Iterable, Mapping, Sequence

import numpy as np

__all__ = ["QrelsIndex", "NONPOOL", "natural_key", "warn_user"]

_INT64 = np.iinfo(np.int64)
#: Code of a retrieved document that is not in the qrels (no grade can take this value).
NONPOOL = int(_INT64.min)
_RUNS = re.compile(r"\d+|\D+")  # digit runs and the text between them


def natural_key(qid) -> tuple:
    """Sort key comparing digit runs as numbers: q2 < q10, '9' < '10'."""
    s = str(qid)
    return tuple([(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _RUNS.findall(s)] + [(2, 0, s)])


_PREFIX_NUMBER = re.compile(r"(\D*)(\d+)")


def natural_sorted(ids: list) -> list:
    """ids sorted by :func:`natural_key`; when every id is text then digits (301, q12, doc_7) by a
    cheaper key that orders them the same: (text, number, id)."""
    match = _PREFIX_NUMBER.fullmatch
    try:
        found = [match(q) for q in ids]
    except TypeError:  # not all str
        return sorted(ids, key=natural_key)
    if not all(found):
        return sorted(ids, key=natural_key)
    keys = [(m.group(1), int(m.group(2)), q) for m, q in zip(found, ids)]
    return [q for _, _, q in sorted(keys)]


def warn_user(message: str) -> None:
    """A UserWarning attributed to the first caller outside searchgrade."""
    frame, level = sys._getframe(0), 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] == "searchgrade":
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def _as_grade(qid, docid, grade) -> int:
    """An integer grade, or ValueError naming the query and document."""
    if isinstance(grade, (bool, np.bool_)):
        raise ValueError(f"qrels query {qid!r} document {docid!r}: grade {grade!r} is a bool, not an integer")
    if isinstance(grade, numbers.Integral):
        return int(grade)
    if isinstance(grade, numbers.Real) and float(grade).is_integer():
        return int(grade)
    raise ValueError(f"qrels query {qid!r} document {docid!r}: grade {grade!r} is not an integer")


def _out_of_range(grades: Mapping) -> ValueError:
    """The error for the first grade that does not fit in int64 (or takes the code reserved for "not in qrels")."""
    for qid, docs in grades.items():
        for docid, g in docs.items():
            if not NONPOOL < g <= _INT64.max:
                return ValueError(f"qrels query {qid!r} document {docid!r}: grade {g!r} does not fit "
                                  f"(grades are integers from -2**63 + 1 to 2**63 - 1)")
    return ValueError("qrels: a grade does not fit in a 64-bit integer")  # not reached


def _checked(qrels: Mapping) -> dict:
    """{qid: {docid: int grade}}: a copy of the qrels with every grade checked."""
    if not isinstance(qrels, Mapping):
        raise TypeError(f"qrels must be a dict {{qid: {{docid: grade}}}}, not {type(qrels).__name__}")
    out = {}
    for qid, docs in qrels.items():
        if type(docs) is not dict and not isinstance(docs, Mapping):  # the type test is the fast path
            raise TypeError(f"qrels query {qid!r}: expected a dict {{docid: grade}}, not {type(docs).__name__}")
        if set(map(type, docs.values())) <= {int}:  # the usual case, checked at C speed
            out[qid] = dict(docs)
        else:
            out[qid] = {d: _as_grade(qid, d, g) for d, g in docs.items()}
    return out


def _all_grades(grades: Mapping, counts: np.ndarray) -> np.ndarray:
    """Every grade, query after query, as int64; ValueError naming the first one that does not fit."""
    try:
        grade = np.fromiter(chain.from_iterable(d.values() for d in grades.values()),
                            dtype=np.int64, count=int(counts.sum()))
    except OverflowError:
        raise _out_of_range(grades) from None
    if len(grade) and grade.min() == NONPOOL:
        raise _out_of_range(grades)
    return grade


def _counts(grades: Mapping) -> np.ndarray:
    """Judgments per query."""
    return np.fromiter(map(len, grades.values()), dtype=np.int64, count=len(grades))


def _judged_table(grades: Mapping) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, count, grades) of every query's judged grades (>= 0), each query's best first."""
    counts = _counts(grades)
    grade = _all_grades(grades, counts)
    query = np.repeat(np.arange(len(counts)), counts)
    judged = grade >= 0
    grade, query = grade[judged], query[judged]
    judged_counts = np.bincount(query, minlength=len(counts))
    top = int(grade.max()) if len(grade) else 0
    if len(counts) * (top + 1) < 2**62:  # sort one integer key (query, grade descending)
        key = np.sort(query * (top + 1) + (top - grade))
        grade = top - key % (top + 1)
    else:
        grade = grade[np.lexsort((-grade, query))]
    return np.cumsum(judged_counts) - judged_counts, judged_counts, grade


def _few(ids: Sequence) -> str:
    """The first five ids in natural order, then '...'."""
    ids = sorted(ids, key=natural_key)
    return ", ".join(map(repr if any(not isinstance(q, str) for q in ids[:5]) else str, ids[:5])) + (
        ", ..." if len(ids) > 5 else "")


class QrelsIndex:
    """Checked qrels with their judged grades indexed: built once, used for every run."""

    def __init__(self, qrels: Mapping):
        self.grades: dict = _checked(qrels)  # {qid: {docid: int grade}}
        _all_grades(self.grades, _counts(self.grades))  # every grade fits: checked now, not at the first run
        self._table: tuple | None = None  # (position, start, count, judged grades): built on first use
        self._natural: list | None = None  # query ids in natural order (built on first use)
        self._texts: dict | None = None  # str(qid) -> qid (built when ids fail to match)

    def natural(self) -> list:
        """Qrels query ids in natural order (q2 before q10)."""
        if self._natural is None:
            self._natural = natural_sorted(list(self.grades))
        return self._natural

    def rows(self, run: Mapping, missing: str) -> list:
        """Query ids that get a row, in natural order; warns about ids that do not match."""
        if not isinstance(run, Mapping):
            raise TypeError(f"run must be a dict {{qid: {{docid: score}}}}, not {type(run).__name__}")
        orphans = [q for q in run if q not in self.grades]
        if orphans:
            n = len(orphans)
            warn_user(f"{n} run quer{'y has' if n == 1 else 'ies have'} no qrels and "
                      f"{'was' if n == 1 else 'were'} skipped (as trec_eval does): {_few(orphans)}"
                      + self._type_note(orphans))
        natural = self.natural()
        if missing == "zero":
            return list(natural)
        rows = [q for q in natural if q in run]
        if len(rows) < len(natural):
            absent = [q for q in natural if q not in run]
            n = len(absent)
            warn_user(f"{n} qrels quer{'y is' if n == 1 else 'ies are'} not in the run and "
                      f"{'gets' if n == 1 else 'get'} no row (missing='ignore', as trec_eval does; "
                      f"missing='zero' scores {'it' if n == 1 else 'them'} on an empty ranking): {_few(absent)}"
                      + self._type_note(absent, run))
        return rows

    def _type_note(self, unmatched: Iterable, run: Mapping | None = None) -> str:
        """A sentence for a warning when unmatched ids would match as text (1 vs '1'), else ''."""
        if self._texts is None:
            self._texts = {str(q): q for q in self.grades}
        if run is None:  # run ids without qrels: do they match qrels ids as text?
            pairs = [(self._texts[str(q)], q) for q in unmatched if str(q) in self._texts]
        else:  # qrels ids without a run: do they match run ids as text?
            texts = {str(q): q for q in run}
            pairs = [(q, texts[str(q)]) for q in unmatched if str(q) in texts]
        if not pairs:
            return ""
        qrels_id, run_id = pairs[0]
        return (f". {len(pairs)} of them differ from a {'qrels' if run is None else 'run'} query id only in "
                f"type: qrels {qrels_id!r} ({type(qrels_id).__name__}) vs run {run_id!r} "
                f"({type(run_id).__name__}); convert the ids to one type (e.g. str) on both sides")

    def judged(self, rows: Sequence) -> tuple[np.ndarray, np.ndarray]:
        """(count per row, flat grades): each row's judged grades (>= 0), best first."""
        if self._table is None:  # one pass over all the qrels, kept for every run
            self._table = ({q: i for i, q in enumerate(self.grades)}, *_judged_table(self.grades))
        position, starts, counts, grades = self._table
        which = np.fromiter(map(position.__getitem__, rows), dtype=np.int64, count=len(rows))
        qcount = counts[which]
        first = np.repeat(starts[which] - (np.cumsum(qcount) - qcount), qcount)  # flat start of each row
        return qcount, grades[first + np.arange(len(first), dtype=np.int64)]
