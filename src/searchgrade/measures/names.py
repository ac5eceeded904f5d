"""Measure names: parsing searchgrade, ir_measures and trec_eval spellings into a :class:`Measure` (private).

Three ways to name a measure, all read with the registry (:mod:`searchgrade.measures.registry`):

* ir_measures' syntax, ``Family(key=value,...)@cutoff``: ``nDCG@10``,
  ``P(rel=2)@5``, ``RBP(p=0.8)``, values bare or quoted (``P(rel="2")@5``,
  ``nDCG(dcg='exp-log2')@10``), a gain map as ``gains={1:1,2:3}``; family names
  are case-insensitive and ir_measures' aliases work (MAP, MRR, NDCG, Success);
  ir_measures' own parameter spellings map onto searchgrade's (``dcg`` ->
  ``gain``, ``SetP(relative=True)`` -> SetRelP, ``NumRet(rel=1)`` -> NumRelRet);
* trec_eval's printed names, case-sensitive: ``P_10``, ``map``, ``ndcg_cut_10``,
  ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``set_F_0.5``,
  ``utility_1,-2,0,0``, ``11pt_avg_0.2,0.5,0.8``, ``rbp_p=0.8``, ``ndcg_1=4,2=8``,
  ``rbp`` (trec_eval's p = 0.9), and :func:`trec_expand` reads a ``-m`` argument
  (``P.5,10``, ``ndcg_cut.23.4``) as trec_eval 10.0 reads it;
* an ir_measures measure object (``ir_measures.nDCG@10``): read from its
  parameters, never by importing ir_measures.

The printed name
----------------
A measure's ``name`` -- the column :func:`searchgrade.evaluate` gives it -- is
the spelling as requested (``str()`` of an ir_measures object) when that
spelling shows every parameter whose value differs from the family's default;
otherwise it is the canonical spelling, which shows them all.  So ``"P_10"``
stays ``P_10``, while ``"rbp"`` (p = 0.9, the default is 0.8) prints as
``RBP(p=0.9)``, and the ir_measures object ``ERR@10`` (gdeval's grade scale of 4)
prints as ``ERR(max_grade=4)@10``: two measures with different values never
share a printed name.  ``Measure.canonical`` is ir_measures-style, parameters
in the family's order.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Mapping

from . import registry
from .params import Param, fmt_value, short
from .known import known_measures, suggest, suggest_trec  # noqa: F401  (known_measures, suggest_trec: re-exported)
from .registry import ANY, COMMON, FAMILIES, IR_FIXED, IR_RENAME, RANX, Family, TrecName, family, trec_root

__all__ = ["Measure", "parse_measure", "known_measures", "trec_expand", "is_ir_measure", "trec_float", "suggest",
           "suggest_trec"]


@dataclass(frozen=True)
class Measure:
    """A parsed measure: family, parameters, cutoff; ``name`` is its printed (column) name."""

    name: str  # the printed name: the requested spelling unless it hides a parameter (module docstring)
    family: str  # canonical family, e.g. "nDCG"
    params: Mapping = field(default_factory=dict)  # every set parameter, defaults included
    cutoff: float | int | None = None
    rel_level: int = 1  # filled in by the Evaluator: the level used when rel= is not given
    judged_only: bool = False  # filled in by the Evaluator: the setting used when judged_only= is not given
    spelling: str = ""  # as requested (str() of an ir_measures object)

    @property
    def agg(self) -> str:
        """How :func:`searchgrade.aggregate` combines queries: "mean", "gmean" or "sum"."""
        return FAMILIES[self.family].agg

    @property
    def canonical(self) -> str:
        """The ir_measures-style spelling showing every non-default parameter, e.g. ``nDCG(gain=exp)@10``."""
        fam = FAMILIES[self.family]
        shown = [f"{p.name}={fmt_value(self.params[p.name])}" for p in fam.params + COMMON
                 if p.name in self.params and self.params[p.name] != p.default]
        cut = "" if self.cutoff is None else f"@{fmt_value(self.cutoff)}"
        return f"{fam.name}{'(' + ','.join(shown) + ')' if shown else ''}{cut}"

    @property
    def key(self) -> tuple:
        """What the measure computes (family, parameters as evaluated, cutoff): equal keys, equal values."""
        fam = FAMILIES[self.family]
        params = fam.normalised(self.params)  # SetF(beta=2) is SetF(beta2=4)
        if fam.param("rel") is not None and not fam.graded:  # a graded family's rel= changes the gain
            params.setdefault("rel", self.rel_level)
        params.setdefault("judged_only", self.judged_only)
        items = tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v) for k, v in params.items()))
        return (self.family, items, self.cutoff)

    @property
    def trec_name(self) -> str:
        """trec_eval's printed name (``P_10``, ``set_F_0.5``, ``rbp_p=0.8``); ValueError if trec_eval has none."""
        return FAMILIES[self.family].trec_name(self)

    def __str__(self) -> str:
        return self.name


def is_ir_measure(obj) -> bool:
    """Whether obj looks like an ir_measures measure object (NAME, params, SUPPORTED_PARAMS)."""
    return hasattr(obj, "SUPPORTED_PARAMS") and hasattr(obj, "NAME") and isinstance(getattr(obj, "params", None), dict)


def parse_measure(name) -> Measure:
    """Parse ``nDCG(gain=exp)@10``, ``P(rel="2")@5``, ``ndcg_cut_10``, an ir_measures object, ...; ValueError if unknown."""
    if isinstance(name, Measure):
        return name
    if is_ir_measure(name):
        return _from_ir_object(name)
    if not isinstance(name, str):
        raise TypeError(f"a measure must be a name (str), a Measure or an ir_measures measure, "
                        f"not {type(name).__name__}")
    text = name.strip()
    return _from_trec(name, text) or _from_ranx(name, text) or _from_ir_text(name, text)


def _unknown(spelling: str) -> ValueError:
    """The error for a name nothing reads: a short 'did you mean', never the whole list."""
    guess = suggest(spelling)
    hint = f"; did you mean {guess!r}?" if guess else ""
    return ValueError(f"unknown measure {spelling!r}{hint} (searchgrade.known_measures() lists the names)")


# ------------------------------------------------------------------ building
def _build(spelling: str, fam: Family, items: list, cut, *, implied=(), hidden=frozenset()) -> Measure:
    """The Measure for (parameter, raw value) items of ``fam``; implied parameters are set but not shown."""
    keys = [key for key, _ in items]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(f"measure {spelling!r}: parameter {', '.join(map(repr, twice))} given twice")
    fam, items = _redirect(spelling, fam, items)
    params = fam.defaults
    params.update(dict(implied))
    given = set()
    for key, raw in items:
        key, raw = _rename(spelling, fam, key, raw)
        p = fam.param(key)
        if p is None:
            allowed = ", ".join(q.name for q in fam.params + COMMON)
            raise ValueError(f"measure {spelling!r}: unknown parameter {key!r} (allowed: {allowed})")
        params[key] = p.coerce(spelling, raw)
        given.add(key)
    if fam.finish is not None:
        params = fam.finish(spelling, params, given)
    m = Measure(spelling, fam.name, params, _check_cutoff(spelling, fam, cut), spelling=spelling)
    shown = given - set(hidden)
    differs = {p.name for p in fam.params + COMMON if p.name in params and params[p.name] != p.default}
    return m if differs <= shown else replace(m, name=m.canonical)


def _redirect(spelling: str, fam: Family, items: list) -> tuple[Family, list]:
    """Apply ir_measures parameters that select another family (SetP(relative=True) is SetRelP)."""
    out = []
    for key, raw in items:
        ir = next((i for i in fam.ir if i.name == key and i.family), None)
        if ir is None:
            out.append((key, raw))
            continue
        targets = dict(ir.family)
        if ANY in targets:
            fam = FAMILIES[targets[ANY]]
        else:
            value = Param(key, type(next(iter(targets)))).coerce(spelling, raw)
            if value not in targets:
                raise ValueError(f"measure {spelling!r}: parameter {key}={raw!r} has no searchgrade counterpart")
            fam = FAMILIES[targets[value]]
        if ir.to:
            out.append((ir.to, raw))
    return fam, out


def _rename(spelling: str, fam: Family, key: str, raw):
    """An ir_measures parameter spelling as searchgrade's (nDCG's dcg='exp-log2' is gain=exp)."""
    ir = next((i for i in fam.ir if i.name == key and i.to and not i.family), None)
    if ir is None:
        return key, raw
    if ir.values:
        table = dict(ir.values)
        text = raw.strip() if isinstance(raw, str) else raw
        if text not in table:
            allowed = " or ".join(repr(v) for v in table)
            raise ValueError(f"measure {spelling!r}: parameter {key}={raw!r} has no searchgrade counterpart "
                             f"(ir_measures' {key} must be {allowed})")
        raw = table[text]
    return ir.to, raw


def _check_cutoff(measure: str, fam: Family, cutoff):
    """The cutoff as an int (or a recall level as a float), checked against the family's rule."""
    if fam.cutoff == "none" and cutoff is not None:
        raise ValueError(f"measure {measure!r}: {fam.name} takes no cutoff")
    if fam.cutoff in ("required", "recall") and cutoff is None:
        example = "0.5" if fam.cutoff == "recall" else "10"
        raise ValueError(f"measure {measure!r}: {fam.name} needs a cutoff, e.g. {fam.name}@{example}")
    if cutoff is None:
        return None
    if fam.cutoff == "recall":
        try:
            r = float(cutoff)
        except (TypeError, ValueError):
            raise ValueError(f"measure {measure!r}: recall level {cutoff!r} is not a number") from None
        if not 0 <= r <= 1:
            raise ValueError(f"measure {measure!r}: recall level {cutoff!r} must lie in [0, 1]")
        return r
    text = str(cutoff).strip()
    if isinstance(cutoff, bool) or not re.fullmatch(r"\d+", text) or _long(text) < 1:
        raise ValueError(f"measure {measure!r}: cutoff {_said(cutoff)} must be a positive integer")
    if _long(text) > LONG_MAX:
        raise ValueError(f"measure {measure!r}: cutoff {_said(cutoff)} must be at most 2**63 - 1")
    return int(text)


def _said(value) -> str:
    """repr(value) for a message; a long one shortened."""
    return repr(value) if len(str(value)) <= 40 else short(str(value))


def _long(digits: str) -> int:
    """An optionally signed decimal integer; past 19 digits LONG_MAX + 1 (or its negative), as if saturated:
    no long holds it, and Python's int() refuses texts of more than 4300 digits."""
    sign = -1 if digits.startswith("-") else 1
    body = digits.lstrip("+-").lstrip("0")
    return int(digits) if len(body) <= 19 else sign * (LONG_MAX + 1)


# ------------------------------------------------------------ ir_measures text
_HEAD = re.compile(r"\s*([A-Za-z0-9_]+)\s*")
_QUOTES = "'\""


def _from_ir_text(spelling: str, text: str) -> Measure:
    """``Family(key=value,...)@cutoff`` (searchgrade's and ir_measures' syntax)."""
    mt = _HEAD.match(text)
    if not mt:
        raise _unknown(spelling)
    fam = family(mt.group(1))
    pos, items = mt.end(), []
    if pos < len(text) and text[pos] == "(":
        close = _closing(spelling, text, pos)
        items = _items(spelling, text[pos + 1:close])
        pos = close + 1
    rest = text[pos:].strip()
    cut = None
    if rest:
        if not rest.startswith("@") or fam is None:
            raise _unknown(spelling)
        cut = _unquote(rest[1:].strip())
        if not cut:
            raise ValueError(f"measure {spelling!r}: nothing after '@' (a cutoff such as @10)")
    if fam is None:
        raise _unknown(spelling)
    return _build(spelling, fam, *_at_keyword(spelling, fam, items, cut))


def _at_keyword(spelling: str, fam: Family, items: list, cut) -> tuple[list, object]:
    """ir_measures' keyword form of the @ parameter: P(cutoff=5) is P@5, IPrec(recall=0.5) is IPrec@0.5."""
    at = "recall" if fam.cutoff == "recall" else "cutoff"
    rest = []
    for key, value in items:
        if key != at:
            rest.append((key, value))
        elif cut is not None:
            raise ValueError(f"measure {spelling!r}: the {at} is given twice ({at}= and @)")
        else:
            cut = value
    return rest, cut


def _top_level(text: str, start: int = 0):
    """``(index, char, top)`` for each character of text[start:]; top: outside quotes, braces and brackets."""
    quote, depth = None, 0
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in _QUOTES:
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        yield i, ch, quote is None and depth == 0


def _unquote(text: str) -> str:
    """text without one pair of matching quotes around it."""
    return text[1:-1] if len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0] else text


def _closing(spelling: str, text: str, start: int) -> int:
    """Index of the ')' closing the '(' at ``start`` (quotes, braces and brackets respected)."""
    for i, ch, top in _top_level(text, start + 1):
        if ch == ")" and top:
            return i
    raise ValueError(f"measure {spelling!r}: unbalanced parentheses, braces or quotes")


def _items(spelling: str, inner: str) -> list[tuple[str, str]]:
    """``key=value`` items of a parameter list, split at top-level commas; quoted values unquoted."""
    cuts = [i for i, ch, top in _top_level(inner) if ch == "," and top]
    parts = [inner[a + 1:b] for a, b in zip([-1] + cuts, cuts + [len(inner)])]
    out = []
    for part in filter(str.strip, parts):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"measure {spelling!r}: parameter {part.strip()!r} is not of the form key=value")
        out.append((key.strip(), _unquote(value.strip())))
    return out


# ------------------------------------------------------------------ ranx names
_RANX = re.compile(r"(?P<name>[a-z_1-]+?)(?:@(?P<k>\d+)|\.(?P<p>\d+))?(?:-l(?P<rel>\d+))?")


def _from_ranx(spelling: str, text: str) -> Measure | None:
    """ranx's names (``hits@10``, ``ndcg_burges@10``, ``r-precision``, ``rbp.95``, ``map@100-l2``) as ranx computes
    them (registry.RANX), or None if ``text`` is not one.  Named canonically when the name implies a parameter."""
    mt = _RANX.fullmatch(text)
    if not mt or mt.group("name") not in RANX:
        return None
    name, k, p, rel = mt.group("name", "k", "p", "rel")
    at_k, whole = RANX[name]
    if (p is not None) != (name == "rbp"):
        return None  # rbp needs ranx's .p; rbp@95 is searchgrade's RBP at cut-off 95
    if k is not None and int(k) > 0 and at_k is None:
        raise ValueError(f"measure {spelling!r}: ranx's {name} takes no cut-off")
    base = whole if k is None or int(k) == 0 else at_k  # ranx's k = 0 is the whole run
    fam_name, _, inner = base.partition("(")
    items = _items(spelling, inner.rstrip(")")) + ([("p", f"0.{p}")] if p is not None else [])
    if rel is not None and int(rel) != 1:
        items += _ranx_level(spelling, family(fam_name), dict(items), int(rel))
    cut = None if base == whole and (k is None or int(k) == 0) else k
    m = _build(spelling, family(fam_name), items, cut)
    return replace(m, name=spelling if m.canonical == fam_name + ("" if cut is None else f"@{cut}") else m.canonical)


def _ranx_level(spelling: str, fam: Family, items: dict, rel: int) -> list:
    """ranx's rel_lvl as searchgrade parameters: rel= on binary families, gain 0 below it on the linear (n)DCG."""
    if fam.param("rel") is not None and not fam.graded:
        return [("rel", rel)]
    if fam.name in ("nDCG", "DCG") and "gain" not in items:
        return [("gains", {g: 0 for g in range(1, rel)})]
    raise ValueError(f"measure {spelling!r}: ranx's rel_lvl {rel} on {fam.name} (grades below it dropped "
                     f"before the gain) has no searchgrade counterpart")


# ----------------------------------------------------------- ir_measures objects
def _from_ir_object(obj) -> Measure:
    """An ir_measures measure object as the searchgrade measure that computes what ir_measures computes."""
    spelling = str(obj)
    fam = family(str(obj.NAME))
    if fam is None:
        raise ValueError(f"measure {spelling!r} (ir_measures {obj.NAME}) has no searchgrade counterpart "
                         "(searchgrade.measure_table() lists searchgrade's families)")
    params = dict(obj.params)
    cut = params.pop(getattr(obj, "AT_PARAM", "cutoff"), None)
    supported = getattr(obj, "SUPPORTED_PARAMS", {})
    hidden = set()
    for key, value in params.items():  # ir_measures' str() leaves out values equal to its defaults
        info = supported.get(key)
        if info is not None and getattr(info, "default", None) == value:
            hidden.add(_target_name(fam, key))
    items = list(params.items())
    target, _ = _redirect(spelling, fam, items)
    rename = IR_RENAME.get(target.name, {})  # ir_measures' parameter is another searchgrade parameter:
    hidden |= {rename[key] for key in params if key in rename}  # its spelling does not show it
    items = [(rename.get(key, key), value) for key, value in items]
    return _build(spelling, fam, items, cut, implied=IR_FIXED.get(target.name, ()), hidden=hidden)


def _target_name(fam: Family, key: str) -> str:
    """The searchgrade parameter an ir_measures parameter sets."""
    ir = next((i for i in fam.ir if i.name == key), None)
    return ir.to if ir is not None and ir.to else key


# --------------------------------------------------------------- trec_eval names
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
LONG_MAX = 2**63 - 1  # trec_eval's long (64-bit systems)
_ATOL = re.compile(r"\s*[+-]?\d+(\.\d*)?")
_ATOF = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_GRADE = re.compile(r"[+-]?\d+")  # trec_eval's valid_int: a pair whose name is an integer sets a gain
_INF_NAN = re.compile(r"\s*[+-]?(inf|infinity|nan)", re.IGNORECASE)  # what atof reads as not finite


def _from_trec(spelling: str, text: str) -> Measure | None:
    """A trec_eval printed name (case-sensitive), or None if ``text`` is not one."""
    exact, suffix = _trec_tables()
    if text in exact:
        fam, spec = exact[text]
        return _build(spelling, fam, [], None, implied=spec.implied)
    for pattern, fam, spec in suffix:
        mt = pattern.fullmatch(text)
        if mt:
            return _trec_measure(spelling, fam, spec, mt.group(1))
    return None


def _trec_measure(spelling: str, fam: Family, spec: TrecName, value: str) -> Measure:
    """The measure of ``root_value`` for one trec_eval name spec."""
    if spec.cut:
        if spec.target == "cutoff":
            return _build(spelling, fam, [], value, implied=spec.implied)
        return _build(spelling, fam, [(spec.target, value)], None, implied=spec.implied)
    items, implied = _trec_items(spelling, fam, spec, value)
    return _build(spelling, fam, items, None, implied=implied)


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
            grade = _long(name)
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
            values.append(min(_long(item.split(".")[0].strip()), LONG_MAX))  # atol saturates at LONG_MAX
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
    found = trec_root(root)
    if found is None:
        raise ValueError(f"unknown trec_eval measure {root!r}")
    fam, spec = found
    where = root if text is None else f"{root}.{text}"
    if text == "":
        raise ValueError(f"measure {root}.: no parameters after the '.'")
    if spec.cut:
        values = list(spec.defaults) if text is None else _trec_cuts(where, spec, text)
        built = [(spec.printed(v), _build(where, fam, [] if spec.target == "cutoff" else [(spec.target, v)],
                                          v if spec.target == "cutoff" else None, implied=spec.implied))
                 for v in values]
    elif spec.style == "plain":
        if text is not None:
            raise ValueError(f"measure {where}: trec_eval measure {root} takes no parameters "
                             f"(trec_eval 10.0 ignores {where})")
        built = [(root, _build(where, fam, [], None, implied=spec.implied))]
    else:
        items, implied = ([], spec.implied) if text is None else _trec_items(where, fam, spec, text)
        if n_docs is not None and fam.param("n_docs") is not None:  # trec_eval -N
            items.append(("n_docs", n_docs))
        built = [(spec.printed(text), _build(where, fam, items, None, implied=implied))]
    out = []
    for printed, m in built:
        if rel is not None and fam.param("rel") is not None and not fam.graded:  # trec_eval -l
            m = replace(m, params={**m.params, "rel": int(rel)})
        out.append((printed, replace(m, name=m.canonical, spelling=printed)))
    return out
