"""Tests of searchgrade.book.diagnostics: small hand-made qrels and runs, checked by hand and against pytrec_eval."""
import math

import numpy as np
import pandas as pd
import pytest

from searchgrade.book import diagnostics

MEASURES = ["P@1", "P@10", "R@10", "R@100", "RR@10", "nDCG@10", "AP@100"]

QRELS = {"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"d": 2}}
RUN1 = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"y": 5.0, "d": 4.0}}
RUN2 = {"q1": {"x": 3.0, "a": 2.0, "b": 2.0}}  # q2 missing; a and b tied (trec order: b before a)


def _hand_values():
    """Means worked out by hand for RUN1 and RUN2 (see the comments)."""
    # RUN1 q1: a(rel) x b(rel); q2: y d(grade 2)
    ndcg_q1 = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    ndcg_q2 = (2 / math.log2(3)) / 2
    run1 = {"P@1": 0.5, "P@10": (0.2 + 0.1) / 2, "R@10": 1.0, "R@100": 1.0, "RR@10": (1 + 0.5) / 2,
            "nDCG@10": (ndcg_q1 + ndcg_q2) / 2, "AP@100": ((1 + 2 / 3) / 2 + 0.5) / 2}
    # RUN2 q1: x b(rel) a(rel); q2 scores 0
    ndcg2_q1 = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    run2 = {"P@1": 0.0, "P@10": 0.2 / 2, "R@10": 0.5, "R@100": 0.5, "RR@10": 0.5 / 2,
            "nDCG@10": ndcg2_q1 / 2, "AP@100": ((1 / 2 + 2 / 3) / 2) / 2}
    return pd.DataFrame({"run1": run1, "run2": run2}).T[MEASURES]


def test_main_table_by_hand():
    table = diagnostics.main_table(QRELS, {"run1": RUN1, "run2": RUN2}, MEASURES, missing="zero")
    assert list(table.index) == ["run1", "run2"] and list(table.columns) == MEASURES
    np.testing.assert_allclose(table.to_numpy(dtype=float), _hand_values().to_numpy(dtype=float), atol=1e-12)


def test_main_table_keeps_lineup_order():
    table = diagnostics.main_table(QRELS, {"z": RUN2, "a": RUN1}, ["P@1"])
    assert list(table.index) == ["z", "a"]


def test_missing_ignore_changes_denominator():
    table = diagnostics.main_table(QRELS, {"run2": RUN2}, ["RR@10"], missing="ignore")
    assert table.loc["run2", "RR@10"] == pytest.approx(0.5)


@pytest.mark.peers
def test_crosscheck_toy_agrees_with_pytrec_eval():
    diffs, ours, theirs = diagnostics.crosscheck_pytrec_eval(QRELS, {"run1": RUN1, "run2": RUN2}, MEASURES,
                                                        return_tables=True)
    assert diffs.shape == (2, len(MEASURES))
    assert float(diffs.to_numpy().max()) < 1e-12
    np.testing.assert_allclose(theirs.to_numpy(dtype=float), _hand_values().to_numpy(dtype=float), atol=1e-12)


@pytest.mark.peers
def test_rr_at_k_cut_for_pytrec_eval():
    run = {"q": {f"n{i:02d}": 100.0 - i for i in range(10)} | {"rel": 50.0}}  # relevant at rank 11
    qrels = {"q": {"rel": 1}}
    pq = diagnostics.pytrec_eval_per_query(qrels, run, ["RR@10", "RR", "Hit@10"])
    assert pq.loc["q", "RR@10"] == 0.0
    assert pq.loc["q", "RR"] == pytest.approx(1 / 11)
    assert pq.loc["q", "Hit@10"] == 0.0
    assert float(diagnostics.crosscheck_pytrec_eval(qrels, {"r": run}, ["RR@10", "RR", "AP", "nDCG"]).max().max()) < 1e-12


@pytest.mark.peers
def test_crosscheck_detects_a_difference(monkeypatch):
    """If searchgrade broke ties differently from trec_eval, the cross-check would report it."""
    run = {"q1": {"a": 2.0, "x": 2.0}}  # trec order: x (non-relevant) before a; input order: a first
    assert float(diagnostics.crosscheck_pytrec_eval(QRELS, {"r": run}, ["RR@10"]).max().max()) == 0.0
    real = diagnostics.metrics.evaluate
    monkeypatch.setattr(diagnostics.metrics, "evaluate", lambda *a, **kw: real(*a, **(kw | {"ties": "input"})))
    diffs = diagnostics.crosscheck_pytrec_eval(QRELS, {"r": run}, ["RR@10"])
    assert diffs.loc["r", "RR@10"] == pytest.approx(0.5)


@pytest.mark.peers  # the cross-check imports pytrec_eval before it reads the measures
@pytest.mark.parametrize("measure", ["RBP(p=0.8)", "nDCG(gain=exp)@10", "ERR@10", "Bpref"])
def test_crosscheck_refuses_measures_without_counterpart(measure):
    with pytest.raises(ValueError, match="pytrec_eval"):
        diagnostics.crosscheck_pytrec_eval(QRELS, {"run1": RUN1}, [measure])


@pytest.mark.parametrize("runs, message", [
    ({}, "non-empty mapping"),
    ({"r": {}}, "is empty"),
    ({"r": {"q1": {}}}, "is empty"),
    ({"r": {"q1": {"a": 1.0}, "q9": {"a": 1.0}}}, "not in the qrels"),
    ({"r": {"q1": [("a", 1.0)]}}, "expected"),
])
def test_bad_runs_refused(runs, message):
    with pytest.raises(ValueError, match=message):
        diagnostics.main_table(QRELS, runs, ["P@1"])
    with pytest.raises(ValueError, match=message):
        diagnostics.crosscheck_pytrec_eval(QRELS, runs, ["P@1"])


def test_bad_qrels_and_measures_refused():
    with pytest.raises(ValueError, match="qrels"):
        diagnostics.main_table({}, {"r": RUN1}, ["P@1"])
    with pytest.raises(ValueError, match="at least one measure"):
        diagnostics.main_table(QRELS, {"r": RUN1}, [])
    with pytest.raises(ValueError):
        diagnostics.main_table(QRELS, {"r": RUN1}, ["NoSuchMeasure@3"])


def test_precision_ceiling():
    c10 = diagnostics.precision_ceiling(QRELS, 10)
    assert c10.value == pytest.approx((2 / 10 + 1 / 10) / 2)
    assert c10.relevant.to_dict() == {"q1": 2, "q2": 1}
    assert diagnostics.precision_ceiling(QRELS, 1).value == 1.0
    assert diagnostics.precision_ceiling(QRELS, 2).value == pytest.approx((1 + 0.5) / 2)
    assert diagnostics.precision_ceiling(QRELS, 10, rel_level=2).value == pytest.approx((0 + 0.1) / 2)
    assert c10.counts().to_dict() == {1: 1, 2: 1}


def test_precision_ceiling_bounds_every_run():
    ceiling = diagnostics.precision_ceiling(QRELS, 10).value
    table = diagnostics.main_table(QRELS, {"run1": RUN1, "run2": RUN2}, ["P@10"], missing="zero")
    assert (table["P@10"] <= ceiling + 1e-12).all()     # over every query (a run's own queries may beat it)
    perfect = {q: {d: 10.0 - i for i, d in enumerate(sorted(docs, key=docs.get, reverse=True))}
               for q, docs in QRELS.items()}
    assert diagnostics.main_table(QRELS, {"p": perfect}, ["P@10"]).loc["p", "P@10"] == pytest.approx(ceiling)


@pytest.mark.parametrize("k", [0, -3, 2.5, True, "10"])
def test_precision_ceiling_bad_k(k):
    with pytest.raises(ValueError, match="k must be a positive integer"):
        diagnostics.precision_ceiling(QRELS, k)


def test_score_distribution():
    s = pd.Series([0.0, 0.0, 1.0, 0.5, 0.95, 0.05], name="nDCG@10")
    d = diagnostics.score_distribution(s, bins=10)
    row = d.summary.loc["nDCG@10"]
    assert (row["queries"], row["zero"], row["one"], row["between"]) == (6, 2, 1, 3)
    assert row["mean"] == pytest.approx(2.5 / 6)
    assert d.histogram["nDCG@10"].tolist() == [3, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    assert d.histogram.index[-1] == "[0.90, 1.00]" and d.histogram.index[0] == "[0.00, 0.10)"
    frame = pd.DataFrame({"a": [0, 1], "b": [1, 1]})
    both = diagnostics.score_distribution(frame, bins=2)
    assert both.summary["one"].to_dict() == {"a": 1, "b": 2}
    assert both.histogram.sum().tolist() == [2, 2]


@pytest.mark.parametrize("values, message", [([0.2, 1.5], "outside"), ([0.2, -0.1], "outside"),
                                             ([0.2, float("nan")], "missing"), ([], "no queries")])
def test_score_distribution_refuses(values, message):
    with pytest.raises(ValueError, match=message):
        diagnostics.score_distribution(pd.Series(values, dtype=float, name="m"))


def test_score_distribution_bad_bins_and_type():
    with pytest.raises(ValueError, match="bins"):
        diagnostics.score_distribution(pd.Series([0.5]), bins=0)
    with pytest.raises(TypeError):
        diagnostics.score_distribution([0.5, 1.0])


def test_rank_flips():
    table = pd.DataFrame({"P@1": [0.9, 0.8, 0.8], "R@100": [0.95, 0.99, 0.95]}, index=["A", "B", "C"])
    flips = diagnostics.rank_flips(table)
    assert len(flips) == 1  # A-C tie on R@100 and B-C tie on P@1 are not flips
    row = flips.iloc[0]
    assert (row["ahead_on_a"], row["ahead_on_b"]) == ("A", "B")
    assert row["diff_a"] == pytest.approx(0.1) and row["diff_b"] == pytest.approx(0.04)
    assert diagnostics.rank_flips(table, ["P@1", "P@1"]).empty


def test_rank_flips_refuses():
    table = pd.DataFrame({"P@1": [0.9, 0.8]}, index=["A", "B"])
    with pytest.raises(ValueError, match="two measures"):
        diagnostics.rank_flips(table)
    with pytest.raises(ValueError, match="not in the table"):
        diagnostics.rank_flips(table, ["P@1", "R@9"])
    with pytest.raises(ValueError, match="two retrievers"):
        diagnostics.rank_flips(table.iloc[:1])


def test_candidate_ceiling_and_reordering():
    c = diagnostics.candidate_ceiling(RUN1, QRELS, 1)
    assert c.per_query.to_dict() == {"q1": 0.5, "q2": 0.0}
    assert c.recall == pytest.approx(0.25) and c.empty == ["q2"] and c.empty_share == 0.5
    # reorder the top 2 of each query (reverse them): Recall@2 is unchanged, RR changes
    top2 = {q: dict(sorted(d.items(), key=lambda x: -x[1])[:2]) for q, d in RUN1.items()}
    reordered = {q: {doc: float(i) for i, doc in enumerate(sorted(d, key=d.get, reverse=True))} for q, d in top2.items()}
    assert diagnostics.candidate_ceiling(reordered, QRELS, 2).recall == diagnostics.candidate_ceiling(RUN1, QRELS, 2).recall
    import searchgrade as sg

    before = sg.evaluate(QRELS, top2, ["RR@10"])["RR@10"].to_dict()
    after = sg.evaluate(QRELS, reordered, ["RR@10"])["RR@10"].to_dict()
    assert before == {"q1": 1.0, "q2": 0.5} and after == {"q1": 0.5, "q2": 1.0}
    missing = diagnostics.candidate_ceiling(RUN2, QRELS, 30)
    assert missing.empty == ["q2"] and missing.recall == pytest.approx(0.5)


def test_candidate_ceiling_refuses():
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        diagnostics.candidate_ceiling(RUN1, QRELS, 0)
    with pytest.raises(ValueError, match="no relevant document"):
        diagnostics.candidate_ceiling({"q1": {"a": 1.0}}, {"q1": {"a": 1}, "q3": {"z": 0}}, 5)
    with pytest.raises(ValueError, match="not in the qrels"):
        diagnostics.candidate_ceiling({"q7": {"a": 1.0}}, QRELS, 5)


def test_tie_statistics():
    s = diagnostics.tie_statistics(RUN2)
    assert s == {"queries": 1, "positions": 3, "tied_positions": 2, "tied_share": 2 / 3, "queries_with_ties": 1,
                 "top_tied": 0, "largest_group": 2}
    top = diagnostics.tie_statistics({"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}, "q2": {"e": 2.0}, "q3": {}})
    assert (top["queries"], top["tied_positions"], top["top_tied"], top["largest_group"]) == (2, 3, 1, 3)
    assert diagnostics.tie_statistics(RUN1)["tied_positions"] == 0
    with pytest.raises(ValueError, match="empty"):
        diagnostics.tie_statistics({})


def test_context_dependent():
    questions = {
        "a": "그는 누구와 홈런 경쟁을 하였는가?",
        "b": "이 경기에서 은메달을 딴 선수는?",
        "c": "이명박은 언제 서울시장이 되었나?",
        "d": "그룹의 이름은?",
        "e": "김영삼의 중학교 시절 그의 잘못을 선처해준 일본인은 누구인가?",
        "f": "이것은?",
        "g": "그녀의 데뷔작은?",
        "h": "해당 국회의원들이 발의한 법안은?",
        "i": "이름은?",
        "j": "이곳에 세워진 건물은?",
    }
    assert diagnostics.context_dependent(questions) == {"a": "그는", "b": "이", "f": "이것은?", "g": "그녀의",
                                                   "h": "해당", "j": "이곳에"}
    anywhere = diagnostics.context_dependent(questions, anywhere=True)
    assert anywhere["e"] == "그의" and "c" not in anywhere and "d" not in anywhere
    with pytest.raises(TypeError):
        diagnostics.context_dependent(["그는 누구인가?"])
    with pytest.raises(TypeError, match="q"):
        diagnostics.context_dependent({"q": 3})


@pytest.mark.runs
@pytest.mark.peers
def test_main_table_matches_pytrec_eval():
    from searchgrade.book import korean_runs

    chosen = {"miracl-ko": list(korean_runs.LINEUP), "korquad-dev": list(korean_runs.BOOK_RETRIEVERS["korquad-dev"])}
    for collection, names in chosen.items():  # the runs `make runs` computes
        coll = korean_runs.load_collection(collection)
        line = korean_runs.get_runs(collection, names, progress=False)
        assert list(line) == names
        table = diagnostics.main_table(coll.qrels, line, MEASURES, missing="zero")
        diffs, ours, theirs = diagnostics.crosscheck_pytrec_eval(coll.qrels, line, MEASURES, return_tables=True)
        pd.testing.assert_frame_equal(table.round(4), theirs.loc[table.index].round(4), check_names=False)
        np.testing.assert_allclose(table.to_numpy(dtype=float), theirs.loc[table.index].to_numpy(dtype=float),
                                   atol=1e-4)
        assert float(diffs.to_numpy().max()) < 1e-9, collection
