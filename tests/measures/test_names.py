"""Measure names: ir_measures' syntax and objects, trec_eval names, printed (column) names, duplicates."""
import numpy as np
import pytest

import searchgrade as sg
from searchgrade import parse_measure

ir_measures = pytest.importorskip("ir_measures")


# ----------------------------------------------------------------- the syntax
@pytest.mark.parametrize("text,family,params,cutoff", [
    ('P(rel="2")@5', "P", {"rel": 2}, 5),
    ("P(rel='2')@5", "P", {"rel": 2}, 5),
    ("nDCG(dcg='exp-log2')@10", "nDCG", {"gain": "exp"}, 10),
    ('nDCG(dcg="log2")@10', "nDCG", {"gain": "linear"}, 10),
    ("nDCG(gains={0:0,1:1,2:5})@10", "nDCG", {"gains": {2: 5.0}}, 10),
    ("AP(judged_only=True)", "AP", {"judged_only": True}, None),
    ("SetP(relative=True)", "SetRelP", {}, None),
    ("SetP(relative=False)", "SetP", {}, None),
    ("NumRet(rel=1)", "NumRelRet", {"rel": 1}, None),
    ("Success@10", "Hit", {}, 10),
    ("MAP", "AP", {}, None),
    ("MRR@10", "RR", {}, 10),
    ("NDCG@5", "nDCG", {}, 5),
    ("P ( rel = 2 ) @ 5", "P", {"rel": 2}, 5),
    ("IPrec@0.25", "IPrec", {}, 0.25),
    ("Utility(b=-2)", "Utility", {"b": -2.0}, None),
    ("ndcg_1=4,2=8", "nDCG", {"gains": {1: 4.0, 2: 8.0}}, None),
    ("rbp_resid_p=0.5", "RBP_resid", {"p": 0.5}, None),
    ("P(cutoff=5)", "P", {}, 5),  # ir_measures' keyword form of @
    ("IPrec(recall=0.5)", "IPrec", {}, 0.5),
    ("nDCG(gains={'1':2})@5", "nDCG", {"gains": {1: 2.0}}, 5),
])
def test_ir_measures_syntax(text, family, params, cutoff):
    m = parse_measure(text)
    assert (m.family, m.cutoff) == (family, cutoff)
    for key, value in params.items():
        assert m.params[key] == value


@pytest.mark.parametrize("text,fragment", [
    ("nDCG(dcg='exp')@10", r"dcg='exp' has no searchgrade counterpart \(ir_measures' dcg must be 'log2' or "),
    ("P(rel=two)@5", r"P\(rel=two\)@5.*rel=two is not a number"),
    ("P(cutoff=5)@5", r"the cutoff is given twice"),
    ("P(rel=2,rel=3)@5", r"parameter 'rel' given twice"),
    ("P(k=5)", r"unknown parameter 'k'"),
    ("nDCG(gains={1:x})@5", "must be a mapping|is not a number"),
    ("nDCG(gains={-1:2})@5", "negative grades"),
    ("nDCG(gain=exp,gains={2:5})@5", "cannot be combined"),
    ("RBP(rel=1,max_grade=4)", "cannot be combined"),
    ("AP(judged_only=maybe)", "True or False"),
    ("P(rel=2@5", "unbalanced"),
    ("P@", "nothing after '@'"),
    ("P@10x", "cutoff '10x' must be a positive integer"),
])
def test_bad_parameters_name_the_measure_and_the_parameter(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_measure(text)


@pytest.mark.parametrize("obj", [ir_measures.Accuracy, ir_measures.Compat(p=0.9)])
def test_ir_measures_objects_without_a_counterpart_are_named(obj):
    with pytest.raises(ValueError, match=rf"measure '{obj.NAME}.*' \(ir_measures {obj.NAME}\) has no searchgrade"):
        parse_measure(obj)


def test_a_parameter_ir_measures_has_but_searchgrade_does_not_is_refused():
    with pytest.raises(ValueError, match="unknown parameter 'relative'"):
        parse_measure("SetR(relative=True)")


# --------------------------------------------------------------- printed names
@pytest.mark.parametrize("requested,printed", [
    ("rbp", "RBP(p=0.9)"),  # trec_eval's p = 0.9 is not the family default (0.8): shown
    ("RBP", "RBP"),
    ("rbp_p=0.8", "rbp_p=0.8"),
    ("rbp_resid", "RBP_resid(p=0.9,tail=unjudged)"),  # trec_eval's value: 0 without an unjudged document
    ("ndcg_1=4", "nDCG(gains={1:4},ideal=trec)"),  # trec_eval's ideal ranking, shown
    ("P_10", "P_10"),
    ("set_F", "set_F"),
    ("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@10"),
    (ir_measures.nDCG @ 10, "nDCG@10"),
    (ir_measures.P(rel=2) @ 5, "P(rel=2)@5"),
    (ir_measures.ERR @ 10, "ERR(max_grade=4)@10"),  # gdeval's fixed grade scale, shown
    (ir_measures.SetF(beta=2.0), "SetF(beta2=2)"),  # ir_measures runs trec_eval's set_F.2: beta^2 = 2
    (ir_measures.NumRelRet, "NumRet(rel=1)"),
])
def test_printed_name_shows_every_parameter_that_differs_from_the_default(requested, printed):
    assert parse_measure(requested).name == printed
    assert list(sg.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [requested]).columns) == [printed]


def test_rbp_and_RBP_never_print_the_same_name():
    df = sg.evaluate({"q": {"a": 1, "b": 1}}, {"q": {"x": 2.0, "a": 1.0, "b": 0.5}}, ["rbp", "RBP"])
    assert list(df.columns) == ["RBP(p=0.9)", "RBP"]
    assert df.loc["q", "RBP(p=0.9)"] != df.loc["q", "RBP"]


@pytest.mark.parametrize("pair", [["P_10", "P@10"], ["rbp", "RBP(p=0.9)"], ["map", "AP"],
                                  ["nDCG(gain=exp)@5", "nDCG(dcg='exp-log2')@5"],
                                  [ir_measures.nDCG @ 5, "nDCG@5"], ["P@5", "P(rel=1)@5"]])
def test_two_spellings_of_one_measure_are_an_error(pair):
    with pytest.raises(ValueError, match="requested twice"):
        sg.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, pair)


def test_same_family_different_values_are_not_duplicates():
    df = sg.evaluate({"q": {"a": 2}}, {"q": {"a": 1.0}}, ["P@5", "P(rel=2)@5", "RBP", "RBP(rel=1)"])
    assert df.shape == (1, 4)


def test_canonical_names_parse_back_to_the_same_measure():
    for text in ["nDCG(gain=exp,discount=jk,b=3)@10", "RBP(p=0.5,max_grade=4)", "SetF(rel=2,beta=0.5)",
                 "Utility(a=2,b=-3,c=1)", "nDCG(gains={1:4,2:8})@5", "AP(rel=2,judged_only=True)@100"]:
        m = parse_measure(text)
        assert parse_measure(m.canonical).key == m.key, text


# ------------------------------------------------------- ir_measures' values
def _tie_free(seed=7, n_queries=6, n_docs=40):
    """Graded qrels (0-4, gdeval's range) and a tie-free run that also retrieves unjudged documents."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.permutation(n_docs)]
        judged = docs[: int(rng.integers(8, 25))]
        qid = str(q + 1)  # numeric: ir_measures' ERR and exp-log2 nDCG run gdeval.pl, which needs them
        qrels[qid] = {d: int(rng.choice([0, 0, 1, 1, 2, 3, 4])) for d in judged}
        qrels[qid][judged[0]] = 4  # every query has a grade-4 document
        retrieved = [d for d in rng.permutation(docs)[: int(rng.integers(12, 30))]]
        scores = rng.permutation(len(retrieved)) + 1.0  # distinct scores: no ties
        run[qid] = dict(zip(retrieved, scores.tolist()))
    qrels["99"] = {"d1": 1}  # a qrels query the run leaves out (skipped by both tools)
    return qrels, run


OBJECTS = [
    ir_measures.nDCG @ 10, ir_measures.nDCG, ir_measures.nDCG(gains={0: 0, 1: 1, 2: 5}) @ 10,
    ir_measures.nDCG(judged_only=True) @ 10, ir_measures.nDCG(dcg="exp-log2") @ 10,
    ir_measures.P @ 5, ir_measures.P(rel=2) @ 5, ir_measures.P(judged_only=True) @ 5,
    ir_measures.R @ 10, ir_measures.R(rel=3) @ 10, ir_measures.AP, ir_measures.AP @ 10, ir_measures.AP(rel=2),
    ir_measures.RR, ir_measures.RR @ 5, ir_measures.RR(rel=3), ir_measures.Rprec, ir_measures.Rprec(rel=2),
    ir_measures.Bpref, ir_measures.Bpref(rel=2), ir_measures.Success @ 3, ir_measures.Success(rel=4) @ 5,
    ir_measures.SetP, ir_measures.SetRelP, ir_measures.SetR, ir_measures.SetF, ir_measures.SetF(beta=2.0),
    ir_measures.SetAP, ir_measures.NumRet, ir_measures.NumRelRet, ir_measures.NumRel, ir_measures.NumQ,
    ir_measures.infAP, ir_measures.Judged @ 10, ir_measures.ERR @ 10,
]
# As strings, these two keep searchgrade's reading (documented in searchgrade.metrics): ERR's grade scale is
# the query's largest grade, SetF's beta is van Rijsbergen's beta.
STRING_DIFFERS = {"ERR@10", "SetF(beta=2.0)"}
GDEVAL = {"ERR@10", "nDCG(dcg='exp-log2')@10"}  # ir_measures runs gdeval.pl, which prints 5 decimals
COUNTS_OF_QRELS = {"NumRel", "NumQ"}  # ir_measures gives an absent query DEFAULT = 0 for these too


def _tol(name):
    return 5e-6 if name in GDEVAL else 1e-9


# ir_measures, asked for several measures at once, groups them into pytrec_eval invocations (one per
# rel/judged_only setting) in set order, which changes from process to process; with P(judged_only=True)
# and nDCG(judged_only=True) beside the plain measures, some processes got NumRet and nDCG@10 from the
# judged-only invocation (PYTHONHASHSEED=5159 did).  The oracle is therefore asked one measure at a time.
def _groups(measures):
    """One ir_measures call per measure."""
    return [[m] for m in measures]


def _theirs(measures, qrels, run):
    return {(m.query_id, str(m.measure)): m.value
            for group in _groups(measures) for m in ir_measures.iter_calc(group, qrels, run)}


@pytest.fixture(scope="module")
def tie_free():
    qrels, run = _tie_free()
    return qrels, run, _theirs(OBJECTS, qrels, run)


def _compare(ours, theirs, names, qrels, run):
    """ours (searchgrade, missing="zero") against every value ir_measures yields, absent queries included."""
    for spec, text in names:
        col, fam = parse_measure(spec).name, parse_measure(spec).family
        for q in qrels:
            value = theirs[(q, text)]
            if q not in run and fam in COUNTS_OF_QRELS:  # ir_measures: 0; searchgrade counts the query's qrels
                assert value == 0 and ours.loc[q, col] == (1 if fam == "NumQ" else len(qrels[q]))
                continue
            assert ours.loc[q, col] == pytest.approx(value, abs=_tol(text)), (text, q)


@pytest.mark.peers
def test_ir_measures_objects_give_ir_measures_values(tie_free):
    """ir_measures scores a qrels query without a ranking with each measure's DEFAULT (0): missing="zero"."""
    qrels, run, theirs = tie_free
    ours = sg.evaluate(qrels, run, OBJECTS, missing="zero")
    _compare(ours, theirs, [(o, str(o)) for o in OBJECTS], qrels, run)


@pytest.mark.peers
def test_ir_measures_strings_give_ir_measures_values(tie_free):
    qrels, run, theirs = tie_free
    names = [str(o) for o in OBJECTS if str(o) not in STRING_DIFFERS]
    ours = sg.evaluate(qrels, run, names, missing="zero")
    _compare(ours, theirs, [(n, n) for n in names], qrels, run)


@pytest.mark.peers
def test_ir_measures_aggregates_equal_searchgrade_means(tie_free):
    qrels, run, _ = tie_free
    theirs = {k: v for group in _groups(OBJECTS) for k, v in ir_measures.calc_aggregate(group, qrels, run).items()}
    ours = sg.mean(qrels, run, OBJECTS, missing="zero")
    absent = [q for q in qrels if q not in run]
    for obj in OBJECTS:
        m = parse_measure(obj)
        expected = float(theirs[obj])
        if m.family in COUNTS_OF_QRELS:  # searchgrade also counts the absent query
            expected += sum(1 if m.family == "NumQ" else len(qrels[q]) for q in absent)
        assert float(ours[m.name]) == pytest.approx(expected, abs=_tol(str(obj))), str(obj)


@pytest.mark.peers
def test_strings_keep_searchgrade_readings_where_documented(tie_free):
    qrels, run, theirs = tie_free
    ours = sg.evaluate(qrels, run, ["ERR@10", "ERR(max_grade=4)@10", "SetF(beta=2.0)", "SetF(beta2=2)"])
    for q in run:  # every query's largest grade is 4, so the two ERR readings agree here
        assert ours.loc[q, "ERR@10"] == pytest.approx(theirs[(q, "ERR@10")], abs=5e-6)
        assert ours.loc[q, "SetF(beta2=2)"] == pytest.approx(theirs[(q, "SetF(beta=2.0)")], abs=1e-9)
    assert (ours["SetF(beta=2.0)"] != ours["SetF(beta2=2)"]).any()


# ------------------------------------------------------------ did you mean
@pytest.mark.parametrize("text,guess", [
    ("nDGC@10", "nDCG@10"), ("MAPP@10", "MAP@10"), ("ndcg_cut_10x", "ndcg_cut_10"), ("Precison@5", "Precision@5"),
    ("hit_rat@10", "hit_rate@10"), ("r-precison", "r-precision")])
def test_a_misspelt_name_gets_a_short_did_you_mean(text, guess):
    with pytest.raises(ValueError) as err:
        parse_measure(text)
    message = str(err.value)
    assert f"did you mean {guess!r}" in message and len(message) < 300, message


def test_a_name_far_from_every_name_gets_no_guess_and_no_list():
    with pytest.raises(ValueError, match=r"unknown measure 'frobnicate' \(searchgrade.known_measures\(\)") as err:
        sg.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@10", "frobnicate"])
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("arg,guess", [("ndcg_cut_10", "ndcg_cut.10"), ("P_5,10", "P.5,10"), ("mapp", "map"),
                                       ("ndcgcut.10", "ndcg_cut.10"), ("oficial", "official")])
def test_the_cli_suggests_trec_evals_spelling(tmp_path, capsys, arg, guess):
    from searchgrade.trec_eval import main
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 x\n")
    assert main(["-m", arg, str(tmp_path / "q"), str(tmp_path / "r")]) != 0
    first = capsys.readouterr().err.splitlines()[0]
    assert f"did you mean {guess!r}" in first and len(first) < 300, first


# --------------------------------------------------- ERR's grade scale, stated
@pytest.mark.peers
def test_err_without_max_grade_warns_where_ir_measures_differs():
    qrels, run = {"1": {"a": 1, "b": 0, "c": 2}}, {"1": {"b": 3.0, "a": 2.0, "c": 1.0}}
    with pytest.warns(UserWarning, match=r"ERR@10: no max_grade=.*largest grade \(here 2\).*ERR\(max_grade=4\)@10"):
        ours = sg.evaluate(qrels, run, ["ERR@10"])["ERR@10"]
    theirs = ir_measures.calc_aggregate([ir_measures.ERR @ 10], qrels, run)[ir_measures.ERR @ 10]
    fixed = sg.evaluate(qrels, run, ["ERR(max_grade=4)@10"])["ERR(max_grade=4)@10"]
    assert fixed.iloc[0] == pytest.approx(theirs, abs=5e-6)  # gdeval prints 5 decimals
    assert ours.iloc[0] != pytest.approx(theirs, abs=1e-3)


def test_err_warns_not_when_the_scale_is_given_or_is_four():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sg.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ERR(max_grade=3)@10", ir_measures.ERR @ 5])
        sg.evaluate({"q": {"a": 4, "b": 1}, "r": {"x": 0}}, {"q": {"a": 1.0}, "r": {"x": 1.0}}, ["ERR@10"])
