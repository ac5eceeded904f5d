"""The measure registry: one entry per measure family, the single source of what searchgrade knows (private).

Each :class:`Family` holds its typed parameters (:class:`~searchgrade.measures.params.Param`),
cut-off rule, aggregation over queries, whether ``ties="expected"`` has a closed
form, whether it is graded, its kernel (:mod:`searchgrade.measures.kernels`), the
trec_eval names it prints under (:class:`TrecName`, with trec_eval's default
cut-offs and parameters, read from trec_eval 10.0's ``m_*.c`` files), what
pytrec_eval calls it, and how ir_measures spells its parameters.

Everything else is derived from here: the name parser and ``known_measures()``
(:mod:`searchgrade.measures.names`), the pytrec_eval cross-check map in
:mod:`searchgrade.book.lineup`, and trec_eval's measure tables (:func:`trec_root`,
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

from dataclasses import dataclass
from typing import Callable

from .kernels import cwl as _cwl_kernels
from .kernels import binary as binary_k, graded as graded_k, trec_walk as trec_walk_k
from .params import (Param, above_one, finite, fmt_value, gain_map, open_unit, positive, positive_int,
                      recall_levels)

__all__ = ["TrecName", "IrParam", "Family", "FAMILIES", "ALIASES", "COMMON", "TREC_ORDER", "TREC_SETS",
           "family", "trec_root", "IR_FIXED", "IR_RENAME"]

ANY = object()  # an ir_measures redirect that applies whatever the parameter's value


@dataclass(frozen=True)
class TrecName:
    """How trec_eval names one measure of a family, and which values it prints by default."""

    root: str  # trec_eval's measure name, as given to -m
    style: str  # "plain": root; "cut": root_k (long cut-offs); "level": root_%3.2f (float cut-offs);
    #             "doubles": root_v1,v2,.. (parameter values in order); "list": root_v1,v2,.. (one tuple
    #             parameter); "pairs": root_name=value,.. (grade=gain pairs set the parameter "gains")
    defaults: tuple = ()  # trec_eval's default cut-offs (cut, level)
    target: str = "cutoff"  # what a cut-off / level sets: the cut-off, or a parameter ("m")
    params: tuple = ()  # doubles: the parameters the values set, in order; list: the one parameter;
    #                     pairs: the names allowed ("gains": grade=gain pairs)
    implied: tuple = ()  # (param, value): what the root means beyond its text (rbp: p = 0.9)
    implied_with_gains: tuple = ()  # (param, value) implied when grade=gain pairs are given (ndcg: ideal=trec)
    per_query: bool = True  # trec_eval prints a value for every query (gm_map: only the summary)
    summary: bool = True  # trec_eval prints a summary ("all") value
    pytrec_eval: bool = True  # pytrec_eval knows this root (it runs trec_eval 9's code)
    note: str = ""  # where trec_eval or pytrec_eval compute it differently from searchgrade

    @property
    def cut(self) -> bool:
        """The root carries a cut-off or level (P_10, iprec_at_recall_0.10)."""
        return self.style in ("cut", "level")

    def printed(self, value=None) -> str:
        """trec_eval's printed name for a cut-off/level (cut styles) or a parameter text (doubles, pairs)."""
        if value is None:
            return self.root
        if self.style == "cut":
            return f"{self.root}_{int(value)}"
        if self.style == "level":  # snprintf into root + 8 + 2 bytes (meas_init.c)
            return f"{self.root}_{float(value):3.2f}"[: len(self.root) + 9]
        return f"{self.root}_{value}"


@dataclass(frozen=True)
class IrParam:
    """An ir_measures parameter that searchgrade spells differently or that selects another family."""

    name: str  # ir_measures' parameter name
    to: str | None = None  # the searchgrade parameter it sets (None: it only selects a family)
    values: tuple = ()  # (ir_measures value, searchgrade value) pairs; empty: the value as it is
    family: tuple = ()  # (ir_measures value or ANY, family) pairs: NumRet(rel=1) is NumRelRet


@dataclass(frozen=True)
class Family:
    """A measure family: parameters, cut-off rule, aggregation, kernel, and its names in other tools."""

    name: str
    kernel: Callable
    doc: str  # one line: what it measures
    params: tuple = ()  # Param, in the order canonical names show them
    cutoff: str = "optional"  # "none", "optional", "required", "recall" (a level in [0, 1])
    agg: str = "mean"  # over queries: "mean", "gmean" (trec_eval's geometric mean, floor 1e-5), "sum"
    expected: bool = True  # closed form under ties="expected"
    graded: bool = False  # uses the grades themselves (ignores rel_level)
    integer: bool = False  # a count (int64 column unless ties="expected")
    trec: tuple = ()  # TrecName, the plain/parameter form first
    ir: tuple = ()  # IrParam: ir_measures' spellings that differ
    finish: Callable | None = None  # cross-parameter rules: finish(measure text, params, given) -> params
    normal: Callable | None = None  # params -> the params that decide the value (SetF: beta^2), for keys
    curve: object | None = None  # its C/W/L user model (kernels/cwl.py): searchgrade.cwl draws its curves

    def normalised(self, params: dict) -> dict:
        """The parameters as they decide the value: equal normalised parameters, equal values."""
        return self.normal(dict(params)) if self.normal is not None else dict(params)

    def param(self, name: str) -> Param | None:
        """The parameter called ``name`` (family's own or common), or None."""
        for p in self.params + COMMON:
            if p.name == name:
                return p
        return None

    @property
    def defaults(self) -> dict:
        """Parameter defaults that are set (None means "not set": the evaluation decides)."""
        return {p.name: p.default for p in self.params + COMMON if p.default is not None}

    def trec_spec(self, measure) -> TrecName | None:
        """The trec_eval name spec that prints ``measure`` (an object with params and cutoff), or None."""
        for spec in self.trec:
            if self._fits(spec, measure):
                return spec
        return None

    def _implied(self, spec: TrecName, params: dict) -> dict:
        """What spec's root means beyond its text, for a measure with these parameters."""
        implied = dict(spec.implied)
        if params.get("gains"):
            implied.update(spec.implied_with_gains)
        return implied

    def _fits(self, spec: TrecName, m) -> bool:
        """Whether trec_eval's ``spec`` can name measure ``m`` (rel_level, judged_only: trec_eval -l, -J)."""
        has_cut = spec.cut and spec.target == "cutoff"
        if (m.cutoff is not None) != has_cut:
            return False
        free = {"judged_only", "n_docs"} | (set() if self.graded else {"rel"})  # trec_eval's -J, -N, -l
        if spec.cut and spec.target != "cutoff":
            free.add(spec.target)
        if spec.style in ("doubles", "pairs", "list"):
            free.update(spec.params)
        params = self.normalised(m.params)
        implied = self._implied(spec, params)
        defaults = self.normalised(self.defaults)
        for key, value in params.items():
            if key not in free and value != implied.get(key, defaults.get(key)):
                return False
        for key, value in implied.items():  # rbp_resid's tail=unjudged: RBP_resid without it is not rbp_resid
            if key not in free and params.get(key, defaults.get(key)) != value:
                return False
        return not (spec.cut and spec.target != "cutoff" and spec.target not in params)

    def trec_name(self, measure) -> str:
        """How trec_eval prints ``measure``'s value, e.g. ``P_10``, ``Rprec_mult_0.20``, ``rbp_p=0.8``.

        ValueError if trec_eval has no such measure.  trec_eval takes the
        relevance level from ``-l`` and judged-only from ``-J``, so ``rel`` and
        ``judged_only`` do not appear in the name.
        """
        spec = self.trec_spec(measure)
        if spec is None:
            raise ValueError(f"measure {getattr(measure, 'name', measure)!r} has no trec_eval counterpart"
                             + (f" (trec_eval has {', '.join(s.root for s in self.trec)})" if self.trec else ""))
        if spec.cut:
            value = measure.cutoff if spec.target == "cutoff" else measure.params[spec.target]
            return spec.printed(value)
        return spec.printed(self._param_text(spec, measure.params))

    def _param_text(self, spec: TrecName, params: dict) -> str | None:
        """trec_eval's parameter text for a doubles/list/pairs root, None when it is the root's default."""
        params = self.normalised(params)
        implied = self._implied(spec, params)
        defaults = self.normalised(self.defaults)
        if spec.style == "doubles":
            values = [params.get(p, implied.get(p, defaults.get(p))) for p in spec.params]
            if all(v == implied.get(p, defaults.get(p)) for p, v in zip(spec.params, values)):
                return None
            return ",".join(fmt_value(float(v)) for v in values)
        if spec.style == "list":
            (p,) = spec.params
            if params.get(p) is None:
                return None
            return ",".join(fmt_value(float(v)) for v in params[p])
        if spec.style == "pairs":
            shown = [f"{p}={fmt_value(params[p])}" for p in spec.params if p != "gains" and p in params
                     and params[p] != implied.get(p, defaults.get(p))]
            gains = params.get("gains") or ()
            shown += [f"{g}={fmt_value(v)}" for g, v in (gains.items() if isinstance(gains, dict) else gains)]
            return ",".join(shown) or None
        return None

    def pytrec_eval_name(self, measure) -> str:
        """The value key pytrec_eval reports for ``measure`` (its trec_eval name), or ValueError."""
        spec = self.trec_spec(measure)
        if spec is None or not spec.pytrec_eval:
            raise ValueError(f"measure {getattr(measure, 'name', measure)!r} has no pytrec_eval counterpart")
        return self.trec_name(measure)


# ------------------------------------------------------------------ parameters
REL = Param("rel", int, None, "grade counted as relevant (default: the evaluation's rel_level)",
            check=positive_int)
#: Accepted by every family: condensed lists for this measure only (default: the evaluation's judged_only).
COMMON = (Param("judged_only", bool, None, "drop unjudged documents before ranking (default: the "
                "evaluation's judged_only)"),)
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
    if len(chosen) > 1:
        what = {"rel": "rel= (binary gain)", "max_grade": "max_grade= (graded scale)", "gains": "gains= (gain per grade)"}
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
       curve=_cwl_kernels.P_MODEL),
    _f("R", binary_k.recall, "recall at k", (REL,), cutoff="required", trec=(TrecName("recall", "cut", _CUTS),)),
    _f("Hit", binary_k.hit, "1 if a relevant document is in the top k (success)", (REL,), cutoff="required",
       trec=(TrecName("success", "cut", (1, 5, 10)),)),
    _f("RelP", binary_k.relative_precision, "relevant in top k / min(k, R)", (REL,), cutoff="required",
       trec=(TrecName("relative_P", "cut", _CUTS),)),
    _f("Rprec", binary_k.r_precision, "precision after R documents", (REL,), cutoff="none", trec=(TrecName("Rprec", "plain"),)),
    _f("RprecMult", binary_k.rprec_mult, "precision after floor(m*R + 0.9) documents",
       (REL, Param("m", float, 1.0, "multiple of R", check=positive)), cutoff="none",
       trec=(TrecName("Rprec_mult", "level", _MULTS, target="m"),)),
    _f("AP", binary_k.average_precision, "average precision (AP@k: divided by R)", (REL,),
       trec=(TrecName("map", "plain"), TrecName("map_cut", "cut", _CUTS))),
    _f("GMAP", binary_k.average_precision, "AP per query, geometric mean over queries", (REL,), agg="gmean",
       trec=(TrecName("gm_map", "plain", per_query=False),)),
    _f("RR", binary_k.reciprocal_rank, "reciprocal rank of the first relevant document", (REL,),
       curve=_cwl_kernels.RR_MODEL,
       trec=(TrecName("recip_rank", "plain"),)),
    _f("nDCG", graded_k.ndcg, "normalised discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS, _IDEAL),
       graded=True,
       trec=(TrecName("ndcg", "pairs", params=("gains",), implied_with_gains=(("ideal", "trec"),)),
             TrecName("ndcg_cut", "cut", _CUTS)),
       ir=(IrParam("dcg", "gain", (("log2", "linear"), ("exp-log2", "exp"))),), finish=_dcg_finish,
       normal=_ndcg_normal),
    _f("DCG", graded_k.dcg, "discounted cumulative gain", (_GAIN, _DISCOUNT, _BASE, _GAINS), graded=True,
       finish=_dcg_finish),
    _f("CG", graded_k.cg, "cumulated gain", (_GAIN, _GAINS), graded=True, finish=_dcg_finish),
    _f("RBP", graded_k.rbp, "rank-biased precision", (_P, Param("rel", int, None, "binary gain at this grade (default: "
       "graded gain grade / max grade)", check=positive_int), _MAX_GRADE, _RBP_GAINS), graded=True,
       trec=(TrecName("rbp", "pairs", params=("p", "gains"), implied=(("p", 0.9),), pytrec_eval=False,
                      note=_RBP_NOTE),),
       finish=_rbp_finish, curve=_cwl_kernels.RBP_MODEL),
    _f("RBP_resid", graded_k.rbp_resid, "RBP residual: the most unjudged documents could add", (_P, _TAIL), graded=True,
       trec=(TrecName("rbp_resid", "pairs", params=("p",), implied=(("p", 0.9), ("tail", "unjudged")),
                      pytrec_eval=False),)),
    _f("ERR", graded_k.err, "expected reciprocal rank", (_MAX_GRADE,), expected=False, graded=True),
    _f("Bpref", binary_k.bpref, "binary preference", (REL,), cutoff="none", expected=False,
       trec=(TrecName("bpref", "plain"),)),
    _f("infAP", binary_k.infap, "inferred AP (trec_eval)", (REL,), cutoff="none", expected=False,
       trec=(TrecName("infAP", "plain"),)),
    _f("Judged", binary_k.judged_at, "fraction of the top k with a judgment", cutoff="required", graded=True),
    _f("Hole", binary_k.hole_at, "1 - Judged@k", cutoff="required", graded=True),
    _f("Unj", binary_k.unjudged_at, "unjudged in top k / k (trec_eval unj_k)", cutoff="required", graded=True,
       trec=(TrecName("unj", "cut", (5, 10, 20), pytrec_eval=False),)),
    _f("IPrec", binary_k.iprec, "interpolated precision at a recall level", (REL,), cutoff="recall", expected=False,
       trec=(TrecName("iprec_at_recall", "level", _STANDARD_LEVELS, note=_IPREC_NOTE),)),
    _f("11pt", binary_k.eleven_pt, "11-point interpolated average precision (IPrec averaged over recall levels)",
       (REL, _LEVELS), cutoff="none", expected=False, finish=_eleven_finish,
       trec=(TrecName("11pt_avg", "list", params=("levels",), note=_IPREC_NOTE),)),
    _f("SetP", binary_k.set_p, "precision of the retrieved set", (REL,), cutoff="none", trec=(TrecName("set_P", "plain"),),
       ir=(IrParam("relative", family=((True, "SetRelP"), (False, "SetP"))),)),
    _f("SetR", binary_k.set_r, "recall of the retrieved set", (REL,), cutoff="none",
       trec=(TrecName("set_recall", "plain"),)),
    _f("SetF", binary_k.set_f, "F_beta of the retrieved set", (REL, _BETA, _BETA2), cutoff="none", finish=_setf_finish,
       normal=_setf_normal,
       trec=(TrecName("set_F", "doubles", params=("beta2",),
                      note="trec_eval's parameter x is beta^2: F = (x+1)PR/(xP+R)"),)),
    _f("SetE", binary_k.set_e, "van Rijsbergen's E = 1 - F_beta", (REL, _BETA, _BETA2), cutoff="none", finish=_setf_finish,
       normal=_setf_normal),
    _f("SetRelP", binary_k.set_rel_p, "relevant retrieved / min(retrieved, R)", (REL,), cutoff="none",
       trec=(TrecName("set_relative_P", "plain"),)),
    _f("SetAP", binary_k.set_ap, "SetP * SetR (trec_eval set_map)", (REL,), cutoff="none",
       trec=(TrecName("set_map", "plain"),)),
    _f("Utility", binary_k.utility, "linear utility a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret",
       _UTILITY, cutoff="none", trec=(TrecName("utility", "doubles", params=("a", "b", "c", "d")),),
       finish=_utility_finish),
    _f("NumQ", binary_k.num_q, "queries evaluated", cutoff="none", agg="sum", integer=True, graded=True,
       trec=(TrecName("num_q", "plain", per_query=False),)),
    _f("NumRet", binary_k.num_ret, "documents retrieved", cutoff="none", agg="sum", integer=True, graded=True,
       trec=(TrecName("num_ret", "plain"),), ir=(IrParam("rel", "rel", family=((ANY, "NumRelRet"),)),)),
    _f("NumRel", binary_k.num_rel, "relevant documents in qrels", (REL,), cutoff="none", agg="sum", integer=True,
       trec=(TrecName("num_rel", "plain"),)),
    _f("NumRelRet", binary_k.num_rel_ret, "relevant documents retrieved", (REL,), cutoff="none", agg="sum",
       integer=True, trec=(TrecName("num_rel_ret", "plain"),)),
    _f("NumNonRelJudgedRet", binary_k.num_nonrel_judged_ret, "judged non-relevant documents retrieved", (REL,),
       cutoff="none", agg="sum", integer=True, trec=(TrecName("num_nonrel_judged_ret", "plain"),)),
    _f("GMBpref", binary_k.bpref, "bpref per query, geometric mean over queries", (REL,), cutoff="none", agg="gmean",
       expected=False, trec=(TrecName("gm_bpref", "plain", per_query=False),)),
    _f("binG", binary_k.bin_g, "trec_eval binG (experimental)", (REL,), cutoff="none", expected=False,
       trec=(TrecName("binG", "plain"),)),
    _f("G", trec_walk_k.g_measure, "trec_eval G (experimental)", (_TREC_GAINS,), cutoff="none", expected=False, graded=True,
       trec=(TrecName("G", "pairs", params=("gains",)),), normal=_gain_order),
    _f("nDCG_rel", trec_walk_k.ndcg_rel, "trec_eval ndcg_rel (experimental)", (_TREC_GAINS,), cutoff="none", expected=False,
       graded=True, trec=(TrecName("ndcg_rel", "pairs", params=("gains",)),), normal=_gain_order),
    _f("RnDCG", trec_walk_k.rndcg, "trec_eval Rndcg (experimental)", (REL, _TREC_GAINS), cutoff="none", expected=False,
       trec=(TrecName("Rndcg", "pairs", params=("gains",)),), normal=_gain_order),
]}


# ------------------------------------------------- C/W/L measures (cwl_eval, via ir_measures)
# ir_measures' names and parameters (its cwl_eval provider); kernels and conventions in searchgrade.measures.kernels.cwl.
def _at_least(low: float) -> Callable:
    """A check refusing values below ``low``."""
    return lambda v: f"must be at least {fmt_value(low)}" if v < low else None


def _inst_goal(v) -> str | None:
    """INST's T: below 0.25 its C(i) = ((i + 2T - G(i) - 1)/(i + 2T - G(i)))^2 can exceed 1."""
    return "must be at least 0.25 (below it INST's C(i) can exceed 1)" if v < 0.25 else None


def _cwl_finish(measure: str, params: dict, given: set) -> dict:
    """C/W/L gains (grade - min_rel) / (max_rel - min_rel) need max_rel > min_rel."""
    if params.get("max_rel") is not None and params["max_rel"] <= params.get("min_rel", 0):
        raise ValueError(f"measure {measure!r}: max_rel={params['max_rel']} must be greater than "
                         f"min_rel={params.get('min_rel', 0)}")
    return params


_T = Param("T", float, 1.0, "the user's goal: the total gain wanted (T documents at full gain)", check=positive)
_MIN_REL = Param("min_rel", int, 0, "grade at or below which a document gains 0", check=_at_least(0))
_MAX_REL = Param("max_rel", int, None, "grade that earns full gain 1, higher grades count as it (default: the "
                 "query's largest grade; ir_measures requires it)", check=positive_int)
_CWL_GAIN = (_MIN_REL, _MAX_REL)


def _cwl(name, kernel, doc, params, **kw) -> Family:
    """A C/W/L family: graded (gain from min_rel/max_rel), its user model, no trec_eval or pytrec_eval counterpart."""
    return _f(name, kernel, doc, tuple(params) + _CWL_GAIN, graded=True, finish=_cwl_finish,
              curve=getattr(_cwl_kernels, f"{name}_MODEL"), **kw)


FAMILIES.update({f.name: f for f in [
    _cwl("INST", _cwl_kernels.inst, "adaptive user model with goal T: C(i) = ((i+2T-G(i)-1)/(i+2T-G(i)))^2",
         (Param("T", float, 1.0, _T.doc, check=_inst_goal),), cutoff="none", expected=False),
    _cwl("INSQ", _cwl_kernels.insq, "weighted precision with patience from T: C(i) = ((i+2T-1)/(i+2T))^2",
         (_T,), cutoff="none"),
    _cwl("BPM", _cwl_kernels.bpm, "Bejeweled Player Model (static): read until gain T or k documents",
         (_T,), cutoff="required", expected=False),
    _cwl("SDCG", _cwl_kernels.sdcg, "scaled DCG@k: DCG over the DCG of k documents at full gain",
         (Param("dcg", str, "log2", "DCG discount (ir_measures: only log2)", choices=("log2",)),),
         cutoff="required"),
    _cwl("NERR8", _cwl_kernels.nerr8, "C/W/L approximation of ERR: C(i) = 1 - g(i), truncated at k", (),
         cutoff="required", expected=False),
    _cwl("NERR9", _cwl_kernels.nerr9, "C/W/L approximation of ERR: C(i) = i/(i+1) (1 - g(i)), truncated at k",
         (), cutoff="required", expected=False),
    _cwl("NERR10", _cwl_kernels.nerr10, "C/W/L approximation of ERR: C(i) = p (1 - g(i))",
         (Param("p", float, 0.9, "persistence: the chance of going on, times 1 - g(i)", check=open_unit),),
         cutoff="none", expected=False),
    _cwl("NERR11", _cwl_kernels.nerr11, "C/W/L approximation of ERR: C(i) = ((i+2T-1)/(i+2T))^2 (1 - g(i))",
         (_T,), cutoff="none", expected=False),
]})

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
}

#: What an ir_measures *object* means beyond its parameters: ir_measures computes ERR with gdeval.pl,
#: whose grade scale is fixed at 4.  (A string "ERR@10" keeps searchgrade's reading: the query's largest grade.)
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


def family(name: str) -> Family | None:
    """The family called ``name`` or one of its aliases (case-insensitive), or None."""
    key = name.lower()
    canonical = _BY_LOWER.get(key) or ALIASES.get(key)
    return FAMILIES[canonical] if canonical else None


def trec_root(root: str) -> tuple[Family, TrecName] | None:
    """(family, name spec) of a trec_eval measure root such as ``P``, ``ndcg_cut``, ``rbp``; None if unknown."""
    return _BY_ROOT.get(root)
