"""Bad input is refused before the job, with one line naming the DataFrame and what is wrong: a wrong
schema, scores that are not numbers (or not finite), grades that are not integers, missing ids, and a
document twice in one query (the query named, as the file readers name it)."""
from __future__ import annotations

import pandas as pd
import pytest

# pyspark 4 warns that it does not fully support pandas 3 (the venv's) and calls a deprecated pandas
# keyword in toPandas; these tests check what it does
pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning"),
              pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")]
sgs = pytest.importorskip("searchgrade.spark")
from searchgrade.io.errors import FormatError  # noqa: E402

QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 0.5]})


def _refused(spark, qrels: pd.DataFrame, run: pd.DataFrame, message: str, schema=(None, None), **kw) -> str:
    q = spark.createDataFrame(qrels, schema=schema[0])
    r = spark.createDataFrame(run, schema=schema[1])
    with pytest.raises(FormatError, match=message) as err:
        sgs.evaluate(q, r, ["AP"], **kw)
    assert "\n" not in str(err.value)  # one line
    return str(err.value)


def test_good_input_passes(spark):
    table = sgs.evaluate(spark.createDataFrame(QRELS), spark.createDataFrame(RUN), ["AP"])
    assert table.columns == ["query_id", "AP"]


def test_a_missing_column_is_named_with_the_way_to_name_another(spark):
    text = _refused(spark, QRELS, RUN.rename(columns={"score": "bm25"}), r"run DataFrame: no column 'score'")
    assert "run_columns={'score': ...}" in text
    _refused(spark, QRELS, RUN, r"qrels DataFrame: no column 'grade' for the relevance",
             qrels_columns={"relevance": "grade"})


def test_scores_that_are_not_numbers_are_refused(spark):
    _refused(spark, QRELS, RUN.assign(score=["2.0", "high", "0.5"]),
             r"run DataFrame: column 'score' \(score\) is string, not numeric: scores must be numbers")
    _refused(spark, QRELS, RUN.assign(score=[2.0, None, 0.5]),  # pandas' NaN arrives as null too
             r"run DataFrame: query 'q1' document 'b': score is missing \(null\) \(1 bad line in all\)")
    nan = spark.createDataFrame([("q1", "a", 2.0), ("q1", "b", float("nan"))], "query_id string, doc_id string, "
                                "score double")
    with pytest.raises(FormatError, match=r"query 'q1' document 'b': score is missing \(NaN\)"):
        sgs.evaluate(spark.createDataFrame(QRELS), nan, ["AP"])
    _refused(spark, QRELS, RUN.assign(score=[2.0, float("inf"), 0.5]), r"query 'q1' document 'b': score .* is not finite")


def test_grades_that_are_not_integers_are_refused(spark):
    _refused(spark, QRELS.assign(relevance=[1.0, 0.5, 2.0]), RUN,
             r"qrels DataFrame: query 'q1' document 'b': relevance 0.5 is not an integer")
    _refused(spark, QRELS.assign(relevance=["1", "0", "2"]), RUN,
             r"qrels DataFrame: column 'relevance' \(relevance\) is string, not numeric: grades must be integers")
    whole = QRELS.assign(relevance=[1.0, 0.0, 2.0])  # whole numbers in a double column are grades
    assert sgs.evaluate(spark.createDataFrame(whole), spark.createDataFrame(RUN), ["AP"]).columns[1] == "AP"


def test_missing_ids_and_ids_of_other_types_are_refused(spark):
    _refused(spark, QRELS, RUN.assign(doc_id=["a", None, "c"]), r"run DataFrame: query 'q1' document None: "
                                                                  r"doc_id is missing \(null\)")
    _refused(spark, QRELS.assign(query_id=[1.5, 1.5, 2.0]), RUN,
             r"qrels DataFrame: column 'query_id' \(query_id\) is double; ids must be strings or integers")


def test_a_document_twice_in_a_query_is_refused_naming_the_query(spark):
    twice = pd.concat([RUN, RUN.iloc[[2]].assign(score=0.1)], ignore_index=True)
    _refused(spark, QRELS, twice, r"run DataFrame: duplicate: query q2 document c is there 2 times "
                                  r"\(1 query has a duplicate document\)")
    _refused(spark, pd.concat([QRELS, QRELS.iloc[[0]]]), RUN, r"qrels DataFrame: duplicate: query q1 document a")


def test_a_pandas_frame_is_not_a_spark_one():
    with pytest.raises(TypeError, match="qrels must be a Spark DataFrame"):
        sgs.evaluate(QRELS, RUN, ["AP"])
