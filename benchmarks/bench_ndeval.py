"""Benchmark ``python -m searchgrade.ndeval`` against pyndeval (ndeval 4.5's C code in a wheel).

For each shape (topics x documents per topic, 6 subtopics a topic) the script writes a seeded
subtopic qrels file (a judged pool of 400 documents a topic, one line per document and subtopic,
as the TREC Web track's diversity qrels are written; about one judgment in eight positive, some
grade 2) and a run of that many documents a topic (half of the pool among them, distinct
scores, ranks in score order), then times two command lines, each a fresh interpreter
(start-up and imports included) writing ndeval's CSV to a file:

* ``python -m searchgrade.ndeval QRELS RUN``;
* pyndeval as a command line: the same files read line by line in Python (pyndeval has no file
  reader), ``pyndeval.ndeval`` on the 21 measures, and one CSV line a topic.

* when given (``--ndeval PATH`` or ``SEARCHGRADE_NDEVAL``), the C program ndeval itself (this project
  never builds it; pyndeval 0.0.8's ``ndeval.c`` compiles to one), on the same files.

Each row prints wall time, CPU time, peak resident memory (``ru_maxrss`` of that process, read
with ``os.wait4`` by a small launcher) and the ratios to pyndeval beside the goals of issue 30
(wall <= 1.0x, memory <= 1.5x), and to the C program when it was given.  The outputs' per-topic values
must agree to ndeval's six decimals (exit status 1 if not).  Times are medians of ``--repeats`` runs; the
load average is printed and stored, with the commit measured (``meta``, see ``bench_meta``): read the
ratios, not the seconds, on a shared machine.

    python benchmarks/bench_ndeval.py [--repeats 3] [--json benchmarks/results/ndeval.json]
    python benchmarks/bench_ndeval.py --ndeval ~/bin/ndeval     # the C program too
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

# one launcher for every benchmark that times a command (its peak memory read with os.wait4)
from bench_trec_eval import median_times, timed_process

HERE = Path(__file__).resolve().parent
SHAPES = [(200, 1_000)]
SUBTOPICS, POOL = 6, 400
SEED = 20261203
GOAL_WALL, GOAL_MEMORY = 1.0, 1.5  # issue 30: at most 1.0x pyndeval's time, 1.5x its peak memory
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


def bench_shape(folder: Path, n_topics: int, n_docs: int, repeats: int, binary: Path | None = None) -> dict:
    """Time both command lines (and the C program, given) on one shape; check that their values agree."""
    qrels, run = write_data(folder, n_topics, n_docs)
    commands = {"searchgrade_cli": [sys.executable, "-m", "searchgrade.ndeval", str(qrels), str(run)],
                "pyndeval_cli": [sys.executable, __file__, "--pyndeval-cli", str(qrels), str(run)]}
    if binary is not None:
        commands["ndeval_c"] = [str(binary), str(qrels), str(run)]
    row: dict = {"topics": n_topics, "docs_per_topic": n_docs, "subtopics": SUBTOPICS, "judged_per_topic": POOL}
    outs = {}
    for name, cmd in commands.items():
        outs[name] = folder / f"{name}.csv"
        row[name] = median_times([timed_process(cmd, outs[name]) for _ in range(repeats)])
    mine, theirs = topic_rows(outs["searchgrade_cli"]), topic_rows(outs["pyndeval_cli"])
    row["values_agree"] = mine == theirs
    for key in ("wall_s", "cpu_s", "peak_mb"):
        row[f"ratio_{key}"] = row["searchgrade_cli"][key] / row["pyndeval_cli"][key]
    if binary is not None:
        row["values_agree_c"] = mine == topic_rows(outs["ndeval_c"])
        for key in ("wall_s", "cpu_s", "peak_mb"):
            row[f"ratio_c_{key}"] = row["searchgrade_cli"][key] / row["ndeval_c"][key]
    return row


def ndeval_binary(given: str | None) -> Path | None:
    """The C ndeval to time, or None (said on stderr); SystemExit(2) if it is not an executable file."""
    if not given:
        print("no ndeval binary given (--ndeval PATH or SEARCHGRADE_NDEVAL): the C program is not timed",
              file=sys.stderr, flush=True)
        return None
    binary = Path(given).expanduser()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        print(f"bench_ndeval: {binary} is not an executable file", file=sys.stderr)
        raise SystemExit(2)
    return binary


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table, optionally write the JSON record; 1 if the values disagree."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--ndeval", default=None, help="a C ndeval binary to time too (or SEARCHGRADE_NDEVAL)")
    p.add_argument("--pyndeval-cli", nargs=2, metavar=("QRELS", "RUN"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pyndeval_cli:
        pyndeval_cli(*args.pyndeval_cli)
        return 0
    binary = ndeval_binary(args.ndeval or os.environ.get("SEARCHGRADE_NDEVAL"))
    load_all = bench_meta.load_average()
    load = load_all[0]
    print(f"load average {load:.2f}; goals: wall <= {GOAL_WALL}x, peak memory <= {GOAL_MEMORY}x pyndeval's")
    print(f"{'shape':>14} {'tool':>16} {'wall s':>8} {'cpu s':>7} {'peak MB':>8}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n_topics, n_docs in SHAPES:
            row = bench_shape(Path(tmp), n_topics, n_docs, args.repeats, binary)
            rows.append(row)
            for tool in ("searchgrade_cli", "pyndeval_cli", "ndeval_c")[:3 if binary else 2]:
                r = row[tool]
                print(f"{n_topics:>6}x{n_docs:<7} {tool:>16} {r['wall_s']:8.2f} {r['cpu_s']:7.2f} {r['peak_mb']:8.1f}")
            print(f"{'':>14} {'ratio':>16} {row['ratio_wall_s']:7.2f}x {row['ratio_cpu_s']:6.2f}x "
                  f"{row['ratio_peak_mb']:7.2f}x   values agree: {row['values_agree']}")
            if binary:
                print(f"{'':>14} {'ratio to C':>16} {row['ratio_c_wall_s']:7.2f}x {row['ratio_c_cpu_s']:6.2f}x "
                      f"{row['ratio_c_peak_mb']:7.2f}x   values agree: {row['values_agree_c']}")
    if args.json:
        import pyndeval  # noqa: F401  (its version is recorded)
        from importlib.metadata import version

        record = {"date": time.strftime("%Y-%m-%d"), "load_average": load, "repeats": args.repeats,
                  "python": platform.python_version(), "machine": platform.machine(),
                  "pyndeval": version("pyndeval"), "goal_wall": GOAL_WALL, "goal_memory": GOAL_MEMORY,
                  "shapes": rows,
                  "meta": bench_meta.meta(load_before=load_all, measured=[
                      "every time and peak of every command line in shapes, and the value checks"],
                      c_prog=bench_meta.c_program("ndeval", binary, ("-version",)))}
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(r["values_agree"] and r.get("values_agree_c", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
