"""searchgrade against pytrec_eval (trec_eval 9.0.8's C code in a wheel) on hypothesis-generated qrels and runs.

Graded qrels (grade -1 .. 3; every query has a judgment >= 0: trec_eval 9.0.8 hangs on a query whose
judgments are all negative), runs with heavy score ties, queries missing on either side; -l 1 or 2 and
-J.  searchgrade follows trec_eval 10.0 (checked byte for byte by cli/trec_eval/test_golden.py); where 9.0.8
differs, the difference is asserted here as an explicit expectation, not left out:

- iprec_at_recall_r / 11pt_avg: 9.0.8 turns recall level r into (long)(r*R + 0.9) relevant documents,
  10.0 into lround(r*R).  pytrec_eval's value equals searchgrade's at level c/R with c = 9.0.8's count.
- with -J, a query with no judged document retrieved: pytrec_eval's iprec at a level whose 9.0.8 count
  is 0 (and so its 11pt_avg) is NaN (0/0 in 9.0.8); searchgrade's is 0.
- gm_map / gm_bpref: trec_eval's per-query value is log(max(v, 1e-5)) (the summary is exp of their mean);
  searchgrade's per-query value is v itself (AP, bpref) and only its summary is geometric.

Also checked: queries on one side only (pytrec_eval evaluates the common ones, as trec_eval without -c;
-c's mean is their sum over the qrels' queries) and -M (pytrec_eval has no -M: it is given the run cut in
trec_eval's order).  Not checkable here, as pytrec_eval lacks them or dies on them: relstring (no string
values), rbp, gains per grade (`ndcg.1=3`, `G.1=2`), -n, -N.
"""
from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from tests.support.examples import examples

pytestmark = pytest.mark.peers  # the oracle is another package: `make test-peers`
pytrec_eval = pytest.importorskip("pytrec_eval")

#: Families whose values agree exactly (1e-9) per query.
EQUAL = ["P.5,10,3", "recall.5,10", "ndcg_cut.5,10", "map_cut.5,10", "map", "Rprec", "bpref", "recip_rank",
         "ndcg", "num_ret", "num_rel", "num_rel_ret", "success.1,5,10", "set_P", "set_recall", "set_F",
         "set_map", "set_relative_P", "relative_P.5,10", "Rprec_mult.0.5,2", "utility", "infAP", "Rndcg",
         "ndcg_rel", "binG", "G", "num_nonrel_judged_ret"]
LEVELS = [i / 10 for i in range(11)]
MIN_GEO_MEAN = 1e-5  # trec_eval.h's floor for geometric means
DOCS = [f"d{i}" for i in range(20)]
SETTINGS = settings(max_examples=examples(40), deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def collections(draw):
    """(qrels, run): graded qrels with a judgment >= 0 per query, runs with tied scores, missing queries."""
    qrels = {}
    for q in range(draw(st.integers(1, 4))):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        grades = [draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for _ in docs]
        grades[0] = max(grades[0], 0)
        qrels[f"q{q}"] = dict(zip(docs, grades))
    run = {f"q{q}": {d: draw(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.0]))
                     for d in draw(st.lists(st.sampled_from(DOCS + ["x1", "x2"]), min_size=1, max_size=14,
                                            unique=True))}
           for q in range(draw(st.integers(1, 5)))}
    return qrels, run


def theirs(qrels, run, measures, level=1, judged=False) -> dict:
    """pytrec_eval's per-query values {qid: {printed name: value}}."""
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level,
                                          judged_docs_only_flag=judged).evaluate(run)


def ours(qrels, run, names, **options):
    """searchgrade's frame for trec_eval's printed names (column i is names[i]), its warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sg.evaluate(qrels, run, list(names), **options)


def assert_equal_per_query(expected: dict, frame, names) -> None:
    """frame's column i equals expected[q][names[i]] for every query pytrec_eval printed."""
    for i, name in enumerate(names):
        for q, values in expected.items():
            assert float(frame.iloc[:, i][q]) == pytest.approx(values[name], abs=1e-9), (name, q)


@SETTINGS
@given(data=collections(), level=st.sampled_from([1, 2]), judged=st.booleans())
def test_agrees_with_pytrec_eval(data, level, judged):
    """Every family in EQUAL: each per-query value equals pytrec_eval's (1e-9)."""
    qrels, run = data
    expected = theirs(qrels, run, EQUAL, level, judged)
    names = sorted({n for v in expected.values() for n in v})
    assert_equal_per_query(expected, ours(qrels, run, names, rel_level=level, judged_only=judged), names)


def level_9(r: float, R: int) -> float:
    """The recall level whose trec_eval 10.0 count lround(level*R) is trec_eval 9.0.8's (long)(r*R + 0.9)."""
    return math.floor(r * R + 0.9) / R if R else r


def judged_retrieved(qrels: dict, run: dict, q: str) -> bool:
    """Whether the run retrieves a judged document (any grade) for q."""
    return bool(set(run.get(q, ())) & set(qrels.get(q, ())))


@SETTINGS
@given(data=collections(), level=st.sampled_from([1, 2]), judged=st.booleans())
def test_interpolated_precision_follows_trec_eval_9_recall_levels(data, level, judged):
    """iprec_at_recall_r and 11pt_avg: pytrec_eval's value is searchgrade's at 9.0.8's count of relevant
    documents; with -J and no judged document retrieved, a level whose count is 0 is NaN (searchgrade 0)."""
    qrels, run = data
    expected = theirs(qrels, run, ["iprec_at_recall", "11pt_avg", "num_rel"], level, judged)
    counts = {q: int(values["num_rel"]) for q, values in expected.items()}
    shifted = {q: [f"iprec_at_recall_{level_9(r, R)!r}" for r in LEVELS] for q, R in counts.items()}
    distinct = list(dict.fromkeys(name for names in shifted.values() for name in names))  # one call for all
    frame = ours(qrels, run, distinct, rel_level=level, judged_only=judged)
    for q, values in expected.items():
        empty = judged and not judged_retrieved(qrels, run, q)  # nothing judged left
        at_9 = []
        for r, name in zip(LEVELS, shifted[q]):
            printed = f"iprec_at_recall_{r:.2f}"
            at_9.append(float(frame.iloc[:, distinct.index(name)][q]))
            if empty and math.floor(r * counts[q] + 0.9) == 0:  # 9.0.8 divides 0 by 0
                assert math.isnan(values[printed]) and at_9[-1] == 0.0, (q, printed)
                continue
            assert values[printed] == pytest.approx(at_9[-1], abs=1e-9), (q, printed, counts[q])
        if any(math.isnan(values[f"iprec_at_recall_{r:.2f}"]) for r in LEVELS):
            assert math.isnan(values["11pt_avg"]), q
        else:
            assert values["11pt_avg"] == pytest.approx(sum(at_9) / len(LEVELS), abs=1e-9), (q, counts[q])


def test_the_two_recall_level_rules_give_different_values():
    """R = 4, level 0.6: 9.0.8 counts (long)(3.3) = 3 relevant documents, 10.0 lround(2.4) = 2."""
    qrels = {"q": {"d1": 1, "d2": 1, "d3": 1, "d4": 1}}
    run = {"q": {"d1": 6.0, "d2": 5.0, "x1": 4.0, "x2": 3.0, "x3": 2.0, "d3": 1.0}}
    nine = theirs(qrels, run, ["iprec_at_recall"])["q"]["iprec_at_recall_0.60"]
    ten, at_3 = ours(qrels, run, ["iprec_at_recall_0.60", "iprec_at_recall_0.75"]).iloc[0]
    assert (nine, ten, at_3) == (0.5, 1.0, 0.5)  # P at the 3rd relevant (rank 6) vs at the 2nd (rank 2)


@SETTINGS
@given(data=collections(), level=st.sampled_from([1, 2]), judged=st.booleans())
def test_geometric_means_are_logs_per_query_in_pytrec_eval(data, level, judged):
    """gm_map / gm_bpref: pytrec_eval's per-query value is log(max(v, 1e-5)) of searchgrade's AP / bpref,
    and pytrec_eval's summary of them equals searchgrade's geometric mean over the same queries."""
    qrels, run = data
    expected = theirs(qrels, run, ["gm_map", "gm_bpref"], level, judged)
    names = ["gm_map", "gm_bpref"]
    frame = ours(qrels, run, names, rel_level=level, judged_only=judged).loc[sorted(expected)]
    for i, name in enumerate(names):
        for q, values in expected.items():
            assert values[name] == pytest.approx(math.log(max(float(frame.iloc[:, i][q]), MIN_GEO_MEAN)), abs=1e-9)
        summary = pytrec_eval.compute_aggregated_measure(name, [v[name] for v in expected.values()])
        assert float(sg.aggregate(frame).iloc[i]) == pytest.approx(summary, rel=1e-9, abs=1e-12), name


@SETTINGS
@given(data=collections(), level=st.sampled_from([1, 2]))
def test_missing_queries_as_trec_eval_with_and_without_c(data, level):
    """pytrec_eval scores the queries in both files (trec_eval without -c: searchgrade's missing='ignore');
    trec_eval -c's mean (missing='zero') is the sum of those values over the number of qrels queries."""
    qrels, run = data
    measures = ["map", "P.5", "ndcg", "recip_rank"]
    expected = theirs(qrels, run, measures, level)
    names = sorted({n for v in expected.values() for n in v})
    ignored = ours(qrels, run, names, rel_level=level, missing="ignore")
    assert set(ignored.index) == set(expected) == set(qrels) & set(run)
    zero = ours(qrels, run, names, rel_level=level, missing="zero")
    assert set(zero.index) == set(qrels)
    means = sg.aggregate(zero)
    for i, name in enumerate(names):
        assert float(means.iloc[i]) == pytest.approx(sum(v[name] for v in expected.values()) / len(qrels),
                                                     abs=1e-9), name


@SETTINGS
@given(data=collections(), depth=st.integers(1, 6), level=st.sampled_from([1, 2]))
def test_max_docs_is_the_run_cut_in_trec_eval_order(data, depth, level):
    """-M depth (max_docs): searchgrade's values equal pytrec_eval's on the run cut to its first `depth`
    documents in trec_eval's order (score descending, then docid descending)."""
    qrels, run = data
    cut = {q: {d: docs[d] for d in sg.trec_order(docs, depth)} for q, docs in run.items()}
    expected = theirs(qrels, cut, EQUAL, level)
    names = sorted({n for v in expected.values() for n in v})
    assert_equal_per_query(expected, ours(qrels, run, names, rel_level=level, max_docs=depth), names)
