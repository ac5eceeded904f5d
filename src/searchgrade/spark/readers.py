"""Qrels and runs read by Spark: Parquet as it is, TREC text split into ir_measures' columns.

TREC text follows :mod:`searchgrade.io.text`'s rules: fields separated by C whitespace, blank lines
and ``#`` comment lines skipped, a qrels line of exactly 4 fields ``qid iter docno rel`` (a decimal
integer grade in 64 bits), a run line of at least 6 ``qid iter docno rank score runid`` (a finite
score).  Reading text runs one check job (a scan that stops at the first bad line): a bad line is a
:class:`~searchgrade.io.errors.FormatError` naming the file and quoting the line (Spark does not number
lines).  Gzipped files are read as they are.
"""
from __future__ import annotations

import logging
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from ..io.errors import FormatError, shown

__all__ = ["read_qrels", "read_run"]

log = logging.getLogger("searchgrade.spark")
_SPACE = r"[ \t\r\x0b\x0c]"
_FORMATS = ("parquet", "trec")


def read_qrels(spark: SparkSession, path, *, format: str | None = None) -> DataFrame:
    """Qrels as a Spark DataFrame ``query_id, doc_id, relevance``: from Parquet (``format="parquet"``, or a
    path ending in .parquet or a folder of .parquet files) as stored, else TREC text (checked)."""
    return _read(spark, path, format, "qrels")


def read_run(spark: SparkSession, path, *, format: str | None = None) -> DataFrame:
    """A run as a Spark DataFrame ``query_id, doc_id, score``: from Parquet as stored, else TREC text
    (checked; ``run_id`` holds each line's run id)."""
    return _read(spark, path, format, "run")


def _read(spark: SparkSession, path, format: str | None, kind: str) -> DataFrame:
    """The reader behind read_qrels and read_run."""
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS} or None, not {format!r}")
    path = str(path)
    if (format or _guess(path)) == "parquet":
        log.info("reading %s from Parquet: %s", kind, path)
        return spark.read.parquet(path)
    log.info("reading %s from TREC text: %s (one scan checks every line)", kind, path)
    lines = spark.read.text(path).select(F.col("_metadata.file_path").alias("file"), F.col("value").alias("line"))
    text = F.regexp_replace("line", f"^{_SPACE}+|{_SPACE}+$", "")
    lines = lines.where((text != "") & ~text.startswith("#")).withColumn(
        "fields", F.split(text, f"{_SPACE}+"))
    parsed = _qrels(lines) if kind == "qrels" else _run(lines)
    bad = parsed.where(F.col("problem").isNotNull()).select("file", "line", "problem").limit(1).collect()
    if bad:
        raise FormatError(bad[0]["file"], None, f"line {shown(bad[0]['line'], 60)}: {bad[0]['problem']}")
    return parsed.drop("file", "line", "fields", "problem")


def _guess(path: str) -> str:
    """'parquet' for a .parquet path or a folder holding .parquet files, else 'trec'."""
    p = Path(path)
    if p.suffix == ".parquet" or (p.is_dir() and any(p.glob("*.parquet"))):
        return "parquet"
    return "trec"


def _field(i: int) -> Column:
    """Field i (0-based) of the line, or null when it has fewer."""
    return F.try_element_at("fields", F.lit(i + 1))


def _qrels(lines: DataFrame) -> DataFrame:
    """qid iter docno rel: query_id, doc_id, relevance (long), and the problem of a bad line."""
    grade = _field(3)
    value = F.expr("try_cast(try_element_at(fields, 4) AS BIGINT)")
    problem = F.when(F.size("fields") != 4, F.concat(F.lit("expected 4 fields 'qid iter docno rel', found "),
                                                     F.size("fields").cast("string"))).when(
        ~grade.rlike("^[+-]?[0-9]+$"), F.concat(F.lit("relevance '"), grade, F.lit("' is not an integer"))).when(
        value.isNull(), F.concat(F.lit("relevance "), grade, F.lit(" is outside the 64-bit range")))
    return lines.select("*", _field(0).alias("query_id"), _field(2).alias("doc_id"),
                        F.when(F.size("fields") == 4, value).alias("relevance"), problem.alias("problem"))


def _run(lines: DataFrame) -> DataFrame:
    """qid iter docno rank score runid: query_id, doc_id, score (double), run_id, and the problem of a bad line."""
    score = F.expr("try_cast(try_element_at(fields, 5) AS DOUBLE)")
    number = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
    problem = F.when(F.size("fields") < 6, F.concat(F.lit("expected 6 fields 'qid iter docno rank score runid', "
                                                          "found "), F.size("fields").cast("string"))).when(
        ~_field(4).rlike(number) | score.isNull(), F.concat(F.lit("score '"), _field(4), F.lit("' is not a number"))).when(
        score.isin(float("inf"), float("-inf")), F.concat(F.lit("score "), _field(4), F.lit(" is not finite")))
    ok = F.size("fields") >= 6
    return lines.select("*", _field(0).alias("query_id"), _field(2).alias("doc_id"),
                        F.when(ok, score).alias("score"), F.when(ok, _field(5)).alias("run_id"),
                        problem.alias("problem"))
