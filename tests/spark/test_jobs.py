"""searchgrade.spark against sg.evaluate and sg.mean on the same generated data (ties, grades, queries on
one side only): the same value per query, the same summary as the exact summation bit for bit, within
1e-12 of the default one; options passed on or refused with one line."""
from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg
from searchgrade.measures.registry import FAMILIES

# pyspark 4 warns that it does not fully support pandas 3 (the venv's) and calls a deprecated pandas
# keyword in toPandas; these tests check what it does
pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning"),
              pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")]
sgs = pytest.importorskip("searchgrade.spark")

MEASURES = ["AP", "GMAP", "nDCG@10", "P@5", "RR", "Rprec", "bpref", "NumRel", "NumRet", "NumRelRet",
            "RBP(p=0.8)", "ERR@10", "recall@20"]
# those with a closed form under ties="expected"
EXPECTED = [m for m in MEASURES if FAMILIES[sg.parse_measure(m).family].expected]
OPTIONS = [{}, {"missing": "zero", "rel_level": 2}, {"judged_only": True, "max_docs": 7},
           {"ties": "expected", "missing": "zero"}]


def _quiet(f, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return f(*args, **kw)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_per_query_values_equal_sg_evaluate(data, options):
    qrels, run, q, r = data
    measures = MEASURES if options.get("ties") != "expected" else EXPECTED
    want = _quiet(sg.evaluate, qrels, run, measures, **options)
    table = _quiet(sgs.evaluate, q, r, measures, partitions=3, **options)
    got = table.toPandas().set_index("query_id").loc[list(want.index)]  # the test reads the small table back
    assert len(got) == table.count() == len(want)
    for name in want.columns:
        assert got[name].dtype == want[name].dtype, name
        np.testing.assert_array_equal(got[name].to_numpy(), want[name].to_numpy(), err_msg=name)


def test_the_summary_equals_sg_mean_exact_bit_for_bit_and_the_default_within_1e_12(data):
    qrels, run, q, r = data
    got = _quiet(sgs.mean, q, r, MEASURES, missing="zero", partitions=7)
    exact = _quiet(sg.mean, qrels, run, MEASURES, missing="zero", summation="exact")
    pd.testing.assert_series_equal(got, exact, check_exact=True)
    sequential = _quiet(sg.mean, qrels, run, MEASURES, missing="zero")
    for name in MEASURES:
        assert abs(got[name] - sequential[name]) <= 1e-12 and f"{got[name]:.4f}" == f"{sequential[name]:.4f}", name
    assert isinstance(got["NumRet"], int) and got["NumRet"] == sequential["NumRet"]


def test_summarize_a_table_with_other_names_and_integer_ids(spark, data):
    qrels, run, _, _ = data
    numeric = {qid: i for i, qid in enumerate(sorted(set(qrels.query_id) | set(run.query_id)))}
    qrels = qrels.assign(query_id=qrels.query_id.map(numeric)).rename(columns={"relevance": "label"})
    run = run.assign(query_id=run.query_id.map(numeric)).rename(columns={"doc_id": "docno", "score": "bm25"})
    table = _quiet(sgs.evaluate, spark.createDataFrame(qrels), spark.createDataFrame(run), ["AP", "NumRet"],
                   qrels_columns={"relevance": "label"}, run_columns={"doc_id": "docno", "score": "bm25"})
    want = _quiet(sg.evaluate, sg.as_qrels(qrels, columns={"relevance": "label"}),
                  sg.as_run(run, columns={"doc_id": "docno", "score": "bm25"}), ["AP", "NumRet"])
    assert sorted(table.toPandas().query_id) == sorted(want.index)  # ids as text, "12" for 12
    pd.testing.assert_series_equal(sgs.summarize(table, ["AP"]), sg.aggregate(want, ["AP"], summation="exact"),
                                   check_exact=True)


def test_each_stage_is_logged_and_one_sided_queries_warned_about(data, caplog):
    _, _, q, r = data
    with caplog.at_level(logging.INFO, logger="searchgrade.spark"), pytest.warns(UserWarning) as caught:
        sgs.mean(q, r, ["AP"])
    stages = [rec.getMessage() for rec in caplog.records if rec.name == "searchgrade.spark"]
    assert any(s.startswith("checking") for s in stages) and any(s.startswith("evaluating") for s in stages)
    assert any(s.startswith("merging") for s in stages)
    caught = [w for w in caught if w.category is UserWarning]  # not pyspark's FutureWarnings about pandas 3
    texts = [str(w.message) for w in caught]
    assert any("qrels queries are not in the run" in t for t in texts)
    assert any("run queries have no qrels and were skipped" in t for t in texts)
    assert all(w.filename == __file__ for w in caught)  # the warnings name the caller's line


@pytest.mark.parametrize("kwargs, message", [
    ({"ties": "input"}, "ties='input' keeps the run's row order, which Spark does not keep"),
    ({"summation": "trec"}, "cannot be split across executors"),
    ({"cutoff": 3}, r"unknown option\(s\) \['cutoff'\]"),
    ({"missing": "drop"}, "missing must be one of"),
    ({"partitions": 0}, "partitions must be a positive integer or None, not 0"),
])
def test_options_that_cannot_work_are_refused_before_any_job(data, kwargs, message):
    _, _, q, r = data
    with pytest.raises((ValueError, TypeError), match=message):
        sgs.mean(q, r, ["AP"], **kwargs)


def test_diversity_measures_are_refused(data):
    _, _, q, r = data
    with pytest.raises(ValueError, match="needs subtopic qrels"):
        sgs.evaluate(q, r, ["alpha_nDCG@10"])


def test_blocks_hold_whole_queries_in_the_partition_order():
    from searchgrade.spark.jobs import _blocks

    ids = np.repeat([f"q{i:02d}" for i in range(30)], np.arange(30) % 5 + 1)  # queries of 1 to 5 lines
    frame = pd.DataFrame({"query_id": ids, "n": np.arange(len(ids))})
    batches = [frame.iloc[i: i + 4] for i in range(0, len(frame), 4)]  # batches cut across queries
    blocks = list(_blocks(iter(batches), lines=6))
    assert len(blocks) > 5
    pd.testing.assert_frame_equal(pd.concat(blocks, ignore_index=True), frame)
    seen = [set(b.query_id) for b in blocks]
    assert all(not (a & b) for i, a in enumerate(seen) for b in seen[i + 1:])  # no query in two blocks
    assert list(_blocks(iter([]))) == []


def test_a_partition_with_judged_queries_and_no_run_line_scores_them_zero(spark):
    """missing="zero": a block holding only qrels queries scores each on an empty ranking (the engine refuses
    an empty run, so the block passes every query with an empty ranking)."""
    qrels = {f"q{i}": {"a": 1, "b": 2} for i in range(12)}
    run = {"q0": {"a": 2.0, "x": 1.0}}
    q = spark.createDataFrame([(k, d, g) for k, docs in qrels.items() for d, g in docs.items()],
                              "query_id string, doc_id string, relevance long")
    r = spark.createDataFrame([(k, d, s) for k, docs in run.items() for d, s in docs.items()],
                              "query_id string, doc_id string, score double")
    want = _quiet(sg.evaluate, qrels, run, ["AP", "nDCG@10"], missing="zero")
    got = _quiet(sgs.evaluate, q, r, ["AP", "nDCG@10"], missing="zero", partitions=6).toPandas()
    got = got.set_index("query_id").loc[list(want.index)]
    np.testing.assert_array_equal(got["AP"].to_numpy(), want["AP"].to_numpy())
    assert len(got) == 12 and (got["AP"].iloc[1:] == 0).all()
