"""Paired significance tests: permutation (randomization), t, sign and the bootstrap interval."""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as _sps

from .inputs import _differences, _positive_int, _rng, _seed_value
from .results import (_CHUNK_ELEMENTS, _MAX_EXACT_N, DEFAULT_SEED, BootstrapResult, PermutationResult, SignTestResult,
                      TTestResult)


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
