"""The diversity and intent-aware measure families' registry rows (ndeval 4.5's measures, ir_measures' names).

Rows of :data:`searchgrade.measures.registry.FAMILIES`; each needs subtopic qrels
``{qid: {subtopic: {docid: grade}}}``.  Kernels and ndeval's conventions are in
:mod:`searchgrade.measures.kernels.diversity`.
"""
from __future__ import annotations

from .family import Differs, Family
from .kernels import diversity as diversity_k
from .params import REL, Param

__all__ = ["ROWS"]

# ------------------------------------------------- diversity measures (ndeval 4.5, via pyndeval in ir_measures)
# ir_measures' names and parameters (its pyndeval provider); kernels and ndeval's conventions in
# searchgrade.measures.kernels.diversity.  Each needs subtopic qrels {qid: {subtopic: {docid: grade}}}.
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


def _div(name, kernel, doc, params, **kw) -> Family:
    """A diversity family: subtopic qrels, judged as ndeval judges them (any grade >= rel counts as 1)."""
    return Family(name, kernel, f"{doc} (subtopic qrels)", (REL,) + tuple(params), expected=False, subtopics=True, **kw)


ROWS = [
    _div("ERR_IA", diversity_k.err_ia, "intent-aware ERR@k over ndeval's ideal ideal list", (_ALPHA,),
         cutoff="required", cite="Chapelle et al., CIKM 2009; ndeval 4.5",
         formula=f"``sum_{{i<=k}} gain_i / i`` over the same sum with ``gain_i = S (1 - alpha)^(i-1)`` (every "
                 f"subtopic at every rank; k = 1: undivided, as in ndeval); {_GAIN_IA}"),
    _div("nERR_IA", diversity_k.nerr_ia, "ERR_IA@k over the greedy ideal ranking's", (_ALPHA,),
         cutoff="required", cite="Chapelle et al., CIKM 2009; ndeval 4.5",
         formula="``ERR_IA@k / ERR_IA@k(ideal)``, the ideal ranking greedy (largest gain first, ties to the "
                 "larger docno); 0 where alpha_DCG@k is 0"),
    _div("alpha_DCG", diversity_k.alpha_dcg, "alpha-DCG@k over ndeval's ideal ideal list", (_ALPHA,),
         cutoff="required", cite=_NDEVAL,
         formula=f"``sum_{{i<=k}} gain_i / log2(i+1)`` over the same sum with ``gain_i = S (1 - alpha)^(i-1)`` "
                 f"(k = 1: undivided, as in ndeval); {_GAIN_IA}"),
    _div("alpha_nDCG", diversity_k.alpha_ndcg, "alpha-DCG@k over the greedy ideal ranking's", (_ALPHA,),
         cutoff="required", cite=_NDEVAL, differs=_DIV_ORDER,
         formula="``alpha_DCG@k / alpha_DCG@k(ideal)``, the ideal ranking greedy (largest gain first, ties to "
                 "the larger docno); 0 where alpha_DCG@k is 0"),
    _div("NRBP", diversity_k.nrbp, "novelty- and rank-biased precision", (_ALPHA, _PATIENCE), cutoff="none",
         cite="Clarke, Kolla & Vechtomova, ICTIR 2009; ndeval 4.5",
         formula="``(1 - (1 - alpha) beta) / S * sum_i gain_i beta^(i-1)`` over the whole ranking"),
    _div("nNRBP", diversity_k.nnrbp, "NRBP over the greedy ideal ranking's", (_ALPHA, _PATIENCE), cutoff="none",
         cite="Clarke, Kolla & Vechtomova, ICTIR 2009; ndeval 4.5",
         formula="``NRBP / NRBP(ideal)`` (NaN, ndeval's 0/0, when no subtopic has a relevant document)"),
    _div("AP_IA", diversity_k.ap_ia, "intent-aware AP: each subtopic's AP, averaged over the subtopics", (),
         cutoff="none", cite=_IA,
         formula="``(1/S) sum_j AP_j``, AP_j over the documents relevant to subtopic j (ndeval's MAP-IA)"),
    _div("P_IA", diversity_k.p_ia, "intent-aware precision at k", (), cutoff="required", cite=_IA,
         formula="``sum_{i<=k} sum_j rel_ij / (k S)``"),
    _div("StRecall", diversity_k.st_recall, "subtopic recall: share of the subtopics covered by the top k", (),
         cutoff="required", cite="Zhai, Cohen & Lafferty, SIGIR 2003; ndeval 4.5",
         formula="subtopics with a relevant document in the top k, divided by S"),
]
