"""Benchmark fusion: searchgrade.fuse against ranx 0.3.21's fuse, rrf and wsum after min-max.

Three runs of 10,000 queries x 100 documents (seeded; each query's documents drawn from 300,
so the runs overlap in part; scores uniform in [0, 1); each list best first, as a TREC run
file or a retriever gives it). Timed (median of ``--repeats``):

* ``searchgrade``      ``searchgrade.fuse(runs, method, "min-max", params)`` on the dict runs
* ``ranx``             ``ranx.fuse(runs, "min-max", method, params)`` on ranx ``Run`` objects
                       built beforehand (not timed), after numba has compiled its code
* ``ranx first call``  the first call in a fresh process with an empty numba cache
                       (``NUMBA_CACHE_DIR`` set to a new folder): compilation included

ranx runs in a child process (so its first call is really its first); it sends back its
times and the fused scores of the first 500 queries, which must equal searchgrade's within
1e-9 on every (query, document), else the script exits with status 1. No assertion is made
about time; the ratio is searchgrade's median / ranx's compiled median (goal: <= 1.0).

    python benchmarks/bench_fusion.py [--queries 10000] [--repeats 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import bench_meta

METHODS = {"rrf": {"k": 60}, "wsum": {"weights": [0.3, 0.3, 0.4]}}
SAMPLE = 500


def make_runs(n_queries: int, n_docs: int = 100, pool: int = 300, n_runs: int = 3, seed: int = 0) -> list[dict]:
    """Seeded runs ``{qid: {docid: score}}``."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :n_docs]
        scores = (-np.sort(-rng.random((n_queries, n_docs)), axis=1)).tolist()  # each list best first, as in a file
        runs.append({f"q{q}": dict(zip((f"d{d}" for d in docs[q].tolist()), scores[q])) for q in range(n_queries)})
    return runs


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeats`` calls, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def ranx_worker(n_queries: int, repeats: int) -> None:
    """In a fresh process: ranx's first-call and compiled times, and a sample of its fused scores (JSON on stdout)."""
    from importlib.metadata import version

    import ranx

    runs = make_runs(n_queries)
    t0 = time.perf_counter()
    ranx_runs = [ranx.Run(r) for r in runs]
    out = {"build_s": time.perf_counter() - t0, "version": version("ranx"), "methods": {}}
    for method, params in METHODS.items():
        t0 = time.perf_counter()
        fused = ranx.fuse(ranx_runs, norm="min-max", method=method, params=params)
        first = time.perf_counter() - t0
        median, fused = timed(lambda: ranx.fuse(ranx_runs, norm="min-max", method=method, params=params), repeats)
        sample = {q: dict(fused.run[q]) for q in [f"q{i}" for i in range(min(SAMPLE, n_queries))]}
        out["methods"][method] = {"first_s": first, "median_s": median, "sample": sample}
    json.dump(out, sys.stdout)


def _ranx_in_child(n_queries: int, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run([sys.executable, __file__, "--worker", "--queries", str(n_queries),
                               "--repeats", str(repeats)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the ranx worker failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def _differences(ours: dict, sample: dict) -> int:
    """How many sampled (query, document) scores differ by more than 1e-9 (or are missing)."""
    bad = 0
    for q, docs in sample.items():
        bad += len(set(docs) ^ set(ours[q]))
        bad += sum(not math.isclose(s, ours[q].get(d, math.inf), rel_tol=1e-9, abs_tol=1e-9) for d, s in docs.items())
    return bad


def main(argv=None) -> int:
    """Time both libraries, check the values, print a table; exit status 1 if a check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        ranx_worker(args.queries, args.repeats)
        return 0
    import searchgrade
    from searchgrade import fuse          # imported before any timing

    load_before = os.getloadavg()[0]
    load_all = list(os.getloadavg())
    theirs = _ranx_in_child(args.queries, args.repeats)
    runs = make_runs(args.queries)
    rows, failed = [], []
    for method, params in METHODS.items():
        median, fused = timed(lambda: fuse(runs, method, "min-max", params), args.repeats)
        r = theirs["methods"][method]
        bad = _differences(fused, r["sample"])
        if bad:
            failed.append(f"{method}: {bad} sampled scores differ from ranx")
        rows.append({"method": method, "searchgrade_s": median, "ranx_s": r["median_s"],
                     "ranx_first_call_s": r["first_s"], "ratio": median / r["median_s"], "sampled_differences": bad})
    print(f"fusion of 3 runs x {args.queries} queries x 100 documents, min-max (median of {args.repeats})")
    print(f"{'method':8} {'searchgrade':>12} {'ranx':>10} {'ranx 1st':>10} {'ratio':>7}")
    for row in rows:
        print(f"{row['method']:8} {row['searchgrade_s']:11.3f}s {row['ranx_s']:9.3f}s {row['ranx_first_call_s']:9.3f}s "
              f"{row['ratio']:7.2f}")
    print(f"ranx Run objects built in {theirs['build_s']:.1f}s (not timed above)")
    for line in failed:
        print("CHECK FAILED:", line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"runs": 3, "queries": args.queries, "documents": 100, "norm": "min-max", "repeats": args.repeats,
                       "rows": rows, "ranx_build_s": theirs["build_s"], "checks_failed": failed,
                       "load_before": load_before, "load_after": os.getloadavg()[0], "sampled_queries": SAMPLE,
                       "date": time.strftime("%Y-%m-%d"),
                       "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                       "versions": {"ranx": theirs["version"], "searchgrade": searchgrade.__version__,
                                    "numpy": np.__version__, "python": platform.python_version()},
                       "meta": bench_meta.meta(load_before=load_all, measured=[
                           "every time in rows (median of the repeats)", "ranx_build_s",
                           "the sampled score differences"])}, fh, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
