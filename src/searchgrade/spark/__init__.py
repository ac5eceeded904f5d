"""Evaluation of Spark DataFrames of qrels and runs (the ``spark`` extra, pyspark 4): the per-query table in
the executors, the summary merged from partial summaries on the driver.

::

    from searchgrade import spark as sgs

    qrels = sgs.read_qrels(session, "qrels.parquet")        # or TREC text; any DataFrame with
    run = sgs.read_run(session, "runs/bm25/")               # query_id, doc_id, relevance / score
    table = sgs.evaluate(qrels, run, ["nDCG@10", "AP"])     # a Spark DataFrame, one row per query
    sgs.mean(qrels, run, ["nDCG@10", "AP"])                 # pandas Series, = sg.mean(summation="exact")

The executors must run a Python that has searchgrade, numpy and pandas: in local mode set
``PYSPARK_PYTHON`` to this interpreter (``sys.executable``) before the session starts.  Logs go to the
``searchgrade.spark`` logger, one line per stage.

==================  ==========================================================================
module              what it holds
==================  ==========================================================================
:mod:`.jobs`        :func:`evaluate`, :func:`mean`, :func:`summarize`: the job and the merge
:mod:`.checks`      the refusals before the job: one aggregation (bad lines, duplicates, queries
                    on one side only)
:mod:`.columns`     the inputs' columns by role (ir_measures' names by default) and their types
:mod:`.readers`     :func:`read_qrels`, :func:`read_run`: Parquet or TREC text
==================  ==========================================================================

To add an option of ``sg.evaluate`` here, pass it on in :func:`.jobs.evaluate` (the executors call the
engine with it) or refuse it in ``jobs._options`` with the reason; to add a check, give it a column in
``checks._aggregated`` (the one job) and its message in :func:`.checks.check`.

Nothing in the core imports this package (tests/test_layout.py).
"""
from __future__ import annotations

from .columns import QRELS_COLUMNS, RUN_COLUMNS
from .jobs import evaluate, mean, summarize
from .readers import read_qrels, read_run

__all__ = ["evaluate", "mean", "summarize", "read_qrels", "read_run", "QRELS_COLUMNS", "RUN_COLUMNS"]
