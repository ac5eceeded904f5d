"""``searchgrade`` hands each subcommand the name the user typed, for its usage and help (issue 41 §3).

(The tests of cli/main.py's ``runs`` and ``report`` load a model: they are tests/cli/test_main.py.)
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from searchgrade.cli.main import main, typed_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv0, sub, typed", [
    ("/venv/bin/searchgrade", "ndeval", "searchgrade ndeval"),
    ("/venv/Scripts/searchgrade-trec-eval.exe", "trec_eval", "searchgrade-trec-eval"),
    ("/venv/bin/searchgrade-trec-eval", "trec_eval", "searchgrade-trec-eval"),
    ("/src/searchgrade/__main__.py", "ndeval", "python -m searchgrade ndeval"),
    ("/src/searchgrade/ndeval.py", "ndeval", "python -m searchgrade.ndeval"),
    ("/venv/bin/pytest", "ndeval", "searchgrade ndeval"),
    ("", "trec_eval", "searchgrade trec_eval"),
])
def test_typed_command(monkeypatch, argv0, sub, typed):
    monkeypatch.setattr(sys, "argv", [argv0])
    assert typed_command(sub) == typed


@pytest.mark.parametrize("sub, flag, first", [
    ("ndeval", "--help", "Usage: searchgrade ndeval [options] qrels run"),
    ("ndeval", "-h", "Usage: searchgrade ndeval [options] qrels run"),
    ("trec_eval", "--help", "usage: searchgrade trec_eval [-h]"),
    ("trec_eval", "-h", "usage: searchgrade trec_eval [-h]"),
])
def test_subcommand_help(monkeypatch, capsys, sub, flag, first):
    monkeypatch.setattr(sys, "argv", ["/venv/bin/searchgrade", sub, flag])
    assert main([sub, flag]) == 0
    assert capsys.readouterr().out.startswith(first)


def test_ndeval_help_as_a_program():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-m", "searchgrade", "ndeval", "--help"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("Usage: python -m searchgrade ndeval [options] qrels run")
