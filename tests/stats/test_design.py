"""Tests for searchgrade.stats.design: topic set size and power (issue 41 §2).

Oracles: statsmodels' ``TTestPower`` (R's ``power.t.test(type="paired")``) and ``FTestAnovaPower``,
scipy's chi distribution for the expected standard deviation, statsmodels' OLS for the residual
variances. Sakai's Excel tools use Nagata's normal approximations; they are written out here from
their formulas (Sakai 2016, IRJ 19(3)) and must land next to the exact answers.
"""
from __future__ import annotations

import doctest
import math
import operator

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sp

from searchgrade import stats
from searchgrade.stats import design

GRID = [(d, v, a, p) for a in (0.01, 0.05) for p in (0.7, 0.8, 0.9) for d in (0.02, 0.05, 0.1, 0.2)
        for v in (0.01, 0.05, 0.2)]


def test_the_reference_case_of_power_t_test():
    result = stats.topic_set_size(0.05, 0.04, alpha=0.05, power=0.8)
    assert result.n == 128 and int(result) == 128 and operator.index(result) == 128
    assert round(result.achieved, 4) == 0.8015 and result.design == "paired-t"
    assert stats.power(127, 0.05, 0.04) < 0.8 <= stats.power(128, 0.05, 0.04) == result.achieved
    assert str(result).startswith("128 topics: paired t-test at alpha 0.05 detects a difference of 0.05")


def test_the_docstring_examples_run():
    for module in (design, stats):
        result = doctest.testmod(module, raise_on_error=False)
        assert result.attempted >= 3 and result.failed == 0


@pytest.mark.parametrize("name, args", [("paired-t", {}), ("anova", {"n_systems": 5}), ("ci", {})])
def test_n_is_the_smallest_that_meets_the_requirement(name, args):
    for d, v, a, p in GRID[::7]:
        kwargs = {"alpha": a, "design": name, **args} | ({} if name == "ci" else {"power": p})
        n = stats.topic_set_size(d, v, **kwargs).n
        if name == "ci":
            assert stats.expected_ci_width(n, v, a) <= d < stats.expected_ci_width(n - 1, v, a) or n == 2
        else:
            power = stats.power(n, d, v, a, name, **args)
            assert power >= p and (n == 2 or stats.power(n - 1, d, v, a, name, **args) < p)


def test_a_score_matrix_gives_sakai_s_variance():
    rng = np.random.default_rng(11)
    scores = pd.DataFrame(rng.random((40, 6)) * 0.5 + rng.random(40)[:, None] * 0.5, columns=list("abcdef"))
    within = ((scores - scores.mean()) ** 2).to_numpy().sum() / (6 * 39)
    assert design.within_system_variance(scores) == pytest.approx(within, rel=1e-12)
    for name, used in (("paired-t", 2 * within), ("ci", 2 * within), ("anova", within)):
        from_matrix = stats.topic_set_size(0.05, scores, design=name)
        assert from_matrix.variance == pytest.approx(used, rel=1e-12)
        assert from_matrix.n == stats.topic_set_size(0.05, used, design=name,
                                                     **({"n_systems": 6} if name == "anova" else {})).n
    assert stats.topic_set_size(0.05, scores, design="anova").n_systems == 6
    assert stats.power(50, 0.05, scores.to_numpy()) == stats.power(50, 0.05, 2 * within)
    two_way = design.within_system_variance(scores, residual="two-way")
    assert 0 < two_way < within                                # the topic effect taken out


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unknown design 'z-test'"):
        stats.topic_set_size(0.05, 0.04, design="z-test")
    with pytest.raises(ValueError, match="needs n_systems"):
        stats.topic_set_size(0.05, 0.04, design="anova")
    with pytest.raises(ValueError, match="n_systems is for design='anova'"):
        stats.topic_set_size(0.05, 0.04, n_systems=4)
    with pytest.raises(ValueError, match="n_systems must be a whole number of at least 2"):
        stats.topic_set_size(0.05, 0.04, design="anova", n_systems=1)
    with pytest.raises(ValueError, match="has no power: leave power out"):
        stats.topic_set_size(0.05, 0.04, power=0.8, design="ci")
    with pytest.raises(ValueError, match="design='ci' has no power: expected_ci_width"):
        stats.power(50, 0.05, 0.04, design="ci")
    for bad in (0, -0.1, float("nan"), float("inf"), "0.1", True):
        with pytest.raises(ValueError, match="min_diff must be a finite number above 0"):
            stats.topic_set_size(bad, 0.04)
        with pytest.raises(ValueError, match="variance must be a finite number above 0"):
            stats.topic_set_size(0.05, bad)
    for bad in (0, 1, 1.5, -0.2):
        with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
            stats.topic_set_size(0.05, 0.04, alpha=bad)
        with pytest.raises(ValueError, match="power must be a number strictly between 0 and 1"):
            stats.topic_set_size(0.05, 0.04, power=bad)
    with pytest.raises(ValueError, match="n must be a whole number of at least 2"):
        stats.power(1, 0.05, 0.04)
    with pytest.raises(ValueError, match=r"more than 10,000,000 topics"):
        stats.topic_set_size(1e-6, 1.0)
    with pytest.raises(ValueError, match="at least 2 topics"):
        stats.topic_set_size(0.05, [[0.1, 0.2]])
    with pytest.raises(ValueError, match="NaN or infinite"):
        stats.topic_set_size(0.05, [[0.1, np.nan], [0.2, 0.3]])
    with pytest.raises(ValueError, match="no variance within systems"):
        stats.topic_set_size(0.05, [[0.1, 0.2], [0.1, 0.2]])
    with pytest.raises(ValueError, match="residual must be 'one-way' or 'two-way'"):
        design.within_system_variance([[0.1, 0.2], [0.3, 0.1]], residual="three-way")


# --------------------------------------------------------------------------- Sakai's approximations


def _nagata_t_power(n: int, effect: float, alpha: float) -> float:
    """Nagata's normal approximation of the paired t-test's power (Sakai's samplesizeTTEST2)."""
    phi, lam = n - 1, math.sqrt(n) * effect
    w = sp.t.isf(alpha / 2, phi)
    scale, shrink = math.sqrt(1 + w * w / (2 * phi)), 1 - 1 / (4 * phi)
    return sp.norm.cdf((-w * shrink - lam) / scale) + sp.norm.sf((w * shrink - lam) / scale)


def _nagata_anova_power(n: int, min_range: float, variance: float, alpha: float, m: int) -> float:
    """Nagata's approximation of one-way ANOVA's power (Patnaik's chi-square, then Fisher's square root)."""
    dfa, dfe, lam = m - 1, m * (n - 1), n * min_range ** 2 / (2 * variance)
    w = sp.f.isf(alpha, dfa, dfe)
    c = (dfa + 2 * lam) / (dfa + lam)
    dfa_star = (dfa + lam) ** 2 / (dfa + 2 * lam)
    u = ((math.sqrt(w / dfe) * math.sqrt(2 * dfe - 1) - math.sqrt(c / dfa) * math.sqrt(2 * dfa_star - 1))
         / math.sqrt(c / dfa + w / dfe))
    return sp.norm.sf(u)


def _nagata_ci_meets(n: int, width: float, variance: float, alpha: float) -> bool:
    """Sakai's samplesizeCI2 criterion, with E[s] taken as sd * (1 - 1 / (4 (n - 1)))."""
    phi = n - 1
    return sp.t.isf(alpha / 2, phi) * (1 - 1 / (4 * phi)) / math.sqrt(n) <= width / (2 * math.sqrt(variance))


def _near(meets, n: int) -> int:
    """The smallest k next to n with meets(k), walking from n."""
    k = n
    if meets(k):
        while k > 2 and meets(k - 1):
            k -= 1
        return k
    while not meets(k):
        k += 1
    return k


def test_sakai_s_approximations_land_next_to_the_exact_answers():
    for d, v, a, p in GRID:
        n = stats.topic_set_size(d, v, a, p).n
        assert abs(_near(lambda k: _nagata_t_power(k, d / math.sqrt(v), a) >= p, n) - n) <= 1
        width_n = stats.topic_set_size(d, v, a, design="ci").n
        assert _near(lambda k: _nagata_ci_meets(k, d, v, a), width_n) == width_n
        for m in (5, 10, 30):
            result = stats.topic_set_size(d, v, a, p, "anova", n_systems=m)
            assert abs(_nagata_anova_power(result.n, d, v, a, m) - result.achieved) < 0.015


# --------------------------------------------------------------------------- peers


@pytest.mark.peers
def test_paired_t_equals_statsmodels_ttestpower():
    power_mod = pytest.importorskip("statsmodels.stats.power")
    oracle = power_mod.TTestPower()
    for d, v, a, p in GRID:
        effect = d / math.sqrt(v)
        result = stats.topic_set_size(d, v, a, p)
        assert result.achieved == pytest.approx(oracle.power(effect, result.n, a), abs=1e-10)
        assert oracle.power(effect, result.n - 1, a) < p or result.n == 2
        assert result.n == max(2, math.ceil(oracle.solve_power(effect_size=effect, alpha=a, power=p) - 1e-9))


@pytest.mark.peers
def test_anova_equals_statsmodels_ftestanovapower():
    power_mod = pytest.importorskip("statsmodels.stats.power")
    oracle = power_mod.FTestAnovaPower()
    for d, v, a, p in GRID[::3]:
        for m in (2, 5, 12):
            result = stats.topic_set_size(d, v, a, p, "anova", n_systems=m)
            f = math.sqrt(d ** 2 / (2 * v * m))          # Cohen's f of two means d apart, the rest half-way
            assert result.achieved == pytest.approx(oracle.power(f, result.n * m, a, k_groups=m), abs=1e-10)
            assert oracle.power(f, (result.n - 1) * m, a, k_groups=m) < p


def test_expected_width_equals_the_chi_distribution():
    for n in (2, 3, 10, 57, 400, 25_000):
        for v, a in ((0.04, 0.05), (0.2, 0.01)):
            mean_sd = math.sqrt(v) * sp.chi(n - 1).mean() / math.sqrt(n - 1)
            expected = 2 * sp.t.isf(a / 2, n - 1) * mean_sd / math.sqrt(n)
            assert stats.expected_ci_width(n, v, a) == pytest.approx(expected, rel=1e-9)


@pytest.mark.peers
def test_residual_variances_equal_statsmodels_ols():
    smf = pytest.importorskip("statsmodels.formula.api")
    rng = np.random.default_rng(5)
    scores = pd.DataFrame(rng.random((25, 4)) + rng.random(25)[:, None], columns=["s1", "s2", "s3", "s4"])
    long = scores.rename_axis("topic").reset_index().melt(id_vars="topic", var_name="system", value_name="score")
    one = smf.ols("score ~ C(system)", long).fit().mse_resid
    two = smf.ols("score ~ C(system) + C(topic)", long).fit().mse_resid
    assert design.within_system_variance(scores) == pytest.approx(one, rel=1e-10)
    assert design.within_system_variance(scores, residual="two-way") == pytest.approx(two, rel=1e-10)
