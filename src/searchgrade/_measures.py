"""Vectorised measure kernels behind :mod:`searchgrade.metrics` (private).

Every kernel receives a :class:`Ranked` context: the whole run, already sorted
and flattened into parallel numpy arrays (one entry per retrieved document,
query by query, in rank order), plus per-query statistics of the qrels.  A
kernel returns one float per query, computed with segment operations
(``np.bincount`` with weights, cumulative sums within segments) instead of a
Python loop over queries.  Only the experimental trec_eval measures (G, binG,
ndcg_rel, Rndcg), which trec_eval itself defines by a sequential loop, and the
tie-aware reciprocal rank run a short loop over the few queries that need it.
Which kernel computes which measure, with which parameters, is recorded in
:mod:`searchgrade._registry`.

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
from scipy.special import gammaln

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
        idx = self.where("rel", level)
        seg = self.seg[idx]
        if limit is not None:
            seg = seg[self.rank[idx] <= (limit[seg] if np.ndim(limit) else limit)]
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


def _local_cumsum(x: np.ndarray, seg: np.ndarray, n: int, exclusive: bool = False) -> np.ndarray:
    """Cumulative sum of x within each row (seg non-decreasing), summed row by row.

    Unlike a cumulative sum over the whole run, no rounding error is carried
    from one query into the next.  Rows of similar length (the same power of
    two) are laid out as one padded matrix; ``exclusive`` sums the entries
    before each one only (0 for a row's first entry).
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
        mat = np.zeros(filled.shape)
        mat[filled] = x[cells]
        csum = np.cumsum(mat, axis=1)
        if exclusive:
            csum = np.concatenate((np.zeros((len(rows), 1)), csum[:, :-1]), axis=1)
        out[cells] = csum[filled]
    return out


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
    gains = m.params.get("gains")
    if gains:
        out = g.copy()
        for level, value in gains.items():
            hit = grade == level
            out[hit if level or judged is None else hit & judged] = value
        return out
    return g


def _gain_entries(ctx, m) -> np.ndarray:
    """Positions of the retrieved entries that can gain: grade > 0, or judged when grade 0 has a gain."""
    return ctx.where("judged") if m.params.get("gains", {}).get(0) else ctx.where("gain")


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


def _discount(m, rank):
    """1 / log2(rank + 1), or Jarvelin-Kekalainen: 1 for rank < b, 1 / log_b(rank) from rank b on."""
    rank = rank.astype(np.float64)
    if m.params.get("discount", "log2") == "jk":
        b = float(m.params.get("b", 2))
        return np.where(rank < b, 1.0, np.log(b) / np.log(np.maximum(rank, b)))
    return 1.0 / np.log2(rank + 1.0)


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
            w = w * _discount(m, rank)
        return ctx.rowsum(seg, w)
    gain = ctx.lin(_gain(ctx, m, ctx.grade, ctx.seg, ctx.judged))
    w = gain * _discount(m, ctx.rank) if discounted else gain
    return ctx.ssum(w, ctx.top(m.cutoff))


def _ideal_dcg(ctx, m, discounted=True):
    """Per-row DCG of the ideal ranking (all judged documents by decreasing gain) within the cutoff."""
    g = _gain(ctx, m, ctx.qgrade, ctx.qseg)
    if m.params.get("gains"):  # custom gains need not follow the grades' order
        g = g[np.lexsort((-g, ctx.qseg))]
    w = g * _discount(m, ctx.qrank) if discounted else g
    if m.cutoff is not None:
        w = np.where(ctx.qrank <= m.cutoff, w, 0.0)
    return np.bincount(ctx.qseg, weights=w, minlength=ctx.n)


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
    """RBP gain: binary at rel= if given; else min(grade, G) / G with G = max_grade= if given,
    otherwise the largest grade in the query's qrels."""
    if "rel" in m.params:
        return ctx.rel(m.params["rel"]).astype(np.float64)
    grade = np.maximum(ctx.grade.astype(np.float64), 0.0)
    if "max_grade" in m.params:
        gmax = float(m.params["max_grade"])
        return np.minimum(grade, gmax) / gmax
    return _div(grade, ctx.max_grade()[ctx.seg])


def rbp(ctx, m):
    """RBP(p) = (1 - p) * sum_i gain_i * p^(i-1) (Moffat & Zobel 2008)."""
    p = m.params["p"]
    w = ctx.lin(_rbp_gain(ctx, m)) * np.power(p, ctx.rank - 1.0)
    return (1 - p) * ctx.ssum(w, ctx.top(m.cutoff))


def rbp_resid(ctx, m):
    """RBP_resid(p) = p^n + (1 - p) * sum over unjudged ranks i <= n of p^(i-1), n = min(k, docs retrieved)."""
    p = m.params["p"]
    k = m.cutoff
    unj = ctx.lin(~ctx.judged)
    tail = np.power(p, ctx.nret if k is None else np.minimum(ctx.nret, k).astype(np.float64))
    return tail + (1 - p) * ctx.ssum(unj * np.power(p, ctx.rank - 1.0), ctx.top(k))


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
    R = ctx.num_rel(L)
    N = ctx.num_judged_nonrel(L)
    idx = ctx.where("judged")  # only judged documents matter: visit those
    rel = ctx.grade[idx] >= L
    n_above = ctx.running(idx, ~rel)  # judged non-relevant at or above each entry
    seg = ctx.seg[idx][rel]
    terms = 1.0 - _div(np.minimum(n_above[rel], R[seg]), np.minimum(N, R)[seg])
    return _div(ctx.rowsum(seg, terms), R)


def infap(ctx, m):
    """infAP (Yilmaz & Aslam 2006) exactly as trec_eval computes it; equals AP when every document is judged."""
    L = _level(ctx, m)
    rel = ctx.rel(L)
    judged, nonpool = ctx.judged, ctx.nonpool
    unj_pool = ~judged & ~nonpool
    nonrel = judged & ~rel
    rel_so_far = ctx.segcount(rel).astype(np.float64)
    nonrel_so_far = ctx.segcount(nonrel).astype(np.float64)
    unj_so_far = ctx.segcount(unj_pool).astype(np.float64)
    j = ctx.rank - 1.0
    safe_j = np.maximum(j, 1.0)
    e = INFAP_EPSILON
    term = 1.0 / (j + 1) + (j / (j + 1)) * ((rel_so_far - 1 + nonrel_so_far + unj_so_far) / safe_j) * (
        (rel_so_far - 1 + e) / (rel_so_far - 1 + nonrel_so_far + 2 * e))
    term = np.where(j == 0, 1.0, term)
    return _div(ctx.ssum(np.where(rel, term, 0.0)), ctx.num_rel(L))


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
    rel = ctx.rel(L)
    R = ctx.num_rel(L)
    idx = np.flatnonzero(rel)
    out = np.zeros((ctx.n, len(levels)))
    if len(idx) == 0:
        return out
    seg = ctx.seg[idx]
    j = ctx.segcount(rel)[idx].astype(np.float64)  # j-th relevant document of its row
    prec = j / ctx.rank[idx]
    # Suffix maximum of precision within each row: offsets keep rows apart.
    off = 2.0 * (seg.max() - seg[::-1])
    smax = (np.maximum.accumulate(prec[::-1] + off) - off)[::-1]
    nrr = np.bincount(seg, minlength=ctx.n)
    start = np.concatenate(([0], np.cumsum(nrr)[:-1]))
    for c_i, level in enumerate(levels):
        c = _lround(level * R)  # the recall level as a number of relevant documents
        c = np.maximum(c, 1)  # recall 0: the best precision anywhere
        ok = (c <= nrr) & (nrr > 0)
        rows = np.flatnonzero(ok)
        out[rows, c_i] = smax[start[rows] + c[rows].astype(np.int64) - 1]
    return out


def iprec(ctx, m):
    """IPrec@r = max precision at any rank whose recall >= r, the level r*R rounded as trec_eval does."""
    return _iprec(ctx, _level(ctx, m), [m.cutoff])[:, 0]


def eleven_pt(ctx, m):
    """11pt = mean of IPrec at recall 0.0, 0.1, ..., 1.0."""
    levels = [i / 10 for i in range(11)]
    return _iprec(ctx, _level(ctx, m), levels).mean(axis=1)


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
    """SetF(beta) = (1 + beta^2) P R / (beta^2 P + R) over the retrieved set (van Rijsbergen)."""
    b2 = m.params.get("beta", 1.0) ** 2
    nrr, nret, R = _set_counts(ctx, m)
    P, Rc = _div(nrr, nret), _div(nrr, R)
    return _div((1 + b2) * P * Rc, b2 * P + Rc)


def set_e(ctx, m):
    """SetE(beta) = 1 - SetF(beta) (van Rijsbergen's effectiveness measure E)."""
    return 1.0 - set_f(ctx, m)


def set_rel_p(ctx, m):
    """SetRelP = |relevant retrieved| / min(|retrieved|, R) (trec_eval set_relative_P)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, np.minimum(nret, R))


def set_ap(ctx, m):
    """SetAP = SetP * SetR (trec_eval set_map)."""
    nrr, nret, R = _set_counts(ctx, m)
    return _div(nrr, nret) * _div(nrr, R)


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
    return ctx.ssum(ctx.lin(ctx.judged & ~ctx.rel(L)))


def _rows(ctx):
    """Per-row (row, retrieved grades, judged flags, qrels grades) for the loop-defined trec_eval measures."""
    starts = np.concatenate(([0], np.cumsum(ctx.nret)))
    qcount = np.bincount(ctx.qseg, minlength=ctx.n)
    qstarts = np.concatenate(([0], np.cumsum(qcount)))
    for row in range(ctx.n):
        rs = slice(starts[row], starts[row + 1])
        qs = slice(qstarts[row], qstarts[row + 1])
        yield row, ctx.grade[rs].tolist(), ctx.qgrade[qs].tolist()


class _IdealWalk:
    """trec_eval's walk down the ideal ranking: judged documents by decreasing grade (gain = grade)."""

    def __init__(self, qgrades):
        self.levels = sorted(set(qgrades), reverse=True)  # distinct judged grades, best first
        self.counts = {g: 0 for g in self.levels}
        for g in qgrades:
            self.counts[g] += 1
        self.cur = 0
        self.num_at_level = 0
        self.gain = float(self.levels[0]) if self.levels else 0.0

    def step(self):
        """Advance one rank; returns the ideal gain at this rank."""
        self.num_at_level += 1
        while self.cur < len(self.levels) and self.num_at_level > self.counts[self.levels[self.cur]]:
            self.num_at_level = 1
            self.cur += 1
        self.gain = float(self.levels[self.cur]) if self.cur < len(self.levels) else 0.0
        return self.gain


def bin_g(ctx, m):
    """binG = (1/R) sum over retrieved relevant docs of 1 / log2(2 + |non-relevant above|) (trec_eval)."""
    L = _level(ctx, m)
    rel = ctx.rel(L)
    nonrel_above = ctx.rank - ctx.segcount(rel)
    return _div(ctx.ssum(np.where(rel, 1.0 / np.log2(2.0 + nonrel_above), 0.0)), ctx.num_rel(L))


def g_measure(ctx, m):
    """G (trec_eval, experimental): sum_i g_i / log2(2 + cost_i - gain so far_i), over the total ideal gain.

    cost_i sums max(ideal gain at rank j, 1) over ranks j <= i (1 once the ideal list is exhausted).
    """
    out = np.zeros(ctx.n)
    for row, grades, qgrades in _rows(ctx):
        walk = _IdealWalk(qgrades)
        sum_res = sum_ideal = sum_cost = g = 0.0
        ideal = walk.gain
        for gain in grades:
            sum_res += gain
            if ideal > 0:
                ideal = walk.step()
                sum_ideal += max(ideal, 0.0)
                sum_cost += ideal if ideal >= 1.0 else 1.0
            else:
                sum_cost += 1.0
            if gain:
                g += gain / np.log2(2 + sum_cost - sum_res)
        while ideal > 0:
            ideal = walk.step()
            sum_ideal += max(ideal, 0.0)
        out[row] = g / sum_ideal if sum_ideal > 0 else 0.0
    return out


def ndcg_rel(ctx, m):
    """ndcg_rel (trec_eval, experimental): nDCG averaged over relevant docs; unretrieved ones get the final nDCG."""
    out = np.zeros(ctx.n)
    for row, grades, qgrades in _rows(ctx):
        walk = _IdealWalk(qgrades)
        ideal = walk.gain
        dcg_ = idcg = s = 0.0
        nrel = nrelret = 0
        i = 0
        for gain in grades:
            if gain:
                dcg_ += gain / np.log2(i + 2)
            if ideal > 0:
                ideal = walk.step()
                if ideal > 0:
                    nrel += 1
                    idcg += ideal / np.log2(i + 2)
            if gain > 0:
                s += dcg_ / idcg if idcg > 0 else 0.0
                nrelret += 1
            i += 1
        while ideal > 0:
            ideal = walk.step()
            if ideal > 0:
                nrel += 1
                idcg += ideal / np.log2(i + 2)
            i += 1
        if idcg > 0:
            s += (nrel - nrelret) * dcg_ / idcg
        out[row] = s / nrel if s > 0 else 0.0
    return out


def rndcg(ctx, m):
    """Rndcg (trec_eval, experimental): nDCG averaged at each rank where the ideal gain level drops."""
    out = np.zeros(ctx.n)
    R = ctx.num_rel(_level(ctx, m))
    for row, grades, qgrades in _rows(ctx):
        if R[row] == 0:
            continue
        walk = _IdealWalk(qgrades)
        ideal = old = walk.gain
        dcg_ = idcg = s = 0.0
        changes = 0
        i = 0
        n = len(grades)
        while i < n and ideal > 0:
            gain = grades[i]
            ideal = walk.step()
            if old != ideal:
                if idcg > 0:
                    s += dcg_ / idcg
                    changes += 1
                old = ideal
            if gain:
                dcg_ += gain / np.log2(i + 2)
            if ideal > 0:
                idcg += ideal / np.log2(i + 2)
            i += 1
        if i < n:
            while i < n:
                if grades[i]:
                    dcg_ += grades[i] / np.log2(i + 2)
                i += 1
            if idcg > 0:
                s += dcg_ / idcg
                changes += 1
        while ideal > 0:
            ideal = walk.step()
            if old != ideal:
                if idcg > 0:
                    s += dcg_ / idcg
                    changes += 1
                old = ideal
            if ideal > 0:
                idcg += ideal / np.log2(i + 2)
            i += 1
        out[row] = s / changes if changes else 0.0
    return out
