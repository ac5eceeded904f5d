"""Benchmark ``searchgrade ndeval`` against the ndeval C program (issue 40 §4), and pyndeval on the small shape.

The C program is given by ``--ndeval PATH`` or ``SEARCHGRADE_NDEVAL`` (a binary built from ``ndeval.c`` of the
pyndeval 0.0.8 sdist; this project never builds it).  Without one, the script says so and takes its ratios
against the figures issue 40 reports for the C program (:data:`REPORTED_C`: measured in 2026-12 on this
project's 2-core machine, quiet; wall time and peak memory): every such line says "reported", and the CPU
ratio is then over the reported wall time (a single-threaded program on a quiet machine).

Shapes (:data:`SHAPES`): topics x documents a topic (200 x 1,000 = 200,000 run lines; 2,000 x 1,000 = 2M),
issue 40's: each topic has 6 subtopics and 15 judged documents, each judged for every subtopic (90 qrels
lines a topic, one line per document and subtopic as TREC's diversity qrels are written; about one
judgment in eight positive, some grade 2); the run holds 7 of them and unjudged documents, with distinct
scores and ranks in score order.

Each repetition runs every program once, one after the other (searchgrade, the C program, pyndeval;
searchgrade, ...: interleaved, so that a change in the machine's load falls on all of them), each a fresh
process (start-up and imports included) writing its CSV to a file: ``python -m searchgrade.ndeval QRELS RUN``,
the C program, and pyndeval as a command line (the files read line by line in Python, ``pyndeval.ndeval``,
one CSV line a topic; on shapes up to :data:`PYNDEVAL_LINES` lines).  Per program it keeps the minimum over
the repetitions of the CPU time (user + system of the process), the wall time and the peak resident memory
(``ru_maxrss``, read with ``os.wait4``): the minimum is the run least disturbed by other work on a shared
machine, and CPU time is disturbed less than wall time.  The ratios are searchgrade's over the C program's,
beside the goals (at 2M lines: wall at most 1.0x, peak at most 1.5x).  searchgrade's output must be the C
program's byte for byte, and pyndeval's values the same to six decimals (exit status 1 if not).

    python benchmarks/bench_ndeval.py [--repeats 5] [--ndeval PATH] [--json benchmarks/results/ndeval.json]
    python benchmarks/bench_ndeval.py --profile 2000x1000      # where searchgrade's time and memory go
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

import bench_meta

# one launcher for every benchmark that times a command (its CPU time and peak memory read with os.wait4)
from bench_trec_eval import timed_process

HERE = Path(__file__).resolve().parent
SHAPES = [(200, 1_000), (2_000, 1_000)]
SUBTOPICS, POOL = 6, 15
SEED = 20261203
PYNDEVAL_LINES = 200_000  # pyndeval (a Python list of every line, then C) is timed up to this many run lines
GOAL_WALL, GOAL_MEMORY = 1.0, 1.5  # issue 40: at 2M lines, at most 1.0x the C program's wall, 1.5x its peak
# issue 40's figures for the C program (ndeval.c of pyndeval 0.0.8), used when no binary is given
REPORTED_C = {"date": "2026-12", "machine": "this project's 2-core machine, quiet", "source": "issue 40",
              "shapes": {"200x1000": {"wall_s": 0.10, "peak_mb": 21}, "2000x1000": {"wall_s": 1.10, "peak_mb": 189}}}
NAMES = ["ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20", "alpha-DCG@5",
         "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20", "NRBP", "nNRBP",
         "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20", "strec@5", "strec@10", "strec@20"]


def write_data(folder: Path, n_topics: int, n_docs: int, seed: int = SEED) -> tuple[Path, Path]:
    """A subtopic qrels file and a run file of the shape (see the module docstring)."""
    rng = np.random.default_rng(seed)
    collection = max(10 * n_docs, 2 * POOL)
    qrels_path, run_path = folder / f"qrels.{n_topics}x{n_docs}", folder / f"run.{n_topics}x{n_docs}"
    with open(qrels_path, "w") as fq, open(run_path, "w") as fr:
        for t in range(1, n_topics + 1):
            pool = rng.choice(collection, size=POOL, replace=False)
            grades = rng.choice([0] * 14 + [1, 2], size=(POOL, SUBTOPICS))
            fq.writelines(f"{t} {s + 1} D{d} {g}\n" for i, d in enumerate(pool.tolist())
                          for s, g in enumerate(grades[i].tolist()))
            found = pool[: POOL // 2][:n_docs]
            others = rng.choice(collection, size=n_docs + POOL, replace=False)
            others = others[~np.isin(others, pool)][: n_docs - len(found)]
            ids = rng.permutation(np.concatenate([found, others]))
            fr.writelines(f"{t} Q0 D{d} {i} {n_docs - i + 0.5} bench\n" for i, d in enumerate(ids.tolist(), 1))
    return qrels_path, run_path


def pyndeval_cli(qrels_path: str, run_path: str) -> None:
    """pyndeval as a command line: read both files in Python, evaluate, print one CSV line a topic."""
    import pyndeval

    with open(qrels_path) as fq:
        qrels = [(t, s, d, int(g)) for t, s, d, g in (line.split() for line in fq)]
    with open(run_path) as fr:
        run = [(t, d, float(s)) for t, _, d, _, s, _ in (line.split()[:6] for line in fr)]
    result = pyndeval.ndeval(qrels, run)
    print("runid,topic," + ",".join(NAMES))
    for topic, values in sorted(result.items(), key=lambda kv: int(kv[0])):
        print(f"bench,{topic}," + ",".join(f"{values[n]:.6f}" for n in NAMES))


def topic_rows(path: Path) -> dict:
    """{topic: the 21 printed values} of a CSV output (the amean line left out)."""
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    return {r[1]: r[2:] for r in rows if r[1] != "amean"}


def minimum_times(runs: list[tuple]) -> dict:
    """The least wall time, CPU time and peak memory of repeated runs (each its own minimum), and the runs."""
    keys = ("wall_s", "cpu_s", "peak_mb")
    return {**{key: min(run[i] for run in runs) for i, key in enumerate(keys)},
            "runs": [dict(zip(keys, run)) for run in runs]}


def commands(qrels: Path, run: Path, binary: Path | None, lines: int) -> dict:
    """{program: its command line} for one shape."""
    out = {"searchgrade_cli": [sys.executable, "-m", "searchgrade.ndeval", str(qrels), str(run)]}
    if binary is not None:
        out["ndeval_c"] = [str(binary), str(qrels), str(run)]
    if lines <= PYNDEVAL_LINES:
        out["pyndeval_cli"] = [sys.executable, __file__, "--pyndeval-cli", str(qrels), str(run)]
    return out


def bench_shape(folder: Path, shape: tuple[int, int], binary: Path | None, repeats: int) -> dict:
    """Time the programs on one shape, interleaved; compare their outputs."""
    n_topics, n_docs = shape
    qrels, run = write_data(folder, n_topics, n_docs)
    cmds = commands(qrels, run, binary, n_topics * n_docs)
    outs = {name: folder / f"{name}.csv" for name in cmds}
    times: dict = {name: [] for name in cmds}
    for _ in range(repeats):
        for name, cmd in cmds.items():
            times[name].append(timed_process(cmd, outs[name]))
    row: dict = {"topics": n_topics, "docs_per_topic": n_docs, "subtopics": SUBTOPICS, "judged_per_topic": POOL,
                 "lines": n_topics * n_docs, **{name: minimum_times(t) for name, t in times.items()}}
    sg = row["searchgrade_cli"]
    if binary is not None:
        c = row["ndeval_c"]
        row["outputs_identical"] = outs["searchgrade_cli"].read_bytes() == outs["ndeval_c"].read_bytes()
    else:
        c = row["ndeval_c_reported"] = {**REPORTED_C["shapes"][f"{n_topics}x{n_docs}"], "cpu_s": None}
    row["ratio_c_wall_s"] = sg["wall_s"] / c["wall_s"]
    row["ratio_c_cpu_s"] = sg["cpu_s"] / (c["cpu_s"] or c["wall_s"])
    row["ratio_c_peak_mb"] = sg["peak_mb"] / c["peak_mb"]
    if "pyndeval_cli" in row:
        row["values_agree"] = topic_rows(outs["searchgrade_cli"]) == topic_rows(outs["pyndeval_cli"])
        for key in ("wall_s", "cpu_s", "peak_mb"):
            row[f"ratio_{key}"] = sg[key] / row["pyndeval_cli"][key]
    return row


def print_row(row: dict) -> None:
    """The shape's programs and its ratios to the C program."""
    shape = f"{row['topics']}x{row['docs_per_topic']}"
    for tool in ("searchgrade_cli", "ndeval_c", "ndeval_c_reported", "pyndeval_cli"):
        if tool in row:
            r = row[tool]
            cpu = "      -" if r.get("cpu_s") is None else f"{r['cpu_s']:7.2f}"
            print(f"{shape:>10} {tool:>18} {r['wall_s']:8.2f} {cpu} {r['peak_mb']:8.1f}")
    against = "the C program" if "ndeval_c" in row else \
        f"the C figures reported {REPORTED_C['date']} ({REPORTED_C['machine']}), not measured now"
    print(f"{'':>10} {'ratio':>18} {row['ratio_c_wall_s']:7.2f}x {row['ratio_c_cpu_s']:6.2f}x "
          f"{row['ratio_c_peak_mb']:7.2f}x  against {against}"
          + (f"; output identical: {row['outputs_identical']}" if "outputs_identical" in row else ""))


def profile(shape: tuple[int, int], top: int = 25) -> None:
    """searchgrade's command line once in this process under cProfile (the functions with the most own time),
    then once under tracemalloc (the peak of Python's and numpy's allocations over the reading and scoring)."""
    import cProfile
    import io
    import pstats
    import tracemalloc
    from contextlib import redirect_stdout

    from searchgrade.ndeval import main

    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_data(Path(tmp), *shape)
        prof = cProfile.Profile()
        with redirect_stdout(io.StringIO()):
            prof.runcall(main, [str(qrels), str(run)])
        pstats.Stats(prof).sort_stats("tottime").print_stats(top)
        tracemalloc.start()
        with redirect_stdout(io.StringIO()):
            main([str(qrels), str(run)])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"tracemalloc peak: {peak / 2**20:.1f} MiB (beside the interpreter's and numpy's own)")


def parse_shape(text: str) -> tuple[int, int]:
    """'2000x1000' -> (2000, 1000)."""
    topics, docs = text.lower().split("x")
    return int(topics), int(docs)


def ndeval_binary(given: str | None) -> Path | None:
    """The C program: --ndeval, else SEARCHGRADE_NDEVAL, else None (said on stderr)."""
    path = given or os.environ.get("SEARCHGRADE_NDEVAL")
    if not path:
        print("no ndeval binary given (--ndeval or SEARCHGRADE_NDEVAL): ratios against the C figures issue 40 "
              f"reports ({REPORTED_C['date']}, {REPORTED_C['machine']})", file=sys.stderr)
        return None
    if not os.access(path, os.X_OK):
        raise SystemExit(f"bench_ndeval: {path} is not an executable ndeval")
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, optionally write the JSON record; 1 if an output differs."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ndeval", default=None, help="the ndeval C program (default: $SEARCHGRADE_NDEVAL)")
    p.add_argument("--shapes", type=parse_shape, nargs="+", default=SHAPES, metavar="TOPICSxDOCS")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--profile", type=parse_shape, default=None, metavar="TOPICSxDOCS")
    p.add_argument("--pyndeval-cli", nargs=2, metavar=("QRELS", "RUN"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pyndeval_cli:
        pyndeval_cli(*args.pyndeval_cli)
        return 0
    if args.profile:
        profile(args.profile)
        return 0
    binary = ndeval_binary(args.ndeval)
    load_all = bench_meta.load_average()
    load = load_all[0]
    print(f"load average {load:.2f}; minima of {args.repeats} interleaved runs; goals at 2M lines: wall <= "
          f"{GOAL_WALL}x, peak memory <= {GOAL_MEMORY}x the C program's")
    print(f"{'shape':>10} {'program':>18} {'wall s':>8} {'cpu s':>7} {'peak MB':>8}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            rows.append(bench_shape(Path(tmp), shape, binary, args.repeats))
            print_row(rows[-1])
    if args.json:
        save(args.json, load_all, args.repeats, binary, rows)
    ok = all(r.get("outputs_identical", True) and r.get("values_agree", True) for r in rows)
    return 0 if ok else 1


def save(path: Path, load_all: list[float], repeats: int, binary: Path | None, rows: list) -> None:
    """Write the JSON record (the C figures said to be measured now or reported by issue 40)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        pyndeval = version("pyndeval")
    except PackageNotFoundError:
        pyndeval = None
    record = {"date": time.strftime("%Y-%m-%d"), "load_average": load_all[0], "repeats": repeats, "statistic": "minimum",
              "python": platform.python_version(), "machine": platform.machine(), "pyndeval": pyndeval,
              "ndeval_c": "measured" if binary is not None else "reported", "reported_c": REPORTED_C,
              "goal_wall": GOAL_WALL, "goal_memory": GOAL_MEMORY, "shapes": rows,
              "meta": bench_meta.meta(
                  load_before=load_all,
                  measured=["every time and peak of searchgrade's and pyndeval's command lines in shapes"]
                  + (["the C program's times and peaks, and the byte comparison"] if binary is not None else []),
                  recorded=[] if binary is not None else [
                      f"the C program's wall and peak ({REPORTED_C['date']}, {REPORTED_C['machine']})"],
                  estimated=[] if binary is not None else ["the ratios to the C program"],
                  c_prog=bench_meta.c_program("ndeval", binary, ("-version",)))}
    path.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
