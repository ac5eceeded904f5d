"""The core of the name parsers: the :class:`Measure` a name reads as, and how one is built and checked (private).

Every dialect (:mod:`.ir_text`, :mod:`.ir_object`, :mod:`.ranx`, :mod:`.trec`) turns a name into a family,
(parameter, raw value) items and a cut-off, and :func:`build` makes the Measure: it applies the family's
ir_measures redirects and renames, coerces each value to its typed parameter, runs the row's ``finish``
rules, checks the cut-off and chooses the printed name (the package docstring says how).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Mapping

from ..family import ANY, COMMON, Family
from ..params import Param, fmt_value, short
from ..registry import FAMILIES

__all__ = ["Measure", "build", "redirect", "long_value", "LONG_MAX"]


#: trec_eval's long (64-bit systems): the largest cut-off.
LONG_MAX = 2**63 - 1


@dataclass(frozen=True)
class Measure:
    """A parsed measure: family, parameters, cutoff; ``name`` is its printed (column) name."""

    name: str  # the printed name: the requested spelling unless it hides a parameter (the package docstring)
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


# ------------------------------------------------------------------ building


def build(spelling: str, fam: Family, items: list, cut, *, implied=(), hidden=frozenset()) -> Measure:
    """The Measure for (parameter, raw value) items of ``fam``; implied parameters are set but not shown."""
    keys = [key for key, _ in items]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(f"measure {spelling!r}: parameter {', '.join(map(repr, twice))} given twice")
    fam, items = redirect(spelling, fam, items)
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


def redirect(spelling: str, fam: Family, items: list) -> tuple[Family, list]:
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
    if isinstance(cutoff, bool) or not re.fullmatch(r"\d+", text) or long_value(text) < 1:
        raise ValueError(f"measure {measure!r}: cutoff {_said(cutoff)} must be a positive integer")
    if long_value(text) > LONG_MAX:
        raise ValueError(f"measure {measure!r}: cutoff {_said(cutoff)} must be at most 2**63 - 1")
    return int(text)


def _said(value) -> str:
    """repr(value) for a message; a long one shortened."""
    return repr(value) if len(str(value)) <= 40 else short(str(value))


def long_value(digits: str) -> int:
    """An optionally signed decimal integer; past 19 digits LONG_MAX + 1 (or its negative), as if saturated:
    no long holds it, and Python's int() refuses texts of more than 4300 digits."""
    sign = -1 if digits.startswith("-") else 1
    body = digits.lstrip("+-").lstrip("0")
    return int(digits) if len(body) <= 19 else sign * (LONG_MAX + 1)
