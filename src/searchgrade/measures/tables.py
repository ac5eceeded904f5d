"""The registry's rows as tables for readers: the formula and tool tables of :mod:`searchgrade.metrics`, the API table.

Nothing here knows a measure: every cell comes from a :class:`~searchgrade.measures.family.Family`
row of :mod:`searchgrade.measures.registry` (its ``formula``, ``cite``, ``ranx`` and ``differs``
fields, its parameters, cut-off, aggregation and trec_eval names), so a family added to the
registry appears in every table, and a fact changed in a row changes every table.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by measure_table: the trec_eval command builds no DataFrame
    import pandas as pd

from .kinds.base import MIN_GEO_MEAN
from .names.known import trec_form
from .params import REL, fmt_value
from .registry import FAMILIES

__all__ = ["formula_table", "differs_table", "closed_form_families", "measure_table"]

_FLOOR = f"{MIN_GEO_MEAN:.0e}".replace("e-0", "e-")  # 1e-5
_AGG_TEXT = {"mean": "", "gmean": f"; over queries ``exp(mean(log(max(v, {_FLOOR}))))``",
             "sum": "; summed over queries, not averaged"}
_CUTOFF_TEXT = {"none": "none", "optional": "@k optional", "required": "@k required", "recall": "@r (recall level)"}
_TOOLS = (("trec_eval", "trec_eval 10.0"), ("ir_measures", "ir_measures / pytrec_eval"), ("ranx", "ranx"))


def _rst_table(header: list[str], rows: list[list[str]], widths: list[int]) -> str:
    """An RST simple table: cells wrapped to their column (widened to the longest word), continuation lines below."""
    widths = [max([w, len(h)] + [len(word) for r in rows for word in r[i].split()])
              for i, (w, h) in enumerate(zip(widths, header))]
    widths[0] = max([widths[0]] + [len(r[0]) for r in rows])  # a first cell on two lines would start a new row
    rule = "  ".join("=" * w for w in widths)

    def lines(cells: list[str]) -> list[str]:
        wrapped = [textwrap.wrap(c, w, break_long_words=False, break_on_hyphens=False) or [""]
                   for c, w in zip(cells, widths)]
        return ["  ".join(col[i].ljust(w) if i < len(col) else " " * w for col, w in zip(wrapped, widths)).rstrip()
                for i in range(max(map(len, wrapped)))]

    body = [line for r in rows for line in lines(r)]
    return "\n".join([rule, *lines(header), rule, *body, rule])


def formula_table() -> str:
    """Every family's definition as an RST table: name, trec_eval names, formula with its source and aggregation."""
    rows = []
    for f in FAMILIES.values():
        text = f.formula + (f" ({f.cite})" if f.cite else "") + _AGG_TEXT[f.agg]
        trec = ", ".join(f"``{trec_form(f, spec)}``" for spec in f.trec) or "(none)"
        rows.append([f"``{f.name}{f.cut_suffix}``", trec, text])
    return _rst_table(["Name", "trec_eval", "Definition"], rows, [12, 22, 66])


def differs_table() -> str:
    """Where trec_eval, ir_measures / pytrec_eval and ranx compute a family differently, as an RST table."""
    rows = [[f.differs.choice, *(getattr(f.differs, tool) for tool, _ in _TOOLS)]
            for f in FAMILIES.values() if f.differs is not None]
    return _rst_table(["Choice", *(title for _, title in _TOOLS)], rows, [15, 26, 26, 26])


def closed_form_families() -> list[str]:
    """The families with a closed form under ``ties="expected"`` (Family.expected), in registry order."""
    return [f.name for f in FAMILIES.values() if f.expected]


def _param_text(p) -> str:
    """One parameter as ``name=default`` (or ``name``), its choices and meaning, for :func:`measure_table`
    (the shared relevance level ``rel`` by its name only)."""
    if p is REL:
        return "rel"
    head = p.name if p.default is None else f"{p.name}={fmt_value(p.default)}"
    choices = f" ({'|'.join(map(str, p.choices))})" if p.choices else ""
    return f"{head}{choices}: {p.doc}"


def measure_table() -> pd.DataFrame:
    """Every measure family of the registry: meaning, parameters (with defaults), cut-off, aggregation, names.

    One row per family, generated from :mod:`searchgrade.measures.registry`, so it lists
    exactly what :func:`~searchgrade.metrics.parse_measure` accepts.  ``rel`` (the grade counted as
    relevant; default: the evaluation's ``rel_level``) is named without its meaning, and
    ``judged_only`` (every family) is not repeated.  ``ties="expected"`` says whether the family has a
    closed form for the expectation over tie orders (otherwise that setting refuses it); ``source``
    is where the measure is defined and ``ranx`` what ranx calls it.
    """
    rows = [{
        "measure": f.name,
        "what it measures": f.doc,
        "parameters": "; ".join(_param_text(p) for p in f.params),
        "cut-off": _CUTOFF_TEXT[f.cutoff],
        "over queries": f.agg,
        'ties="expected"': "yes" if f.expected else "no",
        "trec_eval": ", ".join(trec_form(f, spec) for spec in f.trec),
        "ranx": f.ranx,
        "source": f.cite,
    } for f in FAMILIES.values()]
    import pandas as pd

    return pd.DataFrame(rows).set_index("measure")
