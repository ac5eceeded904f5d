"""What every benchmark record says about itself: when, at which searchgrade commit, under what load, with which C program.

Each benchmark script that writes a JSON record puts ``meta(...)`` under the key ``"meta"``:

* ``date`` and ``time_utc``: when the record was written;
* ``commit``: ``git rev-parse HEAD`` of the repository the script ran from, and ``commit_dirty`` (True when
  ``git status --porcelain`` lists changes under ``src/`` or ``benchmarks/``: the code measured is then not
  exactly that commit); ``"not recorded"`` where git cannot say;
* ``load_average_before`` / ``load_average_after``: the 1, 5 and 15 minute load averages around the timings
  (``os.getloadavg()``), and ``cpus``;
* ``c_program``: the C program timed beside searchgrade when its path was given (``name``, ``path``,
  ``version`` as the program prints it, or ``"not recorded"``), else None;
* ``values``: which values of the record were ``measured`` by this run, which were ``recorded`` earlier or
  elsewhere (copied in, with their source), and which are ``estimated`` (derived, not measured): a list of
  short descriptions each, so that a reader of the record, and the book's performance appendix, can mark
  every value that this run did not measure.

The book's performance appendix reads these fields; it never runs a benchmark.
"""
from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOT_RECORDED = "not recorded"


def _git(*args: str) -> str | None:
    """Output of ``git ARGS`` in the repository, or None when git is missing or fails."""
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit() -> dict:
    """``{"commit": sha or "not recorded", "commit_dirty": bool or "not recorded"}`` of the code measured."""
    sha = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--", "src", "benchmarks")
    return {"commit": sha or NOT_RECORDED, "commit_dirty": NOT_RECORDED if status is None else bool(status)}


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages now."""
    return [round(x, 2) for x in os.getloadavg()]


def c_program(name: str, path: str | os.PathLike | None, version_args: tuple[str, ...] = ()) -> dict | None:
    """What to record of a C program given by path: its name, path and version (the first line it prints
    with ``version_args``, or "not recorded"); None when no path was given."""
    if not path:
        return None
    version = NOT_RECORDED
    if version_args:
        try:
            done = subprocess.run([str(path), *version_args], capture_output=True, text=True, timeout=30, check=False)
            lines = (done.stdout + done.stderr).strip().splitlines()
            version = lines[0].strip() if lines else NOT_RECORDED
        except (OSError, subprocess.SubprocessError):
            version = NOT_RECORDED
    return {"name": name, "path": str(Path(path).expanduser().resolve()), "version": version}


def meta(*, load_before: list[float], measured: list[str], recorded: list[str] | None = None,
         estimated: list[str] | None = None, c_prog: dict | None = None) -> dict:
    """The ``"meta"`` block of a record (see the module docstring); call it when the record is written."""
    return {"date": time.strftime("%Y-%m-%d"), "time_utc": time.strftime("%H:%M:%S", time.gmtime()), **commit(),
            "load_average_before": [round(x, 2) for x in load_before], "load_average_after": load_average(),
            "cpus": os.cpu_count(), "platform": platform.platform(), "c_program": c_prog,
            "values": {"measured": list(measured), "recorded": list(recorded or []),
                       "estimated": list(estimated or [])}}
