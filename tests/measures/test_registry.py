"""The measure registry: one entry per family, and everything derived from it (names, trec_eval, pytrec_eval)."""
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.measures.names import known_measures, parse_measure, trec_expand
from searchgrade.measures.params import Param
from searchgrade.measures.family import COMMON
from searchgrade.measures.registry import FAMILIES, TREC_ORDER, TREC_SETS, family, trec_root
from searchgrade.book import diagnostics

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 1, "x": -1}}
ROOT = Path(__file__).resolve().parents[2]
RUN = {"q1": {"a": 5.0, "b": 4.0, "c": 3.0, "e": 2.0, "x": 1.0}}  # a b c e x; d not retrieved


# ------------------------------------------------------------------ entries
@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_is_complete(name):
    fam = FAMILIES[name]
    assert callable(fam.kernel) and fam.doc
    assert fam.cutoff in ("none", "optional", "required", "recall")
    assert fam.agg in ("mean", "gmean", "sum")
    for p in fam.params + COMMON:
        assert isinstance(p, Param) and p.doc, (name, p.name)
        assert p.dtype in (int, float, str, bool, dict, tuple)
        if p.default is not None:  # a default passes its own check
            assert p.coerce(name, p.default) == p.default
    assert family(name) is fam and family(name.upper()) is fam


def test_binary_families_take_rel_and_graded_ones_use_grades():
    for fam in FAMILIES.values():
        if not fam.graded:
            assert fam.param("rel") is not None, fam.name
    assert FAMILIES["nDCG"].param("rel") is None  # graded: rel_level does not apply


# ------------------------------------------------------------- trec_eval names
def _samples():
    """(searchgrade measure, trec_eval printed name) pairs: every trec_eval root's defaults, plus parameters."""
    pairs = [(m.canonical, printed) for root in TREC_ORDER if trec_root(root) for printed, m in trec_expand(root)]
    pairs += [("RBP(p=0.8)", "rbp_p=0.8"), ("RBP_resid(p=0.5,tail=unjudged)", "rbp_resid_p=0.5"),
              ("SetF(beta=2)", "set_F_4"), ("SetF(beta=0.5)", "set_F_0.25"), ("SetF(beta2=0.5)", "set_F_0.5"),
              ("Utility(b=-2)", "utility_1,-2,0,0"), ("Utility(a=2,b=-3,c=1)", "utility_2,-3,1,0"),
              ("nDCG(gains={1:4,2:8},ideal=trec)", "ndcg_1=4,2=8"), ("nDCG(gains={2:8,1:4.5},ideal=trec)",
                                                                   "ndcg_2=8,1=4.5"),
              ("RBP(p=0.8,gains={1:2,3:0.5})", "rbp_p=0.8,1=2,3=0.5"), ("RBP(p=0.9,gains={2:4})", "rbp_2=4"),
              ("G(gains={1:3})", "G_1=3"), ("nDCG_rel(gains={0:1})", "ndcg_rel_0=1"),
              ("RnDCG(gains={2:5,1:1})", "Rndcg_2=5,1=1"), ("11pt(levels=[0.2,0.5,0.8])", "11pt_avg_0.2,0.5,0.8"),
              ("RprecMult(m=0.5)", "Rprec_mult_0.50"), ("IPrec@0.25", "iprec_at_recall_0.25"),
              ("P@7", "P_7"), ("Hit@2", "success_2"), ("Unj@3", "unj_3"), ("AP@50", "map_cut_50")]
    return pairs


@pytest.mark.parametrize("name,printed", _samples())
def test_round_trip_searchgrade_to_trec_eval_and_back(name, printed):
    m = parse_measure(name)
    assert m.trec_name == printed
    back = parse_measure(printed)
    assert back.key == m.key
    assert parse_measure(back.canonical).key == m.key


def test_every_family_with_a_trec_eval_name_is_covered():
    covered = {parse_measure(name).family for name, _ in _samples()}
    assert covered == {f.name for f in FAMILIES.values() if f.trec}


@pytest.mark.parametrize("name", ["ERR@10", "DCG@10", "CG@5", "Judged@10", "Hole@10", "SetE", "RR@10",
                                  "nDCG(gain=exp)@10", "nDCG(gains={2:5})@10", "RBP(p=0.8,rel=1)",
                                  "nDCG(gains={2:5})", "RBP_resid(p=0.5)", "RBP(max_grade=4)"])
def test_measures_without_a_trec_eval_counterpart_say_so(name):
    with pytest.raises(ValueError, match="no trec_eval counterpart"):
        parse_measure(name).trec_name


def test_trec_expand_follows_trec_eval_defaults_and_parameters():
    assert [p for p, _ in trec_expand("P")] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert [p for p, _ in trec_expand("success")] == ["success_1", "success_5", "success_10"]
    assert [p for p, _ in trec_expand("iprec_at_recall")][:3] == ["iprec_at_recall_0.00", "iprec_at_recall_0.10",
                                                                   "iprec_at_recall_0.20"]
    assert [p for p, _ in trec_expand("P", "10,5")] == ["P_5", "P_10"]  # sorted, as trec_eval does
    (printed, m), = trec_expand("rbp", "p=0.95")
    assert printed == "rbp_p=0.95" and m.params["p"] == 0.95
    assert [p for p, _ in trec_expand("ndcg_cut", "23.4,5")] == ["ndcg_cut_5", "ndcg_cut_23"]  # atol: 23.4 is 23
    (printed, m), = trec_expand("iprec_at_recall", "0.125")
    assert printed == "iprec_at_recall_0.12" and m.cutoff == 0.125  # printed %3.2f, computed at the level given
    assert [p for p, _ in trec_expand("Rprec_mult", "123456.5")] == ["Rprec_mult_123456.5"]  # trec_eval's buffer
    (printed, m), = trec_expand("ndcg", "2=9,1=3")
    assert printed == "ndcg_2=9,1=3" and list(m.params["gains"].items()) == [(2, 9.0), (1, 3.0)]
    assert m.params["ideal"] == "trec"
    (printed, m), = trec_expand("11pt_avg", "0.2,0.5,0.8")
    assert m.params["levels"] == (0.2, 0.5, 0.8)
    (_, m), = trec_expand("set_F", "0.5")
    assert m.params["beta2"] == 0.5 and "beta" not in m.params
    (printed, m), = trec_expand("map", rel=2)
    assert m.params["rel"] == 2 and m.name == "AP(rel=2)"
    (_, m), = trec_expand("ndcg", rel=2)  # graded: trec_eval's -l does not apply
    assert "rel" not in m.params
    for root, text, why in [("P", "5,5", "duplicate"), ("P", "5x", "not a whole number"), ("P", "1e3", "would read it as 1"),
                            ("P", "0", "must be positive"), ("map", "3", "takes no parameters"),
                            ("utility", "1,-2", "takes 4 value"), ("rbp", "q=1", "unknown parameter 'q'"),
                            ("rbp_resid", "1=2", "unknown parameter '1'"), ("ndcg", "1=2,1=3", "given twice"),
                            ("ndcg", "-1=2", "negative grades"), ("11pt_avg", "0.5,0.2", "increasing order")]:
        with pytest.raises(ValueError, match=why):
            trec_expand(root, text)


def test_trec_roots_cover_trec_eval_print_order():
    assert [r for r in TREC_ORDER if trec_root(r) is None] == ["runid", "relstring"]
    assert not trec_root("gm_map")[1].per_query and trec_root("map")[1].per_query
    for name, roots in TREC_SETS.items():  # each set in print order, its roots known
        assert set(roots) <= set(TREC_ORDER), name
    assert set(TREC_SETS["official"]) <= set(TREC_SETS["all_trec"]) and set(TREC_SETS["set"]) <= set(TREC_SETS["all_trec"])


# --------------------------------------------------- trec_eval 10.0's golden outputs
GOLDEN = Path(os.environ.get("SEARCHGRADE_TREC_EVAL_GOLDEN") or ROOT.parent / "shared" / "trec_eval_golden")


def _golden_cases() -> list[dict]:
    """trec_eval 10.0's recorded cases (tests/cli/trec_eval/test_golden.py); a missing folder fails, naming it."""
    path = GOLDEN / "cases.jsonl"
    assert path.is_file(), f"trec_eval's golden files are missing: no {path} (../shared/trec_eval_golden)"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _expected_names(measures: list[str], rel: int, query: bool, summary: bool) -> set[str]:
    """The names trec_expand gives for trec_eval's -m arguments (sets expanded) that print per query (-q)
    or in the summary (not -n); runid and relstring aside."""
    names = set()
    for arg in measures or ["official"]:
        for root in TREC_SETS.get(arg, [arg.partition(".")[0]]):
            text = arg.partition(".")[2] if arg not in TREC_SETS else ""
            spec = trec_root(root) and trec_root(root)[1]
            if spec and ((query and spec.per_query) or (summary and spec.summary)):
                names.update(printed for printed, _ in trec_expand(root, text or None, rel))
    return names


def test_golden_trec_eval_prints_the_registry_names_and_values():
    """On every recorded case trec_eval 10.0 printed exactly trec_expand's names; where it printed a summary
    of queries with results (no -c), sg.mean of the same measures gives its values to the printed digits."""
    from searchgrade.cli.trec_eval.args import parse_args

    covered, compared = set(), 0
    for case in _golden_cases():
        o = parse_args(case["args"])
        printed = {}
        for line in case["stdout"].splitlines():
            name, qid, value = line.split("\t")
            if name.rstrip() not in ("runid",) and not name.startswith("relstring"):
                printed.setdefault(name.rstrip(), {})[qid] = value
        assert set(printed) == _expected_names(o["measures"], o["rel_level"], o["query"], o["summary"]), case["name"]
        covered.update(trec_root_of(name) for name in printed)
        if o["complete"] or not o["summary"] or o["n_docs"]:
            continue
        with warnings.catch_warnings():  # several run ids, '#' lines: reported by the readers
            warnings.simplefilter("ignore")
            qrels = sg.read_qrels(GOLDEN / o["qrels_path"])
            run = sg.read_run(GOLDEN / (case["stdin"] or o["run_path"]))
        pairs = [(n, m) for arg in o["measures"] for root in TREC_SETS.get(arg, [arg.partition(".")[0]])
                 if trec_root(root) and trec_root(root)[1].summary
                 for n, m in trec_expand(root, None if arg in TREC_SETS else (arg.partition(".")[2] or None),
                                         o["rel_level"])]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            means = sg.mean(qrels, run, [m for _, m in pairs], rel_level=o["rel_level"],
                            judged_only=o["judged_only"], max_docs=o["max_docs"])
        for (name, _), ours in zip(pairs, means):
            assert abs(float(ours) - float(printed[name]["all"])) <= 5e-5 + 1e-12, (case["name"], name, ours)
            compared += 1
    assert compared > 500
    assert {r for r in TREC_ORDER if trec_root(r)} <= covered  # every root with a family was recorded


def trec_root_of(printed: str) -> str:
    """The trec_eval root of a printed name (``P_5`` -> ``P``, ``set_F_0.5`` -> ``set_F``)."""
    return max((r for r in TREC_ORDER if printed == r or printed.startswith(r + "_")), key=len)


# -------------------------------------------------------------------- Utility
def test_utility_takes_any_weights_and_follows_trec_eval_formula():
    """trec_eval's utility = a*rel_ret + b*nonrel_ret + c*rel_not_ret + d*nonrel_not_ret (m_utility.c)."""
    counts = sg.evaluate(QRELS, RUN, ["NumRelRet", "NumRet", "NumRel"]).loc["q1"]
    rr, ret, rel = counts["NumRelRet"], counts["NumRet"], counts["NumRel"]
    for a, b, c, d, n in [(1, -1, 0, 0, None), (1, -2, 0, 0, None), (2, -3, -1, 0, None), (1, -1, 0, 0.5, 100)]:
        name = f"Utility(a={a},b={b},c={c},d={d}" + (f",n_docs={n})" if n else ")")
        value = sg.score_ranking(["a", "b", "c", "e", "x"], QRELS["q1"], [name])[name]
        assert value == pytest.approx(a * rr + b * (ret - rr) + c * (rel - rr) + d * ((n or 0) + rr - ret - rel))
    assert parse_measure("Utility(b=-2)").params["b"] == -2.0  # b is Utility's weight, not nDCG's log base
    with pytest.raises(ValueError, match="needs the collection size n_docs"):
        parse_measure("Utility(d=1)")
    with pytest.raises(ValueError, match="must be greater than 1"):
        parse_measure("nDCG(discount=jk,b=-2)@10")  # nDCG's b is still checked as a log base


# ---------------------------------------------------------------- pytrec_eval
def test_lineup_pytrec_eval_names_come_from_the_registry():
    assert diagnostics.PYTREC_EVAL_NAMES["P"] == "P_{k}" and diagnostics.PYTREC_EVAL_NAMES["AP"] == "map_cut_{k}"
    for name in ["P@10", "R@100", "Hit@5", "nDCG@10", "AP@5"]:
        m = parse_measure(name)
        assert diagnostics._pytrec_name(name) == (FAMILIES[m.family].pytrec_eval_name(m), None)
    assert diagnostics._pytrec_name("AP") == ("map", None) and diagnostics._pytrec_name("nDCG") == ("ndcg", None)
    assert diagnostics._pytrec_name("RR@10") == ("recip_rank", 10)
    with pytest.raises(ValueError, match="no pytrec_eval counterpart"):
        FAMILIES["Unj"].pytrec_eval_name(parse_measure("Unj@5"))  # pytrec_eval has no unj


@pytest.mark.peers
def test_pytrec_eval_agrees_on_every_root_it_knows(trec_qrels, trec_run):
    """pytrec_eval under the names the registry gives, for each family it knows (trec_eval 9 rounding aside)."""
    import pytrec_eval

    pairs = [(printed, m) for root in TREC_ORDER if trec_root(root) and trec_root(root)[1].pytrec_eval
             and not trec_root(root)[1].note and trec_root(root)[1].per_query for printed, m in trec_expand(root)]
    ev = pytrec_eval.RelevanceEvaluator(trec_qrels, {FAMILIES[m.family].trec_spec(m).root for _, m in pairs})
    theirs = ev.evaluate(trec_run)
    ours = sg.evaluate(trec_qrels, trec_run, [m for _, m in pairs])
    for printed, m in pairs:
        for q in theirs:
            assert ours.loc[q, m.name] == pytest.approx(theirs[q][printed], abs=1e-9), (printed, q)


def test_known_measures_lists_every_family_and_trec_form():
    known = known_measures()
    for fam in FAMILIES.values():
        assert any(k.split("(")[0].split("@")[0].split("[")[0] == fam.name for k in known), fam.name
    for form in ["P_k", "iprec_at_recall_r", "Rprec_mult_m", "set_F[_beta2]", "utility[_a,b,c,d]",
                 "rbp[_p=x,grade=gain,...]", "ndcg[_grade=gain,...]", "11pt_avg[_x,y,...]"]:
        assert form in known


def test_set_f_parameter_is_beta_squared_in_trec_eval():
    # trec_eval's set_F.x computes (x+1)PR/(xP+R): x is beta^2 (m_set_F.c), SetF(beta2=x)
    P, R = 2 / 5, 2 / 3
    value = sg.score_ranking(["a", "b", "c", "e", "x"], QRELS["q1"], ["set_F_4"])["set_F_4"]
    assert value == (4 + 1.0) * P * R / (4 * P + R)
    assert parse_measure("set_F_0.5").params["beta2"] == 0.5
    assert parse_measure("SetF(beta=2)").key == parse_measure("SetF(beta2=4)").key  # one measure
    assert parse_measure("SetF(beta=2)").key != parse_measure("SetF(beta=3)").key
    with pytest.raises(ValueError, match="cannot be combined"):
        parse_measure("SetF(beta=2,beta2=4)")
    with pytest.raises(ValueError, match="requested twice"):
        sg.evaluate(QRELS, RUN, ["SetF(beta=2)", "set_F_4"])
    x = 0.5  # beta = sqrt(0.5) squared is not 0.5: the two differ in the last bits, beta2 is trec_eval's
    P, R = 1.0, 1 / 3  # "a" retrieved alone; 3 relevant
    assert sg.score_ranking(["a"], QRELS["q1"], ["SetF(beta2=0.5)"])["SetF(beta2=0.5)"] == (x + 1.0) * P * R / (
        x * P + R)
    assert np.isfinite(value) and math.sqrt(x) ** 2 != x


def test_measure_table_lists_every_family_with_its_defaults():
    """The API appendix's table is generated from the registry: one row per family, parseable names."""
    table = sg.measure_table()
    assert list(table.index) == list(FAMILIES)
    assert "p=0.8" in table.loc["RBP", "parameters"]
    assert table.loc["GMAP", "over queries"] == "gmean"
    assert table.loc["P", "trec_eval"] == "P_k"
    for name, row in table.iterrows():
        suffix = {"@k required": "@10", "@r (recall level)": "@0.5"}.get(row["cut-off"], "")
        assert sg.parse_measure(name + suffix).family == name


def test_the_closed_form_list_of_evaluator_is_the_registrys():
    """Evaluator's docstring names the families with a closed form under ties="expected" from the registry rows."""
    import re

    import searchgrade as sg

    doc = " ".join(sg.Evaluator.__doc__.split())
    listed = re.search(r"exact in closed form for (.*?); other measures", doc).group(1).split(", ")
    assert listed == [f.name for f in FAMILIES.values() if f.expected]
    assert "RprecMult" in listed
