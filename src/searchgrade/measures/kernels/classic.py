"""Vectorised measure kernels behind :mod:`searchgrade.metrics` (private).

Every kernel receives a :class:`Ranked` context: the whole run, already sorted
and flattened into parallel numpy arrays (one entry per retrieved document,
query by query, in rank order), plus per-query statistics of the qrels.  A
kernel returns one float per query, computed with segment operations
(``np.bincount`` with weights, cumulative sums within segments) instead of a
Python loop over queries.  Only the tie-aware reciprocal rank runs a short loop
over the few queries that need it.  The experimental trec_eval measures (G,
ndcg_rel, Rndcg), which trec_eval defines by a sequential walk down its ideal
ranking (:func:`_trec_ideal`), are written as the same sums taken in the same
order, so that every value is bit for bit trec_eval's.  Which kernel computes
which measure, with which parameters, is recorded in :mod:`searchgrade.measures.registry`.

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
from itertools import chain

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
        docs = list(chain.from_iterable(self.cache["dicts"]))  # the run's docids, in input order
        return [docs[j] for j in self.cache["order"].tolist()]

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


def _level(ctx: Ranked, m) -> int:
    """The binary relevance level of measure m: its rel= parameter or the evaluation's rel_level."""
    return m.params.get("rel", m.rel_level)


# ===================================================================== kernels
def precision(ctx, m):
    """P@k = |relevant in top k| / k (trec_eval P_k; a short run counts as non-relevant padding)."""
    k = m.cutoff
    return ctx.rel_hits(_level(ctx, m), k) / k


def recall(ctx, m):
    """R@k = |relevant in top k| / R (0 when R = 0)."""
    L = _level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), ctx.num_rel(L))


def relative_precision(ctx, m):
    """RelP@k = |relevant in top k| / min(k, R) (trec_eval relative_P_k)."""
    L = _level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), np.minimum(m.cutoff, ctx.num_rel(L)))


def hit(ctx, m):
    """Hit@k = 1 if a relevant document is in the top k, else 0 (trec_eval success_k)."""
    L, k = _level(ctx, m), m.cutoff
    rel = ctx.rel(L)
    if not ctx.expected:
        return (ctx.rel_hits(L, k) > 0).astype(np.float64)
    # Expected value: 1 - P(no relevant document in the top k).  A tie group of
    # size n holding r relevant documents, of which m positions fall within the
    # cutoff, contributes P(none of the m is relevant) = C(n-r, m) / C(n, m).
    size, start0, first = ctx.groups()
    r = np.bincount(ctx.gid, weights=rel.astype(np.float64), minlength=len(size))
    inside = np.clip(k - start0, 0, size).astype(np.float64)
    zero = inside > size - r  # cannot avoid a relevant document
    logp = np.zeros(len(size))
    ok = ~zero & (inside > 0) & (r > 0)
    n_, r_, m_ = size[ok].astype(np.float64), r[ok], inside[ok]
    logp[ok] = gammaln(n_ - r_ + 1) - gammaln(n_ - r_ - m_ + 1) - gammaln(n_ + 1) + gammaln(n_ - m_ + 1)
    row = ctx.seg[first]
    sure = np.bincount(row[zero], minlength=ctx.n) > 0
    p_none = np.exp(np.bincount(row, weights=logp, minlength=ctx.n))
    return np.where(sure, 1.0, 1.0 - p_none)


def r_precision(ctx, m):
    """Rprec = |relevant in top R| / R: precision after R documents (0 when R = 0)."""
    L = _level(ctx, m)
    R = ctx.num_rel(L)
    return _div(ctx.rel_hits(L, R), R)


def rprec_mult(ctx, m):
    """RprecMult(m=x) = P@c with c = floor(x*R + 0.9) (trec_eval Rprec_mult_x; 0 when c = 0)."""
    L = _level(ctx, m)
    R = ctx.num_rel(L)
    c = np.floor(m.params["m"] * R + 0.9)
    return _div(ctx.rel_hits(L, c), c)


def average_precision(ctx, m):
    """AP = (1/R) * sum over relevant ranks i (within the cutoff) of P@i; AP@k keeps the divisor R."""
    L, k = _level(ctx, m), m.cutoff
    rel = ctx.rel(L)
    R = ctx.num_rel(L)
    if not ctx.expected:  # only relevant ranks add a term: P@i = (i-th relevant of the row) / rank
        idx = ctx.where("rel", L)
        seg, rank = ctx.seg[idx], ctx.rank[idx]
        crel = ctx.running(idx, np.ones(len(idx), dtype=bool))
        terms = crel / rank
        if k is not None:
            seg, terms = seg[rank <= k], terms[rank <= k]
        return _div(ctx.rowsum(seg, terms), R)
    # E[AP] (McSherry & Najork 2008): for position i in tie group G (n docs,
    # r relevant, C relevant documents in earlier groups, i0 = positions of G
    # before i): E[rel_i * sum_{j<=i} rel_j] = r/n * (1 + C + i0*(r-1)/(n-1)).
    size, start0, first = ctx.groups()
    relf = rel.astype(np.float64)
    r = np.bincount(ctx.gid, weights=relf, minlength=len(size))
    crel = ctx.segcumsum(relf)
    c_before = (crel - relf)[first]  # relevant documents before each group
    n_e = size[ctx.gid].astype(np.float64)
    r_e = r[ctx.gid]
    i0 = ctx.rank - 1 - start0[ctx.gid]
    pair = _div(r_e - 1, n_e - 1)
    terms = (r_e / n_e) * (1 + c_before[ctx.gid] + i0 * pair) / ctx.rank
    return _div(ctx.ssum(terms, ctx.top(k)), R)


def reciprocal_rank(ctx, m):
    """RR = 1 / rank of the first relevant document (0 if none, or none within the cutoff k)."""
    L, k = _level(ctx, m), m.cutoff
    rel = ctx.rel(L)
    out = np.zeros(ctx.n)
    idx = np.flatnonzero(rel)
    if len(idx) == 0:
        return out
    seg = ctx.seg[idx]  # rows of the relevant entries, non-decreasing
    first = np.flatnonzero(np.concatenate(([True], seg[1:] != seg[:-1])))
    rows = seg[first]
    first_idx = idx[first]
    ranks = ctx.rank[first_idx].astype(np.float64)
    if not ctx.expected:
        val = 1.0 / ranks
        if k is not None:
            val = np.where(ranks <= k, val, 0.0)
        out[rows] = val
        return out
    # Expected value over the first tie group holding a relevant document: with
    # s documents before it, n in it and r relevant, the first relevant one sits
    # at s + j with P(j) = C(n-j, r-1) / C(n, r), j = 1 .. n-r+1.
    size, start0, _ = ctx.groups()
    relf = rel.astype(np.float64)
    r_g = np.bincount(ctx.gid, weights=relf, minlength=len(size))
    for row, i in zip(rows, first_idx):
        g = ctx.gid[i]
        n, r, s = int(size[g]), int(r_g[g]), int(start0[g])
        j = np.arange(1, n - r + 2, dtype=np.float64)
        logp = (gammaln(n - j + 1) - gammaln(r) - gammaln(n - j - r + 2)) - (
            gammaln(n + 1) - gammaln(r + 1) - gammaln(n - r + 1))
        pos = s + j
        w = np.exp(logp) / pos
        if k is not None:
            w = np.where(pos <= k, w, 0.0)
        out[row] = w.sum()
    return out


_EXP_FLOOR = -1100  # 2^-1100 is 0 in float64: exponents below it need not be told apart


def _pow2(e: np.ndarray) -> np.ndarray:
    """2^e for integer exponents e <= 0, exact down to the smallest float (np.ldexp)."""
    return np.ldexp(1.0, np.maximum(e, _EXP_FLOOR).astype(np.int32))


def _exp_scale(ctx, m) -> np.ndarray | None:
    """Per-row exponent s by which exponential gains are scaled down (2^-s), or None for linear gains.

    s is the row's largest qrels grade: every retrieved grade is at most s, so
    (2^g - 1) / 2^s = 2^(g-s) - 2^-s lies in [0, 1) and stays finite for any grade.
    """
    if m.params.get("gain", "linear") != "exp":
        return None
    return ctx.top_grade()


def _gain(ctx, m, grade, seg, judged=None):
    """Gain of each grade (entries in rows seg): linear g, custom gains={g: v}, or exp (2^g - 1) / 2^s.

    Custom gains apply to judged documents (``judged``; None: all are, as in
    the ideal ranking): an unjudged document gains 0 even when grade 0 has a
    gain (trec_eval's ndcg.0=v).  Exponential gains come scaled by 2^-s per row
    (:func:`_exp_scale`): nDCG's ratio does not change (a power of two scales
    exactly), DCG and CG scale back.
    """
    scale = _exp_scale(ctx, m)
    if scale is not None:  # grade 0 gains exactly 0: compute the others only
        out = np.zeros(len(grade))
        pos = np.flatnonzero(grade > 0)
        s = scale[seg[pos]]
        out[pos] = _pow2(grade[pos] - s) - _pow2(-s)
        return out
    g = grade.astype(np.float64)
    gains = _gain_items(m)
    if gains:
        out = g.copy()
        for level, value in gains:
            hit = grade == level
            out[hit if level or judged is None else hit & judged] = value
        return out
    return g


def _gain_items(m) -> list:
    """The measure's gains per grade as (grade, gain) pairs, in the order given (none: [])."""
    gains = m.params.get("gains") or ()
    return list(gains.items()) if isinstance(gains, dict) else list(gains)


def _gain_entries(ctx, m) -> np.ndarray:
    """Positions of the retrieved entries that can gain: grade > 0, or judged when grade 0 has a gain."""
    return ctx.where("judged") if dict(_gain_items(m)).get(0) else ctx.where("gain")


def _unscale(ctx, m, values: np.ndarray) -> np.ndarray:
    """DCG/CG values computed with scaled exponential gains, scaled back by 2^s; ValueError on overflow."""
    scale = _exp_scale(ctx, m)
    if scale is None:
        return values
    with np.errstate(over="ignore"):
        out = np.ldexp(values, np.minimum(scale, 2000).astype(np.int32))
    bad = ~np.isfinite(out)
    if bad.any():
        g = int(scale[np.flatnonzero(bad)[0]])
        raise ValueError(f"measure {m.name!r}: with gain=exp the gain 2^g - 1 of grade {g} does not fit in a "
                         f"float (the largest is about 2^1024); nDCG(gain=exp), a ratio, stays finite")
    return out


def _discounted(m, w, rank, ctx=None):
    """Gains w at ranks ``rank`` discounted: w / log2(rank + 1) (a division, as trec_eval's), or
    Jarvelin-Kekalainen: w for rank < b, w / log_b(rank) from rank b on."""
    if m.params.get("discount", "log2") == "jk":
        rank = rank.astype(np.float64)
        b = float(m.params.get("b", 2))
        return w * np.where(rank < b, 1.0, np.log(b) / np.log(np.maximum(rank, b)))
    return w / _log2_table(ctx, rank)[rank]


def _log2_table(ctx, rank) -> np.ndarray:
    """log2(r + 1) for r = 0 .. the largest rank (index r), kept in the context: one log2 per rank."""
    top = int(rank.max(initial=0))
    table = ctx.cache.get("log2") if ctx is not None else None
    if table is None or len(table) <= top:
        table = np.log2(np.arange(max(top, 1023) + 1, dtype=np.float64) + 1.0)
        if ctx is not None:
            ctx.cache["log2"] = table
    return table


def _dcg(ctx, m, discounted=True):
    """Per-row DCG (or CG) of the run within the cutoff."""
    if not ctx.expected:  # documents with grade 0 gain 0 (unless gains= says otherwise): visit the others only
        idx = _gain_entries(ctx, m)
        seg, rank = ctx.seg[idx], ctx.rank[idx]
        if m.cutoff is not None:
            keep = rank <= m.cutoff
            idx, seg, rank = idx[keep], seg[keep], rank[keep]
        w = _gain(ctx, m, ctx.grade[idx], seg, ctx.judged[idx])
        if discounted:
            w = _discounted(m, w, rank, ctx)
        return ctx.rowsum(seg, w)
    gain = ctx.lin(_gain(ctx, m, ctx.grade, ctx.seg, ctx.judged))
    w = _discounted(m, gain, ctx.rank, ctx) if discounted else gain
    return ctx.ssum(w, ctx.top(m.cutoff))


def _ideal_dcg(ctx, m, discounted=True):
    """Per-row DCG of the ideal ranking within the cutoff: all judged documents by decreasing gain (a gain
    below 0 is left out), or with ``ideal=trec`` trec_eval's walk over its gains (:func:`_trec_ideal`)."""
    if m.params.get("ideal") == "trec":
        ideal = _trec_ideal(ctx, m)
        seg, g, pos = ideal.seg, ideal.gain, ideal.pos
    else:
        g = _gain(ctx, m, ctx.qgrade, ctx.qseg)
        if _gain_items(m):  # custom gains need not follow the grades' order
            g = np.maximum(g[np.lexsort((-g, ctx.qseg))], 0.0)
        seg, pos = ctx.qseg, ctx.qrank
    if m.cutoff is not None:
        keep = pos <= m.cutoff
        seg, g, pos = seg[keep], g[keep], pos[keep]
    w = _discounted(m, g, pos, ctx) if discounted else g
    return np.bincount(seg, weights=w, minlength=ctx.n)


def ndcg(ctx, m):
    """nDCG@k = DCG@k / ideal DCG@k, DCG@k = sum_{i<=k} gain(g_i) * discount(i) (0 if no positive gain)."""
    return _div(_dcg(ctx, m), _ideal_dcg(ctx, m))


def dcg(ctx, m):
    """DCG@k = sum over ranks i <= k of gain(g_i) * discount(i) (not normalised)."""
    return _unscale(ctx, m, _dcg(ctx, m))


def cg(ctx, m):
    """CG@k = sum over ranks i <= k of gain(g_i) (cumulated gain, no discount)."""
    return _unscale(ctx, m, _dcg(ctx, m, discounted=False))


def _rbp_gain(ctx, m):
    """RBP gain: binary at rel= if given; min(grade, G) / G with G = max_grade= if given; with gains= the
    gain of each grade, rescaled as trec_eval's rbp does (:func:`_rbp_scale`); otherwise grade / the
    largest grade in the query's qrels (trec_eval's rbp with every grade gaining itself)."""
    if "rel" in m.params:
        return ctx.rel(m.params["rel"]).astype(np.float64)
    if _gain_items(m):
        gain = _gain(ctx, m, ctx.grade, ctx.seg, ctx.judged)
        lo, hi = _rbp_scale(ctx, m)
        lo, hi = lo[ctx.seg], hi[ctx.seg]
        rescale = ctx.judged & ((lo < 0) | (hi > 1))  # documents without a judgment gain 0 (trec_eval's get_gain)
        gain[rescale] = (gain[rescale] - lo[rescale]) / (hi[rescale] - lo[rescale])
        return gain
    grade = np.maximum(ctx.grade.astype(np.float64), 0.0)
    if "max_grade" in m.params:
        gmax = float(m.params["max_grade"])
        return np.minimum(grade, gmax) / gmax
    gain = np.zeros(len(grade))  # grade / the row's largest grade, where the grade is above 0
    idx = ctx.where("gain")
    gain[idx] = grade[idx] / ctx.max_grade()[ctx.seg[idx]]
    return gain


def _rbp_scale(ctx, m) -> tuple[np.ndarray, np.ndarray]:
    """Per row (min, max) of trec_eval's rbp gains, both taken with 0: the gains listed, and grade g
    for each grade g from 0 to the row's largest that is not listed (m_rbp.c, its min and max zeroed)."""
    given = dict(_gain_items(m))
    top = ctx.top_grade()
    lo, hi = np.zeros(ctx.n), np.zeros(ctx.n)
    for t in np.unique(top).tolist():
        table = list(given.values()) + [float(g) for g in range(t + 1) if g not in given]
        rows = top == t
        lo[rows], hi[rows] = min(0.0, *table), max(0.0, *table)
    return lo, hi


def _powers(p: float, n: int) -> np.ndarray:
    """p^0 .. p^n, each the one before times p, as trec_eval's loops take them (np.cumprod is sequential)."""
    pw = np.full(n + 1, p)
    pw[0] = 1.0
    return np.cumprod(pw)


def rbp(ctx, m):
    """RBP(p) = (1 - p) * sum_i gain_i * p^(i-1) (Moffat & Zobel 2008)."""
    p = m.params["p"]
    pw = _powers(p, int(ctx.nret.max(initial=0)))
    gain = _rbp_gain(ctx, m)
    if ctx.expected:
        return (1 - p) * ctx.ssum(ctx.lin(gain) * pw[ctx.rank - 1], ctx.top(m.cutoff))
    idx = np.flatnonzero(gain != 0)  # adding gain 0 changes no sum
    if m.cutoff is not None:
        idx = idx[ctx.rank[idx] <= m.cutoff]
    return (1 - p) * ctx.rowsum(ctx.seg[idx], gain[idx] * pw[ctx.rank[idx] - 1])


def rbp_resid(ctx, m):
    """RBP_resid(p) = p^n + (1 - p) * sum over unjudged ranks i <= n of p^(i-1), n = min(k, docs retrieved).

    With ``tail=unjudged`` (trec_eval's rbp_resid) the value is 0 when no unjudged document is
    among the n: trec_eval sets it only then, dropping the residual p^n of the documents not retrieved.
    """
    p = m.params["p"]
    k = m.cutoff
    n = ctx.nret if k is None else np.minimum(ctx.nret, k)
    pw = _powers(p, int(ctx.nret.max(initial=0)))
    unjudged = ~ctx.judged
    if ctx.expected:
        value = pw[n] + (1 - p) * ctx.ssum(ctx.lin(unjudged) * pw[ctx.rank - 1], ctx.top(k))
    else:
        idx = np.flatnonzero(unjudged if k is None else unjudged & (ctx.rank <= k))
        value = pw[n] + (1 - p) * ctx.rowsum(ctx.seg[idx], pw[ctx.rank[idx] - 1])
    if m.params.get("tail") == "unjudged":
        inside = unjudged if k is None else unjudged & (ctx.rank <= k)
        value = np.where(np.bincount(ctx.seg[inside], minlength=ctx.n) > 0, value, 0.0)
    return value


def err(ctx, m):
    """ERR@k = sum_i (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^g_i - 1) / 2^gmax (Chapelle et al. 2009).

    gmax is ``max_grade=`` or the query's largest grade; grades above it count
    as gmax.  R_i = 2^(g_i - gmax) - 2^-gmax and log(1 - R_j) (exactly
    -gmax log 2 when g_j = gmax) are computed with ldexp and log1p, so any grade
    stays finite; the product runs within each query on its own.
    """
    top = np.full(ctx.n, m.params["max_grade"], np.int64) if "max_grade" in m.params else ctx.top_grade()
    idx = ctx.where("gain")  # only grades > 0 have R > 0 (and 1 - R < 1)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    if m.cutoff is not None:
        keep = rank <= m.cutoff
        idx, seg, rank = idx[keep], seg[keep], rank[keep]
    gmax = top[seg]
    g = np.minimum(ctx.grade[idx], gmax)
    stop = _pow2(g - gmax) - _pow2(-gmax)
    with np.errstate(divide="ignore"):
        log_keep = np.where(g == gmax, -gmax * np.log(2.0), np.log1p(_pow2(-gmax) - _pow2(g - gmax)))
    before = _local_cumsum(log_keep, seg, ctx.n, exclusive=True)  # log prod_{j<i} (1 - R_j)
    return ctx.rowsum(seg, stop * np.exp(before) / rank)


def bpref(ctx, m):
    """Bpref = (1/R) sum over retrieved relevant r of (1 - min(N_r, R) / min(N, R)) (Buckley & Voorhees 2004).

    N_r: judged non-relevant documents ranked above r; N: judged non-relevant
    documents in the qrels.  Unjudged documents are skipped (trec_eval's bpref).
    """
    L = _level(ctx, m)
    if ("bpref", L) in ctx.cache:  # Bpref and GMBpref: one value per query
        return ctx.cache[("bpref", L)].copy()
    R = ctx.num_rel(L)
    N = ctx.num_judged_nonrel(L)
    idx = ctx.where("judged")  # only judged documents matter: visit those
    rel = ctx.grade[idx] >= L
    n_above = ctx.running(idx, ~rel)  # judged non-relevant at or above each entry
    seg = ctx.seg[idx][rel]
    terms = 1.0 - _div(np.minimum(n_above[rel], R[seg]), np.minimum(N, R)[seg])
    ctx.cache[("bpref", L)] = out = _div(ctx.rowsum(seg, terms), R)
    return out.copy()


def infap(ctx, m):
    """infAP (Yilmaz & Aslam 2006) exactly as trec_eval computes it; equals AP when every document is judged.

    Only documents in the pool (judged, or pooled and unjudged) count: the running counts are taken over
    those entries alone, the terms at the relevant ones.
    """
    L = _level(ctx, m)
    idx = np.flatnonzero(~ctx.nonpool)  # in the pool: judged, or pooled but unjudged (negative grade)
    judged = ctx.judged[idx]
    rel = judged & (ctx.grade[idx] >= L)
    rel_so_far = ctx.running(idx, rel)[rel].astype(np.float64)
    nonrel_so_far = ctx.running(idx, judged & ~rel)[rel].astype(np.float64)
    unj_so_far = ctx.running(idx, ~judged)[rel].astype(np.float64)
    seg = ctx.seg[idx][rel]
    j = ctx.rank[idx][rel] - 1.0
    safe_j = np.maximum(j, 1.0)
    e = INFAP_EPSILON
    term = 1.0 / (j + 1) + (j / (j + 1)) * ((rel_so_far - 1 + nonrel_so_far + unj_so_far) / safe_j) * (
        (rel_so_far - 1 + e) / (rel_so_far - 1 + nonrel_so_far + 2 * e))
    term = np.where(j == 0, 1.0, term)
    return _div(ctx.rowsum(seg, term), ctx.num_rel(L))


def judged_at(ctx, m):
    """Judged@k = |documents with a judgment (grade >= 0) in the top k| / k."""
    return ctx.ssum(ctx.lin(ctx.judged), ctx.top(m.cutoff)) / m.cutoff


def hole_at(ctx, m):
    """Hole@k = 1 - Judged@k (a short run's missing ranks count as holes)."""
    return 1.0 - judged_at(ctx, m)


def unjudged_at(ctx, m):
    """Unj@k = |unjudged documents in the top k| / k (trec_eval unj_k; = Hole@k when at least k retrieved)."""
    return ctx.ssum(ctx.lin(~ctx.judged), ctx.top(m.cutoff)) / m.cutoff


def _lround(x):
    """C's lround for non-negative doubles: round half away from zero."""
    f = np.floor(x)
    return f + ((x - f) >= 0.5)


def _iprec(ctx, L, levels):
    """Interpolated precision at each recall level: rows x levels (trec_eval iprec_at_recall)."""
    R = ctx.num_rel(L)
    out = np.zeros((ctx.n, len(levels)))
    if ("iprec", L) not in ctx.cache:
        ctx.cache[("iprec", L)] = _interpolated(ctx, L)
    smax, nrr, start = ctx.cache[("iprec", L)]
    if len(smax) == 0:
        return out
    for c_i, level in enumerate(levels):
        c = _lround(level * R)  # the recall level as a number of relevant documents
        c = np.maximum(c, 1)  # recall 0: the best precision anywhere
        ok = (c <= nrr) & (nrr > 0)
        rows = np.flatnonzero(ok)
        out[rows, c_i] = smax[start[rows] + c[rows].astype(np.int64) - 1]
    return out


def _interpolated(ctx, L) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(interpolated precision at each relevant retrieved document, their count per row, each row's first)."""
    idx = ctx.where("rel", L)
    seg = ctx.seg[idx]
    nrr = np.bincount(seg, minlength=ctx.n)
    start = np.concatenate(([0], np.cumsum(nrr)[:-1]))
    if len(idx) == 0:
        return np.zeros(0), nrr, start
    j = ctx.running(idx, np.ones(len(idx), dtype=bool)).astype(np.float64)  # j-th relevant document of its row
    prec = j / ctx.rank[idx]
    # Suffix maximum of precision within each row, on exact integer codes of the values (their order):
    # a row's codes are offset above every later row's, so the running maximum restarts at each row.
    code = _dense_rank(prec)
    values = np.empty(int(code.max()) + 1)
    values[code] = prec
    off = (seg.max() - seg[::-1]) * len(values)
    return values[np.maximum.accumulate(code[::-1] + off) - off][::-1], nrr, start


def iprec(ctx, m):
    """IPrec@r = max precision at any rank whose recall >= r, the level r*R rounded as trec_eval does."""
    return _iprec(ctx, _level(ctx, m), [m.cutoff])[:, 0]


STANDARD_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def eleven_pt(ctx, m):
    """11pt = mean of IPrec at recall 0.0, 0.1, ..., 1.0 (or at ``levels=``), summed from the last level to
    the first and then divided, as trec_eval's 11pt_avg adds them."""
    levels = m.params.get("levels") or STANDARD_LEVELS
    iprec_ = _iprec(ctx, _level(ctx, m), levels)
    total = np.zeros(ctx.n)
    for c in range(len(levels) - 1, -1, -1):
        total = total + iprec_[:, c]
    return total / len(levels)


def _set_counts(ctx, m):
    L = _level(ctx, m)
    return ctx.rel_hits(L), ctx.nret.astype(np.float64), ctx.num_rel(L)


def set_p(ctx, m):
    """SetP = |relevant retrieved| / |retrieved|."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, nret)


def set_r(ctx, m):
    """SetR = |relevant retrieved| / R."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, R)


def set_f(ctx, m):
    """SetF(beta) = (beta^2 + 1) P R / (beta^2 P + R) over the retrieved set (van Rijsbergen); ``beta2=``
    gives beta^2 itself (trec_eval's set_F.x, x = beta^2)."""
    b2 = m.params["beta2"] if m.params.get("beta2") is not None else m.params.get("beta", 1.0) ** 2
    nrr, nret, R = _set_counts(ctx, m)
    P, Rc = _div(nrr, nret), _div(nrr, R)
    return _div((b2 + 1.0) * P * Rc, b2 * P + Rc)


def set_e(ctx, m):
    """SetE(beta) = 1 - SetF(beta) (van Rijsbergen's effectiveness measure E)."""
    return 1.0 - set_f(ctx, m)


def set_rel_p(ctx, m):
    """SetRelP = |relevant retrieved| / min(|retrieved|, R) (trec_eval set_relative_P)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, np.minimum(nret, R))


def set_ap(ctx, m):
    """SetAP = SetP * SetR = |relevant retrieved|^2 / (|retrieved| R), computed so (trec_eval set_map)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr * nrr, nret * R)


def utility(ctx, m):
    """Utility = a*|rel ret| + b*|nonrel ret| + c*|rel not ret| + d*|nonrel not ret| (trec_eval utility).

    |nonrel not ret| = n_docs + |rel ret| - |ret| - R, with n_docs the collection
    size (trec_eval -N); trec_eval's defaults are a, b, c, d = 1, -1, 0, 0.
    """
    nrr, nret, R = _set_counts(ctx, m)
    p = m.params
    out = p.get("a", 1.0) * nrr + p.get("b", -1.0) * (nret - nrr) + p.get("c", 0.0) * (R - nrr)
    if p.get("d", 0.0):
        out = out + p["d"] * (p["n_docs"] + nrr - nret - R)
    return out


def num_q(ctx, m):
    """NumQ = 1 per query evaluated (summed by aggregate: trec_eval's num_q)."""
    return np.ones(ctx.n)


def num_ret(ctx, m):
    """NumRet = number of documents retrieved (after max_docs / judged_only)."""
    return ctx.nret.astype(np.float64)


def num_rel(ctx, m):
    """NumRel = R, the qrels documents with grade >= rel level."""
    return ctx.num_rel(_level(ctx, m)).copy()


def num_rel_ret(ctx, m):
    """NumRelRet = number of relevant documents retrieved."""
    return _set_counts(ctx, m)[0]


def num_nonrel_judged_ret(ctx, m):
    """NumNonRelJudgedRet = retrieved documents judged non-relevant (0 <= grade < rel level)."""
    L = _level(ctx, m)
    if ctx.expected:
        return ctx.ssum(ctx.lin(ctx.judged & ~ctx.rel(L)))
    idx = ctx.where("judged")
    return np.bincount(ctx.seg[idx[ctx.grade[idx] < L]], minlength=ctx.n).astype(np.float64)


def bin_g(ctx, m):
    """binG = (1/R) sum over retrieved relevant docs of 1 / log2(2 + |non-relevant above|) (trec_eval)."""
    L = _level(ctx, m)
    idx = ctx.where("rel", L)
    nonrel_above = ctx.rank[idx] - ctx.running(idx, np.ones(len(idx), dtype=bool))
    return _div(ctx.rowsum(ctx.seg[idx], 1.0 / np.log2(2.0 + nonrel_above)), ctx.num_rel(L))


# ------------------------------------------------ trec_eval's walk down the ideal ranking
@dataclass
class _Ideal:
    """trec_eval's ideal ranking of every row: the gains its walk meets, in the order it meets them."""

    seg: np.ndarray  # row of each ideal entry, rows in order
    gain: np.ndarray  # its gain (> 0: the walk stops at the first gain <= 0)
    pos: np.ndarray  # its 1-based position in the row's ideal ranking
    count: np.ndarray  # entries per row (M)
    start: np.ndarray  # first entry of each row
    integral: bool  # every gain (ideal and of any retrieved document) is a whole number


_MAX_TREC_GRADE = 1 << 16  # trec_eval's setup_gains keeps one entry per grade from 0 to the largest


def _c_int(x: float) -> int:
    """C's conversion of a double to int on x86-64 (cvttsd2si): truncation; INT_MIN when out of range."""
    if x != x or not -2.0**31 - 1 < x < 2.0**31:
        return -(2**31)
    return int(x)


def _glibc_qsort(items: list) -> list:
    """(grade, gain) pairs ordered as trec_eval's setup_gains orders them: glibc's qsort (a merge sort,
    halves of n // 2 and the rest, the left element first unless the comparison is > 0) with
    comp_rel_gain, which returns the difference of the gains converted to int (0 when they differ by
    less than 1), so gains closer than 1 keep their order in the list."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_qsort(items[:half]), _glibc_qsort(items[half:])
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _c_int(left[i][1] - right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _walk_order(gains: list, top: int) -> list:
    """trec_eval's gain levels for a query whose largest grade is ``top``, in the order its walk takes
    them (the largest gain first): the grades given gains, in the order given, then every other grade
    from 0 to ``top`` with gain = grade, sorted by :func:`_glibc_qsort`, then reversed."""
    given = dict(gains)
    levels = list(gains) + [(g, float(g)) for g in range(top + 1) if g not in given]
    return _glibc_qsort(levels)[::-1]


def _trec_ideal(ctx, m) -> _Ideal:
    """The ideal ranking that trec_eval's ndcg, ndcg_rel, Rndcg and G walk down (m_ndcg.c and others).

    The walk goes through the gain levels from the last of :func:`_walk_order` on, taking as many
    entries of a level as the query has judged documents of that grade, and stops at the first level
    with documents whose gain is not positive; it does not start at all when the level it starts from
    (the last in the list, documents or not) has a gain <= 0.  With every grade gaining itself this is
    the judged documents of positive grade, best first.
    """
    gains = _gain_items(m)
    key = ("trec_ideal", tuple(gains))
    if key in ctx.cache:
        return ctx.cache[key]
    qseg, qgrade = ctx.qseg, ctx.qgrade
    if not gains:
        keep = qgrade > 0
        seg, gain = qseg[keep], qgrade[keep].astype(np.float64)
        integral = True
    else:
        top = ctx.top_grade()
        if len(top) and int(top.max()) > _MAX_TREC_GRADE:
            raise ValueError(f"measure {m.name!r}: gains per grade with grades above {_MAX_TREC_GRADE}: "
                             "trec_eval's walk keeps an entry for every grade from 0 to the largest")
        step = np.zeros(len(qgrade), dtype=np.int64)  # position of each judgment's level in the walk
        gain = np.zeros(len(qgrade))
        starts = np.ones(ctx.n, dtype=bool)  # the walk starts: its first level has a gain > 0
        row_top = top[qseg]
        for t in np.unique(row_top).tolist():
            order = _walk_order(gains, t)
            where = np.flatnonzero(row_top == t)
            position = np.zeros(t + 1, dtype=np.int64)
            level_gain = np.zeros(t + 1)
            for i, (g, v) in enumerate(order):
                if 0 <= g <= t:
                    position[g], level_gain[g] = i, v
            step[where] = position[qgrade[where]]
            gain[where] = level_gain[qgrade[where]]
            starts[top == t] = order[0][1] > 0
        walk = np.lexsort((step, qseg))  # rows stay in order; within a row, the walk's order
        seg, gain = qseg[walk], gain[walk]
        stop = gain <= 0  # the walk ends at the first of these in its row
        before = np.concatenate(([0], np.cumsum(np.bincount(seg[stop], minlength=ctx.n))[:-1]))
        keep = (np.cumsum(stop) - before[seg] == 0) & starts[seg]
        seg, gain = seg[keep], gain[keep]
        integral = all(float(v).is_integer() for _, v in gains)
    count = np.bincount(seg, minlength=ctx.n)
    start = np.cumsum(count) - count
    pos = np.arange(1, len(seg) + 1, dtype=np.int64) - start[seg]
    ctx.cache[key] = out = _Ideal(seg, gain, pos, count, start, integral)
    return out


def _trec_results(ctx, m) -> tuple[np.ndarray, np.ndarray]:
    """(positions, gains) of the retrieved entries whose gain is not 0, in rank order (trec_eval's get_gain)."""
    idx = _gain_entries(ctx, m)
    gain = _gain(ctx, m, ctx.grade[idx], ctx.seg[idx], ctx.judged[idx])
    nonzero = gain != 0
    return idx[nonzero], gain[nonzero]


def _running(x: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Running sum of x within each row (inclusive), from one cumulative sum: exact for whole numbers only."""
    totals = np.bincount(seg, weights=x, minlength=n)
    return np.cumsum(x) - (np.cumsum(totals) - totals)[seg]


def _exact_sums(*arrays: np.ndarray) -> bool:
    """Whether one running sum over all rows of each array (whole numbers) stays exact: below 2**53 in size."""
    return all(float(np.abs(a).sum()) < 2.0**53 for a in arrays)


def _at(cum: np.ndarray, start: np.ndarray, rows: np.ndarray, k: np.ndarray) -> np.ndarray:
    """cum's running value after the first k entries of each row (0 for k = 0)."""
    k = np.asarray(k, dtype=np.int64)
    out = np.zeros(len(k))
    some = k > 0
    out[some] = cum[start[rows[some]] + k[some] - 1]
    return out


def _ideal_dcg_running(ctx, ideal: _Ideal) -> np.ndarray:
    """Running ideal DCG of each ideal entry: the sum of gain / log2(position + 1) so far (trec_eval's order)."""
    return _local_cumsum(ideal.gain / _log2_table(ctx, ideal.pos)[ideal.pos], ideal.seg, ctx.n)


def g_measure(ctx, m):
    """G (trec_eval, experimental): sum_i g_i / log2(2 + cost_i - gain so far_i), over the total ideal gain.

    cost_i sums max(ideal gain at rank j, 1) over ranks j <= i (1 once the ideal list is exhausted);
    gain so far_i sums the retrieved gains of ranks <= i.  ``gains=`` as trec_eval's G.1=g,...
    """
    ideal = _trec_ideal(ctx, m)
    idx, x = _trec_results(ctx, m)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    count = ideal.count
    cost = np.maximum(ideal.gain, 1.0)
    if ideal.integral and _exact_sums(cost, x):  # whole numbers: every running sum is exact, in any order
        within = np.minimum(rank, count[seg])
        sum_cost = _at(_running(cost, ideal.seg, ctx.n), ideal.start, seg, within) + (rank - within)
        sum_res = _running(x, seg, ctx.n)
    else:  # added rank after rank, as trec_eval does
        row_cost = np.ones(len(ctx.seg))
        inside = ctx.rank <= count[ctx.seg]
        row_cost[inside] = cost[ideal.start[ctx.seg[inside]] + ctx.rank[inside] - 1]
        sum_cost = _local_cumsum(row_cost, ctx.seg, ctx.n)[idx]
        sum_res = _local_cumsum(x, seg, ctx.n)
    with np.errstate(divide="ignore", invalid="ignore"):  # huge gains: log2 of 0 or less, as in C
        total_g = ctx.rowsum(seg, x / np.log2((2.0 + sum_cost) - sum_res))
    return _div(total_g, ctx.rowsum(ideal.seg, ideal.gain))


def _trec_running_dcg(ctx, m):
    """What ndcg_rel and Rndcg walk: trec_eval's ideal ranking, the retrieved gains x with their rows and
    ranks, the ideal ranking's running DCG and the retrieved running DCG (within each row)."""
    ideal = _trec_ideal(ctx, m)
    idx, x = _trec_results(ctx, m)
    seg, rank = ctx.seg[idx], ctx.rank[idx]
    dcg_ = _local_cumsum(x / _log2_table(ctx, rank)[rank], seg, ctx.n)
    return ideal, x, seg, rank, _ideal_dcg_running(ctx, ideal), dcg_


def ndcg_rel(ctx, m):
    """ndcg_rel (trec_eval, experimental): nDCG averaged over relevant docs; unretrieved ones get the final nDCG.

    At each retrieved document of positive gain at rank i: DCG@i / ideal DCG@min(i, M), M the number of
    documents of positive gain in the ideal ranking; the M - (those retrieved) others add DCG / ideal DCG
    of the whole lists; the sum is divided by M (0 unless positive).  ``gains=`` as trec_eval's.
    """
    ideal, x, seg, rank, running_idcg, dcg_ = _trec_running_dcg(ctx, m)
    M = ideal.count
    pos = x > 0
    rows = seg[pos]
    with np.errstate(divide="ignore", invalid="ignore"):  # a row whose walk never starts: as C, inf and nan
        terms = dcg_[pos] / _at(running_idcg, ideal.start, rows, np.minimum(rank[pos], M[rows]))
        total = ctx.rowsum(rows, terms)
        n_found = np.bincount(rows, minlength=ctx.n)
        final_dcg = ctx.rowsum(seg, np.where(_last_of_row(seg), dcg_, 0.0))
        final_idcg = _at(running_idcg, ideal.start, np.arange(ctx.n), M)
        total = total + ((M - n_found).astype(np.float64) * final_dcg) / final_idcg
        return np.where(total > 0, total / np.maximum(M, 1), 0.0)


def _last_of_row(seg: np.ndarray) -> np.ndarray:
    """True at the last entry of each row (seg non-decreasing)."""
    return np.append(seg[1:] != seg[:-1], True) if len(seg) else np.zeros(0, dtype=bool)


def rndcg(ctx, m):
    """Rndcg (trec_eval, experimental): nDCG averaged at each rank where the ideal gain level drops.

    With the ideal ranking's gains y_1 .. y_M: nDCG is taken after rank i for every i < M with
    y_{i+1} != y_i, after rank M (where the ideal gain drops to 0), and after the last retrieved rank when
    it lies beyond M + 1; DCG after rank i sums the retrieved ranks <= i only.  0 when R = 0.  ``gains=``
    as trec_eval's (its 0/0 when no such point has an ideal DCG above 0 is 0 here).
    """
    R = ctx.num_rel(_level(ctx, m))
    ideal, _, seg, rank, running_idcg, dcg_ = _trec_running_dcg(ctx, m)
    M = ideal.count
    # the points: i (1-based) where the next ideal gain differs, and i = M
    change = np.flatnonzero(np.append((ideal.seg[1:] == ideal.seg[:-1]) & (ideal.gain[1:] != ideal.gain[:-1]),
                                      False) | _last_of_row(ideal.seg))
    rows, at = ideal.seg[change], ideal.pos[change]
    nret = ctx.nret
    beyond = np.flatnonzero((M > 0) & (M + 1 < nret))  # the retrieved list goes on past the ideal one
    rows = np.concatenate((rows, beyond))
    at = np.concatenate((at, nret[beyond]))
    ideal_at = np.concatenate((running_idcg[change], _at(running_idcg, ideal.start, beyond, M[beyond])))
    order = np.lexsort((at, rows))  # each row's points in order: the sum is taken in trec_eval's order
    rows, at, ideal_at = rows[order], at[order], ideal_at[order]
    # DCG after rank `at`: the running DCG of the last retrieved entry of the row ranked <= at
    span = int(max(nret.max(initial=0), M.max(initial=0))) + 2
    found = np.searchsorted(seg * span + rank, rows * span + at, side="right") - 1
    first = np.searchsorted(seg, rows, side="left")
    dcg_at = np.where(found >= first, dcg_[np.maximum(found, 0)] if len(dcg_) else 0.0, 0.0)
    total = ctx.rowsum(rows, dcg_at / ideal_at)
    points = np.bincount(rows, minlength=ctx.n)
    return np.where((R > 0) & (points > 0), _div(total, points), 0.0)
