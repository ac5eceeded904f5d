"""Shared by every kind's kernels: a run's ranked rows (:class:`Ranked`), segment sums and scans, trec_eval's constants.

Every kernel receives a :class:`Ranked` context: the whole run, already sorted
and flattened into parallel numpy arrays (one entry per retrieved document,
query by query, in rank order), plus per-query statistics of the qrels.  A
kernel returns one float per query, computed with segment operations
(``np.bincount`` with weights, cumulative sums within segments) instead of a
Python loop over queries.  Only the tie-aware reciprocal rank runs a short loop
over the few queries that need it.  The experimental trec_eval measures (G,
ndcg_rel, Rndcg), which trec_eval defines by a sequential walk down its ideal
ranking (:func:`~searchgrade.measures.kinds.ideal._trec_ideal`), are written as the same sums taken in the same
order, so that every value is bit for bit trec_eval's.  Which kernel computes
which measure, with which parameters, is its row's, in the same kind module.

Sums that trec_eval takes rank after rank are taken in the same order here:
``np.bincount`` with weights adds each row's entries in array order, and
:func:`_local_cumsum` keeps each row's running sum to itself, so no rounding
differs from a C loop's.

Conventions shared by all kernels (``L`` is the binary relevance level):

* ``grade``: the qrels grade of each retrieved document, 0 when the document is
  not in the qrels or has a negative grade;
* ``judged``: the document has a qrels entry with grade >= 0 (a negative grade
  means "in the pool but not judged", as in trec_eval);
* relevant: ``grade >= L``; judged non-relevant: ``judged and grade < L``;
* ``R``: the number of qrels documents of the query with grade >= L.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


#: trec_eval's floor for geometric means (MIN_GEO_MEAN in trec_eval.h).
MIN_GEO_MEAN = 0.00001
#: trec_eval's smoothing constant for infAP (INFAP_EPSILON in trec_eval.h).
INFAP_EPSILON = 0.00001


@dataclass
class Ranked:
    """A run sorted into rank order and flattened, with the qrels statistics of each query."""

    n: int  # number of queries (rows of the result)
    seg: np.ndarray  # row index of each retrieved entry, non-decreasing
    rank: np.ndarray  # 1-based rank of each entry within its query
    grade: np.ndarray  # qrels grade (0 for unjudged / negative)
    judged: np.ndarray  # bool: qrels entry with grade >= 0
    nonpool: np.ndarray  # bool: not in the qrels at all
    nret: np.ndarray  # retrieved documents per row
    qseg: np.ndarray  # row of each qrels judgment (grade >= 0), rows sorted
    qgrade: np.ndarray  # grade of each qrels judgment, descending within a row
    qrank: np.ndarray  # 1-based position of each judgment in its row (ideal ranking)
    expected: bool = False  # ties="expected": tie groups are averaged over
    gid: np.ndarray | None = None  # tie group of each entry (expected mode)
    cache: dict = field(default_factory=dict)
    judged_only: bool = False  # unjudged documents were dropped before ranking

    def docids(self) -> list:
        """Document ids of all entries, in rank order (built on request)."""
        if "exact" in self.cache:  # this context left ties that no measure sees unbroken
            return self.cache["exact"]().docids()
        return self.cache["docids"]()

    # ----------------------------------------------------------- segment tools
    def ssum(self, x, mask=None) -> np.ndarray:
        """Per-row sum of x (optionally only where mask)."""
        x = np.asarray(x, dtype=np.float64)
        if mask is not None:
            seg, x = self.seg[mask], x[mask]
        else:
            seg = self.seg
        # float even when nothing is summed (numpy's bincount returns int64 for empty weights)
        return np.bincount(seg, weights=x, minlength=self.n).astype(np.float64, copy=False)

    def segcumsum(self, x) -> np.ndarray:
        """Cumulative sum of x within each row (inclusive)."""
        x = np.asarray(x, dtype=np.float64)
        c = np.cumsum(x)
        totals = np.bincount(self.seg, weights=x, minlength=self.n)
        before = np.concatenate(([0.0], np.cumsum(totals)[:-1]))
        return c - before[self.seg]

    def segcount(self, mask) -> np.ndarray:
        """Inclusive running count of mask within each row (exact integers)."""
        mask = np.asarray(mask, dtype=bool)
        c = np.cumsum(mask, dtype=np.int64)
        totals = np.bincount(self.seg[mask], minlength=self.n)
        before = np.concatenate(([0], np.cumsum(totals)[:-1]))
        return c - before[self.seg]

    def top(self, k) -> np.ndarray | None:
        """Mask of entries ranked within the cutoff k (None: no cutoff)."""
        return None if k is None else self.rank <= k

    # ----------------------------------------------------------- tie groups
    def groups(self):
        """(group size, group start offset within row, group of each entry) for ties='expected'."""
        if "groups" not in self.cache:
            size = np.bincount(self.gid)
            # the first entry of each group (none at all when every ranking is empty)
            first = np.flatnonzero(np.r_[True, self.gid[1:] != self.gid[:-1]]) if len(self.gid) else np.zeros(0, np.int64)
            start0 = self.rank[first] - 1  # entries before the group in its row
            self.cache["groups"] = (size, start0, first)
        return self.cache["groups"]

    def lin(self, x) -> np.ndarray:
        """x itself, or in expected mode its mean over each tie group (exact for linear measures)."""
        x = np.asarray(x, dtype=np.float64)
        if not self.expected:
            return x
        size = self.groups()[0]
        return (np.bincount(self.gid, weights=x, minlength=len(size)) / size)[self.gid]

    # ----------------------------------------------------------- qrels stats
    def num_rel(self, level: int) -> np.ndarray:
        """R: qrels documents with grade >= level, per row."""
        key = ("R", level)
        if key not in self.cache:
            self.cache[key] = np.bincount(self.qseg[self.qgrade >= level], minlength=self.n).astype(np.float64)
        return self.cache[key]

    def num_judged_nonrel(self, level: int) -> np.ndarray:
        """Judged non-relevant qrels documents (0 <= grade < level), per row."""
        return np.bincount(self.qseg[self.qgrade < level], minlength=self.n).astype(np.float64)

    def top_grade(self) -> np.ndarray:
        """Largest qrels grade of each row as an exact integer (0 if none)."""
        if "topg" not in self.cache:
            m = np.zeros(self.n, dtype=np.int64)
            if len(self.qgrade):
                first = np.flatnonzero(np.r_[True, self.qseg[1:] != self.qseg[:-1]])  # grades are best first
                m[self.qseg[first]] = self.qgrade[first]
            self.cache["topg"] = m
        return self.cache["topg"]

    def max_grade(self) -> np.ndarray:
        """Largest qrels grade of each row (0 if none), as floats."""
        if "maxg" not in self.cache:
            self.cache["maxg"] = self.top_grade().astype(np.float64)
        return self.cache["maxg"]

    def rel(self, level: int) -> np.ndarray:
        """Boolean relevance (grade >= level) of each retrieved entry."""
        key = ("rel", level)
        if key not in self.cache:
            self.cache[key] = self.grade >= level
        return self.cache[key]

    # ------------------------------------------------- sparse views (speed)
    # Most retrieved documents are unjudged; sums over relevant or judged
    # documents only visit those entries.  Skipping entries that add 0.0 leaves
    # every sum bit-for-bit the same.
    def where(self, what, level: int = 1) -> np.ndarray:
        """Positions of the entries that are "rel" (grade >= level), "judged" or "gain" (grade > 0), cached."""
        key = ("where", what, level)
        if key not in self.cache:
            mask = {"rel": lambda: self.rel(level), "judged": lambda: self.judged, "gain": lambda: self.grade > 0}[what]()
            self.cache[key] = np.flatnonzero(mask)
        return self.cache[key]

    def rel_hits(self, level: int, limit=None) -> np.ndarray:
        """Per-row number of relevant entries ranked at most ``limit`` (a cutoff, per-row cutoffs, or None).

        In expected mode each entry counts with its tie group's mean relevance.
        """
        if self.expected:
            mask = None if limit is None else self.rank <= (limit[self.seg] if np.ndim(limit) else limit)
            return self.ssum(self.lin(self.rel(level)), mask)
        key = ("rel_seg_rank", level)
        if key not in self.cache:  # the relevant entries' rows and ranks, for every cutoff
            idx = self.where("rel", level)
            self.cache[key] = (self.seg[idx], self.rank[idx])
        seg, rank = self.cache[key]
        if limit is not None:
            seg = seg[rank <= (limit[seg] if np.ndim(limit) else limit)]
        return np.bincount(seg, minlength=self.n).astype(np.float64)

    def rowsum(self, seg: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Per-row sum of the weights w of entries in rows seg (float even when empty)."""
        return np.bincount(seg, weights=w, minlength=self.n).astype(np.float64, copy=False)

    def running(self, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Inclusive running count of mask within each row, over the entries idx (in rank order)."""
        seg = self.seg[idx]
        c = np.cumsum(mask, dtype=np.int64)
        before = np.concatenate(([0], np.cumsum(np.bincount(seg[mask], minlength=self.n))[:-1]))
        return c - before[seg]


def _row_scan(x: np.ndarray, seg: np.ndarray, n: int, op: np.ufunc = np.add, exclusive: bool = False) -> np.ndarray:
    """Running ``op`` (np.add, np.multiply) of x within each row (seg non-decreasing), left to right.

    Unlike a scan over the whole run, no rounding error is carried from one
    query into the next.  Rows of similar length (the same power of two) are
    laid out as one padded matrix; ``exclusive`` takes the entries before each
    one only (op's identity for a row's first entry).
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(len(x))
    counts = np.bincount(seg, minlength=n)
    starts = np.cumsum(counts) - counts
    size_class = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    for c in np.unique(size_class[counts > 0]).tolist():
        rows = np.flatnonzero((size_class == c) & (counts > 0))
        width = int(counts[rows].max())
        filled = np.arange(width) < counts[rows][:, None]
        cells = (starts[rows][:, None] + np.arange(width))[filled]
        mat = np.full(filled.shape, float(op.identity))
        mat[filled] = x[cells]
        scan = op.accumulate(mat, axis=1)
        if exclusive:
            scan = np.concatenate((np.full((len(rows), 1), float(op.identity)), scan[:, :-1]), axis=1)
        out[cells] = scan[filled]
    return out


def _local_cumsum(x: np.ndarray, seg: np.ndarray, n: int, exclusive: bool = False) -> np.ndarray:
    """Cumulative sum of x within each row (:func:`_row_scan` with np.add)."""
    return _row_scan(x, seg, n, np.add, exclusive)


def _dense_rank(x: np.ndarray) -> np.ndarray:
    """0-based rank of each value among the distinct values of x (np.unique's inverse, without its hashing)."""
    if len(x) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(x)
    sorted_ = x[order]
    new = np.empty(len(x), dtype=np.int64)
    new[0] = 0
    np.not_equal(sorted_[1:], sorted_[:-1], out=new[1:])
    out = np.empty(len(x), dtype=np.int64)
    out[order] = np.cumsum(new)
    return out


def gammaln(x):
    """scipy.special.gammaln, imported when first needed (ties="expected" only)."""
    from scipy.special import gammaln as _gammaln

    return _gammaln(x)


def _div(num, den) -> np.ndarray:
    """num / den, 0 where den == 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den != 0)
    return out


def level(ctx: Ranked, m) -> int:
    """The binary relevance level of measure m: its rel= parameter or the evaluation's rel_level.

    Public for family writers: a kernel ``kernel(ctx, m)`` of a binary family counts a document
    relevant when ``ctx.grade >= level(ctx, m)`` (``ctx.rel_hits(level(ctx, m), k)``, ...).
    """
    return m.params.get("rel", m.rel_level)
