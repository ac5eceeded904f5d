"""Tests for searchgrade.stats: paired tests against scipy, null calibration, swap rates, rank agreement."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from searchgrade import stats as st


def _series(values, prefix="q", name=None):
    """Per-query scores indexed by q0, q1, ... (as evaluate() returns them)."""
    return pd.Series(np.asarray(values, dtype=float),
                     index=pd.Index([f"{prefix}{i}" for i in range(len(values))], name="qid"), name=name)


def _pair(n, shift=0.0, noise=0.2, seed=0):
    """Two correlated systems on n queries: b ~ Beta(2, 2), a = b + shift + noise (not clipped)."""
    rng = np.random.default_rng(seed)
    b = rng.beta(2, 2, n)
    a = b + shift + rng.normal(0.0, noise, n)
    return _series(a, name="A"), _series(b, name="B")


def _scipy_exact_perm_p(x, y):
    """scipy's exact paired permutation p-value for the mean difference (all 2**n sign patterns)."""
    res = sps.permutation_test((x, y), lambda u, v, axis: np.mean(u - v, axis=axis),
                               permutation_type="samples", n_resamples=np.inf, alternative="two-sided")
    return res.pvalue


# ----------------------------------------------------------------------------- against scipy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_test_matches_scipy_ttest_rel(seed):
    a, b = _pair(40, shift=0.03, seed=seed)
    ours = st.t_test(a, b)
    ref = sps.ttest_rel(a.to_numpy(), b.to_numpy())
    assert ours.t == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert ours.df == 39 and ours.n == 40
    assert ours.mean_diff == pytest.approx(float((a - b).mean()))


def test_t_test_degenerate_differences():
    a = _series([0.25, 0.5, 0.75])               # binary fractions: a + 0.125 - a is exactly 0.125
    assert st.t_test(a, a).p_value == 1.0 and st.t_test(a, a).t == 0.0
    shifted = st.t_test(a + 0.125, a)
    assert shifted.p_value == 0.0 and shifted.t == math.inf
    with pytest.raises(ValueError, match="at least 2 queries"):
        st.t_test([0.3], [0.1])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_sign_test_matches_scipy_binomtest_with_ties_dropped(seed):
    rng = np.random.default_rng(seed)
    # discrete scores (like P@10) so that many queries tie
    a = _series(rng.integers(0, 4, 60) / 10)
    b = _series(rng.integers(0, 4, 60) / 10)
    ours = st.sign_test(a, b)
    up = int((a > b).sum())
    down = int((a < b).sum())
    assert (ours.up, ours.down, ours.ties, ours.n) == (up, down, 60 - up - down, 60)
    assert ours.ties > 0
    assert ours.p_value == pytest.approx(sps.binomtest(up, up + down, 0.5).pvalue, rel=1e-10)


def test_sign_test_examples_from_the_repeated_measurement_article():
    # 35 queries up, 15 down -> p about 0.007; 25 up, 24 down -> p = 1.0
    before = _series(np.zeros(50))
    after = _series([1.0] * 35 + [-1.0] * 15)
    assert round(st.sign_test(after, before).p_value, 3) == 0.007
    before = _series(np.zeros(49))
    after = _series([1.0] * 25 + [-1.0] * 24)
    assert st.sign_test(after, before).p_value == 1.0
    # ties are dropped: ten unchanged queries do not move the p-value
    with_ties = st.sign_test(np.r_[[1.0] * 35 + [-1.0] * 15, np.zeros(10)], np.zeros(60))
    assert with_ties.ties == 10
    assert with_ties.p_value == pytest.approx(sps.binomtest(35, 50).pvalue)
    assert st.sign_test(np.ones(5), np.ones(5)).p_value == 1.0


@pytest.mark.parametrize("n,seed", [(8, 0), (10, 1), (12, 2)])
def test_exact_permutation_test_equals_scipy_exact(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(0.5, 0.2, n), rng.normal(0.4, 0.2, n)
    ours = st.permutation_test(x, y)          # 2**n <= 10,000: enumerated exactly
    assert ours.exact and ours.n_perm == 2 ** n
    assert ours.p_value == pytest.approx(_scipy_exact_perm_p(x, y), abs=1e-12)


def test_exact_permutation_test_counts_ties_of_discrete_scores_like_scipy():
    # differences on a 0.1 grid: many sign patterns give exactly the observed |sum|
    x = np.array([0.3, 0.5, 0.1, 0.4, 0.2, 0.6, 0.3, 0.2, 0.5, 0.1])
    y = np.array([0.2, 0.4, 0.2, 0.3, 0.1, 0.5, 0.3, 0.1, 0.4, 0.2])
    ours = st.permutation_test(x, y)
    assert ours.exact
    assert ours.p_value == pytest.approx(_scipy_exact_perm_p(x, y), abs=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_monte_carlo_permutation_test_within_error_of_scipy_exact(seed):
    rng = np.random.default_rng(seed)
    n = 15                                     # 2**15 > 10,000: Monte Carlo by default
    x, y = rng.normal(0.5, 0.2, n), rng.normal(0.42, 0.2, n)
    exact = _scipy_exact_perm_p(x, y)
    ours = st.permutation_test(x, y, seed=seed)
    assert not ours.exact and ours.n_perm == 10_000
    se = math.sqrt(exact * (1 - exact) / 10_000)
    assert abs(ours.p_value - exact) <= 4 * se + 1 / 10_001
    assert 0.01 < exact < 0.9                  # the comparison is not trivially at an extreme
    # our own exact enumeration agrees with scipy too
    assert st.permutation_test(x, y, exact=True).p_value == pytest.approx(exact, abs=1e-12)


def test_permutation_test_is_seeded_and_uses_plus_one_rule():
    a, b = _pair(200, shift=0.02, seed=5)
    r1, r2 = st.permutation_test(a, b), st.permutation_test(a, b)
    assert r1 == r2 and r1.seed == st.DEFAULT_SEED
    other = st.permutation_test(a, b, seed=99)
    assert other.p_value != r1.p_value
    assert abs(other.p_value - r1.p_value) < 0.03
    # p is a multiple of 1 / (n_perm + 1), never 0
    k = r1.p_value * 10_001
    assert k == pytest.approx(round(k), abs=1e-6)
    huge = st.permutation_test(a + 1.0, b, n_perm=500)
    assert huge.p_value == pytest.approx(1 / 501)
    same = st.permutation_test(a, a)
    assert same.p_value == 1.0 and same.mean_diff == 0.0


def test_permutation_test_sign_convention_and_scale():
    a, b = _pair(300, shift=0.05, seed=6)
    fwd, back = st.permutation_test(a, b), st.permutation_test(b, a)
    assert fwd.mean_diff == pytest.approx(-back.mean_diff)
    assert fwd.mean_diff == pytest.approx(float((a - b).mean()))
    assert fwd.p_value == back.p_value                 # two-sided and symmetric under the same seed
    assert st.permutation_test(a * 10, b * 10).p_value == fwd.p_value


def test_bootstrap_ci_matches_scipy_percentile_bootstrap():
    a, b = _pair(80, shift=0.03, seed=7)
    d = (a - b).to_numpy()
    ours = st.bootstrap_ci(a, b)
    ref = sps.bootstrap((d,), np.mean, n_resamples=10_000, method="percentile",
                        confidence_level=0.95, rng=np.random.default_rng(1)).confidence_interval
    se = d.std(ddof=1) / math.sqrt(d.size)
    assert ours.low < ours.mean_diff < ours.high
    # the ends agree within Monte Carlo error of the two bootstraps (a small share of the SE)
    assert abs(ours.low - ref.low) < 0.1 * se
    assert abs(ours.high - ref.high) < 0.1 * se
    # and the width is about 2 * 1.96 standard errors
    assert (ours.high - ours.low) / (2 * 1.96 * se) == pytest.approx(1.0, abs=0.1)
    assert st.bootstrap_ci(a, b) == ours
    narrow = st.bootstrap_ci(a, b, confidence=0.5)
    assert ours.low < narrow.low < narrow.high < ours.high


def test_bootstrap_ci_coverage():
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(200):
        d = rng.normal(0.05, 0.2, 40)
        ci = st.bootstrap_ci(d, np.zeros(40), n_boot=2000, seed=int(rng.integers(1 << 30)))
        covered += ci.low <= 0.05 <= ci.high
    assert 0.88 <= covered / 200 <= 0.99


# ----------------------------------------------------------------------------- calibration


def _null_pvalues(test, n_pairs=300, n=30, **kwargs):
    """p-values of `test` on n_pairs seeded pairs of systems drawn from the same distribution."""
    rng = np.random.default_rng(20020811)
    out = []
    for _ in range(n_pairs):
        base = rng.beta(2, 5, n)                      # query difficulty shared by both systems
        a = base + rng.normal(0, 0.15, n)
        b = base + rng.normal(0, 0.15, n)
        out.append(test(a, b, **kwargs).p_value)
    return np.array(out)


@pytest.mark.parametrize("test,kwargs", [(st.permutation_test, {"n_perm": 2000}), (st.t_test, {})])
def test_null_p_values_are_uniform(test, kwargs):
    p = _null_pvalues(test, **kwargs)
    share = float((p < 0.05).mean())
    assert 0.02 <= share <= 0.09
    # the whole distribution, not only its 5% tail: a one-sided or halved p-value fails this
    assert sps.kstest(p, "uniform").pvalue > 0.01
    assert 0.4 < np.median(p) < 0.6


def test_null_sign_test_is_valid_but_conservative():
    p = _null_pvalues(st.sign_test)
    assert float((p < 0.05).mean()) <= 0.07
    assert 0.4 < np.median(p) <= 0.8


def test_a_halved_p_value_would_fail_the_uniformity_check():
    # guard for the test above: a broken (one-sided-as-two-sided) p-value is caught
    p = _null_pvalues(st.t_test) / 2
    assert sps.kstest(p, "uniform").pvalue < 0.01


def test_large_difference_is_found_by_every_test():
    a, b = _pair(200, shift=0.15, seed=12)
    assert st.permutation_test(a, b).p_value < 0.001
    assert st.t_test(a, b).p_value < 0.001
    assert st.sign_test(a, b).p_value < 0.001
    ci = st.bootstrap_ci(a, b)
    assert ci.low > 0.1 and ci.high < 0.2


# ----------------------------------------------------------------------------- Holm


def test_holm_hand_example_in_input_order():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max
    np.testing.assert_allclose(st.holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(st.holm([0.5, 0.9]), [1.0, 1.0])
    np.testing.assert_allclose(st.holm([0.2]), [0.2])


def _holm_naive(p):
    """Holm's procedure written as the textbook loop."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def test_holm_matches_textbook_loop_and_keeps_series_index():
    rng = np.random.default_rng(13)
    for _ in range(20):
        p = rng.uniform(0, 0.2, int(rng.integers(1, 15)))
        np.testing.assert_allclose(st.holm(p), _holm_naive(list(p)))
        assert (st.holm(p) >= p).all()
    s = pd.Series([0.04, 0.001, 0.02], index=["x", "y", "z"], name="p")
    adj = st.holm(s)
    assert list(adj.index) == ["x", "y", "z"] and adj.name == "p"
    np.testing.assert_allclose(adj.to_numpy(), [0.04, 0.003, 0.04])


def test_holm_refuses_bad_p_values():
    with pytest.raises(ValueError, match="empty family"):
        st.holm([])
    with pytest.raises(ValueError, match="NaN p-value"):
        st.holm([0.1, float("nan")])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        st.holm([0.1, 1.5])


# ----------------------------------------------------------------------------- tables


def test_pairwise_runs_every_pair_with_holm():
    a, b = _pair(150, shift=0.0, seed=14)
    c = a + 0.1
    table = {"bm25": a, "dense": b, "hybrid": c}
    out = st.pairwise(table)
    assert list(zip(out["a"], out["b"])) == [("bm25", "dense"), ("bm25", "hybrid"), ("dense", "hybrid")]
    np.testing.assert_allclose(out["p_holm"], st.holm(out["p_value"].to_numpy()))
    row = out.iloc[1]
    assert row["mean_diff"] == pytest.approx(-0.1)
    assert row["p_value"] == st.permutation_test(a, c).p_value
    assert bool(row["significant"])
    t_out = st.pairwise(table, test="t", correction=None)
    assert "p_holm" not in t_out
    assert t_out["p_value"].iloc[0] == pytest.approx(st.t_test(a, b).p_value)
    # a wide DataFrame and a dict of evaluate()-style DataFrames give the same table
    wide = st.pairwise(pd.DataFrame(table), test="sign")
    frames = {k: v.to_frame("nDCG@10") for k, v in table.items()}
    by_measure = st.pairwise(frames, test="sign", measure="nDCG@10")
    pd.testing.assert_frame_equal(wide, by_measure)


def test_measurewise_tests_each_measure():
    rng = np.random.default_rng(15)
    qids = pd.Index([f"q{i}" for i in range(120)], name="qid")
    df_a = pd.DataFrame({"nDCG@10": rng.uniform(0, 1, 120), "R@100": rng.uniform(0.5, 1, 120)}, index=qids)
    df_b = pd.DataFrame({"nDCG@10": df_a["nDCG@10"] + rng.normal(0, 0.1, 120),
                         "R@100": df_a["R@100"] - 0.1 + rng.normal(0, 0.1, 120)}, index=qids)
    out = st.measurewise(df_a, df_b)
    assert list(out.index) == ["nDCG@10", "R@100"]
    assert out.loc["R@100", "p_value"] < 0.001
    assert out.loc["R@100", "mean_diff"] == pytest.approx(float((df_a["R@100"] - df_b["R@100"]).mean()))
    assert out.loc["nDCG@10", "p_value"] == st.permutation_test(df_a["nDCG@10"], df_b["nDCG@10"]).p_value
    one = st.measurewise(df_a, df_b, "R@100", test="t")
    assert list(one.index) == ["R@100"]
    with pytest.raises(KeyError, match="no column"):
        st.measurewise(df_a, df_b, "AP")


def test_mean_over_runs():
    r1 = pd.Series({"q1": 0.2, "q2": 0.4})
    r2 = pd.Series({"q2": 0.6, "q1": 0.4})
    mean = st.mean_over_runs([r1, r2])
    assert mean.to_dict() == pytest.approx({"q1": 0.3, "q2": 0.5})
    with pytest.raises(ValueError, match="1 query ids differ|2 query ids differ"):
        st.mean_over_runs([r1, pd.Series({"q1": 0.1, "q3": 0.2})])


# ----------------------------------------------------------------------------- swap rates


def test_swap_rate_identical_systems_disagree_half_the_time():
    a, b = _pair(5000, shift=0.0, noise=0.2, seed=16)
    full = st.swap_rate(a, b, sizes=(10, 25))
    assert full["swap_rate"].between(0.4, 0.6).all()
    disjoint = st.swap_rate(a, b, sizes=(10, 25, 50, 100), variant="disjoint")
    assert disjoint["swap_rate"].between(0.42, 0.58).all()
    assert (disjoint["tie_rate"] == 0).all()
    assert disjoint.attrs["variant"] == "disjoint"


def test_swap_rate_very_different_systems_almost_never_swap():
    a, b = _pair(3000, shift=0.25, noise=0.25, seed=17)
    out = st.swap_rate(a, b)
    assert out.loc[10, "swap_rate"] <= 0.01
    assert (out.loc[[25, 50, 100, 200, 500], "swap_rate"] == 0).all()
    assert (st.swap_rate(a, b, variant="disjoint").loc[[25, 50, 100], "swap_rate"] == 0).all()


def test_swap_rate_falls_with_topic_set_size():
    a, b = _pair(5000, shift=0.03, noise=0.3, seed=18)
    out = st.swap_rate(a, b)
    rates = out["swap_rate"].to_numpy()
    assert (np.diff(rates) <= 0.02).all()
    assert rates[0] > rates[-1] + 0.2
    disjoint = st.swap_rate(a, b, sizes=(10, 50, 200, 1000), variant="disjoint")["swap_rate"].to_numpy()
    assert (np.diff(disjoint) <= 0.02).all() and disjoint[0] > disjoint[-1] + 0.2


def test_swap_rate_matches_the_normal_approximation():
    # P(swap) = Phi(-|D| / (sd / sqrt(N) * sqrt((n - N) / (n - 1)))) for a sample of N out of n
    rng = np.random.default_rng(19)
    n = 4000
    d = rng.normal(0.02, 0.25, n)
    full_diff, sd = d.mean(), d.std(ddof=0)
    out = st.swap_rate(d, np.zeros(n), sizes=(25, 100, 400), n_draws=4000)
    for size in (25, 100, 400):
        se = sd / math.sqrt(size) * math.sqrt((n - size) / (n - 1))
        expected = sps.norm.cdf(-abs(full_diff) / se)
        assert out.loc[size, "swap_rate"] == pytest.approx(expected, abs=0.03)
    # the whole query set never disagrees with itself
    assert st.swap_rate(d, np.zeros(n), sizes=n, n_draws=20).loc[n, "swap_rate"] == 0.0


def test_swap_rate_counts_ties_of_discrete_scores_separately():
    rng = np.random.default_rng(20)
    a = _series(rng.integers(0, 2, 400).astype(float))    # Hit@1-like 0/1 scores
    b = _series(rng.integers(0, 2, 400).astype(float) * (rng.uniform(size=400) < 0.8))
    out = st.swap_rate(a, b, sizes=(10, 50), n_draws=500)
    assert out.loc[10, "tie_rate"] > 0.05
    assert (out["swap_rate"] + out["tie_rate"] <= 1).all()
    # a system never worse on any query: samples can tie but can never reverse the order
    better = b + (rng.uniform(size=400) < 0.1)
    for variant in ("full", "disjoint"):
        never = st.swap_rate(better, b, sizes=(5, 10), n_draws=500, variant=variant)
        assert (never["swap_rate"] == 0).all()
        assert (never["tie_rate"] > 0.2).all()


def test_swap_rates_by_difference_bins_pairs():
    rng = np.random.default_rng(21)
    n = 1000
    base = rng.beta(2, 3, n)
    table = {f"s{k}": _series(base + shift + rng.normal(0, 0.2, n))
             for k, shift in enumerate([0.0, 0.004, 0.03, 0.2])}
    sizes = (10, 25, 50)
    out = st.swap_rates_by_difference(table, sizes=sizes, n_draws=300)
    assert list(out.columns) == ["diff_bin", "N", "n_pairs", "n_comparisons", "swap_rate", "tie_rate"]
    for size in sizes:
        rows = out[out["N"] == size]
        assert rows["n_pairs"].sum() == 6
        assert rows["n_comparisons"].sum() == 6 * 300
    big = out[(out["diff_bin"] == ">= 0.10") & (out["N"] == 25)]
    small = out[(out["diff_bin"] == "[0.00, 0.01)") & (out["N"] == 25)]
    assert int(big["n_pairs"].iloc[0]) == 3 and int(small["n_pairs"].iloc[0]) == 1
    assert float(big["swap_rate"].iloc[0]) < float(small["swap_rate"].iloc[0])
    # a bin holding one pair reproduces swap_rate() of that pair with the same seed
    x, y = table["s0"], table["s1"]
    single = st.swap_rate(x, y, sizes=sizes, n_draws=300)
    np.testing.assert_allclose(out[out["diff_bin"] == "[0.00, 0.01)"]["swap_rate"].to_numpy(),
                               single["swap_rate"].to_numpy())
    empty = out[out["n_comparisons"] == 0]
    assert empty["swap_rate"].isna().all()
    # systems are matched by query id, whatever their row order
    shuffled = dict(table, s1=table["s1"].sample(frac=1.0, random_state=0))
    pd.testing.assert_frame_equal(st.swap_rates_by_difference(shuffled, sizes=sizes, n_draws=300), out)
    by_sample = st.swap_rates_by_difference(table, sizes=(25,), n_draws=300, bin_by="sample",
                                            variant="disjoint")
    assert by_sample["n_comparisons"].sum() == 6 * 300


# ----------------------------------------------------------------------------- rank agreement


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kendall_tau_matches_scipy_with_and_without_ties(seed):
    rng = np.random.default_rng(seed)
    names = [f"sys{i}" for i in range(12)]
    x = rng.uniform(size=12)
    y = x + rng.normal(0, 0.2, 12)
    assert st.kendall_tau(dict(zip(names, x)), dict(zip(names, y))) == pytest.approx(
        sps.kendalltau(x, y).statistic, abs=1e-12)
    xt, yt = np.round(x, 1), np.round(y, 1)          # ties in both
    assert st.kendall_tau(pd.Series(xt, index=names), pd.Series(yt, index=names)) == pytest.approx(
        sps.kendalltau(xt, yt).statistic, abs=1e-12)


def test_kendall_tau_aligns_by_system_name():
    a = {"bm25": 0.3, "dense": 0.5, "hybrid": 0.6}
    b = {"hybrid": 0.9, "bm25": 0.1, "dense": 0.4}
    assert st.kendall_tau(a, b) == 1.0
    assert st.kendall_tau(a, {k: -v for k, v in b.items()}) == -1.0


def test_tau_ap_hand_examples():
    truth = {"A": 4, "B": 3, "C": 2, "D": 1}
    top_swap = {"B": 4, "A": 3, "C": 2, "D": 1}
    bottom_swap = {"A": 4, "B": 3, "D": 2, "C": 1}
    assert st.tau_ap(truth, truth) == 1.0
    assert st.tau_ap({k: -v for k, v in truth.items()}, truth) == -1.0
    # C(2)/1 + C(3)/2 + C(4)/3 = 0 + 1 + 1 and 1 + 1 + 2/3; tau_AP = 2/3 * sum - 1
    assert st.tau_ap(top_swap, truth) == pytest.approx(1 / 3)
    assert st.tau_ap(bottom_swap, truth) == pytest.approx(7 / 9)
    # Kendall's tau cannot tell the two apart
    assert st.kendall_tau(top_swap, truth) == st.kendall_tau(bottom_swap, truth) == pytest.approx(2 / 3)


def _tau_ap_loop(est, ref):
    """tau_AP written from the paper's definition with explicit loops."""
    ranked = sorted(est, key=lambda s: -est[s])
    m = len(ranked)
    total = 0.0
    for i in range(1, m):
        correct = sum(ref[ranked[j]] > ref[ranked[i]] for j in range(i))
        total += correct / i
    return 2 / (m - 1) * total - 1


def test_tau_ap_matches_loop_and_averages_to_zero_over_all_permutations():
    rng = np.random.default_rng(22)
    names = [f"s{i}" for i in range(9)]
    for _ in range(10):
        est = dict(zip(names, rng.permutation(9).astype(float)))
        ref = dict(zip(names, rng.permutation(9).astype(float)))
        assert st.tau_ap(est, ref) == pytest.approx(_tau_ap_loop(est, ref))
        assert st.tau_ap(est, ref, symmetric=True) == pytest.approx(
            (_tau_ap_loop(est, ref) + _tau_ap_loop(ref, est)) / 2)
    ref = {n: float(i) for i, n in enumerate("abcde")}
    values = [st.tau_ap(dict(zip("abcde", map(float, perm))), ref) for perm in itertools.permutations(range(5))]
    assert np.mean(values) == pytest.approx(0.0, abs=1e-12)


# ----------------------------------------------------------------------------- bad input


def test_mismatched_query_sets_are_refused_with_counts_and_examples():
    a = pd.Series({"q1": 0.1, "q2": 0.2, "q3": 0.3, "q4": 0.4})
    b = pd.Series({"q1": 0.1, "q2": 0.2, "q3": 0.3, "q9": 0.5})
    with pytest.raises(ValueError, match=r"2 query ids differ.*'q4'.*'q9'.*on='intersection'"):
        st.permutation_test(a, b)
    with pytest.raises(ValueError, match="query ids differ"):
        st.pairwise({"x": a, "y": b})
    shared = st.t_test(a, b, on="intersection")
    assert shared.n == 3
    # same ids in another order are aligned by id, not position
    assert st.t_test(a, a.iloc[::-1]).mean_diff == 0.0


def test_other_shape_problems_are_refused():
    with pytest.raises(ValueError, match="a has 3 scores but b has 2"):
        st.t_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(TypeError, match="both as Series"):
        st.t_test(pd.Series({"q1": 0.1, "q2": 0.2}), [0.1, 0.2])
    with pytest.raises(TypeError, match="DataFrame .* pass one column"):
        st.t_test(pd.DataFrame({"AP": [0.1, 0.2]}), pd.DataFrame({"AP": [0.1, 0.2]}))
    with pytest.raises(ValueError, match="duplicated query id"):
        st.t_test(pd.Series([0.1, 0.2], index=["q1", "q1"]), pd.Series([0.1, 0.2], index=["q1", "q2"]))
    with pytest.raises(ValueError, match="on must be 'strict' or 'intersection'"):
        st.t_test([0.1, 0.2], [0.3, 0.4], on="union")


@pytest.mark.parametrize("fn", [st.permutation_test, st.t_test, st.sign_test, st.bootstrap_ci, st.swap_rate])
def test_empty_samples_are_refused(fn):
    with pytest.raises(ValueError, match="empty sample"):
        fn([], [])
    with pytest.raises(ValueError, match="empty sample"):
        fn(pd.Series(dtype=float), pd.Series(dtype=float))


def test_no_shared_queries_is_refused_even_with_intersection():
    with pytest.raises(ValueError, match="no query ids in common"):
        st.sign_test(pd.Series({"q1": 0.1}), pd.Series({"q2": 0.2}), on="intersection")


@pytest.mark.parametrize("fn", [st.permutation_test, st.t_test, st.sign_test, st.bootstrap_ci])
def test_nan_scores_are_refused_naming_the_query(fn):
    a = pd.Series({"q1": 0.1, "q2": float("nan"), "q3": 0.3}, name="bm25")
    b = pd.Series({"q1": 0.2, "q2": 0.2, "q3": 0.1})
    with pytest.raises(ValueError, match=r"a \('bm25'\) has NaN scores for 1 queries.*'q2'"):
        fn(a, b)
    with pytest.raises(ValueError, match=r"NaN/infinite.*position"):
        fn([0.1, float("inf")], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"has NaN scores for 1 queries.*'q3'"):
        fn(b, pd.Series([0.1, 0.2, pd.NA], index=["q1", "q2", "q3"], dtype="Float64"))


def test_topic_set_size_larger_than_the_query_set_is_refused():
    a, b = _pair(60, shift=0.05, seed=23)
    with pytest.raises(ValueError, match="N = 100 is larger than the 60 queries"):
        st.swap_rate(a, b, sizes=(10, 100))
    with pytest.raises(ValueError, match=r"N = 40 needs 2N = 80 queries .* only 60"):
        st.swap_rate(a, b, sizes=(40,), variant="disjoint")
    with pytest.raises(ValueError, match="N = 100 is larger than the 60 queries"):
        st.swap_rates_by_difference({"a": a, "b": b, "c": b + 0.1}, sizes=(100,))
    with pytest.raises(ValueError, match="unknown variant 'halves'"):
        st.swap_rate(a, b, variant="halves")
    with pytest.raises(ValueError, match="same mean on the full query set"):
        st.swap_rate(a, a.copy(), sizes=(10,))


def test_unknown_test_name_is_refused_listing_the_known_ones():
    a, b = _pair(20, seed=24)
    with pytest.raises(ValueError, match=r"unknown test 'wilcoxon': choose one of 'permutation'.*'sign'"):
        st.pairwise({"a": a, "b": b}, test="wilcoxon")
    with pytest.raises(ValueError, match="use bootstrap_ci"):
        st.measurewise(a.to_frame("AP"), b.to_frame("AP"), test="bootstrap")
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        st.pairwise({"a": a, "b": b}, correction="sidak")
    with pytest.raises(ValueError, match="unknown correction 'tukey'"):
        st.measurewise(a.to_frame("AP"), b.to_frame("AP"), correction="tukey")


def test_rankings_over_different_systems_are_refused():
    with pytest.raises(ValueError, match=r"different systems: 2 differ .*'dense'.*'splade'"):
        st.kendall_tau({"bm25": 0.3, "dense": 0.5}, {"bm25": 0.3, "splade": 0.5})
    with pytest.raises(ValueError, match="different systems"):
        st.tau_ap({"bm25": 0.3, "dense": 0.5}, {"bm25": 0.3})
    with pytest.raises(ValueError, match="without ties.*'x', 'y'"):
        st.tau_ap({"x": 0.5, "y": 0.5, "z": 0.1}, {"x": 0.1, "y": 0.2, "z": 0.3})
    with pytest.raises(ValueError, match="at least 2 systems"):
        st.kendall_tau({"x": 0.5}, {"x": 0.1})
