"""Which kernels an evaluation runs, and running them (private).

:func:`plan` turns the requested measures into :class:`~searchgrade.measures.names.Measure`
objects with the evaluation's settings filled in, refusing duplicates and
measures that ``ties="expected"`` cannot compute.  :func:`evaluate_ranked`
calls each measure's kernel (from :mod:`searchgrade.measures.registry`) on a ranked
run and returns the per-query table.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from .kernels.base import Ranked
from .names import Measure, is_ir_measure, parse_measure
from .options import Options
from .registry import FAMILIES

__all__ = ["plan", "by_judged_only", "evaluate_ranked", "kernel_values", "frame"]


def plan(requested, options: Options, allow_empty: bool = False) -> list[Measure]:
    """The requested measures parsed, with rel_level and judged_only filled in; ValueError on duplicates."""
    if isinstance(requested, (str, Measure)) or is_ir_measure(requested):
        requested = [requested]
    elif not isinstance(requested, Iterable) or isinstance(requested, (bytes, bytearray)):
        raise TypeError("measures must be a measure name, a Measure, an ir_measures measure or a list of them, "
                        f"not {type(requested).__name__}")
    parsed = []
    for spec in requested:
        m = parse_measure(spec)
        parsed.append(replace(m, rel_level=options.rel_level,
                              judged_only=bool(m.params.get("judged_only", options.judged_only))))
    if not parsed and not allow_empty:
        raise ValueError("no measures requested")
    _refuse_duplicates(parsed)
    if options.ties == "expected":
        for m in parsed:
            if not FAMILIES[m.family].expected:
                raise ValueError(f"measure {m.name!r}: ties='expected' has no closed form for "
                                 f"{m.family}; use ties='trec' or 'input'")
    return parsed


def _refuse_duplicates(measures: Sequence[Measure]) -> None:
    """ValueError naming measures requested twice: the same name, or two spellings of one measure."""
    seen: dict = {}
    for m in measures:
        seen.setdefault(m.key, []).append(m)
    twice = [group for group in seen.values() if len(group) > 1]
    if twice:
        parts = []
        for group in twice:
            names = [m.spelling or m.name for m in group]
            same = len(set(names)) == 1
            parts.append(repr(names[0]) if same else " and ".join(map(repr, names)) + f" (both {group[0].canonical})")
        raise ValueError("measures requested twice: " + "; ".join(parts) + ". Request each measure once "
                         "(two spellings of one measure would give two identical columns)")
    names = [m.name for m in measures]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:  # different measures printing the same name cannot happen; refuse rather than mix columns
        raise ValueError(f"measures requested twice: {clash}")


def by_judged_only(measures: Iterable[Measure]) -> dict[bool, list[Measure]]:
    """The measures grouped by the ranking they need: judged documents only, or all."""
    groups: dict[bool, list[Measure]] = {}
    for m in measures:
        groups.setdefault(m.judged_only, []).append(m)
    return groups


def kernel_values(m: Measure, ctx: Ranked) -> np.ndarray:
    """One value per row of ctx for measure m (counts as int64 unless tie-averaged)."""
    fam = FAMILIES[m.family]
    values = fam.kernel(ctx, m) if ctx.n else np.zeros(0)
    if fam.integer and not ctx.expected:
        values = np.rint(values).astype(np.int64)
    return values


def evaluate_ranked(measures: Sequence[Measure], rows: Sequence, ctx: Ranked) -> pd.DataFrame:
    """One row per query (index "qid"), one column per measure, named by its printed name."""
    return frame(rows, {m.name: kernel_values(m, ctx) for m in measures})


def frame(rows: Sequence, values: dict) -> pd.DataFrame:
    """The per-query table of ``{column: one value per row}``: index "qid", the columns in the dict's order."""
    import pandas as pd  # here, not at import: the trec_eval command builds no DataFrame

    index = pd.Index(rows, name="qid", dtype=object, tupleize_cols=False)  # a tuple id is one id, not levels
    # copy=False: each kernel's fresh array becomes a column as it is (no stacking of the columns into one
    # block, a copy of the whole table)
    return pd.DataFrame(values, index=index, columns=list(values), copy=False)
