"""One local Spark session (``local[2]``) for the whole Spark suite, and the generated data it evaluates.

The executors must run this interpreter (``PYSPARK_PYTHON=sys.executable``): another Python finds no
numpy, pandas or searchgrade.  The session is started once per test session (a JVM start takes seconds).
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="session")
def spark():
    """A SparkSession in local mode on two cores, quiet, with few shuffle partitions."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("searchgrade-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               # small Arrow batches: queries cross batch boundaries, as they do at scale
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "16").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def generated(seed: int = 7, queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) as pandas DataFrames with ir_measures' columns: graded qrels (-1 .. 3), tied scores,
    queries only in the qrels and only in the run, ids that sort differently as text and as numbers."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        qid = str(q) if q % 4 == 0 else f"q{q}"
        docs = [f"d{i}" for i in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)]
        if q % 9 != 5:  # q5, q14, ...: in the run only
            judged = rng.choice(docs + ["x1", "x2"], size=min(len(docs), int(rng.integers(1, 12))), replace=False)
            qrels += [(qid, str(d), int(rng.integers(-1, 4))) for d in judged]
        if q % 9 != 3:  # q3, q12, ...: in the qrels only
            run += [(qid, d, float(rng.integers(0, 6)) / 2) for d in docs]  # few values: ties
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


@pytest.fixture(scope="session")
def generate():
    """The generator of qrels and runs (:func:`generated`), for tests that write their own files."""
    return generated


@pytest.fixture(scope="session")
def data(spark):
    """The generated qrels and run, as pandas DataFrames and as Spark DataFrames."""
    qrels, run = generated()
    return qrels, run, spark.createDataFrame(qrels), spark.createDataFrame(run)
