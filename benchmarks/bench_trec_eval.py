"""Benchmark ``python -m searchgrade.trec_eval`` against the real trec_eval 10.0, side by side.

This project never builds trec_eval: the C program is timed only when the user gives a binary
(``--trec-eval PATH`` or ``SEARCHGRADE_TREC_EVAL``); without one the script says so.  For each shape (queries x documents per query) the script writes a
seeded qrels file and run file, then:

* **command line**: ``-q -m all_trec QRELS RUN`` with the output written to a file, for
  the C binary and for ``python -m searchgrade.trec_eval`` (a fresh interpreter: start-up
  and imports included); the two outputs must be byte-identical (exit status 1 if not);
* **in process**: ``read_qrels`` + ``read_run`` + ``evaluate`` of the measures of
  all_trec that pytrec_eval also has, against pytrec_eval's own ``parse_qrel`` +
  ``parse_run`` + ``RelevanceEvaluator({'all_trec'}).evaluate``, each in a fresh
  worker process after a warm-up on a tiny input (imports not timed).

Times are medians of ``--repeats`` runs: wall time and CPU time (user + system of the
process, which a busy machine inflates less than the wall time).  The load average is
printed and stored: read the ratios, not the seconds, on a shared machine.  The start-up
of the command line alone (``python -c "import searchgrade.trec_eval"``) is timed too: the
part of the command line's time that does not depend on the input.

    python benchmarks/bench_trec_eval.py [--repeats 3] [--json benchmarks/results/trec_eval.json]
    python benchmarks/bench_trec_eval.py --shapes 200x50 --repeats 1     # a quick look
    python benchmarks/bench_trec_eval.py --profile 20000x10                # where the CLI's time goes

``--profile`` runs the command line once in this process under cProfile and prints the
functions with the most own time, and the own time per searchgrade module.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
TREC_EVAL_VERSION = "10.0"  # the C program whose output searchgrade.trec_eval reproduces

SHAPES = [(1_000, 1_000), (20_000, 10), (100_000, 10)]
SEED = 20261201
ARGS = ["-q", "-m", "all_trec"]


# ------------------------------------------------------------------------------------- data
def write_data(folder: Path, n_queries: int, n_docs: int, seed: int = SEED) -> tuple[Path, Path]:
    """A qrels file (graded 0-3, 5 to n_docs/2 + 10 judgments a query) and a run of n_docs per query.

    About half of each query's judged documents are retrieved, the rest come from the
    collection; scores on a coarse grid (many ties, as BM25 on short texts gives).
    """
    rng = np.random.default_rng(seed)
    collection = max(200, 5 * n_docs)
    qrels_path, run_path = folder / f"qrels.{n_queries}x{n_docs}", folder / f"run.{n_queries}x{n_docs}"
    with open(qrels_path, "w") as fq, open(run_path, "w") as fr:
        for q in range(n_queries):
            n_judged = int(rng.integers(5, n_docs // 2 + 11))
            judged = rng.choice(collection, size=min(n_judged, collection), replace=False)
            grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=len(judged))
            fq.writelines(f"q{q} 0 D{d} {g}\n" for d, g in zip(judged.tolist(), grades.tolist()))
            found = judged[: len(judged) // 2][:n_docs]
            others = rng.choice(collection, size=n_docs + len(judged), replace=False)
            others = others[~np.isin(others, judged)][: n_docs - len(found)]
            ids = rng.permutation(np.concatenate([found, others]))
            scores = np.round(rng.gamma(2.0, 2.0, size=len(ids)), 1)
            fr.writelines(f"q{q} Q0 D{d} {i} {s} bench\n"
                          for i, (d, s) in enumerate(zip(ids.tolist(), scores.tolist()), 1))
    return qrels_path, run_path


# --------------------------------------------------------------------------------- timing
def timed_process(cmd: list[str], out: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one child process writing its stdout to out."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out, "w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_times(runs: list[tuple[float, float]]) -> dict:
    """Median wall and CPU seconds of repeated runs."""
    return {"wall_s": statistics.median(w for w, _ in runs), "cpu_s": statistics.median(c for _, c in runs),
            "runs": [{"wall_s": w, "cpu_s": c} for w, c in runs]}


def differences(a: Path, b: Path) -> dict:
    """{measure name: number of differing lines} of two outputs ({} if byte-identical)."""
    out: dict = {}
    with open(a, "rb") as fa, open(b, "rb") as fb:
        for la, lb in zip(fa, fb):
            if la != lb:
                name = la.split(b"\t")[0].decode().rstrip()
                out[name] = out.get(name, 0) + 1
        if fa.read(1) != fb.read(1):
            out["(one output is longer)"] = 1
    return out


# ---------------------------------------------------------------------------- in process
def sg_measures() -> list:
    """searchgrade's measures behind all_trec's values that pytrec_eval also computes (from the registry)."""
    import pytrec_eval

    from searchgrade.measures.names import trec_expand
    from searchgrade.measures.registry import TREC_SETS, trec_root

    roots = [r for r in TREC_SETS["all_trec"] if trec_root(r) and r in pytrec_eval.supported_measures]
    return list({m.key: m for r in roots for _, m in trec_expand(r, None, 1)}.values())


def worker(lib: str, qrels_path: str, run_path: str) -> dict:
    """Read the files and evaluate them in this process: {wall_s, cpu_s, values} after a warm-up."""
    if lib == "searchgrade":
        import searchgrade as sg

        measures = sg_measures()

        def go(q, r):
            return sg.evaluate(sg.read_qrels(q), sg.read_run(r), measures)
    else:
        import pytrec_eval

        def go(q, r):
            with open(q) as fq, open(r) as fr:
                qrels, run = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
            return pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
    with tempfile.TemporaryDirectory() as tmp:  # warm-up: imports and first-call costs of the same code paths
        go(*write_data(Path(tmp), 300, 30))  # large enough for searchgrade's bulk reader (and its pyarrow import)
    t0, c0 = time.perf_counter(), time.process_time()
    result = go(qrels_path, run_path)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"wall_s": wall, "cpu_s": cpu, "queries": len(result)}


def timed_worker(lib: str, qrels: Path, run: Path) -> tuple[float, float]:
    """(wall s, CPU s) that one fresh worker process reports."""
    proc = subprocess.run([sys.executable, __file__, "--worker", lib, str(qrels), str(run)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{lib} worker failed: {proc.stderr[-2000:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return report["wall_s"], report["cpu_s"]


# ------------------------------------------------------------------------------- profile
def profile(shape: tuple[int, int], top: int = 25) -> None:
    """cProfile of ``searchgrade.trec_eval.main(-q -m all_trec)`` on one shape (output to /dev/null)."""
    import contextlib
    import cProfile
    import pstats

    from searchgrade.trec_eval import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_data(Path(tmp), *shape)
        prof = cProfile.Profile()
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            prof.runcall(cli, [*ARGS, str(qrels), str(run)])
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(top)
    def module(path: str) -> str:
        return Path(path).name if "searchgrade" in path else ("libraries" if "site-packages" in path else "other")

    by_module: dict = {}
    for (path, _, _), (_, _, tottime, _, callers) in stats.stats.items():
        if path == "~" and callers:  # a built-in (str.format, numpy's C functions): charged to its callers
            for (caller_path, _, _), (_, _, caller_tt, _) in callers.items():
                by_module[module(caller_path)] = by_module.get(module(caller_path), 0.0) + caller_tt
        else:
            by_module[module(path)] = by_module.get(module(path), 0.0) + tottime
    total = sum(by_module.values())
    print("own time per module, built-ins charged to their callers (profiled):")
    for key, t in sorted(by_module.items(), key=lambda kv: -kv[1]):
        print(f"  {key:<20} {t:7.2f} s  {100 * t / total:5.1f} %")


# ---------------------------------------------------------------------------------- main
def bench_shape(binary: Path, folder: Path, shape: tuple[int, int], repeats: int) -> dict:
    """Both command lines and both in-process evaluations on one shape."""
    n_queries, n_docs = shape
    qrels, run = write_data(folder, n_queries, n_docs)
    c_out, py_out = folder / "out.c", folder / "out.searchgrade"
    c_runs = [timed_process([str(binary), *ARGS, str(qrels), str(run)], c_out) for _ in range(repeats)]
    py_cmd = [sys.executable, "-m", "searchgrade.trec_eval", *ARGS, str(qrels), str(run)]
    py_runs = [timed_process(py_cmd, py_out) for _ in range(repeats)]
    diff = differences(c_out, py_out)
    row = {"queries": n_queries, "docs_per_query": n_docs, "output_lines": sum(1 for _ in open(c_out)),
           "identical": not diff, "differing_lines": diff,
           "trec_eval_c": median_times(c_runs), "searchgrade_cli": median_times(py_runs)}
    row["cli_ratio_wall"] = row["searchgrade_cli"]["wall_s"] / row["trec_eval_c"]["wall_s"]
    row["cli_ratio_cpu"] = row["searchgrade_cli"]["cpu_s"] / row["trec_eval_c"]["cpu_s"]
    inproc = {lib: median_times([timed_worker(lib, qrels, run) for _ in range(repeats)])
              for lib in ("searchgrade", "pytrec_eval")}
    row["in_process"] = inproc
    row["in_process_ratio_wall"] = inproc["searchgrade"]["wall_s"] / inproc["pytrec_eval"]["wall_s"]
    row["in_process_ratio_cpu"] = inproc["searchgrade"]["cpu_s"] / inproc["pytrec_eval"]["cpu_s"]
    for path in (qrels, run, c_out, py_out):
        path.unlink()
    return row


def print_row(row: dict) -> None:
    """One shape's line of the table."""
    c, p, i = row["trec_eval_c"], row["searchgrade_cli"], row["in_process"]
    print(f"{row['queries']:>7,} x {row['docs_per_query']:<5,} "
          f"{c['wall_s']:7.2f} {c['cpu_s']:7.2f} | {p['wall_s']:7.2f} {p['cpu_s']:7.2f} | "
          f"{row['cli_ratio_wall']:5.2f}x {row['cli_ratio_cpu']:5.2f}x  {'yes' if row['identical'] else 'NO':>9} | "
          f"{i['searchgrade']['cpu_s']:7.2f} {i['pytrec_eval']['cpu_s']:7.2f} {row['in_process_ratio_cpu']:5.2f}x",
          flush=True)


def parse_shape(text: str) -> tuple[int, int]:
    """'20000x10' -> (20000, 10)."""
    q, d = text.lower().split("x")
    return int(q), int(d)


def main(argv=None) -> int:
    """Run every shape, print the table; exit status 1 if an output differs from trec_eval's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", nargs="+", type=parse_shape, default=SHAPES,
                        help="queries x docs per query (default: 1000x1000 20000x10 100000x10)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each program (default: %(default)s)")
    parser.add_argument("--trec-eval", default=None, help="a trec_eval binary to time (or SEARCHGRADE_TREC_EVAL)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    parser.add_argument("--profile", type=parse_shape, default=None, metavar="QxD",
                        help="profile the command line on one shape instead (e.g. 20000x10)")
    parser.add_argument("--worker", nargs=3, metavar=("LIB", "QRELS", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    if args.profile:
        profile(args.profile)
        return 0
    given = args.trec_eval or os.environ.get("SEARCHGRADE_TREC_EVAL")
    if not given:  # this project never builds trec_eval; the C rows need a binary the user has
        print("no trec_eval binary given (--trec-eval PATH or SEARCHGRADE_TREC_EVAL): the C program is not timed",
              file=sys.stderr)
        return 2
    load_before = list(os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f}; Python {platform.python_version()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        startup = median_times([timed_process([sys.executable, "-c", "import searchgrade.trec_eval"], Path(tmp) / "out")
                                for _ in range(max(args.repeats, 3))])
    print(f"start-up (python -c 'import searchgrade.trec_eval'): {startup['wall_s']:.2f} s wall, "
          f"{startup['cpu_s']:.2f} s CPU", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(given)
        print(f"{'-q -m all_trec':>15}  {'trec_eval 10.0':^15} | {'searchgrade CLI':^15} | {'ratio':^13} "
              f"{'identical':>9} | {'read+evaluate, CPU s':^21}")
        print(f"{'queries x docs':>15}  {'wall':>7} {'CPU':>7} | {'wall':>7} {'CPU':>7} | {'wall':>6} {'CPU':>6}  "
              f"{'':>9} | {'sg':>7} {'pytrec':>7} {'ratio':>6}")
        for shape in args.shapes:
            rows.append(bench_shape(binary, Path(tmp), shape, args.repeats))
            print_row(rows[-1])
    load_after = list(os.getloadavg())
    print(f"load average after: {load_after[0]:.2f} (a busy machine inflates wall times; CPU times less)")
    for row in rows:
        if not row["identical"]:
            print(f"DIFFERENT OUTPUT at {row['queries']} x {row['docs_per_query']}, lines per measure: "
                  f"{row['differing_lines']}")
    if args.json:
        import pytrec_eval  # noqa: F401  (its version is recorded)
        from importlib import metadata

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"date": time.strftime("%Y-%m-%d"), "shapes": rows, "startup": startup, "args": ARGS,
                       "seed": SEED, "repeats": args.repeats,
                       "load_average_before": load_before, "load_average_after": load_after,
                       "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                       "versions": {"python": platform.python_version(), "numpy": np.__version__,
                                    "pytrec_eval": metadata.version("pytrec-eval-terrier"),
                                    "trec_eval": TREC_EVAL_VERSION}}, fh, indent=1)
    return 0 if all(row["identical"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
