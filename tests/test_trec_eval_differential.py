"""searchgrade.trec_eval against the real trec_eval 10.0, line by line, on generated qrels and runs.

Hypothesis draws graded qrels (negative grades, a grade above 9), runs with heavy score
ties written in several spellings, queries missing on either side, documents not in the
qrels and odd but valid ids (digits, leading zeros, punctuation, Korean); both programs
read the same files and their complete outputs must be identical.  trec_eval 10.0 is
built from its official source (tests/trec_eval_oracle.py); without a C compiler every
test here is skipped with that reason.

Two rules keep the comparison honest where trec_eval 10.0 itself fails:

* without ``-c``, 10.0 exits 4 when a qrels query has no results; searchgrade skips such
  a query as trec_eval 9.x did, so trec_eval gets the qrels of the run's queries only
  (test_missing_qrels_query_is_skipped shows both halves);
* 10.0's ``rbp`` reads two uninitialised variables (m_rbp.c's min and max): the oracle is
  built with zeroed locals where the compiler can (gcc 12, clang 16), and then rbp is
  compared like every other value; on other builds its lines are left out.

SEARCHGRADE_DIFFERENTIAL_SCALE=10 multiplies the number of examples (a deeper search than make
test's).  Every value is compared exactly, to the last printed digit.  What used to differ is
pinned by a test each at the end (the run id, set_map's formula, RBP's powers, the interpolated
precision's maximum, set_F's beta^2, gains per grade); what still differs on purpose is tested
as searchgrade's documented behaviour (where trec_eval 10.0 fails, above them).
"""
from __future__ import annotations

import io
import math
import os
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import searchgrade
import trec_eval_oracle as oracle

pytestmark = pytest.mark.skipif(oracle.missing_reason() is not None, reason=str(oracle.missing_reason()))

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "data" / "raw" / "trec_eval_test"

QIDS = ["1", "10", "9", "01", "q-1", "Q_2", "a.b", "질의3", "x:y/z", "Q", "q", "zz"]
DOCS = ["d1", "d10", "d2", "D01", "doc-3", "문서7", "a", "b.c", "Z", "d1x", "d#1", "e", "f", "가", "g0", "g00"]
GRADES = [-1, -2, 0, 0, 0, 1, 1, 2, 3, 12]
BINARY = [-1, 0, 0, 1, 1]
# equal values in different spellings ("1", "1.0", "1e0", "+1"), so ties are frequent
SCORES = ["1", "1.0", "1e0", "+1", "0.5", ".5", "2", "2.", "-1", "0", "-0", "3.25", "1e-3", "1E2", "0.1",
          "0.30000000000000004"]
# SEARCHGRADE_DIFFERENTIAL_SCALE=10 runs ten times the examples (a deeper search, outside make test)
SCALE = float(os.environ.get("SEARCHGRADE_DIFFERENTIAL_SCALE", "1"))


def examples(n: int) -> int:
    """n examples, times SCALE."""
    return max(1, round(n * SCALE))


# derandomised (the same examples every run) and not shrunk: a failure is reported as drawn, at once
SETTINGS = dict(deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ============================================================== probes
def _works(probe) -> bool:
    """Whether probe() runs without an exception (warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe()
    except Exception:
        return False
    return True


def _stdin_run():
    """read_run('-') with a one-line run on standard input."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(b"q Q0 d 1 1.0 r\n"), encoding="utf-8")
    try:
        assert searchgrade.read_run("-") == {"q": {"d": 1.0}}
    finally:
        sys.stdin = saved


def _stdin_qrels():
    """read_qrels('-') with a one-line qrels on standard input."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(b"q 0 d 1\n"), encoding="utf-8")
    try:
        assert searchgrade.read_qrels("-") == {"q": {"d": 1}}
    finally:
        sys.stdin = saved


def _c_whitespace():
    """A no-break space is part of an id, as in trec_eval (C's isspace)."""
    assert searchgrade.parse_run("q Q0 d\u00a0x 1 1.0 r\n") == {"q": {"d\u00a0x": 1.0}}


# what searchgrade.io and metrics can do now (the probes of the remaining(...) tests below)
IO_EXTRA_FIELDS = _works(lambda: searchgrade.parse_run("q Q0 d 1 1.0 r extra 7\n"))
IO_RUN_COMMENTS = _works(lambda: searchgrade.parse_run("# c\nq Q0 d 1 1.0 r\n"))
IO_QRELS_COMMENTS = _works(lambda: searchgrade.parse_qrels("# c\nq 0 d 1\n"))
IO_STDIN_RUN, IO_STDIN_QRELS = _works(_stdin_run), _works(_stdin_qrels)
IO_C_WHITESPACE = _works(_c_whitespace)


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> Path:
    """trec_eval 10.0, built once per test session from the official source."""
    return oracle.built_once(tmp_path_factory.mktemp("trec_eval_build"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder for the generated files (overwritten by every example)."""
    return tmp_path_factory.mktemp("differential")


# ============================================================== generated data
@st.composite
def collections(draw, max_queries=6, judged_in_run=False, grades=GRADES):
    """(qrels, run): {qid: {docno: grade}}, {qid: {docno: score text}}; at least one query in common.

    Every qrels query has a judgment with grade >= 0 (a query with only negative grades
    crashes trec_eval 10.0: test_query_with_only_negative_grades).  judged_in_run: every run
    query with qrels ranks a judged document first.
    """
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=max_queries, unique=True))
    qrels = {}
    for q in qids:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        g = [draw(st.sampled_from(grades)) for _ in docs]
        if max(g) < 0:
            g[0] = draw(st.sampled_from([0, 1, 2]))
        qrels[q] = dict(zip(docs, g))
    in_run = [q for q in qids if draw(st.booleans())]
    others = draw(st.lists(st.sampled_from([q for q in QIDS if q not in qrels]), max_size=2, unique=True))
    run_qids = (in_run or [qids[0]]) + others
    run = {}
    for q in run_qids:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        run[q] = {d: draw(st.sampled_from(SCORES)) for d in docs}
        if judged_in_run and q in qrels:  # a judged document ranked first, so -J -M leaves it
            run[q][next(d for d, g in qrels[q].items() if g >= 0)] = "1e9"
    return qrels, run


def file_style():
    """Field separator and line end of the written files (trec_eval and searchgrade read any whitespace)."""
    return st.tuples(st.sampled_from([" ", "\t", "  ", " \t"]), st.sampled_from(["\n", "\r\n", " \n"]))


def cutoffs(top=30):
    """Long cut-offs as text, in any order; some with a fraction that trec_eval truncates (23.4 -> 23)."""
    def text(ks, fractions):
        return ",".join(f"{k}.{f}" if f else str(k) for k, f in zip(ks, fractions))
    ks = st.lists(st.integers(1, top), min_size=1, max_size=4, unique=True)
    return ks.flatmap(lambda k: st.lists(st.sampled_from(["", "", "4", "9", "0"]), min_size=len(k),
                                         max_size=len(k)).map(lambda f: text(k, f)))


def subset(values, min_size=1, max_size=4, ordered=False):
    """A comma-separated subset of values (text), shuffled unless ordered."""
    pick = st.lists(st.sampled_from(values), min_size=min_size, max_size=max_size, unique=True)
    if ordered:
        return pick.map(lambda v: ",".join(sorted(v, key=float)))
    return pick.flatmap(st.permutations).map(",".join)


LEVELS = ["0", "0.0", "0.05", "0.1", "0.125", "0.25", "0.333", "0.5", ".75", "0.9", "1", "1.0"]
# gains per grade: fractions closer than 1 to another gain (trec_eval orders them with a comparator that
# truncates differences to integers), 0 and negative gains, grade 0, grades above the largest judged
GAIN_VALUES = ["3", "9", "4.5", "0", "-1", "0.5", "2.5", "1", "3.2", "10", "1.5", "2.2", "0.3"]
# Rndcg divides 0 by 0 when the last of trec_eval's gain levels gains <= 0 (test_rndcg_without_a_walk)
RNDCG_GAIN_VALUES = [v for v in GAIN_VALUES if float(v) >= 1]


def gain_pairs(values=GAIN_VALUES, min_size=1):
    """grade=gain pairs as trec_eval's -m text: ``1=3,2=4.5``."""
    pairs = st.lists(st.tuples(st.sampled_from(["0", "1", "2", "3", "12", "5", "+1", "02"]),
                               st.sampled_from(values)), min_size=min_size, max_size=4,
                     unique_by=lambda pair: int(pair[0]))
    return pairs.map(lambda ps: ",".join(f"{g}={v}" for g, v in ps))


# measure -> strategy for its -m text
PARAMETERISED = {
    "P": cutoffs(), "recall": cutoffs(), "ndcg_cut": cutoffs(), "map_cut": cutoffs(), "relative_P": cutoffs(),
    "success": cutoffs(12), "unj": cutoffs(12),
    "iprec_at_recall": subset(["0", "0.05", "0.1", "0.125", "0.25", "0.333", "0.5", ".75", "0.9", "1"]),
    "Rprec_mult": subset(["0.2", "0.5", "1", "1.5", "2", "3.0", "0.125"]),
    "11pt_avg": subset(LEVELS[2:], max_size=5, ordered=True),
    "rbp": st.tuples(st.sampled_from(["0.5", "0.8", "0.95", "0.9", "0.25"]).map("p={}".format),
                     st.one_of(st.just(""), gain_pairs())).map(lambda t: ",".join(filter(None, t))),
    "set_F": st.sampled_from(["0.25", "4", "1", "2.25", "1.0", "0.5", "0.3", "2", "7", "0.1"]),
    "ndcg": gain_pairs(), "ndcg_rel": gain_pairs(), "G": gain_pairs(), "Rndcg": gain_pairs(RNDCG_GAIN_VALUES),
    "relstring": st.sampled_from(["0", "1", "3", "5", "12", "2.5", "10.0"]),
    "utility": st.tuples(st.sampled_from(["1", "2", "0.5", "-1", "3.5"]),
                         st.sampled_from(["-1", "-2", "0", "0.5"]),
                         st.sampled_from(["0", "-1", "0.5", "-2"]), st.sampled_from(["0", "0.0"])).map(",".join),
    "rbp_resid": st.sampled_from(["0.5", "0.8", "0.95", "0.9"]).map("p={}".format),
}
# with -c these print trec_eval's phantom-document values for missing queries (test_complete_phantom_document)
PHANTOM = {"utility", "rbp_resid", "relstring"}


@st.composite
def measure_args(draw, complete=False):
    """-m arguments: parameterised measures, sometimes with a set or a plain measure beside them."""
    roots = [r for r in PARAMETERISED if not (complete and r in PHANTOM)]
    chosen = draw(st.lists(st.sampled_from(roots), min_size=1, max_size=5, unique=True))
    args = []
    for root in chosen:
        args += ["-m", f"{root}.{draw(PARAMETERISED[root])}"]
    extra = draw(st.sampled_from([[], ["-m", "official"], ["-m", "set"], ["-m", "map", "-m", "ndcg"]]))
    return extra + args


# ================================================================== comparison
# trec_eval 10.0's rbp reads m_rbp.c's uninitialised min and max: defined only on a build with zeroed locals
# (tests/trec_eval_oracle.py); elsewhere its lines are left out of the comparison.
UNDEFINED_RBP = ("rbp ", "rbp_p=")


def _defined(result: oracle.Result, binary: Path) -> oracle.Result:
    """result without the rbp lines if binary's rbp is undefined behaviour."""
    if oracle.zero_initialised(binary):
        return result
    kept = [line for line in result.out.splitlines(keepends=True) if not line.startswith(UNDEFINED_RBP)]
    return oracle.Result(result.rc, "".join(kept), result.err)


def assert_same(c: oracle.Result, p: oracle.Result) -> None:
    """Both succeeded and printed the same text, byte for byte; else the first differing lines."""
    assert c.rc == 0, f"trec_eval 10.0 failed (exit {c.rc}): {c.err}"
    assert p.rc == 0, f"searchgrade failed (exit {p.rc}): {p.err}"
    if p.out == c.out:
        return
    cl, pl = c.lines(), p.lines()
    diffs = [f"line {i}:\n  trec_eval   {a!r}\n  searchgrade {b!r}" for i, (a, b) in enumerate(zip(cl, pl), 1) if a != b]
    raise AssertionError(f"{len(cl)} lines from trec_eval, {len(pl)} from searchgrade; {len(diffs)} differ:\n"
                         + "\n".join(diffs[:8]))


assert_identical = assert_same


def compare(binary, workdir, args, qrels, run, style=(" ", "\n"), runid="sg"):
    """Run both on the same files; without -c trec_eval gets the qrels of the run's queries only."""
    sep, eol = style
    full = oracle.write_qrels(workdir / "qrels", qrels, sep, eol)
    runf = oracle.write_run(workdir / "run", run, runid, sep, eol)
    theirs = full
    if "-c" not in args:  # trec_eval 10.0 exits 4 on a qrels query without results: give it 9.x's view
        theirs = oracle.write_qrels(workdir / "qrels.in_run", {q: d for q, d in qrels.items() if q in run},
                                    sep, eol)
    assert_same(_defined(oracle.run_c(binary, [*args, theirs, runf]), binary),
                _defined(oracle.run_py([*args, full, runf]), binary))


# ============================================================ the main sweep
@settings(max_examples=examples(50), **SETTINGS)
@given(data=st.one_of(collections(), collections(grades=BINARY)), style=file_style())
def test_all_trec_per_query(binary, workdir, data, style):
    compare(binary, workdir, ["-q", "-m", "all_trec"], *data, style)


@settings(max_examples=examples(40), **SETTINGS)
@given(data=collections())
def test_all_trec_complete(binary, workdir, data):
    compare(binary, workdir, ["-q", "-c", "-m", "all_trec"], *data)


@settings(max_examples=examples(30), **SETTINGS)
@given(data=collections(), max_docs=st.integers(1, 6), complete=st.booleans())
def test_all_trec_max_docs(binary, workdir, data, max_docs, complete):
    compare(binary, workdir, ["-q", *(["-c"] if complete else []), "-M", str(max_docs), "-m", "all_trec"], *data)


@settings(max_examples=examples(30), **SETTINGS)
@given(data=collections(), level=st.sampled_from(["2", "3", "13"]), glued=st.booleans())
def test_all_trec_rel_level(binary, workdir, data, level, glued):
    flags = [f"-l{level}"] if glued else ["-l", level]
    compare(binary, workdir, ["-q", *flags, "-m", "all_trec"], *data)


@settings(max_examples=examples(30), **SETTINGS)
@given(data=collections(judged_in_run=True), max_docs=st.sampled_from([None, "2", "4"]))
def test_all_trec_judged_only(binary, workdir, data, max_docs):
    flags = [] if max_docs is None else ["-M", max_docs]
    compare(binary, workdir, ["-q", "-J", *flags, "-m", "all_trec"], *data)


@settings(max_examples=examples(20), **SETTINGS)
@given(data=collections(), sets=st.sampled_from([[], ["-m", "official"], ["-m", "set"], ["-m", "set", "-m", "P"],
                                                  ["-m", "all_trec"]]), query=st.booleans())
def test_summary_only_and_no_summary(binary, workdir, data, sets, query):
    """Summary lines alone (no -q), or per-query lines alone (-n)."""
    compare(binary, workdir, (["-q", "-n"] if query else []) + sets, *data)


@settings(max_examples=examples(60), **SETTINGS)
@given(data=st.one_of(collections(), collections(grades=BINARY)), args=measure_args(), query=st.booleans(),
       flags=st.sampled_from([[], ["-M", "3"], ["-l", "2"], ["-M3", "-l2"]]))
def test_parameterised_measures(binary, workdir, data, args, query, flags):
    compare(binary, workdir, (["-q"] if query else []) + flags + args, *data)


@settings(max_examples=examples(30), **SETTINGS)
@given(data=collections(), args=measure_args(complete=True))
def test_parameterised_measures_complete(binary, workdir, data, args):
    compare(binary, workdir, ["-q", "-c", *args], *data)


# ===================================================== fixed cases from the issue
ISSUE_FORMS = ["set_F.0.5", "set_F.1.0", "rbp_resid.p=0.5", "rbp.p=0.95", "11pt_avg.0.25,0.5,0.75",
               "utility.2,-1,0,0", "ndcg_cut.10,20,23.4", "P.5,10", "relstring.20", "iprec_at_recall.0.125,1",
               "Rprec_mult.0.5,3"]


@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level"])
@pytest.mark.parametrize("form", ISSUE_FORMS)
def test_parameter_forms_on_the_official_fixtures(binary, qrels, form):
    args = ["-q", "-m", form, FIXTURES / qrels, FIXTURES / "results.test"]
    assert_same(_defined(oracle.run_c(binary, args), binary), _defined(oracle.run_py(args), binary))


def test_oracle_defines_rbp(binary):
    """The oracle was built with zeroed locals, so rbp is compared too (not so: rbp lines are left out)."""
    if not oracle.zero_initialised(binary):
        pytest.skip(f"the C compiler has no {oracle.ZERO_INIT}: trec_eval's rbp lines are not compared")
    args = ["-q", "-m", "rbp", FIXTURES / "qrels.rel_level", FIXTURES / "results.test"]
    assert oracle.run_c(binary, args).out == oracle.run_py(args).out


def test_summary_is_summed_in_query_order(binary, workdir):
    """Eight queries whose P_20 mean is 0.50625 exactly: numpy's pairwise sum gives 0.5062, trec_eval's 0.5063."""
    hits = [20, 12, 6, 3, 15, 0, 12, 13]
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(20)} for i in range(8)}
    run = {f"q{i}": {f"d{j}" if j < k else f"x{j}": str(20 - j) for j in range(20)} for i, k in enumerate(hits)}
    compare(binary, workdir, ["-m", "P.20", "-m", "map"], qrels, run)
    assert "P_20                  \tall\t0.5063" in oracle.run_py(["-m", "P.20", workdir / "qrels",
                                                                  workdir / "run"]).lines()


@pytest.mark.parametrize("args", [
    ["--query_eval_wanted", "--measure=map", "--measure", "P.5,10", "--nosum"],  # long forms, prefixes
    ["-qcmndcg_cut.3", "-oJ", "-M3", "-l", "2"],  # combined letters, a value glued to its letter, -o ignored
    ["-m", "utility.1,-1,0,0.5", "-N", "1000", "-q"],  # -N: the collection size for utility's d
    ["--Number_docs_in_coll=50", "-m", "utility.2,-1,0.5,-0.25", "--Max_retr=4", "-q"],
])
def test_option_forms(binary, args):
    files = [FIXTURES / "qrels.rel_level", FIXTURES / "results.test"]
    assert_same(_defined(oracle.run_c(binary, [*args, *files]), binary), _defined(oracle.run_py([*args, *files]), binary))


# ================================== where trec_eval 10.0 fails: searchgrade's documented behaviour
def test_missing_qrels_query_is_skipped(binary, workdir):
    """10.0 exits 4 ("result qid not found in qrels"); searchgrade skips the query, as trec_eval 9.x."""
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1}, "q3": {"d3": 2}}
    run = {"q1": {"d1": "1", "d2": "2"}, "q3": {"d3": "1", "d9": "1"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    c = oracle.run_c(binary, ["-q", "-m", "all_trec", workdir / "qrels", workdir / "run"])
    assert c.rc == 4 and "result qid 'q2' not found in qrels" in c.err
    compare(binary, workdir, ["-q", "-m", "all_trec"], qrels, run)  # trec_eval given q1 and q3 only


def test_judged_only_with_nothing_left_prints_zero(binary, workdir):
    """-J and a query retrieving no judged document: 10.0 prints -nan (0/0); searchgrade 0, averaged as 0."""
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d1": 1}, "q3": {"d5": 2, "d6": 1}}
    run = {"q1": {"d1": "2", "d2": "1", "d4": "3"}, "q2": {"x": "1", "y": "2"}, "q3": {"d6": "1", "z": "5"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-J", "-m", "all_trec", workdir / "qrels", workdir / "run"]
    c, p = oracle.run_c(binary, args), oracle.run_py(args)
    assert c.rc == 0 and p.rc == 0, p.err
    cl, pl = [line.split("\t") for line in c.lines()], [line.split("\t") for line in p.lines()]
    assert [x[:2] for x in cl] == [x[:2] for x in pl]
    nan = [(a, b) for a, b in zip(cl, pl) if a[2].strip() == "-nan"]
    assert {a[0].split("_")[0] for a, _ in nan} == {"iprec", "11pt"} and {a[1] for a, _ in nan} == {"q2", "all"}
    for a, b in zip(cl, pl):
        if a[2].strip() != "-nan":
            assert a == b
        elif a[1] == "q2":
            assert b[2] == "0.0000"
        else:  # the summary: the mean of the queries' values, q2 counting 0
            per_query = [float(x[2]) if x[2].strip() != "-nan" else 0.0 for x in cl if x[0] == a[0] and x[1] != "all"]
            assert abs(float(b[2]) - sum(per_query) / 3) < 1e-4


def test_query_with_only_negative_grades(binary, workdir):
    """10.0 exits 4 on a qrels query whose judgments are all negative; searchgrade scores it with R = 0:
    the same output as trec_eval's once the query also has a grade-0 judgment of a document nobody retrieved."""
    qrels = {"q1": {"d1": -1, "d2": -2}, "q2": {"d1": 1, "d3": 0}}
    run = {"q1": {"d1": "1", "d2": "2", "d7": "0.5"}, "q2": {"d1": "1", "d3": "3"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "all_trec", workdir / "qrels", workdir / "run"]
    c = oracle.run_c(binary, args)
    assert c.rc == 4 and "Can't calculate measure" in c.err
    p = oracle.run_py(args)
    oracle.write_qrels(workdir / "qrels.zero", {"q1": {**qrels["q1"], "never": 0}, "q2": qrels["q2"]})
    assert_same(oracle.run_c(binary, ["-q", "-m", "all_trec", workdir / "qrels.zero", workdir / "run"]), p)


def test_complete_phantom_document(binary, workdir):
    """-c: 10.0 scores a missing query on a phantom one-document ranking and zeroes only the values named
    exactly num_ret, utility, relstring, unj*, rbp_resid; searchgrade scores the empty ranking."""
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1, "d5": 1}}
    run = {"q1": {"d1": "1", "d2": "2"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    files = [workdir / "qrels", workdir / "run"]
    args = ["-q", "-c", "-m", "utility.2,-1,-0.5,0", "-m", "rbp_resid.p=0.5", "-m", "relstring.5", "-m", "P.5"]
    c, p = oracle.run_c(binary, args + files), oracle.run_py(args + files)
    assert c.rc == 0 and p.rc == 0, p.err
    theirs = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in c.lines()}
    ours = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in p.lines()}
    quirks = [("utility_2,-1,-0.5,0", "-2.0000", "-1.0000"), ("rbp_resid_p=0.5", "1.0000", "0.0000"),
              ("relstring_5", "'-'", "''")]  # (name, trec_eval's q2, searchgrade's q2: c*R, 0, '')
    for name, c_value, p_value in quirks:
        assert (theirs.pop((f"{name:<22s}", "q2")), ours.pop((f"{name:<22s}", "q2"))) == (c_value, p_value)
        theirs.pop((f"{name:<22s}", "all"), None), ours.pop((f"{name:<22s}", "all"), None)  # follow from q2
    assert theirs == ours  # q1's values and P_5 are identical
    defaults = ["-q", "-c", "-m", "utility", "-m", "rbp_resid", "-m", "relstring", "-m", "unj", "-m", "num_ret"]
    assert_same(oracle.run_c(binary, defaults + files), oracle.run_py(defaults + files))  # zeroed by name


def test_qrels_blank_line(binary, workdir):
    """10.0 stops at a blank qrels line ("Malformed line"); searchgrade.io skips blank lines."""
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
    run = {"q1": {"d1": "1", "d2": "2"}, "q2": {"d3": "1"}}
    (workdir / "qrels.blank").write_text("q1 0 d1 1\n\nq1 0 d2 0\nq2 0 d3 1\n")
    oracle.write_run(workdir / "run", run)
    c = oracle.run_c(binary, ["-q", workdir / "qrels.blank", workdir / "run"])
    assert c.rc != 0 and "Malformed line" in c.err
    oracle.write_qrels(workdir / "qrels", qrels)
    assert_same(oracle.run_c(binary, ["-q", workdir / "qrels", workdir / "run"]),
                oracle.run_py(["-q", workdir / "qrels.blank", workdir / "run"]))


# ================== what used to differ: each fix pinned on the case that showed the difference
def _commented(lines: list[str]) -> str:
    return "# a comment\n" + "".join(line + ("# between lines\n" if i % 2 else "") for i, line in enumerate(lines))


def _fixture_lines(name: str) -> list[str]:
    return [line + "\n" for line in (FIXTURES / name).read_text().splitlines()]


def test_run_lines_with_extra_fields(binary, workdir):
    """trec_eval 10.0 ignores the fields after the run id; so does searchgrade.io."""
    (workdir / "run.extra").write_text("".join(line.rstrip("\n") + " extra 7\n"
                                               for line in _fixture_lines("results.test")))
    args = ["-q", "-m", "all_trec", FIXTURES / "qrels.test"]
    assert_same(oracle.run_c(binary, [*args, workdir / "run.extra"]), oracle.run_py([*args, workdir / "run.extra"]))


def test_run_comment_lines(binary, workdir):
    """trec_eval 10.0 skips '#' lines in runs; so does searchgrade.io."""
    (workdir / "run.comments").write_text(_commented(_fixture_lines("results.test")))
    args = ["-q", "-m", "all_trec", FIXTURES / "qrels.test", workdir / "run.comments"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))


def test_qrels_comment_lines(binary, workdir):
    """searchgrade.io skips '#' lines in qrels (trec_eval 10.0 crashes on them, so it is given the
    qrels without them)."""
    (workdir / "qrels.comments").write_text(_commented(_fixture_lines("qrels.test")) + "# the end\n")
    assert_same(oracle.run_c(binary, ["-m", "all_trec", FIXTURES / "qrels.test", FIXTURES / "results.test"]),
                oracle.run_py(["-m", "all_trec", workdir / "qrels.comments", FIXTURES / "results.test"]))


def test_trec_eval_fails_on_qrels_comment_lines(binary, workdir):
    """Why test_qrels_comment_lines compares with the qrels without comments: 10.0 crashes or misreads them."""
    (workdir / "qrels.last").write_text("q1 0 d1 1\nq1 0 d2 0\n# the end\n")
    (workdir / "run.small").write_text("q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 0.5 r\n")
    c = oracle.run_c(binary, ["-m", "map", workdir / "qrels.last", workdir / "run.small"])
    assert c.rc != 0 and c.out == ""  # it reads past the end of its buffer: SIGSEGV here
    (workdir / "qrels.two").write_text("# one\n# judged by me\n" + "".join(_fixture_lines("qrels.test")))
    c = oracle.run_c(binary, ["-m", "map", workdir / "qrels.two", FIXTURES / "results.test"])
    assert c.rc == 4 and "result qid '#' not found" in c.err  # the second line read as a judgment of query '#'


def test_run_from_standard_input(binary):
    run = (FIXTURES / "results.test").read_text()
    args = ["-q", "-m", "all_trec", FIXTURES / "qrels.test", "-"]
    assert_same(oracle.run_c(binary, args, stdin=run), oracle.run_py_process(args, stdin=run))


def test_qrels_from_standard_input(binary):
    """searchgrade reads qrels from '-' too (trec_eval 10.0 cannot: compared with the qrels read from the file)."""
    args = ["-q", "-m", "all_trec"]
    assert_same(oracle.run_c(binary, [*args, FIXTURES / "qrels.test", FIXTURES / "results.test"]),
                oracle.run_py_process([*args, "-", FIXTURES / "results.test"],
                                      stdin=(FIXTURES / "qrels.test").read_text()))


@pytest.mark.parametrize("size", ["small", "large"])  # the line-by-line reader and the bulk reader
def test_runid_of_the_last_line(binary, workdir, size):
    """trec_eval prints the run id of the run's last line."""
    prefixes = [""] if size == "small" else [str(i) for i in range(1, 30)]  # large: above the bulk threshold
    lines = [prefix + line for prefix in prefixes for line in _fixture_lines("results.test")]
    (workdir / "run.names").write_text("".join(lines[:-1]) + " ".join(lines[-1].split()[:-1]) + " other\n")
    qrels = workdir / "qrels.names"
    qrels.write_text("".join(prefix + line for prefix in prefixes for line in _fixture_lines("qrels.test")))
    args = ["-m", "runid", "-m", "num_q", qrels, workdir / "run.names"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))


def test_ids_with_a_no_break_space(binary, workdir):
    """Fields are split at C's whitespace, so a no-break space (U+00A0) is part of an id, as in trec_eval."""
    qrels = {"q\u00a01": {"d\u00a01": 1, "d2": 0}, "q2": {"d\u00a01": 1}}
    run = {"q\u00a01": {"d\u00a01": "1", "d2": "2"}, "q2": {"d2": "1", "d\u00a01": "1"}}
    compare(binary, workdir, ["-q", "-m", "all_trec"], qrels, run)


def test_set_map_formula(binary, workdir):
    """set_map is n*n/(ret*R) (0.0563 here; (n/ret)*(n/R) gives 0.0562)."""
    qrels = {"q1": {f"r{i}": 1 for i in range(40)}}
    run = {"q1": {"r0": "4", "r1": "3", "r2": "2", "x": "1"}}  # n = 3 relevant of ret = 4, R = 40
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "set_map", workdir / "qrels", workdir / "run"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
    assert "set_map               \tq1\t0.0563" in oracle.run_py(args).lines()


def test_rbp_powers_by_repeated_multiplication(binary, workdir):
    """RBP's p^(i-1), multiplied by p rank after rank as trec_eval does: the mean rbp_resid of these two
    queries is 0.92305 (0.9231); powers from a power function give 0.92304999.. (0.9230)."""
    qrels = {"q1": {"j1": 0}, "q2": {"j1": 0, "j2": 0}}
    run = {"q1": {"u1": "2", "u2": "1"}, "q2": {"u1": "4", "u2": "3", "j1": "2", "j2": "1"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "rbp_resid", workdir / "qrels", workdir / "run"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
    assert "rbp_resid             \tall\t0.9231" in oracle.run_py(args).lines()


def test_iprec_suffix_maximum(binary):
    """Query 301's IPrec@0.125 is 31/160 = 0.19375 (0.1938): the maximum within a query keeps the values."""
    args = ["-q", "-m", "iprec_at_recall.0.125", FIXTURES / "qrels.test", FIXTURES / "results.test"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
    assert "iprec_at_recall_0.12  \t301\t0.1938" in oracle.run_py(args).lines()


def test_set_F_with_beta_squared(binary, workdir):
    """set_F.x takes x = beta^2 as it is (SetF(beta2=x)): F = 0.09375 prints 0.0938 (beta = sqrt(0.5),
    squared again, is not 0.5 and gives 0.0937)."""
    qrels = {"q1": {f"r{i}": 1 for i in range(30)}}
    run = {"q1": {"r0": "1"}}  # n = 1 relevant of ret = 1, R = 30
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "set_F.0.5", workdir / "qrels", workdir / "run"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
    assert "set_F_0.5             \tq1\t0.0938" in oracle.run_py(args).lines()


GAIN_TEXTS = ["1=3,2=9,4=4.5", "4=4.5,3=4", "1=0.5,4=3.6", "0=1,2=0", "1=-1,3=2.5"]


@pytest.mark.parametrize("root,gains", [(root, gains) for root in ["ndcg", "ndcg_rel", "Rndcg", "G", "rbp"]
                                        for gains in GAIN_TEXTS
                                        if not (root == "Rndcg" and gains == "1=0.5,4=3.6")])  # 0/0: see below
def test_gains_per_grade(binary, root, gains):
    """Gains per grade as trec_eval's setup_gains sets them, on NIST's graded fixture: given grades get
    their gain, the others gain their grade; gains closer than 1 keep trec_eval's (qsort's) order.
    (Rndcg.1=0.5,4=3.6 divides 0 by 0 on queries whose walk never starts: test_rndcg_without_a_walk.)"""
    text = f"p=0.8,{gains}" if root == "rbp" else gains
    args = ["-q", "-m", f"{root}.{text}", FIXTURES / "qrels.rel_level", FIXTURES / "results.test"]
    assert_same(_defined(oracle.run_c(binary, args), binary), _defined(oracle.run_py(args), binary))


def test_gains_order_of_near_gains(binary, workdir):
    """Gains closer than 1 compare equal in trec_eval's qsort, which keeps them in list order: with 1=4.5
    grade 4 (gain 4) can come first in its ideal ranking.  searchgrade's nDCG(gains=...) sorts by gain;
    its ideal=trec, which the trec_eval name implies, walks as trec_eval does."""
    qrels = {"q1": {"a": 1, "b": 4, "c": 0, "d": 4}}
    run = {"q1": {"c": "3", "a": "2", "b": "1"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "ndcg.1=4.5", "-m", "G.1=4.5", "-m", "ndcg_rel.1=4.5", workdir / "qrels", workdir / "run"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
    sorted_ideal = searchgrade.evaluate({"q1": qrels["q1"]}, {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}},
                                        ["nDCG(gains={1:4.5})", "ndcg_1=4.5"])
    assert sorted_ideal.iloc[0, 0] != sorted_ideal.iloc[0, 1]


def test_rndcg_without_a_walk(binary, workdir):
    """Rndcg.1=0.5 on binary qrels: the last of trec_eval's gain levels gains 0, its walk never starts and
    it divides 0 by 0 (-nan); searchgrade prints 0 there, and trec_eval's value everywhere else."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1, "c": 1}}
    run = {"q1": {"a": "2", "b": "1"}, "q2": {"c": "1", "x": "2"}}
    oracle.write_qrels(workdir / "qrels", qrels)
    oracle.write_run(workdir / "run", run)
    args = ["-q", "-m", "Rndcg.1=0.5", "-m", "ndcg.1=0.5", workdir / "qrels", workdir / "run"]
    c, p = oracle.run_c(binary, args), oracle.run_py(args)
    assert c.rc == 0 and p.rc == 0, p.err
    for a, b in zip(c.lines(), p.lines()):
        if a.startswith("Rndcg"):
            assert a.split("\t")[2].strip() in ("-nan", "nan") and b.split("\t")[2] == "0.0000"
        else:
            assert a == b  # ndcg.1=0.5 is 0 in both: an ideal DCG of 0


def test_utility_with_a_non_default_b(binary):
    args = ["-q", "-m", "utility.1,-2,0,0", FIXTURES / "qrels.test", FIXTURES / "results.test"]
    assert_same(oracle.run_c(binary, args), oracle.run_py(args))
