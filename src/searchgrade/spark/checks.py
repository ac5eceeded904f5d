"""The refusals before the job: one Spark aggregation over the qrels and the run, read back as one row.

The aggregation groups the lines by (query, document, side), then by query, then over everything, and
gives: each side's lines, the first line (by query and document) whose id is missing, whose score is not
a finite number or whose grade is not an integer, the first query with a document twice, and the
queries found on one side only.  :func:`check` raises a :class:`~searchgrade.io.errors.FormatError` of
one line for bad input and warns about the queries of one side only, as ``sg.evaluate`` does.
"""
from __future__ import annotations

import logging
import sys
import warnings
from typing import NamedTuple

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..io.errors import FormatError
from .columns import Side

__all__ = ["Checked", "check"]

log = logging.getLogger("searchgrade.spark")
SIDES = ("qrels", "run")


class Checked(NamedTuple):
    """What the checks found on good input: lines per side and the queries of both, of one side only."""

    qrels_lines: int
    run_lines: int
    both: int  # queries in the qrels and in the run
    only_qrels: int
    only_run: int


def _problem(s: Side) -> Column:
    """Per line: what is wrong with it (a short text), or null."""
    q, d, v = s.col("query_id"), s.col("doc_id"), s.col(s.role)
    problem = F.when(q.isNull(), F.lit("query_id is missing (null)")).when(
        d.isNull(), F.lit("doc_id is missing (null)")).when(v.isNull(), F.lit(f"{s.role} is missing (null)"))
    if isinstance(s.value_type, (T.FloatType, T.DoubleType)):
        problem = problem.when(F.isnan(v), F.lit(f"{s.role} is missing (NaN)"))
    if s.kind == "run" and isinstance(s.value_type, (T.FloatType, T.DoubleType)):
        problem = problem.when(v.isin(float("inf"), float("-inf")), F.concat(F.lit("score "), v.cast("string"),
                                                                            F.lit(" is not finite")))
    if s.kind == "qrels" and not isinstance(s.value_type, T.IntegralType):
        text = F.concat(F.lit("relevance "), v.cast("string"))
        problem = problem.when((v >= F.lit(2.0 ** 63)) | (v < F.lit(-2.0 ** 63)),
                               F.concat(text, F.lit(" is outside the 64-bit range"))).when(
            v % 1 != 0, F.concat(text, F.lit(" is not an integer")))
    return problem


def _lines(s: Side, code: int):
    """The side's lines as (side, query_id, doc_id, problem), ids as text."""
    return s.df.select(F.lit(code).alias("side"), s.ids("query_id").alias("query_id"),
                       s.ids("doc_id").alias("doc_id"), _problem(s).alias("problem"))


def _first(cond: Column, *cols: str) -> Column:
    """The smallest struct of cols among the rows where cond holds (null when none)."""
    return F.min(F.when(cond, F.struct(*cols)))


def _aggregated(qrels: Side, run: Side):
    """The one-row DataFrame of the checks (module docstring)."""
    lines = _lines(qrels, 0).unionByName(_lines(run, 1))
    pairs = lines.groupBy("query_id", "doc_id", "side").agg(
        F.count(F.lit(1)).alias("n"), F.count("problem").alias("bad"), F.min("problem").alias("problem"))
    per_query = pairs.groupBy("query_id").agg(
        *[F.max((F.col("side") == i).cast("int")).alias(f"in_{k}") for i, k in enumerate(SIDES)],
        *[F.sum(F.when(F.col("side") == i, F.col("n"))).alias(f"lines_{k}") for i, k in enumerate(SIDES)],
        *[F.sum(F.when(F.col("side") == i, F.col("bad"))).alias(f"bad_{k}") for i, k in enumerate(SIDES)],
        *[_first((F.col("side") == i) & (F.col("bad") > 0), "doc_id", "problem").alias(f"problem_{k}")
          for i, k in enumerate(SIDES)],
        *[_first((F.col("side") == i) & (F.col("n") > 1), "doc_id", "n").alias(f"twice_{k}")
          for i, k in enumerate(SIDES)])
    both = (F.col("in_qrels") == 1) & (F.col("in_run") == 1)
    return per_query.agg(
        *[F.coalesce(F.sum(f"lines_{k}"), F.lit(0)).alias(f"lines_{k}") for k in SIDES],
        *[F.coalesce(F.sum(f"bad_{k}"), F.lit(0)).alias(f"bad_{k}") for k in SIDES],
        *[_first(F.col(f"problem_{k}").isNotNull(), "query_id", f"problem_{k}").alias(f"problem_{k}") for k in SIDES],
        *[F.count(f"twice_{k}").alias(f"queries_twice_{k}") for k in SIDES],
        *[_first(F.col(f"twice_{k}").isNotNull(), "query_id", f"twice_{k}").alias(f"twice_{k}") for k in SIDES],
        F.sum(both.cast("int")).alias("both"),
        F.sum((F.col("in_run") == 0).cast("int")).alias("only_qrels"),
        F.sum((F.col("in_qrels") == 0).cast("int")).alias("only_run"),
        _first(F.col("in_run") == 0, "query_id").alias("first_only_qrels"),
        _first(F.col("in_qrels") == 0, "query_id").alias("first_only_run"))


def check(qrels: Side, run: Side, missing: str) -> Checked:
    """Run the checks' job: FormatError on the first bad line or duplicate; warnings for one-sided queries."""
    log.info("checking the qrels and the run: ids, scores, grades, duplicates, queries on one side only "
             "(one aggregation)")
    row = _aggregated(qrels, run).collect()[0]
    for s in (qrels, run):
        first = row[f"problem_{s.kind}"]
        if first is not None:
            where, (doc, problem) = first["query_id"], first[f"problem_{s.kind}"]
            n = row[f"bad_{s.kind}"]
            raise FormatError(s.source, None, f"query {where!r} document {doc!r}: {problem} "
                                              f"({n} bad line{'s' if n != 1 else ''} in all)")
        twice = row[f"twice_{s.kind}"]
        if twice is not None:
            where, (doc, n) = twice["query_id"], twice[f"twice_{s.kind}"]
            k = row[f"queries_twice_{s.kind}"]
            raise FormatError(s.source, None, f"duplicate: query {where} document {doc} is there {n} times "
                                              f"({k} quer{'y has' if k == 1 else 'ies have'} a duplicate document)")
    checked = Checked(row["lines_qrels"], row["lines_run"], row["both"] or 0, row["only_qrels"] or 0,
                      row["only_run"] or 0)
    log.info("checked: %d qrels lines, %d run lines; %d queries in both, %d only in the qrels, %d only in the run",
             *checked)
    _warn_one_sided(checked, row, missing)
    return checked


def _outside() -> int:
    """The ``stacklevel`` of a warning issued by the caller that names the first frame outside this package."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("searchgrade.spark"):
        frame, level = frame.f_back, level + 1
    return level


def _warn_one_sided(checked: Checked, row, missing: str) -> None:
    """The warnings of sg.evaluate about queries on one side only (counts and the first id)."""
    n = checked.only_qrels
    if n and missing == "ignore":
        warnings.warn(f"{n} qrels quer{'y is' if n == 1 else 'ies are'} not in the run and "
                      f"{'gets' if n == 1 else 'get'} no row (missing='ignore', as trec_eval does; missing='zero', "
                      f"trec_eval -c, scores {'it' if n == 1 else 'them'} on an empty ranking): the first is "
                      f"{row['first_only_qrels']['query_id']}", UserWarning, stacklevel=_outside())
    n = checked.only_run
    if n:
        warnings.warn(f"{n} run quer{'y has' if n == 1 else 'ies have'} no qrels and "
                      f"{'was' if n == 1 else 'were'} skipped (as trec_eval does): the first is "
                      f"{row['first_only_run']['query_id']}", UserWarning, stacklevel=_outside())
