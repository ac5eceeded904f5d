"""Summaries over queries, as trec_eval adds them up: :func:`aggregate` of a per-query table, and its parts.

A column's summary is its family's aggregation (``Family.agg`` of :mod:`searchgrade.measures.registry`):
the mean, the geometric mean (GMAP, gm_bpref: trec_eval's floor, C's log) or the sum (counts), each
added up one query after another in trec_eval's query order (query ids compared as text), so that the
Python API and the trec_eval command print the same last digit.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a function needs it: the trec_eval command never does
    import pandas as pd

from .kinds.base import MIN_GEO_MEAN
from .names import Measure, is_ir_measure, parse_measure
from .qrels import warn_user

__all__ = ["summary_order", "summarize_column", "running_total", "finish_total", "aggregate", "frame"]


def summary_order(rows: Sequence) -> np.ndarray:
    """The order in which summaries add the queries up: trec_eval's, query ids compared as text (strcmp)."""
    texts = [q if type(q) is str else str(q) for q in rows]
    return np.argsort(np.array(texts, dtype=str), kind="stable") if texts else np.zeros(0, dtype=np.int64)


def running_total(total, x: np.ndarray, agg: str):
    """The total that :func:`summarize_column` finishes, carried on over values x that follow those behind
    ``total`` (None before the first) in summary order: integers add exactly; the mean's and the geometric
    mean's floats (the logs, for gmean) are added one value after another, starting from ``total``, as one
    loop over all the values adds them.  Float counts (only under ``ties="expected"``) add each part's sum."""
    if agg == "sum":
        part = x.sum()
        part = int(part) if x.dtype.kind in "iub" else float(part)
        return part if total is None else total + part
    if len(x) == 0:
        return total
    if agg == "gmean":
        x = np.fromiter(map(math.log, np.maximum(x, MIN_GEO_MEAN).tolist()), dtype=np.float64, count=len(x))
    if total is not None:
        x = np.concatenate((np.array([total], dtype=np.float64), x.astype(np.float64, copy=False)))
    return float(np.cumsum(x, dtype=np.float64)[-1])


def finish_total(total, n: int, agg: str):
    """The summary of n values from their :func:`running_total`: the sum (an int when whole), the geometric
    mean or the mean."""
    if agg == "sum":
        total = 0 if total is None else total
        return int(total) if float(total).is_integer() else float(total)
    if n == 0:
        return float("nan")
    return math.exp(total / n) if agg == "gmean" else total / n


def summarize_column(x: np.ndarray, agg: str):
    """One column's summary over values in summary order: sum (an int when whole), geometric mean (trec_eval's
    floor, C's log) or mean, each added up in that order as trec_eval adds."""
    return finish_total(running_total(None, x, agg), len(x), agg)


def frame(rows: Sequence, values: dict) -> pd.DataFrame:
    """The per-query table of ``{column: one value per row}``: index "qid", the columns in the dict's order."""
    import pandas as pd  # here, not at import: the trec_eval command builds no DataFrame

    index = pd.Index(rows, name="qid", dtype=object, tupleize_cols=False)  # a tuple id is one id, not levels
    # copy=False: each kernel's fresh array becomes a column as it is (no stacking of the columns into one
    # block, a copy of the whole table)
    return pd.DataFrame(values, index=index, columns=list(values), copy=False)


def _column_for(df: pd.DataFrame, spec) -> tuple[str, Measure]:
    """(column, measure) for a requested measure: its printed name, else its spelling; KeyError if absent."""
    m = parse_measure(spec)
    for col in dict.fromkeys([m.name, m.spelling or m.name, spec if isinstance(spec, str) else m.name]):
        if col in df.columns:
            return col, m
    raise KeyError(m.name)


def _measure_columns(df: pd.DataFrame) -> list[tuple[str, Measure]]:
    """Every column whose name is a measure name; numeric columns that are not are reported, others ignored."""
    import pandas as pd

    pairs, skipped = [], []
    for col in df.columns:
        try:
            pairs.append((col, parse_measure(col)))
        except (TypeError, ValueError):
            if pd.api.types.is_numeric_dtype(df[col]):
                skipped.append(col)
    if skipped:
        warn_user(f"aggregate: numeric column(s) {skipped} are not measure names and were left out")
    return pairs


def aggregate(df: pd.DataFrame, measures: Iterable | None = None) -> pd.Series:
    """Summary over queries, column by name: mean; geometric mean for GMAP / gm_bpref; sum for counts.

    With ``measures=None`` every column whose name is a measure name is
    summarised; other columns (``system``, ...) are left out -- silently when
    they are not numeric, with a ``UserWarning`` when they are.  With
    ``measures`` (names, :class:`Measure` or ir_measures objects), exactly those
    columns, found by the measure's printed name (or the spelling as given),
    in that order; a KeyError names any that is missing.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"aggregate needs the DataFrame that evaluate() returns, not {type(df).__name__}")
    if measures is None:
        pairs = _measure_columns(df)
    else:
        if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
            measures = [measures]
        pairs, missing = [], []
        for spec in measures:
            try:
                pairs.append(_column_for(df, spec))
            except KeyError as err:
                missing.append(err.args[0])
        if missing:
            raise KeyError(f"aggregate: no column for measure(s) {missing}; the columns are {list(df.columns)}")
    order = summary_order(list(df.index))
    out = {col: summarize_column(df[col].to_numpy(dtype=np.float64)[order], m.agg) for col, m in pairs}
    return pd.Series(out, dtype=object if any(isinstance(v, int) for v in out.values()) else np.float64,
                     name="all")
