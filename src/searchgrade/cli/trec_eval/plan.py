"""The -m arguments as the values trec_eval prints: names, measures, formats, in trec_eval's order.

Each printed value is a :class:`~searchgrade.measures.names.TrecValue` of the measures' trec_eval
dialect, runid and relstring included; this module reads the ``-m`` arguments as trec_eval does
(sets, one parameter text per root, trec_eval's print order) and hands them over in one call.
"""
from __future__ import annotations

from ...measures.names import Measure, TrecValue, suggest_trec, trec_values
from ...measures.registry import TREC_ORDER, TREC_SETS
from .args import UsageError

__all__ = ["plan", "distinct_measures"]


def _requests(requested: list[str]) -> list[tuple[str, str | None]]:
    """The -m arguments as (root, parameter text or None), one per root, in trec_eval's print order."""
    chosen: dict[str, str | None] = {}
    for arg in requested:
        if arg in TREC_SETS:
            for root in TREC_SETS[arg]:
                chosen.setdefault(root, None)
            continue
        root, dot, text = arg.partition(".")
        if root in TREC_SETS:
            raise UsageError(f"measure {arg!r}: {root} names a set of measures and takes no parameters")
        if root not in TREC_ORDER:
            guess = suggest_trec(arg)
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise UsageError(f"unknown measure {root!r}{hint} (-m takes a trec_eval measure, its parameters "
                             f"after a dot as in P.5,10, or a set: {', '.join(TREC_SETS)})")
        if not dot:
            chosen.setdefault(root, None)
            continue
        if not text:
            raise UsageError(f"measure {arg!r}: no parameters after the '.'")
        old = chosen.get(root)
        if old is not None and old != text:
            raise UsageError(f"measure {root} is given twice with different parameters ({root}.{old} and "
                             f"{arg}); trec_eval 10.0 would silently use the first")
        chosen[root] = text
    return [(root, chosen[root]) for root in TREC_ORDER if root in chosen]


def plan(requested: list[str], rel: int, n_docs: int | None = None) -> list[TrecValue]:
    """Every printed value of the -m arguments, in trec_eval's order (-l: rel, -N: n_docs).

    The measures' names, parameters and print formats come from the registry in one call
    (:func:`searchgrade.measures.names.trec_values`).
    """
    try:
        values = trec_values(_requests(requested), rel, n_docs)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return [value for printed in values for value in printed]


def distinct_measures(lines: list[TrecValue]) -> list[Measure]:
    """The distinct measures of a plan, in the order of their ``column``."""
    distinct: dict = {}
    for line in lines:
        if line.measure is not None:
            distinct.setdefault(line.column, line.measure)
    return [distinct[i] for i in sorted(distinct)]
