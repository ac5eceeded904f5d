"""searchgrade.fuse against ranx 0.3.21 (the oracle): every method x normalisation, on generated runs with ties.

ranx orders tied scores by its sort, which keeps the input order for lists of at most 15
documents (numba's quicksort is an insertion sort there); the runs below are built in
trec_eval's order with at most 12 documents per list, so both rank tied documents the same
way. What ranx leaves to a Python set's order (Condorcet's start, ranks after ``borda``) is
compared only where the answer does not depend on it. ranx compiles with numba on first use,
so the examples are few and each compares every pair at once.
"""
from __future__ import annotations

import math
import warnings
from functools import cmp_to_key

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade
from searchgrade.fusion import METHODS, NORMALISATIONS, normalize, optimize_fusion
from searchgrade.fusion.tuning import grid
from tests.support.examples import examples

pytestmark = pytest.mark.peers  # the oracle is another package: `make test-peers`
ranx = pytest.importorskip("ranx")
from ranx.fusion import (bayesfuse_train, mapfuse_train, posfuse_train, probfuse_train,  # noqa: E402
                         segfuse_train, slidefuse_train)
from ranx.normalization import borda_norm, norm_switch  # noqa: E402

RANX_NORMS = [n for n in NORMALISATIONS if n != "min-max-one"] + [None]
PARAMS = {"gamma": 0.7, "sigma": 0.3, "phi": 0.8, "k": 20, "n_segments": 3, "w": 2}
RANK_BASED = {name for name, m in METHODS.items() if m.needs_ranks}
SETTINGS = settings(max_examples=examples(6), deadline=None, suppress_health_check=list(HealthCheck))


def _trec(docs: dict) -> dict:
    """A list in trec_eval order (score descending, docid descending), the order ranx keeps for ties."""
    return dict(sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True))


@st.composite
def cases(draw, n_runs=None, full_overlap=False):
    """2-3 runs over 3 queries, each list 1-12 of 14 documents, scores with ties; qrels for every query."""
    n_runs = n_runs or draw(st.integers(2, 3))
    docs = [f"d{i:02d}" for i in range(14)]
    scores = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25, -1.0])
    queries = ["q1", "q2", "q3"]
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in queries:
            chosen = docs[:8] if full_overlap else draw(st.lists(st.sampled_from(docs), min_size=1, max_size=12,
                                                                 unique=True))
            values = (draw(st.permutations([float(x) for x in range(8)])) if full_overlap
                      else [draw(scores) for _ in chosen])
            run[q] = _trec(dict(zip(chosen, values)))
        runs.append(run)
    qrels = {q: {d: draw(st.sampled_from([0, 1, 2])) for d in draw(st.lists(st.sampled_from(docs), min_size=1,
                                                                             max_size=6, unique=True))}
             for q in queries}
    return runs, qrels


def _ranx_norm_runs(runs, norm):
    if norm is None:
        return runs
    return borda_norm(runs) if norm == "borda" else [norm_switch(norm)(r) for r in runs]


def _ranx_params(name, ranx_runs, ranx_qrels, norm, weights):
    """The parameters ranx's fuse needs: given ones, and for trained methods what its *_train learns."""
    row = METHODS[name]
    p = {k: PARAMS[k] for k in row.params if k in PARAMS}
    if "weights" in row.params and name != "rrf":   # ranx's rrf has no weights
        p["weights"] = weights
    if not row.learns:
        return p
    normed = _ranx_norm_runs(ranx_runs, norm)
    learned = {"probfuse": lambda: {"probs": probfuse_train(ranx_qrels, normed, PARAMS["n_segments"])},
               "segfuse": lambda: {"probs": segfuse_train(ranx_qrels, normed)},
               "slidefuse": lambda: {"probs": slidefuse_train(ranx_qrels, normed), "w": PARAMS["w"]},
               "mapfuse": lambda: {"map_scores": mapfuse_train(ranx_qrels, normed)},
               "posfuse": lambda: {"probs": posfuse_train(ranx_qrels, normed)},
               "bayesfuse": lambda: {"log_odds": bayesfuse_train(ranx_qrels, normed)}}[name]()
    return {k: v for k, v in {**p, **learned}.items() if k != "n_segments"}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _compare(ours: dict, theirs: dict, label: str) -> None:
    assert set(ours) == set(theirs), label
    for q in ours:
        assert set(ours[q]) == set(theirs[q]), f"{label} {q}: documents differ"
        for d, s in ours[q].items():
            assert _close(s, theirs[q][d]), f"{label} {q} {d}: searchgrade {s!r}, ranx {theirs[q][d]!r}"


@SETTINGS
@given(cases(), st.lists(st.sampled_from([0.2, 0.5, 1.0, 1.5]), min_size=3, max_size=3))
def test_every_method_and_normalisation_gives_ranx_scores(case, weights):
    runs, qrels = case
    weights = weights[:len(runs)]
    ranx_runs = [ranx.Run(r) for r in runs]
    ranx_qrels = ranx.Qrels(qrels)
    compared = 0
    for name, row in METHODS.items():
        if name in ("condorcet", "w_condorcet"):
            continue                                   # order-dependent: test_condorcet_gives_ranx_order
        for norm in RANX_NORMS:
            if norm == "borda" and name in RANK_BASED:
                continue                               # ranx ranks borda lists in a set's order
            p = _ranx_params(name, ranx_runs, ranx_qrels, norm, weights)
            theirs = ranx.fuse(ranx_runs, norm=norm, method=name, params=p).to_dict()
            ours_params = {k: PARAMS[k] for k in row.params if k in PARAMS}
            if "weights" in p:
                ours_params["weights"] = weights
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")        # mapfuse's evaluation may warn about unjudged queries
                ours = searchgrade.fuse(runs, name, norm, ours_params, qrels=qrels if row.learns else None)
            _compare(ours, theirs, f"{name} / {norm}")
            compared += 1
    assert compared >= 23 * 6


def _majority(positions, weights):
    """ranx's pairwise rule as a comparison function (the test's own copy)."""
    def compare(x, y):
        xv = yv = 0.0
        for r, pos in enumerate(positions):
            w = 1.0 if weights is None else weights[r]
            if pos.get(x, 10 ** 6) < pos.get(y, 10 ** 6):
                xv += w
            else:
                yv += w
        return -1 if xv >= yv else 1
    return compare


@SETTINGS
@given(cases(n_runs=3, full_overlap=True), st.sampled_from([None, [0.2, 0.3, 0.6]]),
       st.sampled_from(["min-max", "min-max-inverted", "rank", None]))
def test_condorcet_gives_ranx_order_when_the_majority_is_an_order(case, weights, norm):
    runs, _ = case
    name = "condorcet" if weights is None else "w_condorcet"
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=norm, method=name,
                       params={} if weights is None else {"weights": weights}).to_dict()
    ours = searchgrade.fuse(runs, name, norm, None if weights is None else {"weights": weights})
    for q in ours:
        positions = [{d: i for i, d in enumerate(normalize(r, norm or "rank")[q])} for r in runs]
        compare = _majority(positions, weights)
        order = list(ours[q])
        strict = all(compare(a, b) == -1 and compare(b, a) == 1 for i, a in enumerate(order) for b in order[i + 1:])
        if strict:
            assert order == sorted(order, key=cmp_to_key(compare))
            _compare({q: ours[q]}, {q: theirs[q]}, f"{name} / {norm}")


def test_grids_are_ranx_grids():
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for n in (2, 3):
        assert [g["weights"] for g in grid("wsum", n)] == [list(c) for c in
                                                          get_trial_configs(get_possible_weights(0.1), n)]
    for step, n in ((0.2, 4), (0.25, 3), (0.05, 3), (0.5, 5)):   # made without ranx's len ** n filter
        assert [g["weights"] for g in grid("wsum", n, step=step)] == [
            list(c) for c in get_trial_configs(get_possible_weights(step), n)], (step, n)
    assert [g["k"] for g in grid("rrf", 2)] == list(range(10, 101, 10))
    assert len(grid("rbc", 2)) == len(grid("gmnz", 2)) == 100 and grid("rbc", 2)[-1] == {"phi": 1.0}
    assert [g["n_segments"] for g in grid("probfuse", 2)] == list(range(1, 101))


@settings(max_examples=examples(4), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2 ** 32 - 1))
def test_tuning_on_all_queries_picks_ranx_choice(seed):
    # continuous scores: no tied fused scores, so ranx's order and trec_eval's agree and so do the metrics
    rng = np.random.default_rng(seed)
    runs = [{f"q{i}": _trec({f"d{j}": float(rng.random()) for j in range(10)}) for i in range(4)} for _ in range(2)]
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(4)}
    ranx_runs = [ranx.Run(r) for r in runs]
    theirs = ranx.optimize_fusion(ranx.Qrels(qrels), ranx_runs, norm="min-max", method="wsum", metric="ndcg",
                                  show_progress=False)
    theirs = {"weights": [float(x) for x in theirs["weights"]]}
    ours = optimize_fusion(qrels, runs, "wsum", "min-max", "ndcg")
    assert ours.params == theirs
    fused = ranx.fuse(ranx_runs, norm="min-max", method="wsum", params=theirs)
    assert _close(ours.score, ranx.evaluate(ranx.Qrels(qrels), fused, "ndcg"))


def test_trained_methods_learn_ranx_values():
    rng = np.random.default_rng(3)
    runs = [{f"q{i}": _trec({f"d{j:02d}": float(rng.integers(0, 40)) for j in rng.choice(30, 12, replace=False)})
             for i in range(6)} for _ in range(2)]
    qrels = {f"q{i}": {f"d{j:02d}": int(rng.integers(0, 3)) for j in range(0, 30, 2)} for i in range(6)}
    ranx_runs = [ranx.Run(r) for r in runs]
    for name in ("probfuse", "segfuse", "slidefuse", "mapfuse", "posfuse", "bayesfuse"):
        p = _ranx_params(name, ranx_runs, ranx.Qrels(qrels), "min-max", None)
        theirs = ranx.fuse(ranx_runs, norm="min-max", method=name, params=p).to_dict()
        ours = searchgrade.fuse(runs, name, "min-max", {k: v for k, v in PARAMS.items() if k in METHODS[name].params},
                                qrels=qrels)
        _compare(ours, theirs, name)


def _tied_runs(seed: int, n_docs: int):
    """Two runs of 3 queries, n_docs documents each from 4 scores (many ties), listed in a shuffled order."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:03d}" for i in range(60)]
    runs = []
    for _ in range(2):
        run = {}
        for q in ("q1", "q2", "q3"):
            chosen = rng.choice(docs, n_docs, replace=False).tolist()
            run[q] = {d: float(rng.choice([0.25, 0.5, 1.0, 2.0])) for d in chosen}
        runs.append(run)
    return runs


@pytest.mark.parametrize("method, norm, params", [("rrf", None, {"k": 60}), ("rrf", "min-max", {"k": 10}),
                                                  ("isr", None, {}), ("bordafuse", "rank", {}),
                                                  ("rbc", None, {"phi": 0.8})])
def test_ties_input_gives_ranx_values_on_tied_input(method, norm, params):
    # lists of 40: ranx's sort (numba's quicksort) does not keep the input order of tied documents there,
    # so its order is read back from its runs, as a team moving from ranx has them
    runs = _tied_runs(7, 40)
    ranx_runs = [ranx.Run(r) for r in runs]
    theirs = ranx.fuse(ranx_runs, norm=norm, method=method, params=params).to_dict()
    as_ranx_lists = [dict(r.to_dict()) for r in ranx_runs]
    ours = searchgrade.fuse(as_ranx_lists, method, norm, params, ties="input")
    _compare(ours, theirs, f"{method} / {norm} ties='input'")
    trec = searchgrade.fuse(as_ranx_lists, method, norm, params)   # the default breaks ties by document id
    assert any(not _close(trec[q][d], theirs[q][d]) for q in trec for d in trec[q])


def test_ties_input_keeps_the_dict_order_that_ranx_keeps_in_short_lists():
    # up to 15 documents ranx's sort is an insertion sort: tied documents stay in the dict's order
    runs = _tied_runs(11, 12)
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=None, method="rrf", params={"k": 60}).to_dict()
    _compare(searchgrade.fuse(runs, "rrf", None, {"k": 60}, ties="input"), theirs, "rrf ties='input'")
    qrels = {q: {f"d{i:03d}": 1 for i in range(0, 60, 3)} for q in ("q1", "q2", "q3")}
    p = {"probs": posfuse_train(ranx.Qrels(qrels), [ranx.Run(r) for r in runs])}
    theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=None, method="posfuse", params=p).to_dict()
    _compare(searchgrade.fuse(runs, "posfuse", None, qrels=qrels, ties="input"), theirs, "posfuse ties='input'")
