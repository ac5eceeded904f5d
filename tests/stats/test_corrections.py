"""Corrections for many tests (stats.adjust, Tukey's HSD) against statsmodels, and their use in pairwise/compare."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from searchgrade import stats
from searchgrade.comparison import compare
from tests.support.examples import examples

SM_NAMES = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}

p_families = st_.lists(st_.one_of(st_.floats(0.0, 1.0), st_.sampled_from([0.0, 0.01, 0.05, 1.0])),
                       min_size=1, max_size=60)


@pytest.mark.peers
@settings(max_examples=examples(80), deadline=None)
@given(p_families, st_.sampled_from(sorted(SM_NAMES)))
def test_adjust_equals_statsmodels_multipletests(p, method):
    from statsmodels.stats.multitest import multipletests

    theirs = multipletests(np.array(p), method=SM_NAMES[method])[1]
    np.testing.assert_allclose(stats.adjust(p, method), theirs, rtol=0, atol=1e-9)


def test_adjust_keeps_a_series_index_and_holm_is_the_one_implementation():
    p = pd.Series([0.01, 0.04, 0.03], index=["x", "y", "z"], name="p")
    out = stats.adjust(p, "bh")
    assert list(out.index) == ["x", "y", "z"] and out.name == "p"
    np.testing.assert_array_equal(stats.adjust(p, "holm"), stats.holm(p))
    assert stats.multiple.holm is stats.corrections.holm


def test_adjust_refuses_bad_p_values():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]; position\(s\) 1 hold 1.5"):
        stats.adjust([0.1, 1.5], "bh")
    with pytest.raises(ValueError, match="must lie in"):
        stats.adjust([-0.01], "by")
    with pytest.raises(ValueError, match="NaN p-value"):
        stats.adjust([0.1, np.nan], "bonferroni")
    with pytest.raises(ValueError, match="empty family"):
        stats.adjust([], "holm")
    with pytest.raises(ValueError, match="unknown correction method 'sidak'"):
        stats.adjust([0.1], "sidak")
    with pytest.raises(TypeError, match="must be numbers"):
        stats.adjust(["a"], "holm")


@st_.composite
def score_tables(draw):
    """queries x systems scores in [0, 1] with ties: 2-6 systems, 3-40 queries."""
    k, n = draw(st_.integers(2, 6)), draw(st_.integers(3, 40))
    rng = np.random.default_rng(draw(st_.integers(0, 2**32 - 1)))
    shift = rng.random(k) * draw(st_.floats(0.0, 0.5))
    scores = np.clip(np.round(rng.random((n, k)) * 0.8 + shift, 1), 0, 1)
    return pd.DataFrame(scores, columns=[f"s{j}" for j in range(k)])


@pytest.mark.peers
@settings(max_examples=examples(15), deadline=None)          # scipy's studentized range integrates numerically: slow
@given(score_tables())
def test_parametric_tukey_equals_statsmodels(scores):
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    if (scores.var(axis=0) == 0).all():
        return                                  # no within-system variance: statsmodels divides by 0
    ours = stats.tukey_hsd(scores, method="parametric")
    n = len(scores)
    theirs = pairwise_tukeyhsd(scores.to_numpy().T.ravel(), np.repeat(scores.columns, n))
    np.testing.assert_allclose(ours["p_value"], theirs.pvalues, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours["mean_diff"], -np.asarray(theirs.meandiffs), atol=1e-12)


def test_randomized_tukey_matches_exact_enumeration():
    scores = pd.DataFrame({"a": [0.9, 0.4, 0.7], "b": [0.2, 0.5, 0.1], "c": [0.3, 0.0, 0.6]})
    m = scores.to_numpy()
    ranges = []
    for perms in itertools.product(itertools.permutations(range(3)), repeat=3):
        means = np.array([m[q, list(p)] for q, p in enumerate(perms)]).mean(axis=0)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    out = stats.tukey_hsd(scores, n_perm=40_000, seed=11)
    for _, row in out.iterrows():
        exact = np.mean(ranges >= abs(row["mean_diff"]) - 1e-12)
        assert row["p_value"] == pytest.approx(exact, abs=0.01)


def test_randomized_tukey_is_seeded_and_separates_a_clear_difference():
    rng = np.random.default_rng(5)
    scores = pd.DataFrame(rng.random((25, 4)), columns=list("abcd"))
    scores["d"] += 0.8
    one = stats.tukey_hsd(scores, n_perm=2_000, seed=9)
    assert one.equals(stats.tukey_hsd(scores, n_perm=2_000, seed=9))
    assert (one["p_value"] >= 1 / 2_001).all() and (one["p_value"] <= 1).all()
    far = one[(one["b"] == "d")]["p_value"]
    near = one[(one["b"] != "d")]["p_value"]
    assert far.max() < 0.01 < near.min()


def test_tukey_bad_input():
    with pytest.raises(ValueError, match="unknown Tukey method"):
        stats.tukey_hsd(pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, 0.0]}), method="scheffe")
    with pytest.raises(ValueError, match="at least 2 systems"):
        stats.tukey_hsd(pd.DataFrame({"a": [1.0, 2.0]}))
    with pytest.raises(ValueError, match="system 'b' has NaN"):
        stats.tukey_hsd(pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, 0.0]}))
    with pytest.raises(TypeError, match="DataFrame with one row per query"):
        stats.tukey_hsd([[1.0, 2.0], [0.0, 1.0]])


def _systems(seed=2, n=30):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(n)]
    return {name: pd.Series(np.clip(rng.random(n) + push, 0, 1), index=ids)
            for name, push in [("bm25", 0.0), ("dense", 0.15), ("hybrid", 0.3)]}


@pytest.mark.parametrize("method", ["bonferroni", "holm", "bh", "by"])
def test_pairwise_and_measurewise_use_adjust(method):
    systems = _systems()
    out = stats.pairwise(systems, test="t", correction=method)
    np.testing.assert_array_equal(out[f"p_{method}"], stats.adjust(out["p_value"].to_numpy(), method))
    assert (out["significant"] == (out[f"p_{method}"] <= 0.05)).all()
    df_a = pd.DataFrame({"AP": systems["bm25"], "RR": systems["dense"]})
    df_b = pd.DataFrame({"AP": systems["hybrid"], "RR": systems["bm25"]})
    two = stats.measurewise(df_a, df_b, test="t", correction=method)
    np.testing.assert_array_equal(two[f"p_{method}"], stats.adjust(two["p_value"].to_numpy(), method))


@pytest.mark.peers
def test_pairwise_tukey_equals_tukey_hsd():
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    systems = _systems()
    wide = pd.DataFrame(systems)
    out = stats.pairwise(systems, test="t", correction="tukey", n_perm_tukey=1_000, tukey_seed=3)
    np.testing.assert_array_equal(out["p_tukey"], stats.tukey_hsd(wide, n_perm=1_000, seed=3)["p_value"])
    par = stats.pairwise(systems, test="t", correction="tukey-parametric")
    theirs = pairwise_tukeyhsd(wide.to_numpy().T.ravel(), np.repeat(wide.columns, len(wide)))
    np.testing.assert_allclose(par["p_tukey"], theirs.pvalues, atol=1e-9)


def _tables():
    return {name: s.to_frame("AP").assign(RR=s ** 2) for name, s in _systems(seed=4).items()}


@pytest.mark.parametrize("method, words", [("bonferroni", "Bonferroni-adjusted"), ("holm", "Holm-adjusted"),
                                           ("bh", "Benjamini-Hochberg (FDR)-adjusted"),
                                           ("by", "Benjamini-Yekutieli (FDR)-adjusted")])
def test_top_level_compare_corrections_and_their_legends(method, words):
    tables = _tables()
    rep = compare(None, tables, ["AP", "RR"], test="t", correction=method)
    for measure, group in rep.tests.groupby("measure"):
        np.testing.assert_array_equal(group["p_adjusted"], stats.adjust(group["p_value"].to_numpy(), method))
    for text in (str(rep), rep.to_markdown(), rep.to_html()):
        assert words in text
    latex = rep.to_latex(caption=rep.legend())
    assert words.split(" (")[0] in latex


@pytest.mark.peers
def test_top_level_compare_tukey():
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    tables = _tables()
    rep = compare(None, tables, ["AP", "RR"], correction="tukey-parametric")
    for measure, group in rep.tests.groupby("measure"):
        wide = pd.DataFrame({n: t[measure] for n, t in tables.items()})
        theirs = pairwise_tukeyhsd(wide.to_numpy().T.ravel(), np.repeat(wide.columns, len(wide)))
        np.testing.assert_allclose(group["p_adjusted"], theirs.pvalues, atol=1e-9)
    assert "parametric Tukey HSD" in rep.legend()
    rnd = compare(None, tables, ["AP"], correction="tukey", n_perm=1_000, seed=8)
    wide = pd.DataFrame({n: t["AP"] for n, t in tables.items()})
    np.testing.assert_array_equal(rnd.tests["p_adjusted"], stats.tukey_hsd(wide, n_perm=1_000, seed=8)["p_value"])
    assert "randomised Tukey HSD" in rnd.legend() and "1,000 shuffles, seed 8" in rnd.legend()
    base = compare(None, tables, ["AP"], baseline="hybrid", correction="tukey", n_perm=1_000, seed=8)
    for _, row in base.tests.iterrows():
        full = rnd.tests[(rnd.tests["system_a"] == row["system_b"]) & (rnd.tests["system_b"] == "hybrid")]
        assert row["p_adjusted"] == full["p_adjusted"].iloc[0]
