"""Benchmark the trec_eval command on runs larger than memory should hold (issue 40 §5, rows 1-3).

Three figures, each ``searchgrade trec_eval`` (``python -m searchgrade.trec_eval``, a fresh process) beside
the C trec_eval 10.0 on the same files, the two outputs compared byte for byte:

1. ``grouped-big``: 100,000 queries x 1,000 documents (10^8 lines, about 3.4 GB), grouped by query;
   goal: peak memory <= 400 MB, wall <= 0.8x trec_eval's (whose peak is measured, not a goal);
2. ``grouped``: 10,000 x 1,000 (10^7 lines), grouped; goal: peak <= 0.5x trec_eval's (issue 40 reported
   807 MB), wall <= 0.8x;
3. ``ungrouped``: the same 10^7 lines shuffled (no query's lines together: the command spills them to
   temporary files by query); goal: peak <= 600 MB, wall <= 1.5x trec_eval's.

Each run has about 20 relevant documents a query (``--relevant``) and as many judged non-relevant ones,
some of each retrieved, scores on a grid of 0.001 (ties); queries q0, q1, ... in numeric order (not
trec_eval's text order, as Anserini writes them).  The files are written into a temporary folder
(``--tmp``, default the system's), used and deleted figure by figure: 10^8 lines need about 4 GB of disk
while they are there.  Memory is the peak resident set of the command's process (``ru_maxrss`` from
``os.wait4``, which for a process tree is its largest process: neither program starts another);
wall and CPU (user + system) time are medians of ``--repeats`` runs.

The C program is found as ``bench_trec_eval.py`` finds it: ``--trec-eval PATH`` or the environment variable
``SEARCHGRADE_TREC_EVAL``; without one, only searchgrade's rows are measured (the ratios are then left out).
Timings mean something only on a quiet machine: the load average is printed beside them.

    python benchmarks/bench_streaming.py --json benchmarks/results/streaming.json
    python benchmarks/bench_streaming.py --figures grouped ungrouped --repeats 1   # the 10^7-line rows only
    python benchmarks/bench_streaming.py --figures grouped --queries 1000          # a small look
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_meta  # noqa: E402
from bench_trec_eval import SG_CLI, differences, median_times, timed_process, trec_eval_binary  # noqa: E402

SEED = 20261207
ARGS = ["-q", "-m", "all_trec"]
# figure: (queries, documents a query, grouped, goal peak MB or None, goal peak as a ratio of trec_eval's or None,
#          goal wall ratio)
FIGURES = {
    "grouped-big": (100_000, 1_000, True, 400, None, 0.8),
    "grouped": (10_000, 1_000, True, None, 0.5, 0.8),
    "ungrouped": (10_000, 1_000, False, 600, None, 1.5),
}
COLLECTION = 1 << 22  # documents the runs draw from (a power of two: any odd step walks them all)
QUERIES_AT_ONCE = 1_000  # queries generated at a time (bounds the generator's memory)
SHARDS = 64  # an ungrouped run is written as this many shuffled shards, then joined


# ------------------------------------------------------------------------------------ the files
def _digits(x: np.ndarray) -> np.ndarray:
    """Non-negative integers as ASCII digits, a row each, NUL where a leading zero would be (at least one digit)."""
    width = max(1, len(str(int(x.max(initial=0)))))
    power = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (x[:, None] // power) % 10
    out = (digits + 48).astype(np.uint8)
    out[(x[:, None] < power) & (power > 1)] = 0
    return out


def _text(columns: list) -> bytes:
    """Lines from columns (byte matrices, or bytes repeated on every line), NUL padding dropped."""
    n = next(len(c) for c in columns if isinstance(c, np.ndarray))
    parts = [c if isinstance(c, np.ndarray) else np.frombuffer(c, dtype=np.uint8)[None, :].repeat(n, axis=0)
             for c in columns]
    return np.concatenate(parts, axis=1).tobytes().replace(b"\0", b"")


def _queries(rng, first: int, n: int, docs: int, relevant: float) -> tuple[bytes, bytes]:
    """(qrels text, run text) of queries first .. first + n - 1, each with docs ranked documents.

    A query's documents are an arithmetic progression modulo COLLECTION (an odd step: no document twice);
    the first docs of it are retrieved in that order, and its judged documents are drawn from the first
    3 x docs (about a third of them retrieved).
    """
    start, step = rng.integers(0, COLLECTION, n), 2 * rng.integers(0, COLLECTION // 2, n) + 1
    n_rel = rng.poisson(relevant, n) + 1
    n_judged = 2 * n_rel
    where = np.concatenate([rng.choice(max(3 * docs, k), k, replace=False) for k in n_judged.tolist()])
    of = np.repeat(np.arange(n), n_judged)
    judged_doc = (start[of] + step[of] * where) % COLLECTION
    grade = np.zeros(len(where), dtype=np.int64)
    is_rel = np.arange(len(where)) - np.repeat(np.cumsum(n_judged) - n_judged, n_judged) < np.repeat(n_rel, n_judged)
    grade[is_rel] = rng.choice([1, 1, 2, 3], int(is_rel.sum()))
    qrels = _text([b"q", _digits(of + first), b" 0 D", _digits(judged_doc), b" ", _digits(grade), b"\n"])
    doc = (start[:, None] + step[:, None] * np.arange(docs)) % COLLECTION
    score = np.sort(rng.integers(0, 30_000, (n, docs)), axis=1)[:, ::-1].reshape(-1)  # ties on a 0.001 grid
    rank = np.tile(np.arange(1, docs + 1), n)
    qid = np.repeat(np.arange(first, first + n), docs)
    run = _text([b"q", _digits(qid), b" Q0 D", _digits(doc.reshape(-1)), b" ", _digits(rank), b" ",
                 _digits(score // 1000), b".", _digits(1000 + score % 1000)[:, 1:], b" streaming\n"])
    return qrels, run


def write_files(folder: Path, queries: int, docs: int, grouped: bool, relevant: float,
                seed: int = SEED) -> tuple[Path, Path]:
    """A qrels file and a run (queries x docs lines, grouped by query or shuffled) in folder."""
    rng, shuffle = np.random.default_rng(seed), np.random.default_rng(seed + 1)  # the same lines, grouped or not
    qrels_path, run_path = folder / "qrels", folder / "run"
    shards = [open(folder / f"shard{i}", "wb") for i in range(SHARDS)] if not grouped else []
    with open(qrels_path, "wb") as fq, open(run_path, "wb") as fr:
        for first in range(0, queries, QUERIES_AT_ONCE):
            qrels, run = _queries(rng, first, min(QUERIES_AT_ONCE, queries - first), docs, relevant)
            fq.write(qrels)
            if grouped:
                fr.write(run)
                continue
            lines = np.array(run.splitlines(keepends=True), dtype=object)
            which = shuffle.integers(0, SHARDS, len(lines))
            for i in range(SHARDS):
                shards[i].write(b"".join(lines[which == i].tolist()))
        for i, shard in enumerate(shards):  # each shard shuffled, then appended
            shard.close()
            lines = (folder / f"shard{i}").read_bytes().splitlines(keepends=True)
            fr.write(b"".join(lines[j] for j in shuffle.permutation(len(lines)).tolist()))
            (folder / f"shard{i}").unlink()
    return qrels_path, run_path


# ---------------------------------------------------------------------------------- measuring
def bench_figure(name: str, binary: Path | None, folder: Path, repeats: int, queries: int | None,
                 relevant: float, args: list[str]) -> dict:
    """One figure: the files written, each program run repeats times, the outputs compared, the files deleted."""
    n_queries, docs, grouped, goal_mb, goal_mem_ratio, goal_wall = FIGURES[name]
    n_queries = queries or n_queries
    t0 = time.perf_counter()
    qrels, run = write_files(folder, n_queries, docs, grouped, relevant)
    row = {"figure": name, "queries": n_queries, "docs_per_query": docs, "grouped": grouped,
           "run_lines": n_queries * docs, "run_bytes": run.stat().st_size, "qrels_lines": _lines(qrels),
           "generated_s": time.perf_counter() - t0}
    files = [str(qrels), str(run)]
    out = {"searchgrade": folder / "out.sg", "trec_eval": folder / "out.c"}
    try:
        row["searchgrade_cli"] = median_times([timed_process([*SG_CLI, *args, *files], out["searchgrade"])
                                               for _ in range(repeats)])
        if binary is not None:
            row["trec_eval_c"] = median_times([timed_process([str(binary), *args, *files], out["trec_eval"])
                                               for _ in range(repeats)])
            diff = differences(out["trec_eval"], out["searchgrade"])
            row.update(identical=not diff, differing_lines=diff)
    finally:
        for path in (qrels, run, *out.values()):
            path.unlink(missing_ok=True)
    row["goals"] = goals(row, goal_mb, goal_mem_ratio, goal_wall)
    return row


def _lines(path: Path) -> int:
    """Lines of a file, counted a block at a time."""
    with open(path, "rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b""))


def goals(row: dict, goal_mb: float | None, goal_mem_ratio: float | None, goal_wall: float) -> dict:
    """The figure's goals and whether they are met (None where trec_eval was not measured)."""
    sg, c = row["searchgrade_cli"], row.get("trec_eval_c")
    out = {"peak_mb": goal_mb, "peak_ratio": goal_mem_ratio, "wall_ratio": goal_wall}
    if c is not None:
        out.update(ratio_wall=sg["wall_s"] / c["wall_s"], ratio_cpu=sg["cpu_s"] / c["cpu_s"],
                   ratio_peak=sg["peak_mb"] / c["peak_mb"])
        out["wall_met"] = out["ratio_wall"] <= goal_wall
    limit = goal_mb if goal_mb is not None else (goal_mem_ratio * c["peak_mb"] if c is not None else None)
    out["peak_limit_mb"] = limit
    out["peak_met"] = None if limit is None else sg["peak_mb"] <= limit
    return out


def print_row(row: dict) -> None:
    """One figure's line."""
    sg, c, g = row["searchgrade_cli"], row.get("trec_eval_c"), row["goals"]
    c_part = f"{c['wall_s']:8.1f} {c['cpu_s']:8.1f} {c['peak_mb']:8.0f}" if c else f"{'-':>8} {'-':>8} {'-':>8}"
    ratios = (f"{g['ratio_wall']:5.2f}x (<= {g['wall_ratio']}x {'ok' if g['wall_met'] else 'NO'})"
              if "ratio_wall" in g else "-")
    limit = g["peak_limit_mb"]
    peak_goal = "-" if limit is None else f"<= {limit:.0f} MB {'ok' if g['peak_met'] else 'NO'}"
    same = "" if "identical" not in row else ("identical" if row["identical"] else "DIFFERENT")
    print(f"{row['figure']:<12} {row['queries']:>7,} x {row['docs_per_query']:<5,} | {c_part} | "
          f"{sg['wall_s']:8.1f} {sg['cpu_s']:8.1f} {sg['peak_mb']:8.0f} | wall {ratios} | peak {peak_goal} | {same}",
          flush=True)


def parse_args(argv) -> argparse.Namespace:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figures", nargs="+", choices=list(FIGURES), default=list(FIGURES))
    parser.add_argument("--queries", type=int, default=None, help="queries of every figure (default: its own)")
    parser.add_argument("--relevant", type=float, default=20.0, help="mean relevant documents a query (%(default)s)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each program (default: %(default)s)")
    parser.add_argument("--args", nargs=argparse.REMAINDER, default=None,
                        help=f"the command line's options, last (default: {' '.join(ARGS)})")
    parser.add_argument("--trec-eval", default=None, help="a trec_eval binary (or SEARCHGRADE_TREC_EVAL)")
    parser.add_argument("--tmp", default=None, help="where the files are written (default: the system's temp)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    """Every figure asked for; exit status 1 if an output differs from trec_eval's."""
    opts = parse_args(argv)
    binary = trec_eval_binary(opts.trec_eval or os.environ.get("SEARCHGRADE_TREC_EVAL"))
    args = opts.args or ARGS
    load_before = bench_meta.load_average()
    load = load_before[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.2f}; Python {platform.python_version()}; median of "
          f"{opts.repeats}; args {' '.join(args)}; MB = MiB of peak resident memory", flush=True)
    print(f"{'figure':<12} {'queries x docs':>15} | {'trec_eval: wall s':>17} {'CPU s':>8} {'peak MB':>8} | "
          f"{'searchgrade: wall':>17} {'CPU s':>8} {'peak MB':>8} |")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-streaming-", dir=opts.tmp) as tmp:
        for name in opts.figures:
            rows.append(bench_figure(name, binary, Path(tmp), opts.repeats, opts.queries, opts.relevant, args))
            print_row(rows[-1])
    load_after = os.getloadavg()[0]
    print(f"load average after: {load_after:.2f} (a busy machine inflates wall times; CPU times less)")
    if opts.json:
        record = {"date": time.strftime("%Y-%m-%d"), "figures": rows, "args": args, "seed": SEED,
                  "repeats": opts.repeats, "load_average_before": load, "load_average_after": load_after,
                  "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
                  "trec_eval": str(binary) if binary else None,
                  "meta": bench_meta.meta(load_before=load_before,
                                          measured=[f"figure {row['figure']}: both programs' wall, CPU and peak "
                                                    "memory, outputs compared" for row in rows],
                                          c_prog=bench_meta.c_program("trec_eval", binary, ("-v",)))}
        Path(opts.json).parent.mkdir(parents=True, exist_ok=True)
        Path(opts.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(row.get("identical", True) for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
