"""Tests for searchgrade.judges: pooling simulated on small hand-made runs."""
import math
import random

import pytest

from searchgrade.judges import leave_one_out, pool, pool_coverage, pooled_qrels, unique_relevant

RUNS = {
    "sysA": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d7": 0.5, "d8": 0.4}},
    "sysB": {"q1": {"d4": 9.0, "d1": 8.0, "d5": 7.0}, "q2": {"d9": 1.0}},
}
QRELS = {
    "q1": {"d1": 1, "d3": 2, "d5": 1, "d6": 1, "d9": 0},
    "q2": {"d8": 1, "d10": 1},
    "q3": {"d1": 1},
}


def test_pool_depth_one_takes_each_systems_top_document():
    assert pool(RUNS, 1) == {"q1": {"d1", "d4"}, "q2": {"d7", "d9"}}


def test_pool_depth_two_is_the_union_of_top_two():
    assert pool(RUNS, 2) == {"q1": {"d1", "d2", "d4"}, "q2": {"d7", "d8", "d9"}}


def test_pool_deeper_than_runs_takes_everything():
    assert pool(RUNS, 100) == {"q1": {"d1", "d2", "d3", "d4", "d5"}, "q2": {"d7", "d8", "d9"}}


def test_pool_ignores_dict_order_and_breaks_ties_by_docid_descending():
    # All scores tie: trec_eval ranks docid descending, so depth 2 keeps "d9" and "d5".
    run_a = {"sys": {"q": {"d1": 1.0, "d5": 1.0, "d9": 1.0}}}
    run_b = {"sys": {"q": {"d9": 1.0, "d1": 1.0, "d5": 1.0}}}
    assert pool(run_a, 2) == pool(run_b, 2) == {"q": {"d9", "d5"}}


def test_pool_grows_with_depth():
    rng = random.Random(7)
    runs = {
        f"s{i}": {f"q{j}": {f"d{rng.randrange(40)}": rng.random() for _ in range(15)} for j in range(4)}
        for i in range(3)
    }
    previous = None
    for depth in range(1, 20):
        current = pool(runs, depth)
        if previous is not None:
            assert all(previous[q] <= current[q] for q in previous)
        previous = current


def test_pooled_qrels_keeps_true_grades_inside_and_drops_outside():
    judged = pooled_qrels(QRELS, pool(RUNS, 2))
    # q1 pool {d1, d2, d4}: d1 keeps grade 1, d2 and d4 were never judged -> 0; d3, d5, d6, d9 vanish.
    assert judged["q1"] == {"d1": 1, "d2": 0, "d4": 0}
    # q2 pool {d7, d8, d9}: d8 relevant, d10 (relevant, never retrieved) becomes unjudged.
    assert judged["q2"] == {"d7": 0, "d8": 1, "d9": 0}
    # q3: no system retrieved anything, so nothing was judged for it.
    assert "q3" not in judged


def test_pooled_qrels_with_deep_pool_finds_every_retrieved_relevant_document():
    judged = pooled_qrels(QRELS, pool(RUNS, 100))
    assert {d for d, g in judged["q1"].items() if g > 0} == {"d1", "d3", "d5"}
    assert "d9" not in judged["q1"] and "d6" not in judged["q1"]  # judged, but never retrieved for q1


def test_pooled_qrels_rejects_pooled_queries_without_judgments():
    with pytest.raises(ValueError, match="no judgments in qrels"):
        pooled_qrels({"q1": {"d1": 1}}, {"q1": {"d1"}, "Q2": {"d2"}})


def test_pooled_qrels_does_not_modify_its_inputs():
    qrels = {"q1": {"d1": 1}}
    pl = {"q1": {"d1", "d2"}}
    pooled_qrels(qrels, pl)
    assert qrels == {"q1": {"d1": 1}} and pl == {"q1": {"d1", "d2"}}


def test_leave_one_out_equals_pool_of_the_others():
    assert leave_one_out(QRELS, RUNS, 2, "sysB") == pooled_qrels(QRELS, pool({"sysA": RUNS["sysA"]}, 2))
    # Without sysB, d5 (relevant, found only by sysB at depth 3) is no longer judged.
    full = pooled_qrels(QRELS, pool(RUNS, 3))
    loo = leave_one_out(QRELS, RUNS, 3, "sysB")
    assert full["q1"]["d5"] == 1 and "d5" not in loo["q1"]


def test_leave_one_out_unknown_system_names_the_known_ones():
    with pytest.raises(ValueError, match="'sysC' is not among the runs.*'sysA'"):
        leave_one_out(QRELS, RUNS, 2, "sysC")


def test_leave_one_out_of_a_single_system_is_an_error():
    with pytest.raises(ValueError, match="leaves no system"):
        leave_one_out(QRELS, {"sysA": RUNS["sysA"]}, 2, "sysA")


@pytest.mark.parametrize("depth", [0, -1, -100])
def test_depth_below_one_is_rejected(depth):
    with pytest.raises(ValueError, match="depth must be >= 1"):
        pool(RUNS, depth)


@pytest.mark.parametrize("depth", [1.5, "10", True, None])
def test_depth_must_be_an_integer(depth):
    with pytest.raises(TypeError, match="depth must be an integer"):
        pool(RUNS, depth)


def test_empty_runs_are_rejected():
    with pytest.raises(ValueError, match="runs is empty"):
        pool({}, 10)


def test_a_system_with_an_empty_run_is_named():
    with pytest.raises(ValueError, match="'sysZ' is empty"):
        pool({"sysA": RUNS["sysA"], "sysZ": {}}, 10)


def test_non_finite_scores_are_rejected_with_their_place():
    with pytest.raises(ValueError, match="'sysA'.*'q1'.*'d2'.*not a finite number"):
        pool({"sysA": {"q1": {"d1": 1.0, "d2": math.nan}}}, 1)


def test_a_bare_run_instead_of_a_dict_of_runs_is_rejected():
    # A single run passed by mistake looks like {qid: {docid: score}}: its "runs" are dicts of floats.
    with pytest.raises(TypeError, match="expected \\{docid: score\\}"):
        pool(RUNS["sysA"], 1)


def test_empty_qrels_are_rejected():
    with pytest.raises(ValueError, match="qrels is empty"):
        pooled_qrels({}, {"q1": {"d1"}})


def test_pool_coverage_counts():
    cov = pool_coverage(QRELS, pool(RUNS, 2))
    assert cov.loc["q1"].tolist() == [3, 4, 1, 0.25]
    assert cov.loc["q2"].tolist() == [3, 2, 1, 0.5]
    assert cov.loc["q3"].tolist()[:3] == [0, 1, 0]
    assert cov.index.name == "qid"


def test_pool_coverage_rel_level_and_queries_without_relevant():
    cov = pool_coverage({"q": {"a": 1, "b": 2}, "e": {"x": 0}}, {"q": {"a", "b"}, "e": {"x"}}, rel_level=2)
    assert cov.loc["q", "relevant"] == 1 and cov.loc["q", "found"] == 1.0
    assert math.isnan(cov.loc["e", "found"])


def test_unique_relevant():
    # Depth 3: sysA alone finds d3 (q1) and d8 (q2); sysB alone finds d5 (q1); d1 is shared.
    assert unique_relevant(QRELS, RUNS, 3).to_dict() == {"sysA": 2, "sysB": 1}
    assert unique_relevant(QRELS, RUNS, 1).to_dict() == {"sysA": 1, "sysB": 0}


def test_trec_order_sorts_score_then_docid_descending():
    from searchgrade.io import trec_order

    assert trec_order({"d1": 0.5, "d10": 0.5, "d2": 0.9, "d9": 0.5}) == ["d2", "d9", "d10", "d1"]


def test_pool_agrees_with_the_metrics_ranking_order():
    # Every system's top `depth` documents, as searchgrade.evaluate ranks them (trec ties), must be judged.
    import searchgrade as sg

    rng = random.Random(11)
    runs = {
        f"s{i}": {f"q{j}": {f"d{rng.randrange(60)}": float(rng.randrange(4)) for _ in range(25)} for j in range(5)}
        for i in range(4)
    }
    qrels = {f"q{j}": {f"d{k}": rng.randrange(2) for k in range(0, 60, 3)} for j in range(5)}
    for depth in (1, 3, 8):
        judged = pooled_qrels(qrels, pool(runs, depth))
        for run in runs.values():
            df = sg.evaluate(judged, run, [f"Judged@{depth}"])
            assert (df[f"Judged@{depth}"] == 1.0).all()
    loo = leave_one_out(qrels, runs, 1, "s0")
    assert (sg.evaluate(loo, runs["s0"], ["Judged@1"])["Judged@1"] < 1.0).any()


def test_numpy_scores_are_accepted_and_strings_rejected():
    import numpy as np

    assert pool({"s": {"q": {"a": np.float32(0.5), "b": np.float64(0.7)}}}, 1) == {"q": {"b"}}
    with pytest.raises(ValueError, match="'s'.*'q'.*'a'.*not a finite number"):
        pool({"s": {"q": {"a": "0.5"}}}, 1)
