"""Qrels checked and indexed once, for any number of runs (private).

:class:`QrelsIndex` checks the grades (integers that fit in 64 bits) and keeps
the qrels as columns -- each judgment's query code, document code and grade,
whether they came as ``{qid: {docid: grade}}`` or as a file's columns -- with
the queries in natural order and a table of every query's judged grades
(grade >= 0) best first, from which the ideal rankings are read.
:meth:`QrelsIndex.rows` decides which queries of a run get a row and reports,
as a ``UserWarning``, run queries without qrels, qrels queries without a
ranking, and query ids of different types (int vs str) that keep the two from
matching. Grades that look like a run's scores (:func:`score_like`) are warned
about: the qrels and the run were probably passed the other way round.
"""
from __future__ import annotations

import numbers
import re
import sys
import warnings
from itertools import chain, repeat
from typing import Iterable, Mapping, Sequence

import numpy as np

from .options import MissingQueriesWarning

__all__ = ["QrelsIndex", "NONPOOL", "SCORE_LIKE", "natural_key", "warn_user", "factorize", "id_text", "id_texts",
           "text_matches", "score_like"]

_INT64 = np.iinfo(np.int64)
#: Code of a retrieved document that is not in the qrels (no grade can take this value).
NONPOOL = int(_INT64.min)
_RUNS = re.compile(r"\d+|\D+")  # digit runs and the text between them
_SCREEN = 4096  # from this many document ids on, QrelsIndex.doc_codes screens them first
_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd constant (the golden ratio's bits) that mixes a number's bits
#: Grades look like a run's scores when all are above this, or one query has more distinct grades than this.
SCORE_LIKE = 100


def natural_key(qid) -> tuple:
    """Sort key comparing digit runs as numbers: q2 < q10, '9' < '10'."""
    s = str(qid)
    return tuple([(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _RUNS.findall(s)] + [(2, 0, s)])


_PREFIX_LINE = re.compile(r"^[^\d\n]*(?=\d+$)", re.MULTILINE)  # a line's text before its digits, if it ends so
_NUMBER_LINE = re.compile(r"\d+$", re.MULTILINE)  # the digits that end a line


def natural_sorted(ids: list) -> list:
    """ids sorted by :func:`natural_key`; when every id is text then digits (301, q12, doc_7) by a
    cheaper key that orders them the same: (text, number, id), compared in numpy."""
    prefixes = digits = []
    if all(type(q) is str for q in ids):
        joined = "\n".join(ids)
        if joined.count("\n") == len(ids) - 1:  # no id holds a line break: one id a line
            prefixes = _PREFIX_LINE.findall(joined)  # two lists of strings, not a tuple per id: less memory
            if len(prefixes) == len(ids):  # every line is text then digits: each ends in one digit run
                digits = _NUMBER_LINE.findall(joined)
        del joined
    if len(digits) != len(ids) or not ids:
        return sorted(ids, key=natural_key)
    if max(map(len, digits)) > 18:  # a number that may not fit in int64
        return [q for _, _, q in sorted(zip(prefixes, map(int, digits), ids))]
    rank = {p: i for i, p in enumerate(sorted(set(prefixes)))}
    key_prefix = np.fromiter(map(rank.__getitem__, prefixes), dtype=np.int64, count=len(ids))
    key_number = np.fromiter(map(int, digits), dtype=np.int64, count=len(ids))
    order = np.lexsort((key_number, key_prefix))
    same = (key_prefix[order][1:] == key_prefix[order][:-1]) & (key_number[order][1:] == key_number[order][:-1])
    if same.any():  # one number written two ways (q01, q1): the id decides
        return [q for _, _, q in sorted(zip(prefixes, map(int, digits), ids))]
    return [ids[i] for i in order.tolist()]


def id_text(x) -> str:
    """An id as text for telling ids that differ only in type: 1, 1.0, b'1', np.int64(1) all read '1'."""
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, (bytes, bytearray)):
        return bytes(x).decode("utf-8", "replace")
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def id_texts(x) -> tuple[str, ...]:
    """Every text an id may have been written as: :func:`id_text`, and a float's own ``str`` (1.0: '1', '1.0')."""
    text = id_text(x)
    if isinstance(x, (float, np.floating)) and str(x) != text:
        return text, str(x)
    return (text,)


def text_matches(ids: Iterable, texts: Mapping) -> list[tuple]:
    """(id, the other side's id) for each of ``ids`` one of whose texts (:func:`id_texts`) is a key of ``texts``."""
    out = []
    for x in ids:
        hit = next((t for t in id_texts(x) if t in texts), None)
        if hit is not None:
            out.append((x, texts[hit]))
    return out


def score_like(query: np.ndarray, grade: np.ndarray) -> str | None:
    """Why integer grades look like a run's scores (1000 - rank, say), or None: every grade is above
    :data:`SCORE_LIKE` (and not all the same), or a query has more than :data:`SCORE_LIKE` distinct grades.
    Real qrels do neither
    (graded scales have a handful of levels and judge some documents 0 or 1; the book's collections and
    the shared test data, tests/measures/test_qrels.py)."""
    if not len(grade) or grade.max() <= SCORE_LIKE:
        return None
    if grade.min() > SCORE_LIKE and grade.min() < grade.max():
        return f"every grade is above {SCORE_LIKE}, from {grade.min()} to {grade.max()}"
    order = np.lexsort((grade, query))
    q, g = query[order], grade[order]
    new = np.concatenate(([True], (q[1:] != q[:-1]) | (g[1:] != g[:-1])))
    distinct = np.bincount(q[new])
    if distinct.max() > SCORE_LIKE:
        return f"a query has {distinct.max()} different grades"
    return None


def warn_user(message: str | Warning) -> None:
    """A UserWarning (or the given warning) attributed to the first caller outside searchgrade."""
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
    swapped = " (are the qrels and the run swapped?)" if isinstance(grade, numbers.Real) else ""
    raise ValueError(f"qrels query {qid!r} document {docid!r}: grade {grade!r} is not an integer{swapped}")


def _out_of_range(grades: Mapping) -> ValueError:
    """The error for the first grade that does not fit in int64 (or takes the code reserved for "not in qrels")."""
    for qid, docs in grades.items():
        for docid, g in docs.items():
            if not NONPOOL <= g <= _INT64.max:
                return ValueError(f"qrels query {qid!r} document {docid!r}: grade {g!r} does not fit "
                                  f"(grades are integers from -2**63 to 2**63 - 1)")
    return ValueError("qrels: a grade does not fit in a 64-bit integer")  # not reached


def _checked(qrels: Mapping) -> dict:
    """{qid: {docid: int grade}}: the qrels with every grade checked (a query's dict kept when its grades are ints)."""
    if not isinstance(qrels, Mapping):
        raise TypeError(f"qrels must be a dict {{qid: {{docid: grade}}}}, not {type(qrels).__name__}")
    out = {}
    for qid, docs in qrels.items():
        if type(docs) is not dict and not isinstance(docs, Mapping):  # the type test is the fast path
            raise TypeError(f"qrels query {qid!r}: expected a dict {{docid: grade}}, not {type(docs).__name__}")
        if set(map(type, docs.values())) <= {int}:  # the usual case, checked at C speed
            out[qid] = docs
        else:
            out[qid] = {d: _as_grade(qid, d, g) for d, g in docs.items()}
    return out


def _dict_arrays(qrels: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """(query code, grade) of every judgment of checked dict qrels, query after query."""
    counts = np.fromiter(map(len, qrels.values()), dtype=np.int64, count=len(qrels))
    total = int(counts.sum())
    try:
        grade = np.fromiter(chain.from_iterable(d.values() for d in qrels.values()), dtype=np.int64, count=total)
    except OverflowError:
        raise _out_of_range(qrels) from None
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts), grade


def _off_code(grade: np.ndarray) -> np.ndarray:
    """Grades with -2**63, the code of "not in the qrels", moved to -2**63 + 1: every negative grade means
    the same, in the pool but unjudged (trec_eval evaluates -2**63 so), and no measure sees which."""
    if len(grade) and grade.min() == NONPOOL:
        grade = np.where(grade == NONPOOL, NONPOOL + 1, grade)
    return grade


def factorize(ids: list) -> tuple[np.ndarray, list, dict]:
    """(code of each id, ids, {id: code}): an id's code is the position of its first occurrence, ids
    compared as dict keys compare them (codes are consistent, not dense; ``ids[code]`` is the id)."""
    first: dict = {}
    codes = np.fromiter(map(first.setdefault, ids, range(len(ids))), dtype=np.int64, count=len(ids))
    return codes, ids, first


def _judged_table(query: np.ndarray, grade: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, count, grades) of every query's judged grades (>= 0), each query's best first."""
    judged = grade >= 0
    if not judged.all():  # (no copies where every judgment is judged, as in most qrels: peak memory)
        grade, query = grade[judged], query[judged]
    del judged
    judged_counts = np.bincount(query, minlength=n)
    top = int(grade.max()) if len(grade) else 0
    if n * (top + 1) < 2**62 and top >= 0:  # sort one integer key (query, grade descending), in place
        key = query.astype(np.int32 if n * (top + 1) < 2**31 else np.int64)
        key *= top + 1
        np.subtract(key, grade, out=key, casting="unsafe")  # fits: 0 <= grade <= top
        key += top
        key.sort()
        key %= top + 1
        grade = np.subtract(top, key, dtype=np.int64)
    else:
        grade = grade[np.lexsort((-grade, query))]
    return np.cumsum(judged_counts) - judged_counts, judged_counts, grade


def _few(ids: Sequence) -> str:
    """The first five ids in natural order, then '...'."""
    ids = sorted(ids, key=natural_key)
    return ", ".join(map(repr if any(not isinstance(q, str) for q in ids[:5]) else str, ids[:5])) + (
        ", ..." if len(ids) > 5 else "")


class _Screen:
    """A table of bits, one set for each of some 64-bit numbers (mixed, then their top bits): ``passes(x)`` is
    True for each of them, and for few others (about one in 16)."""

    def __init__(self, numbers: np.ndarray):
        self.shift = np.uint64(64 - min(27, max(16, int(16 * len(numbers)).bit_length())))
        self.bits = np.zeros(1 << (64 - int(self.shift) - 3), dtype=np.uint8)
        at = self._at(numbers)
        np.bitwise_or.at(self.bits, at >> np.uint64(3), np.left_shift(np.uint8(1), (at & np.uint64(7)).astype(np.uint8)))

    def _at(self, numbers: np.ndarray) -> np.ndarray:
        return (numbers.view(np.uint64) * _MIX) >> self.shift

    def passes(self, numbers: np.ndarray) -> np.ndarray:
        """Whether each number may be one of the table's."""
        at = self._at(numbers)
        return (self.bits[at >> np.uint64(3)] >> (at & np.uint64(7)).astype(np.uint8)) & 1 == 1


class QrelsIndex:
    """Checked qrels as columns with their judged grades indexed: built once, used for every run.

    ``qrels`` is ``{qid: {docid: grade}}`` or the columns of a qrels file
    (:class:`searchgrade.io.bulk.Columns`, grades as integers).
    """

    def __init__(self, qrels):
        if hasattr(qrels, "doc_codes"):  # columns read from a file
            ids, query = list(qrels.keys), qrels.codes
            grade = _off_code(np.asarray(qrels.values, dtype=np.int64))
            self._grades, self._docs = None, (qrels.doc_codes, qrels.doc_keys, None)
            self._fold = getattr(qrels, "doc_fold", None)  # the judged ids' folds, when the bulk reader read them
        else:
            self._grades = _checked(qrels)
            ids, (query, grade) = list(self._grades), _dict_arrays(self._grades)
            if len(grade) and grade.min() == NONPOOL:  # the dict is looked up too: moved there as well
                grade = _off_code(grade)
                self._grades = {q: {d: NONPOOL + 1 if g == NONPOOL else g for d, g in docs.items()}
                                for q, docs in self._grades.items()}
            self._docs, self._fold = None, None
        self.ids: dict = {q: i for i, q in enumerate(ids)}  # query id -> query code
        self.query, self.grade = query, grade
        why = score_like(np.asarray(query), grade)
        if why:
            warn_user(f"the qrels' grades look like a run's scores ({why}): are the qrels and the run swapped? "
                      "(qrels come first: evaluate(qrels, run, measures))")
        self.from_file = self._grades is None  # the columns of a file: every id is text
        self._table = _judged_table(np.asarray(query), grade, len(ids))
        self._by_query: tuple | None = None  # where each query's judgments are (built on first use)
        self._screens: dict = {}  # bit tables of the judged document ids' folds or hashes (built on first use)
        self._sorted_folds = None  # (sorted folds, codes), False where two ids share a fold (first use)
        self._natural: list | None = None  # query ids in natural order (built on first use)
        self._texts: dict | None = None  # str(qid) -> qid (built when ids fail to match)

    @property
    def grades(self) -> dict:
        """``{qid: {docid: grade}}`` (of a file's columns: built on first use)."""
        if self._grades is None:
            from ..io.frames import nest  # only a file's qrels meeting a dict run need it

            doc, keys, _ = self._docs
            docs = np.array(keys, dtype=object)[doc].tolist()
            self._grades = {q: {} for q in self.ids}  # queries without a judgment too
            nested = nest(np.asarray(self.query), list(self.ids), docs, self.grade.tolist())
            if nested is None:
                raise ValueError("qrels: a document is judged twice for one query")
            self._grades.update(nested)
        return self._grades

    def docs(self) -> tuple[np.ndarray, list, dict]:
        """(document code of each judgment, document ids by code, {docid: code}), built on first use."""
        if self._docs is None:  # dict qrels
            self._docs = factorize(list(chain.from_iterable(self._grades.values())))
        elif self._docs[2] is None:  # a file's distinct document ids
            self._docs = (*self._docs[:2], {d: i for i, d in enumerate(self._docs[1])})
        return self._docs

    def doc_ids(self) -> tuple[np.ndarray, list]:
        """(document code of each judgment, document ids by code), without the dict of :meth:`docs`."""
        if self._docs is None:
            self.docs()
        return self._docs[0], self._docs[1]

    def doc_codes(self, ids: Sequence, fold: np.ndarray | None = None) -> np.ndarray:
        """The code of each document id in the qrels (as :meth:`docs`' dict gives it), -1 for one not in them.

        Most documents of a run are not judged, and a dict lookup that misses costs about as much as one
        that hits (a cache miss in a large dict); so many ids are first screened, each by one bit of a table
        of the judged ids' numbers (their :func:`searchgrade.io.fields.fold`, given as ``fold`` for ids read
        from a file by the bulk reader as the qrels were, else their hash): equal ids have equal numbers, so
        none is screened out wrongly.  With folds, the ids that pass are found among the judged ids' sorted
        folds and compared as text, and the qrels need no dict (its memory: a str per judged document)."""
        keys = self.doc_ids()[1]
        kind = np.int32 if len(keys) < 2**31 else np.int64
        by_fold = fold is not None and self._fold_join() is not None
        if not len(ids):
            return np.zeros(0, dtype=kind)
        if (len(ids) < _SCREEN and not by_fold) or not keys:
            code = self.docs()[2]
            return np.fromiter(map(code.get, ids, repeat(-1)), dtype=kind, count=len(ids))
        if by_fold not in self._screens:
            mine = self._fold if by_fold else np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
            self._screens[by_fold] = _Screen(mine)
        theirs = fold if by_fold else np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids))
        maybe = np.flatnonzero(self._screens[by_fold].passes(theirs))
        out = np.full(len(ids), -1, dtype=kind)
        if by_fold:
            folds, order = self._fold_join()
            at = np.minimum(np.searchsorted(folds, fold[maybe]), len(folds) - 1)
            maybe, at = maybe[folds[at] == fold[maybe]], order[at[folds[at] == fold[maybe]]]
            same = np.fromiter(map(str.__eq__, map(keys.__getitem__, at.tolist()), map(ids.__getitem__,
                               maybe.tolist())), dtype=bool, count=len(maybe))
            out[maybe[same]] = at[same]
            return out
        code = self.docs()[2]
        out[maybe] = np.fromiter(map(code.get, map(ids.__getitem__, maybe.tolist()), repeat(-1)), dtype=kind,
                                 count=len(maybe))
        return out

    def _fold_join(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(the judged ids' folds sorted, the code of each), or None without folds or where two judged ids
        share a fold (then ids are looked up by dict)."""
        if self._fold is not None and self._sorted_folds is None:
            order = np.argsort(self._fold, kind="stable")
            folds = self._fold[order]
            self._sorted_folds = False if bool((folds[1:] == folds[:-1]).any()) else (folds, order)
        return self._sorted_folds or None

    def natural(self) -> list:
        """Qrels query ids in natural order (q2 before q10)."""
        if self._natural is None:
            self._natural = natural_sorted(list(self.ids))
        return self._natural

    def rows(self, run_ids: Mapping, missing: str) -> list:
        """Query ids that get a row, in natural order; warns about ids that do not match.

        ``run_ids``: the run's query ids (a dict or its keys as a dict), for membership tests.
        """
        orphans = [q for q in run_ids if q not in self.ids]
        if orphans:
            n = len(orphans)
            warn_user(f"{n} run quer{'y has' if n == 1 else 'ies have'} no qrels and "
                      f"{'was' if n == 1 else 'were'} skipped (as trec_eval does): {_few(orphans)}"
                      + self._type_note(orphans))
        natural = self.natural()
        if missing == "zero":
            return list(natural)
        rows = [q for q in natural if q in run_ids]
        if len(rows) < len(natural):
            absent = [q for q in natural if q not in run_ids]
            warn_user(MissingQueriesWarning(absent, _few(absent), self._type_note(absent, run_ids)))
        return rows

    def _type_note(self, unmatched: Iterable, run: Mapping | None = None) -> str:
        """A sentence for a warning when unmatched ids would match as text (1 vs '1'), else ''."""
        if self._texts is None:
            self._texts = {t: q for q in self.ids for t in id_texts(q)}
        if run is None:  # run ids without qrels: do they match qrels ids as text?
            pairs = [(qrels_id, q) for q, qrels_id in text_matches(unmatched, self._texts)]
        else:  # qrels ids without a run: do they match run ids as text?
            pairs = text_matches(unmatched, {t: q for q in run for t in id_texts(q)})
        if not pairs:
            return ""
        qrels_id, run_id = pairs[0]
        return (f". {len(pairs)} of them differ from a {'qrels' if run is None else 'run'} query id only in "
                f"type: qrels {qrels_id!r} ({type(qrels_id).__name__}) vs run {run_id!r} "
                f"({type(run_id).__name__}); convert the ids to one type (e.g. str) on both sides")

    def codes(self, rows: Sequence) -> np.ndarray:
        """The query code of each row."""
        return np.fromiter(map(self.ids.__getitem__, rows), dtype=np.int64, count=len(rows))

    def judgments(self, rows: Sequence) -> tuple[np.ndarray, np.ndarray]:
        """(row of each judgment, its position in the columns): the rows' judgments, row after row, each row's
        in qrels order.  Read off a table of where each query's judgments are (built on first use), so that
        a few rows cost their judgments, not the whole qrels (a run scored a block of queries at a time)."""
        if self._by_query is None:
            query = np.asarray(self.query)
            counts = np.bincount(query, minlength=len(self.ids))
            grouped = len(query) < 2 or bool((query[1:] >= query[:-1]).all())
            self._by_query = (None if grouped else np.argsort(query, kind="stable"), np.cumsum(counts) - counts,
                              counts)
        order, starts, counts = self._by_query
        which = self.codes(rows)
        n = counts[which]
        at = np.repeat(starts[which] - (np.cumsum(n) - n), n) + np.arange(int(n.sum()), dtype=np.int64)
        return np.repeat(np.arange(len(rows), dtype=np.int64), n), (at if order is None else order[at])

    def judged(self, rows: Sequence) -> tuple[np.ndarray, np.ndarray]:
        """(count per row, flat grades): each row's judged grades (>= 0), best first."""
        starts, counts, grades = self._table
        which = self.codes(rows)
        qcount = counts[which]
        first = np.repeat(starts[which] - (np.cumsum(qcount) - qcount), qcount)  # flat start of each row
        return qcount, grades[first + np.arange(len(first), dtype=np.int64)]
