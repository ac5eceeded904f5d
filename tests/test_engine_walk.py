"""The engine in one room: an evaluation enters ``searchgrade.measures`` once and does its work there.

Each walk is traced with ``sys.setprofile``: every Python call into a searchgrade module is recorded
with the nearest searchgrade frame below it (library frames in between, such as numpy's or the
stdlib's, are looked through).  An *entry* is a call into ``searchgrade.measures`` from a frame
outside it (the test itself counts as outside).  Each walk runs once untraced first, so that
imports (module bodies run by importlib) are not counted.
"""
import contextlib
import io
import sys
import warnings

import pytest

import searchgrade as sg
from searchgrade.cli.trec_eval import main

MEASURES = "searchgrade.measures"

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 2, "a": 0}, "3": {"d": 1}}
RUN = {"1": {"a": 2.0, "x": 1.0}, "2": {"c": 3.0, "a": 1.0}}


def _module(frame) -> str:
    return frame.f_globals.get("__name__", "") or ""


def _inside(module: str) -> bool:
    return module == MEASURES or module.startswith(MEASURES + ".")


def walk(fn) -> list[tuple[str, str, str]]:
    """(caller module, callee module, function) of every call into searchgrade while fn runs."""
    fn()  # imports happen here, untraced
    calls = []

    def profile(frame, event, arg):
        if event != "call" or not _module(frame).startswith("searchgrade"):
            return
        below = frame.f_back
        while below is not None and not _module(below).startswith("searchgrade"):
            below = below.f_back
        calls.append((_module(below) if below is not None else "", _module(frame), frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def entries(calls) -> list[tuple[str, str]]:
    """(module, function) of each call that enters searchgrade.measures from outside it."""
    return [(callee, name) for caller, callee, name in calls if _inside(callee) and not _inside(caller)]


def quietly(fn):
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    return run


def test_the_tracer_sees_an_entry_per_call():
    """The counter can fail: two separate calls into the measures are two entries."""
    from searchgrade.measures.names import parse_measure

    calls = walk(lambda: (parse_measure("P@5"), parse_measure("nDCG@10")))
    assert entries(calls) == [("searchgrade.measures.names.parse", "parse_measure")] * 2


@pytest.mark.parametrize("call", [
    lambda: sg.evaluate(QRELS, RUN, ["nDCG@10", "P@5", "AP"]),
    lambda: sg.mean(QRELS, RUN, ["nDCG@10", "RR"], missing="zero"),
    lambda: sg.aggregate(sg.evaluate(QRELS, RUN, ["P@5"])),
], ids=["evaluate", "mean", "aggregate"])
def test_the_api_enters_the_measures_once(call):
    calls = walk(quietly(call))
    found = entries(calls)
    if len(found) == 2:  # aggregate(evaluate(...)): two public calls, each entering once
        assert [f for _, f in found] == ["evaluate", "aggregate"]
    else:
        assert len(found) == 1, found
    assert all(callee.startswith(MEASURES) for _, callee, _ in calls), "the walk left the measures"


def test_evaluate_of_files_enters_the_measures_once(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n1 Q0 x 2 1.0 r\n2 Q0 c 1 3.0 r\n2 Q0 a 2 1.0 r\n")
    calls = walk(quietly(lambda: sg.evaluate(tmp_path / "qrels", tmp_path / "run", ["nDCG@10"])))
    assert entries(calls) == [("searchgrade.measures.engine", "evaluate")]


@pytest.mark.parametrize("per_block", [1024, 1])
def test_the_trec_eval_command_asks_the_measures_twice(tmp_path, monkeypatch, per_block):
    """trec_eval -q -m ndcg_cut.10 -m relstring.5 -c: once to read its -m arguments (before a file is
    opened, so that a bad name is a usage error), once to score the run (score_run_blocks); the printer
    reads only what the engine returned, and the missing-query warning is written from the warning's
    attributes.  The scores come a block of queries at a time from one generator: each block it hands out,
    and its end, resume that generator (an entry each, and nothing else enters the measures)."""
    from searchgrade.measures import blocks

    monkeypatch.setattr(blocks, "ROWS_PER_BLOCK", per_block)
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n3 0 d 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2.0 r\n1 Q0 x 2 1.0 r\n2 Q0 c 1 3.0 r\n2 Q0 a 2 1.0 r\n")
    out, err = io.StringIO(), io.StringIO()

    def command(*extra):
        def run():
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                assert main(["-q", "-m", "ndcg_cut.10", *extra, str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
        return run

    for extra, rows in [((), 2), (("-m", "relstring.5", "-m", "num_rel", "-c"), 3)]:
        calls = walk(command(*extra))
        n_blocks = -(-rows // per_block)
        assert entries(calls) == [("searchgrade.measures.names.trec", "trec_values"),
                                  ("searchgrade.measures.blocks", "score_run_blocks")] + \
            [("searchgrade.measures.blocks", "_blocks")] * (n_blocks + 1), (extra, per_block)
    assert "left out of the means (as trec_eval does without -c" in err.getvalue()
    assert "relstring_5           \t1\t'1-'" in out.getvalue()
