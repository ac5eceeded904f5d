"""trec_eval's names: its printed names (``P_10``), its ``-m`` arguments (``P.5,10``), which pytrec_eval takes as keys.

* :func:`from_trec` reads a printed name, case-sensitive: ``P_10``, ``map``, ``ndcg_cut_10``,
  ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``set_F_0.5``, ``utility_1,-2,0,0``,
  ``11pt_avg_0.2,0.5,0.8``, ``rbp_p=0.8``, ``ndcg_1=4,2=8``, ``rbp`` (trec_eval's p = 0.9);
* :func:`trec_expand` reads a ``-m`` argument (``P.5,10``, ``ndcg_cut.23.4``) as trec_eval 10.0 reads
  it, into every value it prints; :func:`from_trec_key` reads one that prints one value
  (``P.10``, ``ndcg_cut.10``: pytrec_eval's measure keys, which it reports as ``P_10``);
* :func:`trec_values` is what the trec_eval command asks before it scores a run: for each ``-m``
  root, the :class:`TrecValue` lines it prints (name, measure, format, where), runid and relstring
  included, each distinct measure numbered once.

How trec_eval prints a value's name (``meas_init.c``): long cut-offs as ``root_k`` (``P_10``), float
cut-offs as ``root_%3.2f`` (``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, cut to the root's length +
9 characters, trec_eval's buffer), parameters as ``root_`` + the parameter text (``set_F_0.5``,
``utility_1,-2,0,0``, ``11pt_avg_0.2,0.5,0.8``, ``rbp_p=0.8``, ``ndcg_1=4,2=8``), and the root alone
when the defaults are used (``set_F``, ``rbp``).  The relevance level (``-l``), judged-only (``-J``)
and the collection size (``-N``) are options of the whole trec_eval run, not part of a name.  Which
roots exist, their styles and defaults are the rows' :class:`~searchgrade.measures.family.TrecName`;
trec_eval's print order and sets are :data:`searchgrade.measures.registry.TREC_ORDER` and ``TREC_SETS``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Sequence

from .. import registry
from ..family import Family, TrecName
from ..params import short
from ..registry import FAMILIES, trec_root
from .measure import LONG_MAX, Measure, build, long_value

__all__ = ["from_trec", "from_trec_key", "trec_expand", "trec_float", "TrecValue", "trec_values", "RELSTRING_LENGTH"]


# --------------------------------------------------------------- printed names
def _suffix_pattern(spec: TrecName) -> str:
    """The regex of what follows ``root_`` in trec_eval's printed name for this spec."""
    return {"cut": r"(\d+)", "level": r"(\d*\.?\d+)", "doubles": r"([-+0-9.eE]+(?:,[-+0-9.eE]+)*)",
            "list": r"([-+0-9.eE]+(?:,[-+0-9.eE]+)*)",
            "pairs": r"([^=,]+=[^=,]+(?:,[^=,]+=[^=,]+)*)"}[spec.style]


_TABLES: dict = {}  # registry version -> (exact roots, suffix patterns): rebuilt when a family is (un)registered


def _trec_tables() -> tuple[dict, list]:
    """trec_eval printed names, built from the registry as it is now: (exact names, (pattern, family, spec))."""
    now = registry.version()
    if now not in _TABLES:
        exact = {spec.root: (fam, spec) for fam in FAMILIES.values() for spec in fam.trec
                 if spec.style in ("plain", "doubles", "list", "pairs")}
        suffix = sorted(((re.compile(re.escape(spec.root) + "_" + _suffix_pattern(spec)), fam, spec)
                         for fam in FAMILIES.values() for spec in fam.trec if spec.style != "plain"),
                        key=lambda t: -len(t[2].root))  # rbp_resid_p=0.8 is rbp_resid's, not rbp's
        _TABLES.clear()
        _TABLES[now] = (exact, suffix)
    return _TABLES[now]


# How trec_eval's C library reads a parameter: atol reads the integer part of a cut-off (23.4 is 23),
# atof a decimal number.  What either would misread (5x, 1e3 as a cut-off, an empty item) is refused.
_ATOL = re.compile(r"\s*[+-]?\d+(\.\d*)?")
_ATOF = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_GRADE = re.compile(r"[+-]?\d+")  # trec_eval's valid_int: a pair whose name is an integer sets a gain
_INF_NAN = re.compile(r"\s*[+-]?(inf|infinity|nan)", re.IGNORECASE)  # what atof reads as not finite
_KEY = re.compile(r"([A-Za-z0-9_]+)\.(.*)")  # a -m argument (pytrec_eval's key): root.parameters
#: relstring's default length (m_relstring.c); runid and relstring are printed, but are no measures.
RELSTRING_LENGTH = 10.0


def from_trec(spelling: str, text: str) -> Measure | None:
    """A trec_eval printed name (case-sensitive), or None if ``text`` is not one."""
    exact, suffix = _trec_tables()
    if text in exact:
        fam, spec = exact[text]
        return build(spelling, fam, [], None, implied=spec.implied)
    for pattern, fam, spec in suffix:
        mt = pattern.fullmatch(text)
        if mt:
            return _trec_measure(spelling, fam, spec, mt.group(1))
    return None


def _trec_measure(spelling: str, fam: Family, spec: TrecName, value: str) -> Measure:
    """The measure of ``root_value`` for one trec_eval name spec."""
    if spec.cut:
        if spec.target == "cutoff":
            return build(spelling, fam, [], value, implied=spec.implied)
        return build(spelling, fam, [(spec.target, value)], None, implied=spec.implied)
    items, implied = _trec_items(spelling, fam, spec, value)
    return build(spelling, fam, items, None, implied=implied)


def trec_float(where: str, text: str) -> float:
    """A number as trec_eval's atof reads it, or ValueError."""
    if not _ATOF.fullmatch(text):
        if _INF_NAN.fullmatch(text):
            raise ValueError(f"measure {short(where)}: {text.strip()!r} is not a finite number")
        raise ValueError(f"measure {short(where)}: {short(text)!r} is not a number")
    value = float(text)
    if not math.isfinite(value):  # 1e400: atof's HUGE_VAL
        raise ValueError(f"measure {short(where)}: {short(text)!r} is beyond the largest double")
    return value


def _trec_items(where: str, fam: Family, spec: TrecName, text: str) -> tuple[list, tuple]:
    """(parameter items, implied parameters) of the parameter text of a doubles, list or pairs root."""
    if spec.style == "doubles":
        values = text.split(",")
        if len(values) != len(spec.params):
            raise ValueError(f"measure {where}: trec_eval's {spec.root} takes {len(spec.params)} value(s) "
                             f"({','.join(spec.params)}), not {len(values)}")
        return [(p, trec_float(where, v)) for p, v in zip(spec.params, values)], spec.implied
    if spec.style == "list":
        return [(spec.params[0], tuple(trec_float(where, v) for v in text.split(",")))], spec.implied
    items, gains = [], {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        if not eq or not name or "=" in value:
            raise ValueError(f"measure {where}: {part!r} is not of the form name=value")
        if "gains" in spec.params and _GRADE.fullmatch(name):
            grade = long_value(name)
            if abs(grade) > LONG_MAX:
                raise ValueError(f"measure {short(where)}: grade {short(name)} does not fit trec_eval's long")
            if grade in gains:
                raise ValueError(f"measure {where}: the gain of grade {grade} is given twice")
            gains[grade] = trec_float(where, value)
        elif name in spec.params and name != "gains":
            if name in dict(items):
                raise ValueError(f"measure {where}: parameter {name!r} is given twice")
            items.append((name, trec_float(where, value)))
        else:
            allowed = " and ".join(["grade=gain pairs" if p == "gains" else f"{p}=" for p in spec.params])
            raise ValueError(f"measure {where}: unknown parameter {name!r} (trec_eval's {spec.root} takes "
                             f"{allowed or 'no parameters'})")
    implied = spec.implied
    if gains:
        items.append(("gains", gains))
        implied = tuple(implied) + tuple(spec.implied_with_gains)
    return items, implied


def _trec_cuts(where: str, spec: TrecName, text: str) -> list:
    """Cut-offs (long: truncated as atol does, positive) or levels (atof), sorted and distinct."""
    values = []
    for item in text.split(","):
        if spec.style == "cut":
            if not _ATOL.fullmatch(item):
                read = re.match(r"\s*[+-]?\d+", item)
                what = (f"is not a whole number (trec_eval's atol would read it as {read.group().strip()})" if read
                        else "is not a number")
                raise ValueError(f"measure {short(where)}: cut-off {short(item)!r} {what}; e.g. {spec.root}.5,10")
            values.append(min(long_value(item.split(".")[0].strip()), LONG_MAX))  # atol saturates at LONG_MAX
        else:
            values.append(trec_float(where, item))
    values.sort()
    if spec.style == "cut" and values[0] <= 0:
        raise ValueError(f"measure {where}: cut-offs must be positive")
    if len(set(values)) < len(values):
        raise ValueError(f"measure {where}: duplicate cut-offs")
    return values


def trec_expand(root: str, text: str | None = None, rel: int | None = None,
                n_docs: int | None = None) -> list[tuple[str, Measure]]:
    """(trec_eval's printed name, Measure) for each value trec_eval prints for ``-m root[.text]``.

    The parameter text is read as trec_eval 10.0 reads it (``meas_init.c``): long
    cut-offs truncated (``ndcg_cut.23.4`` is ndcg_cut_23), sorted, each printed as
    ``root_k``; levels (``iprec_at_recall.0.125``) sorted and printed ``root_%3.2f``;
    other parameters printed verbatim after ``root_``.  ``trec_expand("P")`` gives
    P_5 ... P_1000 (trec_eval's default cut-offs), ``trec_expand("rbp", "p=0.95")``
    rbp_p=0.95, ``trec_expand("ndcg", "1=3,2=9")`` ndcg_1=3,2=9.  With ``rel`` every
    measure that has a relevance level gets ``rel=`` (trec_eval -l), and with ``n_docs``
    every measure that takes the collection size gets ``n_docs=`` (-N).  Where trec_eval
    would misread or ignore the text (``P.5x``, ``map.5``, an unknown ``name=``), a
    ValueError names it.  The measures are named canonically (the printed names of
    two levels can be equal: iprec_at_recall_0.12 for 0.12 and 0.125).
    """
    return [(printed, replace(m, name=m.canonical, spelling=printed))
            for printed, m in _expanded(root, text, rel, n_docs)]


def _expanded(root: str, text: str | None, rel: int | None, n_docs: int | None,
              where: str | None = None) -> list[tuple[str, Measure]]:
    """:func:`trec_expand`'s values, each measure named as ``where`` (default: the ``-m`` argument) spells it."""
    found = trec_root(root)
    if found is None:
        raise ValueError(f"unknown trec_eval measure {root!r}")
    fam, spec = found
    where = where or (root if text is None else f"{root}.{text}")
    if text == "":
        raise ValueError(f"measure {root}.: no parameters after the '.'")
    if spec.cut:
        values = list(spec.defaults) if text is None else _trec_cuts(where, spec, text)
        built = [(spec.printed(v), build(where, fam, [] if spec.target == "cutoff" else [(spec.target, v)],
                                         v if spec.target == "cutoff" else None, implied=spec.implied))
                 for v in values]
    elif spec.style == "plain":
        if text is not None:
            raise ValueError(f"measure {where}: trec_eval measure {root} takes no parameters "
                             f"(trec_eval 10.0 ignores {root}.{text})")
        built = [(root, build(where, fam, [], None, implied=spec.implied))]
    else:
        items, implied = ([], spec.implied) if text is None else _trec_items(where, fam, spec, text)
        if n_docs is not None and fam.param("n_docs") is not None:  # trec_eval -N
            items.append(("n_docs", n_docs))
        built = [(spec.printed(text), build(where, fam, items, None, implied=implied))]
    if rel is not None and fam.param("rel") is not None and not fam.graded:  # trec_eval -l
        built = [(printed, replace(m, params={**m.params, "rel": int(rel)})) for printed, m in built]
    return built


# ------------------------------------------------------------ pytrec_eval's keys
def from_trec_key(spelling: str, text: str) -> Measure | None:
    """A ``-m`` argument that prints one value, ``root.parameters`` (``P.10``, ``ndcg_cut.10``, ``rbp.p=0.8``):
    pytrec_eval takes these as measure keys (and reports ``P_10``).  None when ``text`` is not of that form
    or its root is no trec_eval measure; a ValueError naming the values when it prints several (``P.5,10``)."""
    mt = _KEY.fullmatch(text)
    if not mt or trec_root(mt.group(1)) is None:
        return None
    values = _expanded(mt.group(1), mt.group(2), None, None, where=text)
    if len(values) > 1:
        raise ValueError(f"measure {spelling!r} names {len(values)} values ({', '.join(p for p, _ in values)}); "
                         f"give them one by one, e.g. {values[0][0]!r}")
    return values[0][1]


# ------------------------------------------------------------ the trec_eval command's -m
@dataclass(frozen=True, eq=False)
class TrecValue:
    """One value a ``-m`` argument prints: trec_eval's name, the measure behind it, and where and how it is printed.

    Compared and hashed by identity: each value of a request is its own key, even where two print one name.
    """

    name: str  # trec_eval's printed name, e.g. ndcg_cut_10
    measure: Measure | None = None  # named canonically (rel= filled in for -l); None: runid, relstring
    kind: str = "float"  # "float" (%6.4f), "long" (%ld), "runid", "relstring"
    per_query: bool = True  # printed for each query (-q)
    summary: bool = True  # printed in the summary ("all")
    agg: str = "mean"  # "mean", "sum" or "gmean" over queries
    length: int = 0  # relstring: how many ranks (its parameter as atol reads it)
    column: int = -1  # the measure's place among the distinct measures of the request


def trec_values(requests: Sequence[tuple[str, str | None]], rel: int | None = None,
                n_docs: int | None = None) -> list[list[TrecValue]]:
    """The values of each ``(root, parameter text or None)`` request; ``column`` numbers the distinct measures in
    first-use order.

    ``rel`` is trec_eval's -l and ``n_docs`` its -N.  ``runid`` and ``relstring`` (printed, but no measure)
    get one value without a measure, relstring's with its length.  A ValueError names the ``-m`` argument it
    is about.
    """
    distinct: dict = {}
    out = []
    for root, text in requests:
        where = root if text is None else f"{root}.{text}"
        if trec_root(root) is None:  # runid, relstring: printed, but no measure
            out.append([_printed_only(root, text)])
            continue
        try:
            expanded = trec_expand(root, text, rel, n_docs)
        except ValueError as err:
            message = str(err)
            raise ValueError(message if where in message else f"measure {where}: {message}") from None
        fam, spec = trec_root(root)
        out.append([TrecValue(printed, m, "long" if fam.integer else "float", spec.per_query, spec.summary, fam.agg,
                              column=distinct.setdefault(m.key, (len(distinct), m))[0]) for printed, m in expanded])
    return out


def _printed_only(root: str, text: str | None) -> TrecValue:
    """The value of runid or relstring, which print no measure."""
    if root == "runid":
        if text is not None:
            raise ValueError(f"measure runid takes no parameters (trec_eval 10.0 ignores {root}.{text})")
        return TrecValue("runid", kind="runid", per_query=False)
    length = RELSTRING_LENGTH if text is None else _length(f"{root}.{text}", text)
    return TrecValue(root if text is None else f"{root}_{text}", kind="relstring", summary=False,
                     length=max(0, min(int(length), LONG_MAX)))  # atol saturates at LONG_MAX


def _length(where: str, text: str) -> float:
    """relstring's length as trec_eval's atof reads it: one number, finite."""
    if len(text.split(",")) != 1:
        raise ValueError(f"measure {where}: one length expected")
    return trec_float(where, text)
