"""Tests for searchgrade.retrieval.fusion: RRF, convex and CombSUM/MNZ/MAX by hand and by property, and the second stage's fixed candidate set."""
from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchgrade.retrieval import fusion
from tests.support.examples import examples

A = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"c": 0.9, "d": 0.8, "a": 0.1}, "q3": {"y": 5.0}}


def test_ranking_is_trec_order():
    # score descending, ties by docid descending (trec_eval)
    assert fusion.ranking({"d1": 1.0, "d3": 2.0, "d2": 2.0}) == ["d3", "d2", "d1"]
    assert fusion.cut({"q": {"d1": 1.0, "d3": 2.0, "d2": 2.0}}, 2) == {"q": {"d3": 2.0, "d2": 2.0}}


def test_rrf_by_hand():
    fused = fusion.rrf([A, B], k=60)
    q1 = fused["q1"]
    # a: rank 1 in A, rank 3 in B; c: rank 3 in A, rank 1 in B; b: rank 2 in A only; d: rank 2 in B only
    assert q1["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert q1["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert q1["b"] == pytest.approx(1 / 62)
    assert q1["d"] == pytest.approx(1 / 62)
    assert q1["a"] > q1["b"]
    # queries only one run has are kept, with that run's reciprocal ranks
    assert fused["q2"] == {"x": pytest.approx(1 / 61)}
    assert fused["q3"] == {"y": pytest.approx(1 / 61)}


def test_rrf_weights_depth_and_named_runs():
    fused = fusion.rrf({"bm25": A, "dense": B}, k=0, weights={"bm25": 2.0, "dense": 1.0}, depth=2)
    # k = 0: a = 2/1 + 1/3, c = 2/3 + 1/1, b = 2/2, d = 1/2
    assert fused["q1"] == {"a": pytest.approx(7 / 3), "c": pytest.approx(5 / 3)}
    with pytest.raises(ValueError, match="no weight for run"):
        fusion.rrf({"bm25": A, "dense": B}, weights={"bm25": 1.0})
    with pytest.raises(ValueError, match="non-negative"):
        fusion.rrf([A, B], weights=[1.0, -1.0])
    with pytest.raises(TypeError, match="not a"):
        fusion.rrf([{"q1": 1.0}])


def test_rrf_ties_use_trec_order():
    # both runs tie d1/d2; trec order ranks d2 (larger id) first
    run = {"q": {"d1": 1.0, "d2": 1.0}}
    fused = fusion.rrf([run], k=60)
    assert fused["q"]["d2"] == pytest.approx(1 / 61)
    assert fused["q"]["d1"] == pytest.approx(1 / 62)


def test_minmax():
    assert fusion.minmax({"a": 3.0, "b": 2.0, "c": 1.0}) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert fusion.minmax({"a": 7.0}) == {"a": 1.0}
    assert fusion.minmax({}) == {}


def test_convex_by_hand():
    fused = fusion.convex([A, B], [0.25, 0.75])
    q1 = fused["q1"]
    # A normalised: a 1, b .5, c 0; B normalised: c 1, d .875, a 0
    assert q1["a"] == pytest.approx(0.25)
    assert q1["b"] == pytest.approx(0.125)
    assert q1["c"] == pytest.approx(0.75)
    assert q1["d"] == pytest.approx(0.75 * 0.7 / 0.8)
    assert fusion.ranking(q1) == ["c", "d", "a", "b"]
    assert fused["q2"] == {"x": pytest.approx(0.25)}
    with pytest.raises(ValueError, match="sum to 1"):
        fusion.convex([A, B], [0.5, 0.6])
    with pytest.raises(ValueError, match="needs weights"):
        fusion.convex([A, B], None)


def test_rerank_keeps_the_candidate_set():
    first = {"q1": {f"d{i:02d}": 100.0 - i for i in range(50)}, "q2": {"a": 1.0, "b": 2.0}}
    # a scorer that reverses the order
    def scorer(qid, docids):
        return [-first[qid][d] for d in docids]
    second = fusion.rerank(first, scorer, n=30)
    assert set(second["q1"]) == set(fusion.candidates(first, 30)["q1"])
    assert len(second["q1"]) == 30
    assert fusion.ranking(second["q1"])[0] == "d29"   # the 30th first-stage document is now first
    assert "d30" not in second["q1"]                 # below the cut: left out
    assert fusion.ranking(second["q2"]) == ["a", "b"]


def test_rerank_checks_scorer():
    with pytest.raises(ValueError, match="returned 1 scores for 2 documents"):
        fusion.rerank({"q": {"a": 1.0, "b": 0.5}}, lambda q, d: [1.0], n=5)
    with pytest.raises(ValueError, match="non-finite"):
        fusion.rerank({"q": {"a": 1.0}}, lambda q, d: [math.nan], n=5)


# ----------------------------------------------------------------------------- CombSUM / CombMNZ / CombMAX


def test_normalisations_by_hand():
    scores = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert fusion.normalise(scores, "minmax") == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert fusion.normalise(scores, "rank") == {"a": 1.0, "b": pytest.approx(2 / 3), "c": pytest.approx(1 / 3)}
    z = fusion.normalise(scores, "zscore")            # mean 2, population sd sqrt(2/3)
    assert z == {"a": pytest.approx(1.5 ** 0.5), "b": 0.0, "c": pytest.approx(-(1.5 ** 0.5))}
    assert fusion.normalise(scores, None) == scores and fusion.normalise(scores, "none") == scores
    assert fusion.zscore({"a": 2.0, "b": 2.0}) == {"a": 0.0, "b": 0.0}      # sd = 0
    # rank normalisation breaks ties in trec order (docid descending), as rrf does
    assert fusion.rank_scores({"d1": 1.0, "d2": 1.0}) == {"d2": 1.0, "d1": 0.5}
    assert fusion.normalise({}, "zscore") == {} and fusion.rank_scores({}) == {}
    with pytest.raises(ValueError, match="unknown normalisation 'l2'"):
        fusion.normalise(scores, "l2")


def test_comb_by_hand_with_minmax():
    # A normalised: a 1, b .5, c 0; B normalised: c 1, d .875, a 0
    q1 = fusion.combsum([A, B])["q1"]
    assert q1 == {"a": 1.0, "c": 1.0, "d": 0.875, "b": 0.5}
    assert fusion.ranking(q1) == ["c", "a", "d", "b"]         # a and c tie: docid descending
    assert fusion.combmnz([A, B])["q1"] == {"a": 2.0, "c": 2.0, "d": 0.875, "b": 0.5}
    assert fusion.combmax([A, B])["q1"] == {"a": 1.0, "c": 1.0, "d": 0.875, "b": 0.5}
    # weights: a = 2*1 + 1*0, c = 2*0 + 1*1, b = 2*.5, d = 1*.875
    assert fusion.combsum({"x": A, "y": B}, weights={"x": 2, "y": 1})["q1"] == {"a": 2.0, "c": 1.0, "b": 1.0,
                                                                                  "d": 0.875}
    assert fusion.combmax([A, B], weights=[2, 1])["q1"] == {"a": 2.0, "b": 1.0, "c": 1.0, "d": 0.875}
    # queries only one run has keep that run's normalised list
    fused = fusion.combmnz([A, B])
    assert fused["q2"] == {"x": 1.0} and fused["q3"] == {"y": 1.0}


def test_comb_by_hand_with_rank_zscore_and_raw_scores():
    third = pytest.approx(1 / 3)
    assert fusion.combsum([A, B], normalisation="rank")["q1"] == {
        "a": pytest.approx(4 / 3), "c": pytest.approx(4 / 3), "b": pytest.approx(2 / 3), "d": pytest.approx(2 / 3)}
    assert fusion.combmnz([A, B], normalisation="rank")["q1"]["a"] == pytest.approx(8 / 3)
    assert fusion.combmax([A, B], normalisation="rank")["q1"]["a"] == 1.0
    assert fusion.combmax([A, B], normalisation="rank")["q1"]["d"] == pytest.approx(2 / 3) != third
    raw = fusion.combsum([A, B], normalisation=None)["q1"]
    assert raw == {"a": pytest.approx(3.1), "b": 2.0, "c": pytest.approx(1.9), "d": pytest.approx(0.8)}
    # z-scores of B: mean .6, population sd sqrt(.38/3); a is -.5/sd there and +sqrt(1.5) in A
    sd_b = (0.38 / 3) ** 0.5
    z = fusion.combsum([A, B], normalisation="zscore")["q1"]
    assert z["a"] == pytest.approx(1.5 ** 0.5 - 0.5 / sd_b)
    assert z["c"] == pytest.approx(-(1.5 ** 0.5) + 0.3 / sd_b)
    assert fusion.combmax([A, B], normalisation="zscore")["q1"]["a"] == pytest.approx(1.5 ** 0.5)


def test_comb_depth_cuts_inputs_and_warns():
    with pytest.warns(UserWarning) as caught:
        fused = fusion.combsum({"bm25": A, "dense": B}, depth=2)
    # only a, b of A and c, d of B are fused, each list normalised over its own top 2
    assert fused["q1"] == {"a": 1.0, "c": 1.0}                 # the fused list keeps its 2 best too
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "fusion input 'bm25' has more than depth=2 documents for 1 of its 2 queries ('q1')" in messages[0]
    assert "documents below rank 2 were not fused" in messages[0] and "'dense'" in messages[1]
    with pytest.warns(UserWarning) as caught:
        assert fusion.combsum([A, B], depth=2, normalisation="rank")["q1"] == {"a": 1.0, "c": 1.0}
    assert [str(w.message)[:18] for w in caught] == ["fusion input run 0", "fusion input run 1"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # no warning when nothing is cut
        assert len(fusion.combmnz([A, B], depth=3)["q1"]) == 3
        assert len(fusion.combmax([A, B], depth=None)["q1"]) == 4
    with pytest.warns(UserWarning, match="fusion input run 1 has more"):
        fusion.combmax([{"q": {"x": 1.0}}, A], depth=1)


def test_comb_refuses_bad_input():
    with pytest.raises(ValueError, match="unknown normalisation"):
        fusion.combsum([A, B], normalisation="softmax")
    with pytest.raises(ValueError, match="depth must be positive"):
        fusion.combmnz([A, B], depth=0)
    with pytest.raises(ValueError, match="non-negative"):
        fusion.combmax([A, B], weights=[1.0, -2.0])
    with pytest.raises(ValueError, match="no runs"):
        fusion.combsum([])


_scores = st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                          st.floats(-5, 5, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 2)),
                          max_size=12)
_runs = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), _scores, min_size=1, max_size=3)
_norms = st.sampled_from(fusion.NORMALISATIONS)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _norms, st.sampled_from([None, 3, 20]))
def test_one_run_fuses_to_its_normalised_scores(run, norm, depth):
    expected = {q: fusion.normalise(dict((d, docs[d]) for d in fusion.ranking(docs)[:depth]), norm)
                for q, docs in run.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (fusion.combmax, fusion.combsum, fusion.combmnz):
            assert fn([run], normalisation=norm, depth=depth) == expected
        # the same run twice: MAX unchanged, SUM doubles, MNZ quadruples
        assert fusion.combmax([run, run], normalisation=norm, depth=depth) == expected
        twice = fusion.combsum([run, run], normalisation=norm, depth=depth)
        four = fusion.combmnz([run, run], normalisation=norm, depth=depth)
    for q in expected:
        assert twice[q] == {d: 2 * s for d, s in expected[q].items()}
        assert four[q] == {d: 4 * s for d, s in expected[q].items()}


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _runs, st.floats(0, 1).map(lambda x: round(x, 3)))
def test_combsum_minmax_is_convex_combination(r1, r2, w):
    weights = [w, 1.0 - w]
    assert fusion.combsum([r1, r2], weights, "minmax", depth=None) == fusion.convex([r1, r2], weights, depth=None)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _runs, st.sampled_from(["minmax", "rank"]))
def test_comb_orderings_between_max_sum_and_mnz(r1, r2, norm):
    # with non-negative normalised scores: MAX <= SUM <= MNZ, and the result does not depend on the runs' order
    mx, sm, mnz = (fn([r1, r2], normalisation=norm, depth=None) for fn in (fusion.combmax, fusion.combsum, fusion.combmnz))
    assert fusion.combsum([r2, r1], normalisation=norm, depth=None) == sm
    for q in sm:
        for d in sm[q]:
            assert mx[q][d] <= sm[q][d] + 1e-12 and sm[q][d] <= mnz[q][d] + 1e-12


def _rrf_reference(runs, k, weights, depth):
    """Reciprocal rank fusion written out plainly, in the same order of additions as the package."""
    out = {}
    for q in dict.fromkeys(q for r in runs for q in r):
        total = {}
        for run, w in zip(runs, weights):
            ordered = sorted(run.get(q, {}).items(), key=lambda item: (item[1], item[0]), reverse=True)
            for rank, (d, _) in enumerate(ordered, 1):
                total[d] = total.get(d, 0.0) + w / (k + rank)
        top = sorted(total.items(), key=lambda item: (item[1], item[0]), reverse=True)[:depth]
        out[q] = dict(top)
    return out


def test_rrf_and_convex_are_unchanged_bit_for_bit():
    # the book's cached fusion runs depend on these exact floats
    rng = random.Random(11)
    runs = [{f"q{i}": {f"d{rng.randrange(300)}": rng.random() * 30 for _ in range(100)} for i in range(20)}
            for _ in range(3)]
    assert fusion.rrf(runs, k=60, depth=100) == _rrf_reference(runs, 60, [1.0] * 3, 100)
    assert fusion.rrf(runs, k=10, weights=[0.5, 0.3, 0.2], depth=50) == _rrf_reference(runs, 10, [0.5, 0.3, 0.2], 50)
    weights = [0.5, 0.3, 0.2]
    expected = {}
    for q in runs[0]:
        total = {}
        for run, w in zip(runs, weights):
            lo, hi = min(run[q].values()), max(run[q].values())
            for d, s in run[q].items():
                total[d] = total.get(d, 0.0) + w * ((s - lo) / (hi - lo))
        expected[q] = dict(sorted(total.items(), key=lambda item: (item[1], item[0]), reverse=True)[:100])
    assert fusion.convex(runs, weights) == expected
