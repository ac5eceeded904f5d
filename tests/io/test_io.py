"""Tests for searchgrade.io: round trips, trec_eval order, the real fixtures and every bad input."""
from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchgrade.io import (
    FormatError,
    InputWarning,
    parse_qrels,
    parse_run,
    read_qrels,
    read_run,
    write_qrels,
    write_run,
)
from tests.support.trec_texts import QRELS_BAD, RUN_BAD
from tests.support.examples import examples

RAW = Path(__file__).resolve().parents[2] / "data" / "raw" / "trec_eval_test"


def write_text(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- good input


def test_parse_qrels_basic_and_negative_grades():
    text = "1 0 d1 2\n\n1 0 d2 -1\n2\t0\td1  0\n"
    assert parse_qrels(text) == {"1": {"d1": 2, "d2": -1}, "2": {"d1": 0}}


def test_parse_run_keeps_file_order_and_runid_of_first_line():
    lines = ["q1 Q0 b 1 0.5 first", "q1 Q0 a 2 0.5 second", "q0 Q0 c 1 -3e2 second"]
    with pytest.warns(InputWarning, match=r"2 different run ids \(first, second\)"):
        run, name = parse_run(lines, with_name=True)
    assert name == "first"
    assert list(run) == ["q1", "q0"]
    assert list(run["q1"]) == ["b", "a"]
    assert run["q0"]["c"] == -300.0
    assert parse_run(lines, warn=False) == run


def test_crlf_and_bom_are_accepted(tmp_path):
    path = tmp_path / "win.qrels"
    path.write_bytes(b"\xef\xbb\xbf1 0 d1 1\r\n1 0 d2 0\r\n")
    assert read_qrels(path) == {"1": {"d1": 1, "d2": 0}}


def test_path_like_and_str_both_work(tmp_path):
    path = write_text(tmp_path, "r.run", "q 0 d 1 1.0 x\n")
    assert read_run(path) == read_run(str(path)) == {"q": {"d": 1.0}}


def test_write_run_uses_trec_eval_order_ranks_and_depth(tmp_path):
    run = {"q2": {"a": 1.0, "c": 2.0, "b": 2.0, "d": 0.5}, "q10": {"x": 0.25}}
    path = tmp_path / "out" / "r.run"  # the parent folder is created
    write_run(run, path, name="bm25", depth=3)
    lines = path.read_text(encoding="utf-8").splitlines()
    # query ids in plain string order; ties at 2.0 broken by docno descending (c before b)
    assert lines == [
        "q10 Q0 x 1 0.25 bm25",
        "q2 Q0 c 1 2.0 bm25",
        "q2 Q0 b 2 2.0 bm25",
        "q2 Q0 a 3 1.0 bm25",
    ]
    assert read_run(path, with_name=True)[1] == "bm25"


def test_write_run_round_trip_is_exact(tmp_path):
    run = {
        "q1": {"d1": 0.1 + 0.2, "d2": 1 / 3, "d3": -1e-300, "d4": 5e-324, "d5": 1.7976931348623157e308},
        "q2": {"문서-1": 123456789.123456789, "d2": 0.0},
    }
    path = tmp_path / "r.run"
    write_run(run, path)
    back = read_run(path)
    assert back == run
    for qid in run:
        for docno, score in run[qid].items():
            assert back[qid][docno].hex() == score.hex()


def test_write_run_accepts_numpy_and_int_scores(tmp_path):
    np = pytest.importorskip("numpy")
    run = {"q": {"a": np.float32(0.1), "b": np.float64(0.7), "c": 3}}
    write_run(run, tmp_path / "r.run")
    back = read_run(tmp_path / "r.run")
    assert back == {"q": {"c": 3.0, "b": 0.7, "a": float(np.float32(0.1))}}
    assert all(type(v) is float for v in back["q"].values())


def test_write_qrels_round_trip(tmp_path):
    qrels = {"2": {"d9": 0, "d1": 3}, "1": {"한국어": -1, "d2": 1}}
    path = tmp_path / "q.qrels"
    write_qrels(qrels, path)
    expected = ["1 0 한국어 -1", "1 0 d2 1", "2 0 d9 0", "2 0 d1 3"]
    assert path.read_text(encoding="utf-8").splitlines() == expected
    assert read_qrels(path) == qrels


@settings(max_examples=examples(60), deadline=None)
@given(
    st.dictionaries(
        st.text("abcXYZ09-_.:", min_size=1, max_size=6),
        st.dictionaries(
            st.text("abcdef0123-/#가나", min_size=1, max_size=8),
            st.floats(allow_nan=False, allow_infinity=False),
            min_size=1,
            max_size=20,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_run_round_trip_property(tmp_path_factory, run):
    path = tmp_path_factory.mktemp("rt") / "r.run"
    write_run(run, path)
    back = read_run(path)
    assert back == run
    for qid, docs in back.items():
        # file order is trec_eval order: score descending, ties by docno descending (stable sorts)
        by_docno = sorted(docs.items(), key=lambda kv: kv[0], reverse=True)
        assert list(docs.items()) == sorted(by_docno, key=lambda kv: kv[1], reverse=True)
        for docno, score in docs.items():
            assert score.hex() == run[qid][docno].hex()  # exact, -0.0 included


# --------------------------------------------------------------------------- the trec_eval fixtures


def test_trec_eval_fixture_qrels_counts():
    qrels = read_qrels(RAW / "qrels.test")
    assert sorted(qrels) == ["301", "302", "303"]
    assert sum(len(docs) for docs in qrels.values()) == 3681
    assert sum(grade > 0 for docs in qrels.values() for grade in docs.values()) == 561


def test_trec_eval_fixture_run_counts_and_name():
    run, name = read_run(RAW / "results.test", with_name=True)
    assert name == "STANDARD"
    assert sorted(run) == ["301", "302", "303"]
    assert sum(len(docs) for docs in run.values()) == 1500
    first = next(iter(run["301"].items()))
    assert first == ("FR940202-2-00150", 2.129133)


def test_graded_fixture_reads():
    qrels = read_qrels(RAW / "qrels.rel_level")
    assert sum(len(docs) for docs in qrels.values()) == 3681
    assert max(g for docs in qrels.values() for g in docs.values()) >= 2


# --------------------------------------------------------------------------- bad input


def assert_format_error(err: FormatError, path: Path, line: int | None, *words: str) -> None:
    message = str(err)
    assert path.name in message
    assert err.path == str(path)
    assert err.line == line
    if line is not None:
        assert message.startswith(f"{path}:{line}: ")
    else:
        assert message.startswith(f"{path}: ")
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize("text, line, words", QRELS_BAD)
def test_bad_qrels_lines(tmp_path, text, line, words):
    path = write_text(tmp_path, "bad.qrels", text)
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert_format_error(info.value, path, line, *words)


@pytest.mark.parametrize("text, line, words", RUN_BAD)
def test_bad_run_lines(tmp_path, text, line, words):
    path = write_text(tmp_path, "bad.run", text)
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert_format_error(info.value, path, line, *words)


def test_duplicate_doc_in_run_names_both_lines(tmp_path):
    text = "q1 Q0 a 1 0.9 r\nq2 Q0 b 1 0.8 r\nq1 Q0 c 2 0.7 r\n\nq1 Q0 a 3 0.6 r\n"
    path = write_text(tmp_path, "dup.run", text)
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert_format_error(info.value, path, 5, "duplicate", "q1", "a", "line 1")


def test_same_doc_under_two_queries_is_fine():
    assert parse_run("q1 0 a 1 1 r\nq2 0 a 1 1 r\n") == {"q1": {"a": 1.0}, "q2": {"a": 1.0}}


def test_duplicate_qrels_pair_names_both_lines(tmp_path):
    text = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n1 0 d1 2\n"
    path = write_text(tmp_path, "dup.qrels", text)
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert_format_error(info.value, path, 4, "duplicate", "d1", "line 1")


@pytest.mark.parametrize("text", ["", "\n", "   \n\t\n  ", "\r\n\r\n"])
@pytest.mark.parametrize("reader", [read_qrels, read_run])
def test_empty_and_whitespace_only_files(tmp_path, reader, text):
    path = write_text(tmp_path, "empty.txt", text)
    with pytest.raises(FormatError) as info:
        reader(path)
    assert_format_error(info.value, path, None, "empty file")


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.qrels"
    path.write_bytes(b"1 0 d1 1\n1 0 caf\xe9 1\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert_format_error(info.value, path, 2, "UTF-8")


def test_parse_uses_source_name_and_default():
    with pytest.raises(FormatError, match=r"^mine\.run:1: expected 6 fields"):
        parse_run(["q 0 d 1 0.5"], source="mine.run")
    with pytest.raises(FormatError, match=r"^<string>: empty file"):
        parse_qrels([])


def test_format_error_is_a_value_error_and_pickles():
    err = FormatError("x.run", 7, "score 'nan' is not finite")
    assert isinstance(err, ValueError)
    assert str(err) == "x.run:7: score 'nan' is not finite"
    assert str(FormatError("x.run", None, "empty file")) == "x.run: empty file"
    back = pickle.loads(pickle.dumps(err))
    assert (back.path, back.line, back.problem, str(back)) == (err.path, err.line, err.problem, str(err))


# --------------------------------------------------------------------------- bad writer input


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
def test_write_run_rejects_non_finite_scores(tmp_path, score):
    path = tmp_path / "r.run"
    with pytest.raises(ValueError, match=r"query q7 document d2: score .* not finite"):
        write_run({"q7": {"d1": 1.0, "d2": score}}, path)
    assert not path.exists()  # nothing half-written


def test_write_run_rejects_non_numbers(tmp_path):
    with pytest.raises(ValueError, match=r"query q document d: score 'high' is not a number"):
        write_run({"q": {"d": "high"}}, tmp_path / "r.run")


@pytest.mark.parametrize(
    "run, words",
    [
        ({"q 1": {"d": 1.0}}, "query id 'q 1'"),
        ({"q": {"": 1.0}}, "document id ''"),
        ({"q": {"a\tb": 1.0}}, "document id 'a\\tb'"),
    ],
)
def test_write_run_rejects_ids_that_would_not_read_back(tmp_path, run, words):
    with pytest.raises(ValueError) as info:
        write_run(run, tmp_path / "r.run")
    assert words in str(info.value)


def test_write_run_rejects_non_str_ids_bad_name_and_depth(tmp_path):
    with pytest.raises(TypeError, match="query id 1 must be a str"):
        write_run({1: {"d": 1.0}}, tmp_path / "r.run")
    with pytest.raises(ValueError, match="run name"):
        write_run({"q": {"d": 1.0}}, tmp_path / "r.run", name="my run")
    with pytest.raises(ValueError, match="depth"):
        write_run({"q": {"d": 1.0}}, tmp_path / "r.run", depth=0)


def test_writers_refuse_to_write_unreadable_empty_files(tmp_path):
    with pytest.raises(ValueError, match="no documents"):
        write_run({"q": {}}, tmp_path / "r.run")
    with pytest.raises(ValueError, match="no judgments"):
        write_qrels({}, tmp_path / "q.qrels")


@pytest.mark.parametrize("grade", [1.5, "2", True, None])
def test_write_qrels_rejects_non_integer_grades(tmp_path, grade):
    with pytest.raises(ValueError, match=r"query 1 document d: grade .* is not an integer"):
        write_qrels({"1": {"d": grade}}, tmp_path / "q.qrels")
