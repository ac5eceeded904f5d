"""The ndeval command's options: numbers read as ndeval's sscanf reads them (issue 41 D1), and its help flags.

The expected values of D1 are what ndeval 4.5 prints on these files (issue 41 gives them; the same
command lines with the decimal value print them too, which the last test checks without ndeval).
"""
from __future__ import annotations

import math
import sys

import pytest

from searchgrade.cli.ndeval.args import UsageError, parse_args
from searchgrade.ndeval import main

QRELS = "1 1 a 1\n1 2 b 1\n1 3 c 1\n"
RUN = "1 Q0 x 1 1 run\n1 Q0 a 2 1 run\n"
BASE = "1 Q0 a 1 1 base\n1 Q0 b 2 1 base\n1 Q0 c 3 1 base\n"
COLUMN = {"ERR-IA@5": 2, "NRBP": 14}  # index in a CSV line (after runid and topic)


def _amean(tmp_path, capsys, *options) -> list[str]:
    for name, text in (("q", QRELS), ("r", RUN), ("b", BASE)):
        (tmp_path / name).write_text(text)
    options = [str(tmp_path / o) if o == "b" else o for o in options]
    assert main([*options, str(tmp_path / "q"), str(tmp_path / "r")]) == 0, capsys.readouterr().err
    return capsys.readouterr().out.splitlines()[-1].split(",")


@pytest.mark.parametrize("options, column, value", [
    (["-alpha", "0x1p-1"], "ERR-IA@5", "0.121029"),
    (["-beta", "0x1p-2"], "NRBP", "0.072917"),
    (["-baseline", "b", "-riskAlpha", "0x1p1"], "ERR-IA@5", "-0.968230"),
])
def test_hexadecimal_options_are_read_as_ndeval_reads_them(tmp_path, capsys, options, column, value):
    """Issue 41 D1: searchgrade read each of these as 0 (0.072993, 0.000000 and -0.322743)."""
    assert _amean(tmp_path, capsys, *options)[COLUMN[column]] == value


@pytest.mark.parametrize("text, same", [("0x1p-1", "0.5"), (" 0.5", "0.5"), ("0.5x", "0.5"), ("5e-1", "0.5"),
                                        ("1e", "1"), ("0x1.8p-1", "0.75")])
def test_an_option_prints_as_its_value_does(tmp_path, capsys, text, same):
    assert _amean(tmp_path, capsys, "-alpha", text) == _amean(tmp_path, capsys, "-alpha", same)


def test_risk_alpha_may_be_infinite(tmp_path, capsys):
    """ndeval takes -riskAlpha inf (it is at least 0): every loss against the baseline is -inf."""
    line = _amean(tmp_path, capsys, "-baseline", "b", "-riskAlpha", "inf")
    assert line[0] == "run (rel to. base; rs=1+a; a=inf)" and line[COLUMN["ERR-IA@5"]] == "-inf"


@pytest.mark.parametrize("argv, what", [
    (["-alpha", "nan", "q", "r"], "not a number"), (["-beta", "-nan", "q", "r"], "not a number"),
    (["-riskAlpha", "nan", "q", "r"], "not a number"), (["-alpha", "0x", "q", "r"], "not a number"),
    (["-alpha", "infinit", "q", "r"], "not a number"), (["-alpha", "0x1p1", "q", "r"], "between 0 and 1"),
    (["-M", "2147483648", "q", "r"], "at least 1"), (["-M", "0x10", "q", "r"], "at least 1"),
])
def test_what_ndeval_reads_as_nan_or_nothing_is_refused(argv, what):
    with pytest.raises(UsageError, match=what):
        parse_args(argv)


def test_depth_and_numbers_as_sscanf_reads_them():
    opts = parse_args(["-M", " 12x", "-alpha", "-0", "-beta", "1e-1", "q", "r"])
    assert opts.depth == 12 and opts.beta == 0.1
    assert opts.alpha == 0.0 and math.copysign(1.0, opts.alpha) == 1.0  # -0 is 0 (the measure's name says 0.0)


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["-help"], ["-h", "q", "r"], ["--help", "q"]])
def test_help_flags_print_the_usage_and_help(argv, capsys, monkeypatch):
    """Issue 41 §3: --help and -h failed with "cannot read '--help'"; the usage names the command as typed."""
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/searchgrade", "ndeval", *argv])
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: searchgrade ndeval [options] qrels run") and "-traditional" in out


def test_version_flags(capsys):
    assert main(["--version"]) == 0 and "4.5" in capsys.readouterr().out
