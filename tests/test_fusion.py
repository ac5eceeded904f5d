"""Tests for searchgrade.retrieval.fusion: RRF and convex combination by hand, and the second stage's fixed candidate set."""
from __future__ import annotations

import math

import pytest

from searchgrade.retrieval import fusion

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
