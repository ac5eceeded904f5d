"""C/W/L measures (searchgrade.measures.kinds.cwl, searchgrade.curves): names and parameters, hand-worked values, curve identities, the direct
kernels of P, RR and RBP in C/W/L form, closed-form tails against rank-by-rank curves, ties and missing queries."""
import itertools
import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import searchgrade as sg
from searchgrade.curves import CURVE_FAMILIES, DEPTH, cwl
from searchgrade.measures.names import parse_measure
from searchgrade.measures.registry import FAMILIES
from tests.support.examples import examples, orders

CWL_FAMILIES = ["INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11"]
DOCS = [f"d{i}" for i in range(12)]
SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one(ranking, qrels, name):
    """score_ranking's value of a single measure."""
    (value,) = sg.score_ranking(ranking, qrels, [name]).values()
    return value


# ------------------------------------------------------------------ names and parameters
@pytest.mark.parametrize("name,family,params,cutoff", [
    ("INST(T=2,max_rel=3)", "INST", {"T": 2.0, "max_rel": 3, "min_rel": 0}, None),
    ("INSQ(max_rel=1)", "INSQ", {"T": 1.0, "max_rel": 1, "min_rel": 0}, None),
    ("BPM(T=2,max_rel=2)@10", "BPM", {"T": 2.0, "max_rel": 2}, 10),
    ("SDCG(dcg='log2',max_rel=3,min_rel=1)@5", "SDCG", {"dcg": "log2", "max_rel": 3, "min_rel": 1}, 5),
    ("NERR8(max_rel=3)@10", "NERR8", {"max_rel": 3}, 10),
    ("NERR9(max_rel=3)@3", "NERR9", {"max_rel": 3}, 3),
    ("NERR10(p=0.8,max_rel=3)", "NERR10", {"p": 0.8, "max_rel": 3}, None),
    ("NERR10", "NERR10", {"p": 0.9}, None),  # ir_measures' default p
    ("nerr11(T=2)", "NERR11", {"T": 2.0}, None),  # family names are case-insensitive
])
def test_names_and_parameters_follow_ir_measures(name, family, params, cutoff):
    m = parse_measure(name)
    assert (m.family, m.cutoff) == (family, cutoff)
    assert {k: m.params[k] for k in params} == params
    assert parse_measure(m.canonical).key == m.key
    with pytest.raises(ValueError, match="no trec_eval counterpart"):
        FAMILIES[family].trec_name(m)


def test_ir_measures_objects_are_the_same_measures_as_their_strings():
    irm = pytest.importorskip("ir_measures")
    for obj in [irm.INST(T=2, max_rel=3), irm.INSQ(max_rel=1), irm.BPM(T=1.5, max_rel=2) @ 10,
                irm.SDCG(max_rel=3, min_rel=1) @ 5, irm.NERR8(max_rel=2) @ 3, irm.NERR9(max_rel=2) @ 3,
                irm.NERR10(p=0.5, max_rel=4), irm.NERR11(T=3, max_rel=1)]:
        m = parse_measure(obj)
        assert m.name == str(obj) and m.key == parse_measure(str(obj)).key


@pytest.mark.parametrize("name,why", [
    ("INST(T=0.1,max_rel=1)", "T=0.1 must be at least 0.25"),
    ("INSQ(T=0)", "T=0 must be positive"),
    ("NERR11(T=-1)", "T=-1 must be positive"),
    ("INST(max_rel=2,min_rel=2)", "max_rel=2 must be greater than min_rel=2"),
    ("SDCG(max_rel=1,min_rel=3)@5", "max_rel=1 must be greater than min_rel=3"),
    ("INSQ(min_rel=-1)", "min_rel=-1 must be at least 0"),
    ("NERR8(max_rel=0)@5", "max_rel=0 must be a positive integer"),
    ("NERR10(p=1)", "p=1 must lie strictly between 0 and 1"),
    ("SDCG(dcg=exp-log2)@10", "dcg=exp-log2 must be 'log2'"),
    ("SDCG(max_rel=3)", "SDCG needs a cutoff"),
    ("BPM(T=2)", "BPM needs a cutoff"),
    ("NERR9", "NERR9 needs a cutoff"),
    ("INST@10", "INST takes no cutoff"),
    ("NERR10(p=0.5)@10", "NERR10 takes no cutoff"),
    ("INST(rel=2)", "unknown parameter 'rel'"),
])
def test_bad_parameters_are_refused_naming_measure_and_parameter(name, why):
    with pytest.raises(ValueError, match=re_escape(f"measure {name!r}") + ".*" + re_escape(why)):
        parse_measure(name)


def re_escape(text):
    import re
    return re.escape(text)


# --------------------------------------------------------------------- worked by hand
def test_insq_and_inst_curves_by_hand():
    """Gains 1, 0, 1 read to depth 3, T = 1 (Fractions: the arithmetic is exact)."""
    # INSQ: C(i) = ((i+1)/(i+2))^2: C(1) = 4/9, C(2) = 9/16.  prod_{j<i} C(j) = 1, 4/9, 1/4,
    # sum 61/36, so W = 36/61, 16/61, 9/61 and INSQ = (36 + 9)/61 = 45/61.
    # L = P(i)(1 - C(i)) with C(3) = 0: 5/9, 7/36, 1/4 (sum 1; sum i L(i) = 61/36 = 1/W(1)).
    insq = cwl("INSQ(T=1)", [1, 0, 1], depth=3)
    assert np.allclose(insq.C[:2], [4 / 9, 9 / 16])
    assert np.allclose(insq.W, [36 / 61, 16 / 61, 9 / 61]) and math.isclose(insq.value, 45 / 61)
    assert np.allclose(insq.L, [5 / 9, 7 / 36, 1 / 4]) and math.isclose(insq.expected_depth, 61 / 36)
    # INST: G = 1, 1, 2 and x(i) = i + 2T - G(i) = 2, 3, 3, so C(i) = ((x-1)/x)^2 = 1/4, 4/9, 4/9.
    # prod_{j<i} C(j) = 1, 1/4, 1/9, sum 49/36: W = 36/49, 9/49, 4/49 and INST = (36 + 4)/49 = 40/49.
    # Having found the one document it wanted at rank 1, the INST user is less likely to go on (1/4 < 4/9).
    inst = cwl("INST(T=1)", [1, 0, 1], depth=3)
    assert np.allclose(inst.C, [1 / 4, 4 / 9, 4 / 9])
    assert np.allclose(inst.W, [36 / 49, 9 / 49, 4 / 49]) and math.isclose(inst.value, 40 / 49)


def test_inst_and_insq_of_one_relevant_document_at_depth_1000():
    """One fully relevant document at rank 1, nothing else retrieved: every later rank has gain 0."""
    # INST(T=1): G(i) = 1 from rank 1 on, x(i) = i + 1, C(i) = (i/(i+1))^2, prod_{j<i} C(j) = 1/i^2:
    # INST = W(1) = 1 / sum_{i<=1000} 1/i^2, close to 6/pi^2 (the infinite list).
    s = sum(Fraction(1, i * i) for i in range(1, DEPTH + 1))
    assert one(["a"], {"a": 1}, "INST(T=1)") == pytest.approx(float(1 / s), abs=1e-14)
    assert float(1 / s) == pytest.approx(6 / math.pi ** 2, abs=1e-3)
    # INSQ(T=1): C(i) = ((i+1)/(i+2))^2, prod_{j<i} C(j) = (2/(i+1))^2: INSQ = 1 / (4 sum_{m=2..1001} 1/m^2).
    s = 4 * sum(Fraction(1, m * m) for m in range(2, DEPTH + 2))
    assert one(["a"], {"a": 1}, "INSQ(T=1)") == pytest.approx(float(1 / s), abs=1e-14)


def test_inst_with_graded_gains_by_hand():
    """Grades 2, 1 with max_rel = 2 (gains 1, 1/2), T = 2, depth 1000."""
    # G = 1, 3/2.  x(1) = 1 + 4 - 1 = 4: C(1) = (3/4)^2 = 9/16; x(2) = 2 + 4 - 3/2 = 9/2: C(2) = (7/9)^2 = 49/81.
    # From rank 3 on the gain is 0 and x(i) = i + 5/2: P(3) = 9/16 * 49/81 = 49/144 and
    # P(i) = P(i-1) ((i + 3/2)/(i + 5/2))^2, i.e. P(i) = 49/144 * (9/2)^2 / (i + 3/2)^2.
    # INST = (1 * 1 + 9/16 * 1/2) / (1 + 9/16 + sum_{i=3..1000} P(i)).
    tail = sum(Fraction(49, 144) * Fraction(81, 4) / (Fraction(2 * i + 3, 2) ** 2) for i in range(3, DEPTH + 1))
    expected = (1 + Fraction(9, 32)) / (1 + Fraction(9, 16) + tail)
    assert one(["a", "b"], {"a": 2, "b": 1}, "INST(T=2,max_rel=2)") == pytest.approx(float(expected), abs=1e-14)
    assert one(["a", "b"], {"a": 2, "b": 1, "c": 4}, "INST(T=2,max_rel=2)") == pytest.approx(float(expected),
                                                                                               abs=1e-14)


def test_bpm_sdcg_and_nerr_by_hand():
    """Grades 1, 0, 2, 2 with max_rel = 2: gains 1/2, 0, 1, 1 and G = 1/2, 1/2, 3/2, 5/2."""
    ranking, qrels = ["a", "b", "c", "d"], {"a": 1, "b": 0, "c": 2, "d": 2}
    # BPM: W = 1/s on ranks 1..s, s = min(k, first rank with G >= T): the value is G(s)/s.
    assert one(ranking, qrels, "BPM(T=1.5,max_rel=2)@10") == pytest.approx(1.5 / 3)  # s = 3
    assert one(ranking, qrels, "BPM(T=1.5,max_rel=2)@2") == pytest.approx(0.5 / 2)  # s = k = 2
    assert one(ranking, qrels, "BPM(T=5,max_rel=2)@10") == pytest.approx(2.5 / 10)  # reads on to k past the list
    # NERR8@3: C = 1/2, 1, 0 (rank k), P = 1, 1/2, 1/2: (1/2 + 0 + 1/2) / 2 = 1/2.
    assert one(ranking, qrels, "NERR8(max_rel=2)@3") == pytest.approx(0.5)
    # NERR9@3: C = 1/2 * 1/2, 2/3 * 1, 0, P = 1, 1/4, 1/6: (1/2 + 1/6) / (1 + 1/4 + 1/6) = 8/17.
    assert one(ranking, qrels, "NERR9(max_rel=2)@3") == pytest.approx(8 / 17)
    # NERR10(p=1/2) of gains 0, 1: C = 1/2, 0, P = 1, 1/2: (1/2) / (3/2) = 1/3.
    assert one(["b", "c"], qrels, "NERR10(p=0.5,max_rel=2)") == pytest.approx(1 / 3)
    # SDCG@2: W proportional to 1, 1/log2(3); gains 1/2, 0 (a, b) and 1/2, 1 (a, c).
    d = 1 / math.log2(3)
    assert one(ranking, qrels, "SDCG(max_rel=2)@2") == pytest.approx(0.5 / (1 + d))
    assert one(["a", "c"], qrels, "SDCG(max_rel=2)@2") == pytest.approx((0.5 + d) / (1 + d))


def test_gain_scale_min_rel_max_rel_and_the_default():
    """g = (min(max(grade, min_rel), max_rel) - min_rel) / (max_rel - min_rel); default max_rel: largest grade."""
    qrels = {"a": 3, "b": 1, "c": 2, "u": -1}
    ranking = ["a", "b", "c", "u", "x"]
    for name, gains in [("SDCG(max_rel=3)@5", [1, 1 / 3, 2 / 3, 0, 0]), ("SDCG(max_rel=2)@5", [1, 1 / 2, 1, 0, 0]),
                        ("SDCG(max_rel=3,min_rel=1)@5", [1, 0, 1 / 2, 0, 0]), ("SDCG@5", [1, 1 / 3, 2 / 3, 0, 0])]:
        curves = cwl(name, ranking, qrels)
        assert np.allclose(curves.gain[:5], gains) and not curves.gain[5:].any(), name
        assert one(ranking, qrels, name) == pytest.approx(cwl(name, gains).value, abs=1e-15), name
    assert one(ranking, {"a": 0, "b": 0}, "INST") == 0.0  # no grade above 0: nothing gains
    assert one(ranking, qrels, "INST(min_rel=3)") == 0.0  # the largest grade is min_rel: nothing gains


# ------------------------------------------------------------------------- curve identities
@st.composite
def curve_measure(draw):
    """A measure of every family cwl() draws, with random parameters."""
    k = draw(st.integers(1, 12))
    T = draw(st.sampled_from(["0.25", "0.5", "1", "2", "3.5"]))
    p = draw(st.sampled_from(["0.3", "0.5", "0.8", "0.95"]))
    forms = {"P": f"P@{k}", "RR": draw(st.sampled_from(["RR", f"RR@{k}"])), "RBP": f"RBP(p={p})",
             "SDCG": f"SDCG@{k}", "INSQ": f"INSQ(T={T})", "INST": f"INST(T={T})", "BPM": f"BPM(T={T})@{k}",
             "NERR8": f"NERR8@{k}", "NERR9": f"NERR9@{k}", "NERR10": f"NERR10(p={p})", "NERR11": f"NERR11(T={T})"}
    return forms[draw(st.sampled_from(CURVE_FAMILIES))]


GAINS = st.lists(st.sampled_from([0.0, 0.0, 0.25, 1 / 3, 0.5, 1.0]), max_size=15)


@SETTINGS
@given(name=curve_measure(), gains=GAINS, depth=st.integers(1, 60))
def test_w_and_l_are_distributions_of_one_user(name, gains, depth):
    """W sums to 1 (0 past a cutoff), L sums to 1, W(i) = sum_{j>=i} L(j) / sum_j j L(j), C in [0, 1]."""
    c = cwl(name, gains, depth=depth)
    assert len(c.W) == len(c.L) == len(c.C) == depth
    assert np.all((c.C >= 0) & (c.C <= 1 + 1e-15))
    assert np.all(c.W >= 0) and c.W.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(c.L >= -1e-15) and c.L.sum() == pytest.approx(1.0, abs=1e-12)
    ranks = np.arange(1, depth + 1)
    assert (ranks * c.L).sum() == pytest.approx(c.expected_depth, rel=1e-12)
    np.testing.assert_allclose(c.W, np.cumsum(c.L[::-1])[::-1] / (ranks * c.L).sum(), atol=1e-12)
    m = parse_measure(name)
    if m.cutoff is not None:
        assert not c.W[m.cutoff:].any()  # truncated: nobody reads past rank k
    assert c.value == pytest.approx(float(c.W @ c.gain))
    assert list(c.frame().columns) == ["gain", "C", "W", "L"] and c.frame().index[0] == 1


@st.composite
def ranked_query(draw, grades=(-1, 0, 1, 2, 3)):
    """A ranking of distinct documents and the query's qrels (some documents unjudged)."""
    ranking = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=12))
    judged = draw(st.lists(st.sampled_from(DOCS), unique=True, max_size=10))
    return ranking, {d: draw(st.sampled_from(grades)) for d in judged}


@SETTINGS
@given(case=ranked_query(), k=st.integers(1, 15), p=st.sampled_from([0.3, 0.5, 0.8, 0.95]),
       extra=st.integers(0, 5), rel=st.sampled_from([1, 2]))
def test_p_rr_and_rbp_in_cwl_form_equal_their_direct_kernels(case, k, p, extra, rel):
    """sum_i W(i) g(i) with C/W/L's W equals P@k and RR; for RBP it is RBP / (1 - p^depth)."""
    ranking, qrels = case
    depth = max(len(ranking), k) + extra  # RR's first relevant document and P's k ranks lie within depth
    for name in [f"P(rel={rel})@{k}", f"RR(rel={rel})", f"RR(rel={rel})@{k}"]:
        assert cwl(name, ranking, qrels, depth=depth).value == pytest.approx(one(ranking, qrels, name), abs=1e-12)
    for name in [f"RBP(p={p})", f"RBP(p={p},rel={rel})"]:  # graded gain grade/max grade, and binary
        value = cwl(name, ranking, qrels, depth=depth).value * (1 - p ** depth)
        assert value == pytest.approx(one(ranking, qrels, name), abs=1e-12), name


@st.composite
def cwl_measure(draw):
    """A searchgrade C/W/L measure string with random T, p, k, min_rel and max_rel (or the default)."""
    family = draw(st.sampled_from(CWL_FAMILIES))
    params = {}
    if family in ("INST", "INSQ", "BPM", "NERR11"):
        params["T"] = draw(st.sampled_from(["0.25", "0.5", "1", "1.5", "2", "3", "20"]))
    if family == "NERR10":
        params["p"] = draw(st.sampled_from(["0.5", "0.8", "0.9", "0.99"]))
    max_rel = draw(st.sampled_from([None, 1, 2, 3]))
    if max_rel is not None:
        params["max_rel"] = max_rel
        if max_rel > 1 and draw(st.booleans()):
            params["min_rel"] = max_rel - 1
    inner = ",".join(f"{key}={value}" for key, value in params.items())
    cut = f"@{draw(st.sampled_from([1, 2, 3, 5, 10, 1000, 2000]))}" if FAMILIES[family].cutoff == "required" else ""
    return f"{family}({inner}){cut}" if inner else f"{family}{cut}"


@SETTINGS
@given(case=ranked_query(), name=cwl_measure())
def test_kernels_with_closed_form_tails_equal_the_rank_by_rank_curves(case, name):
    """The kernels sum the ranks after the list in closed form; cwl() reads all 1000 ranks one by one."""
    ranking, qrels = case
    assert one(ranking, qrels, name) == pytest.approx(cwl(name, ranking, qrels).value, abs=1e-12)


def test_adaptive_measures_respond_to_gains_and_static_ones_do_not():
    """INSQ's W is fixed by T; INST's and the NERRs' W shrink behind gains (the user has what they came for)."""
    empty, full = cwl("INSQ(T=2)", [0] * 5), cwl("INSQ(T=2)", [1] * 5)
    np.testing.assert_array_equal(empty.W, full.W)
    for name in ["INST(T=2)", "NERR10(p=0.9)", "NERR11(T=2)", "BPM(T=2)@10", "NERR8@10", "NERR9@10"]:
        assert cwl(name, [1] * 5).W[0] > cwl(name, [0] * 5).W[0], name


# --------------------------------------------------------------------------- ties and missing queries
@st.composite
def small_tied_query(draw):
    qrels = {d: draw(st.sampled_from([-1, 0, 1, 2, 3])) for d in draw(st.lists(st.sampled_from(DOCS[:8]),
                                                                                unique=True, max_size=7))}
    docs = draw(st.lists(st.sampled_from(DOCS[:8]), unique=True, min_size=1, max_size=7))
    return qrels, {d: draw(st.sampled_from([0.1, 0.5, 1.0])) for d in docs}


EXPECTED = ["SDCG@3", "SDCG(max_rel=2)@10", "INSQ(T=1)", "INSQ(T=3,max_rel=3,min_rel=1)"]


@settings(max_examples=examples(60), deadline=None)
@given(case=small_tied_query())
def test_expected_ties_of_sdcg_and_insq_equal_the_mean_over_all_orders(case):
    """W does not depend on the gains, so the value is linear in them and ties="expected" is exact."""
    qrels, scores = case
    groups = defaultdict(list)
    for d, s in scores.items():
        groups[s].append(d)
    levels = sorted(groups, reverse=True)
    if math.prod(math.factorial(len(groups[s])) for s in levels) > orders():
        return
    got = sg.evaluate({"q": qrels}, {"q": scores}, EXPECTED, ties="expected", missing="zero").iloc[0]
    total, count = defaultdict(float), 0
    for perms in itertools.product(*(itertools.permutations(groups[s]) for s in levels)):
        for name, value in sg.score_ranking([d for p in perms for d in p], qrels, EXPECTED).items():
            total[name] += value
        count += 1
    for name in EXPECTED:
        assert got[name] == pytest.approx(total[name] / count, abs=1e-12), name


def test_expected_ties_across_the_depth_cut():
    """A tie group over ranks 1000-1002: only its share of rank 1000 counts."""
    qrels = {"t0": 3, "t1": 0, "d5": 2}
    scores = {f"d{i}": float(2000 - i) for i in range(999)}
    scores.update({"t0": 1.0, "t1": 1.0, "t2": 1.0})
    got = sg.evaluate({"q": qrels}, {"q": scores}, ["INSQ(T=2)", "SDCG@1000"], ties="expected").iloc[0]
    head = [f"d{i}" for i in range(999)]
    orders = [head + list(p) for p in itertools.permutations(["t0", "t1", "t2"])]
    for name in ["INSQ(T=2)", "SDCG@1000"]:
        mean = np.mean([one(r, qrels, name) for r in orders])
        assert got[name] == pytest.approx(mean, abs=1e-15)
    assert got["INSQ(T=2)"] != pytest.approx(one(head + ["t1", "t2", "t0"], qrels, "INSQ(T=2)"), abs=1e-12)


@pytest.mark.parametrize("name", ["INST", "BPM@10", "NERR8@10", "NERR9@10", "NERR10", "NERR11"])
def test_expected_ties_refuse_gain_dependent_measures(name):
    """C depends on the gains already read: the value is not linear in them and has no closed form over orders."""
    with pytest.raises(ValueError, match=rf"measure '{re_escape(name)}'.*ties='expected' has no closed form"):
        sg.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name], ties="expected")


def test_ties_trec_and_input_order_tied_documents_as_for_every_measure():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}  # trec_eval: docid descending, b before a; input: a before b
    for name in ["INST", "INSQ", "BPM@1", "SDCG@1", "NERR8@1", "NERR9@2", "NERR10", "NERR11"]:
        trec = sg.evaluate(qrels, run, [name]).iloc[0, 0]
        assert trec == pytest.approx(one(["b", "a"], qrels["q"], name), abs=1e-15)
        assert sg.evaluate(qrels, run, [name], ties="input").iloc[0, 0] == pytest.approx(
            one(["a", "b"], qrels["q"], name), abs=1e-15)


def test_missing_queries_and_empty_rankings():
    qrels = {"q1": {"a": 2}, "q2": {"b": 1}}
    names = [f"{f}@5" if FAMILIES[f].cutoff == "required" else f for f in CWL_FAMILIES]
    with pytest.warns(UserWarning, match="q2"):
        ignored = sg.evaluate(qrels, {"q1": {"a": 1.0}}, names)
    assert list(ignored.index) == ["q1"] and (ignored.loc["q1"] > 0).all()
    zero = sg.evaluate(qrels, {"q1": {"a": 1.0}}, names, missing="zero")
    assert list(zero.index) == ["q1", "q2"] and (zero.loc["q2"] == 0).all()
    assert cwl("INST", [], depth=4).value == 0.0


def test_judged_only_drops_unjudged_documents_first():
    qrels = {"q": {"a": 1}}
    run = {"q": {"x": 2.0, "a": 1.0}}
    plain = sg.evaluate(qrels, run, ["NERR8@1"]).iloc[0, 0]
    condensed = sg.evaluate(qrels, run, ["NERR8(judged_only=True)@1"]).iloc[0, 0]
    assert (plain, condensed) == (0.0, 1.0)


# ------------------------------------------------------------------------------ cwl() refusals
@pytest.mark.parametrize("args,kwargs,why", [
    (("AP", [1, 0]), {}, "cwl\\(\\) draws C/W/L curves for P, RR, RBP"),
    (("RBP(p=0.8)@10", [1]), {}, "RBP@k cuts its weights without renormalising"),
    (("INST", [1.5]), {}, "gains must be numbers in \\[0, 1\\]"),
    (("INST", [-0.1]), {}, "gains must be numbers in \\[0, 1\\]"),
    (("INST", ["a", "b"]), {}, "gains must be numbers in \\[0, 1\\]"),
    (("INST", [1]), {"depth": 0}, "depth=0 must be a positive integer"),
    (("INST", [1]), {"depth": 2.5}, "depth=2.5 must be a positive integer"),
    (("INST", ["a", "a"], {"a": 1}), {}, "appears twice"),
])
def test_cwl_refuses_what_it_cannot_draw(args, kwargs, why):
    with pytest.raises(ValueError, match=why):
        cwl(*args, **kwargs)
