"""The -m arguments as the lines trec_eval prints: names, measures, formats, in trec_eval's order."""
from __future__ import annotations

from dataclasses import dataclass

from ...measures.known import suggest_trec
from ...measures.names import LONG_MAX, Measure
from ...measures.registry import TREC_ORDER, TREC_SETS
from ...measures.trec_names import trec_values
from .args import UsageError

__all__ = ["Line", "plan", "distinct_measures", "RELSTRING_LENGTH"]

RELSTRING_LENGTH = 10.0  # relstring's default length (m_relstring.c); runid and relstring are not measures



@dataclass(frozen=True, eq=False)
class Line:
    """One printed value: trec_eval's name, the measure behind it, and where and how it is printed.

    Compared and hashed by identity: each line of a plan is its own key, even where two print one name.
    """

    name: str
    measure: Measure | None = None  # None: runid, relstring
    kind: str = "float"  # "float" (%6.4f), "long" (%ld), "runid", "relstring"
    per_query: bool = True
    summary: bool = True
    agg: str = "mean"  # "mean", "sum", "gmean"
    length: int = 0  # relstring: how many ranks
    column: int = -1  # the measure's place among the plan's distinct measures (:func:`distinct_measures`)


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


def _special(root: str, text: str | None, length: float | None) -> Line:
    """The line of runid or relstring, which print no measure (length: relstring's, read by the registry)."""
    if root == "runid":
        if text is not None:
            raise UsageError(f"measure runid takes no parameters (trec_eval 10.0 ignores {root}.{text})")
        return Line("runid", kind="runid", per_query=False)
    length = RELSTRING_LENGTH if length is None else length
    return Line(root if text is None else f"{root}_{text}", kind="relstring", summary=False,
                length=max(0, min(int(length), LONG_MAX)))  # atol saturates at LONG_MAX


def plan(requested: list[str], rel: int, n_docs: int | None = None) -> list[Line]:
    """Every printed value of the -m arguments, in trec_eval's order (-l: rel, -N: n_docs).

    The measures' names, parameters and print formats come from the registry in one call
    (:func:`searchgrade.measures.trec_names.trec_values`).
    """
    requests = _requests(requested)
    try:
        values = trec_values(requests, rel, n_docs)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return [line for (root, text), printed in zip(requests, values)
            for line in ([_special(root, text, printed[0].length)] if printed[0].measure is None else
                         [Line(v.printed, v.measure, "long" if v.integer else "float", v.per_query, v.summary,
                               v.agg, column=v.column) for v in printed])]


def distinct_measures(lines: list[Line]) -> list[Measure]:
    """The distinct measures of a plan, in the order of their ``column``."""
    distinct: dict = {}
    for line in lines:
        if line.measure is not None:
            distinct.setdefault(line.column, line.measure)
    return [distinct[i] for i in sorted(distinct)]
