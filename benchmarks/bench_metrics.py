"""Benchmark searchgrade.evaluate against pytrec_eval, ranx and ir_measures, side by side.

Prints one table -- median wall time end to end, per-run cost with the qrels prepared once, peak
memory, each as a ratio to pytrec_eval, and the largest difference from pytrec_eval's values --
plus the paired randomization test of searchgrade.stats, and writes everything to
benchmarks/results/metrics.json (the book's performance appendix reads that file).

Every library runs in fresh subprocesses on the same seeded data:

* time: one warm-up call (imports, numba compilation for ranx), then ``--repeats`` end-to-end
  calls (prepare the qrels + score one run, from Python dicts); then the qrels are prepared once
  and ``--runs`` further runs of the same qrels are scored one by one (the situation of a
  chapter comparing ten systems): the median per run.
* memory: a separate process warms the library up on a tiny input, generates the data, takes its
  resident size as the baseline, resets the kernel's high-water mark (``/proc/self/clear_refs``)
  and reports the peak resident memory of one end-to-end call above that baseline.

    python benchmarks/bench_metrics.py [--queries 3000] [--docs 1000] [--repeats 5] [--runs 10]
    python benchmarks/bench_metrics.py --quick        # a small smoke run, results not written

Run it on a quiet machine: the load average is printed and stored with the results.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

import bench_meta

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TREC_MEASURES = ["map", "ndcg_cut_10", "recip_rank", "P_10", "recall_100", "bpref", "ndcg"]
RANX_MEASURES = ["map", "ndcg@10", "mrr", "precision@10", "recall@100", "bpref", "ndcg"]
LIBRARIES = ["searchgrade", "pytrec_eval", "ranx", "ir_measures"]
PACKAGES = {"searchgrade": "searchgrade", "pytrec_eval": "pytrec-eval-terrier", "ranx": "ranx",
            "ir_measures": "ir-measures"}
TOLERANCE = 1e-6  # searchgrade must agree with pytrec_eval to this (the test suite demands the same)
SEED = 20261129


# ------------------------------------------------------------------------------------ data
def make_qrels(n_queries: int, collection: int, seed: int = SEED) -> dict:
    """Graded qrels {qid: {docid: grade}}: 20-200 judged documents per query, grades 0-3."""
    rng = np.random.default_rng(seed)
    qrels = {}
    for q in range(n_queries):
        n_judged = int(rng.integers(20, 200))
        judged = rng.choice(collection, size=n_judged, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=n_judged)
        qrels[f"q{q}"] = {f"D{d:07d}": int(g) for d, g in zip(judged.tolist(), grades.tolist())}
    return qrels


def make_run(qrels: dict, n_docs: int, collection: int, seed: int) -> dict:
    """A run {qid: {docid: score}} of n_docs documents per query: about half of the query's judged
    documents plus others from the collection, scores on a coarse grid (many ties, as BM25 on
    short texts produces)."""
    rng = np.random.default_rng(seed)
    run = {}
    for qid, judged in qrels.items():
        judged_ids = np.array([int(d[1:]) for d in judged], dtype=np.int64)
        found = rng.choice(judged_ids, size=min(len(judged_ids) // 2, n_docs), replace=False)
        others = rng.choice(collection, size=n_docs + len(judged_ids), replace=False)
        others = others[~np.isin(others, judged_ids)][: n_docs - len(found)]
        ids = rng.permutation(np.concatenate([found, others]))
        scores = np.round(rng.gamma(2.0, 2.0, size=len(ids)), 1)
        run[qid] = dict(zip([f"D{d:07d}" for d in ids.tolist()], scores.tolist()))
    return run


def describe(qrels: dict, run: dict) -> dict:
    """How tied and how judged the run is: shares of run entries."""
    entries = tied = judged = 0
    for qid, docs in run.items():
        scores = np.fromiter(docs.values(), dtype=np.float64, count=len(docs))
        _, counts = np.unique(scores, return_counts=True)
        entries += len(docs)
        tied += int(counts[counts > 1].sum())
        judged += sum(d in qrels[qid] for d in docs)
    return {"run_entries": entries, "tied_share": tied / entries, "judged_share": judged / entries,
            "judged_per_query": sum(map(len, qrels.values())) / len(qrels)}


def make_data(args) -> tuple[dict, dict]:
    """The benchmark's qrels and its first run (identical in every process: seeded)."""
    qrels = make_qrels(args.queries, args.collection)
    return qrels, make_run(qrels, args.docs, args.collection, seed=SEED + 1)


# -------------------------------------------------------------------------------- adapters
def adapter(lib: str):
    """(prepare(qrels) -> state, evaluate(state, run) -> output, values(state, output) -> {measure: {qid: v}})."""
    if lib == "searchgrade":
        import searchgrade as sg

        return (lambda qrels: sg.Evaluator(qrels, TREC_MEASURES),
                lambda ev, run: ev.evaluate(run),
                lambda ev, df: {m: df[m].to_dict() for m in TREC_MEASURES})
    if lib == "pytrec_eval":
        import pytrec_eval

        return (lambda qrels: pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES)),
                lambda ev, run: ev.evaluate(run),
                lambda ev, res: {m: {q: v[m] for q, v in res.items()} for m in TREC_MEASURES})
    if lib == "ranx":
        from ranx import Qrels, Run, evaluate

        def ranx_evaluate(rq, run):
            r = Run(run)
            evaluate(rq, r, RANX_MEASURES, return_mean=False)
            return r

        return (Qrels, ranx_evaluate,
                lambda rq, r: {m: dict(r.scores[rm]) for m, rm in zip(TREC_MEASURES, RANX_MEASURES)})
    if lib == "ir_measures":
        import ir_measures
        from ir_measures import AP, RR, Bpref, P, R, nDCG

        measures = [AP, nDCG @ 10, RR, P @ 10, R @ 100, Bpref, nDCG]
        names = {str(m): t for m, t in zip(measures, TREC_MEASURES)}

        def values(ev, metrics):
            out = {m: {} for m in TREC_MEASURES}
            for x in metrics:
                out[names[str(x.measure)]][x.query_id] = x.value
            return out

        return (lambda qrels: ir_measures.evaluator(measures, qrels),
                lambda ev, run: list(ev.iter_calc(run)),
                values)
    raise ValueError(f"unknown library {lib!r}; known: {LIBRARIES}")


# --------------------------------------------------------------------------------- workers
def untied_diff(lib: str, qrels: dict, run: dict, n_queries: int = 300) -> float:
    """Largest difference from pytrec_eval on the first queries once every tie is broken at random.

    Offsets below half the score grid break ties without reordering distinct scores, so what
    remains is what the library computes differently, not how it orders tied documents.
    """
    rng = np.random.default_rng(SEED + 7)
    qids = list(run)[:n_queries]
    sub_qrels = {q: qrels[q] for q in qids}
    untied = {q: dict(zip(run[q], (np.fromiter(run[q].values(), dtype=np.float64, count=len(run[q]))
                                    + rng.permutation(len(run[q])) * 1e-5).tolist())) for q in qids}
    tables = []
    for name in (lib, "pytrec_eval"):
        prepare, evaluate, values = adapter(name)
        state = prepare(sub_qrels)
        tables.append(values(state, evaluate(state, untied)))
    return max_abs_diff(*tables)


def time_worker(lib: str, args) -> dict:
    """Median end-to-end time and per-run time of one library, and its values on the first run."""
    prepare, evaluate, values = adapter(lib)
    qrels, run = make_data(args)
    state = prepare(qrels)
    out = evaluate(state, run)  # warm-up: imports, caches, numba compilation
    vals = values(state, out)
    del state, out
    times = []
    for _ in range(args.repeats):
        gc.collect()
        t0 = time.perf_counter()
        out = evaluate(prepare(qrels), run)
        times.append(time.perf_counter() - t0)
        del out
    without_ties = untied_diff(lib, qrels, run)
    t0 = time.perf_counter()
    state = prepare(qrels)
    prepare_s = time.perf_counter() - t0
    per_run = []
    for seed in range(args.runs):  # further systems on the same qrels, generated one at a time
        other = make_run(qrels, args.docs, args.collection, seed=SEED + 100 + seed)
        gc.collect()
        t0 = time.perf_counter()
        evaluate(state, other)
        per_run.append(time.perf_counter() - t0)
        del other
    return {"library": lib, "times_s": times, "median_s": statistics.median(times), "min_s": min(times),
            "prepare_s": prepare_s, "per_run_times_s": per_run, "per_run_median_s": statistics.median(per_run),
            "evaluator": f"{type(state).__module__}.{type(state).__name__}", "values": vals,
            "max_abs_diff_without_ties": without_ties,
            "data": describe(qrels, run) if lib == "searchgrade" else None}


def _status_kib(field: str) -> int:
    """A VmRSS / VmHWM line of /proc/self/status, in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def memory_worker(lib: str, args) -> dict:
    """Peak resident memory of one end-to-end call above the resident size of the loaded data."""
    prepare, evaluate, _ = adapter(lib)
    small = argparse.Namespace(**{**vars(args), "queries": 20, "docs": 50})
    evaluate(prepare(make_data(small)[0]), make_data(small)[1])  # imports and compilation, off the books
    qrels, run = make_data(args)
    gc.collect()
    try:
        base = _status_kib("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset the peak resident size (VmHWM) to the current size
        method = "VmHWM after reset, minus VmRSS with the data loaded"
    except OSError:  # no /proc: the lifetime peak, which the data generation may already have set
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        method = "ru_maxrss delta (upper bound unknown: data generation may set the peak)"
    out = evaluate(prepare(qrels), run)
    peak = _status_kib("VmHWM") if method.startswith("VmHWM") else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    del out
    return {"library": lib, "peak_mib": (peak - base) / 1024, "data_mib": base / 1024, "memory_method": method}


def stats_worker(args) -> dict:
    """Median time of searchgrade.stats.permutation_test, 10,000 permutations on 5,774 queries."""
    sys.path.insert(0, str(HERE))
    from bench_stats import make_pair, timed

    from searchgrade import stats

    a, b = make_pair(args.stats_queries)
    median, best, result = timed(lambda: stats.permutation_test(a, b, n_perm=args.permutations), args.repeats)
    return {"queries": args.stats_queries, "permutations": args.permutations, "median_s": median, "min_s": best,
            "repeats": args.repeats, "result": str(result)}


def run_worker(kind: str, lib: str, args) -> dict:
    """Run one worker in a fresh interpreter and parse the JSON line it prints."""
    cmd = [sys.executable, __file__, "--worker", kind, "--library", lib,
           "--queries", str(args.queries), "--docs", str(args.docs), "--collection", str(args.collection),
           "--repeats", str(args.repeats), "--runs", str(args.runs),
           "--stats-queries", str(args.stats_queries), "--permutations", str(args.permutations)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} worker for {lib} failed:\n{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- report
def max_abs_diff(a: dict, b: dict) -> float:
    """Largest absolute difference between two {measure: {qid: value}} tables (inf if a query is missing)."""
    worst = 0.0
    for m in TREC_MEASURES:
        if set(a[m]) != set(b[m]):
            return float("inf")
        for q, v in b[m].items():
            worst = max(worst, abs(a[m][q] - v))
    return worst


def machine() -> dict:
    """The machine and software the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = round(int(next(line.split()[1] for line in f if line.startswith("MemTotal"))) / 1024 ** 2, 1)
    except (OSError, StopIteration):
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for pkg in ["pandas", *PACKAGES.values(), "numba"]:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem, "os": platform.platform(), "versions": versions}


def fmt_ratio(x) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.2f}"


def main() -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=3000)
    ap.add_argument("--docs", type=int, default=1000, help="retrieved documents per query")
    ap.add_argument("--collection", type=int, default=500_000, help="documents in the simulated collection")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10, help="further runs scored with the qrels prepared once")
    ap.add_argument("--stats-queries", type=int, default=5774)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--libraries", default=",".join(LIBRARIES))
    ap.add_argument("--quick", action="store_true", help="small smoke run; writes no results unless --output is given")
    ap.add_argument("--output", type=Path, help=f"results file (default {RESULTS / 'metrics.json'})")
    ap.add_argument("--worker", choices=["time", "memory", "stats"], help=argparse.SUPPRESS)
    ap.add_argument("--library", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        fn = {"time": lambda: time_worker(args.library, args), "memory": lambda: memory_worker(args.library, args),
              "stats": lambda: stats_worker(args)}[args.worker]
        print(json.dumps(fn()))
        return 0
    if args.quick:
        args.queries, args.docs, args.repeats, args.runs = 200, 100, 3, 3
    libs = [x for x in args.libraries.split(",") if x]
    load_before = os.getloadavg()
    if load_before[0] > 0.5 * (os.cpu_count() or 1):
        print(f"warning: load average {load_before[0]:.2f} on {os.cpu_count()} cores; timings will be noisy",
              file=sys.stderr)
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    rows, failed = {}, {}
    for lib in libs:
        try:
            rows[lib] = run_worker("time", lib, args) | run_worker("memory", lib, args)
        except RuntimeError as exc:
            failed[lib] = str(exc).splitlines()[-1]
            print(f"{lib}: {failed[lib]}", file=sys.stderr)
    perm = run_worker("stats", "searchgrade", args)
    load_after = os.getloadavg()

    ref = rows.get("pytrec_eval")
    table = []
    for lib, r in rows.items():
        diff = max_abs_diff(r["values"], ref["values"]) if ref else None
        table.append({
            "library": lib, "version": machine()["versions"].get(PACKAGES[lib]),
            "median_s": r["median_s"], "min_s": r["min_s"], "times_s": r["times_s"],
            "ratio": r["median_s"] / ref["median_s"] if ref else None,
            "prepare_s": r["prepare_s"], "per_run_median_s": r["per_run_median_s"],
            "per_run_times_s": r["per_run_times_s"],
            "per_run_ratio": r["per_run_median_s"] / ref["per_run_median_s"] if ref else None,
            "peak_mib": r["peak_mib"], "data_mib": r["data_mib"],
            "peak_ratio": r["peak_mib"] / ref["peak_mib"] if ref and ref["peak_mib"] > 0 else None,
            "memory_method": r["memory_method"],
            "max_abs_diff_vs_pytrec_eval": diff, "evaluator": r["evaluator"],
            "max_abs_diff_without_ties": r["max_abs_diff_without_ties"],
        })

    n_entries = args.queries * args.docs
    print(f"{args.queries:,} queries x {args.docs:,} documents ({n_entries:,} run entries, graded qrels, tied scores); "
          f"measures {', '.join(TREC_MEASURES)}")
    mach = machine()
    print(f"{mach['cpu']}, {mach['cores']} cores, {mach['memory_gib']} GiB, Python {mach['versions']['python']}, "
          f"numpy {mach['versions']['numpy']}; load {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    header = (f"{'library':<13}{'median s':>10}{'ratio':>7}{'per run s':>11}{'ratio':>7}"
              f"{'peak MiB':>10}{'ratio':>7}{'max |diff|':>12}{'untied':>10}")
    print(header)
    print("-" * len(header))
    for t in table:
        d = t["max_abs_diff_vs_pytrec_eval"]
        print(f"{t['library']:<13}{t['median_s']:>10.3f}{fmt_ratio(t['ratio']):>7}{t['per_run_median_s']:>11.3f}"
              f"{fmt_ratio(t['per_run_ratio']):>7}{t['peak_mib']:>10.0f}{fmt_ratio(t['peak_ratio']):>7}"
              f"{'n/a' if d is None else f'{d:.1e}':>12}{t['max_abs_diff_without_ties']:>10.1e}")
    print(f"medians of {args.repeats} end-to-end calls and of {args.runs} further runs; ratios against pytrec_eval; "
          "max |diff|: largest difference from pytrec_eval's values, untied: the same with ties broken at random")
    print(f"searchgrade.stats.permutation_test, {perm['permutations']:,} permutations on {perm['queries']:,} queries: "
          f"{perm['median_s']:.3f} s (median of {perm['repeats']})")

    sg = next((t for t in table if t["library"] == "searchgrade"), None)
    agree = sg is not None and ref is not None and sg["max_abs_diff_vs_pytrec_eval"] <= TOLERANCE
    if args.output is None and not args.quick:
        args.output = RESULTS / "metrics.json"
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d"), "started": started, "machine": mach,
            "load_average_before": load_before, "load_average_after": load_after,
            "queries": args.queries, "docs": args.docs, "collection": args.collection, "run_entries": n_entries,
            "data": next((r["data"] for r in rows.values() if r.get("data")), None),
            "repeats": args.repeats, "runs": args.runs, "measures": TREC_MEASURES,
            "values_agree_with_pytrec_eval": agree, "tolerance": TOLERANCE,
            "rows": table, "failed": failed, "permutation_test": perm,
            "meta": bench_meta.meta(load_before=list(load_before), measured=[
                "every time and peak in rows (peak_mib: MiB above the loaded data)", "permutation_test",
                "the value differences"]),
        }, indent=2, ensure_ascii=False) + "\n")
        print(f"written {args.output}")
    if not agree:
        print(f"error: searchgrade's values differ from pytrec_eval's by more than {TOLERANCE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
