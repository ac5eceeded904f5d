"""The trec_eval command's usage names the command as the user typed it (issue 41 §3: ``searchgrade trec_eval
--help`` printed "usage: python -m searchgrade.trec_eval")."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from searchgrade.trec_eval import main

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("argv0, typed", [
    ("/venv/bin/searchgrade-trec-eval", "searchgrade-trec-eval"),
    ("/venv/lib/python3.11/site-packages/searchgrade/trec_eval.py", "python -m searchgrade.trec_eval"),
    ("/venv/bin/searchgrade", "searchgrade trec_eval"),
    ("/venv/lib/python3.11/site-packages/searchgrade/__main__.py", "python -m searchgrade trec_eval"),
])
@pytest.mark.parametrize("flag", ["--help", "-h", "--he"])
def test_help_names_the_command_as_typed(monkeypatch, capsys, argv0, typed, flag):
    monkeypatch.setattr(sys, "argv", [argv0, flag])
    assert main([flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {typed} [-h] [-v] [-q]") and "-m" in out


def test_a_usage_error_names_it_too(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["/venv/bin/searchgrade", "trec_eval", "-x"])
    assert main(["-x"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "trec_eval: unknown option -x" and err[1].startswith("usage: searchgrade trec_eval [-h]")


def test_as_a_program():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    for how, typed in ((["-m", "searchgrade", "trec_eval"], "python -m searchgrade trec_eval"),
                       (["-m", "searchgrade.trec_eval"], "python -m searchgrade.trec_eval")):
        out = subprocess.run([sys.executable, *how, "--help"], capture_output=True, text=True, env=env, timeout=60)
        assert out.returncode == 0 and out.stdout.startswith(f"usage: {typed} [-h]"), out.stderr
