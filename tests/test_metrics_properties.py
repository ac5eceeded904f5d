"""Property-based tests: agreement with pytrec_eval on random graded runs with ties, and invariants."""
import itertools
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from tests.support.examples import examples, orders

DOCS = [f"d{i}" for i in range(12)] + ["D1", "d10x", "a"]  # mixed case and prefixes exercise strcmp order
SCORES = [0.1, 0.25, 0.5, 1.0, 2.0]  # a small set, so ties are frequent
PYTREC_SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SETTINGS = settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def qrels_and_run(draw, min_queries=1, max_queries=4, grades=(-1, 0, 1, 2, 3)):
    """Random graded qrels and a run with tied scores; some qrels queries missing from the run."""
    n = draw(st.integers(min_queries, max_queries))
    qrels, run = {}, {}
    for q in range(n):
        qid = f"q{q}"
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=10))
        qrels[qid] = {d: draw(st.sampled_from(grades)) for d in judged}
        if not any(g >= 0 for g in qrels[qid].values()):
            # at least one real judgment: pytrec_eval (trec_eval 9's ndcg_cut) crashes on a query
            # whose qrels hold only negative grades; test_only_negative_grades covers that case
            qrels[qid][draw(st.sampled_from(DOCS))] = draw(st.sampled_from([g for g in grades if g >= 0]))
        if draw(st.booleans()) or q == 0:
            ranked = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
            run[qid] = {d: draw(st.sampled_from(SCORES)) for d in ranked}
    return qrels, run


# our measure -> (pytrec_eval family, value key)
CROSS = {
    "map": ("map", "map"),
    "P_5": ("P", "P_5"),
    "P@10": ("P", "P_10"),
    "recall_5": ("recall", "recall_5"),
    "R@10": ("recall", "recall_10"),
    "ndcg": ("ndcg", "ndcg"),
    "ndcg_cut_5": ("ndcg_cut", "ndcg_cut_5"),
    "nDCG@10": ("ndcg_cut", "ndcg_cut_10"),
    "recip_rank": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "bpref": ("bpref", "bpref"),
    "success_1": ("success", "success_1"),
    "Hit@5": ("success", "success_5"),
    "set_F": ("set_F", "set_F"),
    "AP@5": ("map_cut", "map_cut_5"),
    "num_rel_ret": ("num_rel_ret", "num_rel_ret"),
}


@pytest.mark.peers
@PYTREC_SETTINGS
@given(data=qrels_and_run(), rel_level=st.sampled_from([1, 2]))
def test_agrees_with_pytrec_eval(data, rel_level):
    import pytrec_eval

    qrels, run = data
    ev = pytrec_eval.RelevanceEvaluator(qrels, {f for f, _ in CROSS.values()}, relevance_level=rel_level)
    theirs = ev.evaluate(run)
    ours = sg.evaluate(qrels, run, list(CROSS), rel_level=rel_level)
    assert set(ours.index) == set(theirs)
    for q, vals in theirs.items():
        for name, (_, key) in CROSS.items():
            assert abs(ours.loc[q, name] - vals[key]) <= 1e-4, (q, name, ours.loc[q, name], vals[key])


def rbp_reference(qrels_q, run_q, p, level):
    """Binary RBP written out as trec_eval's m_rbp.c loop (score desc, docno desc)."""
    ranked = sorted(run_q.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    return (1 - p) * sum(p**i for i, (d, _) in enumerate(ranked) if qrels_q.get(d, 0) >= level)


@SETTINGS
@given(data=qrels_and_run(grades=(-1, 0, 1)), p=st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_binary_rbp_matches_trec_eval_loop(data, p):
    # pytrec_eval 0.5 has no rbp; on binary qrels trec_eval's rbp is this loop (checked on out.test too).
    qrels, run = data
    df = sg.evaluate(qrels, run, [f"RBP(p={p})"])
    trec = sg.evaluate(qrels, run, ["rbp"])  # trec_eval's rbp: p = 0.9, printed as RBP(p=0.9)
    assert list(trec.columns) == ["RBP(p=0.9)"]
    for q in df.index:
        assert df.loc[q, f"RBP(p={p})"] == pytest.approx(rbp_reference(qrels[q], run[q], p, 1), abs=1e-12)
        assert trec.loc[q, "RBP(p=0.9)"] == pytest.approx(rbp_reference(qrels[q], run[q], 0.9, 1), abs=1e-12)


BOUNDED = ["P@3", "R@5", "Hit@2", "Rprec", "AP", "AP@5", "RR", "RR@3", "nDCG", "nDCG@5", "nDCG(gain=exp)@5",
           "nDCG(discount=jk,b=3)@5", "RBP(p=0.8)", "RBP_resid(p=0.8)", "Judged@5", "Hole@5", "Unj@5", "SetP",
           "SetR", "SetF(beta=2)", "SetE", "RelP@5"]
DETERMINISTIC_ONLY = ["ERR@5", "Bpref", "IPrec@0.3", "11pt", "infAP", "binG", "G", "ndcg_rel", "Rndcg"]


@SETTINGS
@given(data=qrels_and_run(), ties=st.sampled_from(["trec", "input", "expected"]),
       missing=st.sampled_from(["ignore", "zero"]))
def test_bounds(data, ties, missing):
    qrels, run = data
    names = BOUNDED + (DETERMINISTIC_ONLY if ties != "expected" else [])
    df = sg.evaluate(qrels, run, names, ties=ties, missing=missing)
    values = df.to_numpy(dtype=float)
    assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12)


@SETTINGS
@given(data=qrels_and_run(), ties=st.sampled_from(["trec", "input", "expected"]))
def test_recall_monotone_and_hole_is_one_minus_judged(data, ties):
    qrels, run = data
    ks = [1, 2, 3, 5, 8, 13]
    df = sg.evaluate(qrels, run, [f"R@{k}" for k in ks] + [f"Judged@{k}" for k in ks] + [f"Hole@{k}" for k in ks],
                     ties=ties)
    r = df[[f"R@{k}" for k in ks]].to_numpy()
    assert np.all(np.diff(r, axis=1) >= -1e-12)
    for k in ks:
        np.testing.assert_allclose(df[f"Hole@{k}"], 1 - df[f"Judged@{k}"], atol=1e-12)


@SETTINGS
@given(data=qrels_and_run(grades=(0,)), extra=st.sampled_from(DOCS), ties=st.sampled_from(["trec", "expected"]))
def test_rr_equals_ap_with_one_relevant_document(data, extra, ties):
    qrels, run = data
    for q in qrels:
        qrels[q] = {**qrels[q], extra: 1}  # exactly one relevant document per query
    df = sg.evaluate(qrels, run, ["RR", "AP"], ties=ties)
    np.testing.assert_allclose(df["RR"], df["AP"], atol=1e-12)


@SETTINGS
@given(data=qrels_and_run(grades=(-1, 0, 1)))
def test_exp_gain_equals_linear_gain_on_binary_qrels(data):
    qrels, run = data
    df = sg.evaluate(qrels, run, ["nDCG", "nDCG(gain=exp)", "nDCG@5", "nDCG(gain=exp)@5"])
    np.testing.assert_allclose(df["nDCG"], df["nDCG(gain=exp)"], atol=1e-12)
    np.testing.assert_allclose(df["nDCG@5"], df["nDCG(gain=exp)@5"], atol=1e-12)


EXPECTED = ["P@2", "P@5", "R@3", "Hit@1", "Hit@3", "RR", "RR@2", "AP", "AP@3", "nDCG", "nDCG@3", "DCG@4",
            "nDCG(gain=exp)@3", "nDCG(discount=jk,b=2)@4", "CG@2", "RBP(p=0.7)", "RBP(p=0.6,rel=2)",
            "RBP_resid(p=0.7)", "Rprec", "Judged@3", "Hole@2", "Unj@4", "RelP@3", "SetF", "NumRelRet", "GMAP"]


@st.composite
def small_tied_query(draw):
    """One query whose tie groups have few enough orders to enumerate (at most 720)."""
    qrels_q = {d: draw(st.sampled_from([-1, 0, 1, 2, 3])) for d in draw(st.lists(st.sampled_from(DOCS[:9]),
                                                                                  unique=True, max_size=8))}
    docs = draw(st.lists(st.sampled_from(DOCS[:9]), unique=True, min_size=1, max_size=7))
    scores = {d: draw(st.sampled_from([0.1, 0.5, 1.0])) for d in docs}
    return qrels_q, scores


@settings(max_examples=examples(100), deadline=None)
@given(case=small_tied_query())
def test_expected_ties_equal_the_mean_over_all_orders(case):
    qrels_q, scores = case
    groups = defaultdict(list)
    for d, s in scores.items():
        groups[s].append(d)
    levels = sorted(groups, reverse=True)
    if math.prod(math.factorial(len(groups[s])) for s in levels) > orders():
        return
    got = sg.evaluate({"q": qrels_q}, {"q": scores}, EXPECTED, ties="expected", missing="zero").iloc[0]
    total = defaultdict(float)
    count = 0
    for perms in itertools.product(*(itertools.permutations(groups[s]) for s in levels)):
        ranking = [d for p in perms for d in p]
        for name, value in sg.score_ranking(ranking, qrels_q, EXPECTED).items():
            total[name] += value
        count += 1
    for name in EXPECTED:
        assert got[name] == pytest.approx(total[name] / count, abs=1e-9), name


@SETTINGS
@given(data=qrels_and_run(), seed=st.integers(0, 10**6))
def test_trec_order_ignores_input_order_and_input_ties_follow_it(data, seed):
    qrels, run = data
    rng = np.random.default_rng(seed)
    shuffled = {q: dict(sorted(d.items(), key=lambda kv: rng.random())) for q, d in run.items()}
    names = ["AP", "nDCG@5", "RR", "P@3"]
    a = sg.evaluate(qrels, run, names)
    b = sg.evaluate(qrels, shuffled, names)
    np.testing.assert_allclose(a.to_numpy(dtype=float), b.to_numpy(dtype=float))
    # ties="input" is score_ranking of the stable sort by score
    inp = sg.evaluate(qrels, shuffled, names, ties="input")
    for q in inp.index:
        ranking = [d for d, _ in sorted(shuffled[q].items(), key=lambda kv: -kv[1])]
        ref = sg.score_ranking(ranking, qrels[q], names)
        for n in names:
            assert inp.loc[q, n] == pytest.approx(ref[n], abs=1e-12)


@SETTINGS
@given(data=qrels_and_run())
def test_missing_zero_adds_zero_rows_and_aggregate_matches_trec_eval_c(data):
    qrels, run = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = sg.evaluate(qrels, run, ["AP", "P@5", "NumRel"])
        full = sg.evaluate(qrels, run, ["AP", "P@5", "NumRel"], missing="zero")
    assert set(full.index) == set(qrels)
    absent = [q for q in qrels if q not in run]
    assert (full.loc[absent, ["AP", "P@5"]].to_numpy() == 0).all()
    agg = sg.aggregate(full)
    assert agg["AP"] == pytest.approx(plain["AP"].sum() / len(qrels))


def test_only_negative_grades():
    # a query judged only "pooled but unjudged" (-1): nothing is relevant, nothing is judged
    df = sg.evaluate({"q": {"a": -1}}, {"q": {"a": 1.0, "b": 0.5}}, ["AP", "nDCG@5", "Judged@2", "Bpref", "NumRel"])
    assert df.loc["q"].tolist() == [0.0, 0.0, 0.0, 0.0, 0]


# ------------------------------------------- trec_eval's walk over gains, written as its C loops
def _c_int(x):
    return int(x) if -2**31 <= math.trunc(x) < 2**31 else -2**31


def _msort(items):
    """glibc's qsort (a merge sort) with trec_eval's comp_rel_gain: the gain difference as an int."""
    if len(items) <= 1:
        return list(items)
    left, right = _msort(items[:len(items) // 2]), _msort(items[len(items) // 2:])
    out = []
    while left and right:
        out.append(left.pop(0) if _c_int(left[0][1] - right[0][1]) <= 0 else right.pop(0))
    return out + left + right


def _trec_walk(qgrades, gains):
    """trec_eval's setup_gains and walk: the ideal gain after each step (levels sorted, counts per level)."""
    top = max([g for g in qgrades if g >= 0], default=0)
    levels = list(gains.items()) + [(g, float(g)) for g in range(top + 1) if g not in gains]
    levels = [(lv, gain, sum(1 for g in qgrades if g == lv)) for lv, gain in _msort(levels)]
    cur, at = len(levels) - 1, 0
    first = levels[cur][1] if cur >= 0 else 0.0

    def step():
        nonlocal cur, at
        at += 1
        while cur >= 0 and at > levels[cur][2]:
            at, cur = 1, cur - 1
        return levels[cur][1] if cur >= 0 else 0.0
    return first, step


def _loops(qgrades, grades, gains, R):
    """(ndcg, G, ndcg_rel, Rndcg) of one query as m_ndcg.c, m_G.c, m_ndcg_rel.c and m_Rndcg.c loop."""
    gain = [gains.get(g, float(g)) if g is not None else 0.0 for g in grades]  # None: not judged
    n, log = len(gain), (lambda i: math.log2(i + 2))
    out = []
    # ndcg
    ideal, step = _trec_walk(qgrades, gains)
    dcg = idcg = 0.0
    i = 0
    while i < n or ideal > 0:
        if i < n and gain[i] != 0:
            dcg += gain[i] / log(i)
        if ideal > 0:
            ideal = step()
            if ideal > 0:
                idcg += ideal / log(i)
        i += 1
    out.append(dcg / idcg if idcg > 0 else 0.0)
    # G
    ideal, step = _trec_walk(qgrades, gains)
    res = s_ideal = cost = g_ = 0.0
    i = 0
    while i < n or ideal > 0:
        if i < n:
            res += gain[i]
            if ideal > 0:
                ideal = step()
                s_ideal += ideal if ideal > 0 else 0.0
                cost += ideal if ideal >= 1 else 1.0
            else:
                cost += 1.0
            if gain[i] != 0:
                g_ += gain[i] / math.log2(2 + cost - res)
        else:
            ideal = step()
            s_ideal += ideal if ideal > 0 else 0.0
        i += 1
    out.append(g_ / s_ideal if s_ideal > 0 else 0.0)
    # ndcg_rel
    ideal, step = _trec_walk(qgrades, gains)
    dcg = idcg = total = 0.0
    nrel = nrr = i = 0
    with np.errstate(all="ignore"):
        while i < n or ideal > 0:
            if i < n and gain[i] != 0:
                dcg += gain[i] / log(i)
            if ideal > 0:
                ideal = step()
                if ideal > 0:
                    nrel += 1
                    idcg += ideal / log(i)
            if i < n and gain[i] > 0:
                total += float(np.float64(dcg) / np.float64(idcg))
                nrr += 1
            i += 1
        total += float(np.float64((nrel - nrr) * dcg) / np.float64(idcg))
    out.append(total / nrel if total > 0 else 0.0)
    # Rndcg
    if R == 0:
        out.append(0.0)
        return out
    ideal, step = _trec_walk(qgrades, gains)
    old = ideal
    dcg = idcg = total = 0.0
    changes = i = 0
    while i < n and ideal > 0:
        ideal = step()
        if old != ideal:
            if idcg > 0:
                total, changes = total + dcg / idcg, changes + 1
            old = ideal
        if gain[i] != 0:
            dcg += gain[i] / log(i)
        if ideal > 0:
            idcg += ideal / log(i)
        i += 1
    if i < n:
        for j in range(i, n):
            if gain[j] != 0:
                dcg += gain[j] / log(j)
        i = n
        if idcg > 0:
            total, changes = total + dcg / idcg, changes + 1
    while ideal > 0:
        ideal = step()
        if old != ideal:
            if idcg > 0:
                total, changes = total + dcg / idcg, changes + 1
            old = ideal
        if ideal > 0:
            idcg += ideal / log(i)
        i += 1
    out.append(total / changes if changes else 0.0)
    return out


GAIN_MAPS = [{}, {1: 3.0, 2: 9.0, 3: 4.5}, {3: 4.0, 1: 4.5}, {0: 1.0, 2: 0.0}, {1: 0.5, 3: 3.6}, {2: -1.0, 1: 2.5},
             {5: 2.0}, {1: 2.0, 2: 2.5, 3: 1.5}]


@SETTINGS
@given(data=qrels_and_run(), gains=st.sampled_from(GAIN_MAPS))
def test_trec_walk_measures_equal_trec_eval_loops(data, gains):
    """ndcg, G, ndcg_rel and Rndcg with gains per grade, vectorised, equal trec_eval's loops bit for bit."""
    qrels, run = data
    text = ",".join(f"{g}={v!r}" for g, v in gains.items())
    names = [f"ndcg_{text}", f"G_{text}", f"ndcg_rel_{text}", f"Rndcg_{text}"] if gains else \
        ["ndcg", "G", "ndcg_rel", "Rndcg"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = sg.evaluate(qrels, run, names)
    for q in ours.index:
        by_docid = sorted(run[q].items(), reverse=True)  # trec_eval's order: score descending, docid descending
        ranked = sorted(by_docid, key=lambda kv: -kv[1])
        grades = [qrels[q][d] if qrels[q].get(d, -1) >= 0 else None for d, _ in ranked]
        R = sum(1 for g in qrels[q].values() if g >= 1)
        expected = _loops(list(qrels[q].values()), grades, gains, R)
        assert list(ours.loc[q]) == expected, (q, names)
