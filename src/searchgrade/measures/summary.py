"""Summaries over queries: :func:`aggregate` of a per-query table, and its parts.

A column's summary is its family's aggregation (``Family.agg`` of :mod:`searchgrade.measures.registry`):
the mean, the geometric mean (GMAP, gm_bpref: trec_eval's floor, C's log) or the sum (counts).  Two
summations add the queries up (``summation=``):

``"trec"`` (the default)
    one query after another in trec_eval's query order (query ids compared as text), each addition
    rounded, as trec_eval's C loop adds them, so that the Python API and the trec_eval command print the
    same last digit (:func:`running_total`, :func:`finish_total`).  Such a sum depends on the order and
    the grouping of its terms, so it cannot be split into shards and merged.
``"exact"``
    every value is added exactly (a float64 is an integer multiple of 2**-1074, so the sum is a Python
    int in those units) and the summary is rounded once at the end: the mean is ``sum / n`` correctly
    rounded, the geometric mean ``exp`` of the exact mean of the logs, a sum of counts an exact int.
    :class:`PartialSummary` holds these sums with the query count; partials of any split of the
    queries, merged in any order and grouping, give bit for bit the summary of one pass.

How the two relate: exact against exact is identical for any sharding (tests/measures/test_summary.py,
with hypothesis).  Exact against trec differs only by the rounding of the sequential sum: a mean of n
values differs by at most about ``(n - 1) * 2**-53`` times the mean of their magnitudes (below 1e-12
for measures in [0, 1] up to about 9,000 queries; the error of a real sum grows more like ``sqrt(n)``),
so the two print the same at trec_eval's precision (%.4f) except where a mean lies within that distance
of a rounding boundary of the fourth decimal.  On the 300 trec_eval golden cases that happens once
(c275, ``P_1000``: the exact mean is 0.00325 and prints 0.0032; trec_eval's rounded sum gives
0.0032500000000000003 and prints 0.0033); the other 299 print byte for byte what trec_eval printed.
Counts (integer sums) are identical under both.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a function needs it: the trec_eval command never does
    import pandas as pd

from .kinds.base import MIN_GEO_MEAN
from .names import Measure, is_ir_measure, parse_measure
from .qrels import warn_user

__all__ = ["summary_order", "summarize_column", "running_total", "finish_total", "aggregate", "frame",
           "SUMMATIONS", "PartialSummary", "partial_summary"]

#: The summations of :func:`aggregate` (module docstring): trec_eval's sequential sum, or an exact one.
SUMMATIONS = ("trec", "exact")
#: Every finite float64 is an integer multiple of 2**-SCALE; exact sums are ints in these units.
SCALE = 1074


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
    x = summands(x, agg)
    if total is not None:
        x = np.concatenate((np.array([total], dtype=np.float64), x.astype(np.float64, copy=False)))
    return float(np.cumsum(x, dtype=np.float64)[-1])


def summands(x: np.ndarray, agg: str) -> np.ndarray:
    """The terms a summary adds up for values x: the values, or for a geometric mean their logs (C's log,
    after trec_eval's floor MIN_GEO_MEAN)."""
    if agg != "gmean":
        return x
    return np.fromiter(map(math.log, np.maximum(x, MIN_GEO_MEAN).tolist()), dtype=np.float64, count=len(x))


def finish_total(total, n: int, agg: str):
    """The summary of n values from their :func:`running_total`: the sum (an int when whole), the geometric
    mean or the mean."""
    if agg == "sum":
        total = 0 if total is None else total
        return int(total) if float(total).is_integer() else float(total)
    if n == 0:
        return float("nan")
    return math.exp(total / n) if agg == "gmean" else total / n


def summarize_column(x: np.ndarray, agg: str, summation: str = "trec"):
    """One column's summary over values in summary order: sum (an int when whole), geometric mean (trec_eval's
    floor, C's log) or mean, each added up in that order as trec_eval adds (``summation="exact"``: added
    exactly and rounded once, whatever the order)."""
    if _summation(summation) == "exact":
        return PartialSummary.of({"x": agg}, {"x": x}).finish()["x"]
    return finish_total(running_total(None, x, agg), len(x), agg)


def frame(rows: Sequence, values: dict) -> pd.DataFrame:
    """The per-query table of ``{column: one value per row}``: index "qid", the columns in the dict's order."""
    import pandas as pd  # here, not at import: the trec_eval command builds no DataFrame

    index = pd.Index(rows, name="qid", dtype=object, tupleize_cols=False)  # a tuple id is one id, not levels
    # copy=False: each kernel's fresh array becomes a column as it is (no stacking of the columns into one
    # block, a copy of the whole table)
    return pd.DataFrame(values, index=index, columns=list(values), copy=False)
def _summation(summation: str) -> str:
    """The summation checked: one of SUMMATIONS, else a ValueError naming them."""
    if summation not in SUMMATIONS:
        raise ValueError(f"summation must be one of {SUMMATIONS}, not {summation!r}")
    return summation


# ====================================================================== exact, mergeable sums
def exact_sum(x: np.ndarray) -> tuple[int, float]:
    """(the exact sum of x's finite values as an int in units of 2**-SCALE, the float sum of its non-finite
    values or 0.0).

    Each value is split into a 53-bit integer mantissa and an exponent (``frexp``, exact); the mantissas
    of one exponent are added in int64 (two 27-bit halves, exact below 2**36 values an exponent) and the
    few per-exponent totals shifted into one Python int.  No Python loop runs over the values.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    finite = np.isfinite(x)
    special = 0.0
    if not finite.all():
        special = float(np.sum(x[~finite]))  # inf, -inf or nan, as any float sum of them gives
        x = x[finite]
    x = x[x != 0]
    if len(x) == 0:
        return 0, special
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= |mantissa| < 1
    m = np.ldexp(mantissa, 53).astype(np.int64)  # exact: |m| < 2**53
    shift = exponent.astype(np.int64) + (SCALE - 53)  # x = m * 2**(shift - SCALE)
    order = np.argsort(shift, kind="stable")
    shift, m = shift[order], m[order]
    starts = np.flatnonzero(np.concatenate(([True], shift[1:] != shift[:-1])))
    high = np.add.reduceat(m >> 26, starts).tolist()  # floor division: m = high * 2**26 + low
    low = np.add.reduceat(m & ((1 << 26) - 1), starts).tolist()
    total = 0
    for s, h, lo in zip(shift[starts].tolist(), high, low):
        part = (h << 26) + lo
        total += part << s if s >= 0 else part >> -s  # a subnormal's m is a multiple of 2**-s: exact
    return total, special


def _finish_exact(total: int, special: float, n: int, agg: str):
    """The summary of n values from their exact sum: the sum (an int when whole), the geometric mean or
    the mean, each rounded once (Python's int / int is correctly rounded)."""
    unit = 1 << SCALE
    if agg == "sum":
        if special != 0 or math.isnan(special):
            return special
        return total >> SCALE if total % unit == 0 else total / unit
    if n == 0:
        return float("nan")
    mean = special / n if special != 0 or math.isnan(special) else total / (unit * n)
    return math.exp(mean) if agg == "gmean" else mean


@dataclass(frozen=True)
class PartialSummary:
    """A summary over some queries that merges with the summaries of other queries: the per-column exact
    sums (of the logs for a geometric mean), non-finite values apart, and the query count.

    Build one with :meth:`of` (or :func:`partial_summary` of a per-query table), merge with ``a + b`` or
    :meth:`merge`, and :meth:`finish` it into ``{column: summary}``.  The sums are exact, so any split of
    the queries into parts, merged in any order, finishes bit for bit as the whole does, and as
    ``aggregate(..., summation="exact")``.  :meth:`to_json` / :meth:`from_json` carry one between
    processes (a Spark executor and its driver).
    """

    columns: tuple  # ((column, agg), ...): agg "mean", "gmean" or "sum"
    count: int  # queries
    sums: tuple  # exact sums, ints in units of 2**-SCALE
    special: tuple  # float sums of the non-finite values (0.0 when none)

    @classmethod
    def of(cls, aggs: Mapping[str, str], values: Mapping[str, np.ndarray]) -> PartialSummary:
        """The partial summary of one value per query for each column of ``aggs`` ({column: agg})."""
        lengths = {len(values[col]) for col in aggs}
        if len(lengths) > 1:
            raise ValueError(f"the columns hold different numbers of queries: {sorted(lengths)}")
        parts = [exact_sum(summands(np.asarray(values[col], dtype=np.float64), agg)) for col, agg in aggs.items()]
        return cls(tuple(aggs.items()), lengths.pop() if lengths else 0, tuple(p[0] for p in parts),
                   tuple(p[1] for p in parts))

    @classmethod
    def empty(cls, aggs: Mapping[str, str]) -> PartialSummary:
        """The summary of no query: merging it changes nothing."""
        return cls(tuple(aggs.items()), 0, (0,) * len(aggs), (0.0,) * len(aggs))

    def merge(self, *others: PartialSummary) -> PartialSummary:
        """This summary merged with others over other queries (the same columns; ValueError otherwise)."""
        count, sums, special = self.count, list(self.sums), list(self.special)
        for other in others:
            if other.columns != self.columns:
                raise ValueError(f"cannot merge summaries of different columns: {list(self.columns)} and "
                                 f"{list(other.columns)}")
            count += other.count
            sums = [a + b for a, b in zip(sums, other.sums)]
            special = [a + b for a, b in zip(special, other.special)]
        return PartialSummary(self.columns, count, tuple(sums), tuple(special))

    __add__ = merge

    def finish(self) -> dict:
        """{column: summary}: the mean, geometric mean or sum of every query merged in, rounded once."""
        return {col: _finish_exact(total, special, self.count, agg)
                for (col, agg), total, special in zip(self.columns, self.sums, self.special)}

    def series(self) -> pd.Series:
        """:meth:`finish` as the Series :func:`aggregate` returns."""
        return _series(self.finish())

    def to_json(self) -> str:
        """This summary as one line of JSON (sums as hexadecimal text, exact)."""
        return json.dumps({"columns": [list(c) for c in self.columns], "count": self.count,
                           "sums": [hex(s) for s in self.sums], "special": [repr(s) for s in self.special]})

    @classmethod
    def from_json(cls, text: str) -> PartialSummary:
        """The summary that :meth:`to_json` wrote."""
        d = json.loads(text)
        return cls(tuple(map(tuple, d["columns"])), int(d["count"]), tuple(int(s, 16) for s in d["sums"]),
                   tuple(float(s) for s in d["special"]))


def _series(out: dict) -> pd.Series:
    """A summary {column: value} as aggregate's Series "all" (object dtype when some value is an int)."""
    import pandas as pd

    return pd.Series(out, dtype=object if any(isinstance(v, int) for v in out.values()) else np.float64,
                     name="all")


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


def aggregate(df: pd.DataFrame, measures: Iterable | None = None, *, summation: str = "trec") -> pd.Series:
    """Summary over queries, column by name: mean; geometric mean for GMAP / gm_bpref; sum for counts.

    With ``measures=None`` every column whose name is a measure name is
    summarised; other columns (``system``, ...) are left out -- silently when
    they are not numeric, with a ``UserWarning`` when they are.  With
    ``measures`` (names, :class:`Measure` or ir_measures objects), exactly those
    columns, found by the measure's printed name (or the spelling as given),
    in that order; a KeyError names any that is missing.  ``summation`` is
    ``"trec"`` (trec_eval's sequential sum, the default) or ``"exact"`` (added
    exactly, rounded once: equal to :func:`partial_summary` of any split of the
    rows, merged); the module docstring says how the two differ.
    """
    exact = _summation(summation) == "exact"
    pairs = _pairs(df, measures, "aggregate")
    if exact:
        return _partial(df, pairs).series()
    order = summary_order(list(df.index))
    return _series({col: summarize_column(df[col].to_numpy(dtype=np.float64)[order], m.agg) for col, m in pairs})


def partial_summary(df: pd.DataFrame, measures: Iterable | None = None) -> PartialSummary:
    """The :class:`PartialSummary` of a per-query table (columns picked as :func:`aggregate` picks them):
    merge the partials of tables of other queries into it, then ``finish()``."""
    return _partial(df, _pairs(df, measures, "partial_summary"))


def _partial(df: pd.DataFrame, pairs: list[tuple[str, Measure]]) -> PartialSummary:
    """The partial summary of the (column, measure) pairs of df."""
    return PartialSummary.of({col: m.agg for col, m in pairs}, {col: df[col].to_numpy() for col, _ in pairs})


def _pairs(df: pd.DataFrame, measures: Iterable | None, caller: str) -> list[tuple[str, Measure]]:
    """(column, measure) of each summarised column of df: every measure column, or those of ``measures``."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{caller} needs the DataFrame that evaluate() returns, not {type(df).__name__}")
    if measures is None:
        return _measure_columns(df)
    if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
        measures = [measures]
    pairs, missing = [], []
    for spec in measures:
        try:
            pairs.append(_column_for(df, spec))
        except KeyError as err:
            missing.append(err.args[0])
    if missing:
        raise KeyError(f"{caller}: no column for measure(s) {missing}; the columns are {list(df.columns)}")
    return pairs
