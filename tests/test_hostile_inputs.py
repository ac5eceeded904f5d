"""Regression tests for the defects found by feeding the readers, measures and API hostile input (issue 20, B3-B11;
B4, the bulk and line readers accepting the same lines, is in io/test_bulk.py)."""
from __future__ import annotations

import gzip
import io
import random
import sys
import warnings

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.io import sources as _sources
from searchgrade.io import text as _trec_text
from searchgrade.measures.names import trec_expand
from searchgrade.io import FormatError, InputWarning, load_qrels, parse_qrels, read_qrels
from searchgrade.trec_eval import main
from tests.support.trec_texts import PAD_QRELS

LONG_MAX = 2**63 - 1


def cli(argv, capsys, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of searchgrade.trec_eval's main()."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq2 0 a 1\nq2 0 x 2\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 1.0 r\nq1 Q0 b 2 0.5 r\nq2 Q0 a 1 1.0 r\nq2 Q0 c 2 0.5 r\nq2 Q0 d 3 0.2 r\n")
    return qrels, run


# ====================================================================== B3: huge whole-number gains
@pytest.mark.parametrize("measure", ["G_1=1e16", "G_2=1e16", "G_1=3e15,2=1e16", "G_1=1e17"])
@pytest.mark.filterwarnings("ignore")
def test_g_of_a_query_does_not_depend_on_the_other_queries(measure):
    mismatches = []
    for seed in range(12):
        rnd = random.Random(seed)
        qrels = {f"q{q}": {f"d{i}": rnd.choice([0, 1, 1, 1, 2]) for i in range(rnd.randint(1, 8))}
                 for q in range(5)}
        run = {q: {f"d{i}": rnd.random() for i in range(10)} for q in qrels}
        together = sg.evaluate(qrels, run, [measure])[measure]
        for q in qrels:
            alone = sg.evaluate({q: qrels[q]}, {q: run[q]}, [measure])[measure][q]
            if not (together[q] == alone or (np.isnan(together[q]) and np.isnan(alone))):
                mismatches.append((seed, q, together[q], alone))
    assert mismatches == []


def test_huge_gains_leak_no_numpy_warning(files, capsys):
    for gains in ["2=1e16", "1=1e300"]:
        status, out, err = cli(["-q", "-m", f"G.{gains}", *files], capsys)
        assert status == 0 and f"G_{gains}" in out
        assert err == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sg.evaluate({"q": {"a": 2, "b": 1}}, {"q": {"a": 1.0, "b": 0.5}}, ["G_2=1e16"])


# ====================================================================== B7: no line end
def test_dev_zero_is_refused_at_once():
    with pytest.raises(FormatError, match=r"^/dev/zero:1: no line end within 1 MiB \(is this a binary file\?\)$"):
        read_qrels("/dev/zero")


def test_cli_refuses_dev_zero_and_an_endless_stdin(files, capsys, monkeypatch):
    qrels, run = files
    status, out, err = cli([qrels, "/dev/zero"], capsys)
    assert (status, out) == (1, "") and "trec_eval: /dev/zero:1: no line end within 1 MiB" in err
    status, out, err = cli([qrels, "-"], capsys, run.read_bytes() + b"x" * (3 << 20), monkeypatch)
    assert (status, out) == (1, "") and "<stdin>:6: no line end within 1 MiB" in err


@pytest.mark.parametrize("length, ok", [(_sources.MAX_LINE, True), (_sources.MAX_LINE + 1, False)])
@pytest.mark.parametrize("how", ["file", "gzip", "stream", "text stream"])
def test_longest_line_is_max_line_for_every_source(tmp_path, length, ok, how):
    data = b"q1 0 a 1\n" + b"q1 0 " + b"d" * (length - 7) + b" 1\n" + b"q2 0 b 1\n"
    assert len(data.split(b"\n")[1]) == length
    path = tmp_path / "long.qrels"
    path.write_bytes(gzip.compress(data) if how == "gzip" else data)
    source = {"file": path, "gzip": path, "stream": io.BytesIO(data), "text stream": io.StringIO(data.decode())}[how]
    if ok:
        assert len(read_qrels(source)["q1"]) == 2
    else:
        with pytest.raises(FormatError, match=r":2: no line end within 1 MiB"):
            read_qrels(source)


# ====================================================================== B8: beyond 64 bits
def test_cutoffs_beyond_64_bits_are_capped_as_atol_does(files, capsys):
    assert [name for name, _ in trec_expand("P", "99999999999999999999,5")] == ["P_5", f"P_{LONG_MAX}"]
    status, out, _ = cli(["-m", "P.99999999999999999999", "-m", "ndcg_cut.1.9,99999999999999999999", *files],
                         capsys)
    assert status == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        f"P_{LONG_MAX}", "ndcg_cut_1", f"ndcg_cut_{LONG_MAX}"]
    assert cli(["-m", "P.-99999999999999999999", *files], capsys)[0] != 0


# ================================================================ B9-B11: the Python API's inputs
def test_document_ids_of_different_types_are_reported():
    with pytest.warns(UserWarning, match=r"1 query retrieves no judged document because document ids differ "
                                         r"from the qrels' only in type: query 'q': qrels '1' \(str\) vs run 1 "
                                         r"\(int\)"):
        assert sg.evaluate({"q": {"1": 1}}, {"q": {1: 1.0}}, ["AP"])["AP"]["q"] == 0.0
    with warnings.catch_warnings():  # a query that retrieves no judged document, ids of one type: no warning
        warnings.simplefilter("error")
        assert sg.evaluate({"q": {"1": 1}}, {"q": {"2": 1.0}}, ["AP"])["AP"]["q"] == 0.0


@pytest.mark.parametrize("ranking", ["d1", b"d1", None, 5])
def test_score_ranking_refuses_what_is_not_a_list(ranking):
    with pytest.raises(TypeError, match=r"^ranking must be a list of document ids in rank order, not "):
        sg.score_ranking(ranking, {"d1": 1}, ["AP"])
    assert sg.score_ranking(["d1"], {"d1": 1}, ["AP"]) == {"AP": 1.0}


def test_tuple_query_ids_are_ids():
    qrels = {("a", "b"): {"1": 1}, ("a", "c"): {"2": 1}}
    df = sg.evaluate(qrels, {("a", "b"): {"1": 1.0}, ("a", "c"): {"1": 1.0}}, ["AP"])
    assert df.index.nlevels == 1 and df["AP"].to_dict() == {("a", "b"): 1.0, ("a", "c"): 0.0}


@pytest.mark.parametrize("call, message", [
    (lambda: sg.aggregate(None), r"^aggregate needs the DataFrame that evaluate\(\) returns, not NoneType$"),
    (lambda: sg.evaluate({"q": {"1": 1}}, {"q": {"1": 1.0}}, None), r"^measures must be a measure name, .* not NoneType$"),
    (lambda: sg.Evaluator({"q": {"1": 1}}, 5), r"^measures must be .* not int$"),
    (lambda: sg.evaluate(None, {"q": {"1": 1.0}}, "AP"), r"^qrels must be a dict"),
])
def test_clear_type_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


# ====================================================================== blank qrels lines
def test_blank_qrels_lines_are_reported_by_both_readers():
    text = PAD_QRELS + "\n \n"
    with pytest.warns(InputWarning, match=r"skipped 2 lines \(3001, 3002\): blank, which trec_eval 10.0 refuses"):
        bulk = load_qrels(io.BytesIO(text.encode()), warn=True).report
    strict = _trec_text.read_qrels_text(text, "<file>")[1]
    assert bulk == strict
    with pytest.warns(InputWarning, match=r"^<string>: skipped 1 line \(2\): blank"):
        parse_qrels("q1 0 a 1\n\nq1 0 b 0\n")


def test_cli_reports_blank_qrels_lines(tmp_path, files, capsys):
    qrels, run = files
    blank = tmp_path / "blank.qrels"
    blank.write_text(qrels.read_text().replace("\n", "\n\n", 1))
    status, out, err = cli(["-m", "map", blank, run], capsys)
    assert status == 0 and out == cli(["-m", "map", qrels, run], capsys)[1]
    assert "blank.qrels: skipped 1 line (2): blank" in err


# ================================== needs searchgrade/trec_eval.py (its helper's change): relstring, official.N
def test_relstring_memory_follows_the_run_not_n(files, capsys):
    import tracemalloc
    tracemalloc.start()
    status, out, _ = cli(["-q", "-m", "relstring.10000000", *files], capsys)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert status == 0 and "relstring_10000000    \tq1\t'21'" in out
    assert peak < 5 << 20


def test_relstring_beyond_64_bits_is_no_traceback(files, capsys):
    status, out, err = cli(["-q", "-m", "relstring.1e19", *files], capsys)
    assert "Traceback" not in err and (status != 0 and "relstring" in err or "'21'" in out)


def test_a_set_of_measures_takes_no_parameter(files, capsys):
    status, _, err = cli(["-m", "official.5", *files], capsys)
    assert status != 0 and "official" in err and "unknown measure" not in err and "no parameter" in err


def test_n_beyond_64_bits_is_capped(files, capsys):
    utility = ["-m", "utility.1,-1,0,1"]
    capped = cli(["-N", str(LONG_MAX), *utility, *files], capsys)
    assert cli(["-N", "99999999999999999999", *utility, *files], capsys) == capped


def test_input_warning_points_at_the_callers_line(tmp_path):
    """An InputWarning is attributed to the first frame outside searchgrade (any of its packages), not to io/."""
    path = tmp_path / "blank.qrels"
    path.write_text("q1 0 d1 1\n\nq1 0 d2 0\n")
    import searchgrade

    for read in (read_qrels, lambda p: searchgrade.evaluate(p, {"q1": {"d1": 1.0}}, ["P@1"])):
        with pytest.warns(InputWarning) as caught:
            read(path)
        assert [w.filename for w in caught if w.category is InputWarning] == [__file__]
