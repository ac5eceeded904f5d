"""Differential tests of the C/W/L measures against cwl_eval 1.0.12: through ir_measures' cwl_eval provider
(the same measure objects, gains scaled by ir_measures) and through cwl_eval's own command line (TREC files)."""
import contextlib
import io
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from tests.support.examples import examples

pytestmark = pytest.mark.peers  # the oracle is another package: `make test-peers`
cwl_eval = pytest.importorskip("cwl.cwl_eval", reason="cwl-eval (PyPI cwl-eval==1.0.12) is not installed")
irm = pytest.importorskip("ir_measures")
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its max_rel-vs-observed-grade notes

DOCS = [f"d{i}" for i in range(10)] + ["D1", "d10x", "a"]  # mixed case and prefixes exercise strcmp order
SCORES = [0.1, 0.25, 0.5, 1.0, 2.0]  # few values, so ties are frequent
GRADES = (-1, 0, 1, 2, 3, 4)
DIFF = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: The largest difference seen per oracle and measure family (printed by the last test).
LARGEST: dict = {"ir_measures": {}, "command line": {}}


@st.composite
def graded_runs(draw, max_queries=3):
    """Graded qrels (grades -1..4) and a run with tied scores; some qrels queries are not in the run."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, max_queries))):
        qid = f"q{q}"
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=9))
        qrels[qid] = {d: draw(st.sampled_from(GRADES)) for d in judged}
        if q == 0 or draw(st.booleans()):
            ranked = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
            run[qid] = {d: draw(st.sampled_from(SCORES)) for d in ranked}
    return qrels, run


@st.composite
def cwl_measures(draw):
    """A few distinct ir_measures C/W/L measure objects with random parameters."""
    max_rel = draw(st.integers(1, 4))
    min_rel = draw(st.sampled_from([0, 0, max_rel - 1])) if max_rel > 1 else 0
    gain = {"max_rel": max_rel} if min_rel == 0 and draw(st.booleans()) else {"max_rel": max_rel, "min_rel": min_rel}
    T = draw(st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0]))
    k = draw(st.sampled_from([1, 2, 3, 5, 10]))
    p = draw(st.sampled_from([0.5, 0.8, 0.9, 0.95]))
    pool = [irm.INST(T=T, **gain), irm.INSQ(T=T, **gain), irm.BPM(T=T, **gain) @ k, irm.SDCG(**gain) @ k,
            irm.NERR8(**gain) @ k, irm.NERR9(**gain) @ k, irm.NERR10(p=p, **gain), irm.NERR11(T=T, **gain)]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique_by=str))
    return chosen


def trec_order(run: dict) -> dict:
    """The run with each query's documents in trec_eval's order (score descending, docid descending)."""
    return {q: dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)) for q, docs in run.items()}


def cwl_values(measures, qrels, run) -> dict:
    """{(qid, str(measure)): value} from cwl_eval, run by ir_measures (stable sort by score: input order for ties)."""
    return {(r.query_id, str(r.measure)): float(r.value) for r in irm.cwl_eval.iter_calc(measures, qrels, run)}


def _note(oracle: str, name: str, diff: float) -> None:
    family = name.split("(")[0].split("@")[0]
    LARGEST[oracle][family] = max(LARGEST[oracle].get(family, 0.0), diff)


def _agree(ours, theirs, tol):
    """Same queries, and every value within tol; returns the largest difference."""
    assert {(q, m) for q in ours.index for m in ours.columns} == set(theirs)
    worst = 0.0
    for (q, name), value in theirs.items():
        diff = abs(float(ours.loc[q, name]) - value)
        _note("ir_measures", name, diff)
        worst = max(worst, diff)
        assert diff <= tol, (q, name, float(ours.loc[q, name]), value)
    return worst


def evaluate_quietly(qrels, run, measures, **options):
    """sg.evaluate without the warning about qrels queries the run leaves out (missing="ignore")."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return sg.evaluate(qrels, run, measures, **options)


@DIFF
@given(data=graded_runs(), measures=cwl_measures(), ties=st.sampled_from(["trec", "input"]))
def test_agrees_with_cwl_eval_through_ir_measures(data, measures, ties):
    """Measure objects and their strings give cwl_eval's values (to 1e-9; the brief asks for 4 decimals)."""
    qrels, run = data
    fed = trec_order(run) if ties == "trec" else run  # ir_measures keeps tied documents in the order given
    ours = sg.evaluate(qrels, run, measures, ties=ties, missing="zero")  # ir_measures scores them 0
    _agree(ours, cwl_values(measures, qrels, fed), 1e-9)
    again = sg.evaluate(qrels, run, [str(m) for m in measures], ties=ties, missing="zero")
    assert list(again.columns) == list(ours.columns)  # the strings parse to the same measures and names
    np.testing.assert_array_equal(again.to_numpy(), ours.to_numpy())


def with_max_rel(m, max_rel):
    """The ir_measures measure m with max_rel replaced (None: left out, searchgrade's default)."""
    params = {k: v for k, v in m.params.items() if k != "max_rel"}
    if max_rel is not None:
        params["max_rel"] = max_rel
    return getattr(irm, m.NAME)(**params)


@DIFF
@given(data=graded_runs(max_queries=2), measures=cwl_measures())
def test_default_max_rel_is_each_querys_largest_grade(data, measures):
    """Without max_rel= (which ir_measures requires) the full gain is the query's largest grade."""
    qrels, run = data
    measures = [m for m in measures if m["min_rel"] == 0]  # min_rel may exceed a query's largest grade
    if not measures:
        return
    names = [str(with_max_rel(m, None)) for m in measures]
    assert not any("max_rel" in n for n in names)
    ours = evaluate_quietly(qrels, run, names)
    for q in ours.index:
        top = max(qrels[q].values())
        for m, name in zip(measures, names):
            if top < 1:  # no document of this query gains anything
                assert ours.loc[q, name] == 0.0
                continue
            theirs = cwl_values([with_max_rel(m, top)], {q: qrels[q]}, {q: trec_order(run)[q]})
            assert ours.loc[q, name] == pytest.approx(next(iter(theirs.values())), abs=1e-9), (q, name)


def test_rankings_longer_than_cwl_eval_depth_are_cut_at_1000():
    """cwl_eval reads 1000 ranks (ir_measures' max_n): documents below rank 1000 change nothing."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(1300)]
    qrels = {"q": {d: int(g) for d, g in zip(docs, rng.integers(-1, 4, len(docs))) if rng.random() < 0.05}}
    qrels["q"]["d1100"] = 3  # a relevant document ranked below 1000
    run = {"q": {d: float(1300 - i) for i, d in enumerate(docs)}}
    measures = [irm.INST(T=3, max_rel=3), irm.INSQ(T=3, max_rel=3), irm.BPM(T=50, max_rel=3) @ 1200,
                irm.SDCG(max_rel=3) @ 1100, irm.NERR8(max_rel=3) @ 1100, irm.NERR9(max_rel=3) @ 1100,
                irm.NERR10(p=0.999, max_rel=3), irm.NERR11(T=40, max_rel=3)]
    ours = sg.evaluate(qrels, run, measures)
    _agree(ours, cwl_values(measures, qrels, run), 1e-9)
    short = sg.evaluate(qrels, {"q": dict(list(run["q"].items())[:1000])}, measures)
    np.testing.assert_allclose(ours.to_numpy(), short.to_numpy(), rtol=0, atol=1e-15)


def test_bpm_sums_gains_in_floating_point_as_cwl_eval_does():
    """Ten gains of 1/10 add up to 0.9999999999999999 < T = 1: cwl_eval's user reads on to k = 20, and so does ours."""
    docs = [f"d{i:02d}" for i in range(12)]
    qrels = {"q": {d: 1 for d in docs[:10]}}
    run = {"q": {d: float(20 - i) for i, d in enumerate(docs)}}
    m = irm.BPM(T=1, max_rel=10) @ 20
    (theirs,) = cwl_values([m], qrels, run).values()
    ours = sg.evaluate(qrels, run, [m]).iloc[0, 0]
    assert ours == pytest.approx(theirs, abs=1e-15) and ours == pytest.approx(1.0 / 20)  # exact sums: 1/10


def test_p_rr_and_rbp_agree_with_cwl_eval(trec_qrels, trec_run):
    """cwl_eval's own P@k and RR equal searchgrade's; its RBP is RBP / (1 - p^1000) (weights over 1000 ranks)."""
    measures = [irm.P(rel=1) @ 5, irm.P(rel=1) @ 20, irm.RR(rel=1), irm.RBP(rel=1, p=0.8), irm.RBP(rel=1, p=0.99)]
    theirs = cwl_values(measures, trec_qrels, trec_order(trec_run))
    ours = sg.evaluate(trec_qrels, trec_run, measures)
    for m, column in zip(measures, ours.columns):
        for q in ours.index:
            factor = 1 - m["p"] ** 1000 if m.NAME == "RBP" else 1.0
            assert ours.loc[q, column] / factor == pytest.approx(theirs[(q, str(m))], abs=1e-12), (q, column)


# --------------------------------------------------------------------- cwl_eval's command line
#: cwl_eval's class for each family, with its positional parameters (cwl_eval's metrics-file syntax).
CLI = {
    "INST": lambda m: f"INSTCWLMetric({float(m['T'])})",
    "INSQ": lambda m: f"INSQCWLMetric({float(m['T'])})",
    "BPM": lambda m: f"BPMCWLMetric({float(m['T'])},{m['cutoff']})",
    "SDCG": lambda m: f"NDCGCWLMetric({m['cutoff']})",
    "NERR8": lambda m: f"NERReq8CWLMetric({m['cutoff']})",
    "NERR9": lambda m: f"NERReq9CWLMetric({m['cutoff']})",
    "NERR10": lambda m: f"NERReq10CWLMetric({float(m['p'])})",
    "NERR11": lambda m: f"NERReq11CWLMetric({float(m['T'])})",
}


def _cli_gain(grade: int, min_rel: int, max_rel: int) -> float:
    """The gain file value of a grade: ir_measures' scaling, written out by hand."""
    return (min(max(grade, 0, min_rel), max_rel) - min_rel) / (max_rel - min_rel)


def run_cwl_eval_cli(folder: Path, gains: dict, run: dict, metric_lines: list) -> list:
    """cwl_eval's main() on a gain file, a TREC result file (lines in rank order) and a metrics file; its rows."""
    (folder / "gains").write_text("".join(f"{q} 0 {d} {g!r}\n" for q, docs in gains.items() for d, g in docs.items()))
    (folder / "run").write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} r\n" for q, docs in run.items()
                                        for i, (d, s) in enumerate(docs.items())))
    (folder / "metrics").write_text("".join(line + "\n" for line in metric_lines))
    out, here, logger = io.StringIO(), os.getcwd(), logging.getLogger("cwl")
    before = list(logger.handlers)
    sys.path.insert(0, str(Path(cwl_eval.__file__).parent))  # as the cwl-eval script does: metrics files
    try:  # name classes of the top-level package ruler.measures
        os.chdir(folder)  # main() logs to ./cwl.log
        with contextlib.redirect_stdout(out):
            cwl_eval.main(str(folder / "run"), str(folder / "gains"), metrics_file=str(folder / "metrics"))
    finally:
        os.chdir(here)
        sys.path.remove(str(Path(cwl_eval.__file__).parent))
        for handler in logger.handlers[len(before):]:
            logger.removeHandler(handler)
            handler.close()
    return [line.split("\t") for line in out.getvalue().splitlines()]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=graded_runs(), measures=cwl_measures())
def test_agrees_with_cwl_eval_command_line_on_trec_files(data, measures):
    """cwl_eval reads the result file in line order: written in trec_eval's order it is searchgrade's ties="trec"."""
    qrels, run = data
    run = {q: docs for q, docs in trec_order(run).items() if q in qrels}  # cwl_eval scores every run query
    max_rel, min_rel = measures[0]["max_rel"], measures[0]["min_rel"]
    same_gain = [m for m in measures if (m["max_rel"], m["min_rel"]) == (max_rel, min_rel)]
    gains = {q: {d: _cli_gain(g, min_rel, max_rel) for d, g in docs.items()} for q, docs in qrels.items()}
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_cwl_eval_cli(Path(tmp), gains, run, [CLI[m.NAME](m) for m in same_gain])
    ours = evaluate_quietly(qrels, run, same_gain, ties="trec")
    assert len(rows) == len(run) * len(same_gain)
    for row, (q, m) in zip(rows, [(q, m) for q in run for m in same_gain]):
        assert row[0] == q
        diff = abs(float(row[2]) - ours.loc[q, str(m)])
        _note("command line", str(m), diff)
        assert diff <= 5e-5 + 1e-12, (q, str(m), row, ours.loc[q, str(m)])  # cwl_eval prints 4 decimals


def test_cwl_eval_executable_prints_what_main_prints(tmp_path):
    """The installed cwl-eval script and the in-process main() above give the same output."""
    exe = shutil.which("cwl-eval", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("the cwl-eval script is not on the virtualenv's bin path")
    gains = {"q1": {"a": 1.0, "b": 0.5, "c": 1 / 3}, "q2": {"x": 1.0}}
    run = {"q1": {"b": 3.0, "z": 2.0, "a": 1.0}, "q2": {"y": 5.0, "x": 4.0}}
    lines = ["INSTCWLMetric(2.0)", "BPMCWLMetric(1.0,10)", "NDCGCWLMetric(5)", "NERReq10CWLMetric(0.9)"]
    rows = run_cwl_eval_cli(tmp_path, gains, run, lines)
    done = subprocess.run([exe, "gains", "run", "-m", "metrics"], cwd=tmp_path, capture_output=True, text=True,
                          check=True)
    assert [line.split("\t") for line in done.stdout.splitlines()] == rows and len(rows) == 8


def test_every_family_met_both_oracles(capsys):
    """The random measures above reached every C/W/L family through both oracles; prints the largest differences."""
    if not LARGEST["ir_measures"]:
        pytest.skip("run together with the differential tests above")
    assert set(LARGEST["ir_measures"]) == set(CLI) and set(LARGEST["command line"]) == set(CLI)
    with capsys.disabled():
        for oracle, worst in LARGEST.items():
            print(f"\nlargest |searchgrade - cwl_eval| ({oracle}):", {f: f"{d:.1e}" for f, d in sorted(worst.items())})
