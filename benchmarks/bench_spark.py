"""Benchmark ``searchgrade.spark.mean`` (Spark ``local[2]``) beside the single process ``sg.mean`` on one Parquet run.

Issue 40 §5, the Spark row: a seeded run of ``--lines`` lines (default 20,000,000: 20,000 queries x
1,000 documents, tied scores) and its qrels (about 20 judged documents a query, grades 0-3, some
queries judged but not retrieved) are written as Parquet; then, each in a fresh process:

* **single process**: ``pandas.read_parquet`` of both files, ``sg.evaluate`` of the DataFrames and
  the two summaries of its table, trec_eval's sequential sum (``sg.mean``'s default) and the exact one
  (``sg.mean(..., summation="exact")``): ``sg.mean`` is ``aggregate(evaluate(...))``, here evaluated once;
* **Spark**: a ``local[2]`` session (``PYSPARK_PYTHON`` is this interpreter), ``read_qrels`` /
  ``read_run`` of the Parquet files and ``searchgrade.spark.mean``.

Each row prints the wall time (process start to exit, imports and the JVM's start included) and the
peak memory of the whole process tree (the sum of the resident sets of the process and all its
descendants -- the JVM and the Python workers for Spark -- sampled every 50 ms from /proc), with the
ratios to the single process.  The summaries are compared: Spark's must equal the exact summation bit
for bit, and the default within 1e-12 and at trec_eval's %.4f (exit status 1 otherwise).  The load
average is printed and stored: on a shared machine read the ratios, not the seconds.

    python benchmarks/bench_spark.py                              # 20M lines (minutes; a quiet machine)
    python benchmarks/bench_spark.py --lines 20000 --docs 100     # a quick look that it works
    python benchmarks/bench_spark.py --json benchmarks/results/spark.json

Needs the ``spark`` extra (pyspark 4, pyarrow) and Java 17; Linux (/proc) for the memory of the tree.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_meta  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "recall@1000", "NumRet", "NumRelRet", "GMAP"]
SEED = 20261240
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------- data
def write_data(folder: Path, lines: int, docs: int) -> tuple[Path, Path]:
    """Seeded qrels and run as Parquet, written a block of queries at a time (bounded memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(SEED)
    queries = max(1, lines // docs)
    qrels_path, run_path = folder / "qrels.parquet", folder / "run.parquet"
    run_schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())])
    qrels_schema = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int64())])
    with pq.ParquetWriter(run_path, run_schema) as run_out, pq.ParquetWriter(qrels_path, qrels_schema) as qrels_out:
        for lo in range(0, queries, 500):
            n = min(500, queries - lo)
            qids = np.repeat(np.array([f"q{i}" for i in range(lo, lo + n)], dtype=object), docs)
            doc = rng.integers(0, 50 * docs, size=(n, docs))
            doc = np.sort(doc, axis=1) + np.arange(docs)  # distinct within a query
            scores = np.round(rng.random((n, docs)) * 100, 1).reshape(-1)  # one decimal: ties
            run_out.write_table(pa.table({"query_id": qids, "doc_id": [f"d{d}" for d in doc.reshape(-1).tolist()],
                                          "score": scores}, schema=run_schema))
            judged = np.concatenate([doc[:, :: max(1, docs // 15)][:, :15], doc[:, :5] + 100 * docs], axis=1)  # 5 not retrieved
            k = judged.shape[1]
            keep = rng.random(n) > 0.05  # a few queries judged, not retrieved: ids shifted out of the run
            qq = [f"q{i}" if keep[i - lo] else f"x{i}" for i in range(lo, lo + n)]
            qrels_out.write_table(pa.table({"query_id": np.repeat(np.array(qq, dtype=object), k),
                                            "doc_id": [f"d{d}" for d in judged.reshape(-1).tolist()],
                                            "relevance": rng.integers(0, 4, size=n * k)}, schema=qrels_schema))
    return qrels_path, run_path


# --------------------------------------------------------------------------- the workers
def worker(kind: str, qrels: str, run: str, partitions: int | None, driver_memory: str) -> None:
    """One measured process: prints {summary name: {measure: value}} as JSON on its last line."""
    import warnings

    warnings.simplefilter("ignore")
    if kind == "single":
        import pandas as pd

        import searchgrade as sg

        table = sg.evaluate(pd.read_parquet(qrels), pd.read_parquet(run), MEASURES)  # sg.mean is aggregate(evaluate)
        out = {"default": sg.aggregate(table, MEASURES).to_dict(),
               "exact": sg.aggregate(table, MEASURES, summation="exact").to_dict()}
    else:
        os.environ["PYSPARK_PYTHON"] = sys.executable
        from pyspark.sql import SparkSession

        from searchgrade import spark as sgs

        session = (SparkSession.builder.master("local[2]").appName("bench_spark")
                   .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                   .config("spark.driver.memory", driver_memory).getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        got = sgs.mean(sgs.read_qrels(session, qrels), sgs.read_run(session, run), MEASURES,
                       **({"partitions": partitions} if partitions else {}))
        out = {"spark": got.to_dict()}
        session.stop()
    print(json.dumps({k: {m: (int(v) if isinstance(v, (int, np.integer)) else float(v)) for m, v in d.items()}
                      for k, d in out.items()}))


def _tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc."""
    parent, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry)], rss[int(entry)] = int(fields[1]), int(fields[21]) * PAGE
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += [child for child, p in parent.items() if p == pid]
    return total


def measure(args: list[str]) -> tuple[float, float, dict]:
    """(wall seconds, peak MB of the process tree, the worker's JSON) of one worker process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak, done = [0], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode:
        sys.exit(f"worker {args[:2]} failed ({proc.returncode}):\n{err.decode(errors='replace')[-3000:]}")
    return wall, peak[0] / 2**20, json.loads(out.decode().strip().splitlines()[-1])


# --------------------------------------------------------------------------- the comparison
def compare(spark: dict, exact: dict, default: dict) -> list[str]:
    """The problems found: Spark's summary against the exact one (bit for bit) and the default one."""
    problems = []
    for m in MEASURES:
        if repr(spark[m]) != repr(exact[m]):
            problems.append(f"{m}: spark {spark[m]!r} != sg.mean(summation='exact') {exact[m]!r}")
        if not abs(spark[m] - default[m]) <= 1e-12:
            problems.append(f"{m}: spark {spark[m]!r} differs from sg.mean {default[m]!r} by more than 1e-12")
        elif f"{spark[m]:.4f}" != f"{default[m]:.4f}":
            problems.append(f"{m}: prints {spark[m]:.4f}, sg.mean prints {default[m]:.4f} (a rounding boundary)")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=20_000_000, help="run lines (default 20,000,000)")
    p.add_argument("--docs", type=int, default=1_000, help="documents per query (default 1,000)")
    p.add_argument("--partitions", type=int, default=None, help="Spark partitions of the queries (default: Spark's)")
    p.add_argument("--driver-memory", default="4g", help="spark.driver.memory (local mode: the executors' too)")
    p.add_argument("--workdir", type=Path, default=None, help="where the Parquet files go (default: a temp folder)")
    p.add_argument("--json", type=Path, default=None, help="write the record here")
    p.add_argument("--worker", nargs=3, metavar=("KIND", "QRELS", "RUN"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(*a.worker, a.partitions, a.driver_memory)
        return 0
    load_before = bench_meta.load_average()
    with tempfile.TemporaryDirectory(dir=a.workdir) as tmp:
        t = time.perf_counter()
        qrels, run = write_data(Path(tmp), a.lines, a.docs)
        print(f"data: {a.lines:,} run lines ({max(1, a.lines // a.docs):,} queries x {a.docs:,}) as Parquet in "
              f"{time.perf_counter() - t:.1f} s; load average {os.getloadavg()[0]:.2f}", flush=True)
        extra = ["--driver-memory", a.driver_memory] + (["--partitions", str(a.partitions)] if a.partitions else [])
        single = measure(["--worker", "single", str(qrels), str(run)])
        spark = measure(["--worker", "spark", str(qrels), str(run), *extra])
    problems = compare(spark[2]["spark"], single[2]["exact"], single[2]["default"])
    print(f"{'':28} {'wall s':>8} {'peak MB':>9} {'wall x':>7} {'peak x':>7}")
    for name, (wall, peak, _) in (("sg.mean (one process)", single), ("searchgrade.spark local[2]", spark)):
        print(f"{name:28} {wall:8.1f} {peak:9.0f} {wall / single[0]:7.2f} {peak / single[1]:7.2f}")
    print("summaries: " + ("identical (spark = sg.mean(summation='exact') bit for bit; sg.mean within 1e-12, "
                           "same at %.4f)" if not problems else "; ".join(problems)))
    if a.json:
        record = {"date": time.strftime("%Y-%m-%d"), "machine": platform.platform(), "cpus": os.cpu_count(),
                  "load_average": os.getloadavg()[0], "lines": a.lines, "docs_per_query": a.docs,
                  "measures": MEASURES, "single": {"wall_s": single[0], "peak_mb": single[1]},
                  "spark_local2": {"wall_s": spark[0], "peak_mb": spark[1]}, "summaries": spark[2]["spark"],
                  "identical": not problems, "problems": problems,
                  "meta": bench_meta.meta(load_before=load_before,
                                          measured=["wall and peak memory of the process tree, single process "
                                                    "and Spark local[2]", "the summaries compared"])}
        a.json.write_text(json.dumps(record, indent=1) + "\n")
    return 1 if any("!=" in x or "1e-12" in x for x in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
