"""searchgrade.fuse and searchgrade.optimize_fusion: arguments, bad input, ties, tuning with held-out folds.

The values of every method are checked against ranx in tests/fusion/test_api_ranx.py; here are the
rules that are searchgrade's own and the formulas by hand on a small case (the line-up's fusion kinds,
calls of the same code, are tested in tests/retrieval/test_fusion.py).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.fusion import METHODS, NORMALISATIONS, method_table, normalize
from searchgrade.io import trec_order
from tests.support.examples import examples

A = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"c": 0.9, "d": 0.8, "a": 0.1}, "q2": {"y": 5.0, "x": 2.0}}
QRELS = {"q1": {"a": 1, "d": 2, "b": 0}, "q2": {"y": 1}}


def test_top_level_names():
    assert sg.fuse is sg.fusion.fuse and callable(sg.optimize_fusion)
    assert len(METHODS) == 25 and set(NORMALISATIONS) >= {"min-max", "min-max-inverted", "max", "sum", "zmuv",
                                                          "rank", "borda"}
    table = method_table()
    assert list(table["method"]) == list(METHODS) and table.loc[table.method == "rrf", "params"].item() == \
        "k=60, weights=None"


def test_formulas_by_hand():
    assert sg.fuse([A, B], "rrf", None, {"k": 0})["q1"] == pytest.approx({"a": 1 + 1 / 3, "c": 1 / 3 + 1,
                                                                          "b": 1 / 2, "d": 1 / 2})
    # min-max: A -> a 1, b .5, c 0; B -> c 1, d .875, a 0
    assert sg.fuse([A, B], "mnz", "min-max")["q1"] == pytest.approx({"a": 2.0, "c": 2.0, "d": 0.875, "b": 0.5})
    assert sg.fuse([A, B], "min", "min-max")["q1"]["d"] == pytest.approx(0.875)   # a missing score is 1e9
    assert sg.fuse([A, B], "max", "min-max")["q1"]["c"] == 1.0
    assert sg.fuse([A, B], "wsum", "min-max", {"weights": [0.25, 0.75]})["q1"]["d"] == pytest.approx(0.65625)
    # borda points: 4 candidates; A: a 4, b 3, c 2, d (4 - 3 + 1) / 2 = 1; B: c 4, d 3, a 2, b 1
    assert sg.fuse([A, B], "bordafuse", None)["q1"] == {"a": 6.0, "c": 6.0, "b": 4.0, "d": 4.0}
    # a single score: ranx's min-max gives 0, the line-up's min-max-one gives 1
    assert sg.fuse([A], "sum", "min-max")["q2"] == {"x": 0.0}
    assert sg.fuse([A], "sum", "min-max-one")["q2"] == {"x": 1.0}


def test_ties_are_ranked_as_trec_eval_ranks_them():
    run = {"q": {"d1": 1.0, "d3": 1.0, "d2": 1.0}}
    fused = sg.fuse([run], "rrf", None, {"k": 0})
    assert fused["q"] == {"d3": 1.0, "d2": 0.5, "d1": 1 / 3}
    assert list(fused["q"]) == ["d3", "d2", "d1"]
    # the fused list is in trec_eval order, ties by document id descending
    assert list(sg.fuse([{"q": {"a": 1.0, "b": 2.0}}, {"q": {"b": 1.0, "a": 2.0}}], "sum", None)["q"]) == ["b", "a"]


def test_queries_some_runs_lack_warn_and_are_fused_over_the_others():
    with pytest.warns(UserWarning, match=r"run 'dense' lacks 1 \('q2'\)") as caught:
        fused = sg.fuse({"bm25": A, "dense": {"q1": B["q1"]}}, "rrf", None)
    assert "1 query is fused over the runs that have them" in str(caught[0].message)
    assert fused["q2"] == {"x": pytest.approx(1 / 61)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sg.fuse([A, B], "rrf")            # same queries: no warning


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown fusion method 'rff'; did you mean 'rrf'"):
        sg.fuse([A, B], "rff")
    with pytest.raises(ValueError, match="unknown fusion normalisation 'minmax'; did you mean 'min-max'"):
        sg.fuse([A, B], "sum", "minmax")
    with pytest.raises(ValueError, match=r"fusion wsum: 3 weights for 2 runs \(one weight per run\)"):
        sg.fuse([A, B], "wsum", params={"weights": [1, 2, 3]})
    with pytest.raises(ValueError, match="fusion probfuse learns probs from relevance judgements: pass qrels="):
        sg.fuse([A, B], "probfuse", params={"n_segments": 2})
    with pytest.raises(ValueError, match=r"fusion rbc needs phi"):
        sg.fuse([A, B], "rbc")
    with pytest.raises(ValueError, match="unknown parameter 'K'; did you mean 'k'"):
        sg.fuse([A, B], "rrf", params={"K": 10})
    with pytest.raises(ValueError, match="no runs to fuse"):
        sg.fuse([], "rrf")
    with pytest.raises(TypeError, match="run 1 is not a"):   # counted from 1
        sg.fuse([{"q1": 1.0}], "rrf")
    with pytest.raises(ValueError, match="not finite"):
        sg.fuse([{"q": {"a": math.inf}}], "sum")
    with pytest.raises(ValueError, match="weights by name need named runs"):
        sg.fuse([A, B], "wsum", params={"weights": {"x": 1}})
    assert sg.fuse({"x": A, "y": B}, "wsum", None, {"weights": {"y": 0.0, "x": 1.0}})["q1"]["a"] == 3.0


def test_trained_methods_take_learned_values_instead_of_qrels():
    learned = sg.fuse([A, B], "posfuse", "min-max", qrels=QRELS)
    again = sg.fuse([A, B], "posfuse", "min-max", params={"probs": [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]})
    # A's hit lists: q1 [a, b, c] -> [1, 0, 0], q2 [x] -> [0]: P = [1/2, 0, 0]
    # B's: q1 [c, d, a] -> [0, 1, 1], q2 [y, x] -> [1, 0]: P = [1/2, 1/2, 1]; a is 1st in A, 3rd in B
    assert learned["q1"]["a"] == pytest.approx(0.5 + 1.0)
    assert again["q1"]["d"] == pytest.approx(0.5)


def test_normalize_one_run():
    assert normalize(A, "min-max")["q1"] == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert normalize(A, "min-max-inverted")["q1"] == {"c": 1.0, "b": 0.5, "a": 0.0}
    assert normalize(A, "rank")["q1"] == pytest.approx({"a": 1.0, "b": 2 / 3, "c": 1 / 3})
    with pytest.raises(ValueError, match="borda"):
        normalize(A, "borda")


_scores = st.dictionaries(st.sampled_from([f"d{i}" for i in range(10)]),
                          st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]), min_size=1, max_size=10)
_runs = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), _scores, min_size=1, max_size=3)


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(_runs, min_size=2, max_size=3), st.sampled_from(sorted(METHODS)), st.sampled_from(NORMALISATIONS))
def test_every_pair_runs_on_partial_runs_and_orders_as_trec_eval(runs, method, norm):
    params = {"gamma": 0.5, "phi": 0.7, "n_segments": 2, "w": 1}
    p = {k: v for k, v in params.items() if k in METHODS[method].params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qrels = {**QRELS, "q3": {"d1": 1}}
        fused = sg.fuse(runs, method, norm, p, qrels=qrels if METHODS[method].learns else None)
    assert list(fused) == list(dict.fromkeys(q for r in runs for q in r))
    for q, docs in fused.items():
        assert set(docs) == {d for r in runs for d in r.get(q, {})}
        assert all(np.isfinite(list(docs.values())))
        assert list(docs) == trec_order(docs)


def test_optimize_fusion_reports_folds_and_optimism():
    rng = np.random.default_rng(1)
    qids = [f"q{i}" for i in range(20)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 2)) for j in range(8)} for q in qids}
    runs = [{q: {f"d{j}": float(rng.random()) for j in range(8)} for q in qids} for _ in range(2)]
    tuned = sg.optimize_fusion(qrels, runs, "wsum", "min-max", "nDCG@5", folds=4, seed=3)
    assert tuned.params in [t for t, _ in tuned.trials] and len(tuned.trials) == 11
    assert tuned.score == max(s for _, s in tuned.trials)
    assert [f["n_test"] for f in tuned.folds] == [5, 5, 5, 5] and all(f["n_tune"] == 15 for f in tuned.folds)
    # each fold's choice is the best on its tuning queries, and its held-out score is measured with it
    for f in tuned.folds:
        held = sg.fuse(runs, "wsum", "min-max", f["params"])
        tests = {q for q in qids if q in f["scores"]}
        got = sg.evaluate({q: qrels[q] for q in tests}, {q: held[q] for q in tests}, ["nDCG@5"])["nDCG@5"]
        assert f["held_out"] == pytest.approx(float(got.mean()))
    assert tuned.optimism == pytest.approx(tuned.score - tuned.held_out)
    table = tuned.table()
    assert list(table["tuned on"]) == ["all but fold 1", "all but fold 2", "all but fold 3", "all but fold 4",
                                       "all queries"]
    assert sg.optimize_fusion(qrels, runs, "wsum", "min-max", "nDCG@5", folds=4, seed=3).held_out == tuned.held_out


def test_optimize_fusion_trained_method_and_missing_queries():
    rng = np.random.default_rng(2)
    qids = [f"q{i}" for i in range(12)]
    qrels = {q: {f"d{j}": int(rng.integers(0, 2)) for j in range(6)} for q in qids}
    runs = [{q: {f"d{j}": float(rng.random()) for j in range(6)} for q in qids[:10 + r]} for r in range(2)]
    with pytest.warns(UserWarning):   # the runs lack some queries, and the fused run lacks q11: warned, not asserted
        tuned = sg.optimize_fusion(qrels, runs, "probfuse", "min-max", "AP", folds=3, max_n_segments=4)
    assert [t["n_segments"] for t, _ in tuned.trials] == [1, 2, 3, 4]
    assert tuned.n_queries == 11 and tuned.held_out is not None
    with pytest.raises(ValueError, match="no parameter to tune"):
        sg.optimize_fusion(qrels, runs, "sum")
    with pytest.raises(ValueError, match="unknown grid option"):
        sg.optimize_fusion(qrels, runs, "rrf", stepp=3)
    with pytest.raises(ValueError, match="folds must be"):
        sg.optimize_fusion(qrels, runs, "rrf", folds=1)
