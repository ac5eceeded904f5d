"""How long the book takes to build on this machine: cold ``make runs``, warm ``make runs``, warm book.

Cold means empty run and embedding caches (a fresh clone): every tokeniser and
encoder runs over both Korean collections. Warm means the caches are filled.
The script uses throw-away cache folders (``SEARCHGRADE_RUNS``,
``SEARCHGRADE_CACHE``), so the project's own ``data/runs`` and ``data/cache``
are neither used nor touched, and prints wall-clock and CPU seconds (all
threads of the child processes) next to the goals: cold runs under 15
minutes and a book with its runs cached under 3 (the retrieval issue), a
cold ``make book`` under 35 minutes (the MIRACL-ko issue). The book is built
once, right after the runs: every chapter is executed (as ``make book``
always does) with the runs and the line-up's embeddings cached; a chapter
that embeds texts of its own (chapters 7 and 8) fills its cache then, so
this is an upper bound of a warm build, and the cold runs plus this build
are exactly what a cold ``make book`` does (the row "cold make book" is
their sum; the warm runs in between are not counted). The machine's load
average before each step is printed too: a busy machine makes wall-clock
times longer, CPU seconds much less so.

    python benchmarks/bench_build.py            # cold runs, warm runs, warm book
    python benchmarks/bench_build.py --no-book  # the runs only

Results go to ``benchmarks/results/build.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_meta

REPO = Path(__file__).resolve().parents[1]
GOALS = {"cold make runs": 15 * 60, "make book, runs cached": 3 * 60, "cold make book": 35 * 60}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(step: str, command: list[str], env: dict[str, str]) -> dict:
    """Run ``command``; wall seconds and the children's CPU seconds (user + system)."""
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-5000:])
        raise SystemExit(f"{step}: {' '.join(command)} failed with exit code {proc.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row = {"step": step, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "load_before": round(load, 2)}
    if step in GOALS:
        row["goal_s"] = GOALS[step]
        row["wall_over_goal"] = round(wall / GOALS[step], 2)
    print(f"{step:<24} {wall:8.1f} s wall {cpu:8.1f} s CPU   load before {load:4.2f}"
          + (f"   goal {GOALS[step]} s: {wall / GOALS[step]:.2f}x" if step in GOALS else ""), flush=True)
    return row


def total(step: str, parts: list[dict]) -> dict:
    """A row that sums the wall and CPU seconds of ``parts``, with its goal."""
    wall, cpu = sum(r["wall_s"] for r in parts), sum(r["cpu_s"] for r in parts)
    row = {"step": step, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "of": [r["step"] for r in parts],
           "goal_s": GOALS[step], "wall_over_goal": round(wall / GOALS[step], 2)}
    print(f"{step:<24} {wall:8.1f} s wall {cpu:8.1f} s CPU   (sum of {', '.join(row['of'])})"
          f"   goal {GOALS[step]} s: {wall / GOALS[step]:.2f}x", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-book", action="store_true", help="time the runs only")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="sg-bench-build-"))
    env = dict(os.environ, SEARCHGRADE_RUNS=str(tmp / "runs"), SEARCHGRADE_CACHE=str(tmp / "cache"),
               SEARCHGRADE_WIDGET_MODE="html")
    python = sys.executable
    jb = str(Path(python).with_name("jupyter-book"))
    print(f"{os.cpu_count()} CPUs ({cpu_model()}), Python {platform.python_version()}; caches in {tmp}", flush=True)
    rows = []
    load_before = bench_meta.load_average()
    try:
        runs = [python, "-m", "searchgrade.book.korean_runs", "--quiet"]
        rows.append(timed("cold make runs", runs, env))
        rows.append(timed("warm make runs", runs, env))
        if not args.no_book:
            rows.append(timed("make book, runs cached", [jb, "build", str(REPO), "--all", "-W", "--keep-going",
                                                 "--path-output", str(tmp / "book")], env))
            rows.append(total("cold make book", [rows[0], rows[-1]]))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    out = REPO / "benchmarks" / "results" / "build.json"
    out.write_text(json.dumps({"machine": {"cpus": os.cpu_count(), "cpu": cpu_model(),
                                           "python": platform.python_version(), "platform": platform.platform()},
                               "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "steps": rows,
                               "meta": bench_meta.meta(load_before=load_before, measured=[
                                   "every step's wall and CPU seconds (the cold make book row is a sum of two)"])},
                              ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"written {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
