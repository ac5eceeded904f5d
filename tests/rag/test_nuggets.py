"""Answers graded by nuggets: TREC RAG 2024's four scores, nuggetizer 0.0.5's values, compare on answers."""
import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.rag import nuggets
from searchgrade.rag.nuggets import NuggetError, NuggetWarning


def nugget(importance, assignment, text="a fact"):
    return {"text": text, "importance": importance, "assignment": assignment}


RECORDS = [
    {"qid": "t1", "run_id": "a", "nuggets": [nugget("vital", "support"), nugget("vital", "partial_support"),
                                             nugget("okay", "support"), nugget("okay", "not_support")]},
    {"qid": "t2", "run_id": "a", "nuggets": [nugget("vital", "not_support"), nugget("okay", "partial_support")]},
    {"qid": "t1", "run_id": "b", "nuggets": [nugget("vital", "support"), nugget("vital", "support"),
                                             nugget("okay", "not_support"), nugget("okay", "not_support")]},
    {"qid": "t2", "run_id": "b", "nuggets": [nugget("vital", "partial_support"), nugget("okay", "support")]},
]


def test_the_four_scores_by_hand():
    table = nuggets.score(RECORDS)
    first = table.iloc[0]
    assert (first["qid"], first["run_id"], first["nuggets"], first["vital_nuggets"]) == ("t1", "a", 4, 2)
    # vital: support + partial = 1.5 of 2; all: 1 + 0.5 + 1 + 0 = 2.5 of 4; strict: support only
    assert first[list(nuggets.SCORES)].tolist() == [0.5, 0.75, 0.5, 0.625]
    assert nuggets.means(table)["all"] == pytest.approx((0.625 + 0.25 + 0.5 + 0.75) / 4)


def test_records_from_a_jsonl_file_keep_their_ids(tmp_path):
    path = tmp_path / "assignments.jsonl"
    path.write_text("".join(json.dumps({**r, "answer_text": "...", "answer_id": f"x{i}"}) + "\n"
                            for i, r in enumerate(RECORDS)), encoding="utf-8")
    table = nuggets.score(path)
    assert list(table.columns[:3]) == ["qid", "run_id", "answer_id"] and "answer_text" not in table
    assert table.equals(nuggets.score([{**r, "answer_id": f"x{i}"} for i, r in enumerate(RECORDS)]))


def test_a_topic_without_vital_nuggets_is_zero_with_a_warning_or_left_out():
    records = RECORDS + [{"qid": "t3", "run_id": "a", "nuggets": [nugget("okay", "support")]},
                         {"qid": "t4", "run_id": "a", "nuggets": []}]
    with pytest.warns(NuggetWarning, match=r"2 answers to 2 topics with no vital nugget were scored 0 on "
                                           r"strict_vital and vital: 't3', 't4'"):
        table = nuggets.score(records)
    assert table.iloc[4][list(nuggets.SCORES)].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert table.iloc[5][list(nuggets.SCORES)].tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.warns(NuggetWarning, match=r"left out \(no_vital='drop'\)"):
        assert len(nuggets.score(records, no_vital="drop")) == 4
    with pytest.raises(ValueError, match="no_vital must be 'zero' or 'drop'"):
        nuggets.score(records, no_vital="skip")


@pytest.mark.parametrize("line, message", [
    ({"qid": "t1", "nuggets": [nugget("vital", "supported")]},
     ":1: nugget 1 ('a fact'): unknown assignment 'supported' (expected support, partial_support, not_support)"),
    ({"qid": "t1", "nuggets": [{"text": "a fact", "importance": "vital"}]},
     ":1: nugget 1 ('a fact') has no assignment (support, partial_support or not_support)"),
    ({"qid": "t1", "nuggets": [nugget("high", "support")]},
     ":1: nugget 1 ('a fact'): unknown importance 'high' (expected vital or okay)"),
    ({"qid": "t1", "nuggets": [{"text": "a fact", "assignment": "support"}]},
     ":1: nugget 1 ('a fact') has no importance (vital or okay)"),
    ({"qid": "t1"}, ":1: missing 'nuggets'"),
    ({"qid": "t1", "nuggets": {"text": "x"}}, ":1: 'nuggets' is a dict, not a list"),
    ({"qid": "t1", "run_id": None, "nuggets": []}, ":1: 'run_id' is not a plain value: None"),
    ([1, 2], ":1: expected an object with 'qid' and 'nuggets', got list"),
])
def test_bad_nugget_files_are_one_line_naming_the_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(NuggetError) as err:
        nuggets.score(path)
    assert str(err.value) == f"{path}{message}"


def test_bad_records_in_memory_name_their_index():
    with pytest.raises(NuggetError, match=r"^records\[1\]: nugget 1 \('a fact'\): unknown importance"):
        nuggets.score([RECORDS[0], {"qid": "t", "nuggets": [nugget("must", "support")]}])
    with pytest.raises(TypeError, match="records must be a list"):
        nuggets.score({"qid": "t"})
    with pytest.raises(NuggetError, match="no assignment records"):
        nuggets.score([])


def test_per_topic_scores_go_into_compare():
    per_topic = nuggets.per_topic(nuggets.score(RECORDS))
    assert list(per_topic) == ["a", "b"] and per_topic["a"].index.tolist() == ["t1", "t2"]
    report = sg.compare(None, per_topic, ["all", "vital"], test="t")
    assert report.means.loc["a", "all"] == pytest.approx((0.625 + 0.25) / 2)
    assert list(report.tests["measure"]) == ["all", "vital"] and "p_adjusted" in report.tests
    assert "all" in report.to_markdown()
    with pytest.raises(ValueError, match="run 'a' answers topic 't1' more than once"):
        nuggets.per_topic(nuggets.score(RECORDS + [RECORDS[0]]))


# ----------------------------------------------------------------------------- nuggetizer 0.0.5

LABELS = st.fixed_dictionaries({"text": st.text(max_size=5), "importance": st.sampled_from(nuggets.IMPORTANCE),
                                "assignment": st.sampled_from(list(nuggets.ASSIGNMENTS))})
RECORD_LISTS = st.lists(st.fixed_dictionaries({"qid": st.sampled_from(["1", "2", "3", "4"]),
                                               "run_id": st.sampled_from(["r1", "r2"]),
                                               "nuggets": st.lists(LABELS, max_size=12)}), min_size=1, max_size=12)


@pytest.mark.peers
@settings(max_examples=300, deadline=None)
@given(RECORD_LISTS)
def test_nuggetizer_0_0_5_metrics_on_generated_records(records):
    from nuggetizer.core import metrics

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NuggetWarning)
        table = nuggets.score(records)
    for (_, row), record in zip(table.iterrows(), records):
        theirs = metrics.calculate_nugget_scores(record["qid"], record["nuggets"])
        for column in nuggets.SCORES:
            assert row[column] == pytest.approx(getattr(theirs, f"{column}_score"), abs=1e-12)
    overall = metrics.calculate_global_metrics(records)
    for column, value in nuggets.means(table).items():
        assert value == pytest.approx(overall[f"{column}_score"], abs=1e-12)


@pytest.mark.peers
def test_the_oracle_module_imports_no_llm_client():
    import subprocess
    import sys

    code = "import sys, nuggetizer.core.metrics; print(sorted({'openai', 'tiktoken'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


# ----------------------------------------------------------------------------- the book's small nugget set

NUGGET_SET = Path(__file__).resolve().parents[2] / "data" / "evalset" / "nuggets"


def test_the_books_nugget_set_is_consistent():
    from searchgrade.io.jsonl import read_jsonl
    from searchgrade.rag import load_items

    items = {it["id"]: it for it in load_items(NUGGET_SET.parent / "items.jsonl")}
    topics = {r["qid"]: r for _, r in read_jsonl(NUGGET_SET / "nuggets.jsonl")}
    records = nuggets.load_records(NUGGET_SET / "assignments.jsonl")
    for qid, topic in topics.items():
        assert topic["query"] == items[qid]["user_input"]
        assert any(n["importance"] == "vital" for n in topic["nuggets"])
    pairs = [(r["run_id"], r["qid"]) for r in records]
    assert len(set(pairs)) == len(pairs) == 2 * len(topics)
    for record in records:
        assert record["query"] == topics[record["qid"]]["query"]
        kept = [{k: n[k] for k in ("text", "importance")} for n in record["nuggets"]]
        assert kept == topics[record["qid"]]["nuggets"]
    readme = (NUGGET_SET / "README.md").read_text(encoding="utf-8")
    assert "one AI coding session" in readme and "no person reviewing" in readme
