"""searchgrade.trec_eval against trec_eval 10.0's recorded outputs: the golden files, byte for byte.

``../shared/trec_eval_golden`` (``SEARCHGRADE_TREC_EVAL_GOLDEN`` names another folder) holds 300
generated cases, each a qrels file, a run file and one line of ``cases.jsonl``: trec_eval 10.0's
command line, its exit status and its complete standard output (see the folder's README).  They
are the trec_eval oracle: nothing here builds or runs trec_eval.  Every case runs
``searchgrade.trec_eval.main`` in this process, with the folder as the working directory (the
command lines name the files relative to it) and ``-`` read from the case's ``stdin`` file; its
standard output must equal trec_eval's byte for byte and its exit status trec_eval's.  Standard
error is not compared (searchgrade reports there what trec_eval skips silently).  A few cases
also run as ``python -m searchgrade.trec_eval`` in a fresh interpreter, as a user runs it.

A missing folder is a failure that names it, never a skip: CI has ``../shared``.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from tests.support.examples import spread
from tests.support.golden import ROOT, golden_folder, load_cases, missing_message

from searchgrade.trec_eval import main

GOLDEN_ENV = "SEARCHGRADE_TREC_EVAL_GOLDEN"
GOLDEN = golden_folder(GOLDEN_ENV, "trec_eval_golden")
EXPECTED_CASES = 300
CASES = load_cases(GOLDEN)
MISSING = missing_message("trec_eval", GOLDEN, GOLDEN_ENV)


def test_golden_folder_is_there():
    assert CASES, MISSING
    assert len(CASES) == EXPECTED_CASES, f"{GOLDEN / 'cases.jsonl'}: {len(CASES)} cases, not {EXPECTED_CASES}"
    assert len({c["name"] for c in CASES}) == len(CASES)


def _run_in_process(case: dict, monkeypatch) -> tuple[int, bytes]:
    """main(case's args) with the golden folder as working directory; (exit status, stdout bytes)."""
    monkeypatch.chdir(GOLDEN)
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", newline=""))
    if case["stdin"] is not None:
        data = (GOLDEN / case["stdin"]).read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    rc = main(list(case["args"]))
    sys.stdout.flush()
    return rc, out.getvalue()


def _first_difference(expected: str, got: str) -> str:
    """The first differing line of two outputs, for the failure message."""
    want, have = expected.splitlines(), got.splitlines()
    for i, (a, b) in enumerate(zip(want, have), 1):
        if a != b:
            return f"line {i}:\n  trec_eval   {a!r}\n  searchgrade {b!r}"
    return f"{len(want)} lines from trec_eval, {len(have)} from searchgrade"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_case(case, monkeypatch, capsys):
    rc, out = _run_in_process(case, monkeypatch)
    err = capsys.readouterr().err
    assert rc == case["returncode"], f"{case['name']} {case['args']}: exit {rc}, trec_eval {case['returncode']}\n{err}"
    expected = case["stdout"].encode("utf-8")
    assert out == expected, (f"{case['name']} {' '.join(case['args'])}: "
                             + _first_difference(case["stdout"], out.decode("utf-8", "replace")))


# a few cases as a user runs them: a fresh interpreter, files named relative to the working directory
def _process_cases() -> list[dict]:
    """The first case read from standard input, and four more with different options."""
    piped = [c for c in CASES if c["stdin"] is not None][:1]
    others = [c for c in CASES if c["stdin"] is None]
    return piped + others[::max(1, len(others) // 4)][:4]


@pytest.mark.parametrize("case", _process_cases(), ids=lambda c: c["name"])
def test_golden_case_as_a_program(case):
    stdin = (GOLDEN / case["stdin"]).read_bytes() if case["stdin"] is not None else None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                                     os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "searchgrade.trec_eval", *case["args"]], cwd=GOLDEN, input=stdin,
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == case["returncode"], proc.stderr.decode("utf-8", "replace")
    assert proc.stdout == case["stdout"].encode("utf-8")


# every case again through the streaming path at its smallest: a part of one line (so each scored part is one
# query, and a run not grouped by query is spilled a line at a time), printed a query at a time, the values
# held in a temporary file, spill files of a few bytes (spilled again, a level down); with the strict line
# reader on every part and with the bulk reader (every case under the thorough profile, as CI runs it; under
# the fast one a quarter of them, an eighth for the bulk reader: every golden case goes through the streaming
# path at its usual sizes in test_golden_case)
@pytest.mark.parametrize("reader", ["strict", "bulk"])
def test_golden_cases_streamed_a_line_at_a_time(reader, monkeypatch, capsys, caplog):
    from searchgrade.io import stream as io_stream
    from searchgrade.measures import blocks
    from searchgrade.measures import stream as measures_stream

    assert CASES, MISSING
    monkeypatch.setattr(io_stream, "UNIT_BYTES", 1)
    monkeypatch.setattr(io_stream, "SPILL_BYTES", 64)
    monkeypatch.setattr(io_stream, "MIN_BYTES", 0 if reader == "bulk" else 1 << 40)
    monkeypatch.setattr(blocks, "ROWS_PER_BLOCK", 1)
    monkeypatch.setattr(measures_stream, "HELD_BYTES", 0)
    differ = []
    cases = spread(CASES) if reader == "strict" else spread(CASES[1:], share=8)  # bulk: other cases
    with caplog.at_level("INFO", logger="searchgrade.io.stream"):
        for case in cases:
            rc, out = _run_in_process(case, monkeypatch)
            capsys.readouterr()
            if rc != case["returncode"] or out != case["stdout"].encode("utf-8"):
                differ.append(f"{case['name']} {' '.join(case['args'])}: exit {rc}; "
                              + _first_difference(case["stdout"], out.decode("utf-8", "replace")))
    assert not differ, f"{len(differ)} of {len(cases)} cases differ, the first: " + "; ".join(differ[:3])
    said = caplog.text  # every way through was taken
    for way in ("read in one pass, grouped by query", "is not grouped by query", "spilled again",
                "moved to a temporary file"):
        assert way in said, way
