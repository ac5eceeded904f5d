"""searchgrade.ndeval: one engine with sg.evaluate, and what it refuses (one line naming file:line, status 1)."""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

import searchgrade as sg
from searchgrade.io import read_subtopic_qrels
from searchgrade.ndeval import main, measures

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(os.environ.get("SEARCHGRADE_NDEVAL_GOLDEN") or ROOT.parent / "shared" / "ndeval_golden")
CASES = [json.loads(line) for line in (GOLDEN / "cases.jsonl").read_text().splitlines()] \
    if (GOLDEN / "cases.jsonl").is_file() else []


def _traditional_cases() -> list[dict]:
    """-traditional cases without a baseline whose run topics are plain numbers (the API reads ids as text)."""
    out = []
    for c in CASES:
        if "-traditional" in c["args"] and "-baseline" not in c["args"]:
            topics = {line.split()[0] for line in (GOLDEN / c["args"][-1]).read_text().splitlines()}
            if all(t.isdigit() and not t.startswith("0") for t in topics):
                out.append(c)
    return out[:12]


def _option(args: list, name: str, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


@pytest.mark.parametrize("case", _traditional_cases(), ids=lambda c: c["name"])
def test_traditional_values_are_sg_evaluate_values(case):
    """With -traditional (trec_eval's order) every printed topic value is sg.evaluate's, read the usual way."""
    args = case["args"]
    alpha, beta = _option(args, "-alpha", 0.5), _option(args, "-beta", 0.5)
    qrels = read_subtopic_qrels(GOLDEN / args[-2])
    run = sg.io.read_run(GOLDEN / args[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = sg.evaluate(qrels, run, measures(alpha, beta), max_docs=_option(args, "-M", 0) or None)
    printed = {line.split(",")[1]: line.split(",")[2:] for line in case["stdout"].splitlines()[1:-1]}
    assert set(df.index) <= set(printed)
    for topic, values in df.iterrows():
        assert [f"{v:.6f}" for v in values] == printed[topic], topic


QRELS = "1 1 a 1\n1 2 b 1\n2 1 c 0\n2 1 d 2\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n"


def _run(tmp_path, capsys, qrels=QRELS, run=RUN, extra=()):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    rc = main([*extra, str(tmp_path / "q"), str(tmp_path / "r")])
    got = capsys.readouterr()
    return rc, got.out, got.err


@pytest.mark.parametrize("qrels, run, where, what", [
    (QRELS, "1 Q0 a 1 2.0 r\n1 Q0 b 1 1.0 r\n", "r:2", "duplicate rank 1 for topic 1"),
    (QRELS, "x Q0 a 1 2.0 r\n", "r:1", "topic 'x' is not a number"),
    (QRELS, "1 Q0 a one 2.0 r\n", "r:1", "rank 'one'"),
    (QRELS, "1 Q0 a 1 2.0\n", "r:1", "expected 6 fields"),
    (QRELS, "1 Q0 a 1 2.0 r\n1 Q0 a 2 1.0 r\n", "r:2", "duplicate document 'a' for topic 1"),
    (QRELS, "", "r", "empty"),
    ("1 1 a 1\n1 1 b -1\n", RUN, "q:2", "judgment -1 is negative"),
    ("1 1 a 1\nq7 1 b 1\n", RUN, "q:2", "topic 'q7' is not a number"),
    ("1 1 a 1\n1 x b 1\n", RUN, "q:2", "subtopic 'x' is not a number"),
    ("1 1 a 1\n1 1 a 0\n", RUN, "q:2", "judged twice"),
    ("1 1 a\n", RUN, "q:1", "expected 4 fields"),
    ("", RUN, "q", "no judgment"),
])
def test_what_ndeval_refuses_is_one_line_naming_the_file_and_line(tmp_path, capsys, qrels, run, where, what):
    rc, out, err = _run(tmp_path, capsys, qrels, run)
    assert rc == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"{tmp_path / where}" in err and what in err, err


def test_a_duplicate_beyond_the_depth_is_not_read(tmp_path, capsys):
    rc, out, _ = _run(tmp_path, capsys, run="1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n1 Q0 a 3 0.5 r\n", extra=["-M", "2"])
    assert rc == 0 and out.splitlines()[1].startswith("r,1,")


@pytest.mark.parametrize("argv", [["-alpha", "2", "q", "r"], ["-x", "q", "r"], ["q"], ["-M", "0", "q", "r"],
                                  ["-beta", "abc", "q", "r"], ["q", "r", "-c"]])
def test_usage_errors(argv, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Usage:" in err and len(err.strip().splitlines()) == 2


def test_a_missing_file_is_one_line(tmp_path, capsys):
    assert main([str(tmp_path / "none"), str(tmp_path / "none2")]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "none" in err


def test_unjudged_run_topics_print_zeros_and_the_prefix_is_read(tmp_path, capsys):
    rc, out, _ = _run(tmp_path, capsys, run="wt09-1 Q0 a 1 2.0 r\n9 Q0 z 1 1.0 r\n")
    lines = out.splitlines()
    assert rc == 0 and lines[1].startswith("r,1,") and lines[2] == "r,9," + ",".join(["0.000000"] * 21)
    assert lines[3].split(",")[2:] == lines[1].split(",")[2:]  # topic 9 is not counted in the mean


def test_help_and_version(capsys):
    assert main(["-help"]) == 0 and "-traditional" in capsys.readouterr().out
    assert main(["-version"]) == 0 and "4.5" in capsys.readouterr().out
