"""Kernels of the binary measures: precision, recall, AP, RR, bpref, infAP, interpolated precision, set measures, counts."""
from __future__ import annotations

import numpy as np

from .base import _dense_rank, _div, gammaln, level, INFAP_EPSILON


# ===================================================================== kernels
def precision(ctx, m):
    """P@k = |relevant in top k| / k (trec_eval P_k; a short run counts as non-relevant padding)."""
    k = m.cutoff
    return ctx.rel_hits(level(ctx, m), k) / k


def recall(ctx, m):
    """R@k = |relevant in top k| / R (0 when R = 0)."""
    L = level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), ctx.num_rel(L))


def relative_precision(ctx, m):
    """RelP@k = |relevant in top k| / min(k, R) (trec_eval relative_P_k)."""
    L = level(ctx, m)
    return _div(ctx.rel_hits(L, m.cutoff), np.minimum(m.cutoff, ctx.num_rel(L)))


def hits(ctx, m):
    """Hits@k = |relevant in top k|, a count per query (ranx's hits; no cut-off: every document retrieved)."""
    return ctx.rel_hits(level(ctx, m), m.cutoff)


def hit(ctx, m):
    """Hit@k = 1 if a relevant document is in the top k, else 0 (trec_eval success_k; no cut-off: retrieved)."""
    L, k = level(ctx, m), (np.inf if m.cutoff is None else m.cutoff)
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
    L = level(ctx, m)
    R = ctx.num_rel(L)
    return _div(ctx.rel_hits(L, R), R)


def rprec_mult(ctx, m):
    """RprecMult(m=x) = P@c with c = floor(x*R + 0.9) (trec_eval Rprec_mult_x; 0 when c = 0)."""
    L = level(ctx, m)
    R = ctx.num_rel(L)
    with np.errstate(over="ignore"):  # m = 1e308: c = inf, and P at an infinite depth is 0
        c = np.floor(m.params["m"] * R + 0.9)
    return _div(ctx.rel_hits(L, c), c)


def average_precision(ctx, m):
    """AP = (1/R) * sum over relevant ranks i (within the cutoff) of P@i; AP@k keeps the divisor R."""
    L, k = level(ctx, m), m.cutoff
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
    L, k = level(ctx, m), m.cutoff
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


def bpref(ctx, m):
    """Bpref = (1/R) sum over retrieved relevant r of (1 - min(N_r, R) / min(N, R)) (Buckley & Voorhees 2004).

    N_r: judged non-relevant documents ranked above r; N: judged non-relevant
    documents in the qrels.  Unjudged documents are skipped (trec_eval's bpref).
    """
    L = level(ctx, m)
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
    L = level(ctx, m)
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
    for c_i, r in enumerate(levels):
        c = _lround(r * R)  # the recall level as a number of relevant documents
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
    return _iprec(ctx, level(ctx, m), [m.cutoff])[:, 0]


STANDARD_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def eleven_pt(ctx, m):
    """11pt = mean of IPrec at recall 0.0, 0.1, ..., 1.0 (or at ``levels=``), summed from the last level to
    the first and then divided, as trec_eval's 11pt_avg adds them."""
    levels = m.params.get("levels") or STANDARD_LEVELS
    iprec_ = _iprec(ctx, level(ctx, m), levels)
    total = np.zeros(ctx.n)
    for c in range(len(levels) - 1, -1, -1):
        total = total + iprec_[:, c]
    return total / len(levels)


def _set_counts(ctx, m):
    """(relevant retrieved, retrieved, R) per row; with a cut-off the top k is the set, counted as k documents."""
    L = level(ctx, m)
    if m.cutoff is not None:  # SetF@k (ranx's f1@k): P@k and R@k, a short run padded as P@k pads it
        return ctx.rel_hits(L, m.cutoff), np.full(ctx.n, float(m.cutoff)), ctx.num_rel(L)
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
    # all four terms, as trec_eval adds them (n_docs 0 without -N): its d * (...) term turns a sum of -0.0
    # into +0.0, so 0 prints as 0.0000, not -0.0000
    return (p.get("a", 1.0) * nrr + p.get("b", -1.0) * (nret - nrr) + p.get("c", 0.0) * (R - nrr)
            + p.get("d", 0.0) * (p.get("n_docs", 0) + nrr - nret - R))


def num_q(ctx, m):
    """NumQ = 1 per query evaluated (summed by aggregate: trec_eval's num_q)."""
    return np.ones(ctx.n)


def num_ret(ctx, m):
    """NumRet = number of documents retrieved (after max_docs / judged_only)."""
    return ctx.nret.astype(np.float64)


def num_rel(ctx, m):
    """NumRel = R, the qrels documents with grade >= rel level."""
    return ctx.num_rel(level(ctx, m)).copy()


def num_rel_ret(ctx, m):
    """NumRelRet = number of relevant documents retrieved."""
    return _set_counts(ctx, m)[0]


def num_nonrel_judged_ret(ctx, m):
    """NumNonRelJudgedRet = retrieved documents judged non-relevant (0 <= grade < rel level)."""
    L = level(ctx, m)
    if ctx.expected:
        return ctx.ssum(ctx.lin(ctx.judged & ~ctx.rel(L)))
    idx = ctx.where("judged")
    return np.bincount(ctx.seg[idx[ctx.grade[idx] < L]], minlength=ctx.n).astype(np.float64)


def bin_g(ctx, m):
    """binG = (1/R) sum over retrieved relevant docs of 1 / log2(2 + |non-relevant above|) (trec_eval)."""
    L = level(ctx, m)
    idx = ctx.where("rel", L)
    nonrel_above = ctx.rank[idx] - ctx.running(idx, np.ones(len(idx), dtype=bool))
    return _div(ctx.rowsum(ctx.seg[idx], 1.0 / np.log2(2.0 + nonrel_above)), ctx.num_rel(L))
