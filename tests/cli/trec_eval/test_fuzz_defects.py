"""Regression tests for the defects a fuzzing round against trec_eval 10.0 found (issue 34, section 5: N1-N10)."""
from __future__ import annotations

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.trec_eval import main


def cli(argv, capsys) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of searchgrade.trec_eval's main()."""
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


# ------------------------------------------------------------------ N1: -0.0000
def test_utility_of_nothing_prints_zero_as_trec_eval_does(tmp_path, capsys):
    """trec_eval adds all four terms, d * (N + rel_ret - ret - R) too, so -0.0 + 0.0 prints 0.0000."""
    (tmp_path / "q").write_text("q1 0 a 0\nq2 0 x 1\n")
    (tmp_path / "r").write_text("q1 Q0 zz 1 1.0 r\nq2 Q0 x 1 1.0 r\n")  # q1: only an unjudged document
    status, out, err = cli(["-J", "-q", "-m", "utility.-1,-1,-1,0", tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 0, err
    assert out == ("utility_-1,-1,-1,0    \tq1\t0.0000\nutility_-1,-1,-1,0    \tq2\t-1.0000\n"
                   "utility_-1,-1,-1,0    \tall\t-0.5000\n")
    (tmp_path / "q").write_text("q1 0 a 0\n")
    (tmp_path / "r").write_text("q1 Q0 zz 1 1.0 r\n")
    for flags in (["-J"], ["-J", "-q"]):
        status, out, err = cli([*flags, "-m", "utility.-1,-1,-1,0", tmp_path / "q", tmp_path / "r"], capsys)
        assert status == 0 and "-0.0000" not in out and out.endswith("\tall\t0.0000\n"), (flags, out, err)


def test_a_negative_zero_is_printed_seven_wide_without_a_shape_error():
    from searchgrade.cli.trec_eval.printer import _float_cells, _float_width

    x = np.array([-0.0, 0.0, 0.25])
    width = _float_width(x)
    assert width == 7
    cells = [bytes(row).rstrip(b"\0") for row in _float_cells(x, width)]
    assert cells == [b"-0.0000", b"0.0000", b"0.2500"]
    assert _float_width(np.array([-0.0])) == 7


# ------------------------------------------------------------ N4: unordered rankings
@pytest.mark.parametrize("ranking", [{"d1", "d2"}, frozenset({"d1"}), {"d1": 2.0, "d2": 1.0}])
def test_score_ranking_refuses_collections_without_an_order(ranking):
    with pytest.raises(TypeError, match="rank order"):
        sg.score_ranking(ranking, {"d1": 1}, ["AP"])
    assert sg.score_ranking({"d1": 2.0, "d2": 1.0}.keys(), {"d2": 1}, ["RR"]) == {"RR": 0.5}  # keys keep order


# -------------------------------------------------------------- N5: INST's large T
@pytest.mark.parametrize("T", [1.0, 1e3, 1e6, 1e10, 1e13, 1e15, 1e20, 1e100, 1e200, 1e307])
def test_inst_follows_its_own_curve_for_any_goal(T):
    qrels, ranking = {"a": 2, "b": 1, "c": 2}, ["x", "a", "y", "b", "c"]
    for family in ("INST", "NERR11", "INSQ"):
        name = f"INST(T={T!r})".replace("INST", family)
        value = sg.score_ranking(ranking, qrels, [name])[sg.parse_measure(name).name]
        curve = sg.cwl(name, ranking, qrels).value  # rank by rank, no closed form
        assert np.isfinite(value) and value == pytest.approx(curve, rel=1e-12, abs=0), (family, T)
    if T >= 1e10:  # a patient user reads all 1000 ranks alike: the gains' mean over the depth
        assert sg.score_ranking(ranking, qrels, [f"INST(T={T!r})"])[f"INST(T={T!r})"] == pytest.approx(
            2.5 / 1000, rel=1e-5)


def test_a_goal_whose_double_overflows_is_refused():
    with pytest.raises(ValueError, match=r"T=1e308 must be at most 1e307"):
        sg.parse_measure("INST(T=1e308)")


# ------------------------------------------------ N2: blank lines cost no memory per line
def test_a_file_of_blank_lines_is_refused_a_block_at_a_time(tmp_path, monkeypatch):
    """The bulk reader counts blank blocks and raises the strict reader's error itself: the file is never
    read whole (read_source, the whole read, is not called) and no list of empty lines is made."""
    import searchgrade.io.sources as sio

    def whole(*args):
        raise AssertionError("the source was read whole")

    monkeypatch.setattr(sio, "read_source", whole)
    path = tmp_path / "blank"
    path.write_bytes(b"\n" * (3 * (1 << 22) + 5))  # three blocks and a bit
    with pytest.raises(sg.FormatError, match=r"empty file: no run lines \(only 12582917 blank lines\)"):
        sg.read_run(path)
    monkeypatch.undo()
    monkeypatch.setattr(sio, "raw_bytes", whole)  # a small gzip is read whole, but never inflated whole
    gz = tmp_path / "blank.gz"
    import gzip
    gz.write_bytes(gzip.compress(b"\n" * (1 << 23)))
    with pytest.raises(sg.FormatError, match=r"blank.gz: empty file: no qrels lines \(only 8388608 blank"):
        sg.read_qrels(gz)


def test_gzip_content_from_a_stream_is_inflated_a_block_at_a_time(monkeypatch):
    import gzip
    import io

    import searchgrade.io.sources as sio

    def whole(*args):
        raise AssertionError("the gzip content was inflated whole")

    monkeypatch.setattr(sio, "raw_bytes", whole)
    with pytest.raises(sg.FormatError, match=r"empty file: no run lines \(only 8388608 blank lines\)"):
        sg.read_run(io.BytesIO(gzip.compress(b"\n" * (1 << 23))))


def test_blank_lines_between_data_lines_are_counted_not_listed():
    from searchgrade.io.text import _lines

    text = "\n\nq1 Q0 a 1 1 r\n \t\n" + "\n" * 100_000 + "q1 Q0 b 2 0.5 r\n\n"
    got = _lines(text, "x")
    assert got.lines == ["q1 Q0 a 1 1 r", "q1 Q0 b 2 0.5 r"] and list(got.numbers) == [3, 100_005]
    assert got.total == 100_006 and got.blank.count == 100_004
    assert got.blank.first == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11]
    run, _, report = sg.load_run(__import__("io").StringIO(text))
    assert run == {"q1": {"a": 1.0, "b": 0.5}} and report.lines == 100_006 and report.blank.count == 100_004
    with pytest.raises(sg.FormatError, match=r"x:100005: duplicate document: query q1 document a is already on "
                                              r"line 3"):
        sg.parse_run(text.replace(" b 2 ", " a 2 "), "x")


# ------------------------------------------------- N3: junk fails at its first block
class _Endless:
    """A stream of random bytes that never ends (/dev/urandom), counting what was read."""

    def __init__(self):
        self.rng, self.read_bytes = np.random.default_rng(0), 0

    def read(self, n=-1):
        n = 1 << 20 if n is None or n < 0 else n
        self.read_bytes += n
        assert self.read_bytes <= 64 << 20, "read 64 MB of junk without an error"
        return self.rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def test_an_endless_stream_of_junk_fails_at_its_first_block():
    stream = _Endless()
    with pytest.raises(sg.FormatError, match=r"<file>:\d+: not valid UTF-8"):
        sg.read_run(stream)
    assert stream.read_bytes <= 2 << 20


def test_a_large_junk_file_fails_at_its_first_block(tmp_path, monkeypatch):
    import searchgrade.io.sources as sio

    def whole(*args):
        raise AssertionError("the junk was read whole")

    monkeypatch.setattr(sio, "read_source", whole)
    path = tmp_path / "junk"
    path.write_bytes(b"q1 Q0 a 1 1 r\n" * 1000 + np.random.default_rng(1).bytes(3 << 22))
    with pytest.raises(sg.FormatError, match=r"junk:1001: not valid UTF-8"):
        sg.read_run(path)


# ------------------------------------------------------- N7: numbers of any length
BIG = "1" * 5000


@pytest.mark.parametrize("text,where", [
    (f"q1 0 a {BIG}\n", "<string>:1: relevance grade '111111111111111111111111111111'... (5000 characters) is "
                        "outside the 64-bit"),
    (f"q1 0 a 1\nq1 0 b -{BIG}\n", "<string>:2: relevance grade"),
])
def test_a_grade_of_thousands_of_digits_names_its_line(text, where):
    with pytest.raises(sg.FormatError) as err:
        sg.parse_qrels(text)
    assert str(err.value).startswith(where) and "4300" not in str(err.value) and len(str(err.value)) < 200


def test_a_score_of_thousands_of_digits_is_shown_short():
    with pytest.raises(sg.FormatError, match=r"<string>:1: score '1e1111.*\(5002 characters\) is not finite"):
        sg.parse_run(f"q1 Q0 a 1 1e{BIG} r\n")


@pytest.mark.parametrize("name", [f"P@{BIG}", f"P_{BIG}", f"ndcg_cut_{BIG}", f"ndcg_{BIG}=1", "P@99999999999999999999"])
def test_measure_names_with_huge_numbers_give_our_message(name):
    with pytest.raises(ValueError) as err:
        sg.parse_measure(name)
    assert "4300" not in str(err.value) and "int_max_str_digits" not in str(err.value)


def test_trec_eval_reads_a_huge_cutoff_as_atol_does(tmp_path, capsys):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1.0 r\n")
    status, out, err = cli(["-m", f"P.{BIG}", tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 0 and out == "P_9223372036854775807 \tall\t0.0000\n", err
    status, out, err = cli([tmp_path / "q", tmp_path / "r"], capsys)
    (tmp_path / "q").write_text(f"q1 0 a {BIG}\n")
    status, out, err = cli([tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 1 and err.startswith(f"trec_eval: {tmp_path / 'q'}:1: relevance grade") and "4300" not in err


# ------------------------------------------------------------ N8: a grade of -2**63
def test_the_lowest_long_grade_is_evaluated_as_every_negative_grade(tmp_path, capsys):
    """trec_eval reads any negative grade as "in the pool, unjudged" (RELVALUE_UNJUDGED), -2**63 too."""
    run = tmp_path / "r"
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0b 2 1.0 r\nq1 Q0 b 2 1.0 r\n".replace("q1 Q0b 2 1.0 r\n", ""))
    outs = []
    for grade in ("-9223372036854775808", "-1"):
        (tmp_path / "q").write_text(f"q1 0 a {grade}\nq1 0 b 1\n")
        status, out, err = cli(["-q", "-m", "all_trec", tmp_path / "q", run], capsys)
        assert status == 0, err
        outs.append(out)
    assert outs[0] == outs[1]
    qrels = {"q1": {"a": -2**63, "b": 1}}
    same = {"q1": {"a": -1, "b": 1}}
    measures = ["AP", "nDCG", "Judged@2", "infAP", "Bpref", "NumRel"]
    assert sg.evaluate(qrels, {"q1": {"a": 2.0, "b": 1.0}}, measures).equals(
        sg.evaluate(same, {"q1": {"a": 2.0, "b": 1.0}}, measures))


# ---------------------------------------------------- N9: ids that differ only in type
@pytest.mark.parametrize("run_doc,shown", [(b"a", "b'a' (bytes)"), (1.0, "1.0 (float)"), (np.int64(1), "(int64)")])
def test_document_ids_of_another_type_are_reported(run_doc, shown):
    qrels = {"q1": {"a": 1, "1": 1}}
    with pytest.warns(UserWarning, match=r"differ from the qrels' only in type.*" + shown.replace("(", r"\(")
                      .replace(")", r"\)")):
        assert sg.evaluate(qrels, {"q1": {run_doc: 1.0}}, ["P@1"]).loc["q1", "P@1"] == 0


@pytest.mark.parametrize("run_qid", [b"1", 1.0])
def test_query_ids_of_another_type_are_reported(run_qid):
    with pytest.warns(UserWarning, match=r"only in type: qrels '1' \(str\) vs run"):
        sg.evaluate({"1": {"a": 1}}, {run_qid: {"a": 1.0}}, ["P@1"])


# ----------------------------------------------- N10: gains beyond 65536, relstring.1e19
def test_gains_on_grades_beyond_65536_are_refused_and_listed_as_a_difference(tmp_path, capsys):
    (tmp_path / "q").write_text("q1 0 a 70000\nq1 0 b 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    status, out, err = cli(["-m", "ndcg.1=2", tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 1 and "above 65536 (here 70000) are refused" in err
    from pathlib import Path

    import searchgrade.trec_eval as te
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    for text in (readme, te.__doc__):
        assert "65536" in text and "relstring.1e19" in text


def test_relstring_beyond_a_long_prints_the_whole_string(tmp_path, capsys):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    status, out, err = cli(["-q", "-m", "relstring.1e19", tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 0 and out == "relstring_1e19        \tq1\t'1-'\n", err


# ----------------------------------------------------------------------- smaller
def test_rprec_mult_of_a_huge_multiple_leaks_no_numpy_warning(tmp_path, capsys):
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2.0 r\n")
    status, out, err = cli(["-m", "Rprec_mult.1e308", tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 0 and err == "" and out.endswith("\tall\t0.0000\n")


@pytest.mark.parametrize("form,message", [
    ("set_F.inf", "'inf' is not a finite number"), ("Rprec_mult.nan", "'nan' is not a finite number"),
    ("set_F.1e400", "'1e400' is beyond the largest double"),
    ("map_cut.1e19", "cut-off '1e19' is not a whole number (trec_eval's atol would read it as 1)")])
def test_odd_numbers_are_named_for_what_they_are(tmp_path, capsys, form, message):
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 2.0 r\n")
    status, out, err = cli(["-m", form, tmp_path / "q", tmp_path / "r"], capsys)
    assert status == 2 and message in err and "not a number" not in err, err
