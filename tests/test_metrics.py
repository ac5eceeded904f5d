"""Tests for searchgrade.metrics: hand-computed values, pytrec_eval cross-checks, options and bad input."""
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg
from searchgrade.metrics import Evaluator, parse_measure

# ---------------------------------------------------------------- pytrec_eval
# our name -> (pytrec_eval measure family, pytrec_eval value key)
PYTREC = {
    "AP": ("map", "map"),
    "map": ("map", "map"),
    "AP@10": ("map_cut", "map_cut_10"),
    "P@10": ("P", "P_10"),
    "P_5": ("P", "P_5"),
    "R@100": ("recall", "recall_100"),
    "recall_1000": ("recall", "recall_1000"),
    "Hit@10": ("success", "success_10"),
    "success_1": ("success", "success_1"),
    "RR": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "Bpref": ("bpref", "bpref"),
    "nDCG": ("ndcg", "ndcg"),
    "nDCG@10": ("ndcg_cut", "ndcg_cut_10"),
    "ndcg_cut_100": ("ndcg_cut", "ndcg_cut_100"),
    "SetP": ("set_P", "set_P"),
    "SetR": ("set_recall", "set_recall"),
    "SetF": ("set_F", "set_F"),
    "set_relative_P": ("set_relative_P", "set_relative_P"),
    "set_map": ("set_map", "set_map"),
    "NumRet": ("num_ret", "num_ret"),
    "NumRel": ("num_rel", "num_rel"),
    "NumRelRet": ("num_rel_ret", "num_rel_ret"),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    "infAP": ("infAP", "infAP"),
    "binG": ("binG", "binG"),
    "G": ("G", "G"),
    "ndcg_rel": ("ndcg_rel", "ndcg_rel"),
    "Rndcg": ("Rndcg", "Rndcg"),
    "relative_P_20": ("relative_P", "relative_P_20"),
    "Rprec_mult_0.60": ("Rprec_mult", "Rprec_mult_0.60"),
    "utility": ("utility", "utility"),
}


def ours(qrels, run, names, **options):
    """searchgrade's per-query values: one evaluation per batch of names without two spellings of one measure."""
    batches = []
    for n in names:
        key = parse_measure(n).key
        batch = next((b for b in batches if key not in b), None)
        if batch is None:
            batch = {}
            batches.append(batch)
        batch[key] = n
    return pd.concat([sg.evaluate(qrels, run, list(b.values()), **options) for b in batches], axis=1)[list(names)]


def pytrec(qrels, run, names, rel_level=1):
    """pytrec_eval's per-query values for our measure names."""
    import pytrec_eval

    families = {PYTREC[n][0] for n in names}
    ev = pytrec_eval.RelevanceEvaluator(qrels, families, relevance_level=rel_level)
    res = ev.evaluate(run)
    return {q: {n: vals[PYTREC[n][1]] for n in names} for q, vals in res.items()}


@pytest.mark.peers
@pytest.mark.parametrize("which,rel_level", [("binary", 1), ("graded", 1), ("graded", 2), ("graded", 3)])
def test_matches_pytrec_eval_on_trec_eval_test_files(trec_qrels, graded_qrels, trec_run, which, rel_level):
    qrels = trec_qrels if which == "binary" else graded_qrels
    names = list(PYTREC)
    got = ours(qrels, trec_run, names, rel_level=rel_level)
    theirs = pytrec(qrels, trec_run, names, rel_level)
    assert set(got.index) == set(theirs)
    for q, vals in theirs.items():
        for n, v in vals.items():
            assert got.loc[q, n] == pytest.approx(v, abs=1e-9), (q, n)


@pytest.mark.peers
def test_iprec_rounds_like_trec_eval_10_not_pytrec_eval(graded_qrels, trec_run):
    import pytrec_eval

    # trec_eval 10 turns recall 0.2 into lround(0.2 * R) relevant documents; trec_eval 9 (inside
    # pytrec_eval) used (long)(0.2 * R + 0.9).  With R = 6 (query 301 at level 3) that is 1 vs 2.
    ours = sg.evaluate(graded_qrels, trec_run, ["IPrec@0.2", "IPrec@0", "NumRelRet"], rel_level=3)
    theirs = pytrec_eval.RelevanceEvaluator(graded_qrels, {"iprec_at_recall"}, relevance_level=3).evaluate(trec_run)
    assert ours.loc["301", "NumRelRet"] == 1
    assert ours.loc["301", "IPrec@0.2"] == ours.loc["301", "IPrec@0"] > 0
    assert theirs["301"]["iprec_at_recall_0.20"] == 0.0
    for q in ("302", "303"):  # where the two rules agree
        assert ours.loc[q, "IPrec@0.2"] == pytest.approx(theirs[q]["iprec_at_recall_0.20"])


@pytest.mark.peers
def test_pytrec_eval_on_a_run_with_many_ties(trec_qrels, trec_run):
    # Round the scores to create large tie groups: trec order must decide them exactly as trec_eval.
    run = {q: {d: round(s, 1) for d, s in docs.items()} for q, docs in trec_run.items()}
    names = ["AP", "P@10", "RR", "nDCG@10", "Bpref", "Rprec", "R@100", "Hit@10"]
    ours = sg.evaluate(trec_qrels, run, names)
    theirs = pytrec(trec_qrels, run, names)
    for q, vals in theirs.items():
        for n, v in vals.items():
            assert ours.loc[q, n] == pytest.approx(v, abs=1e-9), (q, n)


# ------------------------------------------------------------ hand computed
QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 1, "x": -1}}
RUN = {"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "e": 2.0, "x": 1.0}}  # ranks: a b c e x; d not retrieved


def one(measure, qrels=QRELS, run=RUN, **opts):
    """The value of one measure for q1."""
    return sg.evaluate(qrels, run, [measure], **opts).loc["q1", measure]


def test_precision_recall_hit():
    assert one("P@1") == 1.0
    assert one("P@3") == pytest.approx(2 / 3)
    assert one("P@10") == pytest.approx(2 / 10)  # short run: missing ranks count as non-relevant
    assert one("R@3") == pytest.approx(2 / 3)  # R = 3 (a, c, d)
    assert one("Hit@1") == 1.0
    assert one("P(rel=2)@3") == pytest.approx(1 / 3)
    assert one("R@3", rel_level=2) == 1.0
    assert one("Rprec") == pytest.approx(2 / 3)


def test_average_precision_and_reciprocal_rank():
    # relevant at ranks 1 and 3; R = 3
    assert one("AP") == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert one("AP@2") == pytest.approx((1 / 1) / 3)
    assert one("RR") == 1.0
    run = {"q1": {"b": 3.0, "e": 2.0, "c": 1.0}}
    assert one("RR", run=run) == pytest.approx(1 / 3)
    assert one("RR@2", run=run) == 0.0
    assert one("RR@3", run=run) == pytest.approx(1 / 3)


def test_dcg_variants():
    # grades by rank: a=2, b=0, c=1, e=0, x=0 ; ideal: 2, 1, 1
    dcg3 = 2 / math.log2(2) + 1 / math.log2(4)
    idcg3 = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert one("DCG@3") == pytest.approx(dcg3)
    assert one("nDCG@3") == pytest.approx(dcg3 / idcg3)
    assert one("CG@3") == pytest.approx(3.0)
    exp_dcg = 3 / math.log2(2) + 1 / math.log2(4)
    exp_idcg = 3 + 1 / math.log2(3) + 1 / math.log2(4)
    assert one("nDCG(gain=exp)@3") == pytest.approx(exp_dcg / exp_idcg)
    # Jarvelin-Kekalainen, b = 2: ranks 1 undiscounted, rank i >= 2 divided by log2(i)
    jk = 2 + 1 / math.log2(3)
    jk_ideal = 2 + 1 / math.log2(2) + 1 / math.log2(3)
    assert one("nDCG(discount=jk,b=2)@3") == pytest.approx(jk / jk_ideal)
    # b = 3: ranks 1, 2 undiscounted
    jk3 = 2 + 1 / math.log(3, 3)
    jk3_ideal = 2 + 1 + 1 / math.log(3, 3)
    assert one("nDCG(discount=jk,b=3)@3") == pytest.approx(jk3 / jk3_ideal)


def test_exp_gain_equals_linear_on_binary_qrels(trec_qrels, trec_run):
    df = sg.evaluate(trec_qrels, trec_run, ["nDCG@20", "nDCG(gain=exp)@20"])
    np.testing.assert_allclose(df["nDCG@20"], df["nDCG(gain=exp)@20"])


def test_rbp_err_graded():
    p = 0.5
    # graded RBP: gain = grade / max grade (2): a=1, c=0.5
    assert one("RBP(p=0.5)") == pytest.approx((1 - p) * (1 + 0.5 * p**2))
    assert one("RBP(p=0.5,rel=1)") == pytest.approx((1 - p) * (1 + p**2))
    # residual: unjudged e (rank 4) and x (rank 5, grade -1) plus the tail after 5 documents
    assert one("RBP_resid(p=0.5)") == pytest.approx(p**5 + (1 - p) * (p**3 + p**4))
    # ERR with gmax = 2: R(a)=3/4, R(c)=1/4
    assert one("ERR@3") == pytest.approx(0.75 + (1 / 3) * 0.25 * 0.25)
    assert one("ERR(max_grade=4)@3") == pytest.approx(3 / 16 + (1 / 3) * (1 / 16) * (13 / 16))


def test_bpref_judged_hole_unj():
    # judged non-relevant in qrels: b (x has grade -1: pooled, unjudged) -> N = 1, R = 3
    # a: no non-relevant above -> 1 ; c: one above -> 1 - 1/1 = 0
    assert one("Bpref") == pytest.approx(1 / 3)
    assert one("Judged@5") == pytest.approx(3 / 5)  # a b c judged; e, x not
    assert one("Hole@5") == pytest.approx(2 / 5)
    assert one("Judged@10") == pytest.approx(3 / 10)
    assert one("Hole@10") == pytest.approx(7 / 10)
    assert one("Unj@10") == pytest.approx(2 / 10)  # trec_eval's unj_10: missing ranks are not unjudged
    assert one("unj_10") == one("Unj@10")


def test_set_measures_and_counts():
    # retrieved 5, relevant retrieved 2, R = 3
    P, R = 2 / 5, 2 / 3
    assert one("SetP") == pytest.approx(P)
    assert one("SetR") == pytest.approx(R)
    assert one("SetF") == pytest.approx(2 * P * R / (P + R))
    assert one("SetF(beta=2)") == pytest.approx(5 * P * R / (4 * P + R))
    assert one("SetE(beta=2)") == pytest.approx(1 - 5 * P * R / (4 * P + R))
    df = sg.evaluate(QRELS, RUN, ["NumRet", "NumRel", "NumRelRet"])
    assert df.loc["q1"].tolist() == [5, 3, 2]
    assert df["NumRet"].dtype.kind == "i"


def test_interpolated_precision():
    # relevant at ranks 1 and 3, R = 3: precision 1 at recall 1/3, 2/3 at recall 2/3, recall 1 never
    assert one("IPrec@0") == 1.0
    assert one("IPrec@0.3") == 1.0  # lround(0.9) = 1 relevant document
    assert one("IPrec@0.5") == pytest.approx(2 / 3)  # lround(1.5) = 2
    assert one("IPrec@1") == 0.0
    # lround(3r) for r = 0, .1, ..., 1: 0 0 1 1 1 2 2 2 2 3 3 -> five times 1, four times 2/3, two zeros
    expected = (5 * 1.0 + 4 * (2 / 3) + 2 * 0.0) / 11
    assert one("11pt") == pytest.approx(expected)


def test_gmap_aggregate_is_geometric_and_counts_sum(trec_qrels, trec_run):
    df = sg.evaluate(trec_qrels, trec_run, ["AP", "GMAP", "NumRel", "P@10"])
    agg = sg.aggregate(df)
    assert agg["AP"] == pytest.approx(df["AP"].mean())
    assert agg["GMAP"] == pytest.approx(math.exp(np.mean(np.log(np.maximum(df["AP"], 1e-5)))))
    assert agg["GMAP"] == pytest.approx(0.1051, abs=5e-5)  # out.test
    assert agg["NumRel"] == 561
    assert agg["P@10"] == pytest.approx(0.3)


def test_score_ranking_example_from_the_brief():
    out = sg.score_ranking(["d2", "d7", "d1"], {"d1": 1, "d9": 1}, ["R@10", "RR", "nDCG@10"])
    assert out["R@10"] == 0.5
    assert out["RR"] == pytest.approx(1 / 3)
    assert out["nDCG@10"] == pytest.approx((1 / math.log2(4)) / (1 + 1 / math.log2(3)))
    with pytest.raises(ValueError, match="twice"):
        sg.score_ranking(["d1", "d1"], {"d1": 1}, ["RR"])
    assert sg.score_ranking([], {"d1": 1}, ["RR", "NumRel"]) == {"RR": 0.0, "NumRel": 1}


# ------------------------------------------------------------------ options
def test_trec_ties_break_by_docid_descending_and_input_keeps_dict_order():
    qrels = {"q": {"b": 1}}
    run = {"q": {"b": 1.0, "a": 1.0, "c": 1.0}}
    # trec: c, b, a -> b at rank 2 ; input: b first
    assert sg.evaluate(qrels, run, ["RR"]).loc["q", "RR"] == 0.5
    assert sg.evaluate(qrels, run, ["RR"], ties="input").loc["q", "RR"] == 1.0
    assert sg.evaluate(qrels, run, ["RR"], ties="expected").loc["q", "RR"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


def test_trec_tie_order_uses_string_order_not_numbers():
    qrels = {"q": {"9": 1}}
    run = {"q": {"10": 0.5, "9": 0.5}}
    # strcmp: "9" > "10", so "9" comes first in descending docno order
    assert sg.evaluate(qrels, run, ["RR"]).loc["q", "RR"] == 1.0


def test_non_string_docids_tie_break_as_text():
    qrels = {"q": {9: 1}}
    run = {"q": {10: 0.5, 9: 0.5}}
    assert sg.evaluate(qrels, run, ["RR"]).loc["q", "RR"] == 1.0  # "9" > "10" as text


def test_empty_query_in_run_gets_a_row_of_zeros():
    df = sg.evaluate({"q": {"a": 1}}, {"q": {}}, ["AP", "NumRet", "NumRel"])
    assert df.loc["q"].tolist() == [0.0, 0, 1]


def test_missing_queries_ignore_or_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}}
    df = sg.evaluate(qrels, run, ["AP", "NumRel", "RBP_resid(p=0.5)"])
    assert list(df.index) == ["q1"]
    df = sg.evaluate(qrels, run, ["AP", "NumRel", "RBP_resid(p=0.5)"], missing="zero")
    assert list(df.index) == ["q1", "q2"]
    assert df.loc["q2"].tolist() == [0.0, 1, 1.0]
    assert sg.aggregate(df)["AP"] == 0.5


def test_run_queries_without_qrels_warn_with_count_and_ids():
    qrels = {"q1": {"a": 1}}
    run = {"q1": {"a": 1.0}, "q7": {"a": 1.0}, "q3": {"b": 1.0}}
    with pytest.warns(UserWarning, match=r"2 run queries have no qrels.*q3, q7"):
        df = sg.evaluate(qrels, run, ["AP"])
    assert list(df.index) == ["q1"]


def test_no_warning_when_every_run_query_is_judged():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sg.evaluate(QRELS, RUN, ["AP"])


def test_rows_in_natural_order_and_index_named_qid():
    qrels = {str(i): {"a": 1} for i in (10, 2, 1)}
    run = {q: {"a": 1.0} for q in qrels}
    df = sg.evaluate(qrels, run, ["P@1"])
    assert list(df.index) == ["1", "2", "10"]
    assert df.index.name == "qid"


def test_judged_only_condenses_the_ranking():
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"x": 3.0, "a": 2.0, "y": 1.5, "b": 1.0}}
    assert one("RR", qrels={"q1": qrels["q"]}, run={"q1": run["q"]}) == pytest.approx(1 / 4)
    assert one("RR", qrels={"q1": qrels["q"]}, run={"q1": run["q"]}, judged_only=True) == pytest.approx(1 / 2)
    assert one("NumRet", qrels={"q1": qrels["q"]}, run={"q1": run["q"]}, judged_only=True) == 2


def test_max_docs_cuts_after_sorting():
    run = {"q1": {"c": 1.0, "a": 3.0, "b": 2.0}}
    assert one("NumRet", run=run, max_docs=2) == 2
    assert one("NumRelRet", run=run, max_docs=2) == 1  # a, b kept; c cut


def test_rel_level_changes_binary_not_graded_measures():
    assert one("NumRel", rel_level=2) == 1
    assert one("nDCG@3", rel_level=2) == one("nDCG@3")


def test_evaluator_reuses_qrels_across_runs(trec_qrels, trec_run):
    ev = Evaluator(trec_qrels, ["AP", "P@10"])
    a = ev.evaluate(trec_run)
    b = sg.evaluate(trec_qrels, trec_run, ["AP", "P@10"])
    pd.testing.assert_frame_equal(a, b)
    shuffled = {q: dict(reversed(list(d.items()))) for q, d in trec_run.items()}
    pd.testing.assert_frame_equal(ev.evaluate(shuffled), a)  # trec order does not depend on input order


def test_columns_named_as_requested_and_two_spellings_of_one_measure_refused():
    trec = ["P_10", "ndcg_cut_10", "map", "recip_rank"]
    ir = ["P@10", "nDCG@10", "AP", "RR"]
    a, b = sg.evaluate(QRELS, RUN, trec), sg.evaluate(QRELS, RUN, ir)
    assert list(a.columns) == trec and list(b.columns) == ir
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())
    with pytest.raises(ValueError, match=r"requested twice: 'P_10' and 'P@10' \(both P@10\)"):
        sg.evaluate(QRELS, RUN, ["P_10", "P@10"])


# ------------------------------------------------------------ measure names
def test_parse_measure_fields():
    m = parse_measure("nDCG(gain=exp)@10")
    assert (m.family, m.params["gain"], m.cutoff) == ("nDCG", "exp", 10)
    assert parse_measure("P(rel=2)@5").params["rel"] == 2
    assert parse_measure("RBP(p=0.8)").params["p"] == 0.8
    assert parse_measure("rbp").params["p"] == 0.9  # trec_eval's default
    assert parse_measure("RBP").params["p"] == 0.8  # ir_measures' default
    assert parse_measure("iprec_at_recall_0.10").cutoff == pytest.approx(0.1)
    assert parse_measure("unj_5").family == "Unj"
    assert parse_measure("success_10").family == "Hit"
    assert parse_measure("Success@10").family == "Hit"
    assert parse_measure("recip_rank").family == "RR"
    assert parse_measure("nDCG(discount=jk)@10").params["b"] == 2.0
    assert parse_measure("SetF(beta=0.5)").params["beta"] == 0.5


def test_unknown_measure_suggests_a_known_one():
    with pytest.raises(ValueError, match=r"unknown measure 'MAPP@10'; did you mean 'MAP@10'\? .*known_measures"):
        parse_measure("MAPP@10")
    with pytest.raises(ValueError, match="known_measures"):
        sg.evaluate(QRELS, RUN, ["P@10", "frobnicate"])


@pytest.mark.parametrize("name,fragment", [
    ("RBP(p=1.5)", "RBP\\(p=1.5\\).*strictly between 0 and 1"),
    ("RBP(q=0.5)", "RBP\\(q=0.5\\).*unknown parameter 'q'"),
    ("nDCG(gain=cubic)@10", "nDCG\\(gain=cubic\\)@10.*'linear' or 'exp'"),
    ("nDCG(discount=jk,b=1)@10", "must be greater than 1"),
    ("nDCG(b=3)@10", "only applies with discount=jk"),
    ("P@0", "cutoff '0' must be a positive integer"),
    ("P@2.5", "must be a positive integer"),
    ("P", "P needs a cutoff"),
    ("Bpref@10", "takes no cutoff"),
    ("IPrec@1.5", "must lie in \\[0, 1\\]"),
    ("P(rel=0)@5", "positive integer"),
    ("P(rel)@5", "not of the form key=value"),
    ("SetF(beta=-1)", "must be positive"),
    ("ERR(max_grade=x)@10", "is not a number"),
])
def test_malformed_parameters_name_the_measure(name, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_measure(name)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "high", None])
def test_bad_scores_name_query_and_document(bad):
    run = {"q1": {"a": 1.0, "b": bad}}
    with pytest.raises(ValueError, match=r"run query 'q1' document 'b': score .* not a finite number"):
        sg.evaluate(QRELS, run, ["AP"])


def test_bad_grades_and_options():
    with pytest.raises(ValueError, match=r"qrels query 'q1' document 'a': grade 1.5 is not an integer"):
        sg.evaluate({"q1": {"a": 1.5}}, RUN, ["AP"])
    with pytest.raises(ValueError, match="ties must be one of"):
        sg.evaluate(QRELS, RUN, ["AP"], ties="random")
    with pytest.raises(ValueError, match="missing must be one of"):
        sg.evaluate(QRELS, RUN, ["AP"], missing="drop")
    with pytest.raises(ValueError, match="rel_level must be a positive integer"):
        sg.evaluate(QRELS, RUN, ["AP"], rel_level=0)
    with pytest.raises(ValueError, match="requested twice"):
        sg.evaluate(QRELS, RUN, ["AP", "AP"])
    with pytest.raises(TypeError, match="run must be a dict"):  # not an input form searchgrade.io.as_run reads
        sg.evaluate(QRELS, 42, ["AP"])
    with pytest.raises(TypeError, match="run records"):  # records must be namedtuples or dicts (io.as_run)
        sg.evaluate(QRELS, [("q1", "a", 1.0)], ["AP"])


@pytest.mark.parametrize("name", ["ERR@10", "Bpref", "IPrec@0.5", "11pt", "infAP", "G"])
def test_expected_ties_refuse_measures_without_closed_form(name):
    with pytest.raises(ValueError, match=rf"measure '{name}'.*ties='expected'"):
        sg.evaluate(QRELS, RUN, [name], ties="expected")


def test_known_measures_covers_both_styles():
    known = sg.known_measures()
    assert "nDCG(gain,discount,b,gains,ideal)[@k]" in known and "ndcg_cut_k" in known and "map" in known


def test_package_exports_the_public_api():
    for name in ["evaluate", "aggregate", "score_ranking", "parse_measure", "Evaluator", "read_qrels", "read_run",
                 "write_run", "write_qrels", "FormatError"]:
        assert hasattr(sg, name) and name in sg.__all__


def test_rbp_fixed_max_grade_scale():
    """RBP(max_grade=G) uses gain min(g, G)/G: the mean of binary RBPs at levels 1..G."""
    import pytest

    import searchgrade as sg

    assert sg.score_ranking(["a"], {"a": 3}, ["RBP(p=0.8,max_grade=4)"])["RBP(p=0.8,max_grade=4)"] == pytest.approx(0.15)
    ranking = ["a", "b", "c", "d", "e"]
    judged = {"a": 3, "c": 1, "e": 4, "x": 2}
    fixed = sg.score_ranking(ranking, judged, ["RBP(p=0.8,max_grade=4)"])["RBP(p=0.8,max_grade=4)"]
    levels = sg.score_ranking(ranking, judged, [f"RBP(p=0.8,rel={L})" for L in range(1, 5)])
    assert fixed == pytest.approx(sum(levels.values()) / 4)
    # without max_grade the query's own largest grade (4 here) is the scale, so both agree
    own = sg.score_ranking(ranking, judged, ["RBP(p=0.8)"])["RBP(p=0.8)"]
    assert own == pytest.approx(fixed)


@pytest.mark.parametrize("ties", ["trec", "input", "expected"])
def test_all_empty_rankings_score_zero_in_every_tie_mode(ties):
    names = ["P@10", "AP", "nDCG@10", "RR", "RBP(p=0.8)", "Rprec", "R@10", "Hit@10"]
    if ties != "expected":  # ERR has no closed form under expected ties
        names.append("ERR@10")
    for run in ({"q1": {}}, {"q1": {}, "q2": {}}):
        df = sg.evaluate({"q1": {"d1": 1}, "q2": {"d2": 2}}, run, names, ties=ties, missing="zero")
        assert df.shape == (2, len(names))
        assert (df.to_numpy() == 0).all()
        assert all(dtype == np.float64 for dtype in df.dtypes), df.dtypes


def test_a_measure_own_judged_only_ranks_the_run_a_second_time():
    qrels = {"q1": {"a": 0, "b": 1}}
    run = {"q1": {"x": 3.0, "a": 2.0, "y": 1.5, "b": 1.0}}
    ev = Evaluator(qrels, ["RR", "RR(judged_only=True)", "NumRet"])
    df = ev.evaluate(run)
    assert list(df.columns) == ["RR", "RR(judged_only=True)", "NumRet"]
    assert df.loc["q1"].tolist() == [pytest.approx(1 / 4), pytest.approx(1 / 2), 4]
    condensed = sg.evaluate(qrels, run, ["RR", "RR(judged_only=False)"], judged_only=True)
    assert condensed.loc["q1"].tolist() == [pytest.approx(1 / 2), pytest.approx(1 / 4)]  # the measure's own wins
    rows, ctx = ev.rank(run)
    with pytest.raises(ValueError, match=r"need a ranking with judged_only=True; use evaluate\(run\)"):
        ev.evaluate_ranked(rows, ctx)


# ------------------------------------------------------ trec_eval's parameters as measure parameters
def test_rbp_graded_and_binary_are_two_measures():
    """RBP(p=0.8) (graded: grade / largest grade) and RBP(p=0.8,rel=1) (binary) never share a key."""
    qrels, run = {"q": {"a": 2, "b": 1}}, {"q": {"b": 2.0, "a": 1.0}}
    df = sg.evaluate(qrels, run, ["RBP(p=0.8)", "RBP(p=0.8,rel=1)", "rbp_p=0.8,1=2"])
    p = 0.8
    assert df.loc["q", "RBP(p=0.8)"] == pytest.approx((1 - p) * (0.5 + 1.0 * p))
    assert df.loc["q", "RBP(p=0.8,rel=1)"] == pytest.approx((1 - p) * (1 + p))
    assert df.loc["q", "rbp_p=0.8,1=2"] == pytest.approx((1 - p) * (1.0 + 1.0 * p))  # gains 2, 2: over 2
    keys = {parse_measure(n).key for n in ["RBP(p=0.8)", "RBP(p=0.8,rel=1)", "RBP(p=0.8,rel=2)",
                                          "RBP(p=0.8,max_grade=4)", "RBP(p=0.8,gains={1:2})"]}
    assert len(keys) == 5
    with pytest.raises(ValueError, match="requested twice"):
        sg.evaluate(qrels, run, ["RBP(p=0.8)", "rbp_p=0.8"])
    with pytest.raises(ValueError, match="cannot be combined"):
        parse_measure("RBP(rel=1,gains={1:2})")


def test_rbp_gains_are_rescaled_as_trec_eval_does():
    """m_rbp.c: gains outside [0, 1] are mapped by (g - min) / (max - min), min and max taken with 0 over
    the listed gains and grades 0 .. the query's largest; documents without a judgment gain 0."""
    judged = {"a": 0, "b": 1, "c": 2}
    ranking = ["x", "a", "b", "c"]
    p = 0.5
    value = sg.score_ranking(ranking, judged, ["RBP(p=0.5,gains={1:-1,2:3})"])["RBP(p=0.5,gains={1:-1,2:3})"]
    lo, hi = -1.0, 3.0  # table: 0 (grade 0), -1, 3
    gains = [0.0, (0 - lo) / (hi - lo), (-1 - lo) / (hi - lo), (3 - lo) / (hi - lo)]  # x unjudged: 0
    assert value == pytest.approx((1 - p) * sum(g * p**i for i, g in enumerate(gains)))
    inside = sg.score_ranking(ranking, judged, ["RBP(p=0.5,gains={2:0.5})"])["RBP(p=0.5,gains={2:0.5})"]
    assert inside == pytest.approx((1 - p) * (1.0 * p**2 + 0.5 * p**3))  # all in [0, 1]: kept as they are


def test_rbp_resid_tail_unjudged_is_trec_eval_rbp_resid():
    judged = {"a": 1, "b": 0}
    all_judged = sg.score_ranking(["a", "b"], judged, ["RBP_resid(p=0.5)", "RBP_resid(p=0.5,tail=unjudged)"])
    assert all_judged == {"RBP_resid(p=0.5)": 0.25, "RBP_resid(p=0.5,tail=unjudged)": 0.0}
    assert sg.score_ranking(["a", "b"], judged, ["rbp_resid_p=0.5"]) == {"RBP_resid(p=0.5,tail=unjudged)": 0.0}
    some = sg.score_ranking(["a", "x"], judged, ["RBP_resid(p=0.5)", "RBP_resid(p=0.5,tail=unjudged)"])
    assert some["RBP_resid(p=0.5)"] == some["RBP_resid(p=0.5,tail=unjudged)"] == 0.25 + 0.5 * 0.5


def test_ndcg_ideal_orders():
    """ideal=sorted ranks the judged documents by gain; ideal=trec walks as trec_eval (gains closer than 1
    compare equal and keep their order), which is what the trec_eval name ndcg_1=4.5 means."""
    judged = {"a": 1, "b": 4, "c": 0, "d": 4}
    ranking = ["c", "a", "b"]
    got = sg.score_ranking(ranking, judged, ["nDCG(gains={1:4.5})", "nDCG(gains={1:4.5},ideal=trec)"])
    dcg = 4.5 / math.log2(3) + 4 / math.log2(4)
    assert got["nDCG(gains={1:4.5})"] == pytest.approx(dcg / (4.5 + 4 / math.log2(3) + 4 / math.log2(4)))
    assert got["nDCG(gains={1:4.5},ideal=trec)"] == pytest.approx(
        dcg / (4 + 4 / math.log2(3) + 4.5 / math.log2(4)))  # grade 4 (gain 4) first: 4.5 - 4 truncates to 0
    assert sg.score_ranking(ranking, judged, ["ndcg_1=4.5"]) == {"nDCG(gains={1:4.5},ideal=trec)":
                                                                 got["nDCG(gains={1:4.5},ideal=trec)"]}
    assert parse_measure("ndcg_1=4.5").name == "nDCG(gains={1:4.5},ideal=trec)"
    with pytest.raises(ValueError, match="ideal= only applies with gains="):
        parse_measure("nDCG(ideal=trec)@10")
    # a gain below 0 counts in the run's DCG and never in the sorted ideal
    neg = sg.score_ranking(["a", "b"], {"a": 1, "b": 2}, ["nDCG(gains={1:-1})"])["nDCG(gains={1:-1})"]
    assert neg == pytest.approx((-1 + 2 / math.log2(3)) / 2)


def test_eleven_point_levels_are_summed_last_to_first():
    judged = {"a": 1, "b": 1, "c": 1}
    ranking = ["a", "x", "b", "y", "z", "c"]
    got = sg.score_ranking(ranking, judged, ["11pt(levels=[0.25,0.5,0.75])", "IPrec@0.25", "IPrec@0.5", "IPrec@0.75",
                                             "11pt"])
    assert got["11pt(levels=[0.25,0.5,0.75])"] == ((got["IPrec@0.75"] + got["IPrec@0.5"]) + got["IPrec@0.25"]) / 3
    assert parse_measure("11pt_avg_0.25,0.5,0.75").key == parse_measure("11pt(levels=[0.25,0.5,0.75])").key
    assert parse_measure("11pt(levels=[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1])").key == parse_measure("11pt").key
    for bad, why in [("11pt(levels=[0.5,0.2])", "increasing order"), ("11pt(levels=[0.5,2])", r"\[0, 1\]"),
                     ("11pt(levels=[])", "numbers like"), ("11pt(levels=x)", "not a number")]:
        with pytest.raises(ValueError, match=why):
            parse_measure(bad)


def test_experimental_trec_measures_take_gains():
    judged = {"a": 1, "b": 2, "c": 0}
    plain = sg.score_ranking(["b", "a"], judged, ["G", "nDCG_rel", "RnDCG"])
    same = sg.score_ranking(["b", "a"], judged, ["G(gains={1:1})", "nDCG_rel(gains={2:2})", "RnDCG(gains={0:0})"])
    assert list(plain.values()) == list(same.values())  # grades gaining themselves change nothing
    swapped = sg.score_ranking(["b", "a"], judged, ["G(gains={1:2,2:1})"])["G(gains={1:2,2:1})"]
    assert swapped < plain["G"]  # the better document now comes second
    assert parse_measure("G_1=2,2=1").key == parse_measure("G(gains={1:2,2:1})").key
    assert parse_measure("G_1=2,2=1").key != parse_measure("G_2=1,1=2").key  # the walk depends on the order
