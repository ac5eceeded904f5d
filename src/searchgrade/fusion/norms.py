"""Score normalisations, one registry row each: ranx 0.3.21's seven by ranx's names, plus searchgrade's own ``min-max-one``.

Each normalisation maps one run's list for one query (``s`` its scores, ``n`` its length,
``C`` the number of candidates all runs retrieved for the query, ``r`` a document's 1-based
rank in trec_eval order):

==================  ==================================================================  ==========
name                value                                                               keeps order
==================  ==================================================================  ==========
min-max             (s - min) / max(max - min, 1e-9)                                   yes
min-max-inverted    (max - s) / max(max - min, 1e-9)                                   reversed
max                 s / max(max, 1e-9)                                                 yes
sum                 (s - min) / max(sum - n * min, 1e-9)                               yes
zmuv                (s - mean) / max(sd, 1e-9), sd the population standard deviation  yes
rank                1 - (r - 1) / n                                                    yes
borda               1 - (r - 1) / C; a candidate the run did not retrieve gets          no
                    0.5 - (n - 1) / (2 C), so every run then scores every candidate
min-max-one         (s - min) / (max - min), and 1 when every score is equal (no        yes
                    floor on the span): searchgrade's ``convex``; ranx has no such row
==================  ==================================================================  ==========

The 1e-9 floors and the values for lists of equal scores (0 for ``min-max``) are ranx's.
``None`` leaves the scores as they are. After a normalisation that keeps each list's order,
ranks stay those of the raw scores (ranx does not sort again, so a tie that only the
normalisation's rounding creates keeps its place); after the other two they are recomputed
in trec_eval order of the new scores (``ties="input"``: ties in the run's order). ranx
ranks a borda-normalised list in the order of its candidate set, which changes from one
Python process to the next (string hashing); searchgrade uses trec_eval's order, so a
rank-based method after ``borda`` may differ from ranx when two runs fail to retrieve the
same document.

Rounding, where searchgrade and ranx differ on purpose: ``sum`` and ``zmuv`` subtract the
list's minimum before they add up (``sum - n * min`` as the sum of ``s - min``; the mean and
sd of ``s - min``: the same fractions), which keeps the digits that large scores close
together would lose. ranx adds the raw scores first, so on scores near 1e15 that differ by
a few units its values can be off by more than 1e-3 relative while searchgrade's agree with
the exact fraction to 1e-12 relative (tests/fusion/test_norms.py checks it with
:class:`fractions.Fraction`); on ordinary scores the two agree to about 1e-15. A list whose largest ``|s|`` is above ``2**480`` is first divided by a power of two,
which changes no value, so that no sum, span or square overflows: zmuv of scores near
1e300 gives the z-scores where ranx's standard deviation overflows to infinity (and its
values to 0). ``max`` is not scaled.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .pool import Pool

__all__ = ["Norm", "NORMS", "register_norm", "normalise_pool", "by_query"]

FLOOR = 1e-9  # ranx's smallest denominator
HUGE = 480  # a query's scores above 2**HUGE are scaled down to it by a power of two first (see _scaled)


@dataclass(frozen=True)
class Norm:
    """One normalisation: its name, the kernel ``(pool, run index) -> new scores``, its order, its doc."""

    name: str
    kernel: Callable[[Pool, int], np.ndarray]
    keeps_order: bool
    doc: str
    aliases: tuple[str, ...] = ()


NORMS: dict[str, Norm] = {}
"""The normalisations by name (aliases included)."""


def register_norm(norm: Norm) -> None:
    """Add a row to :data:`NORMS` under its name and aliases."""
    for name in (norm.name, *norm.aliases):
        NORMS[name] = norm


def by_query(pool: Pool, row: np.ndarray, ufunc: np.ufunc, identity: float) -> np.ndarray:
    """Per query, ``ufunc`` reduced over the run's present scores (``identity`` where it has none)."""
    values = np.where(np.isnan(row), identity, row)
    out = np.full(len(pool.qids), identity, dtype=np.float64)
    nonempty = np.flatnonzero(pool.starts[:-1] < pool.starts[1:])
    if len(nonempty):
        out[nonempty] = ufunc.reduceat(values, pool.starts[nonempty])
    return out


def _scaled(pool: Pool, row: np.ndarray) -> np.ndarray:
    """The row, each query whose largest |score| is above 2**HUGE divided by a power of two (exactly) so that
    no sum, span or square overflows; every other query as it is, bit for bit."""
    top = by_query(pool, np.abs(row), np.fmax, 0.0)
    exponent = np.frexp(top)[1]
    if not (exponent > HUGE).any():
        return row
    return np.ldexp(row, np.where(exponent > HUGE, HUGE - exponent, 0)[pool.cand_q])


def _stats(pool: Pool, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The row (scaled: :func:`_scaled`) and, per candidate, its query's min and max over the run, and the
    run's list length."""
    row = _scaled(pool, pool.scores[r])
    lo = by_query(pool, row, np.minimum, np.inf)[pool.cand_q]
    hi = by_query(pool, row, np.maximum, -np.inf)[pool.cand_q]
    n = pool.counts(~np.isnan(row))[pool.cand_q]
    return row, lo, hi, n


def _min_max(pool: Pool, r: int) -> np.ndarray:
    """The ``min-max`` row's kernel (see the module docstring)."""
    row, lo, hi, _ = _stats(pool, r)
    return (row - lo) / np.maximum(hi - lo, FLOOR)


def _min_max_inverted(pool: Pool, r: int) -> np.ndarray:
    """The ``min-max-inverted`` row's kernel (see the module docstring)."""
    row, lo, hi, _ = _stats(pool, r)
    return (hi - row) / np.maximum(hi - lo, FLOOR)


def _min_max_one(pool: Pool, r: int) -> np.ndarray:
    """The ``min-max-one`` row's kernel (see the module docstring)."""
    row, lo, hi, _ = _stats(pool, r)
    span = hi - lo
    out = np.divide(row - lo, span, out=np.ones_like(row), where=span > 0)
    out[np.isnan(row)] = np.nan
    return out


def _max(pool: Pool, r: int) -> np.ndarray:
    """The ``max`` row's kernel (see the module docstring)."""
    row = pool.scores[r]  # not scaled: the floor would then bind at another place
    hi = by_query(pool, row, np.maximum, -np.inf)[pool.cand_q]
    return row / np.maximum(hi, FLOOR)


def _sum(pool: Pool, r: int) -> np.ndarray:
    """The ``sum`` row's kernel: sum - n * min added up as the sum of s - min (see the module docstring)."""
    row, lo, _, _ = _stats(pool, r)
    shifted = row - lo
    return shifted / np.maximum(by_query(pool, shifted, np.add, 0.0)[pool.cand_q], FLOOR)


def _zmuv(pool: Pool, r: int) -> np.ndarray:
    """The ``zmuv`` row's kernel: mean and sd of s - min (see the module docstring)."""
    row, lo, _, n = _stats(pool, r)
    shifted = row - lo
    centred = shifted - by_query(pool, shifted, np.add, 0.0)[pool.cand_q] / np.maximum(n, 1)
    sd = np.sqrt(by_query(pool, centred * centred, np.add, 0.0)[pool.cand_q] / np.maximum(n, 1))
    return centred / np.maximum(sd, FLOOR)


def _rank(pool: Pool, r: int) -> np.ndarray:
    """The ``rank`` row's kernel (see the module docstring)."""
    ranks = pool.ranked().ranks[r]
    n = pool.counts(~np.isnan(ranks))[pool.cand_q]
    return 1 - (ranks - 1) / n


def _borda(pool: Pool, r: int) -> np.ndarray:
    """The ``borda`` row's kernel (see the module docstring)."""
    ranks = pool.ranked().ranks[r]
    n = pool.counts(~np.isnan(ranks))[pool.cand_q]
    c = np.diff(pool.starts)[pool.cand_q]
    return np.where(np.isnan(ranks), 0.5 - (n - 1) / (2 * c), 1 - (ranks - 1) / c)


for _row in (
    Norm("min-max", _min_max, True, "(s - min) / max(max - min, 1e-9)", ("min_max",)),
    Norm("min-max-inverted", _min_max_inverted, False, "(max - s) / max(max - min, 1e-9): the lowest score first",
         ("min_max_inverted",)),
    Norm("max", _max, True, "s / max(max, 1e-9)"),
    Norm("sum", _sum, True, "(s - min) / max(sum - n * min, 1e-9)"),
    Norm("zmuv", _zmuv, True, "zero mean, unit variance: (s - mean) / max(sd, 1e-9)"),
    Norm("rank", _rank, True, "1 - (rank - 1) / n"),
    Norm("borda", _borda, False, "1 - (rank - 1) / C; unretrieved candidates 0.5 - (n - 1) / (2 C)"),
    Norm("min-max-one", _min_max_one, True, "(s - min) / (max - min); 1 when all scores are equal (convex)"),
):
    register_norm(_row)


def normalise_pool(pool: Pool, norm: Norm | None) -> Pool:
    """Every run of the pool normalised by ``norm`` (None: unchanged)."""
    if norm is None:
        return pool
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.stack([norm.kernel(pool, r) for r in range(pool.n_runs)])
    return pool.with_scores(scores, norm.keeps_order)
