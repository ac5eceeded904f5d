"""The line-up's fusion kinds (searchgrade.retrieval.kinds): RRF, convex and CombSUM/MNZ/MAX by hand and by property,
each the method of searchgrade.fusion that FUSION_KINDS names, called as the run engine calls a kind's row."""
from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.fusion import normalize
from searchgrade.io import trec_order
from searchgrade.retrieval.kinds import FUSION_KINDS, KINDS, NORMALISATIONS
from searchgrade.retrieval.lineup import LineupError, Retriever, retriever
from tests.support.examples import examples

A = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
B = {"q1": {"c": 0.9, "d": 0.8, "a": 0.1}, "q3": {"y": 5.0}}


def fused(kind: str, runs, run_depth: int = 100, **params) -> dict:
    """The run a line-up's fusion kind makes of ``runs`` (a list, or {retriever: run}) at the line-up's depth
    ``run_depth``, as the engine calls the kind's row; ``params`` are the retriever's (a comb kind's ``depth`` too)."""
    named = runs if isinstance(runs, dict) else {f"run{i}": run for i, run in enumerate(runs)}
    spec = Retriever("fused", "hybrid", kind, "", params, tuple(named))
    return KINDS[kind].run(None, spec, run_depth, list(named.values()))


def test_every_fusion_kind_names_a_method_and_a_normalisation_of_the_core():
    assert set(FUSION_KINDS) == {"rrf", "convex", "combsum", "combmnz", "combmax"}
    for method, norm in FUSION_KINDS.values():
        assert method in sg.fusion.METHODS and (norm is None or norm in sg.fusion.NORMS)
    assert set(NORMALISATIONS) == set(sg.fusion.NORMALISATIONS) - {"borda"} | {"none"}


def test_rrf_by_hand():
    q1 = fused("rrf", [A, B], k=60)["q1"]
    # a: rank 1 in A, rank 3 in B; c: rank 3 in A, rank 1 in B; b: rank 2 in A only; d: rank 2 in B only
    assert q1["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert q1["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert q1["b"] == pytest.approx(1 / 62) and q1["d"] == pytest.approx(1 / 62)
    # queries only one run has are kept, with that run's reciprocal ranks
    out = fused("rrf", [A, B], k=60)
    assert out["q2"] == {"x": pytest.approx(1 / 61)} and out["q3"] == {"y": pytest.approx(1 / 61)}


def test_rrf_weights_and_depth():
    out = fused("rrf", {"bm25": A, "dense": B}, 2, k=0, weights=[2.0, 1.0])
    # k = 0: a = 2/1 + 1/3, c = 2/3 + 1/1, b = 2/2, d = 1/2
    assert out["q1"] == {"a": pytest.approx(7 / 3), "c": pytest.approx(5 / 3)}


def test_rrf_ties_use_trec_order():
    run = {"q": {"d1": 1.0, "d2": 1.0}}            # tied: trec order ranks d2 (larger id) first
    out = fused("rrf", [run, {"q": {}}], k=60)
    assert out["q"] == {"d2": pytest.approx(1 / 61), "d1": pytest.approx(1 / 62)}


def test_convex_by_hand():
    out = fused("convex", [A, B], weights=[0.25, 0.75])
    q1 = out["q1"]
    # A normalised (min-max-one): a 1, b .5, c 0; B: c 1, d .875, a 0
    assert q1 == {"c": pytest.approx(0.75), "d": pytest.approx(0.75 * 0.7 / 0.8), "a": pytest.approx(0.25),
                  "b": pytest.approx(0.125)}
    assert trec_order(q1) == ["c", "d", "a", "b"]
    assert out["q2"] == {"x": pytest.approx(0.25)}           # one document: min-max-one gives it 1


def test_the_lineup_checks_fusion_tables():
    """The checks a line-up file gets (retriever() reads one table as a file does)."""
    ok = retriever(name="f", kind="combsum", inputs=["a", "b"], normalisation="min-max-one")
    assert ok.params == {"normalisation": "min-max-one", "weights": None, "depth": None}
    bad = [({"kind": "convex", "weights": [0.5, 0.6]}, "weights", "sum to 1"),
           ({"kind": "rrf", "weights": [1.0, -1.0]}, "weights", "non-negative"),
           ({"kind": "rrf", "weights": [1.0]}, "weights", "1 weights for 2 inputs"),
           ({"kind": "combsum", "normalisation": "softmax"}, "normalisation",
            "must be one of min-max, min-max-inverted, max, sum, zmuv, rank, min-max-one, none"),
           ({"kind": "combsum", "normalisation": "borda"}, "normalisation", "normalises each input alone"),
           ({"kind": "combsum", "normalisation": "minmax"}, "normalisation", "the former 'minmax' is 'min-max-one'"),
           ({"kind": "combmax", "normalisation": "zscore"}, "normalisation", "the former 'zscore' is 'zmuv'"),
           ({"kind": "combmnz", "normalisation": "rank", "depth": 0}, "depth", "positive")]
    for table, key, problem in bad:
        with pytest.raises(LineupError, match=problem) as info:
            retriever(name="f", inputs=["a", "b"], **table)
        assert info.value.key == key, table


# ----------------------------------------------------------------------------- CombSUM / CombMNZ / CombMAX


def test_comb_by_hand_with_min_max_one():
    # A normalised: a 1, b .5, c 0; B normalised: c 1, d .875, a 0
    q1 = fused("combsum", [A, B], normalisation="min-max-one")["q1"]
    assert q1 == {"a": 1.0, "c": 1.0, "d": 0.875, "b": 0.5}
    assert trec_order(q1) == ["c", "a", "d", "b"]         # a and c tie: docid descending
    assert fused("combmnz", [A, B], normalisation="min-max-one")["q1"] == {"a": 2.0, "c": 2.0, "d": 0.875, "b": 0.5}
    assert fused("combmax", [A, B], normalisation="min-max-one")["q1"] == {"a": 1.0, "c": 1.0, "d": 0.875, "b": 0.5}
    # weights: a = 2*1 + 1*0, c = 2*0 + 1*1, b = 2*.5, d = 1*.875
    assert fused("combsum", [A, B], normalisation="min-max-one", weights=[2, 1])["q1"] == {
        "a": 2.0, "c": 1.0, "b": 1.0, "d": 0.875}
    assert fused("combmax", [A, B], normalisation="min-max-one", weights=[2, 1])["q1"] == {
        "a": 2.0, "b": 1.0, "c": 1.0, "d": 0.875}
    # queries only one run has keep that run's normalised list
    out = fused("combmnz", [A, B], normalisation="min-max-one")
    assert out["q2"] == {"x": 1.0} and out["q3"] == {"y": 1.0}


def test_comb_by_hand_with_rank_zmuv_min_max_and_raw_scores():
    assert fused("combsum", [A, B], normalisation="rank")["q1"] == {
        "a": pytest.approx(4 / 3), "c": pytest.approx(4 / 3), "b": pytest.approx(2 / 3), "d": pytest.approx(2 / 3)}
    assert fused("combmnz", [A, B], normalisation="rank")["q1"]["a"] == pytest.approx(8 / 3)
    assert fused("combmax", [A, B], normalisation="rank")["q1"]["d"] == pytest.approx(2 / 3)
    raw = fused("combsum", [A, B], normalisation="none")["q1"]
    assert raw == {"a": pytest.approx(3.1), "b": 2.0, "c": pytest.approx(1.9), "d": pytest.approx(0.8)}
    # z-scores of B: mean .6, population sd sqrt(.38/3); a is -.5/sd there and +sqrt(1.5) in A
    sd_b = (0.38 / 3) ** 0.5
    z = fused("combsum", [A, B], normalisation="zmuv")["q1"]
    assert z["a"] == pytest.approx(1.5 ** 0.5 - 0.5 / sd_b)
    assert z["c"] == pytest.approx(-(1.5 ** 0.5) + 0.3 / sd_b)
    # ranx's min-max gives a one-document list 0 where min-max-one gives 1
    assert fused("combsum", [A, B], normalisation="min-max")["q2"] == {"x": 0.0}


def test_comb_depth_cuts_inputs_and_warns():
    with pytest.warns(UserWarning) as caught:
        out = fused("combsum", {"bm25": A, "dense": B}, 100, normalisation="min-max-one", depth=2)
    # only a, b of A and c, d of B are fused, each list normalised over its own top 2
    assert out["q1"] == {"a": 1.0, "c": 1.0}                 # the fused list keeps its 2 best too
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "fusion input 'bm25' has more than depth=2 documents for 1 of its 2 queries ('q1')" in messages[0]
    assert "documents below rank 2 were not fused" in messages[0] and "'dense'" in messages[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                         # no warning when nothing is cut
        assert len(fused("combmnz", [A, B], 100, normalisation="min-max-one", depth=3)["q1"]) == 3
        assert len(fused("combmax", [A, B], 100, normalisation="min-max-one")["q1"]) == 4


_scores = st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                          st.floats(-5, 5, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 2)),
                          max_size=12)
_runs = st.dictionaries(st.sampled_from(["q1", "q2", "q3"]), _scores, min_size=1, max_size=3)
_norms = st.sampled_from(NORMALISATIONS)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _norms, st.sampled_from([3, 20]))
def test_one_run_fuses_to_its_normalised_scores(run, norm, depth):
    top = {q: {d: docs[d] for d in trec_order(docs)[:depth]} for q, docs in run.items()}
    expected = normalize(top, norm) if norm != "none" else top
    expected = {q: docs for q, docs in expected.items() if docs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in ("combmax", "combsum", "combmnz"):
            assert _nonempty(fused(kind, [run], depth, normalisation=norm)) == expected
        # the same run twice: MAX unchanged, SUM doubles, MNZ quadruples
        assert _nonempty(fused("combmax", [run, run], depth, normalisation=norm)) == expected
        twice = fused("combsum", [run, run], depth, normalisation=norm)
        four = fused("combmnz", [run, run], depth, normalisation=norm)
    for q in expected:
        assert twice[q] == {d: 2 * s for d, s in expected[q].items()}
        assert four[q] == {d: 4 * s for d, s in expected[q].items()}


def _nonempty(run: dict) -> dict:
    """The queries with documents (as a run file keeps them)."""
    return {q: docs for q, docs in run.items() if docs}


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _runs, st.floats(0, 1).map(lambda x: round(x, 3)))
def test_combsum_of_min_max_one_is_the_convex_combination(r1, r2, w):
    weights = [w, 1.0 - w]
    assert fused("combsum", [r1, r2], 1000, normalisation="min-max-one", weights=weights) == fused(
        "convex", [r1, r2], 1000, weights=weights)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, _runs, st.sampled_from(["min-max-one", "rank", "min-max", "max"]))
def test_comb_orderings_between_max_sum_and_mnz(r1, r2, norm):
    # with non-negative normalised scores: MAX <= SUM <= MNZ, and the result does not depend on the runs' order
    r1 = {q: {d: abs(s) for d, s in docs.items()} for q, docs in r1.items()}     # max: s / max is >= 0 then
    r2 = {q: {d: abs(s) for d, s in docs.items()} for q, docs in r2.items()}
    mx, sm, mnz = (fused(kind, [r1, r2], 1000, normalisation=norm) for kind in ("combmax", "combsum", "combmnz"))
    assert fused("combsum", [r2, r1], 1000, normalisation=norm) == sm
    for q in sm:
        for d in sm[q]:
            assert mx[q][d] <= sm[q][d] + 1e-12 and sm[q][d] <= mnz[q][d] + 1e-12


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(_runs, min_size=2, max_size=3), st.sampled_from([5, 100]), st.sampled_from([1.0, 0.3]),
       st.sampled_from(["min-max-one", "min-max", "rank", "none"]))
def test_each_kind_is_its_core_method(runs, depth, w, norm):
    """rrf and convex are searchgrade.fuse's rrf and wsum of min-max-one; the comb kinds with weights 1 and every
    input whole are its sum, mnz and max with the same normalisation."""
    weights = [w] * len(runs)
    convex_w = [1 / len(runs)] * len(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert fused("rrf", runs, depth, k=60, weights=weights) == sg.fuse(
            runs, "rrf", None, {"k": 60, "weights": weights}, depth=depth)
        assert fused("convex", runs, depth, weights=convex_w) == sg.fuse(
            runs, "wsum", "min-max-one", {"weights": convex_w}, depth=depth)
        for kind in ("combsum", "combmnz", "combmax"):
            method, _ = FUSION_KINDS[kind]
            assert fused(kind, runs, 1000, normalisation=norm) == sg.fuse(runs, method, norm, depth=1000), kind


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
    assert fused("rrf", runs, 100, k=60) == _rrf_reference(runs, 60, [1.0] * 3, 100)
    assert fused("rrf", runs, 50, k=10, weights=[0.5, 0.3, 0.2]) == _rrf_reference(runs, 10, [0.5, 0.3, 0.2], 50)
    weights = [0.5, 0.3, 0.2]
    expected = {}
    for q in runs[0]:
        total = {}
        for run, w in zip(runs, weights):
            lo, hi = min(run[q].values()), max(run[q].values())
            for d, s in run[q].items():
                total[d] = total.get(d, 0.0) + w * ((s - lo) / (hi - lo))
        expected[q] = dict(sorted(total.items(), key=lambda item: (item[1], item[0]), reverse=True)[:100])
    assert fused("convex", runs, 100, weights=weights) == expected
