"""How many topics? Sakai's topic set size design and the power of a test for a given number of topics.

Sakai (2016), "Topic set size design", Information Retrieval Journal 19(3):256-283
(doi:10.1007/s10791-015-9273-z), after Nagata's sample size design, asks for the smallest number of
topics ``n`` that meets a statistical requirement, given a variance estimated from past data. Three
designs, each computed exactly here (Sakai's Excel tools use Nagata's normal approximations, which
can land a topic or two away):

* ``"paired-t"``: the paired t-test (two-sided, level ``alpha``) detects a true difference of
  ``min_diff`` between two systems with probability ``power``. Power is read off the noncentral t
  distribution with ``n - 1`` degrees of freedom and noncentrality ``sqrt(n) * min_diff / sd``,
  both tails counted, as R's ``power.t.test(type="paired", strict=TRUE)`` and statsmodels'
  ``TTestPower`` do (R's default ``strict=FALSE`` drops the far tail: 0.8015062 against
  0.8015071 in the example below). ``variance`` is the variance of the per-topic differences.
* ``"anova"``: one-way ANOVA over ``n_systems`` systems detects, with probability ``power``, any
  set of true means whose range (best minus worst) is at least ``min_diff``. Sakai's minimum-range
  formulation takes the least favourable such set, two systems ``min_diff`` apart and the others
  half-way, so the noncentrality is ``lambda = n * min_diff**2 / (2 * variance)``; power is
  ``P(F' > F_crit)`` for the noncentral F with ``n_systems - 1`` and ``n_systems * (n - 1)``
  degrees of freedom. ``variance`` is the within-system variance.
* ``"ci"``: the expected width of the ``1 - alpha`` confidence interval of the mean paired
  difference is at most ``min_diff`` (read as the cap on the width, Sakai's delta). Sakai's width
  formula: ``E[width] = 2 * t(alpha/2; n-1) * E[s] / sqrt(n)`` with
  ``E[s] = sd * sqrt(2 / (n-1)) * Gamma(n/2) / Gamma((n-1)/2)``, taken exactly (log-gamma).
  ``variance`` is the variance of the per-topic differences; no power is involved.

A variance from past data: pass a topics x systems score matrix (a DataFrame with one column per
system, or a 2-D array) as ``variance``. Its within-system variance is estimated as Sakai (2016)
does, the residual mean square of one-way ANOVA with the systems as groups,
``V_E = sum_i sum_j (x_ij - mean_i)**2 / (m * (n - 1))`` (:func:`within_system_variance`;
``residual="two-way"`` takes out the topic effect too, as two-way ANOVA without replication
does). For the paired designs the variance of a difference is then taken as ``2 * V_E``, Sakai's
choice, which ignores the covariance of two systems on one topic and so errs on the large side.

Example (the reference case of R's ``power.t.test``)::

    >>> from searchgrade import stats
    >>> result = stats.topic_set_size(0.05, 0.04)          # difference 0.05, variance 0.04
    >>> result.n, round(result.achieved, 4)
    (128, 0.8015)
    >>> round(stats.power(50, 0.05, 0.04), 3)              # what 50 topics give
    0.41
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import special as _special
from scipy import stats as _sp

__all__ = ["DESIGNS", "TopicSetSize", "expected_ci_width", "power", "topic_set_size", "within_system_variance"]

DESIGNS = ("paired-t", "anova", "ci")
"""Topic set size designs :func:`topic_set_size` knows."""

MAX_TOPICS = 10_000_000
"""Beyond this many topics :func:`topic_set_size` stops and says the requirement is out of reach."""

_RESIDUALS = ("one-way", "two-way")


@dataclass(frozen=True)
class TopicSetSize:
    """The topics a design needs: ``n`` and what it reaches there (``int(result)`` is ``n``).

    ``achieved`` is the power at ``n`` (paired-t, anova) or the expected interval width at ``n``
    (ci); ``variance`` is the one the design used (per-topic differences for paired-t and ci,
    within-system for anova).
    """

    n: int
    design: str
    min_diff: float
    variance: float
    alpha: float
    power: float | None
    achieved: float
    n_systems: int | None

    def __int__(self) -> int:
        return self.n

    def __index__(self) -> int:
        return self.n

    def as_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def __str__(self) -> str:
        if self.design == "ci":
            need = f"expected {1 - self.alpha:.0%} interval width <= {self.min_diff:g} ({self.achieved:.4g} reached)"
        else:
            what = ("paired t-test" if self.design == "paired-t" else f"one-way ANOVA over {self.n_systems} systems")
            need = (f"{what} at alpha {self.alpha:g} detects a {'range' if self.design == 'anova' else 'difference'} "
                    f"of {self.min_diff:g} with power {self.power:g} ({self.achieved:.4f} reached)")
        return f"{self.n:,} topics: {need}, variance {self.variance:.4g}"


# --------------------------------------------------------------------------- inputs


def _positive(value, name: str) -> float:
    """A finite number above 0, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number above 0, not {value!r}")
    return float(value)


def _probability(value, name: str) -> float:
    """A number strictly between 0 and 1, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, not {value!r}")
    return float(value)


def _whole(value, name: str, least: int) -> int:
    """A whole number at least ``least``, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be a whole number of at least {least}, not {value!r}")
    return int(value)


def _matrix(scores) -> np.ndarray:
    """A topics x systems float matrix with at least 2 topics and 1 system, all finite."""
    values = scores.to_numpy(dtype=float) if isinstance(scores, pd.DataFrame) else np.asarray(scores, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"scores must be a topics x systems table (2-D), got shape {values.shape}")
    if values.shape[0] < 2 or values.shape[1] < 1:
        raise ValueError(f"scores must hold at least 2 topics (rows) and 1 system (column), got {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("scores hold NaN or infinite values: score every system on every topic")
    return values


def within_system_variance(scores, *, residual: str = "one-way") -> float:
    """The within-system variance of a topics x systems score matrix, estimated as Sakai (2016) does.

    ``residual="one-way"`` (Sakai 2016): the residual mean square of one-way ANOVA with the systems
    as groups, ``sum_i sum_j (x_ij - mean_i)**2 / (m * (n - 1))`` for ``n`` topics and ``m``
    systems. ``"two-way"``: the residual mean square of two-way ANOVA without replication
    (the topic effect taken out as well, ``(m - 1) * (n - 1)`` degrees of freedom; needs 2
    systems or more), smaller when topics differ in difficulty.
    """
    if residual not in _RESIDUALS:
        raise ValueError(f"residual must be 'one-way' or 'two-way', not {residual!r}")
    x = _matrix(scores)
    n, m = x.shape
    within = x - x.mean(axis=0)
    if residual == "one-way":
        return float((within ** 2).sum() / (m * (n - 1)))
    if m < 2:
        raise ValueError("residual='two-way' needs at least 2 systems (columns)")
    rest = within - within.mean(axis=1, keepdims=True)
    return float((rest ** 2).sum() / ((m - 1) * (n - 1)))


def _design_variance(variance, design: str) -> tuple[float, int | None]:
    """(the variance the design reads, systems in the matrix or None) from a number or a score matrix."""
    if isinstance(variance, (pd.DataFrame, np.ndarray, list, tuple)):
        within = within_system_variance(variance)
        if within <= 0:
            raise ValueError("scores have no variance within systems (every system scores one value)")
        columns = np.shape(variance)[1]
        return (within if design == "anova" else 2.0 * within), int(columns)
    return _positive(variance, "variance"), None


def _known(design) -> str:
    """The design's name, or a clear error."""
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}: choose 'paired-t', 'anova' or 'ci'")
    return design


def _check_design(design, n_systems, from_matrix: int | None) -> int | None:
    """The number of systems for anova (given, or the matrix's columns); refuse it elsewhere."""
    if design != "anova":
        if n_systems is not None:
            raise ValueError(f"n_systems is for design='anova'; design={design!r} compares two systems")
        return None
    if n_systems is None:
        if from_matrix is None:
            raise ValueError("design='anova' needs n_systems (how many systems the ANOVA compares)")
        n_systems = from_matrix
    return _whole(n_systems, "n_systems", 2)


# --------------------------------------------------------------------------- the three criteria


def _paired_t_power(n: int, min_diff: float, variance: float, alpha: float) -> float:
    """Two-sided paired t-test power at n topics: both tails of the noncentral t."""
    df = n - 1
    ncp = math.sqrt(n) * min_diff / math.sqrt(variance)
    crit = _sp.t.isf(alpha / 2, df)
    return float(_sp.nct.sf(crit, df, ncp) + _sp.nct.cdf(-crit, df, ncp))


def _anova_power(n: int, min_diff: float, variance: float, alpha: float, m: int) -> float:
    """One-way ANOVA power at n topics per system under Sakai's least favourable range of min_diff."""
    dfn, dfd = m - 1, m * (n - 1)
    lam = n * min_diff ** 2 / (2 * variance)
    return float(_sp.ncf.sf(_sp.f.isf(alpha, dfn, dfd), dfn, dfd, lam))


def _ci_width(n: int, variance: float, alpha: float) -> float:
    """Expected width of the t interval of a mean of n differences (Sakai's formula, log-gamma)."""
    df = n - 1
    mean_sd = math.sqrt(variance) * math.sqrt(2 / df) * math.exp(_special.gammaln(n / 2) - _special.gammaln(df / 2))
    return float(2 * _sp.t.isf(alpha / 2, df) * mean_sd / math.sqrt(n))


def _smallest_n(meets) -> int:
    """The smallest n >= 2 with meets(n) true (meets grows with n): doubling, then bisection."""
    if meets(2):
        return 2
    low, high = 2, 4
    while not meets(high):
        if high >= MAX_TOPICS:
            raise ValueError(f"the requirement needs more than {MAX_TOPICS:,} topics: the difference (or width) "
                             "asked for is tiny next to the variance")
        low, high = high, min(2 * high, MAX_TOPICS)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if meets(mid) else (mid, high)
    return high


# --------------------------------------------------------------------------- public


def topic_set_size(min_diff, variance, alpha=0.05, power=None, design: str = "paired-t", *,
                   n_systems: int | None = None) -> TopicSetSize:
    """The smallest number of topics that meets Sakai's requirement for ``design``; ``.n`` is the number.

    ``min_diff``: the smallest true difference to detect (``"paired-t"``), the smallest range of
    true means over the systems (``"anova"``), or the cap on the expected interval width
    (``"ci"``). ``variance``: a number (variance of per-topic differences for paired-t and ci,
    within-system variance for anova), or a topics x systems score matrix from past data (see
    the module docstring: ``V_E``, doubled for the paired designs; anova then compares as many
    systems as the matrix has unless ``n_systems`` says otherwise). ``power``: the probability
    of detecting ``min_diff`` (0.8 when not given; not used by ``"ci"``, which refuses it).
    ``n_systems``: systems in the ANOVA (``"anova"`` only). The result's ``achieved`` is the power
    (or the expected width) at ``n``. Exact methods; see the module docstring.
    """
    min_diff, alpha = _positive(min_diff, "min_diff"), _probability(alpha, "alpha")
    var, columns = _design_variance(variance, _known(design))
    m = _check_design(design, n_systems, columns)
    if design == "ci":
        if power is not None:
            raise ValueError("design='ci' caps the interval's expected width and has no power: leave power out")
        n = _smallest_n(lambda k: _ci_width(k, var, alpha) <= min_diff)
        return TopicSetSize(n, design, min_diff, var, alpha, None, _ci_width(n, var, alpha), None)
    target = 0.8 if power is None else _probability(power, "power")
    at = (lambda k: _paired_t_power(k, min_diff, var, alpha)) if design == "paired-t" else \
        (lambda k: _anova_power(k, min_diff, var, alpha, m))
    n = _smallest_n(lambda k: at(k) >= target)
    return TopicSetSize(n, design, min_diff, var, alpha, target, at(n), m)


def power(n, min_diff, variance, alpha=0.05, design: str = "paired-t", *, n_systems: int | None = None) -> float:
    """The power of the paired t-test (``"paired-t"``) or one-way ANOVA (``"anova"``) with ``n`` topics.

    Arguments as in :func:`topic_set_size` (``variance`` a number or a score matrix); the same
    exact computation: noncentral t for paired-t, noncentral F with Sakai's minimum-range
    noncentrality for anova. For ``"ci"`` use :func:`expected_ci_width`.
    """
    if design == "ci":
        raise ValueError("design='ci' has no power: expected_ci_width(n, variance) gives the width n topics give")
    n = _whole(n, "n", 2)
    min_diff, alpha = _positive(min_diff, "min_diff"), _probability(alpha, "alpha")
    var, columns = _design_variance(variance, _known(design))
    m = _check_design(design, n_systems, columns)
    if design == "paired-t":
        return _paired_t_power(n, min_diff, var, alpha)
    return _anova_power(n, min_diff, var, alpha, m)


def expected_ci_width(n, variance, alpha=0.05) -> float:
    """The expected width of the ``1 - alpha`` t interval of a mean paired difference over ``n`` topics.

    ``variance``: of the per-topic differences, or a topics x systems score matrix (``2 * V_E``).
    Sakai's formula, as in ``design="ci"`` of :func:`topic_set_size`.
    """
    n = _whole(n, "n", 2)
    var, _ = _design_variance(variance, "ci")
    return _ci_width(n, var, _probability(alpha, "alpha"))
