"""Time searchgrade.stats on a KorQuAD-sized query set (5,774 queries by default), and searchgrade.compare against ranx.

Prints the median wall time of each call over a few repeats: the 10,000-permutation paired
randomization test (the number the issue asks for), the t-test, the sign test, a 10,000-sample
bootstrap interval, and the topic-set-size swap-rate experiment. Then the whole comparison
report (score every run, test every pair on every measure) against ``ranx.compare`` on the same
synthetic qrels and runs, with the ratio ranx / searchgrade (above 1: searchgrade is faster).
ranx is timed on one thread (``threads=1``), like searchgrade, and with the same test and
number of permutations; it applies no multiple-testing correction (searchgrade adds Holm's, a
negligible cost).

    python benchmarks/bench_stats.py [--queries 5774] [--repeats 5] [--systems 5] [--compare-queries 1000]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time
import warnings

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


def make_collection(n_queries: int, n_systems: int, depth: int = 100, seed: int = 20261130):
    """Synthetic qrels (grades 0-2 on depth documents per query) and n_systems runs of rising quality."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(g) for j, g in enumerate(rng.choice(3, depth, p=[0.8, 0.15, 0.05]))}
             for i in range(n_queries)}
    runs = {}
    for k in range(n_systems):
        runs[f"sys{k}"] = {q: {d: float(rng.random() + 0.1 * k * g) for d, g in docs.items()}
                           for q, docs in qrels.items()}
    return qrels, runs


def bench_compare(n_queries: int, n_systems: int, repeats: int) -> None:
    """searchgrade.compare against ranx.compare: same runs, measures, test and permutations; one line per test."""
    from searchgrade.comparison import compare

    warnings.filterwarnings("ignore", message="unsafe cast")   # a numba note from ranx's nDCG kernel
    try:
        import ranx
    except ImportError:
        print("ranx is not installed (the bench extra): compare() timed alone")
        ranx = None
    qrels, runs = make_collection(n_queries, n_systems)
    measures, ranx_metrics = ["nDCG@10", "AP@100"], ["ndcg@10", "map@100"]
    print(f"\ncompare(): {n_systems} systems x {len(measures)} measures ({n_systems * (n_systems - 1) // 2} pairs each) "
          f"on {n_queries:,} queries of 100 documents; median (min) of {repeats} runs")
    if ranx is not None:
        ranx_qrels = ranx.Qrels(qrels)
        ranx_runs = [ranx.Run(run, name=name) for name, run in runs.items()]
    agreement = ""
    for label, ours, theirs in [("permutation, 10,000", {"test": "permutation", "n_perm": 10_000}, "fisher"),
                                ("paired t-test", {"test": "t"}, "student")]:
        median, best, report = timed(lambda: compare(qrels, runs, measures, **ours), repeats)
        line = f"{'searchgrade.compare, ' + label:<46s} {median * 1000:8.1f} ms  ({best * 1000:.1f} ms)"
        if ranx is not None:
            r_median, r_best, theirs_report = timed(lambda: ranx.compare(ranx_qrels, ranx_runs, ranx_metrics, stat_test=theirs,
                                                              n_permutations=10_000, max_p=0.05, threads=1),
                                        repeats)
            line += f"   ranx {r_median * 1000:8.1f} ms ({r_best * 1000:.1f} ms)   ranx / searchgrade = {r_median / median:.2f}"
            gap = max(abs(float(report.means.loc[name, m]) - theirs_report.results[name][rm])
                      for name in runs for m, rm in zip(measures, ranx_metrics))
            agreement = f"(the two reports' means agree within {gap:.1e})"
        print(line)
    if agreement:
        print(agreement)


def main(argv=None) -> None:
    """Run the benchmark and print one line per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=5774)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--systems", type=int, default=5, help="systems in the compare() benchmark")
    parser.add_argument("--compare-queries", type=int, default=1000, help="queries in the compare() benchmark")
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
    bench_compare(args.compare_queries, args.systems, args.repeats)


if __name__ == "__main__":
    main()
