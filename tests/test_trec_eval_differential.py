"""searchgrade against pytrec_eval (trec_eval 9.0.8's C code in a wheel) on hypothesis-generated qrels and runs.

Graded qrels (grade -1 .. 3; every query has a judgment >= 0: trec_eval 9.0.8 hangs on a query whose
judgments are all negative), runs with heavy score ties, queries missing on either side; -l 1 or 2 and
-J.  Every per-query value of the measures below must equal pytrec_eval's (1e-9).
Not yet here (see the branch's report): iprec_at_recall / 11pt_avg (9.x's (long)(r*R+0.9) recall levels
vs 10.0's lround) and gm_map / gm_bpref (pytrec_eval returns the log) as explicit expectations.
"""
from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.measures.names import trec_expand

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["P.5,10,3", "recall.5,10", "ndcg_cut.5,10", "map_cut.5,10", "map", "Rprec", "bpref", "recip_rank",
            "ndcg", "num_ret", "num_rel", "num_rel_ret", "success.1,5,10", "set_P", "set_recall", "set_F",
            "set_map", "set_relative_P", "relative_P.5,10", "Rprec_mult.0.5,2", "utility"]
DOCS = [f"d{i}" for i in range(20)]


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


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 2]), judged=st.booleans())
def test_agrees_with_pytrec_eval(data, level, judged):
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level,
                                            judged_docs_only_flag=judged).evaluate(run)
    named = {}
    for arg in MEASURES:
        root, _, text = arg.partition(".")
        named.update(dict(trec_expand(root, text or None, level)))
    names = sorted({n for v in theirs.values() for n in v})
    assert set(names) <= set(named)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = sg.evaluate(qrels, run, [named[n] for n in names], rel_level=level, judged_only=judged)
    for i, n in enumerate(names):
        for q, values in theirs.items():
            assert float(ours.iloc[:, i][q]) == pytest.approx(values[n], abs=1e-9), (n, q)
