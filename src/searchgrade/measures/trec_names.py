"""trec_eval's ``-m`` arguments read in one call: every value they print, with its measure and print format.

:func:`trec_values` is what the trec_eval command asks of the measures before it scores a run: for each
``-m`` root (``P.5,10``, ``ndcg_cut.10``, ``map``) the printed names and measures of
:func:`searchgrade.measures.names.trec_expand`, what the registry row says of how trec_eval prints
them (a count or a number, per query, in the summary, summed or averaged), and which of the
distinct measures each is, so that a measure printed under two names is computed once.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from .names import Measure, trec_expand, trec_float
from .registry import trec_root

__all__ = ["TrecValue", "trec_values"]


class TrecValue(NamedTuple):
    """One value a ``-m`` argument prints: its name, its measure and how trec_eval prints it."""

    printed: str  # trec_eval's name, e.g. ndcg_cut_10
    measure: Measure | None  # the measure, named canonically (rel= filled in for -l)
    column: int  # the measure's place among the distinct measures of the request
    integer: bool  # a count, printed %ld (else %6.4f)
    per_query: bool  # printed for each query (-q)
    summary: bool  # printed in the summary ("all")
    agg: str  # "mean", "gmean" or "sum" over queries
    length: float | None = None  # relstring's parameter, read as atof reads it (runid, relstring: no measure)


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
            out.append([TrecValue(root, None, -1, False, root != "runid", root != "relstring", "mean",
                                  _length(where, text) if root == "relstring" else None)])
            continue
        try:
            expanded = trec_expand(root, text, rel, n_docs)
        except ValueError as err:
            message = str(err)
            raise ValueError(message if where in message else f"measure {where}: {message}") from None
        fam, spec = trec_root(root)
        out.append([TrecValue(printed, m, distinct.setdefault(m.key, (len(distinct), m))[0], fam.integer,
                              spec.per_query, spec.summary, fam.agg) for printed, m in expanded])
    return out


def _length(where: str, text: str | None) -> float | None:
    """relstring's length as trec_eval's atof reads it (None: the default); one number, finite."""
    if text is None:
        return None
    if len(text.split(",")) != 1:
        raise ValueError(f"measure {where}: one length expected")
    return trec_float(where, text)
