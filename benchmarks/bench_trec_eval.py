"""Benchmark ``python -m searchgrade.trec_eval`` against pytrec_eval and, when given, the real trec_eval 10.0.

This project never builds trec_eval: the C program is timed only when the user gives a binary
(``--trec-eval PATH`` or ``SEARCHGRADE_TREC_EVAL``); without one the script says so on stderr and
times searchgrade beside pytrec_eval (trec_eval 9.0.8's C code in a wheel) only.  For each shape
(queries x documents per query) the script writes a seeded qrels file and run file, then:

* **command line**: ``-q -m all_trec QRELS RUN`` with the output written to a file, for
  ``python -m searchgrade.trec_eval`` (a fresh interpreter: start-up and imports included) and,
  when given, the C binary; the two outputs must be byte-identical (exit status 1 if not).
  searchgrade runs twice: as installed (with pyarrow, if it is) and with pyarrow hidden (a
  ``python -c`` wrapper puts ``None`` in ``sys.modules["pyarrow"]``, so neither pandas nor
  searchgrade can import it: the same process as on a machine without pyarrow).  Each row
  prints wall time, peak resident memory (``ru_maxrss`` of that process, from ``os.wait4``) and
  both ratios to trec_eval with the goals of issue 20 (wall <= 0.8x, memory <= 1.5x): against
  the C program when given, else against the C figures recorded in the JSON file, labelled
  "recorded <date>" (never presented as measured now);
* **pytrec_eval as a command line**: a fresh interpreter that reads the files with pytrec_eval,
  evaluates ``all_trec`` and writes one line per query and value (start-up included), the
  counterpart of searchgrade's command line when no C binary is given;
* **in process**: ``read_qrels`` + ``read_run`` + ``evaluate`` of the measures of
  all_trec that pytrec_eval also has, against pytrec_eval's own ``parse_qrel`` +
  ``parse_run`` + ``RelevanceEvaluator({'all_trec'}).evaluate``, each in a fresh
  worker process after a warm-up on a tiny input (imports not timed).

Times are medians of ``--repeats`` runs: wall time and CPU time (user + system of the
process, which a busy machine inflates less than the wall time).  The load average is
printed and stored: read the ratios, not the seconds, on a shared machine.  With ``--json`` a run
with the C binary writes its record at the top of the file (the layout the book's performance
appendix reads) and a run without one writes under the key ``without_trec_eval``, each with its
own date: a run without a binary never overwrites the C rows recorded before, nor the reverse.  The C figures
reported in issue 20 (2,000 x 1,000, measured by its filer) are kept under ``trec_eval_c_reported``.
The start-up is timed first (issue 33: trec_eval is used as a Unix filter, thousands of times in a script):
fresh processes on a one-line qrels file and a one-line run (the command with its default measures and with
``-q -m all_trec``) and ``python -c "import searchgrade.trec_eval"`` alone, the median of at least 5 runs after
one untimed run each, beside trec_eval's (measured when a binary is given, else issue 33's recorded figures) and
the goal of at most 0.25 s and 60 MB.  The commands may write their bytecode (``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment), as an installed package has its modules compiled.
The memory goal of each shape (issue 33) is at most 1.5x trec_eval's peak or its peak + 40 MB, whichever is
larger; the peaks issue 33 gives are kept under ``trec_eval_c_reported_issue33``.

    python benchmarks/bench_trec_eval.py [--repeats 3] [--json benchmarks/results/trec_eval.json]
    python benchmarks/bench_trec_eval.py --trec-eval ~/bin/trec_eval      # C rows too (your own binary)
    python benchmarks/bench_trec_eval.py --shapes 2000x1000 --repeats 1  # a quick look
    python benchmarks/bench_trec_eval.py --profile 20000x10                # where the CLI's time goes

``--profile`` runs the command line once in this process under cProfile and prints the
functions with the most own time, and the own time per searchgrade module; then the peak
memory of reading each file alone (``searchgrade.io.load_columns`` in a fresh process, with
and without pyarrow) beside the whole command line's.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import bench_meta

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
TREC_EVAL_VERSION = "10.0"  # the C program whose output searchgrade.trec_eval reproduces

SHAPES = [(2_000, 1_000), (1_000, 1_000), (20_000, 10), (100_000, 10)]
SEED = 20261201
ARGS = ["-q", "-m", "all_trec"]
GOAL_WALL, GOAL_MEMORY = 0.8, 1.5  # issue 20: at most 0.8x trec_eval's wall time, 1.5x its peak memory
GOAL_MEMORY_PLUS = 40  # issue 33: or trec_eval's peak + 40 MB where that is larger (numpy alone takes 25 MB)
GOAL_STARTUP = {"wall_s": 0.25, "peak_mb": 60}  # issue 33: a one-line input, as a Unix filter is used
SG_CLI = [sys.executable, "-m", "searchgrade.trec_eval"]
# the same command line in a process that cannot import pyarrow (as on a machine without it)
SG_CLI_NO_PYARROW = [sys.executable, "-c", "import runpy, sys; sys.modules['pyarrow'] = None; "
                     "runpy.run_module('searchgrade.trec_eval', run_name='__main__', alter_sys=True)"]
VARIANTS = {"searchgrade_cli": SG_CLI, "searchgrade_cli_no_pyarrow": SG_CLI_NO_PYARROW}


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
# Runs a command as its own child and writes that child's CPU seconds, ru_maxrss and exit status to argv[1].
# A process's ru_maxrss starts at the peak of the process it was forked from (Linux keeps it across exec),
# so the commands are not forked from this script, whose memory (or an in-process profile's) would floor it.
# The commands may write bytecode (PYTHONDONTWRITEBYTECODE dropped): an installed package has its modules
# compiled, and a module compiled afresh in every process would be timed as start-up.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
LAUNCHER = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execvp(sys.argv[2], sys.argv[2:])\n"
            "_, status, ru = os.wait4(pid, 0)\nwith open(sys.argv[1], 'w') as fh:\n"
            "    fh.write(f'{ru.ru_utime + ru.ru_stime} {ru.ru_maxrss} {os.waitstatus_to_exitcode(status)}')\n")


def timed_process(cmd: list[str], out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak resident MB) of one command writing its stdout to out.

    The peak is the command's own ``ru_maxrss`` (KiB on Linux; MB here means MiB), read with
    ``os.wait4`` by a small launcher (``python -S -c LAUNCHER``, about 10 MB) that runs it;
    the wall time includes that launcher's start (about 0.02 s).
    """
    with open(out, "w") as fh, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as usage:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-S", "-c", LAUNCHER, usage.name, *cmd], stdout=fh, stderr=err, check=True,
                       env=CHILD_ENV)
        wall = time.perf_counter() - t0
        cpu, peak_kib, status = usage.read().split()
        if int(status) != 0:
            err.seek(0)
            message = err.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(cmd[:3])} failed (exit {status}): {message}")
    return wall, float(cpu), int(peak_kib) / 1024


def median_times(runs: list[tuple]) -> dict:
    """Median wall and CPU seconds (and peak MB, when measured) of repeated runs."""
    keys = ("wall_s", "cpu_s", "peak_mb")[:len(runs[0])]
    out = {key: statistics.median(run[i] for run in runs) for i, key in enumerate(keys)}
    return {**out, "runs": [dict(zip(keys, run)) for run in runs]}


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
def sg_measures() -> list[str]:
    """trec_eval's printed names of the all_trec values pytrec_eval computes (relstring and runid are not numbers)."""
    import pytrec_eval

    values = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"all_trec"}).evaluate({"q": {"a": 1.0}})["q"]
    return sorted(set(values) - {"relstring", "runid"})


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


def pytrec_cli(qrels_path: str, run_path: str) -> None:
    """pytrec_eval as a command line: read both files, evaluate all_trec, print trec_eval -q's lines."""
    import pytrec_eval

    with open(qrels_path) as fq, open(run_path) as fr:
        qrels, run = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
    result = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
    sys.stdout.writelines(f"{name:<22}\t{q}\t{value:.4f}\n" for q, values in result.items()
                          for name, value in values.items())


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
    stages(shape)


STAGES = {  # what a fresh process does, cumulatively: its peak memory shows what each stage adds
    "start-up (import searchgrade.trec_eval)": "import searchgrade.trec_eval",
    "+ read qrels and run (io.load_columns)": "import searchgrade.trec_eval; from searchgrade.io import load_columns; "
                                               "load_columns(sys.argv[1], 'qrels'); load_columns(sys.argv[2], 'run')",
}


def stages(shape: tuple[int, int]) -> None:
    """Wall, CPU and peak memory of fresh processes that stop after each stage, with and without pyarrow."""
    hide = "import sys; sys.modules['pyarrow'] = None; "
    print(f"peak memory by stage, {shape[0]} x {shape[1]} (fresh processes; the rest is ranking, evaluating, printing):")
    with tempfile.TemporaryDirectory() as tmp:
        files = [str(path) for path in write_data(Path(tmp), *shape)]
        for label, cmd in VARIANTS.items():
            rows = {name: [sys.executable, "-c", ("import sys; " if label == "searchgrade_cli" else hide) + code]
                    for name, code in STAGES.items()}
            rows["whole command line"] = [*cmd, *ARGS]
            print(f"  {'with pyarrow' if label == 'searchgrade_cli' else 'pyarrow hidden'}:")
            for name, run in rows.items():
                wall, cpu, peak = timed_process([*run, *files], Path(tmp) / "out")
                print(f"    {name:<42} {wall:6.2f} s wall {cpu:6.2f} s CPU {peak:7.0f} MB")


# ------------------------------------------------------------------------------- start-up
ONE_LINE = {"qrels": "q1 0 d1 1\n", "run": "q1 Q0 d1 1 1.5 bench\n"}
STARTUP_COMMANDS = {  # fresh processes on one-line files: what trec_eval costs as a Unix filter
    "import": [sys.executable, "-c", "import searchgrade.trec_eval"],
    "searchgrade_cli": SG_CLI,
    "searchgrade_cli_all_trec": [*SG_CLI, *ARGS],
}


def startup(binary: Path | None, repeats: int, recorded: dict | None) -> dict:
    """Wall, CPU and peak memory of each start-up command (median of repeats >= 5, after one untimed run each),
    with ratios to trec_eval's (measured when a binary is given, else the recorded figures) and issue 33's goals."""
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for kind, line in ONE_LINE.items():
            (Path(tmp) / kind).write_text(line)
            files.append(str(Path(tmp) / kind))
        commands = {key: cmd if key == "import" else [*cmd, *files] for key, cmd in STARTUP_COMMANDS.items()}
        if binary is not None:
            commands["trec_eval_c"] = [str(binary), *files]
        for key, cmd in commands.items():
            timed_process(cmd, Path(tmp) / "out")  # untimed: the bytecode written, the files in the page cache
            out[key] = median_times([timed_process(cmd, Path(tmp) / "out") for _ in range(max(repeats, 5))])
    reference = ({"source": "measured now", **{k: out["trec_eval_c"][k] for k in ("wall_s", "peak_mb")},
                  "kinds": {"wall_s": "measured", "peak_mb": "measured"}}
                 if binary is not None else recorded)
    out["reference"] = reference
    out["goal"] = GOAL_STARTUP
    for key in ("searchgrade_cli", "searchgrade_cli_all_trec"):
        m = out[key]
        out[key]["goal_met"] = m["wall_s"] <= GOAL_STARTUP["wall_s"] and m["peak_mb"] <= GOAL_STARTUP["peak_mb"]
        if reference:
            out[key]["ratio_wall"] = m["wall_s"] / reference["wall_s"]
            out[key]["ratio_memory"] = m["peak_mb"] / reference["peak_mb"]
    return out


def print_startup(got: dict) -> None:
    """The start-up lines: each command's wall, CPU and peak, beside trec_eval's, with issue 33's goal."""
    ref = got["reference"]
    print(f"start-up, one-line qrels and run (median of {len(got['import']['runs'])}; goal (issue 33): "
          f"<= {GOAL_STARTUP['wall_s']} s and <= {GOAL_STARTUP['peak_mb']} MB)"
          + (f"; trec_eval {ref['wall_s']:.3f} s, {ref['peak_mb']:.0f} MB ({ref['source']})" if ref else ""))
    labels = {"import": "python -c 'import searchgrade.trec_eval'", "searchgrade_cli": "searchgrade CLI QRELS RUN",
              "searchgrade_cli_all_trec": "searchgrade CLI -q -m all_trec QRELS RUN"}
    for key, label in labels.items():
        m = got[key]
        ratios = (f" | {m['ratio_wall']:6.0f}x {m['ratio_memory']:5.1f}x trec_eval's"
                  if "ratio_wall" in m else "")
        goal = "" if "goal_met" not in m else f" | goal {'ok' if m['goal_met'] else 'NO'}"
        print(f"  {label:<42} {m['wall_s']:6.3f} s wall {m['cpu_s']:6.3f} s CPU {m['peak_mb']:6.1f} MB{ratios}{goal}",
              flush=True)


# ---------------------------------------------------------------------------------- main
def bench_shape(binary: Path | None, folder: Path, shape: tuple[int, int], repeats: int, recorded: dict) -> dict:
    """Both searchgrade command lines, pytrec_eval's, the in-process evaluations and (given) the C program."""
    n_queries, n_docs = shape
    qrels, run = write_data(folder, n_queries, n_docs)
    files = [str(qrels), str(run)]
    row = {"queries": n_queries, "docs_per_query": n_docs, "run_lines": n_queries * n_docs,
           "qrels_lines": sum(1 for _ in open(qrels))}
    outs = {}
    for key, cmd in VARIANTS.items():
        outs[key] = folder / f"out.{key}"
        row[key] = median_times([timed_process([*cmd, *ARGS, *files], outs[key]) for _ in range(repeats)])
    row["output_lines"] = sum(1 for _ in open(outs["searchgrade_cli"]))
    row["identical_without_pyarrow"] = not differences(outs["searchgrade_cli"], outs["searchgrade_cli_no_pyarrow"])
    pt_cmd = [sys.executable, __file__, "--pytrec-cli", *files]
    row["pytrec_eval_cli"] = median_times([timed_process(pt_cmd, folder / "out.pytrec") for _ in range(repeats)])
    row["cli_vs_pytrec_ratio_wall"] = row["searchgrade_cli"]["wall_s"] / row["pytrec_eval_cli"]["wall_s"]
    row["cli_vs_pytrec_ratio_cpu"] = row["searchgrade_cli"]["cpu_s"] / row["pytrec_eval_cli"]["cpu_s"]
    if binary is not None:
        c_out = outs["c"] = folder / "out.c"
        c_runs = [timed_process([str(binary), *ARGS, *files], c_out) for _ in range(repeats)]
        diff = differences(c_out, outs["searchgrade_cli"])
        row.update({"identical": not diff, "differing_lines": diff, "trec_eval_c": median_times(c_runs)})
        row["cli_ratio_wall"] = row["searchgrade_cli"]["wall_s"] / row["trec_eval_c"]["wall_s"]
        row["cli_ratio_cpu"] = row["searchgrade_cli"]["cpu_s"] / row["trec_eval_c"]["cpu_s"]
        reference = {"source": "measured now", **{k: row["trec_eval_c"][k] for k in ("wall_s", "cpu_s", "peak_mb")},
                     "kinds": {"wall_s": "measured", "peak_mb": "measured"}}
    else:
        reference = recorded.get(shape)
    row["reference"] = reference
    if reference is not None:
        row["goals"] = {key: goals(row[key], reference) for key in VARIANTS}
    inproc = {lib: median_times([timed_worker(lib, qrels, run) for _ in range(repeats)])
              for lib in ("searchgrade", "pytrec_eval")}
    row["in_process"] = inproc
    row["in_process_ratio_wall"] = inproc["searchgrade"]["wall_s"] / inproc["pytrec_eval"]["wall_s"]
    row["in_process_ratio_cpu"] = inproc["searchgrade"]["cpu_s"] / inproc["pytrec_eval"]["cpu_s"]
    for path in (qrels, run, folder / "out.pytrec", *outs.values()):
        path.unlink(missing_ok=True)
    return row


def goals(measured: dict, reference: dict) -> dict:
    """Ratios of one command line's wall time and peak memory to trec_eval's, and whether each meets its goal.

    The memory goal (issue 33): at most 1.5x trec_eval's peak, or its peak + 40 MB where that is larger.
    """
    wall = measured["wall_s"] / reference["wall_s"]
    c_peak = reference.get("peak_mb")
    memory = measured["peak_mb"] / c_peak if c_peak else None
    goal_mb = max(GOAL_MEMORY * c_peak, c_peak + GOAL_MEMORY_PLUS) if c_peak else None
    cpu = measured["cpu_s"] / reference["cpu_s"] if reference.get("cpu_s") else None  # a busy machine: read this
    return {"ratio_wall": wall, "wall_goal_met": wall <= GOAL_WALL, "ratio_cpu": cpu, "ratio_memory": memory,
            "memory_goal_mb": goal_mb, "memory_goal_met": None if c_peak is None else measured["peak_mb"] <= goal_mb}


def recorded_c(path: Path) -> dict:
    """{(queries, docs): trec_eval's wall_s, peak_mb and source} from a results file (C figures recorded before).

    The rows this benchmark recorded with a C binary come first; the figures reported in issue 20
    (``trec_eval_c_reported``) fill what they lack, and the peaks of issue 33
    (``trec_eval_c_reported_issue33``) the peaks still missing.  Each keeps its date in ``source``.
    Each reference says how each of its values was obtained (``kinds``): ``recorded`` (timed by this
    benchmark on an earlier run), ``reported`` (measured elsewhere and written down, not by this benchmark) or
    ``estimated`` (derived, e.g. a peak worked back from a stated goal); none is ``measured`` in this run.
    """
    data = json.loads(path.read_text()) if path.is_file() else {}
    out: dict = {}
    issue33 = data.get("trec_eval_c_reported_issue33", {}).get("shapes", [])
    peaks = {(r["queries"], r["docs_per_query"]): r["peak_mb"] for r in issue33}  # C rows recorded without one
    peak_kinds = {(r["queries"], r["docs_per_query"]): "reported" if r.get("how") == "stated" else "estimated"
                  for r in issue33}
    reported = data.get("trec_eval_c_reported", {})
    for r in reported.get("shapes", []):
        out[(r["queries"], r["docs_per_query"])] = {
            "source": f"issue 20, recorded {reported['date']}", "wall_s": r["wall_s"], "peak_mb": r.get("peak_mb"),
            "kinds": {"wall_s": "reported", "peak_mb": "reported" if r.get("peak_mb") else None}}
    for r in data.get("shapes", []):
        if "trec_eval_c" in r:
            shape = (r["queries"], r["docs_per_query"])
            old = out.get(shape, {})
            peak = r["trec_eval_c"].get("peak_mb") or old.get("peak_mb")
            from_issue33 = peak is None and shape in peaks
            peak_kind = (peak_kinds[shape] if from_issue33 else "recorded" if r["trec_eval_c"].get("peak_mb")
                         else old.get("kinds", {}).get("peak_mb"))
            out[shape] = {
                "source": f"recorded {data['date']}" + ("; MB: issue 33" if from_issue33 else ""),
                "wall_s": r["trec_eval_c"]["wall_s"], "cpu_s": r["trec_eval_c"].get("cpu_s"),
                "peak_mb": peaks[shape] if from_issue33 else peak,
                "kinds": {"wall_s": "recorded", "peak_mb": peak_kind}}
    return out


def recorded_startup(path: Path) -> dict | None:
    """trec_eval's recorded start-up on a one-line input (issue 33's figures), or None."""
    data = json.loads(path.read_text()) if path.is_file() else {}
    got = data.get("trec_eval_c_reported_issue33", {}).get("startup")
    return None if got is None else {"source": f"issue 33, recorded {data['trec_eval_c_reported_issue33']['date']}",
                                     "wall_s": got["wall_s"], "peak_mb": got["peak_mb"],
                                     "kinds": {"wall_s": "reported", "peak_mb": "reported"}}


def _ratio(value: float | None, goal: float, met: bool | None = None) -> str:
    """A ratio and whether it meets its goal ('ok'; met, where given, decides), or '-' when unknown."""
    if value is None:
        return f"{'-':>6} {'':>2}"
    return f"{value:5.2f}x {'ok' if (value <= goal if met is None else met) else 'NO'}"


def print_header() -> None:
    """The table's two header lines."""
    sg = f"{'wall':>6} {'ratio':>9} {'peak MB':>7} {'ratio':>9} |"
    print(f"{'-q -m all_trec':>15} | {'trec_eval 10.0 (C)':^44} | {'searchgrade CLI, with pyarrow':^35} | "
          f"{'searchgrade CLI, pyarrow hidden':^35} | {'pytrec_eval CLI':^14} | {'in process, CPU':^15}")
    print(f"{'queries x docs':>15} | {'wall':>6} {'peak MB':>7} {'source':<29} | {sg} {sg} "
          f"{'wall':>6} {'peak MB':>7} | {'sg / pt':>15}")


def print_row(row: dict) -> None:
    """One shape's line of the table: trec_eval (measured or recorded), both searchgrade CLIs, pytrec_eval."""
    ref = row["reference"] or {}
    peak = f"{ref['peak_mb']:7.0f}" if ref.get("peak_mb") else f"{'-':>7}"
    ref_part = (f"{ref['wall_s']:6.2f} {peak} {ref['source']:<29}" if ref
                else f"{'-':>6} {'-':>7} {'(none recorded)':<29}")
    parts = []
    for key in VARIANTS:
        m, g = row[key], row.get("goals", {}).get(key, {})
        parts.append(f"{m['wall_s']:6.2f} {_ratio(g.get('ratio_wall'), GOAL_WALL)} {m['peak_mb']:7.0f} "
                     f"{_ratio(g.get('ratio_memory'), GOAL_MEMORY, g.get('memory_goal_met'))} |")
    pt = row["pytrec_eval_cli"]
    print(f"{row['queries']:>7,} x {row['docs_per_query']:<5,} | {ref_part} | {' '.join(parts)} "
          f"{pt['wall_s']:6.2f} {pt['peak_mb']:7.0f} | {row['in_process_ratio_cpu']:14.2f}x", flush=True)


def save(path: Path, record: dict, with_c: bool) -> None:
    """Write a run with the C program at the top, one without under "without_trec_eval"; keep the rest.

    The other kind's record and the C figures reported in issue 20 (``trec_eval_c_reported``) stay.
    """
    old = json.loads(path.read_text()) if path.is_file() else {}
    if with_c:
        new = {**record, **{key: old[key] for key in old if key == "without_trec_eval"
                            or key.startswith("trec_eval_c_reported")}}
    else:
        new = {**old, "without_trec_eval": record}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(new, indent=1) + "\n")


def parse_shape(text: str) -> tuple[int, int]:
    """'20000x10' -> (20000, 10)."""
    q, d = text.lower().split("x")
    return int(q), int(d)


RESULTS = ROOT / "benchmarks" / "results" / "trec_eval.json"


def parse_args(argv) -> argparse.Namespace:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", nargs="+", type=parse_shape, default=SHAPES,
                        help="queries x docs per query (default: 2000x1000 1000x1000 20000x10 100000x10)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each program (default: %(default)s)")
    parser.add_argument("--trec-eval", default=None, help="a trec_eval binary to time (or SEARCHGRADE_TREC_EVAL)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    parser.add_argument("--recorded", default=str(RESULTS),
                        help="the results file whose recorded C figures stand in when no binary is given")
    parser.add_argument("--profile", type=parse_shape, default=None, metavar="QxD",
                        help="profile the command line on one shape instead (e.g. 2000x1000)")
    parser.add_argument("--worker", nargs=3, metavar=("LIB", "QRELS", "RUN"), help=argparse.SUPPRESS)
    parser.add_argument("--pytrec-cli", nargs=2, metavar=("QRELS", "RUN"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def trec_eval_binary(given: str | None) -> Path | None:
    """The C binary to time (None: say so on stderr); SystemExit(2) if it is not an executable file."""
    if not given:  # this project never builds trec_eval; the C rows need a binary the user has
        print("no trec_eval binary given (--trec-eval PATH or SEARCHGRADE_TREC_EVAL): the C program is not "
              "timed; the ratios use the C figures recorded before, labelled with their date",
              file=sys.stderr, flush=True)
        return None
    binary = Path(given).expanduser()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        print(f"bench_trec_eval: {binary} is not an executable file", file=sys.stderr)
        raise SystemExit(2)
    return binary


def main(argv=None) -> int:
    """Run every shape, print the table; exit status 1 if an output differs from trec_eval's or between readers."""
    args = parse_args(argv)
    if args.pytrec_cli:
        pytrec_cli(*args.pytrec_cli)
        return 0
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    if args.profile:
        profile(args.profile)
        return 0
    binary = trec_eval_binary(args.trec_eval or os.environ.get("SEARCHGRADE_TREC_EVAL"))
    recorded = {} if binary is not None else recorded_c(Path(args.recorded))
    load_before = list(os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f}; Python {platform.python_version()}; "
          f"median of {args.repeats} runs; MB = MiB of peak resident memory (ru_maxrss)", flush=True)
    started = startup(binary, args.repeats, None if binary is not None else recorded_startup(Path(args.recorded)))
    print_startup(started)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        print_header()
        for shape in args.shapes:
            rows.append(bench_shape(binary, Path(tmp), shape, args.repeats, recorded))
            print_row(rows[-1])
    load_after = list(os.getloadavg())
    cpu = [f"{r['queries']:,} x {r['docs_per_query']:,}: {r['goals']['searchgrade_cli']['ratio_cpu']:.2f}x"
           for r in rows if (r.get("goals") or {}).get("searchgrade_cli", {}).get("ratio_cpu")]
    if cpu:  # user + system time: what a busy machine inflates less than the wall time
        print("searchgrade CLI's CPU time / trec_eval's: " + ", ".join(cpu))
    print(f"goals (issues 20, 33): wall <= {GOAL_WALL}x trec_eval's, peak memory <= {GOAL_MEMORY}x trec_eval's "
          f"or its peak + {GOAL_MEMORY_PLUS} MB, whichever is larger; 'recorded' C figures were not measured "
          "in this run")
    print(f"load average after: {load_after[0]:.2f} (a busy machine inflates wall times; CPU times less)")
    for row in rows:
        if not row.get("identical", True):
            print(f"DIFFERENT OUTPUT at {row['queries']} x {row['docs_per_query']}, lines per measure: "
                  f"{row['differing_lines']}")
        if not row["identical_without_pyarrow"]:
            print(f"DIFFERENT OUTPUT without pyarrow at {row['queries']} x {row['docs_per_query']}")
    if args.json:
        save(Path(args.json), record(rows, started, args.repeats, load_before, load_after, binary), binary is not None)
    return 0 if all(row.get("identical", True) and row["identical_without_pyarrow"] for row in rows) else 1


def record(rows: list, startup: dict, repeats: int, load_before: list, load_after: list, binary) -> dict:
    """The JSON record of one run."""
    from importlib import metadata

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "pytrec_eval": metadata.version("pytrec-eval-terrier")}
    for package in ("pandas", "pyarrow"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    if binary is not None:
        versions["trec_eval"] = TREC_EVAL_VERSION
    return {"date": time.strftime("%Y-%m-%d"), "shapes": rows, "startup": startup["import"],
            "startup_one_line": startup, "args": ARGS, "seed": SEED, "repeats": repeats,
            "goals": {"ratio_wall": GOAL_WALL, "ratio_memory": GOAL_MEMORY, "memory_plus_mb": GOAL_MEMORY_PLUS,
                      "startup": GOAL_STARTUP},
            "load_average_before": load_before, "load_average_after": load_after,
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()}, "versions": versions,
            "meta": bench_meta.meta(load_before=load_before, c_prog=bench_meta.c_program("trec_eval", binary, ("-v",)),
                                    **provenance(rows, startup))}


def provenance(rows: list, startup: dict) -> dict:
    """Which values of a record this run measured, and which trec_eval figures it copied in (recorded,
    reported) or derived (estimated), for the ``values`` field of its meta block."""
    measured = ["searchgrade's and pytrec_eval's times and peaks, every shape and the start-up"]
    kinds: dict = {"recorded": [], "reported": [], "estimated": []}
    refs = [(f"{r['queries']}x{r['docs_per_query']}", r.get("reference")) for r in rows]
    refs.append(("start-up", startup.get("reference")))
    for label, ref in refs:
        for value, kind in ((ref or {}).get("kinds") or {}).items():
            if kind == "measured":
                measured.append(f"trec_eval's {value} on {label}")
            elif kind in kinds:
                kinds[kind].append(f"trec_eval's {value} on {label} ({ref['source']})")
    recorded = kinds["recorded"] + kinds["reported"]
    if recorded or kinds["estimated"]:
        kinds["estimated"].append("every ratio to trec_eval and goal check computed from a value not measured now")
    return {"measured": measured, "recorded": recorded, "estimated": kinds["estimated"]}


if __name__ == "__main__":
    sys.exit(main())
