"""Tests for searchgrade.comparison (searchgrade.compare): the report's numbers equal evaluate/aggregate and stats, its renderings, its refusals."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg
from searchgrade import stats
from searchgrade.comparison import Comparison, compare, letter

MEASURES = ["nDCG@10", "AP", "P@5", "RR"]


def _collection(n_queries=30, n_docs=15, seed=3):
    """Random graded qrels and four runs of increasing quality (scores pushed up by the grade)."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(n_docs)} for i in range(n_queries)}
    runs = {}
    for name, push in [("bm25", 0.0), ("dense", 0.4), ("hybrid", 0.8), ("twin", 0.8)]:
        runs[name] = {q: {d: float(rng.random() + push * g) for d, g in docs.items()} for q, docs in qrels.items()}
    return qrels, runs


QRELS, RUNS = _collection()


@pytest.fixture(scope="module")
def report() -> Comparison:
    return compare(QRELS, RUNS, MEASURES)


def test_means_equal_evaluate_and_aggregate(report):
    for name, run in RUNS.items():
        expected = sg.aggregate(sg.evaluate(QRELS, run, MEASURES))
        pd.testing.assert_series_equal(report.means.loc[name].astype(float), expected.astype(float),
                                       check_names=False)
    # evaluate options reach the evaluator: the same as evaluate(..., ties="input", rel_level=2)
    strict = compare(QRELS, RUNS, ["P@5", "NumRet", "GMAP"], ties="input", rel_level=2, test="t")
    for name, run in RUNS.items():
        expected = sg.aggregate(sg.evaluate(QRELS, run, ["P@5", "NumRet", "GMAP"], ties="input", rel_level=2))
        assert list(strict.means.loc[name]) == list(expected)
    assert strict.means["NumRet"].dtype.kind == "i"            # counts are summed, as aggregate does


@pytest.mark.parametrize("test, fn", [("permutation", stats.permutation_test), ("t", stats.t_test),
                                      ("sign", stats.sign_test)])
def test_p_values_equal_the_stats_functions(test, fn):
    rep = compare(QRELS, RUNS, MEASURES, test=test, n_perm=2_000, seed=5)
    per_query = {name: sg.evaluate(QRELS, run, MEASURES) for name, run in RUNS.items()}
    assert len(rep.tests) == len(MEASURES) * 6
    for _, row in rep.tests.iterrows():
        x, y = per_query[row["system_a"]][row["measure"]], per_query[row["system_b"]][row["measure"]]
        kwargs = {"n_perm": 2_000, "seed": 5} if test == "permutation" else {}
        assert row["p_value"] == fn(x, y, **kwargs).p_value
        assert row["mean_a"] == pytest.approx(x.mean()) and row["mean_b"] == pytest.approx(y.mean())
        assert row["diff"] == pytest.approx((x - y).mean())
        assert (row["wins"], row["ties"], row["losses"]) == ((x > y).sum(), (x == y).sum(), (x < y).sum())
        assert row["n"] == len(QRELS)


def test_one_measure_agrees_with_stats_pairwise(report):
    per_query = {name: sg.evaluate(QRELS, run, ["AP"])["AP"] for name, run in RUNS.items()}
    ref = stats.pairwise(per_query)
    ours = report.tests[report.tests["measure"] == "AP"].reset_index(drop=True)
    assert list(zip(ours["system_a"], ours["system_b"])) == list(zip(ref["a"], ref["b"]))
    np.testing.assert_array_equal(ours["p_value"], ref["p_value"])
    np.testing.assert_array_equal(ours["p_adjusted"], ref["p_holm"])
    np.testing.assert_array_equal(ours["significant"], ref["significant"])


def test_same_seed_same_p_values_and_the_seed_matters(report):
    again = compare(QRELS, RUNS, MEASURES)
    pd.testing.assert_frame_equal(report.tests, again.tests)
    other = compare(QRELS, RUNS, MEASURES, seed=99)
    monte_carlo = report.tests["p_value"] > 2 / 10_001      # pairs whose p-value is not at the floor
    assert (report.tests.loc[monte_carlo, "p_value"] != other.tests.loc[monte_carlo, "p_value"]).any()


def test_holm_families(report):
    t = report.tests
    for measure, group in t.groupby("measure"):
        np.testing.assert_array_equal(group["p_adjusted"], stats.holm(group["p_value"].to_numpy()))
    everything = compare(QRELS, RUNS, MEASURES, family="all")
    np.testing.assert_array_equal(everything.tests["p_adjusted"], stats.holm(t["p_value"].to_numpy()))
    by_pair = compare(QRELS, RUNS, MEASURES, family="pair")
    for _, group in by_pair.tests.groupby(["system_a", "system_b"]):
        np.testing.assert_array_equal(group["p_adjusted"], stats.holm(group["p_value"].to_numpy()))
    raw = compare(QRELS, RUNS, MEASURES, correction=None)
    assert (raw.tests["p_adjusted"] == raw.tests["p_value"]).all()
    for rep in (report, everything, by_pair, raw):
        assert (rep.tests["significant"] == (rep.tests["p_adjusted"] <= 0.05)).all()
    assert everything.tests["p_adjusted"].ge(t["p_adjusted"]).all()       # a larger family is stricter
    assert "Holm-adjusted over all tests" in everything.legend()


def test_markers_agree_with_significant(report):
    marks, lett = report.markers(), report.letters
    assert lett == {"bm25": "a", "dense": "b", "hybrid": "c", "twin": "d"}
    assert report.tests["significant"].any() and not report.tests["significant"].all()
    for _, row in report.tests.iterrows():
        a, b, m = row["system_a"], row["system_b"], row["measure"]
        winner, loser = (a, b) if row["diff"] > 0 else (b, a)
        assert (lett[loser] in marks.loc[winner, m]) == bool(row["significant"] and row["diff"] != 0)
        assert lett[winner] not in marks.loc[loser, m]
    # hybrid and twin are equally good: neither beats the other, both beat bm25
    assert "d" not in marks.loc["hybrid", "nDCG@10"] and "a" in marks.loc["hybrid", "nDCG@10"]
    assert report.beaten("bm25", "AP") == []


def test_baseline_tests_only_its_pairs():
    rep = compare(QRELS, RUNS, MEASURES, baseline="dense", test="t")
    assert set(rep.tests["system_a"]) == {"dense"}
    assert list(rep.tests["system_b"].unique()) == ["bm25", "hybrid", "twin"]
    assert len(rep.tests) == 3 * len(MEASURES)
    marks = rep.markers()
    for m in MEASURES:
        assert set(marks.loc["hybrid", m]) <= {"b"} and set(marks.loc["bm25", m]) <= {"b"}
    assert "a" in marks.loc["dense", "nDCG@10"]                # dense beats bm25
    assert np.isnan(rep.matrix("AP").loc["bm25", "hybrid"])    # not a tested pair
    assert "against the baseline dense (b)" in rep.legend()


def test_matrix_reads_from_the_row(report):
    diff = report.matrix("nDCG@10")
    np.testing.assert_allclose(diff.to_numpy(dtype=float), -diff.to_numpy(dtype=float).T)
    row = report.tests.iloc[0]
    assert diff.loc[row["system_a"], row["system_b"]] == row["diff"]
    wins = report.matrix("nDCG@10", "wins")
    assert wins.loc[row["system_b"], row["system_a"]] == row["losses"]
    p = report.matrix("nDCG@10", "p_adjusted")
    assert p.loc[row["system_b"], row["system_a"]] == p.loc[row["system_a"], row["system_b"]] == row["p_adjusted"]
    wtl = report.win_tie_loss("AP")
    assert list(wtl.columns) == ["system_a", "system_b", "wins", "ties", "losses"] and len(wtl) == 6
    assert (wtl[["wins", "ties", "losses"]].sum(axis=1) == len(QRELS)).all()
    with pytest.raises(KeyError, match="no measure 'R@5'"):
        report.matrix("R@5")
    with pytest.raises(KeyError, match="value must be one of"):
        report.matrix("AP", "system_a")


def test_per_query_tables_give_the_same_report(report):
    tables = {name: sg.evaluate(QRELS, run, MEASURES + ["R@100"]) for name, run in RUNS.items()}
    from_tables = compare(None, tables, MEASURES)
    pd.testing.assert_frame_equal(from_tables.tests, report.tests)
    pd.testing.assert_frame_equal(from_tables.means, report.means)
    # a mixture: one run still to score, the others evaluated
    mixed = compare(QRELS, {**tables, "bm25": RUNS["bm25"]}, MEASURES)
    pd.testing.assert_frame_equal(mixed.means.loc[report.systems], report.means.loc[report.systems])


def test_runs_in_other_forms_go_through_io(report, tmp_path):
    frame = pd.DataFrame([(q, d, s) for q, docs in RUNS["dense"].items() for d, s in docs.items()],
                         columns=["query_id", "doc_id", "score"])
    from_frame = compare(QRELS, {**RUNS, "dense": frame}, MEASURES)
    pd.testing.assert_frame_equal(from_frame.tests, report.tests)
    sg.write_qrels(QRELS, tmp_path / "qrels.txt")
    sg.write_run(RUNS["bm25"], tmp_path / "bm25.run")
    from_files = compare(tmp_path / "qrels.txt", {"bm25": tmp_path / "bm25.run", "dense": RUNS["dense"]}, ["AP"],
                         test="t")
    expected = sg.aggregate(sg.evaluate(QRELS, sg.read_run(tmp_path / "bm25.run"), ["AP"]))
    assert from_files.means.loc["bm25", "AP"] == expected["AP"]
    with pytest.raises(TypeError):
        compare(QRELS, {"bm25": RUNS["bm25"], "dense": 3.5}, ["AP"])


def test_text_markdown_html_render_the_markers(report):
    text = str(report)
    lines = text.splitlines()
    assert lines[0].split() == ["#", "system", *MEASURES]
    assert len(lines) == 2 + 4 + 1 and lines[-1].startswith("Letters after a mean")
    hybrid = report.table().loc["hybrid"]
    mean = report.means.loc["hybrid", "nDCG@10"]
    assert hybrid["nDCG@10"] == f"{mean:.3f} {report.markers().loc['hybrid', 'nDCG@10']}"
    assert f"{mean:.3f} {report.markers().loc['hybrid', 'nDCG@10']}" in lines[4]
    md = report.to_markdown(letter_header="기호", system_header="검색기", legend=False).strip().splitlines()
    assert md[0] == "| 기호 | 검색기 | " + " | ".join(MEASURES) + " |"
    assert len(md) == 2 + 4 and all(line.count("|") == len(MEASURES) + 3 for line in md)
    sups = re.findall(r"<sup>([a-z]+)</sup>", "\n".join(md))
    assert "".join(sups) == "".join(report.markers().to_numpy().ravel())
    page = report._repr_html_()
    assert page.count("<tr>") == 5 and page.count("<sup>") == len(sups)
    assert "<caption>KorQuAD</caption>" in report.to_html(caption="KorQuAD")


def test_tukey_is_the_test_that_decides_and_the_legend_says_so():
    tables = {name: sg.evaluate(QRELS, run, ["AP"]) for name, run in RUNS.items()}
    par = compare(None, tables, ["AP"], correction="tukey-parametric")
    assert par.test is None and par.decided_by == "tukey-parametric"
    assert par.tests["p_value"].isna().all()                  # no pairwise test ran beside Tukey's
    wide = pd.DataFrame({n: t["AP"] for n, t in tables.items()})
    np.testing.assert_array_equal(par.tests["p_adjusted"], stats.tukey_hsd(wide, method="parametric")["p_value"])
    legend = par.legend()
    assert "parametric Tukey HSD over all 4 systems (one-way layout: the systems read as unpaired samples" in legend
    assert "paired t-test" not in legend and "randomization" not in legend and "-adjusted" not in legend
    rnd = compare(None, tables, ["AP"], correction="tukey", n_perm=500, seed=2)
    assert rnd.tests["p_value"].isna().all() and "sign flips" not in rnd.legend()
    assert "randomised Tukey HSD" in rnd.legend() and "500 shuffles, seed 2" in rnd.legend()
    assert "tukey" in repr(rnd)


@pytest.mark.parametrize("test", ["t", "permutation", "sign"])
@pytest.mark.parametrize("correction", ["tukey", "tukey-parametric"])
def test_a_pairwise_test_beside_tukey_is_refused(test, correction):
    with pytest.raises(ValueError, match=rf"correction='{correction}' is itself the test that decides.*test='{test}' "
                                         r"would never be used: leave test out, or keep test='.*' with correction='holm'"):
        compare(QRELS, RUNS, ["AP"], test=test, correction=correction)


def test_the_default_test_is_the_permutation_test():
    rep = compare(QRELS, RUNS, ["AP"], n_perm=500, seed=4)
    assert rep.test == "permutation" and rep.decided_by == "permutation"
    assert "paired randomization test, 500 sign flips, seed 4" in rep.legend()


@pytest.mark.filterwarnings("ignore:.*qrels quer")   # evaluate() notes the queries a run lacks
def test_query_alignment():
    partial = {**RUNS, "dense": {q: docs for q, docs in RUNS["dense"].items() if q not in ("q3", "q7")}}
    with pytest.raises(ValueError, match=r"different queries: 28 queries are shared; 'bm25' has 2 more"):
        compare(QRELS, partial, MEASURES)
    with pytest.warns(UserWarning, match="comparing on the 28 queries every system has"):
        inter = compare(QRELS, partial, MEASURES, on="intersection", test="t")
    assert inter.n_queries == 28 and sorted(inter.dropped) == ["bm25", "hybrid", "twin"]
    assert sorted(inter.dropped["bm25"]) == ["q3", "q7"]
    kept = [q for q in QRELS if q not in ("q3", "q7")]
    expected = sg.aggregate(sg.evaluate(QRELS, RUNS["bm25"], MEASURES).loc[kept])
    np.testing.assert_allclose(inter.means.loc["bm25"].astype(float), expected.astype(float))
    # missing="zero" scores the missing queries as empty rankings: one query set, nothing dropped
    zero = compare(QRELS, partial, MEASURES, missing="zero", test="t")
    assert zero.n_queries == 30 and zero.dropped == {}
    assert zero.per_query["dense"].loc["q3"].eq(0).all()


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unknown baseline 'bm26'"):
        compare(QRELS, RUNS, MEASURES, baseline="bm26")
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare(QRELS, {"bm25": RUNS["bm25"]}, MEASURES)
    with pytest.raises(ValueError, match="unknown test 'wilcoxon'"):
        compare(QRELS, RUNS, MEASURES, test="wilcoxon")
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        compare(QRELS, RUNS, MEASURES, correction="sidak")
    with pytest.raises(ValueError, match="needs family='measure'"):
        compare(QRELS, RUNS, MEASURES, correction="tukey", family="all")
    with pytest.raises(ValueError, match="unknown family 'system'"):
        compare(QRELS, RUNS, MEASURES, family="system")
    with pytest.raises(ValueError, match="alpha must be"):
        compare(QRELS, RUNS, MEASURES, alpha=5)
    with pytest.raises(TypeError, match=r"mapping \{name: run\}"):
        compare(QRELS, list(RUNS.values()), MEASURES)
    with pytest.raises(ValueError, match="on must be 'strict' or 'intersection'"):
        compare(QRELS, RUNS, MEASURES, on="union")
    with pytest.raises(TypeError, match="measures must be a measure name or a list"):
        compare(QRELS, RUNS, None)
    with pytest.raises(ValueError, match="measures requested twice"):
        compare(QRELS, RUNS, ["AP", "AP"])
    with pytest.raises(ValueError, match="unknown measure|not a known measure|measure"):
        compare(QRELS, RUNS, ["nDCG@ten"])
    tables = {name: sg.evaluate(QRELS, run, ["AP"]) for name, run in RUNS.items()}
    with pytest.raises(ValueError, match="evaluate options"):
        compare(None, tables, ["AP"], missing="zero")
    with pytest.raises(ValueError, match="qrels are needed"):
        compare(None, RUNS, ["AP"])
    with pytest.raises(ValueError, match=r"'bm25': the per-query table has no column for \['P@5'\]"):
        compare(None, tables, ["AP", "P@5"])
    tables["dense"].loc["q4", "AP"] = np.nan
    with pytest.raises(ValueError, match=r"'dense AP'.*NaN.*'q4'"):
        compare(None, tables, ["AP"])


def test_letters_after_z():
    assert [letter(i) for i in (0, 25, 26, 27, 51, 52)] == ["a", "z", "aa", "ab", "az", "ba"]
    rng = np.random.default_rng(1)
    index = pd.Index([f"q{i}" for i in range(12)], name="qid")
    tables = {f"s{i}": pd.DataFrame({"AP": np.clip(rng.random(12) + i / 20, 0, 2)}, index=index)
              for i in range(28)}
    rep = compare(None, tables, ["AP"], test="t", correction=None)
    assert rep.letters["s27"] == "ab" and len(rep.tests) == 28 * 27 // 2
    marked = [m for m in rep.markers()["AP"] if m]
    assert marked and all(re.fullmatch(r"[a-z]+(,[a-z]+)*", m) for m in marked)
    beaten = rep.beaten("s27", "AP")
    assert rep.markers().loc["s27", "AP"] == ",".join(rep.letters[s] for s in beaten)


def test_pairs_are_every_combination_in_input_order(report):
    pairs = list(dict.fromkeys(zip(report.tests["system_a"], report.tests["system_b"])))
    assert pairs == list(itertools.combinations(["bm25", "dense", "hybrid", "twin"], 2))
    assert list(report.tests.columns[:9]) == ["measure", "system_a", "system_b", "mean_a", "mean_b", "diff",
                                              "p_value", "p_adjusted", "significant"]
