"""searchgrade.retrieval.rerank: a second stage re-scores a fixed candidate set and checks its scorer."""
from __future__ import annotations

import math

import pytest

from searchgrade.io import trec_order
from searchgrade.retrieval import rerank


def test_candidates_are_each_querys_top_n_in_trec_order():
    run = {"q": {"d1": 1.0, "d3": 2.0, "d2": 2.0}, "empty": {}}
    assert rerank.candidates(run, 2) == {"q": ["d3", "d2"], "empty": []}     # tie: docid descending
    with pytest.raises(ValueError, match="n must be positive"):
        rerank.candidates(run, 0)


def test_rerank_keeps_the_candidate_set():
    first = {"q1": {f"d{i:02d}": 100.0 - i for i in range(50)}, "q2": {"a": 1.0, "b": 2.0}, "q3": {}}

    def scorer(qid, docids):          # reverses the first stage's order
        return [-first[qid][d] for d in docids]

    second = rerank.rerank(first, scorer, n=30)
    assert set(second["q1"]) == set(rerank.candidates(first, 30)["q1"]) and len(second["q1"]) == 30
    assert trec_order(second["q1"])[0] == "d29"       # the 30th first-stage document is now first
    assert "d30" not in second["q1"]                 # below the cut: left out
    assert trec_order(second["q2"]) == ["a", "b"] and second["q3"] == {}


def test_rerank_checks_its_scorer():
    with pytest.raises(ValueError, match="returned 1 scores for 2 documents"):
        rerank.rerank({"q": {"a": 1.0, "b": 0.5}}, lambda q, d: [1.0], n=5)
    with pytest.raises(ValueError, match="non-finite score for query q, document a"):
        rerank.rerank({"q": {"a": 1.0}}, lambda q, d: [math.nan], n=5)
