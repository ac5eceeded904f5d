"""A trec_eval-compatible command line: ``python -m searchgrade.trec_eval [options] QRELS RUN``.

Prints what trec_eval 10.0 prints, byte for byte, in its format (``%-22s\\t%s\\t%6.4f``;
counts as integers; ``runid`` and ``num_q`` in the summary only; ``relstring``
per query only; summary means summed in trec_eval's query order, then divided),
for the measures of its ``official``, ``set`` and ``all_trec`` sets.  Options::

    -q            also print every query's values
    -c            average over all qrels queries (missing ones scored on an empty ranking)
    -n            no summary ("all") lines
    -M N          evaluate only the first N documents of each query (after sorting)
    -l L          relevance level for binary measures
    -J            judged documents only (condensed lists)
    -m MEASURE    a measure, with trec_eval's parameter forms (P.5,10  ndcg_cut.10,23.4
                  iprec_at_recall.0.25,0.5  relstring.20  set_F.0.5  utility.2,-1,0,0
                  11pt_avg.0.25,0.5,0.75  rbp.p=0.95  rbp_resid.p=0.5), or a set name
                  (official, set, all_trec); may be repeated
    QRELS, RUN    files, read by searchgrade.io (``-`` for standard input, ``#`` comment
                  lines, fields after the run id ignored: see its docstring); what the
                  readers skip or ignore is reported on standard error

Parameters are read as trec_eval reads them: long cut-offs truncated (``23.4`` is 23),
sorted, each printed as ``root_k``; float cut-offs printed ``root_%3.2f``; other
parameters printed verbatim after ``root_`` (``set_F_0.5``, ``rbp_p=0.95``).  Where
trec_eval would silently misread or ignore a parameter (``P.5x``, ``P.1e3``,
``map.5``, an unknown ``name=``, extra values, the same measure given twice with
different parameters), searchgrade stops with a usage error naming it instead.

Where trec_eval 10.0 itself fails, searchgrade does the sensible thing:

* a qrels query with no results and no ``-c``: 10.0 exits 4 with the wrong message
  "result qid not found in qrels"; searchgrade skips the query, as trec_eval 9.x did.
* ``-J`` leaving a query with no documents: 10.0 prints ``-nan`` (0/0) for
  ``iprec_at_recall`` levels below one relevant document and ``11pt_avg``, and ``-nan``
  in their summary lines; searchgrade prints 0 and averages the 0.
* a qrels query whose judgments are all negative (pooled, unjudged): 10.0 exits 4
  ("Can't calculate measure"); searchgrade scores it with R = 0.
* ``-c``: 10.0 scores a missing query on a phantom one-document ranking and zeroes
  only the values named exactly ``num_ret``, ``utility``, ``relstring``, ``unj*`` and
  ``rbp_resid``; so ``utility.a,b,c,d`` counts the phantom as a retrieved
  non-relevant document (b), ``rbp_resid.p=x`` prints 1 and ``relstring.N`` prints
  ``'-'``.  searchgrade scores the empty ranking: c * R, 0 and ``''``.
* ``#`` lines in the qrels: 10.0 crashes on a ``#`` line at the end and reads a second
  consecutive one as a judgment of query ``#``; a blank qrels line stops it
  ("Malformed line").  searchgrade.io skips both.
* ``rbp``: m_rbp.c reads its ``min`` and ``max`` before setting them (undefined
  behaviour: the values change with the other measures requested, on binary qrels
  too).  Built with zeroed locals it computes gain = grade / (largest grade in the
  query's qrels), Moffat & Zobel's graded RBP and searchgrade's definition.

Still different from trec_eval 10.0, each with a test in
``tests/test_trec_eval_differential.py`` that fails until it is fixed:

* ``runid``: searchgrade.io gives the run id of the run's first line, trec_eval prints
  its last line's.
* the 4th decimal, where a value lies on a rounding boundary: ``set_map`` is computed
  as (n/ret)(n/R), trec_eval's as n^2/(ret R); ``rbp`` and ``rbp_resid`` take p^i
  from a power function, trec_eval multiplies by p rank after rank (seen in
  summaries); ``iprec_at_recall`` and ``11pt_avg`` lose the last bits of a precision
  in the kernel's segmented maximum.
* ``set_F.x``: trec_eval's x is beta^2, searchgrade's SetF takes beta, so the command
  line passes beta = sqrt(x): exact for 1 (the default) and for squares of short
  binary fractions (0.25, 4, 2.25), last-bit different otherwise.
* gains per grade (``ndcg.1=3,2=9,4=4.5``, also for ``ndcg_rel``, ``Rndcg``, ``G``,
  ``rbp``) are parsed and refused with a usage error until metrics has them.

Deliberate differences:

* ``rbp_resid`` reproduces trec_eval, including its quirk of printing 0 when
  the run retrieves no unjudged document (the residual p^n of a short run is
  then dropped); the Python measure ``RBP_resid`` keeps that term.
* searchgrade refuses what trec_eval reads without complaint but cannot mean:
  non-finite scores, ``utility`` with a non-zero fourth coefficient (it needs
  ``-N``), ``11pt_avg`` levels out of order (trec_eval's loop then skips levels),
  recall levels outside [0, 1], ``p`` outside (0, 1), ``-l 0`` and ``-M 0``.
* Not supported: preferences (``-R prefs``), judgment groups, z-scores (``-Z``),
  ``-N``, ``-D``, ``-T``, and the measures ``dcg``, ``ideal_dcg`` (which 10.0
  computes as ndcg), ``ndcg_p``, ``yaap`` and the ``prefs``/``avgjg`` families.
"""
from __future__ import annotations

import math
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ._measures import MIN_GEO_MEAN
from .io import read_qrels, read_run
from .metrics import Evaluator, parse_measure

__all__ = ["main", "run_trec_eval", "TREC_MEASURES", "UsageError"]


@dataclass(frozen=True)
class _Spec:
    """One trec_eval measure: how -m reads its parameters, its defaults, and how it is printed."""

    kind: str  # "long": a count; "float"; "string": relstring; "runid"; "num_q"
    params: str = "none"  # "none", "long_cuts", "double_cuts", "doubles" (a,b,..), "pairs" (k=v,..)
    default: tuple = ()
    per_query: bool = True
    summary: bool = True
    agg: str = "mean"  # "mean", "sum", "gmean"


_CUT = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval 10.0's measures, in the order it prints them (measures.c), with its defaults (m_*.c).
TREC_MEASURES: dict[str, _Spec] = {
    "runid": _Spec("runid", per_query=False),
    "num_q": _Spec("num_q", per_query=False),
    "num_ret": _Spec("long", agg="sum"),
    "num_rel": _Spec("long", agg="sum"),
    "num_rel_ret": _Spec("long", agg="sum"),
    "map": _Spec("float"),
    "gm_map": _Spec("float", per_query=False, agg="gmean"),
    "Rprec": _Spec("float"),
    "bpref": _Spec("float"),
    "recip_rank": _Spec("float"),
    "iprec_at_recall": _Spec("float", "double_cuts", _RECALL),
    "P": _Spec("float", "long_cuts", _CUT),
    "relstring": _Spec("string", "doubles", (10.0,), summary=False),
    "recall": _Spec("float", "long_cuts", _CUT),
    "infAP": _Spec("float"),
    "gm_bpref": _Spec("float", per_query=False, agg="gmean"),
    "Rprec_mult": _Spec("float", "double_cuts", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    "utility": _Spec("float", "doubles", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": _Spec("float", "doubles", _RECALL),
    "binG": _Spec("float"),
    "G": _Spec("float", "pairs"),
    "ndcg": _Spec("float", "pairs"),
    "ndcg_rel": _Spec("float", "pairs"),
    "Rndcg": _Spec("float", "pairs"),
    "ndcg_cut": _Spec("float", "long_cuts", _CUT),
    "map_cut": _Spec("float", "long_cuts", _CUT),
    "relative_P": _Spec("float", "long_cuts", _CUT),
    "success": _Spec("float", "long_cuts", (1, 5, 10)),
    "set_P": _Spec("float"),
    "set_relative_P": _Spec("float"),
    "set_recall": _Spec("float"),
    "set_map": _Spec("float"),
    "set_F": _Spec("float", "doubles", (1.0,)),
    "num_nonrel_judged_ret": _Spec("long", agg="sum"),
    "rbp": _Spec("float", "pairs", (("p", 0.9),)),
    "rbp_resid": _Spec("float", "pairs", (("p", 0.9),)),
    "unj": _Spec("float", "long_cuts", (5, 10, 20)),
}

_SETS = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"],
}

# searchgrade's measure for one trec_eval value ({rel}: the -l level, {c}: the cut-off)
_CUT_NAME = {
    "P": "P(rel={rel})@{c}", "recall": "R(rel={rel})@{c}", "ndcg_cut": "nDCG@{c}",
    "map_cut": "AP(rel={rel})@{c}", "relative_P": "RelP(rel={rel})@{c}", "success": "Hit(rel={rel})@{c}",
    "unj": "Unj@{c}", "iprec_at_recall": "IPrec(rel={rel})@{c!r}", "Rprec_mult": "RprecMult(rel={rel},m={c!r})",
}
_PLAIN_NAME = {
    "num_ret": "NumRet", "num_rel": "NumRel(rel={rel})", "num_rel_ret": "NumRelRet(rel={rel})",
    "map": "AP(rel={rel})", "gm_map": "GMAP(rel={rel})", "Rprec": "Rprec(rel={rel})",
    "bpref": "Bpref(rel={rel})", "recip_rank": "RR(rel={rel})", "infAP": "infAP(rel={rel})",
    "gm_bpref": "GMBpref(rel={rel})", "binG": "binG(rel={rel})", "G": "G", "ndcg": "nDCG",
    "ndcg_rel": "nDCG_rel", "Rndcg": "RnDCG(rel={rel})", "set_P": "SetP(rel={rel})",
    "set_relative_P": "SetRelP(rel={rel})", "set_recall": "SetR(rel={rel})", "set_map": "SetAP(rel={rel})",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet(rel={rel})",
}
_GAIN_FAMILIES = {"G": "G", "ndcg": "nDCG", "ndcg_rel": "nDCG_rel", "Rndcg": "RnDCG", "rbp": "RBP"}


class UsageError(ValueError):
    """A bad command line."""


# ====================================================================== -m parameters
@dataclass(frozen=True)
class _Request:
    """One requested trec_eval measure: its parameter text as given (None: defaults) and parsed values."""

    root: str
    text: str | None = None
    values: tuple = ()


@dataclass(frozen=True)
class _Value:
    """One printed value: trec_eval's name and the searchgrade measures it is computed from."""

    name: str
    measures: tuple = ()  # one measure, or IPrec at each level for 11pt_avg (summed as trec_eval does)


_ATOL = re.compile(r"\s*[+-]?\d+(\.\d*)?")  # a number whose integer part C's atol reads (23.4 -> 23)
_ATOF = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")  # a finite decimal number, as atof reads it


def _number(root: str, text: str, item: str) -> float:
    """One parameter value read as atof reads it, or UsageError naming the measure."""
    if not _ATOF.fullmatch(item):
        raise UsageError(f"measure {root}.{text}: {item!r} is not a number")
    return float(item)


def _long_cuts(root: str, text: str) -> tuple:
    """Cut-offs ``5,10,23.4``: truncated to integers as trec_eval's atol does, sorted, positive, distinct."""
    cuts = []
    for item in text.split(","):
        if not _ATOL.fullmatch(item):
            raise UsageError(f"measure {root}.{text}: cut-off {item!r} is not a number (e.g. {root}.5,10)")
        cuts.append(int(item.split(".")[0]))
    return _sorted_distinct(root, text, cuts, positive=True)


def _double_cuts(root: str, text: str) -> tuple:
    """Float cut-offs ``0.25,0.5``: sorted and distinct."""
    return _sorted_distinct(root, text, [_number(root, text, item) for item in text.split(",")])


def _sorted_distinct(root: str, text: str, cuts: list, positive: bool = False) -> tuple:
    """Cut-offs in increasing order; UsageError on duplicates (and on non-positive ones if asked)."""
    cuts = sorted(cuts)
    if positive and cuts[0] <= 0:
        raise UsageError(f"measure {root}.{text}: cut-offs must be positive")
    if len(set(cuts)) < len(cuts):
        raise UsageError(f"measure {root}.{text}: duplicate cut-offs")
    return tuple(cuts)


def _pairs(root: str, text: str) -> tuple:
    """``name=value`` pairs such as ``p=0.95`` or ``1=3,2=9``; names must be distinct."""
    out = []
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not name or "=" in value:
            raise UsageError(f"measure {root}.{text}: {item!r} is not of the form name=value")
        out.append((name, _number(root, text, value)))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        raise UsageError(f"measure {root}.{text}: a parameter is given twice")
    return tuple(out)


def _parse_request(root: str, text: str) -> _Request:
    """``root.text`` from the command line, read in the measure's parameter style."""
    style = TREC_MEASURES[root].params
    if style == "none":
        raise UsageError(f"measure {root} takes no parameters (trec_eval 10.0 ignores {root}.{text!s})")
    if style == "long_cuts":
        return _Request(root, text, _long_cuts(root, text))
    if style == "double_cuts":
        return _Request(root, text, _double_cuts(root, text))
    if style == "doubles":
        return _Request(root, text, tuple(_number(root, text, v) for v in text.split(",")))
    return _Request(root, text, _pairs(root, text))


def _expand(requested: list[str]) -> list[_Request]:
    """Requested -m arguments -> one request per measure, in trec_eval's print order."""
    chosen: dict[str, _Request] = {}
    for arg in requested:
        if arg in _SETS:
            for root in _SETS[arg]:
                chosen.setdefault(root, _Request(root))
            continue
        root, dot, text = arg.partition(".")
        if root not in TREC_MEASURES:
            known = ", ".join(list(_SETS) + list(TREC_MEASURES))
            raise UsageError(f"unknown measure {root!r}; known: {known}")
        if not dot:
            chosen.setdefault(root, _Request(root))
            continue
        if not text:
            raise UsageError(f"measure {arg!r}: no parameters after the '.'")
        old = chosen.get(root)
        if old is not None and old.text is not None and old.text != text:
            raise UsageError(f"measure {root} is given twice with different parameters ({root}.{old.text} and "
                             f"{arg}); trec_eval 10.0 would silently use the first")
        chosen[root] = _parse_request(root, text)
    return [chosen[root] for root in TREC_MEASURES if root in chosen]


# ================================================================ printed values
def _cut_value(req: _Request, c, rel: int) -> _Value:
    """``P_10``, ``iprec_at_recall_0.10`` (``%3.2f``, cut to trec_eval's buffer length)."""
    if TREC_MEASURES[req.root].params == "long_cuts":
        name = f"{req.root}_{c}"
    else:
        name = f"{req.root}_{c:.2f}"[: len(req.root) + 9]
        if req.root == "iprec_at_recall" and not 0 <= c <= 1:
            raise UsageError(f"measure {req.root}.{req.text}: recall levels must lie in [0, 1]")
        if req.root == "Rprec_mult" and c <= 0:
            raise UsageError(f"measure {req.root}.{req.text}: multiples of R must be positive")
    return _Value(name, (_CUT_NAME[req.root].format(rel=rel, c=c),))


def _values(req: _Request, rel: int) -> list[_Value]:
    """The values one request prints, each with the searchgrade measures behind it."""
    spec = TREC_MEASURES[req.root]
    name = req.root if req.text is None else f"{req.root}_{req.text}"
    vals = req.values if req.text is not None else spec.default
    if spec.params in ("long_cuts", "double_cuts"):
        return [_cut_value(req, c, rel) for c in vals]
    if spec.kind in ("runid", "num_q", "string"):
        if spec.kind == "string" and len(vals) != 1:
            raise UsageError(f"measure relstring.{req.text}: one length expected")
        return [_Value(name)]
    if spec.params == "doubles":
        return [_Value(name, _double_measures(req, vals, rel))]
    if spec.params == "pairs":
        return [_Value(name, (_pair_measure(req, dict(vals), rel),))]
    return [_Value(name, (_PLAIN_NAME[req.root].format(rel=rel),))]


def _double_measures(req: _Request, vals: tuple, rel: int) -> tuple:
    """searchgrade measures behind ``set_F.x``, ``utility.a,b,c,d`` and ``11pt_avg.levels``."""
    where = f"measure {req.root}.{req.text}"
    if req.root == "set_F":
        if len(vals) != 1 or not vals[0] > 0:
            raise UsageError(f"{where}: one positive value expected (trec_eval's x = beta^2)")
        return (f"SetF(rel={rel},beta={math.sqrt(vals[0])!r})",)
    if req.root == "utility":
        if len(vals) != 4:
            raise UsageError(f"{where}: four coefficients expected (a,b,c,d)")
        if vals[3] != 0:
            raise UsageError(f"{where}: a non-zero fourth coefficient needs the collection size (-N), "
                             "which searchgrade does not support")
        given = [f"{k}={v!r}" for k, v, default in zip("abc", vals, (1.0, -1.0, 0.0)) if v != default]
        return (f"Utility({','.join([f'rel={rel}'] + given)})",)
    if any(b < a for a, b in zip(vals, vals[1:])) or not all(0 <= v <= 1 for v in vals):
        raise UsageError(f"{where}: recall levels must lie in [0, 1], in increasing order")
    return tuple(f"IPrec(rel={rel})@{v!r}" for v in vals)


def _pair_measure(req: _Request, pairs: dict, rel: int) -> str:
    """The searchgrade measure behind ``rbp.p=x``, ``rbp_resid.p=x``, ``ndcg`` (no gains per grade yet)."""
    where = f"measure {req.root}.{req.text}"
    gains = [k for k in pairs if re.fullmatch(r"[+-]?\d+", k)]
    takes_p, takes_gains = req.root in ("rbp", "rbp_resid"), req.root != "rbp_resid"
    unknown = [k for k in pairs if not ((k == "p" and takes_p) or (k in gains and takes_gains))]
    if unknown:
        what = {"rbp": "p= and grade=gain pairs", "rbp_resid": "p="}.get(req.root, "grade=gain pairs")
        raise UsageError(f"{where}: unknown parameter {unknown[0]!r} (allowed: {what})")
    if gains:
        raise UsageError(f"{where}: gains per grade are not supported yet (searchgrade's "
                         f"{_GAIN_FAMILIES[req.root]} uses gain = grade)")
    if req.root not in ("rbp", "rbp_resid"):
        return _PLAIN_NAME[req.root].format(rel=rel)
    p = pairs.get("p", 0.9)
    if not 0 < p < 1:
        raise UsageError(f"{where}: p must lie strictly between 0 and 1")
    family = "RBP" if req.root == "rbp" else "RBP_resid"
    return f"{family}(p={p!r})"


def _plan(requested: list[str], rel: int) -> list[tuple[_Request, list[_Value]]]:
    """Each request with its printed values; every searchgrade measure name is checked."""
    plan = [(req, _values(req, rel)) for req in _expand(requested)]
    for req, values in plan:
        for value in values:
            for m in value.measures:
                try:
                    parse_measure(m)
                except ValueError as err:
                    raise UsageError(f"measure {req.root}{'' if req.text is None else '.' + req.text}: {err}") from None
    return plan


# ===================================================================== computing
def _relstrings(ctx, n: int) -> list[str]:
    """trec_eval's relstring of every row: a digit per grade, '>' above 9, '-' not in the pool, '.' unjudged."""
    char = np.where(ctx.grade > 9, ord(">"), ord("0") + np.minimum(ctx.grade, 9))
    char = np.where(ctx.judged, char, np.where(ctx.nonpool, ord("-"), ord(".")))
    text = char[ctx.rank <= n].astype(np.uint8).tobytes().decode("ascii")
    ends = np.cumsum(np.minimum(ctx.nret, n)).tolist()
    return [text[a:b] for a, b in zip([0] + ends[:-1], ends)]


def _per_query(plan, names: list[str], df, ctx) -> dict[str, np.ndarray]:
    """Per-query values of every printed number, keyed by printed name (df: one column per name, in order)."""
    cols = {m: df.iloc[:, i].to_numpy() for i, m in enumerate(names)}
    unjudged = np.bincount(ctx.seg[~ctx.judged], minlength=ctx.n) > 0
    out = {}
    for req, values in plan:
        for value in values:
            if not value.measures:
                continue
            if len(value.measures) == 1:
                x = cols[value.measures[0]]
            else:  # 11pt_avg: trec_eval adds the levels from the last to the first, then divides
                x = np.zeros(ctx.n)
                for m in reversed(value.measures):
                    x = x + cols[m]
                x = x / len(value.measures)
            if req.root == "rbp_resid":  # trec_eval prints 0 unless an unjudged document was retrieved
                x = np.where(unjudged, x, 0.0)
            out[value.name] = x.astype(np.int64 if TREC_MEASURES[req.root].kind == "long" else np.float64)
    return out


def _summary_value(spec: _Spec, x: np.ndarray) -> str:
    """The "all" value of one measure: trec_eval's sum in query order, then its mean or geometric mean."""
    n = len(x)
    if spec.agg == "sum":
        return str(int(x.sum()))
    if spec.agg == "gmean":
        total = 0.0
        for v in x.tolist():
            total += math.log(max(v, MIN_GEO_MEAN))
        return f"{math.exp(total / n):6.4f}"
    total = float(np.cumsum(np.concatenate(([0.0], x.astype(np.float64))))[-1])
    return f"{total / n:6.4f}"


def _texts(spec: _Spec, x: np.ndarray) -> list[str]:
    """Per-query texts of one value: counts as integers, the rest ``%6.4f``; each distinct value formatted once."""
    fmt = "{}" if spec.kind == "long" else "{:6.4f}"
    if spec.kind != "long":
        x = x.view(np.int64)  # distinct bit patterns: -0.0 and 0.0 print differently
    distinct, which = np.unique(x, return_inverse=True)
    if len(distinct) > len(x) // 2:
        return [fmt.format(v) for v in (x if spec.kind == "long" else x.view(np.float64)).tolist()]
    shown = distinct if spec.kind == "long" else distinct.view(np.float64)
    return np.array([fmt.format(v) for v in shown.tolist()], dtype=object)[which].tolist()


def _query_lines(plan, rows, per_query, relstrings, block: int = 4096) -> Iterator[str]:
    """Per-query lines (-q), a block of queries at a time: one str.format call per query."""
    printed = [(TREC_MEASURES[req.root], value) for req, values in plan for value in values
               if TREC_MEASURES[req.root].per_query]
    if not printed:
        return
    template = "".join(f"{value.name:<22s}".replace("{", "{{").replace("}", "}}") + f"\t{{0}}\t{{{i}}}\n"
                       for i, (_, value) in enumerate(printed, 1))
    for lo in range(0, len(rows), block):
        hi = min(lo + block, len(rows))
        cols = [[f"'{s}'" for s in relstrings[lo:hi]] if spec.kind == "string"
                else _texts(spec, per_query[value.name][lo:hi]) for spec, value in printed]
        yield "".join(map(template.format, rows[lo:hi], *cols))


def _summary_lines(plan, per_query, nq: int, runid: str) -> Iterator[str]:
    """The "all" lines."""
    for req, values in plan:
        spec = TREC_MEASURES[req.root]
        if not spec.summary:
            continue
        for value in values:
            if spec.kind == "runid":
                text = runid
            elif spec.kind == "num_q":
                text = str(nq)
            else:
                text = _summary_value(spec, per_query[value.name])
            yield f"{value.name:<22s}\tall\t{text}\n"


def _read(qrels_path, run_path):
    """The qrels and the run with its runid; ``-`` (standard input) may stand for one of them."""
    if str(qrels_path) == "-" and str(run_path) == "-":
        raise UsageError("only one of QRELS and RUN can be read from standard input ('-')")
    qrels = read_qrels(qrels_path)
    run, runid = read_run(run_path, with_name=True)
    return qrels, run, runid


def _output(qrels_path, run_path, measures, query, complete, max_docs, rel_level, judged_only,
            summary) -> Iterator[str]:
    """trec_eval's output, in chunks."""
    plan = _plan(list(measures), rel_level)
    qrels, run, runid = _read(qrels_path, run_path)
    names = list(dict.fromkeys(m for _, values in plan for v in values for m in v.measures))
    ev = Evaluator(qrels, names or ["NumRet"], ties="trec", missing="zero" if complete else "ignore",
                   rel_level=rel_level, judged_only=judged_only, max_docs=max_docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trec_eval skips run queries without qrels silently
        rows = sorted(ev._rows(run))  # trec_eval's query order: strcmp
    if not rows:
        raise ValueError(f"no query has both results ({run_path}) and relevance judgments ({qrels_path})")
    rows, ctx = ev.rank(run, rows)
    per_query = _per_query(plan, names, ev.evaluate_ranked(rows, ctx), ctx)
    if query:
        strings = None
        for req, _ in plan:
            if req.root == "relstring":
                n = (req.values if req.text is not None else TREC_MEASURES["relstring"].default)[0]
                strings = _relstrings(ctx, max(0, int(n)))
        yield from _query_lines(plan, [str(q) for q in rows], per_query, strings)
    if summary:
        yield from _summary_lines(plan, per_query, len(rows), runid)


def run_trec_eval(qrels_path, run_path, measures=("official",), query=False, complete=False,
                  max_docs=None, rel_level=1, judged_only=False, summary=True) -> str:
    """trec_eval's output for a qrels file and a run file, as one string."""
    return "".join(_output(qrels_path, run_path, measures, query, complete, max_docs, rel_level,
                           judged_only, summary))


# ==================================================================== command line
def _parse_args(argv: list[str]) -> dict:
    """getopt-style parsing: ``-q -c -n -J``, ``-M N`` / ``-MN``, ``-l L`` / ``-lL``, ``-m X`` / ``-mX``."""
    opts = {"measures": [], "query": False, "complete": False, "max_docs": None, "rel_level": 1,
            "judged_only": False, "summary": True}
    args = list(argv)
    files = []
    while args:
        a = args.pop(0)
        if a == "--":
            files.extend(args)
            break
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        flag, rest = a[1:2], a[2:]
        if flag in "qcnJ":
            for ch in a[1:]:
                if ch not in "qcnJ":
                    raise UsageError(f"unknown option -{ch}")
                opts[{"q": "query", "c": "complete", "n": "summary", "J": "judged_only"}[ch]] = ch != "n"
            continue
        if flag in "mMl":
            if not rest:
                if not args:
                    raise UsageError(f"option -{flag} needs a value")
                rest = args.pop(0)
            if flag == "m":
                opts["measures"].append(rest)
            else:
                try:
                    val = int(rest)
                except ValueError:
                    raise UsageError(f"option -{flag} needs an integer, not {rest!r}") from None
                if val < 1:
                    raise UsageError(f"option -{flag} must be at least 1, not {val}")
                opts["max_docs" if flag == "M" else "rel_level"] = val
            continue
        raise UsageError(f"unknown option {a}")
    if len(files) != 2:
        raise UsageError("expected two files: QRELS RUN")
    opts["qrels_path"], opts["run_path"] = files
    if not opts["measures"]:
        opts["measures"] = ["official"]
    return opts


USAGE = ("usage: python -m searchgrade.trec_eval [-q] [-c] [-n] [-J] [-M N] [-l L] [-m MEASURE[.params]]... "
         "QRELS RUN")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__)
        return 0
    with warnings.catch_warnings():  # what the readers report (skipped lines, ignored fields) goes to stderr
        warnings.showwarning = _warning_to_stderr
        return _run(argv)


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    """Print a warning as ``trec_eval: warning: ...`` on standard error."""
    print(f"trec_eval: warning: {message}", file=sys.stderr)


def _run(argv: list[str]) -> int:
    """Parse argv, print trec_eval's output; the exit status."""
    try:
        o = _parse_args(argv)
        chunks = _output(o["qrels_path"], o["run_path"], o["measures"], o["query"], o["complete"],
                         o["max_docs"], o["rel_level"], o["judged_only"], o["summary"])
        first = next(chunks, "")  # errors in the input surface before anything is printed
        sys.stdout.write(first)
        for chunk in chunks:
            sys.stdout.write(chunk)
    except UsageError as err:
        print(f"trec_eval: {err}\n{USAGE}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"trec_eval: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
