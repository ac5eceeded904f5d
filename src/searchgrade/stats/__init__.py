"""Is the difference real? Paired significance tests, topic-set size and ranking agreement.

Every test here is *paired*: two systems scored on the same queries, compared query by
query through the differences ``d_i = a_i - b_i`` (``mean_diff > 0`` means ``a`` scored
higher). Scores come as two pandas Series indexed by query id (e.g. two columns of
:func:`searchgrade.evaluate`'s DataFrame, or a ``{qid: score}`` dict), aligned by id, or as
two equal-length arrays, aligned by position. Query sets that differ are refused (pass
``on="intersection"`` to compare on the shared ids on purpose); empty samples, NaN and
infinite scores are refused too: a missing score is not a zero.

Tests and what they assume
--------------------------
* :func:`permutation_test` (alias :func:`randomization_test`): Fisher's paired
  randomization test, the one Smucker, Allan & Carterette (2007) recommend for IR. Under
  H0 the labels "a" and "b" are exchangeable within each query, so every sign pattern of
  the ``d_i`` is equally likely. Assumes only that exchangeability (queries independent of
  each other); no distributional shape. Two-sided on ``|mean(d)|``. Exact enumeration of
  all ``2**n`` sign patterns when ``2**n <= n_perm``, otherwise ``n_perm`` random ones with
  ``p = (#{|T*| >= |T|} + 1) / (n_perm + 1)``.
* :func:`t_test`: the paired Student t-test (``scipy.stats.ttest_rel``). Assumes the mean
  of the ``d_i`` is close to normal (by the central limit theorem, fine for a few dozen
  queries or more unless the differences are very skewed).
* :func:`sign_test`: the exact two-sided binomial sign test. Uses only the direction of
  each ``d_i``; ties (``d_i == 0``) are dropped, as the source article on repeated
  measurement does. Assumes P(up) = P(down) = 1/2 under H0. Valid but low power.
* :func:`bootstrap_ci`: percentile bootstrap interval for ``mean(d)``, resampling queries
  with replacement. Assumes the queries are an i.i.d. sample of the query population;
  slightly too narrow for small ``n``.
* :func:`adjust` (and :func:`holm`, :func:`bonferroni`, :func:`bh`, :func:`by`): corrected
  p-values for a family of tests. Bonferroni and Holm control the family-wise error rate
  (the chance of any false "significant") under any dependence; Benjamini-Hochberg and
  Benjamini-Yekutieli control the false discovery rate (the expected share of false ones
  among those called significant).
* :func:`tukey_hsd`: Tukey's HSD over every pair of systems, randomised (Carterette 2012)
  or parametric (statsmodels' ``pairwise_tukeyhsd``).
* :func:`pairwise` and :func:`measurewise`: every pair of systems on one measure, or every
  measure of two systems, in one table, with corrected p-values (Holm by default; ``correction=`` picks
  another, and :func:`pairwise` also takes ``"tukey"``). For a report over many systems *and*
  measures (means, tests, win/tie/loss, significance markers, Markdown/LaTeX) use
  :func:`searchgrade.compare` (module :mod:`searchgrade.comparison`), which calls the tests here.
* :func:`swap_rate` and :func:`swap_rates_by_difference`: the topic-set-size experiment of
  Voorhees & Buckley (2002): how often a sample of ``N`` queries orders two systems the
  other way round.
* :func:`topic_set_size`, :func:`power` and :func:`expected_ci_width`: Sakai's (2016) topic set
  size design, computed exactly: how many topics a paired t-test (noncentral t), a one-way
  ANOVA over several systems (noncentral F, Sakai's minimum range) or a confidence interval of
  capped width (Sakai's width formula) needs, from a minimum difference and a variance or a
  topics x systems score matrix of past results (:func:`within_system_variance`)::

      >>> from searchgrade import stats
      >>> stats.topic_set_size(0.05, 0.04).n        # difference 0.05, its variance 0.04
      128
      >>> stats.topic_set_size(0.1, 0.05, design="anova", n_systems=10).n
      158
      >>> round(stats.power(50, 0.05, 0.04), 3)     # what 50 topics give the paired t-test
      0.41

* :func:`kendall_tau` and :func:`tau_ap`: agreement of two rankings of the same systems
  (Kendall's tau-b; Yilmaz, Aslam & Robertson's 2008 AP correlation, which weighs swaps
  near the top more).
* :func:`cohen_kappa`, :func:`fleiss_kappa` and :func:`krippendorff_alpha`: agreement of
  judges' labels beyond chance (two judges; many judges; many judges with missing labels
  and a level of measurement), each with an optional bootstrap interval.

All randomness is seeded (``seed=`` argument, default :data:`DEFAULT_SEED`); the same call
gives the same numbers. ``seed=None`` draws fresh randomness.

The package's modules: :mod:`.results` (result records), :mod:`.inputs` (shared input
checks), :mod:`.significance` (the paired tests), :mod:`.corrections` (Bonferroni, Holm, BH,
BY), :mod:`.tukey` (Tukey's HSD), :mod:`.multiple` (pairwise, measurewise), :mod:`.topics` (swap
rates), :mod:`.design` (topic set size and power), :mod:`.agreement` (ranking agreement), :mod:`.labels` (label agreement),
:mod:`.comparison_table` (the :class:`~searchgrade.comparison.Comparison` that :func:`searchgrade.compare` returns)
and :mod:`.latex` (its LaTeX table).

To add a paired test: write it in :mod:`.significance` (inputs checked by :mod:`.inputs`, a record of
:mod:`.results` with a ``p_value`` returned) and name it in :data:`TESTS`, which :func:`pairwise` and
:func:`measurewise` read (:func:`searchgrade.compare` lists its own in ``searchgrade.comparison.TESTS``).
"""
from .agreement import kendall_tau, tau_ap
from .corrections import METHODS, adjust, bh, bonferroni, by, holm
from .design import DESIGNS, TopicSetSize, expected_ci_width, power, topic_set_size, within_system_variance
from .labels import AgreementResult, cohen_kappa, fleiss_kappa, krippendorff_alpha
from .multiple import CORRECTIONS, TESTS, mean_over_runs, measurewise, pairwise
from .results import DEFAULT_SEED, BootstrapResult, PermutationResult, SignTestResult, TTestResult
from .significance import bootstrap_ci, permutation_test, randomization_test, sign_test, t_test
from .topics import DEFAULT_BINS, swap_rate, swap_rates_by_difference
from .tukey import TUKEY_METHODS, tukey_hsd

__all__ = [
    "DEFAULT_SEED",
    "PermutationResult",
    "TTestResult",
    "SignTestResult",
    "BootstrapResult",
    "permutation_test",
    "randomization_test",
    "t_test",
    "sign_test",
    "bootstrap_ci",
    "holm",
    "bonferroni",
    "bh",
    "by",
    "adjust",
    "METHODS",
    "CORRECTIONS",
    "tukey_hsd",
    "TUKEY_METHODS",
    "pairwise",
    "measurewise",
    "mean_over_runs",
    "swap_rate",
    "swap_rates_by_difference",
    "DESIGNS",
    "TopicSetSize",
    "topic_set_size",
    "power",
    "expected_ci_width",
    "within_system_variance",
    "kendall_tau",
    "tau_ap",
    "AgreementResult",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "TESTS",
]
