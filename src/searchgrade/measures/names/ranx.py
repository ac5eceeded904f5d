"""ranx's metric names (``hits@10``, ``ndcg_burges@10``, ``r-precision``, ``rbp.95``, ``map@100-l2``), as ranx reads them.

Which family and parameters each name stands for is the rows' ``ranx_names`` (gathered in
:data:`searchgrade.measures.registry.RANX`); ranx's ``-lL`` (rel_lvl) becomes ``rel=L``.
"""
from __future__ import annotations

import re
from dataclasses import replace

from ..family import Family
from ..registry import RANX, family
from .ir_text import param_items
from .measure import Measure, build

__all__ = ["from_ranx"]

_RANX = re.compile(r"(?P<name>[a-z_1-]+?)(?:@(?P<k>\d+)|\.(?P<p>\d+))?(?:-l(?P<rel>\d+))?")


def from_ranx(spelling: str, text: str) -> Measure | None:
    """ranx's names (``hits@10``, ``ndcg_burges@10``, ``r-precision``, ``rbp.95``, ``map@100-l2``) as ranx computes
    them (the rows' ranx_names, registry.RANX), or None if ``text`` is not one.  Named canonically when the name
    implies a parameter."""
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
    items = param_items(spelling, inner.rstrip(")")) + ([("p", f"0.{p}")] if p is not None else [])
    if rel is not None and int(rel) != 1:
        items += _ranx_level(spelling, family(fam_name), dict(items), int(rel))
    cut = None if base == whole and (k is None or int(k) == 0) else k
    m = build(spelling, family(fam_name), items, cut)
    return replace(m, name=spelling if m.canonical == fam_name + ("" if cut is None else f"@{cut}") else m.canonical)


def _ranx_level(spelling: str, fam: Family, items: dict, rel: int) -> list:
    """ranx's rel_lvl as searchgrade parameters: rel= on binary families, gain 0 below it on the linear (n)DCG."""
    if fam.param("rel") is not None and not fam.graded:
        return [("rel", rel)]
    if fam.name in ("nDCG", "DCG") and "gain" not in items:
        return [("gains", {g: 0 for g in range(1, rel)})]
    raise ValueError(f"measure {spelling!r}: ranx's rel_lvl {rel} on {fam.name} (grades below it dropped "
                     f"before the gain) has no searchgrade counterpart")
