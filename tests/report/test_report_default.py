"""One default for a query without results: searchgrade.mean, compare and the report agree, and the docs say true things.

The default is trec_eval's (``missing="ignore"``: the query is left out of the means); ``-c`` /
``missing="zero"`` scores it 0. What ir_measures does is checked against ir_measures itself.
"""
from __future__ import annotations

import re
import warnings

import pytest

import searchgrade as sg
from searchgrade import report
from searchgrade.collections import Collection
from searchgrade.trec_eval import main as trec_eval

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 1}, "3": {"d": 2, "e": 1}, "4": {"f": 1}}
RUNS = {"x": {"1": {"a": 2.0, "b": 1.0}, "3": {"e": 1.0, "z": 0.5}},                  # no result for 2 and 4
        "y": {"1": {"b": 2.0, "a": 1.0}, "3": {"d": 1.0}, "4": {"f": 1.0, "g": 0.1}}}  # no result for 2
MEASURES = ["P@1", "RR@10", "nDCG@10"]


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call(*args, **kwargs)


def page_means(text: str) -> dict[str, list[float]]:
    body = text[text.index('id="main-comparison"'):]
    body = body[:body.index("</table>")]
    return {name: [float(v) for v in re.findall(r'data-col="[^"]+">(?:<strong>)?([0-9.]+)', cells)]
            for name, cells in re.findall(r'<tr data-row="([^"]+)">(.*?)</tr>', body, re.S)}


@pytest.fixture(scope="module")
def coll():
    return Collection("toy", {}, {q: f"query {q}" for q in QRELS}, QRELS, {})


def build(coll, **options):
    ids = {d for run in RUNS.values() for docs in run.values() for d in docs}
    ids |= {d for docs in QRELS.values() for d in docs}
    corpus = {d: {"title": d, "text": f"document {d}"} for d in sorted(ids)}
    coll = Collection(coll.name, corpus, coll.queries, coll.qrels, {})
    return report.build_report(coll, RUNS, measures=MEASURES, n_perm=100, font=False, **options)


def test_the_report_mean_is_searchgrade_mean(coll):
    means = page_means(build(coll))
    for name, run in RUNS.items():
        want = quiet(sg.mean, QRELS, run, MEASURES)
        assert means[name] == pytest.approx([round(want[m], 4) for m in MEASURES], abs=1e-9), name
    # compare gives the same means where the runs answered the same queries (x and y restricted to 1 and 3)
    both = {n: {q: r for q, r in run.items() if q in ("1", "3")} for n, run in RUNS.items()}
    comp = quiet(sg.compare, QRELS, both, MEASURES, n_perm=100)
    for name, run in both.items():
        assert comp.means.loc[name].tolist() == pytest.approx(quiet(sg.mean, QRELS, run, MEASURES).tolist())


def test_the_page_states_its_policy_and_minus_c_changes_it(coll):
    text = build(coll)
    assert 'data-missing="ignore"' in text and "평균에서 뺀다" in text and "-c를 준다" in text
    share = re.search(r"그 평균이 센 질문 (\d+)개만의 천장 ([0-9.]+)에 견주면 ([0-9.]+)%다", text)
    assert share and float(share.group(3)) <= 100                  # the ceiling over the queries its mean counts
    zero = build(coll, missing="zero")
    assert 'data-missing="zero"' in zero and "0점으로 센다" in zero and "그 평균이 센 질문" not in zero
    want = sg.mean(QRELS, RUNS["x"], MEASURES, missing="zero")
    assert page_means(zero)["x"] == pytest.approx([round(want[m], 4) for m in MEASURES], abs=1e-9)
    assert page_means(zero)["x"] != page_means(text)["x"]
    with pytest.raises(ValueError, match="missing must be 'ignore' or 'zero'"):
        build(coll, missing="drop")


@pytest.mark.peers
def test_ir_measures_scores_a_missing_query_zero_as_the_docstring_says():
    irm = pytest.importorskip("ir_measures")
    measures = [irm.parse_measure(m) for m in ("P@1", "nDCG@10")]
    got = irm.calc_aggregate(measures, QRELS, RUNS["x"])
    zero = sg.mean(QRELS, RUNS["x"], ["P@1", "nDCG@10"], missing="zero")
    assert [got[m] for m in measures] == pytest.approx(zero.tolist())
    doc = " ".join(sg.Evaluator.__doc__.split())
    assert "(default, trec_eval and ir_measures)" not in doc
    assert "ir_measures 0.4.3 does the latter" in doc


@pytest.mark.peers
def test_ir_measures_rr_at_k_breaks_ties_otherwise_than_trec_eval():
    irm = pytest.importorskip("ir_measures")
    qrels, run = {"1": {"b": 1, "a": 0}}, {"1": {"a": 1.0, "b": 1.0}}   # trec_eval: b (docid descending) first
    assert sg.mean(qrels, run, ["RR@10"])["RR@10"] == 1.0
    assert irm.calc_aggregate([irm.parse_measure("RR@10")], qrels, run)[irm.parse_measure("RR@10")] == 0.5
    doc = " ".join(sg.Evaluator.__doc__.split())
    assert "pytrec_eval and ir_measures inherit" not in doc and "docid *ascending*" in doc


def test_the_trec_eval_command_speaks_of_minus_c(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n2 0 b 1\n3 0 c 1\n", encoding="utf-8")
    run.write_text("1 Q0 a 1 1.0 r\n", encoding="utf-8")
    assert trec_eval(["-m", "P.1", str(qrels), str(run)]) == 0
    err = capsys.readouterr().err
    assert "2 qrels queries are not in the run and are left out of the means" in err
    assert "use -c to score them on an empty ranking" in err and "missing=" not in err
