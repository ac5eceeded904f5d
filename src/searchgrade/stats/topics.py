"""Topic-set size: how often a sample of N queries orders two systems the other way round (Voorhees & Buckley 2002)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from .inputs import _differences, _paired_systems, _positive_int
from .multiple import _systems_table
from .results import _CHUNK_ELEMENTS, DEFAULT_SEED


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
    pairs = list(itertools.combinations(list(systems), 2))
    D = _pair_differences(systems, pairs, on)
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
        magnitude = np.repeat(np.abs(full)[:, None], n_draws, axis=1) if bin_by == "full" else np.abs(first)
        which = np.digitize(magnitude, edges, right=False) - 1   # bin i holds [edges[i], edges[i+1])
        rows += _bin_rows(which, labels, size, swapped, tied)
    out = pd.DataFrame(rows)
    out["diff_bin"] = pd.Categorical(out["diff_bin"], categories=labels, ordered=True)
    out.attrs.update(variant=variant, bin_by=bin_by, n_queries=int(n), n_pairs=len(pairs))
    return out


def _pair_differences(systems: dict[str, object], pairs: list[tuple[str, str]], on: str) -> np.ndarray:
    """Per-query differences a - b of every pair, one row per pair, all on the first pair's query order.

    Every pair must be compared on the same query set (the same samples serve all pairs).
    """
    diffs, ref_index = [], None
    for name_a, name_b in pairs:
        x, y, ids = _paired_systems(systems, name_a, name_b, on)
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
    return np.vstack(diffs)


def _bin_rows(which: np.ndarray, labels: list[str], size: int, swapped: np.ndarray, tied: np.ndarray) -> list[dict]:
    """One row per bin for topic-set size N: pairs and comparisons in the bin, their swap and tie rates."""
    rows = []
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
    return rows
