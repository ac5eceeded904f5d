"""searchgrade.trec_eval reproduces trec_eval 10.0's own test outputs line by line."""
import subprocess
import sys

import pytest

from searchgrade.trec_eval import main, run_trec_eval

# (expected output file, command-line arguments) exactly as in trec_eval's Makefile quicktest
CASES = {
    "out.test": ([], "qrels.test"),
    "out.test.a": (["-m", "all_trec"], "qrels.test"),
    "out.test.aq": (["-m", "all_trec", "-q"], "qrels.test"),
    "out.test.aql": (["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level"),
}


def parse(text):
    """Lines of trec_eval output as (name, qid, value) triples."""
    out = []
    for line in text.splitlines():
        name, qid, value = line.split("\t")
        assert len(name) >= 22, line  # %-22s
        out.append((name.rstrip(" "), qid, value))
    return out


def same_value(a, b):
    """Equal to 4 decimals (numbers), or identical text (runid, relstring)."""
    try:
        return abs(float(a) - float(b)) < 0.5e-4 + 1e-12
    except ValueError:
        return a == b


@pytest.mark.parametrize("expected_file", list(CASES))
def test_reproduces_trec_eval_output_line_by_line(trec_dir, capsys, expected_file):
    args, qrels = CASES[expected_file]
    assert main(args + [str(trec_dir / qrels), str(trec_dir / "results.test")]) == 0
    ours = parse(capsys.readouterr().out)
    theirs = parse((trec_dir / expected_file).read_text())
    # out.test.aql holds graded rbp lines: trec_eval 10.0's m_rbp.c rescales graded gains with
    # uninitialised min/max (undefined behaviour).  searchgrade defines graded RBP as
    # grade / (largest grade of the query), which happens to give the printed values here, so
    # no line is skipped; test_graded_rbp_is_documented_definition pins our definition down.
    assert len(ours) == len(theirs)
    for i, (o, t) in enumerate(zip(ours, theirs), 1):
        assert o[:2] == t[:2], f"line {i}: {o} vs {t}"
        assert same_value(o[2], t[2]), f"line {i}: {o} vs {t}"


@pytest.mark.parametrize("expected_file", list(CASES))
def test_output_is_byte_identical(trec_dir, expected_file):
    args, qrels = CASES[expected_file]
    from searchgrade.cli.trec_eval.args import parse_args

    o = parse_args(args + [str(trec_dir / qrels), str(trec_dir / "results.test")])
    text = run_trec_eval(o["qrels_path"], o["run_path"], o["measures"], query=o["query"],
                         rel_level=o["rel_level"])
    assert text == (trec_dir / expected_file).read_text()


def test_graded_rbp_is_documented_definition(trec_dir, graded_qrels, trec_run):
    import searchgrade as sg

    def column(name):  # one measure at a time: two spellings of one measure cannot share a call
        return sg.evaluate(graded_qrels, trec_run, [name]).iloc[:, 0]

    df = {name: column(name) for name in ("rbp", "RBP(p=0.9)", "RBP(p=0.9,rel=1)")}
    # rbp == RBP(p=0.9): gain = grade / max grade of the query's qrels
    assert df["rbp"].tolist() == df["RBP(p=0.9)"].tolist()
    # query 301: every retrieved relevant document has grade 1 and the query's largest grade is 4,
    # so graded RBP is a quarter of binary RBP
    top = max(g for g in graded_qrels["301"].values())
    assert top == 4
    assert df["rbp"]["301"] == pytest.approx(df["RBP(p=0.9,rel=1)"]["301"] / 4)


def test_runs_as_a_module(trec_dir):
    proc = subprocess.run([sys.executable, "-m", "searchgrade.trec_eval", "-m", "map", "-m", "P.5,10",
                           str(trec_dir / "qrels.test"), str(trec_dir / "results.test")],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.splitlines() == ["map                   \tall\t0.1785",
                                        "P_5                   \tall\t0.2667",
                                        "P_10                  \tall\t0.3000"]


def test_options_M_c_and_J(trec_dir, tmp_path, capsys):
    qrels = str(trec_dir / "qrels.test")
    # -M5: only the top 5 per query
    assert main(["-M5", "-m", "num_ret", "-m", "P.5", qrels, str(trec_dir / "results.test")]) == 0
    out = parse(capsys.readouterr().out)
    assert ("num_ret", "all", "15") in out and ("P_5", "all", "0.2667") in out
    # -c: a run missing query 303 is averaged over all 3 qrels queries
    run = tmp_path / "two.run"
    run.write_text("".join(line + "\n" for line in (trec_dir / "results.test").read_text().splitlines()
                           if not line.startswith("303")))
    main(["-m", "num_q", "-m", "P.10", qrels, str(run)])
    plain = dict((n, v) for n, _, v in parse(capsys.readouterr().out))
    main(["-c", "-m", "num_q", "-m", "P.10", qrels, str(run)])
    complete = dict((n, v) for n, _, v in parse(capsys.readouterr().out))
    assert plain["num_q"] == "2" and complete["num_q"] == "3"
    assert float(complete["P_10"]) == pytest.approx(float(plain["P_10"]) * 2 / 3, abs=1e-4)
    # -J: judged documents only
    main(["-J", "-m", "num_ret", qrels, str(trec_dir / "results.test")])
    assert int(parse(capsys.readouterr().out)[0][2]) < 1500


def test_bad_command_lines(trec_dir, capsys):
    qrels, run = str(trec_dir / "qrels.test"), str(trec_dir / "results.test")
    assert main(["-m", "frobnicate", qrels, run]) == 2
    assert "unknown measure 'frobnicate'" in capsys.readouterr().err
    assert main([qrels]) == 2
    assert "expected two files" in capsys.readouterr().err
    assert main(["-l", "x", qrels, run]) == 2
    assert "-l needs an integer" in capsys.readouterr().err
    assert main(["-m", "P.a,b", qrels, run]) == 2
    assert "measure P.a,b: cut-off 'a' is not a number" in capsys.readouterr().err
    for args, why in [(["-Z", "z.txt"], "-Z (z-scores) is not supported"), (["-R", "prefs"], "is not supported"),
                      (["--frob"], "unknown option --frob"), (["--Re"], "ambiguous option --Re"),
                      (["-x"], "unknown option -x"), (["-M"], "-M needs an integer"), (["-N", "0"], "at least 1"),
                      (["--nosummary=1"], "takes no value")]:
        assert main(args + [qrels, run]) == 2, args
        assert why in capsys.readouterr().err, args


def test_version_and_help(capsys):
    assert main(["-v"]) == 0
    assert "trec_eval version 10.0-rc3" in capsys.readouterr().err
    assert main(["-q", "--help"]) == 0  # trec_eval reads every option first
    assert capsys.readouterr().out.startswith("usage:")


def test_bad_input_file_names_file_and_line(trec_dir, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 doc1 1 0.5 r\n301 Q0 doc2 2 nan r\n")
    assert main([str(trec_dir / "qrels.test"), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.run:2" in err


# trec_eval 10.0's printed names for parameterised measures (meas_init.c), checked against the real
# program in test_metrics_differential.py; here without a C compiler
NAMES = {
    "set_F.0.5": ["set_F_0.5"], "set_F.1.0": ["set_F_1.0"], "rbp.p=0.95": ["rbp_p=0.95"],
    "rbp_resid.p=0.5": ["rbp_resid_p=0.5"], "11pt_avg.0.25,0.5,0.75": ["11pt_avg_0.25,0.5,0.75"],
    "utility.2,-1,0,0": ["utility_2,-1,0,0"], "ndcg_cut.10,20,23.4": ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"],
    "P.20,5": ["P_5", "P_20"], "iprec_at_recall.0.125,1": ["iprec_at_recall_0.12", "iprec_at_recall_1.00"],
    "Rprec_mult.0.5": ["Rprec_mult_0.50"], "relstring.3": ["relstring_3"], "set_F": ["set_F"], "rbp": ["rbp"],
}


@pytest.mark.parametrize("form", list(NAMES))
def test_parameterised_names_as_trec_eval_prints_them(trec_dir, form):
    out = run_trec_eval(trec_dir / "qrels.test", trec_dir / "results.test", [form], query=True)
    names = list(dict.fromkeys(line.split("\t")[0].rstrip() for line in out.splitlines()))
    assert names == NAMES[form]


def _values(text: str) -> dict:
    """{(name, qid): float value} of trec_eval output."""
    return {(n.rstrip(), q): float(v) for n, q, v in (line.split("\t") for line in text.splitlines())}


def test_parameter_values(trec_dir):
    qrels, run = trec_dir / "qrels.test", trec_dir / "results.test"
    v = _values(run_trec_eval(qrels, run, ["ndcg_cut.23.4", "num_ret", "num_rel", "num_rel_ret", "set_P",
                                            "set_recall", "set_F.4", "utility.2,-1,0.5,0", "rbp", "rbp_resid",
                                            "iprec_at_recall.0.25,0.5,0.75", "11pt_avg.0.25,0.5,0.75"], query=True))
    w = _values(run_trec_eval(qrels, run, ["ndcg_cut.23", "rbp.p=0.9", "rbp_resid.p=0.9"], query=True))
    for q in ("301", "302", "303", "all"):
        assert v["ndcg_cut_23", q] == w["ndcg_cut_23", q]  # 23.4 is read as 23, as trec_eval's atol does
        assert (v["rbp", q], v["rbp_resid", q]) == (w["rbp_p=0.9", q], w["rbp_resid_p=0.9", q])  # p = 0.9
        levels = [v[f"iprec_at_recall_{x}", q] for x in ("0.25", "0.50", "0.75")]
        assert v["11pt_avg_0.25,0.5,0.75", q] == pytest.approx(sum(levels) / 3, abs=1e-4)
    for q in ("301", "302", "303"):  # utility.a,b,c,d = a*n + b*(ret - n) + c*(R - n)
        P, R = v["set_P", q], v["set_recall", q]
        assert v["set_F_4", q] == pytest.approx(5 * P * R / (4 * P + R), abs=1e-4)  # x = beta^2 = 4
        n, ret, rel = v["num_rel_ret", q], v["num_ret", q], v["num_rel", q]
        assert v["utility_2,-1,0.5,0", q] == 2 * n - (ret - n) + 0.5 * (rel - n)


def test_summary_is_summed_in_query_order(tmp_path):
    """Eight queries whose P_20 mean is 0.50625: numpy's pairwise sum gives 0.5062, trec_eval's loop 0.5063."""
    hits = [20, 12, 6, 3, 15, 0, 12, 13]
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d{j} 1\n" for i in range(8) for j in range(20)))
    (tmp_path / "run").write_text("".join(f"q{i} Q0 {'d' if j < k else 'x'}{j} {j + 1} {20 - j} r\n"
                                          for i, k in enumerate(hits) for j in range(20)))
    out = run_trec_eval(tmp_path / "qrels", tmp_path / "run", ["P.20"])
    assert out == "P_20                  \tall\t0.5063\n"


REFUSED = {  # trec_eval 10.0 reads these without complaint but misreads or ignores them
    "P.5x": "cut-off '5x' is not a whole number (trec_eval's atol would read it as 5)",
    "P.1e3": "cut-off '1e3' is not a whole number (trec_eval's atol would read it as 1)",
    "P.0,5": "cut-offs must be positive", "P.5,5.5": "duplicate cut-offs", "map.5": "map takes no parameters",
    "rbp.q=3": "unknown parameter 'q'", "rbp.0.5": "not of the form name=value",
    "rbp_resid.2=1": "unknown parameter '2'", "rbp.p=1.5": "p=1.5 must lie strictly between 0 and 1",
    "set_F.0.5,3": "takes 1 value", "set_F.0": "must be positive", "utility.1,2": "takes 4 value",
    "utility.1,-1,0,1": "needs the collection size", "11pt_avg.0.5,0.2": "in increasing order",
    "relstring.2,3": "one length expected", "iprec_at_recall.1.5": "must lie in [0, 1]",
    "ndcg.x=3": "unknown parameter 'x'", "ndcg.-1=3": "negative grades", "ndcg.1=2,1=3": "given twice",
    "rbp.p=0.5,p=0.6": "given twice", "G.1=x": "'x' is not a number", "P.": "no parameters",
}


@pytest.mark.parametrize("form", list(REFUSED))
def test_refused_parameters_name_the_measure(trec_dir, capsys, form):
    assert main(["-m", form, str(trec_dir / "qrels.test"), str(trec_dir / "results.test")]) == 2
    err = capsys.readouterr().err
    assert REFUSED[form] in err and form.split(".")[0] in err


def test_measure_given_twice_with_different_parameters(trec_dir, capsys):
    qrels, run = str(trec_dir / "qrels.test"), str(trec_dir / "results.test")
    assert main(["-m", "P.5", "-m", "P.10", qrels, run]) == 2
    assert "P is given twice with different parameters" in capsys.readouterr().err
    assert main(["-m", "P.5", "-m", "P.5", "-m", "P", "-m", "official", qrels, run]) == 0  # the same, or defaults
    assert [line.split("\t")[0].rstrip() for line in capsys.readouterr().out.splitlines()][-1] == "P_5"


def test_both_files_from_standard_input_is_refused(capsys):
    assert main(["-", "-"]) == 2
    assert "only one of QRELS and RUN" in capsys.readouterr().err


def test_no_common_query_is_an_error(trec_dir, tmp_path, capsys):
    (tmp_path / "run").write_text("999 Q0 d1 1 1.0 r\n")
    assert main([str(trec_dir / "qrels.test"), str(tmp_path / "run")]) == 1
    assert "no query has both results" in capsys.readouterr().err


def test_reader_warnings_go_to_stderr(trec_dir, tmp_path, capsys):
    run = tmp_path / "commented.run"
    run.write_text("# made by hand\n" + (trec_dir / "results.test").read_text() + "\n\n")
    assert main(["-m", "map", str(trec_dir / "qrels.test"), str(run)]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(f"trec_eval: warning: {run}: ") and "comment" in captured.err
    assert captured.err.count("\n") == 1
    assert captured.out == "map                   \tall\t0.1785\n"


def test_files_and_dicts_take_one_ranking_path(trec_dir, tmp_path):
    """Evaluator ranks a file (read into columns, as the command line reads it) and the same run as dicts
    into the same contexts, for every tie rule, -c, -M and -J, and gives the same values."""
    import warnings

    import numpy as np

    import searchgrade as sg

    rng = np.random.default_rng(5)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1, 4)) for d in rng.choice(60, 25, replace=False)}
             for q in range(40)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(80, 50, replace=False)}
           for q in range(5, 45)}
    sg.write_qrels(qrels, tmp_path / "qrels")
    with open(tmp_path / "run", "w") as fh:  # in the dicts' order, unsorted: ties and order as given
        fh.writelines(f"{q} Q0 {d} 0 {s!r} r\n" for q, docs in run.items() for d, s in docs.items())
    settings = [("trec", "ignore", None, False), ("trec", "zero", 7, False), ("trec", "ignore", None, True),
                ("input", "ignore", 9, False), ("expected", "zero", None, False)]
    fields = ("seg", "rank", "grade", "judged", "nonpool", "nret", "qseg", "qgrade", "qrank")
    for ties, missing, max_docs, judged_only in settings:
        options = dict(ties=ties, missing=missing, max_docs=max_docs, judged_only=judged_only)
        measures = ["P@5", "AP", "nDCG@10"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from_files = sg.Evaluator(tmp_path / "qrels", measures, **options)
            from_dicts = sg.Evaluator(qrels, measures, **options)
            rows, ctx = from_files.rank(tmp_path / "run", exact=True)
            rows2, ctx2 = from_dicts.rank(run, exact=True)
            pd_files, pd_dicts = from_files.evaluate(tmp_path / "run"), from_dicts.evaluate(run)
        assert rows == rows2
        for field in fields:
            assert np.array_equal(getattr(ctx, field), getattr(ctx2, field)), (ties, field)
        assert ctx.docids() == ctx2.docids()
        assert pd_files.equals(pd_dicts)


def test_reader_reports_go_to_stderr(trec_dir, tmp_path, capsys):
    """What the readers skip ('#' lines in a run) is reported on standard error; stdout is trec_eval's."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"# made by hand\n" + (trec_dir / "results.test").read_bytes())
    assert main(["-m", "map", str(trec_dir / "qrels.test"), str(run)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "map                   \tall\t0.1785\n"
    assert f"{run}: skipped 1 line (1) starting with '#'" in captured.err


# ------------------------------------------------------------- issue 20's CLI defects
def test_complete_num_rel_summary_is_trec_eval_count(tmp_path, capsys):
    """B1: with -c and -l 2 trec_eval 10.0's num_rel 'all' line counts every judgment with a grade above 0
    (m_num_rel.c's average for -c reads the qrels); the CLI prints that, the API keeps the sum of queries."""
    import searchgrade as sg

    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 2\n")
    (tmp_path / "run").write_text("q Q0 a 1 1 r\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert main(["-q", "-c", "-l", "2", "-m", "num_rel", *files]) == 0
    assert capsys.readouterr().out == "num_rel               \tq\t1\nnum_rel               \tall\t2\n"
    assert main(["-q", "-l", "2", "-m", "num_rel", *files]) == 0  # without -c: the sum of the queries
    assert capsys.readouterr().out.endswith("num_rel               \tall\t1\n")
    assert sg.mean({"q": {"a": 1, "b": 2}}, {"q": {"a": 1.0}}, ["NumRel(rel=2)"]).tolist() == [1]


def test_two_parameters_printed_under_one_name_keep_their_values(tmp_path, capsys):
    """B2: 0.7453 and 0.75 both print as iprec_at_recall_0.75; R = 2 needs lround(1.49) = 1 and
    lround(1.5) = 2 relevant documents, so trec_eval prints 1.0000 then 0.6667 (not one value twice)."""
    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 d 0\n")
    (tmp_path / "run").write_text("q Q0 a 1 1 r\nq Q0 d 2 0.9 r\nq Q0 b 3 0.8 r\n")
    assert main(["-q", "-m", "iprec_at_recall.0.7453,0.75", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    name = f"{'iprec_at_recall_0.75':<22s}"
    assert capsys.readouterr().out == (f"{name}\tq\t1.0000\n{name}\tq\t0.6667\n"
                                       f"{name}\tall\t1.0000\n{name}\tall\t0.6667\n")


def test_skipped_queries_are_reported_on_stderr(tmp_path, capsys):
    """Qrels queries without results (no -c) and run queries without qrels: trec_eval skips them silently;
    the CLI says so on standard error, and its standard output stays trec_eval's."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 a 1\nq3 0 b 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1 r\nq9 Q0 a 1 1 r\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert main(["-m", "num_q", *files]) == 0
    captured = capsys.readouterr()
    assert captured.out == "num_q                 \tall\t1\n"
    assert "2 qrels queries are not in the run" in captured.err and "q2, q3" in captured.err
    assert "1 run query has no qrels" in captured.err and "q9" in captured.err
    assert main(["-c", "-m", "num_q", *files]) == 0  # -c scores them: only the run-only query is reported
    captured = capsys.readouterr()
    assert captured.out == "num_q                 \tall\t3\n" and "not in the run" not in captured.err


def test_closed_pipe_ends_quietly(trec_dir):
    """A reader that stops early (`| head -1`): no '[Errno 32] Broken pipe', killed by SIGPIPE as trec_eval is."""
    import os
    import signal

    cmd = [sys.executable, "-m", "searchgrade.trec_eval", "-q", "-m", "all_trec", str(trec_dir / "qrels.test"),
           str(trec_dir / "results.test")]
    read, write = os.pipe()
    os.close(read)  # nobody reads: the first write fails at once
    proc = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, text=True)
    os.close(write)
    assert proc.stderr == "" and proc.returncode == -signal.SIGPIPE


def test_closed_pipe_from_python_returns_141(trec_dir, monkeypatch, capsys):
    """Called from Python, main() returns the shell's status for SIGPIPE instead of killing its caller."""
    import io

    class Closed(io.BytesIO):
        def write(self, data):
            raise BrokenPipeError(32, "Broken pipe")

    fake = io.TextIOWrapper(Closed())
    monkeypatch.setattr(sys, "stdout", fake)
    assert main(["-q", "-m", "map", str(trec_dir / "qrels.test"), str(trec_dir / "results.test")]) == 141
    monkeypatch.undo()
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------- one engine (issue 21)
def test_summaries_add_queries_in_trec_eval_order_one_after_another():
    """aggregate() adds the queries up as trec_eval does: ids in strcmp order (q10, q11, q9), one value after
    another.  Here that order keeps the 1.0 (1e16 - 1e16 + 1); natural order (q9 first) or a pairwise sum
    would lose it."""
    import pandas as pd

    import searchgrade as sg

    df = pd.DataFrame({"AP": [1.0, 1e16, -1e16]}, index=pd.Index(["q9", "q10", "q11"], name="qid"))
    assert sg.aggregate(df)["AP"] == 1.0 / 3


def test_api_and_cli_share_one_aggregation(trec_dir, capsys):
    """The command line prints the Evaluator's summaries: for every official value, aggregate() of
    evaluate()'s table gives the number Evaluator.summarize gives, and the CLI's 'all' line prints it."""
    import searchgrade as sg
    from searchgrade.cli.trec_eval.plan import plan
    from searchgrade.cli.trec_eval.printer import printf

    lines = [line for line in plan(["official"], 1) if line.measure is not None]
    measures = list({line.measure.key: line.measure for line in lines}.values())
    qrels, run = trec_dir / "qrels.test", trec_dir / "results.test"
    ev = sg.Evaluator(qrels, measures)
    summaries = ev.summarize(ev.scores(run))
    assert summaries == sg.aggregate(ev.evaluate(run)).to_dict()
    assert main(["-m", "official", str(qrels), str(run)]) == 0
    printed = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    by_name = {m.key: m.name for m in ev.measures}
    expected = [summaries[by_name[line.measure.key]] for line in lines]
    assert [text for name, _, text in printed if name.strip() != "runid"] == [
        str(v) if isinstance(v, int) else printf(v) for v in expected]


def test_files_and_dicts_mix_in_any_combination(trec_dir):
    """qrels and run each as a file (read into columns) or as dicts: the same table, for every tie rule."""
    import warnings

    import searchgrade as sg

    qrels, run = trec_dir / "qrels.test", trec_dir / "results.test"
    measures = ["AP", "P@5", "nDCG@10", "RR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ties in ("trec", "input", "expected"):
            tables = [sg.evaluate(q, r, measures, ties=ties) for q in (qrels, sg.read_qrels(qrels))
                      for r in (run, sg.read_run(run))]
            assert all(t.equals(tables[0]) for t in tables[1:]), ties
