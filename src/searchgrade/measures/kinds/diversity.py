"""The diversity and intent-aware families (ndeval 4.5's measures, ir_measures' names): rows and kernels.

ERR-IA, alpha-nDCG, NRBP, ... are computed as ndeval 4.5 computes them; the rows (at the end) give
ir_measures' names and parameters (its pyndeval provider).

Every kernel here needs subtopic qrels: the evaluation puts a
:class:`~searchgrade.measures.subtopics.SubtopicIndex` and the row ids in the
context's cache (``ctx.cache["subtopics"]``), and ranks the run exactly (every
tie broken), so that ``ctx.docids()`` lines up with the entries.

ndeval's definitions, followed to the last rounding (its sums are taken in its order):

* a judgment >= the relevance level counts as 1 (ndeval: any positive judgment);
  a subtopic no document is relevant to is dropped; intents weigh equally;
* the gain of a document at 0-based position i is ``sum_j rel_j (1 - alpha)^{c_j}``
  over its subtopics j in ascending order, c_j the documents above it relevant to j;
* ERR-IA@k sums gain_i / (i + 1) and alpha-DCG@k gain_i * log(2) / log(i + 2); both are
  divided by the same sums over an "ideal ideal" list that covers every subtopic at
  every rank (gain ``S (1 - alpha)^i``, S the subtopics kept) -- except at k = 1, which
  ndeval leaves undivided;
* nERR-IA@k and alpha-nDCG@k divide by the same (divided) value of the greedy ideal
  ranking: at each rank the judged document of largest gain, ties to the larger docno;
  0 where the run's alpha-DCG@k is 0;
* NRBP = ``(1 - (1 - alpha) beta) / S * sum_i gain_i beta^i`` over the whole ranking,
  nNRBP its ratio to the ideal ranking's (NaN, as in ndeval, when no subtopic is kept);
* AP-IA averages over the subtopics kept each subtopic's AP (the relevant documents of
  that subtopic); P-IA@k = relevant (document, subtopic) pairs in the top k / (k S);
  StRecall@k = subtopics covered by the top k / S.

The greedy ideal is built for all queries at once (queries of similar size as one padded
array) and stops once the ranks left could not change a value: past the deepest cut-off
asked and, for nNRBP, once every further term is below a quarter of the sum's last unit.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..family import Differs, Family
from ..params import REL, Param
from .base import Ranked, level as _level

__all__ = ["ROWS", "err_ia", "nerr_ia", "alpha_dcg", "alpha_ndcg", "nrbp", "nnrbp", "ap_ia", "p_ia", "st_recall",
           "DIVERSITY_NOTE"]

DIVERSITY_NOTE = "needs subtopic qrels {qid: {subtopic: {docid: grade}}}"


class _List(NamedTuple):
    """A ranked list's relevant (document, subtopic) pairs, rows and positions, with their gains' counts."""

    n: int  # rows
    e_seg: np.ndarray  # row of each relevant entry (entries in rank order)
    e_pos: np.ndarray  # its 1-based position in the row
    p_entry: np.ndarray  # entry of each pair (pairs by entry, then subtopic column ascending)
    p_seg: np.ndarray  # row of each pair
    p_col: np.ndarray  # subtopic column of each pair
    p_seen: np.ndarray  # documents above it relevant to the same subtopic
    actual: np.ndarray  # subtopics kept, per row
    per_sub: np.ndarray  # (rows, columns): relevant documents of each subtopic


def _context(ctx: Ranked, m):
    """(subtopic index, row ids, level): what every diversity kernel reads; ValueError without subtopic qrels."""
    got = ctx.cache.get("subtopics")
    if got is None:
        raise ValueError(f"measure {m.name!r} {DIVERSITY_NOTE}; these qrels have no subtopics")
    index, rows = got
    return index, rows, _level(ctx, m)


def _pairs(index, lev, e_seg, e_pos, e_doc, n, qpos) -> _List:
    """The pairs of entries (rows e_seg, positions e_pos, doc numbers e_doc) under level ``lev``."""
    cnt = lev.count[e_doc]
    total = int(cnt.sum())
    p_entry = np.repeat(np.arange(len(e_doc), dtype=np.int64), cnt)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    p_col = lev.col[np.repeat(lev.start[e_doc], cnt) + within]
    p_seg = e_seg[p_entry]
    width = max(index.width, 1)
    key = p_seg * width + p_col
    by = np.argsort(key, kind="stable")  # each (row, subtopic)'s pairs in rank order
    sorted_key = key[by]
    first = np.r_[True, sorted_key[1:] != sorted_key[:-1]] if total else np.zeros(0, bool)
    start = np.maximum.accumulate(np.where(first, np.arange(total), 0)) if total else np.zeros(0, np.int64)
    seen = np.empty(total, dtype=np.int64)
    seen[by] = np.arange(total) - start
    return _List(n, e_seg, e_pos, p_entry, p_seg, p_col, seen, lev.actual[qpos], lev.per_sub[qpos])


def _run_list(ctx: Ranked, m) -> _List:
    """The run's relevant pairs at the measure's level (cached in the context)."""
    index, rows, level = _context(ctx, m)
    key = ("div_run", level)
    if key not in ctx.cache:
        lev = index.level(level)
        idx = ctx.where("rel", level)
        docids = ctx.docids()
        e_doc = index.doc_numbers(rows, ctx.seg[idx], [docids[i] for i in idx.tolist()])
        if len(e_doc) and e_doc.min() < 0:  # not reached: a relevant entry is judged
            raise ValueError("subtopic qrels and the ranking disagree on a judged document")
        e_seg = ctx.seg[idx].astype(np.int64)
        ctx.cache[key] = _pairs(index, lev, e_seg, ctx.rank[idx].astype(np.int64), e_doc, ctx.n,
                                index.query_positions(rows))
    return ctx.cache[key]


def _powers(base: float, n: int, first: float = 1.0) -> np.ndarray:
    """first, first*base, (first*base)*base, ...: n values, each multiplied in turn (ndeval's running product)."""
    return np.multiply.accumulate(np.r_[first, np.full(max(n - 1, 0), base)])[:n]


def _discounts(n: int) -> np.ndarray:
    """ndeval's discount of 0-based position i: log(2)/log(i + 2) (C's log), 1 at i = 0."""
    return np.array([1.0] + [math.log(2.0) / math.log(i + 2.0) for i in range(1, n)])


def _gains(lst: _List, alpha: float) -> np.ndarray:
    """Each relevant entry's gain: its subtopics' (1 - alpha)^seen, summed in column order."""
    if not len(lst.p_seen):
        return np.zeros(len(lst.e_seg))
    table = _powers(1.0 - alpha, int(lst.p_seen.max()) + 1)
    return np.bincount(lst.p_entry, weights=table[lst.p_seen], minlength=len(lst.e_seg)).astype(np.float64)


def _rank_sum(lst: _List, terms: np.ndarray, k: int | None) -> np.ndarray:
    """Per row, the entries' terms summed in rank order (positions <= k)."""
    keep = slice(None) if k is None else lst.e_pos <= k
    return np.bincount(lst.e_seg[keep], weights=terms[keep], minlength=lst.n).astype(np.float64)


def _ideal_ideal(lst: _List, alpha: float, k: int, what: str) -> np.ndarray:
    """The "ideal ideal" sum to rank k of each row: S (1 - alpha)^i, every subtopic covered at every rank."""
    steps = np.full((lst.n, k), 1.0 - alpha)
    steps[:, 0] = lst.actual
    gain = np.multiply.accumulate(steps, axis=1)
    per = gain / np.arange(1, k + 1, dtype=np.float64) if what == "err" else gain * _discounts(k)
    return np.cumsum(per, axis=1)[:, k - 1]


def _cumulative(lst: _List, alpha: float, k: int, what: str) -> np.ndarray:
    """ndeval's ERR-IA@k ("err") or alpha-DCG@k ("dcg") of each row, divided by the ideal ideal (k >= 2)."""
    gain = _gains(lst, alpha)
    pos = lst.e_pos
    if what == "err":
        terms = gain / pos.astype(np.float64)
    else:  # positions past k get a placeholder discount: the sum leaves them out
        terms = gain * _discounts(k)[np.minimum(pos, k) - 1]
    raw = _rank_sum(lst, terms, k)
    if k < 2:
        return raw
    return _ratio(raw, _ideal_ideal(lst, alpha, k, what), lst.actual > 0)


def _ratio(num: np.ndarray, den: np.ndarray, where) -> np.ndarray:
    """num / den where ``where``, else 0."""
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=np.asarray(where) & (den != 0))
    return out


def _nrbp_value(lst: _List, alpha: float, beta: float) -> np.ndarray:
    """ndeval's NRBP of each row (over the whole ranking)."""
    gain = _gains(lst, alpha)
    decay = _powers(beta, int(lst.e_pos.max(initial=0)))
    raw = _rank_sum(lst, gain * decay[lst.e_pos - 1] if len(gain) else gain, None)
    factor = np.zeros(lst.n)
    np.divide(1.0 - (1.0 - alpha) * beta, lst.actual, out=factor, where=lst.actual > 0)
    return raw * factor


# ------------------------------------------------------------------ the ideal ranking
def _ideal_list(ctx: Ranked, m, alpha: float, depth: int, beta: float | None) -> _List:
    """The greedy ideal ranking's pairs, at least ``depth`` deep (and deep enough for NRBP with ``beta``).

    One ranking per (level, alpha) serves every measure: it is built at least 20 deep (ndeval's
    depth) and long enough for NRBP with beta 0.5, and rebuilt deeper only when a measure needs more.
    """
    index, rows, level = _context(ctx, m)
    key = ("div_ideal", level, alpha)
    got = ctx.cache.get(key)  # (ranks reached, betas served, every relevant document placed, pairs)
    if got is None or got[0] < depth or not (beta is None or beta in got[1] or got[2]):
        deep = max(depth, 20, got[0] if got else 0)
        rule = 0.5 if beta is None else beta
        lev = index.level(level)
        qpos = index.query_positions(rows)
        e_seg, e_pos, e_doc, complete = _greedy(index, lev, qpos, alpha, deep, rule)
        reached = max(int(e_pos.max(initial=0)), deep)
        betas = {rule} | (got[1] if got else set())
        ctx.cache[key] = (reached, betas, complete, _pairs(index, lev, e_seg, e_pos, e_doc, len(rows), qpos))
    return ctx.cache[key][3]


def _candidates(index, lev, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, doc number) of every relevant judged document of the rows, each row's largest docno first."""
    rel_docs = np.flatnonzero(lev.count > 0)
    doc_query = np.asarray(index.doc_query, dtype=np.int64)[rel_docs]
    row_of_query = np.full(len(index.qids), -1, dtype=np.int64)
    row_of_query[qpos] = np.arange(len(qpos))
    row = row_of_query[doc_query]
    keep = row >= 0
    rel_docs, row = rel_docs[keep], row[keep]
    by = np.lexsort((-index.text_rank(rel_docs), row))
    return row[by], rel_docs[by]


def _greedy(index, lev, qpos: np.ndarray, alpha: float, depth: int, beta: float | None):
    """(row, 1-based position, doc number) of the greedy ideal ranking's documents, row after row, and whether
    every relevant document was placed."""
    row, doc = _candidates(index, lev, qpos)
    n = len(qpos)
    sizes = np.bincount(row, minlength=n)
    starts = np.cumsum(sizes) - sizes
    size_class = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    out_row, out_pos, out_doc = [], [], []
    for c in sorted(set(size_class[sizes > 0].tolist())):  # not np.unique: it imports numpy.ma
        rows = np.flatnonzero((size_class == c) & (sizes > 0))
        picks = _greedy_block(lev, doc, starts[rows], sizes[rows], index.width, alpha, depth, beta)
        for t, (active, chosen) in enumerate(picks):
            out_row.append(rows[active])
            out_pos.append(np.full(len(active), t + 1, dtype=np.int64))
            out_doc.append(chosen)
    if not out_row:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), True
    r, p, d = np.concatenate(out_row), np.concatenate(out_pos), np.concatenate(out_doc)
    by = np.lexsort((p, r))
    return r[by], p[by], d[by], len(d) == len(doc)


def _slots(lev, doc, starts, sizes, width) -> tuple[np.ndarray, np.ndarray]:
    """(relevance (columns, rows, slots), doc number of each slot): the rows' documents as one padded block."""
    wide = int(sizes.max())
    filled = np.arange(wide) < sizes[:, None]
    slot_doc = np.full(filled.shape, -1, dtype=np.int64)
    slot_doc[filled] = doc[(starts[:, None] + np.arange(wide))[filled]]
    rel = np.zeros((max(width, 1),) + filled.shape, dtype=bool)
    r, s = np.nonzero(filled)
    d = slot_doc[r, s]
    cnt = lev.count[d]
    within = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    rel[lev.col[np.repeat(lev.start[d], cnt) + within], np.repeat(r, cnt), np.repeat(s, cnt)] = True
    return rel, slot_doc


def _greedy_block(lev, doc, starts, sizes, width, alpha, depth, beta):
    """Yield (active rows, chosen doc numbers) rank after rank for one block of rows (ndeval's greedy)."""
    rel, slot_doc = _slots(lev, doc, starts, sizes, width)
    g, wide = slot_doc.shape
    gain = np.ones((rel.shape[0], g))
    taken = slot_doc < 0
    partial, decay = np.zeros(g), 1.0
    bound = float(max(width, 1))
    at = np.arange(g)
    for t in range(wide):
        score = np.zeros((g, wide))
        for j in range(rel.shape[0]):  # subtopics in ascending order, as ndeval adds them
            score += np.where(rel[j], gain[j][:, None], 0.0)
        score[taken] = -1.0
        pick = np.argmax(score, axis=1)  # the first maximum: the larger docno (slots in docno descending)
        best = score[at, pick]
        active = np.flatnonzero(best > 0)
        if not len(active):
            return
        yield active, slot_doc[active, pick[active]]
        taken[active, pick[active]] = True
        gain[:, active] *= np.where(rel[:, active, pick[active]], 1.0 - alpha, 1.0)
        partial[active] += best[active] * decay
        decay *= beta if beta is not None else 0.0
        if t + 1 >= depth and (beta is None or bool(np.all(bound * decay < 2.0**-54 * partial[active]))):
            return


# ------------------------------------------------------------------ the kernels
def _alpha(m) -> float:
    return float(m.params.get("alpha", 0.5))


def _beta(m) -> float:
    return float(m.params.get("beta", 0.5))


def err_ia(ctx: Ranked, m) -> np.ndarray:
    """ERR-IA@k, normalised by the ideal ideal list (ndeval)."""
    return _cumulative(_run_list(ctx, m), _alpha(m), m.cutoff, "err")


def alpha_dcg(ctx: Ranked, m) -> np.ndarray:
    """alpha-DCG@k, normalised by the ideal ideal list (ndeval)."""
    return _cumulative(_run_list(ctx, m), _alpha(m), m.cutoff, "dcg")


def _normalised(ctx: Ranked, m, what: str) -> np.ndarray:
    """nERR-IA@k / alpha-nDCG@k: the run's value over the greedy ideal ranking's, where the run's alpha-DCG@k > 0."""
    alpha, k = _alpha(m), m.cutoff
    run = _run_list(ctx, m)
    ideal = _ideal_list(ctx, m, alpha, k, None)
    nonzero = _cumulative(run, alpha, k, "dcg") != 0
    return _ratio(_cumulative(run, alpha, k, what), _cumulative(ideal, alpha, k, what), nonzero)


def nerr_ia(ctx: Ranked, m) -> np.ndarray:
    """nERR-IA@k: ERR-IA@k over the greedy ideal ranking's (ndeval)."""
    return _normalised(ctx, m, "err")


def alpha_ndcg(ctx: Ranked, m) -> np.ndarray:
    """alpha-nDCG@k: alpha-DCG@k over the greedy ideal ranking's (ndeval)."""
    return _normalised(ctx, m, "dcg")


def nrbp(ctx: Ranked, m) -> np.ndarray:
    """NRBP over the whole ranking (ndeval)."""
    return _nrbp_value(_run_list(ctx, m), _alpha(m), _beta(m))


def nnrbp(ctx: Ranked, m) -> np.ndarray:
    """nNRBP: NRBP over the greedy ideal ranking's; NaN (ndeval's 0/0) for a query without a kept subtopic."""
    alpha, beta = _alpha(m), _beta(m)
    run = _nrbp_value(_run_list(ctx, m), alpha, beta)
    ideal = _nrbp_value(_ideal_list(ctx, m, alpha, 1, beta), alpha, beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        return run / ideal


def ap_ia(ctx: Ranked, m) -> np.ndarray:
    """AP-IA: each kept subtopic's average precision, averaged over the kept subtopics (ndeval's MAP-IA)."""
    lst = _run_list(ctx, m)
    width = lst.per_sub.shape[1]
    cell = lst.p_seg * width + lst.p_col
    terms = (lst.p_seen + 1) / lst.e_pos[lst.p_entry].astype(np.float64)
    by = np.argsort(cell, kind="stable")  # each subtopic's documents in rank order
    totals = np.bincount(cell[by], weights=terms[by], minlength=lst.n * width).astype(np.float64)
    totals = totals.reshape(lst.n, width)
    per = lst.per_sub
    share = np.zeros_like(totals)
    np.divide(totals, per, out=share, where=per > 0)
    summed = np.zeros(lst.n)
    for j in range(width):  # subtopics in ascending order, as ndeval adds them
        summed += share[:, j]
    return _ratio(summed, lst.actual.astype(np.float64), lst.actual > 0)


def p_ia(ctx: Ranked, m) -> np.ndarray:
    """P-IA@k: relevant (document, subtopic) pairs in the top k over k times the subtopics kept."""
    lst = _run_list(ctx, m)
    k = m.cutoff
    count = np.bincount(lst.p_seg[lst.e_pos[lst.p_entry] <= k], minlength=lst.n).astype(np.float64)
    return _ratio(count, (k * lst.actual).astype(np.float64), lst.actual > 0)


def st_recall(ctx: Ranked, m) -> np.ndarray:
    """StRecall@k: subtopics covered by the top k over the subtopics kept."""
    lst = _run_list(ctx, m)
    first = (lst.p_seen == 0) & (lst.e_pos[lst.p_entry] <= m.cutoff)
    count = np.bincount(lst.p_seg[first], minlength=lst.n).astype(np.float64)
    return _ratio(count, lst.actual.astype(np.float64), lst.actual > 0)


# ----------------------------------------------------------------------------- rows
def _unit(v) -> str | None:
    """alpha and beta lie in [0, 1], as ndeval requires."""
    return "must be between 0 and 1" if not 0.0 <= v <= 1.0 else None


_ALPHA = Param("alpha", float, 0.5, "redundancy intolerance: a subtopic's gain is (1 - alpha)^(documents "
               "above relevant to it)", check=_unit)
_PATIENCE = Param("beta", float, 0.5, "patience: the chance of going on to the next rank", check=_unit)
_NDEVAL = "Clarke et al., SIGIR 2008; ndeval 4.5"
_IA = "Agrawal et al., WSDM 2009; ndeval 4.5"
_GAIN_IA = ("``gain_i = sum_j rel_ij (1 - alpha)^{c_ij}`` over the query's S subtopics, c_ij the documents "
            "above rank i relevant to j")
_DIV_ORDER = Differs("diversity run order", "(none)", "pyndeval: score, ties by docno ascending (ndeval: by "
                     "rank; -traditional: score, ties by docno descending, as here)", "(none)")


def _diversity(name, kernel, doc, params, **kw) -> Family:
    """A diversity family: subtopic qrels, judged as ndeval judges them (any grade >= rel counts as 1)."""
    return Family(name, kernel, f"{doc} (subtopic qrels)", (REL,) + tuple(params), expected=False, subtopics=True, **kw)


ROWS = [
    _diversity("ERR_IA", err_ia, "intent-aware ERR@k over ndeval's ideal ideal list", (_ALPHA,),
         cutoff="required", cite="Chapelle et al., CIKM 2009; ndeval 4.5",
         formula=f"``sum_{{i<=k}} gain_i / i`` over the same sum with ``gain_i = S (1 - alpha)^(i-1)`` (every "
                 f"subtopic at every rank; k = 1: undivided, as in ndeval); {_GAIN_IA}"),
    _diversity("nERR_IA", nerr_ia, "ERR_IA@k over the greedy ideal ranking's", (_ALPHA,),
         cutoff="required", cite="Chapelle et al., CIKM 2009; ndeval 4.5",
         formula="``ERR_IA@k / ERR_IA@k(ideal)``, the ideal ranking greedy (largest gain first, ties to the "
                 "larger docno); 0 where alpha_DCG@k is 0"),
    _diversity("alpha_DCG", alpha_dcg, "alpha-DCG@k over ndeval's ideal ideal list", (_ALPHA,),
         cutoff="required", cite=_NDEVAL,
         formula=f"``sum_{{i<=k}} gain_i / log2(i+1)`` over the same sum with ``gain_i = S (1 - alpha)^(i-1)`` "
                 f"(k = 1: undivided, as in ndeval); {_GAIN_IA}"),
    _diversity("alpha_nDCG", alpha_ndcg, "alpha-DCG@k over the greedy ideal ranking's", (_ALPHA,),
         cutoff="required", cite=_NDEVAL, differs=_DIV_ORDER,
         formula="``alpha_DCG@k / alpha_DCG@k(ideal)``, the ideal ranking greedy (largest gain first, ties to "
                 "the larger docno); 0 where alpha_DCG@k is 0"),
    _diversity("NRBP", nrbp, "novelty- and rank-biased precision", (_ALPHA, _PATIENCE), cutoff="none",
         cite="Clarke, Kolla & Vechtomova, ICTIR 2009; ndeval 4.5",
         formula="``(1 - (1 - alpha) beta) / S * sum_i gain_i beta^(i-1)`` over the whole ranking"),
    _diversity("nNRBP", nnrbp, "NRBP over the greedy ideal ranking's", (_ALPHA, _PATIENCE), cutoff="none",
         cite="Clarke, Kolla & Vechtomova, ICTIR 2009; ndeval 4.5",
         formula="``NRBP / NRBP(ideal)`` (NaN, ndeval's 0/0, when no subtopic has a relevant document)"),
    _diversity("AP_IA", ap_ia, "intent-aware AP: each subtopic's AP, averaged over the subtopics", (),
         cutoff="none", cite=_IA,
         formula="``(1/S) sum_j AP_j``, AP_j over the documents relevant to subtopic j (ndeval's MAP-IA)",
         aliases=("map_ia",)),
    _diversity("P_IA", p_ia, "intent-aware precision at k", (), cutoff="required", cite=_IA,
         formula="``sum_{i<=k} sum_j rel_ij / (k S)``"),
    _diversity("StRecall", st_recall, "subtopic recall: share of the subtopics covered by the top k", (),
         cutoff="required", cite="Zhai, Cohen & Lafferty, SIGIR 2003; ndeval 4.5",
         formula="subtopics with a relevant document in the top k, divided by S"),
]
