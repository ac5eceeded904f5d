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
* :func:`holm`: Holm's step-down correction of a family of p-values (controls the
  family-wise error rate under any dependence between the tests).
* :func:`pairwise` and :func:`compare`: every pair of systems, or every measure of two
  systems, in one table, with Holm-adjusted p-values. For a report over many systems *and*
  measures (means, tests, win/tie/loss, significance markers, Markdown/LaTeX) use
  :func:`searchgrade.compare` (module :mod:`searchgrade.comparison`), which calls the tests here.
* :func:`swap_rate` and :func:`swap_rates_by_difference`: the topic-set-size experiment of
  Voorhees & Buckley (2002): how often a sample of ``N`` queries orders two systems the
  other way round.
* :func:`kendall_tau` and :func:`tau_ap`: agreement of two rankings of the same systems
  (Kendall's tau-b; Yilmaz, Aslam & Robertson's 2008 AP correlation, which weighs swaps
  near the top more).

All randomness is seeded (``seed=`` argument, default :data:`DEFAULT_SEED`); the same call
gives the same numbers. ``seed=None`` draws fresh randomness.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import stats as _sps

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
    "pairwise",
    "compare",
    "mean_over_runs",
    "swap_rate",
    "swap_rates_by_difference",
    "kendall_tau",
    "tau_ap",
    "TESTS",
]

DEFAULT_SEED = 2007
"""Seed used when none is given (the year of Smucker, Allan & Carterette's comparison)."""

# Elements per chunk of random sign patterns / bootstrap resamples (keeps memory ~20 MB).
_CHUNK_ELEMENTS = 1 << 21
# Exact enumeration of 2**n sign patterns is allowed up to this n.
_MAX_EXACT_N = 20
_N_EXAMPLES = 5


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PermutationResult:
    """Result of :func:`permutation_test`: mean(a - b), two-sided p-value, n queries, n_perm sign patterns used (2**n if exact)."""

    mean_diff: float
    p_value: float
    n: int
    n_perm: int
    exact: bool
    seed: int | None

    def as_dict(self) -> dict:
        """The fields as a plain dict (handy for building DataFrames)."""
        return asdict(self)

    def __str__(self) -> str:
        kind = "exact" if self.exact else f"{self.n_perm:,} random sign flips"
        return (f"permutation test: mean diff {self.mean_diff:+.4f} over {self.n} queries, "
                f"p = {self.p_value:.4g} ({kind})")


@dataclass(frozen=True)
class TTestResult:
    """Result of :func:`t_test`: mean(a - b), t statistic, degrees of freedom, two-sided p-value, n."""

    mean_diff: float
    t: float
    df: int
    p_value: float
    n: int

    def as_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def __str__(self) -> str:
        return (f"paired t-test: mean diff {self.mean_diff:+.4f} over {self.n} queries, "
                f"t({self.df}) = {self.t:.3f}, p = {self.p_value:.4g}")


@dataclass(frozen=True)
class SignTestResult:
    """Result of :func:`sign_test`: queries where a is higher (up), lower (down), tied (dropped), p-value."""

    up: int
    down: int
    ties: int
    p_value: float
    n: int
    mean_diff: float

    def as_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def __str__(self) -> str:
        return (f"sign test: {self.up} up, {self.down} down, {self.ties} ties dropped "
                f"(of {self.n} queries), p = {self.p_value:.4g}")


@dataclass(frozen=True)
class BootstrapResult:
    """Result of :func:`bootstrap_ci`: mean(a - b) and its percentile interval [low, high]."""

    mean_diff: float
    low: float
    high: float
    confidence: float
    n_boot: int
    n: int
    seed: int | None

    def as_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def __str__(self) -> str:
        return (f"mean diff {self.mean_diff:+.4f}, {self.confidence:.0%} bootstrap CI "
                f"[{self.low:+.4f}, {self.high:+.4f}] ({self.n} queries, {self.n_boot:,} resamples)")


# --------------------------------------------------------------------------- input checks


def _label(x, default: str) -> str:
    """'a' or "a ('bm25')" for error messages."""
    name = getattr(x, "name", None)
    return f"{default} ({name!r})" if name is not None else default


def _examples(values) -> str:
    """A few values for an error message: "'q1', 'q2', 'q3', ...". """
    values = list(values)
    try:
        values = sorted(values)
    except TypeError:
        pass
    shown = ", ".join(repr(v) for v in values[:_N_EXAMPLES])
    return shown + (", ..." if len(values) > _N_EXAMPLES else "")


def _as_series_or_array(x, label: str):
    """x as a float Series (labelled input) or a 1-D float array (positional input)."""
    if isinstance(x, pd.DataFrame):
        raise TypeError(
            f"{label} is a DataFrame with columns {list(x.columns)[:8]}: pass one column of "
            f"per-query scores, e.g. df[{str(x.columns[0])!r}]" if len(x.columns) else
            f"{label} is an empty DataFrame: pass a Series of per-query scores")
    if isinstance(x, Mapping) and not isinstance(x, pd.Series):
        x = pd.Series(dict(x), dtype=object)
    if isinstance(x, pd.Series):
        if x.index.has_duplicates:
            dup = x.index[x.index.duplicated()].unique()
            raise ValueError(f"{label} has {len(dup)} duplicated query id(s) ({_examples(dup)}): "
                             "each query must be scored once")
        try:
            values = x.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{label} must hold numeric scores ({exc})") from None
        return pd.Series(values, index=x.index, name=x.name)
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{label} must be per-query scores, not a string")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{label} must be a Series, a {{qid: score}} dict or an array of numbers ({exc})") from None
    if arr.ndim != 1:
        raise ValueError(f"{label} must be one-dimensional (one score per query), got shape {arr.shape}")
    return arr


def _check_finite(values: np.ndarray, ids, label: str) -> None:
    """Raise if any score is NaN or infinite, naming a few offending queries."""
    bad = ~np.isfinite(values)
    if bad.any():
        where = (f"query id(s) {_examples(np.asarray(ids, dtype=object)[bad])}" if ids is not None
                 else f"position(s) {_examples(np.flatnonzero(bad).tolist())}")
        kinds = "NaN" if np.isnan(values[bad]).all() else "NaN/infinite"
        raise ValueError(
            f"{label} has {kinds} scores for {int(bad.sum())} queries ({where}): a missing score is "
            "not a zero; fill it deliberately (e.g. evaluate(..., missing='zero')) or drop those "
            "queries from both systems")


def _paired(a, b, on: str = "strict") -> tuple[np.ndarray, np.ndarray, pd.Index | None]:
    """Two score vectors aligned query by query, checked; (x, y, query ids or None)."""
    if on not in ("strict", "intersection"):
        raise ValueError(f"on must be 'strict' or 'intersection', not {on!r}")
    la, lb = _label(a, "a"), _label(b, "b")
    xa, xb = _as_series_or_array(a, la), _as_series_or_array(b, lb)
    labelled_a, labelled_b = isinstance(xa, pd.Series), isinstance(xb, pd.Series)
    if labelled_a != labelled_b:
        which = la if labelled_a else lb
        raise TypeError(
            f"{which} is labelled by query id but the other is a plain array: pass both as Series "
            "(aligned by query id) or both as arrays (aligned by position)")
    if labelled_a:
        only_a = xa.index.difference(xb.index)
        only_b = xb.index.difference(xa.index)
        if len(only_a) or len(only_b):
            if on == "strict":
                parts = []
                if len(only_a):
                    parts.append(f"{len(only_a)} id(s) only in {la} (e.g. {_examples(only_a)})")
                if len(only_b):
                    parts.append(f"{len(only_b)} id(s) only in {lb} (e.g. {_examples(only_b)})")
                shared = len(xa.index.intersection(xb.index))
                raise ValueError(
                    f"the two systems were scored on different queries: {len(only_a) + len(only_b)} "
                    f"query ids differ; {'; '.join(parts)}. Pass on='intersection' to compare on the "
                    f"{shared} shared queries on purpose, or score both on the same queries "
                    "(e.g. evaluate(..., missing='zero'))")
            index = xa.index.intersection(xb.index, sort=False)
        else:
            index = xa.index
        if len(index) == 0:
            raise ValueError(f"empty sample: {la} and {lb} have no query ids in common"
                             if len(xa) and len(xb) else
                             f"empty sample: {la if not len(xa) else lb} has no queries")
        x = xa.reindex(index).to_numpy()
        y = xb.reindex(index).to_numpy()
        ids = index
    else:
        if xa.size != xb.size:
            raise ValueError(f"{la} has {xa.size} scores but {lb} has {xb.size}: paired arrays must "
                             "have one score per query each, in the same query order")
        if xa.size == 0:
            raise ValueError("empty sample: no queries to compare")
        x, y, ids = xa, xb, None
    _check_finite(x, ids, la)
    _check_finite(y, ids, lb)
    return x, y, ids


def _differences(a, b, on: str) -> np.ndarray:
    """d_i = a_i - b_i over the checked, aligned queries."""
    x, y, _ = _paired(a, b, on)
    return x - y


def _rng(seed) -> np.random.Generator:
    """A numpy Generator from an int seed, None (fresh) or an existing Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int, None or a numpy Generator, not {seed!r}")
    return np.random.default_rng(seed)


def _seed_value(seed) -> int | None:
    """The seed to record in a result (None when a Generator or fresh randomness was used)."""
    return int(seed) if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else None


def _positive_int(value, name: str, minimum: int = 1) -> int:
    """value as an int >= minimum, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


# --------------------------------------------------------------------------- significance tests


_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)


def _byte_tables(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lookup table for sign flips 8 queries at a time: table[j * 256 + v] = sum of d over block j's queries set in byte v.

    Queries are grouped in blocks of 8 (zero-padded); for block j and a byte value v the entry
    ``j * 256 + v`` holds ``sum_k bit_k(v) * d[8j + k]``. A random sign pattern is then one
    random byte per block, and its flipped sum is a sum of ``ceil(n/8)`` table entries: 8x
    less work than multiplying by an n-column 0/1 matrix.
    """
    n_blocks = (d.size + 7) // 8
    padded = np.zeros(n_blocks * 8)
    padded[:d.size] = d
    table = (padded.reshape(n_blocks, 8) @ _BYTE_BITS.T).ravel()
    offsets = np.arange(n_blocks, dtype=np.intp) * 256
    return table, offsets


def permutation_test(a, b, n_perm: int = 10_000, *, seed=DEFAULT_SEED, exact: bool | None = None,
                     on: str = "strict") -> PermutationResult:
    """Paired randomization test of mean(a - b): ``p = (#{|mean(s*d)| >= |mean(d)|} + 1) / (n_perm + 1)``, s random signs.

    ``d_i = a_i - b_i``; each of ``n_perm`` random sign vectors ``s`` (each ``s_i = ±1`` with
    probability 1/2, i.e. a and b swapped on that query) gives ``T* = mean(s * d)``; the
    two-sided p-value counts ``|T*| >= |T_obs|`` (within 1e-9 relative rounding). The +1 in
    numerator and denominator counts the observed labelling as one of the permutations:
    this makes the Monte Carlo p-value exact-or-conservative (P(p <= alpha) <= alpha under
    H0) and never 0 (Phipson & Smyth 2010; the same rule as ``scipy.stats.permutation_test``);
    with 10,000 permutations it differs from the plain proportion by at most 1e-4.
    When ``2**n <= n_perm`` (or ``exact=True``, n <= 20) all ``2**n`` sign vectors are
    enumerated and ``p`` is the plain proportion, which is then exact.
    """
    n_perm = _positive_int(n_perm, "n_perm")
    d = _differences(a, b, on)
    n = d.size
    total = float(d.sum())
    tol = 1e-9 * float(np.abs(d).sum())
    threshold = abs(total) - tol
    if exact is None:
        exact = n <= _MAX_EXACT_N and 2 ** n <= n_perm
    if exact:
        if n > _MAX_EXACT_N:
            raise ValueError(f"exact=True enumerates 2**n sign patterns; n = {n} queries is too many "
                             f"(at most {_MAX_EXACT_N}); use the Monte Carlo test (exact=False)")
        count, n_done = 0, 2 ** n
        rows = max(1, _CHUNK_ELEMENTS // n)
        shifts = np.arange(n, dtype=np.int64)
        for start in range(0, n_done, rows):
            codes = np.arange(start, min(start + rows, n_done), dtype=np.int64)
            bits = ((codes[:, None] >> shifts) & 1).astype(np.float64)
            sums = total - 2.0 * (bits @ d)
            count += int(np.count_nonzero(np.abs(sums) >= threshold))
        p = count / n_done
    else:
        rng = _rng(seed)
        table, offsets = _byte_tables(d)
        rows = max(1, _CHUNK_ELEMENTS // offsets.size)
        count, n_done = 0, n_perm
        for start in range(0, n_perm, rows):
            m = min(rows, n_perm - start)
            # one random byte per 8 queries: its bits say on which of them a and b are swapped
            idx = rng.integers(0, 256, size=(m, offsets.size), dtype=np.uint8).astype(np.intp)
            idx += offsets
            flipped = table[idx].sum(axis=1)        # sum of d_i over the swapped queries
            sums = total - 2.0 * flipped             # sum(s * d) with s_i = -1 where swapped
            count += int(np.count_nonzero(np.abs(sums) >= threshold))
        p = (count + 1) / (n_perm + 1)
    return PermutationResult(mean_diff=total / n, p_value=min(1.0, p), n=n, n_perm=n_done,
                             exact=bool(exact), seed=None if exact else _seed_value(seed))


randomization_test = permutation_test


def t_test(a, b, *, on: str = "strict") -> TTestResult:
    """Paired t-test: ``t = mean(d) / (sd(d) / sqrt(n))``, sd with n - 1, df = n - 1, ``p = 2 * P(T_df >= |t|)``.

    Same numbers as ``scipy.stats.ttest_rel(a, b)``. When every difference is identical the
    t statistic is undefined: all zero gives t = 0, p = 1 (nothing to detect); a constant
    non-zero shift gives t = ±inf, p = 0.
    """
    d = _differences(a, b, on)
    n = d.size
    if n < 2:
        raise ValueError(f"the t-test needs at least 2 queries (got {n}): the variance of one difference is undefined")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0.0 else 0.0
    else:
        t = mean / (sd / math.sqrt(n))
        p = float(min(1.0, 2.0 * _sps.t.sf(abs(t), n - 1)))
    return TTestResult(mean_diff=mean, t=float(t), df=n - 1, p_value=p, n=n)


def sign_test(a, b, *, on: str = "strict") -> SignTestResult:
    """Exact sign test, ties dropped: with m = up + down and k = min(up, down), p = min(1, 2 * sum_{i<=k} C(m, i) / 2**m).

    ``up`` counts queries with a_i > b_i, ``down`` with a_i < b_i; queries with a_i == b_i
    (exactly) are ties and are dropped, so ``m`` is the number of queries whose score changed.
    Same p-value as ``scipy.stats.binomtest(up, up + down, 0.5)``; p = 1 when nothing changed.
    """
    d = _differences(a, b, on)
    up = int(np.count_nonzero(d > 0))
    down = int(np.count_nonzero(d < 0))
    m = up + down
    if m == 0:
        p = 1.0
    else:
        p = float(min(1.0, 2.0 * _sps.binom.cdf(min(up, down), m, 0.5)))
    return SignTestResult(up=up, down=down, ties=int(d.size - m), p_value=p, n=int(d.size),
                          mean_diff=float(d.mean()))


def bootstrap_ci(a, b, n_boot: int = 10_000, *, confidence: float = 0.95, seed=DEFAULT_SEED,
                 on: str = "strict") -> BootstrapResult:
    """Percentile bootstrap CI of mean(a - b): [q_(1-c)/2, q_(1+c)/2] of mean(d*) over n_boot resamples of the queries.

    Each resample draws ``n`` queries with replacement; the interval ends are the
    ``(1 - confidence)/2`` and ``(1 + confidence)/2`` quantiles (linear interpolation) of the
    resampled means.
    """
    n_boot = _positive_int(n_boot, "n_boot", 2)
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be a number strictly between 0 and 1, got {confidence!r}")
    d = _differences(a, b, on)
    n = d.size
    rng = _rng(seed)
    means = np.empty(n_boot)
    rows = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_boot, rows):
        m = min(rows, n_boot - start)
        idx = rng.integers(0, n, size=(m, n))
        means[start:start + m] = d[idx].mean(axis=1)
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    return BootstrapResult(mean_diff=float(d.mean()), low=float(low), high=float(high),
                           confidence=float(confidence), n_boot=n_boot, n=n, seed=_seed_value(seed))


def holm(p_values):
    """Holm step-down adjustment, in input order: p_adj_(i) = max_{j<=i} min(1, (m - j + 1) * p_(j)) over sorted p.

    Accepts a list/array (returns a numpy array) or a Series (returns a Series with the same
    index). Reject H_i at level alpha when ``p_adj_i <= alpha``: this controls the
    family-wise error rate at alpha (Holm 1979).
    """
    index = name = None
    if isinstance(p_values, pd.Series):
        index, name = p_values.index, p_values.name
    if isinstance(p_values, Mapping) and not isinstance(p_values, pd.Series):
        raise TypeError("holm takes a list, an array or a Series of p-values; for a dict use pd.Series(d)")
    try:
        p = np.asarray(p_values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"p-values must be numbers ({exc})") from None
    if p.ndim != 1:
        raise ValueError(f"p-values must be one-dimensional, got shape {p.shape}")
    if p.size == 0:
        raise ValueError("empty family: no p-values to adjust")
    if np.isnan(p).any():
        raise ValueError(f"NaN p-value(s) at position(s) {_examples(np.flatnonzero(np.isnan(p)).tolist())}")
    if ((p < 0) | (p > 1)).any():
        bad = np.flatnonzero((p < 0) | (p > 1))
        raise ValueError(f"p-values must lie in [0, 1]; position(s) {_examples(bad.tolist())} hold "
                         f"{_examples(p[bad].tolist())}")
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted_sorted = np.maximum.accumulate(stepped)
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    if index is not None:
        return pd.Series(adjusted, index=index, name=name)
    return adjusted


TESTS: dict[str, Callable] = {
    "permutation": permutation_test,
    "randomization": permutation_test,
    "t": t_test,
    "sign": sign_test,
}
"""Test names accepted by :func:`pairwise` and :func:`compare`."""


def _get_test(test) -> Callable:
    """The test function for a name in TESTS (or a callable returning .p_value), or a clear error."""
    if callable(test):
        return test
    if test not in TESTS:
        hint = " (bootstrap gives an interval, not a p-value: use bootstrap_ci)" if test == "bootstrap" else ""
        raise ValueError(f"unknown test {test!r}: choose one of {', '.join(repr(k) for k in TESTS)}{hint}")
    return TESTS[test]


def _systems_table(table, measure) -> dict[str, object]:
    """{system: per-query scores} from a dict of Series/DataFrames or a wide DataFrame."""
    if isinstance(table, pd.DataFrame):
        if measure is not None:
            raise ValueError("measure= is for a dict of evaluate() DataFrames; a wide DataFrame "
                             "already holds one column per system")
        systems = {str(c) if not isinstance(c, str) else c: table[c] for c in table.columns}
    elif isinstance(table, Mapping):
        systems = {}
        for name, scores in table.items():
            if isinstance(scores, pd.DataFrame):
                if measure is None:
                    raise ValueError(f"system {name!r} is a DataFrame: pass measure= to choose one "
                                     f"of its columns {list(scores.columns)[:8]}")
                if measure not in scores.columns:
                    raise KeyError(f"system {name!r} has no measure {measure!r}; its columns are "
                                   f"{list(scores.columns)}")
                scores = scores[measure]
            systems[name] = scores
    else:
        raise TypeError("table must be a dict {system: per-query scores} or a DataFrame with one "
                        f"column per system, not {type(table).__name__}")
    if len(systems) < 2:
        raise ValueError(f"need at least 2 systems to compare, got {len(systems)}")
    return systems


def _add_adjustment(out: pd.DataFrame, correction, alpha: float) -> pd.DataFrame:
    """Append p_adj (Holm) and significant columns."""
    if correction == "holm":
        out["p_holm"] = holm(out["p_value"].to_numpy())
        out["significant"] = out["p_holm"] <= alpha
    elif correction is None:
        out["significant"] = out["p_value"] <= alpha
    else:
        raise ValueError(f"unknown correction {correction!r}: choose 'holm' or None")
    return out


def pairwise(table, test="permutation", *, measure: str | None = None, correction="holm",
             alpha: float = 0.05, on: str = "strict", **test_kwargs) -> pd.DataFrame:
    """Test every pair of systems; one row per pair (a, b) with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm.

    ``table``: ``{system: Series of per-query scores}``, ``{system: evaluate() DataFrame}``
    with ``measure=``, or a wide DataFrame (index qid, one column per system). Pairs come in
    the systems' order (a before b). ``test``: a name in :data:`TESTS`; ``test_kwargs`` go
    to it (e.g. ``n_perm=``, ``seed=``; every pair uses the same seed). ``p_holm`` is Holm's
    adjustment over all pairs (``correction=None`` omits it); ``significant`` is
    ``p_holm <= alpha``.
    """
    fn = _get_test(test)
    systems = _systems_table(table, measure)
    rows = []
    for name_a, name_b in itertools.combinations(systems, 2):
        sa, sb = systems[name_a], systems[name_b]
        if isinstance(sa, pd.Series) and sa.name is None:
            sa = sa.rename(name_a)
        if isinstance(sb, pd.Series) and sb.name is None:
            sb = sb.rename(name_b)
        x, y, _ = _paired(sa, sb, on)
        result = fn(x, y, **test_kwargs)
        rows.append({"a": name_a, "b": name_b, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                     "mean_diff": float((x - y).mean()), "p_value": float(result.p_value), "n": int(x.size)})
    out = pd.DataFrame(rows)
    return _add_adjustment(out, correction, alpha)


def compare(df_a: pd.DataFrame, df_b: pd.DataFrame, measures=None, *, test="permutation",
            correction="holm", alpha: float = 0.05, on: str = "strict", **test_kwargs) -> pd.DataFrame:
    """Test two systems on each measure; one row per measure with mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm.

    ``df_a`` and ``df_b`` are :func:`searchgrade.evaluate` DataFrames (index qid, one column
    per measure). ``measures``: one name, a list, or None for every column of ``df_a``
    (each must be in ``df_b``). ``p_holm`` adjusts over the measures compared.
    """
    fn = _get_test(test)
    for label, df in (("df_a", df_a), ("df_b", df_b)):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{label} must be a DataFrame of per-query scores (index qid, one column "
                            f"per measure), not {type(df).__name__}")
    if measures is None:
        measures = list(df_a.columns)
    elif isinstance(measures, str):
        measures = [measures]
    else:
        measures = list(measures)
    if not measures:
        raise ValueError("no measures to compare")
    for label, df in (("df_a", df_a), ("df_b", df_b)):
        missing = [m for m in measures if m not in df.columns]
        if missing:
            raise KeyError(f"{label} has no column(s) {missing}; its columns are {list(df.columns)}")
    rows = []
    for measure in measures:
        x, y, _ = _paired(df_a[measure].rename(f"df_a[{measure!r}]"),
                          df_b[measure].rename(f"df_b[{measure!r}]"), on)
        result = fn(x, y, **test_kwargs)
        rows.append({"measure": measure, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                     "mean_diff": float((x - y).mean()), "p_value": float(result.p_value), "n": int(x.size)})
    out = pd.DataFrame(rows).set_index("measure")
    return _add_adjustment(out, correction, alpha)


def mean_over_runs(runs: Sequence) -> pd.Series:
    """Per-query mean over repeated runs of one system: mean_r score_r(q); every run must cover the same queries.

    ``runs``: a list of Series (or ``{qid: score}`` dicts) from repeated measurements of the
    same condition. The result feeds the tests above (e.g. :func:`sign_test` on run means,
    as the source article on repeated measurement does).
    """
    if isinstance(runs, (pd.Series, pd.DataFrame, Mapping)) or not isinstance(runs, Sequence):
        raise TypeError("runs must be a list of per-query score Series (one per repeated run)")
    if len(runs) == 0:
        raise ValueError("no runs to average")
    series = []
    for i, run in enumerate(runs):
        s = _as_series_or_array(run, f"run {i}")
        if not isinstance(s, pd.Series):
            raise TypeError(f"run {i} is a plain array: pass Series or {{qid: score}} dicts so runs "
                            "are matched by query id")
        if len(s) == 0:
            raise ValueError(f"empty sample: run {i} has no queries")
        _check_finite(s.to_numpy(), s.index, f"run {i}")
        series.append(s)
    first = series[0]
    for i, s in enumerate(series[1:], start=1):
        only_0 = first.index.difference(s.index)
        only_i = s.index.difference(first.index)
        if len(only_0) or len(only_i):
            raise ValueError(f"run {i} covers different queries from run 0: {len(only_0) + len(only_i)} "
                             f"query ids differ (only in run 0: {_examples(only_0) or 'none'}; "
                             f"only in run {i}: {_examples(only_i) or 'none'})")
    stacked = np.vstack([s.reindex(first.index).to_numpy() for s in series])
    return pd.Series(stacked.mean(axis=0), index=first.index, name=first.name)


# --------------------------------------------------------------------------- topic-set size

_VARIANTS = ("full", "disjoint")


def _check_sizes(sizes, n: int, variant: str) -> list[int]:
    """Subset sizes as ints, refused when a sample cannot be drawn from n queries."""
    if variant not in _VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: choose 'full' (a sample of N against the "
                         "full set) or 'disjoint' (two disjoint samples of N, Voorhees & Buckley 2002)")
    if isinstance(sizes, (int, np.integer)):
        sizes = [sizes]
    sizes = [_positive_int(s, "each topic-set size N") for s in sizes]
    if not sizes:
        raise ValueError("no topic-set sizes given")
    for size in sizes:
        if variant == "full" and size > n:
            raise ValueError(f"topic-set size N = {size} is larger than the {n} queries available: "
                             f"a sample of N queries drawn without replacement needs N <= {n}")
        if variant == "disjoint" and 2 * size > n:
            raise ValueError(f"topic-set size N = {size} needs 2N = {2 * size} queries for two disjoint "
                             f"sets, but only {n} queries are available (N <= {n // 2})")
    return sizes


def _size_rng(seed, size: int, variant: str) -> np.random.Generator:
    """A generator for one topic-set size, so results for N do not depend on the other sizes asked for."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, None or a numpy Generator, not {seed!r}")
    return np.random.default_rng([int(seed), size, _VARIANTS.index(variant)])


def _subset_means(D: np.ndarray, rng: np.random.Generator, size: int, n_draws: int,
                  variant: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean differences of every pair (rows of D) on n_draws random query samples of the given size.

    Returns (first, second): arrays (n_pairs, n_draws); second is None for variant 'full'. The
    same samples serve every pair (as in Voorhees & Buckley's experiment).
    """
    n = D.shape[1]
    k = 2 * size if variant == "disjoint" else size
    draws = np.stack([rng.choice(n, size=k, replace=False) for _ in range(n_draws)])
    first = np.empty((D.shape[0], n_draws))
    second = np.empty((D.shape[0], n_draws)) if variant == "disjoint" else None
    rows = max(1, _CHUNK_ELEMENTS // (D.shape[0] * k))
    for start in range(0, n_draws, rows):
        stop = min(start + rows, n_draws)
        chunk = draws[start:stop]
        first[:, start:stop] = D[:, chunk[:, :size]].sum(axis=2) / size
        if second is not None:
            second[:, start:stop] = D[:, chunk[:, size:]].sum(axis=2) / size
    return first, second


def _tie_tolerance(D: np.ndarray) -> float:
    """Mean differences at most this far from 0 count as ties (rounding of sums, not real differences)."""
    return 1e-10 * max(1.0, float(np.abs(D).max()) if D.size else 1.0)


def _swaps(D: np.ndarray, full: np.ndarray, first: np.ndarray, second, tol: float):
    """Boolean (n_pairs, n_draws) arrays: strict reversal, and undecided (a tie on a sample)."""
    s1 = np.where(np.abs(first) <= tol, 0, np.sign(first))
    if second is None:
        ref = np.sign(full)[:, None]
        swapped = s1 == -ref
        tied = s1 == 0
    else:
        s2 = np.where(np.abs(second) <= tol, 0, np.sign(second))
        swapped = (s1 * s2) < 0
        tied = (s1 == 0) | (s2 == 0)
    return swapped, tied


def swap_rate(a, b, sizes=(10, 25, 50, 100, 200, 500), n_draws: int = 1000, *, variant: str = "full",
              seed=DEFAULT_SEED, on: str = "strict") -> pd.DataFrame:
    """Swap rate per topic-set size N: share of n_draws random N-query samples whose sign of mean(a - b) is reversed.

    ``variant="full"``: each sample of N queries (drawn without replacement) is compared with
    the full query set; a swap is ``sign(mean_S(d)) == -sign(mean_all(d))``. Refused when the
    full-set means are equal (there is no order to reverse). ``variant="disjoint"``
    (Voorhees & Buckley 2002): two disjoint samples of N each; a swap is when they order the
    pair in opposite directions. A sample whose mean difference is 0 (within rounding) is a
    tie, counted in ``tie_rate``, not as a swap. Returns a DataFrame indexed by N with
    ``swap_rate``, ``tie_rate`` and ``n_draws``; ``attrs`` hold the variant and the full-set
    mean difference.
    """
    n_draws = _positive_int(n_draws, "n_draws")
    d = _differences(a, b, on)
    sizes = _check_sizes(sizes, d.size, variant)
    D = d[None, :]
    full = D.mean(axis=1)
    tol = _tie_tolerance(D)
    if variant == "full" and abs(full[0]) <= tol:
        raise ValueError("the two systems have the same mean on the full query set (difference 0): "
                         "there is no full-set order to reverse; use variant='disjoint'")
    rows = []
    for size in sizes:
        first, second = _subset_means(D, _size_rng(seed, size, variant), size, n_draws, variant)
        swapped, tied = _swaps(D, full, first, second, tol)
        rows.append({"N": size, "swap_rate": float(swapped.mean()), "tie_rate": float(tied.mean()),
                     "n_draws": n_draws})
    out = pd.DataFrame(rows).set_index("N")
    out.attrs.update(variant=variant, full_diff=float(full[0]), n_queries=int(d.size))
    return out


DEFAULT_BINS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10, math.inf)
"""Edges of the ``|mean difference|`` bins of :func:`swap_rates_by_difference` (0.01 wide up to 0.1)."""


def _bin_labels(edges: np.ndarray) -> list[str]:
    """'[0.00, 0.01)' style labels; the last bin is '>= 0.10' when open-ended."""
    def fmt(x: float) -> str:
        return f"{x:.2f}" if abs(round(x, 2) - x) < 1e-12 else f"{x:g}"

    labels = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        labels.append(f">= {fmt(lo)}" if math.isinf(hi) else f"[{fmt(lo)}, {fmt(hi)})")
    return labels


def swap_rates_by_difference(table, sizes=(10, 25, 50, 100, 200, 500), n_draws: int = 1000, *,
                             bins=DEFAULT_BINS, variant: str = "full", bin_by: str = "full",
                             measure: str | None = None, seed=DEFAULT_SEED,
                             on: str = "strict") -> pd.DataFrame:
    """Swap rate per ``|mean difference|`` bin and topic-set size N over every pair of systems.

    ``table`` as in :func:`pairwise` (``{system: Series}``, ``{system: DataFrame}`` with
    ``measure=``, or a wide DataFrame). For each N the same ``n_draws`` query samples serve
    all pairs; swaps are counted as in :func:`swap_rate` (same ``variant``). ``bin_by="full"``
    puts each pair in the bin of its full-set ``|mean(a - b)|``; ``bin_by="sample"`` puts each
    (pair, sample) in the bin of the ``|mean difference|`` seen on the (first) sample, as Voorhees
    & Buckley (2002) did to read off "how large must a difference on N topics be for a swap
    rate below 5%" (their answer for MAP on 50 topics: about 0.05). Bins are ``[lo, hi)``.
    Returns one row per (bin, N): ``diff_bin``, ``N``, ``n_pairs``, ``n_comparisons``,
    ``swap_rate``, ``tie_rate`` (NaN where a bin is empty).
    """
    n_draws = _positive_int(n_draws, "n_draws")
    if bin_by not in ("full", "sample"):
        raise ValueError(f"bin_by must be 'full' or 'sample', not {bin_by!r}")
    edges = np.asarray(bins, dtype=float)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0) or edges[0] < 0:
        raise ValueError(f"bins must be at least two increasing edges >= 0, got {bins!r}")
    systems = _systems_table(table, measure)
    names = list(systems)
    pairs = list(itertools.combinations(names, 2))
    diffs, ref_index = [], None
    for name_a, name_b in pairs:
        sa, sb = systems[name_a], systems[name_b]
        if isinstance(sa, pd.Series) and sa.name is None:
            sa = sa.rename(name_a)
        if isinstance(sb, pd.Series) and sb.name is None:
            sb = sb.rename(name_b)
        x, y, ids = _paired(sa, sb, on)
        if ids is not None:
            if ref_index is None:
                ref_index = ids
            elif not ref_index.equals(ids):
                if len(ref_index) != len(ids) or len(ref_index.difference(ids)):
                    raise ValueError(f"pair ({name_a!r}, {name_b!r}) is compared on a different query set "
                                     f"({len(ids)} queries) from pair {pairs[0]!r} ({len(ref_index)}); "
                                     "every pair must share the same queries: restrict all systems to "
                                     "the common queries first")
                order = ids.get_indexer(ref_index)
                x, y = x[order], y[order]
        diffs.append(x - y)
    D = np.vstack(diffs)
    n = D.shape[1]
    sizes = _check_sizes(sizes, n, variant)
    full = D.mean(axis=1)
    tol = _tie_tolerance(D)
    if variant == "full":
        zero = [pairs[i] for i in np.flatnonzero(np.abs(full) <= tol)]
        if zero:
            raise ValueError(f"{len(zero)} pair(s) have the same mean on the full query set (e.g. "
                             f"{zero[0]}): there is no full-set order to reverse; use variant='disjoint'")
    labels = _bin_labels(edges)
    rows = []
    for size in sizes:
        first, second = _subset_means(D, _size_rng(seed, size, variant), size, n_draws, variant)
        swapped, tied = _swaps(D, full, first, second, tol)
        if bin_by == "full":
            magnitude = np.repeat(np.abs(full)[:, None], n_draws, axis=1)
        else:
            magnitude = np.abs(first)
        which = np.digitize(magnitude, edges, right=False) - 1   # bin i holds [edges[i], edges[i+1])
        for i, label in enumerate(labels):
            mask = which == i
            count = int(mask.sum())
            rows.append({
                "diff_bin": label, "N": size,
                "n_pairs": int(mask.any(axis=1).sum()),
                "n_comparisons": count,
                "swap_rate": float(swapped[mask].mean()) if count else math.nan,
                "tie_rate": float(tied[mask].mean()) if count else math.nan,
            })
    out = pd.DataFrame(rows)
    out["diff_bin"] = pd.Categorical(out["diff_bin"], categories=labels, ordered=True)
    out.attrs.update(variant=variant, bin_by=bin_by, n_queries=int(n), n_pairs=len(pairs))
    return out


# --------------------------------------------------------------------------- ranking agreement


def _two_rankings(a, b) -> tuple[np.ndarray, np.ndarray, list]:
    """Scores of the same systems from two {system: score} mappings/Series, aligned; mismatch refused."""
    sa, sb = [], []
    for x, label in ((a, "a"), (b, "b")):
        if isinstance(x, Mapping) and not isinstance(x, pd.Series):
            x = pd.Series(dict(x), dtype=object)
        if not isinstance(x, pd.Series):
            raise TypeError(f"{label} must be a {{system: score}} dict or a Series indexed by system, "
                            f"not {type(x).__name__}")
        if x.index.has_duplicates:
            raise ValueError(f"{label} lists system(s) {_examples(x.index[x.index.duplicated()].unique())} more than once")
        try:
            x = pd.Series(x.to_numpy(dtype=float), index=x.index)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{label} must hold numeric scores ({exc})") from None
        (sa if label == "a" else sb).append(x)
    sa, sb = sa[0], sb[0]
    only_a, only_b = sa.index.difference(sb.index), sb.index.difference(sa.index)
    if len(only_a) or len(only_b):
        raise ValueError(f"the two rankings cover different systems: {len(only_a) + len(only_b)} differ "
                         f"(only in a: {_examples(only_a) or 'none'}; only in b: {_examples(only_b) or 'none'})")
    if len(sa) < 2:
        raise ValueError(f"need at least 2 systems to compare rankings, got {len(sa)}")
    x = sa.to_numpy()
    y = sb.reindex(sa.index).to_numpy()
    _check_finite(x, sa.index, "a")
    _check_finite(y, sa.index, "b")
    return x, y, list(sa.index)


def kendall_tau(a, b) -> float:
    """Kendall's tau-b of two rankings of the same systems: (C - D) / sqrt((P - T_a)(P - T_b)).

    ``C``/``D``: concordant/discordant system pairs, ``P = m(m-1)/2`` pairs, ``T_a``/``T_b``:
    pairs tied in a/b. Without ties this is ``(C - D) / P``. Same value as
    ``scipy.stats.kendalltau(x, y).statistic``. Inputs: ``{system: score}`` dicts or Series.
    """
    x, y, names = _two_rankings(a, b)
    iu = np.triu_indices(x.size, k=1)
    dx = np.sign(x[:, None] - x[None, :])[iu]
    dy = np.sign(y[:, None] - y[None, :])[iu]
    pairs = dx.size
    untied_a = pairs - int(np.count_nonzero(dx == 0))
    untied_b = pairs - int(np.count_nonzero(dy == 0))
    if untied_a == 0 or untied_b == 0:
        raise ValueError(f"every system has the same score in {'a' if untied_a == 0 else 'b'}: "
                         "Kendall's tau is undefined")
    return float((dx * dy).sum() / math.sqrt(untied_a * untied_b))


def tau_ap(estimate, reference, *, symmetric: bool = False) -> float:
    """AP correlation (Yilmaz, Aslam & Robertson 2008): tau_AP = 2/(m-1) * sum_{i=2..m} C(i)/(i-1) - 1.

    Systems are read top-down in ``estimate`` (highest score first); ``C(i)`` is how many of
    the ``i - 1`` systems above position ``i`` are also above it in ``reference``. Like
    Kendall's tau it is 1 for identical and -1 for reversed rankings, but a swap near the top
    costs more than one near the bottom. Not symmetric: ``symmetric=True`` returns the mean of
    ``tau_ap(a, b)`` and ``tau_ap(b, a)``. Ties in either ranking are refused (tau_AP is
    defined for strict rankings).
    """
    x, y, names = _two_rankings(estimate, reference)
    for values, label in ((x, "estimate"), (y, "reference")):
        uniq, counts = np.unique(values, return_counts=True)
        if (counts > 1).any():
            tied_value = uniq[counts > 1][0]
            tied = [names[i] for i in np.flatnonzero(values == tied_value)]
            raise ValueError(f"tau_AP needs rankings without ties, but in {label} systems "
                             f"{_examples(tied)} share the score {tied_value:g}")

    def one_way(est: np.ndarray, ref: np.ndarray) -> float:
        order = np.argsort(-est, kind="stable")
        ref_sorted = ref[order]
        m = est.size
        # above[i, j]: j is above i in the reference, for j ranked above i in the estimate
        above = ref_sorted[None, :] > ref_sorted[:, None]
        correct = np.tril(above, k=-1).sum(axis=1)[1:]           # C(i) for positions i = 2..m
        return float(2.0 / (m - 1) * np.sum(correct / np.arange(1, m)) - 1.0)

    value = one_way(x, y)
    if symmetric:
        value = 0.5 * (value + one_way(y, x))
    return value
