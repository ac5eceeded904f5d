"""Time searchgrade.stats on a KorQuAD-sized query set (5,774 queries by default).

Prints the median wall time of each call over a few repeats: the 10,000-permutation paired
randomization test (the number the issue asks for), the t-test, the sign test, a 10,000-sample
bootstrap interval, and the topic-set-size swap-rate experiment.

    python benchmarks/bench_stats.py [--queries 5774] [--repeats 5]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np
import pandas as pd

from searchgrade import stats


def make_pair(n_queries: int, seed: int = 20261129) -> tuple[pd.Series, pd.Series]:
    """Two correlated nDCG-like per-query score Series in [0, 1], indexed q0, q1, ..."""
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n_queries)], name="qid")
    b = rng.beta(2.0, 1.5, n_queries)
    a = np.clip(b + rng.normal(0.005, 0.2, n_queries), 0.0, 1.0)
    return pd.Series(a, index=index, name="A"), pd.Series(b, index=index, name="B")


def timed(fn, repeats: int) -> tuple[float, float, object]:
    """(median seconds, min seconds, last result) of fn() over repeats calls, after one warm-up."""
    result = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), result


def main(argv=None) -> None:
    """Run the benchmark and print one line per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5774)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    a, b = make_pair(args.queries)
    print(f"searchgrade.stats on {args.queries:,} queries; numpy {np.__version__}, "
          f"Python {platform.python_version()}, {platform.machine()}; median (min) of {args.repeats} runs")
    calls = [
        ("permutation_test, 10,000 permutations", lambda: stats.permutation_test(a, b, n_perm=10_000)),
        ("t_test", lambda: stats.t_test(a, b)),
        ("sign_test", lambda: stats.sign_test(a, b)),
        ("bootstrap_ci, 10,000 resamples", lambda: stats.bootstrap_ci(a, b, n_boot=10_000)),
        ("swap_rate, 6 sizes x 1,000 draws (full)", lambda: stats.swap_rate(a, b)),
        ("swap_rate, 6 sizes x 1,000 draws (disjoint)",
         lambda: stats.swap_rate(a, b, sizes=(10, 25, 50, 100, 200, 500), variant="disjoint")),
    ]
    for label, fn in calls:
        median, best, result = timed(fn, args.repeats)
        summary = str(result) if not isinstance(result, pd.DataFrame) else \
            "swap rates " + ", ".join(f"N={k}: {v:.3f}" for k, v in result["swap_rate"].items())
        print(f"{label:<46s} {median * 1000:8.1f} ms  ({best * 1000:.1f} ms)   {summary}")


if __name__ == "__main__":
    main()
