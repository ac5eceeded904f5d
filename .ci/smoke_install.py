"""Smoke test of an installed searchgrade, run by .ci/run with the python of a clean venv.

    python smoke_install.py core   DIR   # the core: evaluate a tiny qrels/run, run the trec_eval command
    python smoke_install.py report DIR   # the report extra: three plain run files become an English page

DIR is an empty scratch folder. The expected numbers are worked out by hand in the comments; the
`searchgrade` script is the one installed beside this python. Exit status 0, or an AssertionError.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\n"
RUN = "q1 Q0 d2 1 3.0 a\nq1 Q0 d1 2 2.0 a\nq1 Q0 d3 3 1.0 a\nq2 Q0 d5 1 1.0 a\n"
# q1: relevant at ranks 2 and 3: P@1 0, AP (1/2 + 2/3) / 2 = 7/12; q2: nothing relevant: P@1 0, AP 0.
# mean AP = 7/24 = 0.29166..., mean P@1 = 0


def script() -> str:
    """The `searchgrade` command installed beside this interpreter."""
    return str(Path(sys.executable).parent / "searchgrade")


def core(folder: Path) -> None:
    """The core alone: the API and the trec_eval command agree with the hand-made values."""
    import searchgrade as sg

    (folder / "qrels").write_text(QRELS, encoding="utf-8")
    (folder / "run").write_text(RUN, encoding="utf-8")
    means = sg.mean(sg.read_qrels(folder / "qrels"), sg.read_run(folder / "run"), ["AP", "P@1"])
    assert abs(means["AP"] - 7 / 24) < 1e-12 and means["P@1"] == 0, means
    out = subprocess.run([script(), "trec_eval", "-m", "map", "-m", "P.1", str(folder / "qrels"), str(folder / "run")],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0].split() == ["map", "all", "0.2917"] and out[1].split() == ["P_1", "all", "0.0000"], out
    print("core: ok")


def report(folder: Path, bare: bool = True) -> None:
    """The report extra: three plain run files become an English page (``bare``: no torch, IPython, matplotlib)."""
    for heavy in ("torch", "IPython", "matplotlib") if bare else ():
        assert importlib.util.find_spec(heavy) is None, f"the report extra installed {heavy}"
    (folder / "qrels.txt").write_text(QRELS, encoding="utf-8")
    runs = []
    for i, name in enumerate(("bm25.run", "dense.run", "hybrid.run")):
        lines = RUN.splitlines()[i:] + RUN.splitlines()[:i]    # three different orders of one run
        text = "".join(f"{q} Q0 {d} {r} {10 - r}.0 {name}\n" for r, (q, _, d, *_) in
                       enumerate((line.split() for line in lines), 1))
        (folder / name).write_text(text, encoding="utf-8")
        runs.append(str(folder / name))
    page = folder / "page.html"
    subprocess.run([script(), "report", "--qrels", str(folder / "qrels.txt"), "--lang", "en", "--n-perm", "200",
                    "--out", str(page), *runs], check=True)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and '<html lang="en">' in html and "Main table" in html
    assert all(f'data-row="{n}"' in html for n in ("bm25", "dense", "hybrid"))
    print("report: ok")


if __name__ == "__main__":
    {"core": core, "report": report}[sys.argv[1]](Path(sys.argv[2]))
