"""The measure registry: one row per measure family, the single source of what searchgrade knows (private).

Each row, a :class:`~searchgrade.measures.family.Family` (the row type, in
:mod:`searchgrade.measures.family`), holds its typed parameters
(:class:`~searchgrade.measures.params.Param`), cut-off rule, aggregation over queries,
whether ``ties="expected"`` has a closed form, whether it is graded, its kernel
(:mod:`searchgrade.measures.kernels`), its C/W/L user model, its formula and source, the
trec_eval names it prints under (:class:`TrecName`, with trec_eval's default cut-offs and
parameters, read from trec_eval 10.0's ``m_*.c`` files), what pytrec_eval and ranx call
it, how ir_measures spells its parameters, and where those tools compute it differently.

Everything else is derived from here: the name parser and ``known_measures()``
(:mod:`searchgrade.measures.names`), the formula and tool tables of
:mod:`searchgrade.metrics`' docstring and the API appendix's ``measure_table()``
(:mod:`searchgrade.measures.tables`), the curves :func:`searchgrade.cwl` draws
(:mod:`searchgrade.curves`), the pytrec_eval cross-check map in
:mod:`searchgrade.book.diagnostics`, and trec_eval's measure tables (:func:`trec_root`,
:data:`TREC_ORDER`, :meth:`Family.trec_name`, :func:`searchgrade.measures.names.trec_expand`).

How trec_eval prints a value's name (``meas_init.c``): long cut-offs as
``root_k`` (``P_10``), float cut-offs as ``root_%3.2f`` (``iprec_at_recall_0.10``,
``Rprec_mult_0.20``, cut to the root's length + 9 characters, trec_eval's buffer),
parameters as ``root_`` + the parameter text (``set_F_0.5``, ``utility_1,-2,0,0``,
``11pt_avg_0.2,0.5,0.8``, ``rbp_p=0.8``, ``ndcg_1=4,2=8``), and the root alone when
the defaults are used (``set_F``, ``rbp``).  The relevance level (``-l``),
judged-only (``-J``) and the collection size (``-N``) are options of the whole
trec_eval run, not part of a name.  :data:`TREC_ORDER` is the order trec_eval prints
its measures in and :data:`TREC_SETS` its named sets (``official``, ``set``,
``all_trec``); :func:`searchgrade.measures.names.trec_expand` reads a ``-m`` argument as
trec_eval reads it.
"""
from __future__ import annotations

from .family import ANY, COMMON, Differs, Family, IrParam, TrecName
from .kernels import cwl as _cwl_kernels
from .kernels import binary as binary_k, graded as graded_k, trec_walk as trec_walk_k
from .rows_cwl import ROWS as _CWL_ROWS
from .rows_diversity import ROWS as _DIVERSITY_ROWS
from .params import (REL, Param, above_one, finite, gain_map, open_unit, positive, positive_int,
                      recall_levels)

__all__ = ["TrecName", "IrParam", "Family", "FAMILIES", "register_family", "ALIASES", "COMMON", "TREC_ORDER", "TREC_SETS",
           "family", "trec_root", "IR_FIXED", "IR_RENAME", "unregister_family", "version",
           "RANX"]


# ------------------------------------------------------------------ parameters
_GAIN = Param("gain", str, "linear", "gain of grade g: g (linear, trec_eval) or 2^g - 1 (exp, Burges et al. 2005)",
              choices=("linear", "exp"))
_DISCOUNT = Param("discount", str, "log2", "1/log2(i+1), or Jarvelin-Kekalainen (jk): 1 before rank b, "
                  "1/log_b(i) from rank b on", choices=("log2", "jk"))
_BASE = Param("b", float, 2.0, "log base of discount=jk", check=above_one)
_GAINS = Param("gains", dict, None, "custom gain per grade {grade: gain}; grades not listed gain their grade "
               "(trec_eval ndcg's parameters, ir_measures' gains)", check=gain_map)
_TREC_GAINS = Param("gains", dict, None, "gain per grade {grade: gain} (trec_eval's grade=gain parameters); grades "
                    "not listed gain their grade", check=gain_map)
_IDEAL = Param("ideal", str, "sorted", "ideal ranking under gains=: judged documents by decreasing gain (sorted), or "
               "trec_eval's (trec: its gains ordered by qsort with a comparator that truncates their differences to "
               "integers, the walk stopped at the first gain <= 0)", choices=("sorted", "trec"))
_P = Param("p", float, 0.8, "persistence: the chance of going on to the next rank", check=open_unit)
_MAX_GRADE = Param("max_grade", int, None, "grade scale fixed at this grade (default: the query's largest grade)",
                   check=positive_int)
_RBP_GAIN = Param("gain", str, "scaled", "scaled: grade / the largest grade (or as rel=, max_grade=, gains= say); "
                  "grade: the grade itself, unscaled (ranx's rbp)", choices=("scaled", "grade"))
_RBP_GAINS = Param("gains", dict, None, "gain per grade {grade: gain} (trec_eval's rbp.1=g,..): the query's gains "
                   "(grades up to its largest, listed or not, and every listed one) rescaled to [0, 1] by "
                   "(gain - min) / (max - min), min and max taken with 0, when one lies outside [0, 1]",
                   check=gain_map)
_TAIL = Param("tail", str, "always", "the residual p^n: always added, or only when an unjudged document was "
              "retrieved (unjudged: trec_eval's rbp_resid, which prints 0 otherwise)", choices=("always", "unjudged"))
_BETA = Param("beta", float, 1.0, "weight of recall against precision", check=positive)
_BETA2 = Param("beta2", float, None, "beta^2 given directly (trec_eval's set_F.x: x = beta^2)", check=positive)
_LEVELS = Param("levels", tuple, None, "recall levels averaged over (default 0, 0.1, ..., 1; trec_eval 11pt_avg.x,y,..)",
                check=recall_levels)


def _gain_order(params: dict) -> dict:
    """Gains in the order given, as pairs: trec_eval's walk over them depends on it (keys keep it)."""
    if isinstance(params.get("gains"), dict):
        params["gains"] = tuple(params["gains"].items())
    return params


def _dcg_finish(measure: str, params: dict, given: set) -> dict:
    """nDCG/DCG/CG: b only with discount=jk (then 2 unless given); gains only with linear gain; ideal= with gains.

    With the sorted ideal a grade that gains itself is the default, so {1:1,2:5} is {2:5}, in grade order;
    trec_eval's ideal (ideal=trec) keeps the map as given: its order of gains depends on it.
    """
    if "gains" in params and params.get("ideal") != "trec":
        params["gains"] = {g: v for g, v in sorted(params["gains"].items()) if v != g}
        if not params["gains"]:
            del params["gains"]
    if "ideal" in given and "gains" not in params:
        raise ValueError(f"measure {measure!r}: ideal= only applies with gains= (with every grade gaining "
                         "itself the two ideal rankings are one)")
    if "gains" not in params:
        params.pop("ideal", None)
    if "b" in given and params.get("discount") != "jk":
        raise ValueError(f"measure {measure!r}: b= only applies with discount=jk")
    if params.get("discount") != "jk":
        params.pop("b", None)
    if "gains" in params and params.get("gain") == "exp":
        raise ValueError(f"measure {measure!r}: gains= replaces the gain of each grade; it cannot be combined "
                         "with gain=exp")
    return params


def _ndcg_normal(params: dict) -> dict:
    """nDCG's value depends on the order of gains only with trec_eval's ideal ranking."""
    return _gain_order(params) if params.get("ideal") == "trec" else params


def _rbp_finish(measure: str, params: dict, given: set) -> dict:
    """RBP: binary (rel=), a fixed grade scale (max_grade=) and gains per grade (gains=) exclude each other."""
    chosen = [name for name in ("rel", "max_grade", "gains") if name in params]
    chosen += ["gain"] if params.get("gain") == "grade" else []
    if len(chosen) > 1:
        what = {"rel": "rel= (binary gain)", "max_grade": "max_grade= (graded scale)", "gains": "gains= (gain per grade)",
                "gain": "gain=grade (unscaled grades)"}
        raise ValueError(f"measure {measure!r}: {' and '.join(what[c] for c in chosen)} cannot be combined")
    return params


def _setf_finish(measure: str, params: dict, given: set) -> dict:
    """SetF/SetE: beta or beta2, not both."""
    if "beta" in given and "beta2" in given:
        raise ValueError(f"measure {measure!r}: beta= and beta2= (beta squared) cannot be combined")
    if "beta2" in params:
        params.pop("beta", None)
    return params


def _setf_normal(params: dict) -> dict:
    """SetF's value depends on beta^2 only: SetF(beta=2) is SetF(beta2=4)."""
    beta2 = params.pop("beta2", None)
    beta = params.pop("beta", 1.0)
    params["beta2"] = beta * beta if beta2 is None else beta2
    return params


def _eleven_finish(measure: str, params: dict, given: set) -> dict:
    """11pt: the standard levels are the default, written or not."""
    if params.get("levels") == _STANDARD_LEVELS:
        del params["levels"]
    return params


def _utility_finish(measure: str, params: dict, given: set) -> dict:
    """Utility: the d term counts non-relevant documents not retrieved, so it needs the collection size."""
    if params.get("d", 0.0) != 0.0 and "n_docs" not in params:
        raise ValueError(f"measure {measure!r}: d= weighs the non-relevant documents not retrieved; "
                         "it needs the collection size n_docs= (trec_eval -N)")
    return params


_UTILITY = (REL,
            Param("a", float, 1.0, "worth of a relevant document retrieved", check=finite),
            Param("b", float, -1.0, "worth of a non-relevant document retrieved", check=finite),
            Param("c", float, 0.0, "worth of a relevant document not retrieved", check=finite),
            Param("d", float, 0.0, "worth of a non-relevant document not retrieved (needs n_docs)", check=finite),
            Param("n_docs", int, None, "documents in the collection (trec_eval -N), for d", check=positive_int))

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cut-offs (P, recall, ndcg_cut, ...)
_STANDARD_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # iprec_at_recall, 11pt_avg
_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # Rprec_mult
_IPREC_NOTE = "pytrec_eval (trec_eval 9) turns a recall level r into (long)(r*R + 0.9) documents, not lround(r*R)"
_RBP_NOTE = ("trec_eval 10 rescales graded gains with uninitialised min/max (undefined); on binary qrels "
             "it agrees with searchgrade")


def _f(name, kernel, doc, params=(), **kw) -> Family:
    """Shorthand for a Family entry."""
    return Family(name, kernel, doc, tuple(params), **kw)


FAMILIES: dict[str, Family] = {f.name: f for f in [
    _f("P", binary_k.precision, "precision at k", (REL,), cutoff="required", trec=(TrecName("P", "cut", _CUTS),),
       curve=_cwl_kernels.P_MODEL, formula="``sum_{i<=k} rel_i / k``", ranx="precision"),
    _f("R", binary_k.recall, "recall at k", (REL,), cutoff="required", trec=(TrecName("recall", "cut", _CUTS),),
       formula="``sum_{i<=k} rel_i / R``", ranx="recall"),
    _f("Hit", binary_k.hit, "1 if a relevant document is in the top k (success)", (REL,),
       trec=(TrecName("success", "cut", (1, 5, 10)),),
       formula="1 if ``sum_{i<=k} rel_i > 0`` else 0 (no cut-off: any relevant document retrieved)",
       ranx="hit_rate"),
    _f("Hits", binary_k.hits, "relevant documents in the top k, a count averaged over queries", (REL,),
       formula="``sum_{i<=k} rel_i`` (no cut-off: every document retrieved); the mean over queries, where "
               "NumRelRet sums", ranx="hits"),
    _f("RelP", binary_k.relative_precision, "relevant in top k / min(k, R)", (REL,), cutoff="required",
       trec=(TrecName("relative_P", "cut", _CUTS),), formula="``sum_{i<=k} rel_i / min(k, R)``"),
    _f("Rprec", binary_k.r_precision, "precision after R documents", (REL,), cutoff="none",
       trec=(TrecName("Rprec", "plain"),), formula="``P@R``", ranx="r-precision"),
    _f("RprecMult", binary_k.rprec_mult, "precision after floor(m*R + 0.9) documents",
       (REL, Param("m", float, 1.0, "multiple of R", check=positive)), cutoff="none",
       trec=(TrecName("Rprec_mult", "level", _MULTS, target="m"),),
       formula="``P@c``, ``c = floor(m*R + 0.9)`` (0 when c = 0)"),
    _f("AP", binary_k.average_precision, "average precision (AP@k: divided by R)", (REL,),
       trec=(TrecName("map", "plain"), TrecName("map_cut", "cut", _CUTS)),
       formula="``(1/R) sum_i rel_i * P@i``; ``AP@k`` (``map_cut_k``) sums ``i <= k``", ranx="map"),
    _f("GMAP", binary_k.average_precision, "AP per query, geometric mean over queries", (REL,), agg="gmean",
       trec=(TrecName("gm_map", "plain", per_query=False),), formula="AP per query"),
    _f("RR", binary_k.reciprocal_rank, "reciprocal rank of the first relevant document", (REL,),
       curve=_cwl_kernels.RR_MODEL, trec=(TrecName("recip_rank", "plain"),),
       formula="``1 / (rank of the first relevant document)``; ``RR@k`` 0 beyond k",
       cite="Kantor & Voorhees 2000", ranx="mrr"),
    _f("nDCG", graded_k.ndcg, "normalised discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS, _IDEAL),
       graded=True,
       trec=(TrecName("ndcg", "pairs", params=("gains",), implied_with_gains=(("ideal", "trec"),)),
             TrecName("ndcg_cut", "cut", _CUTS)),
       ir=(IrParam("dcg", "gain", (("log2", "linear"), ("exp-log2", "exp"))),), finish=_dcg_finish,
       normal=_ndcg_normal,
       formula="``DCG@k / IDCG@k``, IDCG the DCG of all judged documents sorted by grade; ``gains={g: v}`` "
               "gives grade g the gain v, other grades their own (ir_measures' ``gains``; IDCG then sorts by "
               "gain, leaving out gains below 0); ``ideal=trec`` builds IDCG as trec_eval's ``ndcg.1=4`` does; "
               "``gain=exp`` is computed scaled by ``2^-gmax``, so any grade stays finite",
       cite="Järvelin & Kekäläinen 2002", ranx="ndcg, ndcg_burges (gain=exp)",
       differs=Differs("nDCG gain", "linear (the grade), all grades, log2(rank+1)", "linear, as trec_eval",
                       "``ndcg``: linear, ``ndcg_burges``: 2^g - 1; grades < rel_lvl dropped")),
    _f("DCG", graded_k.dcg, "discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS), graded=True,
       finish=_dcg_finish,
       formula="``sum_{i<=k} gain(g_i) / log2(i+1)``: gain = g (linear, trec_eval) or ``2^g - 1`` with "
               "``gain=exp`` (Burges et al. 2005); ``discount=jk,b=B``: 1 for ``i < B``, ``1/log_B(i)`` after; "
               "``DCG(gain=exp)`` beyond float range is a ValueError",
       cite="Järvelin & Kekäläinen 2002", ranx="dcg, dcg_burges (gain=exp)"),
    _f("CG", graded_k.cg, "cumulated gain", (_GAIN, _GAINS), graded=True, finish=_dcg_finish,
       formula="``sum_{i<=k} gain(g_i)``", cite="Järvelin & Kekäläinen 2002"),
    _f("RBP", graded_k.rbp, "rank-biased precision", (_P, Param("rel", int, None, "binary gain at this grade (default: "
       "graded gain grade / max grade)", check=positive_int), _MAX_GRADE, _RBP_GAINS, _RBP_GAIN), graded=True,
       trec=(TrecName("rbp", "pairs", params=("p", "gains"), implied=(("p", 0.9),), pytrec_eval=False,
                      note=_RBP_NOTE),),
       finish=_rbp_finish, curve=_cwl_kernels.RBP_MODEL,
       formula="``(1-p) sum_i gain_i p^(i-1)``, p^(i-1) by repeated multiplication as in trec_eval; gain = "
               "``g_i / max grade in the query's qrels`` (binary qrels: rel_i), or binary ``rel_i`` at level r "
               "with ``RBP(p=..,rel=r)``, or ``gains={g: v}`` rescaled to [0, 1] as trec_eval's ``rbp.g=v``",
       cite="Moffat & Zobel 2008", ranx="rbp (gain=grade; rbp.95: p = 0.95)",
       # ranx/metrics/rank_biased_precision.py, _rank_biased_precision: weighted_hit_list[i] = qrels[j, 1]
       # after clean_qrels (grades >= rel_lvl kept); its docstring's "r_i is either 0 or 1" is not what it does
       differs=Differs("RBP gain", "graded gains, rescaled with uninitialised min/max (undefined for grades > 1)",
                       "pytrec_eval: no rbp; ir_measures: p=0.8 by default, binary through cwl_eval (which "
                       "needs rel=), graded through trectools", "the raw grade as gain (not rescaled, not binary); "
                       "grades < rel_lvl gain 0")),
    _f("RBP_resid", graded_k.rbp_resid, "RBP residual: the most unjudged documents could add", (_P, _TAIL), graded=True,
       trec=(TrecName("rbp_resid", "pairs", params=("p",), implied=(("p", 0.9), ("tail", "unjudged")),
                      pytrec_eval=False),),
       formula="``p^n + (1-p) sum_{i<=n, unjudged} p^(i-1)``, n = documents retrieved: the most RBP could "
               "still grow; ``tail=unjudged`` is trec_eval's ``rbp_resid``, 0 when no unjudged document was "
               "retrieved", cite="Moffat & Zobel 2008"),
    _f("ERR", graded_k.err, "expected reciprocal rank", (_MAX_GRADE,), expected=False, graded=True,
       formula="``sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)``, ``R_i = (2^g_i - 1) / 2^gmax``; gmax is the "
               "largest grade in the query's qrels unless ``ERR(max_grade=4)@k`` (without max_grade= a warning "
               "names the queries' largest grades other than 4, where ir_measures' ERR@k, which fixes 4, "
               "differs; an ir_measures object ERR@k is read as max_grade=4); computed as "
               "``2^(g-gmax) - 2^-gmax`` in log space, so any grade stays finite",
       cite="Chapelle et al. 2009",
       differs=Differs("ERR gmax", "(no ERR)", "ERR@k via gdeval.pl, which fixes gmax = 4 (grades > 4 refused)",
                       "(no ERR)")),
    _f("Bpref", binary_k.bpref, "binary preference", (REL,), cutoff="none", expected=False,
       trec=(TrecName("bpref", "plain"),),
       formula="``(1/R) sum_{relevant retrieved r} (1 - min(N_r, R) / min(N, R))``, N_r judged non-relevant "
               "above r, N judged non-relevant in the qrels", cite="Buckley & Voorhees 2004",
       ranx="bpref (NaN when a query has no relevant or no judged non-relevant document)"),
    _f("infAP", binary_k.infap, "inferred AP (trec_eval)", (REL,), cutoff="none", expected=False,
       trec=(TrecName("infAP", "plain"),),
       formula="AP estimated from the judged sample, counting only pooled documents; AP when every document "
               "is judged", cite="Yilmaz & Aslam 2006"),
    _f("Judged", binary_k.judged_at, "fraction of the top k with a judgment", cutoff="required", graded=True,
       formula="judged documents (grade >= 0) in the top k, divided by k",
       differs=Differs("Judged@k", "(``unj_k``: unjudged / k)", "ir_measures: documents in the qrels (grade -1 "
                       "too) / min(k, retrieved)")),
    _f("Hole", binary_k.hole_at, "1 - Judged@k", cutoff="required", graded=True, formula="``1 - Judged@k``"),
    _f("Unj", binary_k.unjudged_at, "unjudged in top k / k (trec_eval unj_k)", cutoff="required", graded=True,
       trec=(TrecName("unj", "cut", (5, 10, 20), pytrec_eval=False),),
       formula="unjudged documents in the top k divided by k (``Hole@k`` when at least k are retrieved)"),
    _f("IPrec", binary_k.iprec, "interpolated precision at a recall level", (REL,), cutoff="recall", expected=False,
       trec=(TrecName("iprec_at_recall", "level", _STANDARD_LEVELS, note=_IPREC_NOTE),),
       formula="max precision at ranks where recall >= r, the level r*R rounded half up to a whole number of "
               "relevant documents (trec_eval 10)",
       differs=Differs("IPrec level r", "lround(r * R) relevant documents",
                       "trec_eval 9: (long)(r * R + 0.9) relevant documents")),
    _f("11pt", binary_k.eleven_pt, "11-point interpolated average precision (IPrec averaged over recall levels)",
       (REL, _LEVELS), cutoff="none", expected=False, finish=_eleven_finish,
       trec=(TrecName("11pt_avg", "list", params=("levels",), note=_IPREC_NOTE),),
       formula="mean of IPrec at r = 0, 0.1, ..., 1 (``levels=[..]``: other levels, trec_eval's "
               "``11pt_avg.0.2,0.5,0.8``), summed last level first"),
    _f("SetP", binary_k.set_p, "precision of the retrieved set", (REL,), cutoff="none", trec=(TrecName("set_P", "plain"),),
       ir=(IrParam("relative", family=((True, "SetRelP"), (False, "SetP"))),),
       formula="relevant retrieved / retrieved", ranx="precision (without @k)"),
    _f("SetR", binary_k.set_r, "recall of the retrieved set", (REL,), cutoff="none",
       trec=(TrecName("set_recall", "plain"),), formula="relevant retrieved / R", ranx="recall (without @k)"),
    _f("SetF", binary_k.set_f, "F_beta of the retrieved set (SetF@k: of P@k and R@k)", (REL, _BETA, _BETA2),
       finish=_setf_finish,
       normal=_setf_normal,
       trec=(TrecName("set_F", "doubles", params=("beta2",),
                      note="trec_eval's parameter x is beta^2: F = (x+1)PR/(xP+R)"),),
       formula="``F_beta = (1+b^2)PR/(b^2P+R)`` of P = SetP and R = SetR (``SetF@k``: of P@k and R@k, a "
               "short run padded as P@k pads it, ranx's ``f1@k``); trec_eval's ``set_F_x`` takes "
               "``x = beta^2``: ``SetF(beta2=x)`` (``set_F_4`` is ``SetF(beta=2)``)",
       cite="van Rijsbergen 1979", ranx="f1 (beta=1; f1@k: the top k as the set)",
       differs=Differs("F parameter", "``set_F.x``: x = beta^2", "ir_measures' SetF(beta=b) runs set_F.b: "
                       "beta^2 = b", "``f1`` only")),
    _f("SetE", binary_k.set_e, "van Rijsbergen's E = 1 - F_beta", (REL, _BETA, _BETA2), cutoff="none", finish=_setf_finish,
       normal=_setf_normal, formula="``E = 1 - F_beta``", cite="van Rijsbergen 1979"),
    _f("SetRelP", binary_k.set_rel_p, "relevant retrieved / min(retrieved, R)", (REL,), cutoff="none",
       trec=(TrecName("set_relative_P", "plain"),), formula="relevant retrieved / min(retrieved, R)"),
    _f("SetAP", binary_k.set_ap, "SetP * SetR (trec_eval set_map)", (REL,), cutoff="none",
       trec=(TrecName("set_map", "plain"),), formula="``SetP * SetR``"),
    _f("Utility", binary_k.utility, "linear utility a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
       _UTILITY, cutoff="none", trec=(TrecName("utility", "doubles", params=("a", "b", "c", "d")),),
       finish=_utility_finish,
       formula="``a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret``, defaults 1, -1, 0, 0; ``d`` "
               "needs the collection size ``n_docs=`` (trec_eval -N)"),
    _f("NumQ", binary_k.num_q, "queries evaluated", cutoff="none", agg="sum", integer=True, graded=True,
       trec=(TrecName("num_q", "plain", per_query=False),), formula="1 per query evaluated"),
    _f("NumRet", binary_k.num_ret, "documents retrieved", cutoff="none", agg="sum", integer=True, graded=True,
       trec=(TrecName("num_ret", "plain"),), ir=(IrParam("rel", "rel", family=((ANY, "NumRelRet"),)),),
       formula="documents retrieved"),
    _f("NumRel", binary_k.num_rel, "relevant documents in qrels", (REL,), cutoff="none", agg="sum", integer=True,
       trec=(TrecName("num_rel", "plain"),), formula="R"),
    _f("NumRelRet", binary_k.num_rel_ret, "relevant documents retrieved", (REL,), cutoff="none", agg="sum",
       integer=True, trec=(TrecName("num_rel_ret", "plain"),), formula="relevant documents retrieved"),
    _f("NumNonRelJudgedRet", binary_k.num_nonrel_judged_ret, "judged non-relevant documents retrieved", (REL,),
       cutoff="none", agg="sum", integer=True, trec=(TrecName("num_nonrel_judged_ret", "plain"),),
       formula="retrieved documents with ``0 <= grade < rel``"),
    _f("GMBpref", binary_k.bpref, "bpref per query, geometric mean over queries", (REL,), cutoff="none", agg="gmean",
       expected=False, trec=(TrecName("gm_bpref", "plain", per_query=False),), formula="Bpref per query"),
    _f("binG", binary_k.bin_g, "trec_eval binG (experimental)", (REL,), cutoff="none", expected=False,
       trec=(TrecName("binG", "plain"),),
       formula="``(1/R) sum_{relevant retrieved} 1 / log2(2 + non-relevant above it)``"),
    _f("G", trec_walk_k.g_measure, "trec_eval G (experimental)", (_TREC_GAINS,), cutoff="none", expected=False, graded=True,
       trec=(TrecName("G", "pairs", params=("gains",)),), normal=_gain_order,
       formula="``sum_i g_i / log2(2 + cost_i - gain so far_i)`` over the total ideal gain, cost_i summing "
               "max(ideal gain, 1) over ranks <= i; ``gains={g: v}`` as trec_eval's ``G.1=3``"),
    _f("nDCG_rel", trec_walk_k.ndcg_rel, "trec_eval ndcg_rel (experimental)", (_TREC_GAINS,), cutoff="none", expected=False,
       graded=True, trec=(TrecName("ndcg_rel", "pairs", params=("gains",)),), normal=_gain_order,
       formula="nDCG averaged over the relevant documents (at each one retrieved; the final nDCG for the "
               "others); ``gains={g: v}`` as trec_eval's"),
    _f("RnDCG", trec_walk_k.rndcg, "trec_eval Rndcg (experimental)", (REL, _TREC_GAINS), cutoff="none", expected=False,
       trec=(TrecName("Rndcg", "pairs", params=("gains",)),), normal=_gain_order,
       formula="nDCG averaged at each rank where the ideal gain drops; ``gains={g: v}`` as trec_eval's"),
]}


# C/W/L and diversity rows live in their own modules (rows_cwl, rows_diversity).
FAMILIES.update({f.name: f for f in (*_CWL_ROWS, *_DIVERSITY_ROWS)})


#: Other spellings of family names (matched case-insensitively, like the names themselves):
#: ir_measures' aliases (MAP, MRR, NDCG, BPref, RPrec, Precision, Recall, Success) and a few more.
ALIASES = {
    "success": "Hit",
    "map": "AP",
    "mrr": "RR",
    "precision": "P",
    "recall": "R",
    "11ptavg": "11pt",
    "setrecall": "SetR",
    "setprecision": "SetP",
    "map_ia": "AP_IA",
}

#: ranx's metric names (``ranx.metrics.metric_switch``, ranx 0.3.21) as searchgrade spellings: (with ``@k``,
#: without: ranx's k = 0, the whole run).  ``rbp.95`` is ranx's p = 0.95 (``rbp@95`` stays searchgrade's
#: RBP at cut-off 95); ranx's ``-lL`` (rel_lvl) is ``rel=L`` on the binary families and, on the linear
#: dcg/ndcg, gain 0 below grade L.  Each name appears in its family's ``ranx`` column.
RANX = {
    "hits": ("Hits", "Hits"),
    "hit_rate": ("Hit", "Hit"),
    "precision": ("P", "SetP"),
    "recall": ("R", "SetR"),
    "f1": ("SetF", "SetF"),
    "r-precision": (None, "Rprec"),
    "mrr": ("RR", "RR"),
    "map": ("AP", "AP"),
    "dcg": ("DCG", "DCG"),
    "dcg_burges": ("DCG(gain=exp)", "DCG(gain=exp)"),
    "ndcg": ("nDCG", "nDCG"),
    "ndcg_burges": ("nDCG(gain=exp)", "nDCG(gain=exp)"),
    "bpref": (None, "Bpref"),
    "rbp": (None, "RBP(gain=grade)"),
}

#: What an ir_measures *object* means beyond its parameters: ir_measures computes ERR with gdeval.pl,
#: whose grade scale is fixed at 4.  (A string "ERR@10" keeps searchgrade's reading, the query's largest grade,
#: which the book uses; the ERR kernel warns when a query's largest grade is not 4, where the readings differ.)
IR_FIXED = {"ERR": (("max_grade", 4),)}
#: ir_measures object parameters that are another searchgrade parameter: ir_measures hands SetF's beta
#: to trec_eval's set_F, whose parameter is beta^2, so its SetF(beta=b) is SetF(beta2=b).
#: (A string "SetF(beta=2)" keeps searchgrade's reading, van Rijsbergen's F_2.)
IR_RENAME = {"SetF": {"beta": "beta2"}}

#: trec_eval 10.0's measures in the order it prints them (measures.c); runid and relstring are not measures.
TREC_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
              "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
              "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
              "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
              "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj")
#: trec_eval 10.0's named sets of measures (measures.c), each in its own listed order.
TREC_SETS = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}

_BY_LOWER = {name.lower(): name for name in FAMILIES}
_BY_ROOT = {spec.root: (fam, spec) for fam in FAMILIES.values() for spec in fam.trec}
_VERSION = [0]  # bumped by register_family / unregister_family: tables derived from FAMILIES rebuild


def version() -> int:
    """How many times the registry has changed since import: a cache built from it is stale when this moves."""
    return _VERSION[0]


def register_family(row: Family, replace: bool = False) -> Family:
    """Add a measure family (one row: its kernel ``kernel(ctx, measure) -> per-query values`` and rules).

    What the built-in rows get, a registered row gets too: its names parse everywhere (``evaluate``,
    ``Evaluator``, ``compare``), trec_eval-style names included (``root_k``), its parameters are
    checked, and :func:`searchgrade.measure_table` lists it.  Its trec_eval names are read by the
    ``trec_eval`` command's ``-m`` only when listed in TREC_ORDER.  :func:`unregister_family` takes it
    out again.  A kernel gets the binary relevance level of its measure from
    :func:`searchgrade.measures.kernels.base.level`.
    """
    taken = family(row.name)
    if taken is not None and not (replace and taken.name == row.name):
        raise ValueError(f"a measure family named {taken.name!r} is already registered")
    clash = [spec.root for spec in row.trec if spec.root in _BY_ROOT and _BY_ROOT[spec.root][0].name != row.name]
    if clash:
        raise ValueError(f"trec_eval name(s) {', '.join(clash)} already belong to another family")
    if taken is not None:  # replaced in place: its trec_eval names are the new row's
        _drop_roots(taken)
    FAMILIES[row.name] = row
    _BY_LOWER[row.name.lower()] = row.name
    _BY_ROOT.update({spec.root: (row, spec) for spec in row.trec})
    _VERSION[0] += 1
    return row


def unregister_family(name: str) -> Family:
    """Take the family called ``name`` (case-insensitive, not an alias) out of the registry; KeyError if none.

    Returns the row, so that ``register_family(unregister_family("X"))`` puts it back.
    """
    canonical = _BY_LOWER.get(name.lower())
    if canonical is None:
        raise KeyError(f"no measure family named {name!r} is registered")
    row = FAMILIES.pop(canonical)
    del _BY_LOWER[canonical.lower()]
    _drop_roots(row)
    _VERSION[0] += 1
    return row


def _drop_roots(row: Family) -> None:
    """Forget the trec_eval roots that belong to ``row``."""
    for spec in row.trec:
        if _BY_ROOT.get(spec.root, (None,))[0] is row:
            del _BY_ROOT[spec.root]


def family(name: str) -> Family | None:
    """The family called ``name`` or one of its aliases (case-insensitive), or None."""
    key = name.lower()
    canonical = _BY_LOWER.get(key) or ALIASES.get(key)
    return FAMILIES[canonical] if canonical else None


def trec_root(root: str) -> tuple[Family, TrecName] | None:
    """(family, name spec) of a trec_eval measure root such as ``P``, ``ndcg_cut``, ``rbp``; None if unknown."""
    return _BY_ROOT.get(root)
