"""The row type of a measure family, :class:`Family`, and the names other tools give it (private).

A :class:`Family` row holds its typed parameters (:class:`~searchgrade.measures.params.Param`),
cut-off rule, aggregation over queries, whether ``ties="expected"`` has a closed form, whether it
is graded, its kernel, its C/W/L user model, its formula and source, the trec_eval names it
prints under (:class:`TrecName`, which pytrec_eval reports too), ir_measures' spellings
(:class:`IrParam`, its aliases), ranx's names (:class:`RanxName`) and where the tools compute it
differently (:class:`Differs`).  This module holds the types and what a row answers about
itself; each row is written beside its kernel in :mod:`searchgrade.measures.kinds`, and
:mod:`searchgrade.measures.registry` gathers them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .params import Param, fmt_value

__all__ = ["ANY", "COMMON", "TREC_CUTS", "Differs", "Family", "IrParam", "RanxName", "TrecName"]

#: Accepted by every family: condensed lists for this measure only (default: the evaluation's judged_only).
COMMON = (Param("judged_only", bool, None, "drop unjudged documents before ranking (default: the "
                "evaluation's judged_only)"),)
ANY = object()  # an ir_measures redirect that applies whatever the parameter's value
#: trec_eval's default cut-offs of P, recall, ndcg_cut, map_cut and relative_P (meas_init.c's long_cutoff_array).
TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


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
    place: int | None = None  # its position in trec_eval 10.0's print order (measures.c, runid 0); None: a
    #                           name trec_eval does not print, which the trec_eval command's -m does not read
    sets: tuple = ()  # trec_eval's named sets listing it besides all_trec ("official", "set")

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
class RanxName:
    """A ranx metric name (``ranx.metrics.metric_switch``, ranx 0.3.21) that this family computes.

    ``k``: with a cut-off ("@k": ``precision@10`` is P@10), without one ("whole": ranx's k = 0, the whole
    run, ``precision`` is SetP), or both; ``params``: what the name implies (``ndcg_burges``: gain=exp).
    """

    name: str
    k: str = "both"  # "both", "@k" or "whole"
    params: str = ""  # e.g. "gain=exp", written as in a measure name

    def spelling(self, family: str) -> str:
        """The searchgrade spelling ranx's name stands for, e.g. ``nDCG(gain=exp)``."""
        return f"{family}({self.params})" if self.params else family


@dataclass(frozen=True)
class Differs:
    """Where trec_eval, ir_measures / pytrec_eval and ranx compute a family differently: the choice and each answer.

    Each answer is one short cell of the "How the tools differ" table of :mod:`searchgrade.metrics`;
    searchgrade's own choice is the family's formula.
    """

    choice: str  # what the tools choose differently, e.g. "nDCG gain"
    trec_eval: str = "(none)"  # trec_eval 10.0 (read from its m_*.c files)
    ir_measures: str = "(none)"  # ir_measures 0.4 and pytrec_eval (trec_eval 9.0.8's C code)
    ranx: str = "(none)"  # ranx (read from its ranx/metrics/*.py)


@dataclass(frozen=True)
class Family:
    """A measure family: parameters, cut-off rule, aggregation, kernel, formula, and its names in other tools."""

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
    curve: object | None = None  # its C/W/L user model (measures/kinds/cwl.py): searchgrade.cwl draws its curves
    formula: str = ""  # its definition, in the notation of searchgrade.metrics' formula table
    cite: str = ""  # where the measure is defined (authors and year), "" for trec_eval's own
    ranx: str = ""  # what ranx calls it (ranx.metrics.metric_switch's names), "" if ranx has none
    differs: Differs | None = None  # where the tools compute it differently
    subtopics: bool = False  # needs subtopic qrels {qid: {subtopic: {docid: grade}}} (diversity measures)
    aliases: tuple = ()  # other spellings of its name (matched case-insensitively): ir_measures' MAP, MRR, ...
    ranx_names: tuple = ()  # RanxName: the ranx metric names read as this family (its ranx column says them)
    ir_fixed: tuple = ()  # (param, value): what an ir_measures *object* of the family means beyond its
    #                       parameters (ERR: gdeval's grade scale 4); a name in text keeps searchgrade's reading
    ir_rename: tuple = ()  # (ir_measures param, searchgrade param) for ir_measures objects (SetF: beta is beta2)

    @property
    def cut_suffix(self) -> str:
        """How a name writes the family's cut-off: "" (none), "[@k]" (optional), "@k" (required), "@r" (level)."""
        return {"none": "", "optional": "[@k]", "required": "@k", "recall": "@r"}[self.cutoff]

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

