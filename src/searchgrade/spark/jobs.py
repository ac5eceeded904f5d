"""The Spark job: per-query values in the executors, partial summaries merged on the driver.

:func:`evaluate` checks the inputs (:mod:`.checks`, one aggregation), puts the qrels and the run lines
into one DataFrame, partitions it by query and sorts each partition by query; each executor then reads
its partition a batch at a time (``mapInPandas``), cuts it into blocks of whole queries and calls the
engine (:class:`searchgrade.Evaluator`, the one behind ``sg.evaluate``) on each block.  The per-query
table comes back as a Spark DataFrame, never to the driver.  :func:`summarize` turns each partition of
such a table into a :class:`~searchgrade.measures.summary.PartialSummary` in the executors and merges
those few partials on the driver; :func:`mean` is the two in one call.
"""
from __future__ import annotations

import logging
import warnings
from typing import Iterable, Iterator, Mapping

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..measures.engine import Evaluator, plan
from ..measures.names import Measure, is_ir_measure, parse_measure
from ..measures.options import Options
from ..measures.registry import FAMILIES
from ..measures.summary import PartialSummary
from .checks import check
from .columns import Side, side

__all__ = ["evaluate", "mean", "summarize", "LINES_PER_BLOCK"]

log = logging.getLogger("searchgrade.spark")

#: An executor scores this many lines (qrels and run) of whole queries in one call of the engine.
LINES_PER_BLOCK = 1 << 17
QUERY = "query_id"


def evaluate(qrels: DataFrame, run: DataFrame, measures: Iterable | str, *, qrels_columns: Mapping | None = None,
             run_columns: Mapping | None = None, partitions: int | None = None, **options) -> DataFrame:
    """Per-query values of a run, computed in the executors: a Spark DataFrame with the query id (text, in
    a column named ``query_id``) and one column per measure, named by its printed name (as ``sg.evaluate``'s).

    ``qrels`` and ``run`` are Spark DataFrames with ir_measures' columns (``query_id, doc_id,
    relevance`` and ``query_id, doc_id, score``) or others named by role (``run_columns={"score":
    "bm25"}``).  Ids are strings or integers (written in decimal, as ``sg.evaluate`` reads a pandas
    DataFrame), grades integers (or whole numbers), scores finite numbers.  The options are
    ``sg.evaluate``'s (``missing``, ``rel_level``, ``judged_only``, ``max_docs``, ``ties`` "trec" or
    "expected"); ``ties="input"`` is refused (Spark keeps no row order across a shuffle), and so are
    the diversity measures (they need subtopic qrels).  ``partitions`` sets how many partitions the
    queries are spread over (default: Spark's ``spark.sql.shuffle.partitions``, coalesced by adaptive
    execution).  Bad input is a FormatError before the job runs; the checks run one aggregation.
    """
    opts, planned, parsed = _options(measures, options)
    if partitions is not None and (isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1):
        raise ValueError(f"partitions must be a positive integer or None, not {partitions!r}")
    q_side, r_side = side(qrels, "qrels", qrels_columns), side(run, "run", run_columns)
    check(q_side, r_side, opts.missing)
    lines = _union(q_side, r_side)
    lines = lines.repartition(partitions, QUERY) if partitions else lines.repartition(QUERY)
    schema = _schema(planned, opts)
    log.info("evaluating %d measure%s per query in the executors when the table is read: lines partitioned by "
             "query, about %d per engine call", len(planned), "s" if len(planned) != 1 else "", LINES_PER_BLOCK)
    kwargs = {"ties": opts.ties, "missing": opts.missing, "rel_level": opts.rel_level,
              "judged_only": opts.judged_only, "max_docs": opts.max_docs}
    names = [m.name for m in planned]

    def score_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for block in _blocks(batches):
            yield _score(block, parsed, kwargs, names, schema)

    return lines.sortWithinPartitions(QUERY).mapInPandas(score_partition, schema)


def mean(qrels: DataFrame, run: DataFrame, measures: Iterable | str, *, summation: str = "exact",
         **options) -> pd.Series:
    """The summary of :func:`evaluate` (options as it takes them), as ``sg.mean`` gives it: a pandas Series.

    The executors sum their queries exactly (:class:`~searchgrade.measures.summary.PartialSummary`); the
    driver merges one partial per partition.  So the result equals ``sg.mean(..., summation="exact")``
    on the same data bit for bit, and ``sg.mean``'s default (trec_eval's sequential sum) within 1e-12
    and at trec_eval's printed precision but where a mean lies on a rounding boundary of its fourth
    decimal (see :mod:`searchgrade.measures.summary`).  ``summation="trec"`` is refused: a sequential
    sum in one order cannot be split across executors.
    """
    if summation != "exact":
        raise ValueError(f"summation={summation!r}: searchgrade.spark sums exactly (summation='exact'); trec_eval's "
                         "sequential sum in its query order cannot be split across executors")
    table = evaluate(qrels, run, measures, **options)
    return summarize(table, [c for c in table.columns if c != QUERY])


def summarize(table: DataFrame, measures: Iterable | None = None) -> pd.Series:
    """The summary of a per-query table (:func:`evaluate`'s, or any with measure-named columns), exact:
    each partition's :class:`~searchgrade.measures.summary.PartialSummary` is made in the executors and
    the driver merges them.  ``measures``: the columns to summarise (default: every measure column)."""
    columns = [c for c in table.columns if c != QUERY] if measures is None else list(measures)
    aggs = {c: _measure_of(c, table.columns).agg for c in columns}

    def partial(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        part = PartialSummary.empty(aggs)
        for batch in batches:
            part = part + PartialSummary.of(aggs, {c: batch[f"c{i}"].to_numpy() for i, c in enumerate(aggs)})
        yield pd.DataFrame({"partial": [part.to_json()]})

    # columns by position: mapInPandas looks its input columns up by name, which fails on a dot ("RBP(p=0.8)")
    values = table.select(*[F.col(f"`{c}`").alias(f"c{i}") for i, c in enumerate(aggs)])
    log.info("summarising %d column%s: a partial summary per partition in the executors", len(columns),
             "s" if len(columns) != 1 else "")
    parts = [PartialSummary.from_json(row["partial"]) for row in values.mapInPandas(partial, "partial string").collect()]
    log.info("merging %d partial summaries on the driver", len(parts))
    return PartialSummary.empty(aggs).merge(*parts).series()


# --------------------------------------------------------------------------- the driver's side
def _options(measures, options: dict) -> tuple[Options, list[Measure], list[Measure]]:
    """(the options checked, the measures as the engine names them, as parsed) or a ValueError / TypeError."""
    unknown = set(options) - {"ties", "missing", "rel_level", "judged_only", "max_docs"}
    if unknown:
        raise TypeError(f"searchgrade.spark.evaluate got unknown option(s) {sorted(unknown)}")
    opts = Options(**options)
    if opts.ties == "input":
        raise ValueError("ties='input' keeps the run's row order, which Spark does not keep across a shuffle; "
                         "use ties='trec' (trec_eval's order) or ties='expected'")
    if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
        measures = [measures]
    parsed = [parse_measure(m) for m in measures]
    planned = plan(parsed, opts)
    diversity = [m.name for m in planned if FAMILIES[m.family].subtopics]
    if diversity:
        raise ValueError(f"measure {diversity[0]!r} needs subtopic qrels, which searchgrade.spark does not read; "
                         "use sg.evaluate")
    return opts, planned, parsed


def _measure_of(column: str, columns: list) -> Measure:
    """The measure a column of a per-query table holds (KeyError or ValueError naming the column)."""
    if column not in columns:
        raise KeyError(f"summarize: no column {column!r}; the columns are {columns}")
    return parse_measure(column)


def _schema(planned: list[Measure], opts: Options) -> T.StructType:
    """The per-query table's schema: the query id, then a long per count (double under ties='expected'), a
    double per other measure."""
    def kind(m: Measure):
        return T.LongType() if FAMILIES[m.family].integer and opts.ties != "expected" else T.DoubleType()
    return T.StructType([T.StructField(QUERY, T.StringType(), False)]
                        + [T.StructField(m.name, kind(m), True) for m in planned])


def _union(qrels: Side, run: Side) -> DataFrame:
    """Both inputs' lines in one DataFrame: side (0 qrels, 1 run), query_id, doc_id, relevance, score."""
    def lines(s: Side, code: int) -> DataFrame:
        grade = s.col("relevance").cast("long") if code == 0 else F.lit(0).cast("long")
        score = s.col("score").cast("double") if code == 1 else F.lit(0.0)
        return s.df.select(F.lit(code).cast("byte").alias("side"), s.ids("query_id").alias(QUERY),
                           s.ids("doc_id").alias("doc_id"), grade.alias("relevance"), score.alias("score"))
    return lines(qrels, 0).unionByName(lines(run, 1))


# --------------------------------------------------------------------------- the executors' side
def _blocks(batches: Iterator[pd.DataFrame], lines: int = LINES_PER_BLOCK) -> Iterator[pd.DataFrame]:
    """Blocks of whole queries from batches of a partition sorted by query: about ``lines`` lines each
    (a query is never cut; one query larger than that is a block of its own)."""
    done: list[pd.DataFrame] = []
    size, pending = 0, None
    for batch in batches:
        if batch.empty:
            continue
        if pending is not None:
            batch = pd.concat([pending, batch], ignore_index=True)
        ids = batch[QUERY].to_numpy()
        cut = int(np.flatnonzero(ids != ids[-1])[-1]) + 1 if (ids != ids[-1]).any() else 0
        done.append(batch.iloc[:cut])
        size += cut
        pending = batch.iloc[cut:]
        if size >= lines:
            yield pd.concat(done, ignore_index=True)
            done, size = [], 0
    if pending is not None:
        done.append(pending)
    if size or pending is not None:
        yield pd.concat(done, ignore_index=True)


def _score(block: pd.DataFrame, measures: list, options: dict, names: list, schema: T.StructType) -> pd.DataFrame:
    """The engine on one block of whole queries: one row per query that gets one, columns as in schema."""
    qrels = block.loc[block["side"] == 0, [QUERY, "doc_id", "relevance"]]
    run = block.loc[block["side"] == 1, [QUERY, "doc_id", "score"]]
    if qrels.empty or (run.empty and options["missing"] == "ignore"):
        table = pd.DataFrame({name: [] for name in names}, index=pd.Index([], name="qid"))
    else:
        if run.empty:  # missing="zero": each judged query scores on an empty ranking (an empty run is refused)
            run = {q: {} for q in qrels[QUERY].unique().tolist()}
        with warnings.catch_warnings():  # one-sided queries: counted and reported on the driver
            warnings.simplefilter("ignore", UserWarning)
            table = Evaluator(qrels, measures, **options).evaluate(run)
    out = {QUERY: table.index.astype(str).to_numpy(dtype=object)}
    for field in schema.fields[1:]:
        out[field.name] = table[field.name].to_numpy(
            dtype=np.int64 if isinstance(field.dataType, T.LongType) else np.float64)
    return pd.DataFrame(out)
