"""The -m arguments as the lines trec_eval prints: names, measures, formats, in trec_eval's order."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...measures.known import suggest_trec
from ...measures.names import LONG_MAX, Measure, trec_float, trec_expand
from ...measures.registry import TREC_ORDER, TREC_SETS, trec_root
from .args import UsageError

__all__ = ["Line", "plan", "RELSTRING_LENGTH"]

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


def _lines(root: str, text: str | None, rel: int, n_docs: int | None = None) -> list[Line]:
    """The values one -m argument prints (names, measures and formats from the registry)."""
    where = root if text is None else f"{root}.{text}"
    if root == "runid":
        if text is not None:
            raise UsageError(f"measure runid takes no parameters (trec_eval 10.0 ignores {where})")
        return [Line("runid", kind="runid", per_query=False)]
    if root == "relstring":
        length = RELSTRING_LENGTH
        if text is not None:
            values = text.split(",")
            if len(values) != 1:
                raise UsageError(f"measure {where}: one length expected")
            try:
                length = trec_float(where, values[0])
            except ValueError as err:
                raise UsageError(str(err)) from None
            if not math.isfinite(length):
                raise UsageError(f"measure {where}: the length must be a finite number")
        return [Line(root if text is None else f"{root}_{text}", kind="relstring", summary=False,
                      length=max(0, min(int(length), LONG_MAX)))]  # atol saturates at LONG_MAX
    try:
        expanded = trec_expand(root, text, rel, n_docs)
    except ValueError as err:
        message = str(err)
        raise UsageError(message if where in message else f"measure {where}: {message}") from None
    fam, spec = trec_root(root)
    return [Line(printed, m, "long" if fam.integer else "float", spec.per_query, spec.summary, fam.agg)
            for printed, m in expanded]


def plan(requested: list[str], rel: int, n_docs: int | None = None) -> list[Line]:
    """Every printed value of the -m arguments, in trec_eval's order (-l: rel, -N: n_docs)."""
    return [line for root, text in _requests(requested) for line in _lines(root, text, rel, n_docs)]
