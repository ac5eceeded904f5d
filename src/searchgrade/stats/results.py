"""What the paired tests return (one frozen record per test) and the seed used when none is given."""
from __future__ import annotations

from dataclasses import asdict, dataclass


DEFAULT_SEED = 2007
"""Seed used when none is given (the year of Smucker, Allan & Carterette's comparison)."""

# Elements per chunk of random sign patterns / bootstrap resamples (keeps memory ~20 MB).
_CHUNK_ELEMENTS = 1 << 21
# Exact enumeration of 2**n sign patterns is allowed up to this n.
_MAX_EXACT_N = 20
_N_EXAMPLES = 5


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
