"""Time and peak memory of searchgrade.trec_eval on hostile inputs (issue 34, N2 and N3): a check, not a test.

Each case runs ``python -m searchgrade.trec_eval QRELS RUN`` in a child process and prints its wall
time, its peak resident memory (``ru_maxrss`` of the child) and the first line it wrote on standard
error.  Goals: 64 MB of blank lines (plain, gzip, on standard input, or between two data lines) in at
most 8 s and 300 MB; junk bytes fail at the first block that is not UTF-8, whatever their size.

    python benchmarks/check_hostile_sizes.py [--big]    (--big adds a gzip of 1 GiB of newlines)
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time

MB = 1 << 20


# Runs the command as its own child and prints that child's peak memory: ru_maxrss of RUSAGE_CHILDREN is
# the largest of all children so far, so each case is measured from a fresh process.
_WRAP = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True); "
         "sys.stderr.buffer.write(done.stderr); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def _run(argv: list[str], stdin_path: str | None = None, limit: float = 120.0) -> tuple[float, float, str]:
    """(seconds, peak MB of the command, first stderr line) of one command."""
    start = time.perf_counter()
    with open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb") as stdin:
        done = subprocess.run([sys.executable, "-c", _WRAP, *argv], stdin=stdin, capture_output=True, timeout=limit)
    seconds = time.perf_counter() - start
    peak_kib = int(done.stdout.split()[-1])  # ru_maxrss is in KiB on Linux
    first = (done.stderr.decode("utf-8", "replace").splitlines() or [""])[0][:100]
    return seconds, peak_kib / 1024, first


def _files(folder: str, big: bool) -> dict[str, str]:
    """The inputs, written into folder."""
    paths = {name: os.path.join(folder, name) for name in ("q", "nl", "nl.gz", "mixed", "junk", "nl1g.gz")}
    with open(paths["q"], "w") as fh:
        fh.write("q1 0 a 1\n")
    with open(paths["nl"], "wb") as fh:
        fh.write(b"\n" * (64 * MB))
    with open(paths["nl"], "rb") as src, gzip.open(paths["nl.gz"], "wb", compresslevel=9) as dst:
        dst.write(src.read())
    with open(paths["mixed"], "wb") as fh:
        fh.write(b"q1 Q0 a 1 1.0 r\n" + b"\n" * (64 * MB) + b"q1 Q0 b 2 0.5 r\n")
    with open(paths["junk"], "wb") as fh:
        fh.write(os.urandom(200 * MB))
    if big:
        with gzip.open(paths["nl1g.gz"], "wb", compresslevel=1) as dst:
            for _ in range(16):
                dst.write(b"\n" * (64 * MB))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also a gzip of 1 GiB of newlines")
    args = parser.parse_args()
    cmd = [sys.executable, "-m", "searchgrade.trec_eval"]
    with tempfile.TemporaryDirectory() as folder:
        p = _files(folder, args.big)
        cases = [("64 MB of newlines as the run", cmd + [p["q"], p["nl"]], None),
                 ("64 MB of newlines as the qrels", cmd + [p["nl"], p["q"]], None),
                 ("a gzip (64 KB) of 64 MB of newlines", cmd + [p["q"], p["nl.gz"]], None),
                 ("64 MB of newlines on standard input", cmd + [p["q"], "-"], p["nl"]),
                 ("64 MB of newlines between two run lines", cmd + [p["q"], p["mixed"]], None),
                 ("200 MB of random bytes on standard input", cmd + [p["q"], "-"], p["junk"]),
                 ("200 MB of random bytes as the run", cmd + [p["q"], p["junk"]], None),
                 ("/dev/urandom as the run", cmd + [p["q"], "/dev/urandom"], None)]
        if args.big:
            cases.append(("a gzip of 1 GiB of newlines", cmd + [p["q"], p["nl1g.gz"]], None))
        print(f"{'case':44s} {'seconds':>8s} {'peak MB':>8s}  first line on stderr")
        for label, argv, stdin in cases:
            seconds, peak, first = _run(argv, stdin)
            print(f"{label:44s} {seconds:8.2f} {peak:8.0f}  {first}")


if __name__ == "__main__":
    main()
