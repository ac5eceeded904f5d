"""The real trec_eval 10.0 as a test oracle: built once from its official C source, run on files.

The source is NIST's trec_eval 10.0 in ``../shared/tools/trec_eval`` (next to this repository;
``SEARCHGRADE_TREC_EVAL_SRC`` names another folder).  It is never part of the project: it is
copied to a temporary folder and built there with ``make`` (a few seconds to half a minute).
:func:`missing_reason` says why it cannot be built (no C compiler or no ``make``); the tests skip
with that reason, and only then.  The benchmark ``benchmarks/bench_trec_eval.py`` builds it the
same way, with this module.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE_ENV = "SEARCHGRADE_TREC_EVAL_SRC"
VERSION = "10.0-rc3"  # what the official 10.0 source prints for -v

_BUILT: dict[Path, Path] = {}  # source folder -> built binary, once per process


def source_dir() -> Path:
    """The folder holding trec_eval's C source: $SEARCHGRADE_TREC_EVAL_SRC or ../shared/tools/trec_eval."""
    return Path(os.environ.get(SOURCE_ENV) or ROOT.parent / "shared" / "tools" / "trec_eval")


def c_compiler() -> str | None:
    """The C compiler make will use: $CC, gcc (the Makefile's choice) or cc; None if there is none."""
    for name in (os.environ.get("CC"), "gcc", "cc"):
        if name and shutil.which(name):
            return name
    return None


def missing_reason() -> str | None:
    """Why trec_eval cannot be built here (no C compiler, no make), or None when it can."""
    if c_compiler() is None:
        return "no C compiler (gcc or cc) on PATH: trec_eval 10.0 cannot be built as the test oracle"
    if shutil.which("make") is None:
        return "no make on PATH: trec_eval 10.0 cannot be built as the test oracle"
    return None


ZERO_INIT = "-ftrivial-auto-var-init=zero"
_ZERO_MARK = "ZERO_INITIALISED_LOCALS"


def _supports(compiler: str, flag: str, folder: Path) -> bool:
    """Whether the compiler accepts flag (compiling an empty C file)."""
    src = folder / "empty.c"
    src.write_text("int main(void) { return 0; }\n")
    proc = subprocess.run([compiler, flag, "-c", str(src), "-o", str(folder / "empty.o")], capture_output=True)
    return proc.returncode == 0


def build(dest: Path, source: Path | None = None) -> Path:
    """Copy trec_eval's source to dest/trec_eval, build it with make; the path of the binary.

    Where the compiler has ``-ftrivial-auto-var-init=zero`` (gcc 12, clang 16 and later) the
    build uses it: m_rbp.c reads its local ``min`` and ``max`` before setting them, so
    trec_eval 10.0's rbp depends on stack garbage (undefined behaviour, seen to change with
    the other measures requested, on binary qrels too); with locals zeroed it computes
    gain = grade / (largest grade), the NIST fixtures' values.  :func:`zero_initialised`
    says whether a binary was built so.  A missing source folder or a failed build raises
    RuntimeError with the reason (never a skip).
    """
    source = source_dir() if source is None else Path(source)
    if not (source / "Makefile").is_file() or not (source / "trec_eval.c").is_file():
        raise RuntimeError(f"trec_eval's C source not found in {source} (set {SOURCE_ENV} to its folder)")
    work = Path(dest) / "trec_eval"
    shutil.copytree(source, work)
    compiler = c_compiler()
    zero = _supports(compiler, ZERO_INIT, Path(dest))
    cc = f"{compiler} {ZERO_INIT}" if zero else compiler  # CC, so that the Makefile's CFLAGS stay as they are
    proc = subprocess.run(["make", "-s", f"CC={cc}"], cwd=work, capture_output=True, text=True)
    binary = work / "trec_eval"
    if proc.returncode != 0 or not binary.is_file():
        raise RuntimeError(f"building trec_eval in {work} failed (make exit {proc.returncode}):\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    version = subprocess.run([str(binary), "-v"], capture_output=True, text=True).stderr.strip()
    if version != f"trec_eval version {VERSION}":
        raise RuntimeError(f"{binary} says {version!r}, not trec_eval version {VERSION}")
    if zero:
        (work / _ZERO_MARK).write_text(f"built with CC={cc}\n")
    return binary


def zero_initialised(binary: Path) -> bool:
    """Whether binary was built with zero-initialised locals (its rbp lines are then defined)."""
    return (Path(binary).parent / _ZERO_MARK).is_file()


def built_once(tmp_root: Path) -> Path:
    """The binary built by :func:`build` under tmp_root, reused for the rest of the process."""
    source = source_dir().resolve()
    if source not in _BUILT:
        _BUILT[source] = build(Path(tmp_root), source)
    return _BUILT[source]


@dataclass(frozen=True)
class Result:
    """What one run of a trec_eval printed, and its exit status."""

    rc: int
    out: str
    err: str

    def lines(self) -> list[str]:
        """stdout's lines."""
        return self.out.splitlines()


def run_c(binary: Path, args: list[str], stdin: str | None = None, timeout: float = 120) -> Result:
    """Run the C trec_eval with args (stdin text optional)."""
    proc = subprocess.run([str(binary), *map(str, args)], input=stdin, capture_output=True, encoding="utf-8",
                          timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def run_py(args: list[str]) -> Result:
    """Run searchgrade.trec_eval.main(args) in this process, capturing what it prints."""
    from searchgrade.trec_eval import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    return Result(rc, out.getvalue(), err.getvalue())


def run_py_process(args: list[str], stdin: str | None = None, timeout: float = 300) -> Result:
    """Run ``python -m searchgrade.trec_eval args`` in a fresh interpreter (stdin text optional)."""
    proc = subprocess.run([sys.executable, "-m", "searchgrade.trec_eval", *map(str, args)], input=stdin,
                          capture_output=True, encoding="utf-8", timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def write_qrels(path: Path, qrels: dict, sep: str = " ", eol: str = "\n") -> Path:
    """Write ``qid 0 docno grade`` lines for {qid: {docno: grade}}, in dict order; the path."""
    lines = [sep.join((q, "0", d, str(g))) + eol for q, docs in qrels.items() for d, g in docs.items()]
    Path(path).write_bytes("".join(lines).encode("utf-8"))
    return Path(path)


def write_run(path: Path, run: dict, runid: str = "sg", sep: str = " ", eol: str = "\n") -> Path:
    """Write ``qid Q0 docno rank score runid`` lines for {qid: {docno: score text}}, in dict order; the path."""
    lines = [sep.join((q, "Q0", d, str(i), s, runid)) + eol
             for q, docs in run.items() for i, (d, s) in enumerate(docs.items(), 1)]
    Path(path).write_bytes("".join(lines).encode("utf-8"))
    return Path(path)
