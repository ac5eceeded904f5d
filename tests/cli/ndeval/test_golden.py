"""searchgrade.ndeval against ndeval 4.5's recorded outputs: the golden files, byte for byte.

``../shared/ndeval_golden`` (``SEARCHGRADE_NDEVAL_GOLDEN`` names another folder) holds 300
generated cases, each a subtopic qrels file, a run, sometimes a baseline run, and one line of
``cases.jsonl``: ndeval's command line, its exit status and its complete standard output (see the
folder's README).  They are the ndeval oracle: nothing here builds or runs ndeval.  Every case
runs ``searchgrade.ndeval.main`` in this process with the folder as the working directory; its
standard output must equal ndeval's byte for byte.  A few cases also run in a fresh interpreter,
as ``python -m searchgrade.ndeval`` and as ``python -m searchgrade ndeval``.

A missing folder is a failure that names it, never a skip: CI has ``../shared``.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from tests.support.golden import ROOT, golden_folder, load_cases, missing_message

from searchgrade.ndeval import main

GOLDEN_ENV = "SEARCHGRADE_NDEVAL_GOLDEN"
GOLDEN = golden_folder(GOLDEN_ENV, "ndeval_golden")
EXPECTED_CASES = 300
CASES = load_cases(GOLDEN)
MISSING = missing_message("ndeval", GOLDEN, GOLDEN_ENV)


def test_golden_folder_is_there():
    assert CASES, MISSING
    assert len(CASES) == EXPECTED_CASES, f"{GOLDEN / 'cases.jsonl'}: {len(CASES)} cases, not {EXPECTED_CASES}"
    assert len({c["name"] for c in CASES}) == len(CASES)


def test_golden_cases_cover_every_option():
    used = {a for c in CASES for a in c["args"] if a.startswith("-")}
    assert used >= {"-alpha", "-beta", "-traditional", "-c", "-M", "-baseline", "-riskAlpha"}


def _run_in_process(case: dict, monkeypatch) -> tuple[int, bytes]:
    """main(case's args) with the golden folder as working directory; (exit status, stdout bytes)."""
    monkeypatch.chdir(GOLDEN)
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", newline=""))
    rc = main(list(case["args"]))
    sys.stdout.flush()
    return rc, out.getvalue()


def _first_difference(expected: str, got: str) -> str:
    """The first differing line of two outputs, for the failure message."""
    want, have = expected.splitlines(), got.splitlines()
    for i, (a, b) in enumerate(zip(want, have), 1):
        if a != b:
            return f"line {i}:\n  ndeval      {a!r}\n  searchgrade {b!r}"
    return f"{len(want)} lines from ndeval, {len(have)} from searchgrade"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_case(case, monkeypatch, capsys):
    rc, out = _run_in_process(case, monkeypatch)
    err = capsys.readouterr().err
    assert rc == case["returncode"], f"{case['name']} {case['args']}: exit {rc}, ndeval {case['returncode']}\n{err}"
    assert out == case["stdout"].encode("utf-8"), (f"{case['name']} {' '.join(case['args'])}: "
                                                   + _first_difference(case["stdout"], out.decode("utf-8", "replace")))


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}


@pytest.mark.parametrize("how", [["-m", "searchgrade.ndeval"], ["-m", "searchgrade", "ndeval"]], ids=["module", "sub"])
def test_golden_case_as_a_program(how):
    case = next(c for c in CASES if "-baseline" in c["args"] and "-traditional" in c["args"])
    proc = subprocess.run([sys.executable, *how, *case["args"]], cwd=GOLDEN, capture_output=True, env=_env(),
                          timeout=120)
    assert proc.returncode == case["returncode"], proc.stderr.decode("utf-8", "replace")
    assert proc.stdout == case["stdout"].encode("utf-8")
