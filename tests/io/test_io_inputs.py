"""Tests for searchgrade.io's inputs: sources (paths, gzip, files, stdin), trec_eval 10.0's run and
qrels rules (comments, extra fields, ranks), the bulk reader against the strict one, and as_qrels /
as_run over dicts, DataFrames and ir_measures' namedtuples."""
from __future__ import annotations

import gzip
import io
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchgrade.io import text as _trec_text
from searchgrade.io import (
    FormatError,
    InputWarning,
    as_qrels,
    as_run,
    load_qrels,
    load_run,
    parse_qrels,
    parse_run,
    qrels_frame,
    read_qrels,
    read_run,
    run_frame,
    write_qrels,
    write_run,
)
from tests.support.trec_texts import big_qrels_text, big_run_text
from tests.support.examples import examples

RAW = Path(__file__).resolve().parents[2] / "data" / "raw" / "trec_eval_test"
RUN_TEXT = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq2 Q0 d1 1 0.5 sys\n"
RUN = {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5}}
QRELS_TEXT = "q1 0 d1 1\nq1 0 d3 0\nq2 0 d1 2\n"
QRELS = {"q1": {"d1": 1, "d3": 0}, "q2": {"d1": 2}}


# ============================================================================ sources
@pytest.mark.parametrize("text", [RUN_TEXT, big_run_text()], ids=["small", "bulk"])
def test_every_run_source_reads_the_same(tmp_path, monkeypatch, text):
    expected = parse_run(text)
    plain = tmp_path / "r.run"
    plain.write_text(text, encoding="utf-8")
    gz = tmp_path / "r.run.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    misnamed = tmp_path / "r.txt"  # gzip recognised by its magic bytes, not its name
    misnamed.write_bytes(gzip.compress(text.encode()))
    assert read_run(plain) == read_run(str(plain)) == read_run(gz) == read_run(misnamed) == expected
    with open(plain, "rb") as binary, open(plain, encoding="utf-8") as textual, open(gz, "rb") as gz_binary:
        assert read_run(binary) == read_run(textual) == read_run(gz_binary) == expected
    with gzip.open(gz, "rt", encoding="utf-8") as unzipped:
        assert read_run(unzipped) == expected
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert read_run("-") == expected
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(text.encode()))))
    assert read_run("-") == expected  # stdin's binary buffer: gzip works there too
    assert list(read_run(gz)) == list(expected)  # file order kept


def test_every_qrels_source_reads_the_same(tmp_path, monkeypatch):
    gz = tmp_path / "q.gz"
    gz.write_bytes(gzip.compress(b"\xef\xbb\xbf" + QRELS_TEXT.encode()))  # a BOM inside the gzip
    assert read_qrels(gz) == read_qrels(io.BytesIO(QRELS_TEXT.encode())) == QRELS
    assert read_qrels(io.StringIO("\ufeff" + QRELS_TEXT)) == QRELS
    monkeypatch.setattr(sys, "stdin", io.StringIO(QRELS_TEXT))
    assert read_qrels("-") == QRELS


def test_errors_name_gzip_files_and_stdin(tmp_path, monkeypatch):
    lines = RUN_TEXT.splitlines()
    bad = "\n".join(lines[:2] + ["q2 Q0 d9 3 nan sys"] + lines[2:]) + "\n"
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(bad.encode()))
    with pytest.raises(FormatError, match=rf"^{gz}:3: score 'nan' is not finite$"):
        read_run(gz)
    monkeypatch.setattr(sys, "stdin", io.StringIO(bad))
    with pytest.raises(FormatError, match=r"^<stdin>:3: score 'nan' is not finite$") as info:
        read_run("-")
    assert (info.value.path, info.value.line) == ("<stdin>", 3)
    with pytest.raises(FormatError, match=r"^<file>:3: "):
        read_run(io.BytesIO(bad.encode()))


def test_errors_in_large_gzip_files_name_the_line(tmp_path):
    lines = big_run_text().splitlines(keepends=True)
    lines[1500] = lines[1500].replace(" sys", "")  # 5 fields on line 1501
    gz = tmp_path / "big.run.gz"
    gz.write_bytes(gzip.compress("".join(lines).encode()))
    with pytest.raises(FormatError, match=rf"^{gz}:1501: expected 6 fields .*found 5"):
        read_run(gz)
    lines = big_qrels_text().splitlines(keepends=True)
    lines.insert(2000, lines[10])
    path = tmp_path / "big.qrels"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(FormatError, match=r":2001: duplicate judgment: query q0 document doc-0-10 is already on line 11"):
        read_qrels(path)


def test_empty_gzip_and_empty_stdin_are_errors(tmp_path, monkeypatch):
    gz = tmp_path / "empty.gz"
    gz.write_bytes(gzip.compress(b"\n \n"))
    with pytest.raises(FormatError, match=rf"^{gz}: empty file: no run lines \(only 2 blank lines\)"):
        read_run(gz)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(FormatError, match=r"^<stdin>: empty file: no qrels lines$"):
        read_qrels("-")


def test_corrupt_gzip_and_bad_utf8_in_gzip(tmp_path):
    broken = tmp_path / "broken.gz"
    broken.write_bytes(gzip.compress(RUN_TEXT.encode())[:-12])
    with pytest.raises(FormatError, match=rf"^{broken}: not a valid gzip file"):
        read_run(broken)
    latin = tmp_path / "latin.gz"
    latin.write_bytes(gzip.compress(b"q 0 d 1 1 r\nq 0 caf\xe9 2 1 r\n"))
    with pytest.raises(FormatError, match=rf"^{latin}:2: not valid UTF-8"):
        read_run(latin)


def test_bad_utf8_in_a_large_file_names_the_line(tmp_path):
    raw = big_run_text().encode()
    at = raw.index(b"\nq7 Q0 doc-7-3 ") + 7  # inside the iter field of that line
    raw = raw[:at] + b"\xff" + raw[at + 1:]
    path = tmp_path / "big.run"
    path.write_bytes(raw)
    line = raw.count(b"\n", 0, at) + 1
    with pytest.raises(FormatError, match=rf":{line}: not valid UTF-8"):
        read_run(path)


def test_unsupported_sources_are_type_errors():
    with pytest.raises(TypeError, match="expected a path, '-'"):
        read_run(42)
    with pytest.raises(TypeError, match="not bytes"):
        parse_run(b"q 0 d 1 1 r")


def test_parse_accepts_a_file_iterator_and_lines_with_newlines():
    assert parse_run(io.StringIO(RUN_TEXT)) == parse_run(RUN_TEXT.splitlines()) == RUN
    assert parse_qrels(QRELS_TEXT.splitlines(keepends=True)) == QRELS
    with pytest.raises(FormatError, match=r"^<string>:2: a line holds a line break"):
        parse_qrels(["q 0 d 1", "q 0 e 1\nq 0 f 1"])


# ===================================================================== trec_eval's rules
def test_results_trunc_style_junk_after_the_run_id_is_ignored_and_reported():
    # trec_eval's own test/results.trunc: "junk at end of lines", tabs and extra spaces
    text = ("301\tQ0\tFBIS3-27619\t99\t  2.138276\tSTANDARD more junk at\n"
            "303\tQ0\tFT941-17652\t99\t  1.857372\tSTANDARD end of lines.\n"
            "301\tQ0\tFBIS3-2934\t98\t  2.139655\tSTANDARD\n")
    with pytest.warns(InputWarning, match=r"<string>: ignored the fields after the run id on 2 lines \(1, 2\)"):
        run = parse_run(text)
    assert run == {"301": {"FBIS3-27619": 2.138276, "FBIS3-2934": 2.139655}, "303": {"FT941-17652": 1.857372}}
    report = load_run(io.StringIO(text)).report
    assert report.extra_fields.count == 2 and report.extra_fields.first == (1, 2)
    assert (report.lines, report.records, report.queries) == (3, 3, 2)


def test_trec_eval_fixture_with_extra_fields_matches_the_plain_one(tmp_path):
    plain = (RAW / "results.test").read_text(encoding="utf-8").splitlines()
    junk = [line + (" junk at end" if i % 3 == 0 else "") for i, line in enumerate(plain)]
    path = tmp_path / "results.trunc-like"
    path.write_text("\n".join(junk) + "\n", encoding="utf-8")
    with pytest.warns(InputWarning, match="ignored the fields after the run id on 500 lines"):
        assert read_run(path) == read_run(RAW / "results.test")


def test_comment_lines_in_runs_are_skipped_and_reported():
    text = "# produced by sys\n" + RUN_TEXT[:19] + "   # indented comment\n" + RUN_TEXT[19:] + "#\n"
    with pytest.warns(InputWarning, match=r"skipped 3 lines \(1, 3, 6\) starting with '#'"):
        assert parse_run(text) == RUN
    assert parse_run("q 0 doc#1 1 1 r # not a comment\n", warn=False) == {"q": {"doc#1": 1.0}}


def test_trec_eval_qrels_with_comments_fixture(tmp_path):
    # the layout of trec_eval 10.0's test/qrels.test.with-comments, built from qrels.test
    lines = (RAW / "qrels.test").read_text(encoding="utf-8").splitlines()
    with_comments = ["# comment here", *lines[:2], "# and comment here", *lines[2:4], "# comment in docno",
                     *lines[4:], "# a comment on the last line"]
    path = tmp_path / "qrels.with-comments"
    path.write_text("\n".join(with_comments) + "\n", encoding="utf-8")
    with pytest.warns(InputWarning, match=r"skipped 4 lines \(1, 4, 7, 3685\)"):
        assert read_qrels(path) == read_qrels(RAW / "qrels.test")
    report = load_qrels(path).report
    assert (report.comments.count, report.records, report.lines) == (4, 3681, 3685)


def test_qrels_extra_fields_are_still_an_error():
    with pytest.raises(FormatError, match=r"^<string>:2: expected 4 fields .*found 5 \(qrels lines have no fields"):
        parse_qrels("q 0 d 1\nq 0 e 1 junk\n")


def test_non_integer_ranks_are_accepted_and_reported():
    text = "q 0 a first 0.9 r\nq 0 b 1.0 0.8 r\nq 0 c -2 0.7 r\nq 0 d +3 0.6 r\n"
    with pytest.warns(InputWarning, match=r"rank field is not an integer on 2 lines \(1, 2\)"):
        run = parse_run(text)
    assert run == {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}


def test_run_ids_first_last_and_distinct():
    text = "q 0 a 1 1 A\nq 0 b 2 1 B\nq 0 c 3 1 A\n"
    _, name, report = load_run(io.StringIO(text))
    assert name == "A" and report.run_ids == ("A", "B") and report.last_run_id == "A"
    with pytest.warns(InputWarning, match=r"2 different run ids \(A, B\).*trec_eval prints the last line's, A"):
        parse_run(text)


def test_blank_lines_are_reported_with_a_warning_in_qrels_only():
    text = "\n" + QRELS_TEXT + "\n  \t\n"
    with pytest.warns(InputWarning, match=r"^<string>: skipped 3 lines \(1, 5, 6\): blank, which trec_eval 10.0 refuses"):
        assert parse_qrels(text) == QRELS
    with warnings.catch_warnings():  # trec_eval reads blank run lines: counted, no warning
        warnings.simplefilter("error")
        assert parse_run("\n" + RUN_TEXT + "\n  \t\n") == RUN
    report = load_qrels(io.StringIO(text)).report
    assert (report.blank.count, report.blank.first, report.lines) == (3, (1, 5, 6), 6)
    assert str(report.blank) == "3 lines (1, 5, 6)"


def test_line_sets_keep_the_first_ten_numbers():
    text = "".join(f"q 0 d{i} 1 1 r extra\n" for i in range(12))
    report = load_run(io.StringIO(text)).report
    assert report.extra_fields.count == 12 and report.extra_fields.first == tuple(range(1, 11))
    assert str(report.extra_fields).endswith("9, 10, ...)")


def test_only_c_whitespace_separates_fields():
    # trec_eval splits at C isspace(): a no-break or ideographic space is part of an id
    text = "q 0 d\u00a0one 1 1 r\nq 0 d\u3000two 2 1 r\nq\x0b0\x0cd3\r1 1 r\n"
    assert parse_run(text) == {"q": {"d\u00a0one": 1.0, "d\u3000two": 1.0, "d3": 1.0}}
    assert parse_qrels("q 0 d\x1cx 1\n") == {"q": {"d\x1cx": 1}}


def test_the_non_c_space_pattern_is_exactly_pythons_extra_whitespace():
    python_space = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    extra = {c for c in python_space - set(" \t\n\r\x0b\x0c") if _trec_text.NOT_C_SPACE.fullmatch(c)}
    assert extra == python_space - set(" \t\n\r\x0b\x0c")
    assert not any(_trec_text.NOT_C_SPACE.fullmatch(c) for c in " \t\n\r\x0b\x0ca#\u200b")


def test_nul_characters_are_an_error():
    with pytest.raises(FormatError, match=r"^<string>:2: NUL character"):
        parse_run("q 0 a 1 1 r\nq 0 b\x00 2 1 r\n")


@pytest.mark.parametrize("grade, ok", [("9223372036854775807", True), ("-9223372036854775808", True),
                                       ("9223372036854775808", False), ("100000000000000000000", False),
                                       ("-9223372036854775809", False)])
def test_grades_must_fit_64_bits(grade, ok):
    text = f"q 0 a 1\nq 0 b {grade}\n"
    if ok:
        assert parse_qrels(text)["q"]["b"] == int(grade)
    else:
        with pytest.raises(FormatError, match=rf"^<string>:2: relevance grade {grade} is outside the 64-bit range"):
            parse_qrels(text)


def test_huge_grade_in_a_large_file_names_its_line(tmp_path):
    lines = big_qrels_text().splitlines(keepends=True)
    lines[2500] = "q9 0 huge 100000000000000000000\n"
    path = tmp_path / "q.qrels"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(FormatError, match=r":2501: relevance grade 100000000000000000000 is outside"):
        read_qrels(path)


@pytest.mark.parametrize("grade", ["1.0", "one", "٣", "0x1", "1e3", "True"])
def test_grades_must_be_decimal_integers(grade):
    with pytest.raises(FormatError, match=rf"^<string>:1: relevance grade '{grade}' is not an integer"):
        parse_qrels(f"q 0 a {grade}\n")


@pytest.mark.parametrize("score", ["٣", "1_0", "0x1p3", "True", "1.5.2", "--1"])
def test_scores_must_be_decimal_numbers(score):
    with pytest.raises(FormatError, match=r"^<string>:1: score .* is not a number"):
        parse_run(f"q 0 a 1 {score} r\n")


def test_comment_only_file_is_empty():
    with pytest.raises(FormatError, match=r"^<string>: empty file: no run lines \(only 1 blank and 2 comment lines\)"):
        parse_run("# a\n\n# b\n")


# ======================================================================== round trips
IDS = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=8)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(IDS.filter(lambda s: not s.startswith("#")),
                       st.dictionaries(IDS, st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8),
                       min_size=1, max_size=4),
       st.booleans())
def test_write_read_round_trip_plain_and_gzip(tmp_path_factory, run, zipped):
    folder = tmp_path_factory.mktemp("rt")
    path = folder / "r.run"
    write_run(run, path)
    if zipped:
        path.with_suffix(".gz").write_bytes(gzip.compress(path.read_bytes()))
        path = path.with_suffix(".gz")
    back = read_run(path)
    assert back == run
    assert all(back[q][d].hex() == run[q][d].hex() for q in run for d in run[q])
    qrels = {q: {d: int(s) % 5 - 1 if math.isfinite(s) and abs(s) < 1e15 else 3 for d, s in docs.items()}
             for q, docs in run.items()}
    write_qrels(qrels, folder / "q.qrels")
    assert read_qrels(folder / "q.qrels") == qrels


# =========================================================================== as_qrels / as_run
def test_dicts_are_returned_as_they_are():
    qrels, run = {"q": {"d": 1}}, {"q": {"d": 0.5}}
    assert as_qrels(qrels) is qrels and as_run(run) is run
    with pytest.raises(ValueError, match="columns="):
        as_run(run, columns={"score": "s"})


@pytest.mark.parametrize("names", [("query_id", "doc_id", "relevance"), ("qid", "docno", "rel"),
                                   ("qid", "docno", "label")])
def test_qrels_frames_in_each_column_convention(names):
    frame = pd.DataFrame({names[0]: ["q1", "q1", "q2"], names[1]: ["d1", "d3", "d1"], names[2]: [1, 0, 2],
                          "iteration": "0"})
    assert as_qrels(frame) == QRELS


@pytest.mark.parametrize("names", [("query_id", "doc_id"), ("qid", "docno")])
def test_run_frames_in_each_column_convention_keep_row_order(names):
    frame = pd.DataFrame({names[0]: ["q1", "q2", "q1"], names[1]: ["d2", "d1", "d1"], "score": [1.5, 0.5, 2.5],
                          "rank": [2, 1, 1]})
    run = as_run(frame)
    assert run == RUN and list(run) == ["q1", "q2"] and list(run["q1"]) == ["d2", "d1"]


def test_columns_named_by_the_caller_and_integer_ids():
    frame = pd.DataFrame({"topic": [1, 1, 2], "doc": ["a", "b", "a"], "s": [3, 2, 1]})
    assert as_run(frame, columns={"query_id": "topic", "doc_id": "doc", "score": "s"}) == \
        {"1": {"a": 3.0, "b": 2.0}, "2": {"a": 1.0}}
    with pytest.raises(ValueError, match=r"unknown role\(s\) \['grade'\]"):
        as_qrels(frame, columns={"grade": "s"})
    with pytest.raises(FormatError, match=r"^run DataFrame: no column 'nope'"):
        as_run(frame, columns={"query_id": "nope", "doc_id": "doc", "score": "s"})


def test_frame_column_problems():
    with pytest.raises(FormatError, match=r"both 'query_id' and 'qid' could be the query_id column"):
        as_run(pd.DataFrame({"query_id": ["q"], "qid": ["q"], "doc_id": ["d"], "score": [1.0]}))
    with pytest.raises(FormatError, match=r"^qrels DataFrame: no relevance column \(looked for 'relevance', 'rel', "
                                          r"'label'\); its columns are \['query_id', 'doc_id', 'score'\]"):
        as_qrels(pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}))
    indexed = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}).set_index("query_id")
    with pytest.raises(FormatError, match=r"it is in the index: call \.reset_index\(\) first"):
        as_run(indexed)


@pytest.mark.parametrize("column, values, message", [
    ("query_id", ["q", None, "q"], r"row 1 \(index 11\): query_id is missing"),
    ("doc_id", ["a", "b", np.nan], r"row 2 \(index 12\): doc_id is missing"),
    ("doc_id", ["a", 2.5, "c"], r"row 1 \(index 11\): doc_id 2.5 is a float, not a str"),
    ("score", [1.0, np.nan, 2.0], r"row 1 \(index 11\): score is missing \(NaN\)"),
    ("score", [1.0, 2.0, np.inf], r"row 2 \(index 12\): score inf is not finite"),
    ("score", [1.0, "high", 2.0], r"row 1 \(index 11\): score 'high' is not a number"),
    ("score", [True, False, True], r"row 0 \(index 10\): score True is not a number"),
])
def test_run_frame_value_problems_name_the_row(column, values, message):
    data = {"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]}
    data[column] = values
    with pytest.raises(FormatError, match=rf"^run DataFrame: {message}"):
        as_run(pd.DataFrame(data, index=[10, 11, 12]))


@pytest.mark.parametrize("values, message", [
    ([1, 1.5, 0], r"row 1 \(index 'b'\): relevance 1.5 is not an integer"),
    ([1, np.nan, 0], r"row 1 \(index 'b'\): relevance nan is missing"),
    ([1, 2, 1e20], r"row 2 \(index 'c'\): relevance 1e\+20 is outside the 64-bit range"),
    ([1, 2, 10**20], r"row 2 \(index 'c'\): relevance 100000000000000000000 is outside the 64-bit range"),
    ([1, "2", 0], r"row 1 \(index 'b'\): relevance '2' is not a number"),
    (pd.array([1, None, 0], dtype="Int64"), r"row 1 \(index 'b'\): relevance <NA> is missing"),
    (np.array([1, 2**63, 0], dtype=np.uint64), r"row 1 \(index 'b'\): relevance 9223372036854775808 is outside"),
])
def test_qrels_frame_grade_problems_name_the_row(values, message):
    frame = pd.DataFrame({"qid": ["q", "q", "q"], "docno": ["a", "b", "c"], "rel": values}, index=list("abc"))
    with pytest.raises(FormatError, match=rf"^qrels DataFrame: {message}"):
        as_qrels(frame)


def test_integral_float_and_nullable_grades_are_integers():
    frame = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "rel": [1.0, -1.0]})
    got = as_qrels(frame)
    assert got == {"q": {"a": 1, "b": -1}} and all(type(g) is int for g in got["q"].values())
    nullable = frame.assign(rel=pd.array([2, 0], dtype="Int64"), qid=pd.array(["q", "q"], dtype="string"))
    assert as_qrels(nullable) == {"q": {"a": 2, "b": 0}}


def test_duplicate_rows_name_both_rows():
    frame = pd.DataFrame({"query_id": ["q1", "q2", "q1"], "doc_id": ["a", "a", "a"], "score": [1.0, 2.0, 3.0]},
                         index=["x", "y", "z"])
    with pytest.raises(FormatError, match=r"row 2 \(index 'z'\): duplicate: query q1 document a is already on "
                                          r"row 0 \(index 'x'\)"):
        as_run(frame)


def test_ir_measures_namedtuples():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d3", 0), ir_measures.Qrel("q2", "d1", 2)]
    run = [ir_measures.ScoredDoc("q1", "d1", 2.5), ir_measures.ScoredDoc("q1", "d2", 1.5),
           ir_measures.ScoredDoc("q2", "d1", 0.5)]
    assert as_qrels(iter(qrels)) == QRELS and as_run(run) == RUN
    with pytest.raises(FormatError, match=r"^run records: record 1: duplicate: query q1 document d1 is already on "
                                          r"record 0"):
        as_run([run[0], run[0]])
    with pytest.raises(FormatError, match=r"^qrels records: no relevance column"):
        as_qrels(run)
    assert as_qrels([]) == {}


def test_dict_records_and_bad_records():
    records = [{"query_id": "q", "doc_id": "d", "score": 1}, {"query_id": "q", "doc_id": "e", "score": 2}]
    assert as_run(records) == {"q": {"d": 1.0, "e": 2.0}}
    with pytest.raises(FormatError, match=r"record 1: no field 'score'"):
        as_run([records[0], {"query_id": "q", "doc_id": "e"}])
    with pytest.raises(TypeError, match="expected namedtuples"):
        as_run([("q", "d", 1.0)])
    with pytest.raises(TypeError, match="run must be a dict"):
        as_run(3.5)


def test_paths_files_and_stdin_through_the_front_door(tmp_path, monkeypatch):
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert as_run(path) == as_run(str(path)) == as_run(io.StringIO(RUN_TEXT)) == RUN
    monkeypatch.setattr(sys, "stdin", io.StringIO(QRELS_TEXT))
    assert as_qrels("-") == QRELS


def test_frames_out_and_back_in():
    frame = run_frame(RUN)
    assert list(frame.columns) == ["query_id", "doc_id", "score"] and frame["score"].dtype == np.float64
    assert frame["query_id"].tolist() == ["q1", "q1", "q2"]
    assert as_run(frame) == RUN
    qframe = qrels_frame(io.StringIO(QRELS_TEXT))
    assert qframe["relevance"].dtype == np.int64 and as_qrels(qframe) == QRELS
    assert len(run_frame({})) == 0


def test_warnings_point_at_the_callers_line():
    with pytest.warns(InputWarning) as direct:
        parse_run("# c\nq 0 d 1 1 r\n")
    with pytest.warns(InputWarning) as front_door:
        as_run(io.StringIO("# c\nq 0 d 1 1 r\n"))
    assert direct[0].filename == front_door[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_run(io.StringIO("# c\nq 0 d 1 1 r\n"), warn=False) == {"q": {"d": 1.0}}
