"""The diversity measures (ERR_IA, alpha_nDCG, NRBP, AP_IA, P_IA, StRecall, ...) in sg.evaluate.

Oracles: pyndeval 0.0.8 (ndeval's C code) on hypothesis-generated subtopic qrels and runs with
grades, score ties and unjudged documents, in the order pyndeval documents (score descending,
ties by docno ascending: the run is handed to searchgrade in that order with ties="input");
the expected values of pyndeval's and ir_measures' own test suites; the input forms
ir_measures uses (a DataFrame or records whose ``iteration`` is the subtopic).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.io import read_subtopic_qrels
from tests.support.examples import examples

NDEVAL = {"ERR-IA@{k}": "ERR_IA(alpha={a})@{k}", "nERR-IA@{k}": "nERR_IA(alpha={a})@{k}",
          "alpha-DCG@{k}": "alpha_DCG(alpha={a})@{k}", "alpha-nDCG@{k}": "alpha_nDCG(alpha={a})@{k}",
          "P-IA@{k}": "P_IA@{k}", "strec@{k}": "StRecall@{k}"}
WHOLE = {"NRBP": "NRBP(alpha={a},beta={b})", "nNRBP": "nNRBP(alpha={a},beta={b})", "MAP-IA": "AP_IA"}
README_QRELS = {"0": {"a": {"A": 1}, "b": {"B": 1, "D": 1}, "c": {"C": 1}}}
README_RUN = {"0": {"A": 9.3, "D": 8.4, "E": 8.1, "B": 7.6}}


def _pairs(cutoffs, alpha, beta) -> dict:
    """{pyndeval name: searchgrade name} for the cut-offs and parameters."""
    out = {p.format(k=k): s.format(k=k, a=alpha) for k in cutoffs for p, s in NDEVAL.items()}
    out.update({p: s.format(a=alpha, b=beta) for p, s in WHOLE.items()})
    return out


def _pyndeval(qrels: dict, ordered_run: dict, names: dict, rel: int, alpha: float, beta: float) -> dict:
    pyndeval = pytest.importorskip("pyndeval")
    records = [pyndeval.SubtopicQrel(q, s, d, g) for q, subs in qrels.items() for s, docs in subs.items()
               for d, g in docs.items()]
    run = [pyndeval.ScoredDoc(q, d, s) for q, docs in ordered_run.items() for d, s in docs.items()]
    ev = pyndeval.RelevanceEvaluator(records, list(names), relevance_level=rel, alpha=alpha, beta=beta)
    return ev.evaluate(run)


def _pyndeval_order(run: dict) -> dict:
    """Each query's documents as pyndeval orders them: score descending, ties by docno ascending."""
    return {q: dict(sorted(docs.items(), key=lambda kv: (-kv[1], kv[0]))) for q, docs in run.items()}


@st.composite
def _cases(draw):
    docs = [f"d{i}" for i in range(draw(st.integers(3, 12)))]
    qrels, run = {}, {}
    for q in map(str, range(draw(st.integers(1, 4)))):
        subs = {}
        for s in range(draw(st.integers(1, 4))):
            judged = draw(st.lists(st.sampled_from(docs), max_size=len(docs), unique=True))
            subs[str(s + 1)] = {d: draw(st.integers(0, 3)) for d in judged}
        if any(subs.values()):
            qrels[q] = {s: j for s, j in subs.items() if j}
        ranked = draw(st.lists(st.sampled_from(docs + ["u1", "u2"]), min_size=1, max_size=len(docs) + 2,
                               unique=True))
        run[q] = {d: float(draw(st.integers(0, 4))) for d in ranked}  # few scores: ties
    return qrels, run


@pytest.mark.peers
@pytest.mark.filterwarnings("ignore:.*(no qrels|not in the run)")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases(), st.sampled_from([0.5, 0.2, 0.75, 1.0]), st.sampled_from([0.5, 0.3, 0.9]), st.sampled_from([1, 2]),
       st.sampled_from([[1, 3, 5], [2, 10, 20]]))
def test_pyndeval_agrees_on_generated_data(case, alpha, beta, rel, cutoffs):
    qrels, run = case
    if not qrels:
        return
    ordered = _pyndeval_order(run)
    names = _pairs(cutoffs, alpha, beta)
    want = _pyndeval(qrels, ordered, names, rel, alpha, beta)
    got = sg.evaluate(qrels, ordered, list(names.values()), ties="input", rel_level=rel)
    assert set(map(str, got.index)) == set(want)
    for q, values in want.items():
        for name, value in values.items():
            mine = got.loc[q, names[name]]
            if math.isnan(value):
                assert math.isnan(mine), (q, name)
            else:
                assert mine == pytest.approx(value, rel=1e-12, abs=1e-12), (q, name, mine, value)


def test_pyndeval_readme_values():
    """pyndeval's README and test_pyndeval.py (4 decimals, as they give them)."""
    expected = {"ERR_IA@5": 0.3933, "ERR_IA@10": 0.3907, "ERR_IA@20": 0.3907, "nERR_IA@5": 0.8297,
                "nERR_IA@20": 0.8297, "alpha_DCG@5": 0.4052, "alpha_DCG@10": 0.3998, "alpha_DCG@20": 0.3997,
                "alpha_nDCG@5": 0.7868, "alpha_nDCG@20": 0.7868, "NRBP": 0.3906, "nNRBP": 0.8620,
                "AP_IA": 0.5000, "P_IA@5": 0.2000, "P_IA@10": 0.1000, "P_IA@20": 0.0500, "StRecall@5": 0.6666,
                "StRecall@20": 0.6666}
    got = sg.evaluate(README_QRELS, README_RUN, list(expected)).loc["0"]
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-4), name


IR_QRELS = """0 0 D0 0
0 0 D1 1
0 0 D2 1
0 1 D2 1
0 1 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 1 D5 2
"""
IR_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
          "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}


def test_ir_measures_test_values(tmp_path):
    """ir_measures' test_pyndeval.py: ERR_IA@20 is 0.4659 and 0.1803, mean 0.3231."""
    path = tmp_path / "sub.qrels"
    path.write_text(IR_QRELS)
    qrels = read_subtopic_qrels(path)
    got = sg.evaluate(qrels, IR_RUN, ["ERR_IA@20"])["ERR_IA@20"]
    assert got["0"] == pytest.approx(0.4659, abs=1e-4) and got["1"] == pytest.approx(0.1803, abs=1e-4)
    assert sg.mean(qrels, IR_RUN, ["ERR_IA@20"])["ERR_IA@20"] == pytest.approx(0.3231, abs=1e-4)


def test_dataframe_and_records_with_iteration(tmp_path):
    path = tmp_path / "sub.qrels"
    path.write_text(IR_QRELS)
    nested = sg.evaluate(read_subtopic_qrels(path), IR_RUN, ["alpha_nDCG@5", "NRBP", "P@5"])
    rows = [line.split() for line in IR_QRELS.splitlines()]
    frame = pd.DataFrame({"query_id": [r[0] for r in rows], "iteration": [r[1] for r in rows],
                          "doc_id": [r[2] for r in rows], "relevance": [int(r[3]) for r in rows]})
    pd.testing.assert_frame_equal(sg.evaluate(frame, IR_RUN, ["alpha_nDCG@5", "NRBP", "P@5"]), nested)
    pyndeval = pytest.importorskip("pyndeval")  # its records, as an input form
    records = [pyndeval.SubtopicQrel(*r[:3], int(r[3])) for r in rows]
    pd.testing.assert_frame_equal(sg.evaluate(records, IR_RUN, ["alpha_nDCG@5", "NRBP", "P@5"]), nested)


def test_ordinary_measures_see_the_largest_grade_over_subtopics():
    qrels = {"q": {"1": {"a": 1, "b": 0}, "2": {"a": 3, "c": 2}}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    flat = {"q": {"a": 3, "b": 0, "c": 2}}
    measures = ["P@2", "nDCG@3", "AP"]
    pd.testing.assert_frame_equal(sg.evaluate(qrels, run, measures), sg.evaluate(flat, run, measures))
    both = sg.evaluate(qrels, run, measures + ["StRecall@1"])
    assert both.loc["q", "StRecall@1"] == 1.0 and both.loc["q", "P@2"] == 0.5


def test_a_diversity_measure_of_ordinary_qrels_is_an_error():
    with pytest.raises(ValueError, match="alpha_nDCG@10.*subtopic qrels"):
        sg.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["alpha_nDCG@10", "P@5"])
    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(ValueError, match="iteration"):
        sg.evaluate(frame, {"q": {"a": 1.0}}, ["NRBP"])


def test_parameters_are_checked_and_named():
    with pytest.raises(ValueError, match="alpha"):
        sg.evaluate(README_QRELS, README_RUN, ["alpha_nDCG(alpha=1.5)@10"])
    with pytest.raises(ValueError):
        sg.evaluate(README_QRELS, README_RUN, ["alpha_nDCG"])  # a cut-off is required, as in ndeval
    df = sg.evaluate(README_QRELS, README_RUN, ["alpha_nDCG(alpha=0.9)@5", "MAP_IA", "StRecall(rel=2)@5"])
    assert list(df.columns) == ["alpha_nDCG(alpha=0.9)@5", "MAP_IA", "StRecall(rel=2)@5"]
    assert df.loc["0", "StRecall(rel=2)@5"] == 0  # no judgment reaches grade 2: no subtopic is kept


def test_a_query_without_a_relevant_subtopic():
    """ndeval: every measure 0, nNRBP its 0/0."""
    qrels = {"q": {"1": {"a": 0}}, "r": {"1": {"a": 1}}}
    df = sg.evaluate(qrels, {"q": {"a": 1.0}, "r": {"a": 1.0}}, ["alpha_nDCG@5", "ERR_IA@5", "nNRBP", "AP_IA"])
    assert (df.loc["q", ["alpha_nDCG@5", "ERR_IA@5", "AP_IA"]] == 0).all() and np.isnan(df.loc["q", "nNRBP"])
    assert (df.loc["r", ["alpha_nDCG@5", "nNRBP", "AP_IA"]] == 1).all() and 0 < df.loc["r", "ERR_IA@5"] < 1


def test_the_measure_table_lists_them():
    table = sg.measure_table()
    for name in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"):
        assert name in table.index
    assert "alpha" in table.loc["alpha_nDCG", "parameters"]


@pytest.mark.peers
def test_ir_measures_objects_give_ir_measures_values():
    """ir_measures' objects, and its own pyndeval provider on its Qrel records (iteration = subtopic)."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(IR_QRELS))
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in IR_RUN.items() for d, s in docs.items()]
    objects = [ir_measures.alpha_nDCG@5, ir_measures.ERR_IA@20, ir_measures.nERR_IA(rel=2)@10, ir_measures.NRBP,
               ir_measures.nNRBP(alpha=0.8), ir_measures.MAP_IA, ir_measures.P_IA@5, ir_measures.StRecall@5]
    # one measure a call: ir_measures hands one run iterator to every pyndeval invocation, so measures that
    # need different ones (another rel, alpha or beta) after the first would see an exhausted run
    want = {(m.query_id, str(m.measure)): m.value for o in objects for m in ir_measures.pyndeval.iter_calc([o], qrels, run)}
    got = sg.evaluate(qrels, IR_RUN, objects)
    for (q, name), value in want.items():
        assert got.loc[q, name] == pytest.approx(value, rel=1e-12), (q, name)


@pytest.mark.peers
@pytest.mark.filterwarnings("ignore:.*(no qrels|not in the run)")
@pytest.mark.parametrize("alpha, beta", [(0.5, 0.5), (0.3, 0.95), (1.0, 1.0), (0.0, 0.2)])
def test_pyndeval_agrees_on_long_rankings(alpha, beta):
    """Hundreds of relevant documents a query, bit for bit: the greedy ideal ranking stops early only where
    nNRBP cannot change (alpha 0 and 1, beta 1: no early stop)."""
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in ("1", "2", "3"):
        pool = [f"d{i}" for i in rng.choice(5000, size=400, replace=False)]
        grades = rng.choice([0, 0, 0, 1, 2], size=(400, 6))
        qrels[q] = {str(s + 1): {d: int(g) for d, g in zip(pool, grades[:, s])} for s in range(6)}
        docs = pool[:300] + [f"u{i}" for i in range(300)]
        run[q] = {d: float(s) for d, s in zip(docs, rng.permutation(len(docs)))}
    names = _pairs([1, 5, 20], alpha, beta)
    ordered = _pyndeval_order(run)
    want = _pyndeval(qrels, ordered, names, 1, alpha, beta)
    got = sg.evaluate(qrels, ordered, list(names.values()), ties="input")
    for q, values in want.items():
        for name, value in values.items():
            mine = got.loc[q, names[name]]
            assert (math.isnan(mine) and math.isnan(value)) or mine == value, \
                (q, name, mine, value)


def test_one_ranking_and_a_comparison():
    """score_ranking takes one query's {subtopic: {docid: grade}}; compare takes subtopic qrels too."""
    one = sg.score_ranking(["A", "D", "E", "B"], README_QRELS["0"], ["alpha_nDCG@5", "StRecall@5"])
    assert one["alpha_nDCG@5"] == pytest.approx(0.7868, abs=1e-4) and one["StRecall@5"] == pytest.approx(2 / 3)
    qrels = {str(i): {"a": {"d1": 1, "d2": 0}, "b": {"d2": 1, "d3": 1}} for i in range(6)}
    runs = {"A": {q: {"d1": 3.0, "d2": 2.0, "d3": 1.0} for q in qrels},
            "B": {q: {"d2": 3.0, "d3": 2.0, "d1": 1.0} for q in qrels}}
    means = sg.compare(qrels, runs, ["alpha_nDCG@2", "P@2"]).means
    assert means.loc["A", "alpha_nDCG@2"] == 1.0 and means.loc["B", "alpha_nDCG@2"] < 1.0


def test_a_frame_whose_iteration_is_one_value_is_refused():
    """ir_measures warns that such qrels (iteration 0 everywhere: ordinary qrels) make the value meaningless,
    then computes it; searchgrade refuses, unless the subtopics are given as a dict."""
    frame = pd.DataFrame({"query_id": ["q", "q", "r"], "iteration": ["0", "0", "0"], "doc_id": ["a", "b", "a"],
                          "relevance": [1, 0, 1]})
    run = {"q": {"a": 1.0, "b": 0.5}, "r": {"a": 1.0}}
    with pytest.raises(ValueError, match="single subtopic"):
        sg.evaluate(frame, run, ["alpha_nDCG@5"])
    assert sg.evaluate(frame, run, ["P@1"])["P@1"].tolist() == [1.0, 1.0]  # ordinary measures: ordinary qrels
    nested = {"q": {"0": {"a": 1, "b": 0}}, "r": {"0": {"a": 1}}}
    assert sg.evaluate(nested, run, ["alpha_nDCG@5"])["alpha_nDCG@5"].tolist() == [1.0, 1.0]
