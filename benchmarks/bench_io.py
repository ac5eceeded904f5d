"""Benchmark reading TREC files: searchgrade.read_run + read_qrels against pytrec_eval.parse_run + parse_qrel.

Generates a run and qrels of each shape (queries x documents per query) in a temporary folder
with a fixed seed, checks that both libraries read the same dicts, then times ``--repeats``
interleaved reads of each (searchgrade from the path, pytrec_eval from the open file, as each is
meant to be called) and prints the medians side by side with their ratio (searchgrade /
pytrec_eval; below 1 is faster).  Two rows show searchgrade alone: the same run gzipped, and
the run with one ``#`` comment line at the top, which the bulk reader declines, so the strict
line-by-line reader reads it (the cost of a file that is not plain).

    python benchmarks/bench_io.py [--shapes 3000x1000 100000x10] [--repeats 5] [--json out.json]

The machine should be quiet: the load average is printed with the results.
"""
from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import searchgrade as sg

import bench_meta

SEED = 20261201


def write_files(folder: Path, n_queries: int, n_docs: int, seed: int = SEED) -> dict[str, Path]:
    """A run (n_docs per query, scores with 6 decimals as in trec_eval's fixtures) and qrels of the same size."""
    rng = np.random.default_rng(seed)
    paths = {name: folder / f"{name}-{n_queries}x{n_docs}.txt" for name in ("run", "qrels")}
    with open(paths["run"], "w", encoding="utf-8") as run, open(paths["qrels"], "w", encoding="utf-8") as qrels:
        for q in range(n_queries):
            docs = rng.choice(10**8, size=n_docs, replace=False).tolist()
            scores = np.sort(rng.gamma(2.0, 2.0, size=n_docs))[::-1].tolist()
            run.writelines(f"q{q} Q0 D{d:08d} {r} {s:.6f} bench\n" for r, (d, s) in enumerate(zip(docs, scores), 1))
            grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=n_docs).tolist()
            qrels.writelines(f"q{q} 0 D{d:08d} {g}\n" for d, g in zip(docs, grades))
    paths["run.gz"] = paths["run"].with_suffix(".txt.gz")
    paths["run.gz"].write_bytes(gzip.compress(paths["run"].read_bytes(), compresslevel=1))
    paths["run#"] = paths["run"].with_suffix(".comment.txt")
    paths["run#"].write_bytes(b"# a comment line\n" + paths["run"].read_bytes())
    return paths


def pytrec_read(parse, path: Path):
    """A pytrec_eval parser over the open file."""
    with open(path, encoding="utf-8") as lines:
        return parse(lines)


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of one call of fn, after a garbage collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_shape(folder: Path, n_queries: int, n_docs: int, repeats: int) -> dict:
    """Median seconds per reader for one shape, and whether both libraries read the same dicts."""
    import pytrec_eval

    paths = write_files(folder, n_queries, n_docs)
    same = (sg.read_run(paths["run"]) == pytrec_read(pytrec_eval.parse_run, paths["run"])
            and sg.read_qrels(paths["qrels"]) == pytrec_read(pytrec_eval.parse_qrel, paths["qrels"]))
    runs = {"searchgrade run": lambda: sg.read_run(paths["run"]),
            "searchgrade qrels": lambda: sg.read_qrels(paths["qrels"]),
            "pytrec_eval run": lambda: pytrec_read(pytrec_eval.parse_run, paths["run"]),
            "pytrec_eval qrels": lambda: pytrec_read(pytrec_eval.parse_qrel, paths["qrels"]),
            "searchgrade run.gz": lambda: sg.read_run(paths["run.gz"]),
            "searchgrade run with a # line": lambda: sg.read_run(paths["run#"], warn=False)}
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for rep in range(repeats):
        order = list(runs) if rep % 2 == 0 else list(reversed(runs))  # neither library always goes first
        for name in order:
            w, c = timed(runs[name])
            wall[name].append(w)
            cpu[name].append(c)
    for path in paths.values():
        path.unlink()
    return {"queries": n_queries, "docs_per_query": n_docs, "lines": n_queries * n_docs, "same_dicts": same,
            "median_wall_s": {name: statistics.median(ts) for name, ts in wall.items()},
            "median_cpu_s": {name: statistics.median(ts) for name, ts in cpu.items()},
            "wall_s": wall, "cpu_s": cpu}


def report(result: dict) -> None:
    """Print one shape's table: searchgrade, pytrec_eval and their ratio per file kind, wall and CPU time."""
    print(f"\n{result['queries']:,} queries x {result['docs_per_query']:,} documents "
          f"({result['lines']:,} lines per file); same dicts as pytrec_eval: {result['same_dicts']}")
    print(f"  {'median seconds':28s}{'searchgrade':>12s}{'pytrec_eval':>12s}{'ratio':>7s}"
          f"{'CPU: sg':>10s}{'pytrec':>9s}{'ratio':>7s}")
    w, c = result["median_wall_s"], result["median_cpu_s"]
    rows = {"read run": ("searchgrade run", "pytrec_eval run"),
            "read qrels": ("searchgrade qrels", "pytrec_eval qrels"),
            "run.gz (sg) vs run": ("searchgrade run.gz", "pytrec_eval run"),
            "run with a # line (sg)": ("searchgrade run with a # line", "pytrec_eval run")}
    for label, (ours, theirs) in rows.items():
        print(f"  {label:28s}{w[ours]:11.3f}s{w[theirs]:11.3f}s{w[ours] / w[theirs]:7.2f}"
              f"{c[ours]:9.3f}s{c[theirs]:8.3f}s{c[ours] / c[theirs]:7.2f}")
        if label == "read qrels":
            ws = [w[f"{lib} {kind}"] for lib in ("searchgrade", "pytrec_eval") for kind in ("run", "qrels")]
            cs = [c[f"{lib} {kind}"] for lib in ("searchgrade", "pytrec_eval") for kind in ("run", "qrels")]
            sw, pw, sc, pc = ws[0] + ws[1], ws[2] + ws[3], cs[0] + cs[1], cs[2] + cs[3]
            print(f"  {'run + qrels':28s}{sw:11.3f}s{pw:11.3f}s{sw / pw:7.2f}{sc:9.3f}s{pc:8.3f}s{sc / pc:7.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["3000x1000", "100000x10"],
                        help="queries x documents per query, e.g. 3000x1000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    warnings.simplefilter("error", sg.InputWarning)  # the plain files must read without a warning
    load_before = bench_meta.load_average()
    print(f"load average before: {os.getloadavg()}; median of {args.repeats} interleaved reads; "
          f"ratio = searchgrade / pytrec_eval (below 1: searchgrade is faster); CPU = process time")
    results = []
    with tempfile.TemporaryDirectory(prefix="bench_io-") as tmp:
        for shape in args.shapes:
            n_queries, n_docs = (int(part) for part in shape.lower().split("x"))
            results.append(bench_shape(Path(tmp), n_queries, n_docs, args.repeats))
            report(results[-1])
    print(f"\nload average after: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps({"load_average": os.getloadavg(),
                                         "python": sys.version.split()[0],
                                         "results": results,
                                         "meta": bench_meta.meta(load_before=load_before, measured=[
                                             "every read time of both libraries in results"])},
                                        indent=1) + "\n", encoding="utf-8")
    return 0 if all(r["same_dicts"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
