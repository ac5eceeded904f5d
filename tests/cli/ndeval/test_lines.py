"""What the ndeval command reads of a run's lines (issue 41 D2, D10): scores as ndeval's sscanf reads them,
fields after the sixth, and the NUL and CR-only line ends searchgrade refuses (one line naming file:line)."""
from __future__ import annotations

import numpy as np
import pytest

from searchgrade.cli.ndeval.lines import run_lines
from searchgrade.io import FormatError
from searchgrade.ndeval import main

QRELS = "1 1 a 1\n"


def _output(tmp_path, capsys, run: str, qrels: str = QRELS, extra=("-traditional",)):
    (tmp_path / "q").write_bytes(qrels.encode())
    (tmp_path / "r").write_bytes(run.encode())
    rc = main([*extra, str(tmp_path / "q"), str(tmp_path / "r")])
    got = capsys.readouterr()
    return rc, got.out, got.err


def test_an_underscore_ends_the_score(tmp_path, capsys):
    """Issue 41 D2: ndeval's sscanf reads 1_000 as 1, so b (score 2) comes first: ERR-IA@5 0.363086, not 0.726172."""
    rc, out, _ = _output(tmp_path, capsys, "1 Q0 a 1 1_000 run\n1 Q0 b 2 2 run\n")
    assert rc == 0 and out.splitlines()[-1].split(",")[2] == "0.363086"


@pytest.mark.parametrize("score, same", [("0x10", "16"), ("1.5x", "1.5"), ("1e", "1"), ("1e+", "1"),
                                         ("0x1p-1", "0.5"), ("+.5", "0.5"), ("inf", "1e308")])
def test_traditional_scores_as_sscanf_reads_them(tmp_path, capsys, score, same):
    """Issue 41 D10: searchgrade refused these; ndeval reads them (its order is that of the value read)."""
    run = "1 Q0 a 1 {} run\n1 Q0 b 2 3 run\n1 Q0 c 3 0.7 run\n"
    got = _output(tmp_path, capsys, run.format(score), "1 1 a 1\n1 2 c 1\n")
    assert got[0] == 0 and got == _output(tmp_path, capsys, run.format(same), "1 1 a 1\n1 2 c 1\n")


@pytest.mark.parametrize("score, what", [("１２", "not a number"), ("abc", "not a number"), ("0x", "not a number"),
                                         ("nan", "NaN")])
def test_a_score_sscanf_reads_nothing_of_is_refused(tmp_path, capsys, score, what):
    """ndeval would order by an undefined value (its sscanf stores nothing) or by NaN."""
    rc, out, err = _output(tmp_path, capsys, f"1 Q0 a 1 2 run\n1 Q0 b 2 {score} run\n")
    assert rc == 1 and out == "" and f"{tmp_path / 'r'}:2: score" in err and what in err


def test_a_score_is_not_read_without_traditional(tmp_path, capsys):
    rc, out, _ = _output(tmp_path, capsys, "1 Q0 a 1 １２ run\n", extra=())
    assert rc == 0 and out.splitlines()[1].startswith("run,1,0.726172,")


def test_fields_after_the_sixth_are_ignored(tmp_path, capsys):
    plain = _output(tmp_path, capsys, "1 Q0 b 1 2 run\n1 Q0 a 2 1 run\n")
    assert _output(tmp_path, capsys, "1 Q0 b 1 2 run x y\n1 Q0 a 2 1 run 7\n") == plain


@pytest.mark.parametrize("run, line, what", [
    ("1 Q0 b 1 2 run\r1 Q0 a 2 1 run\r", 1, "carriage return"),
    ("1 Q0 b 1 2 run\n1 Q0 a\x00 2 1 run\n", 2, "NUL character"),
])
def test_nul_and_cr_only_line_ends_are_refused(tmp_path, capsys, run, line, what):
    """ndeval reads a CR-only file as one line and keeps its first record (searchgrade read it so too, silently);
    a NUL cuts ndeval's line short.  Both are refused, as the trec_eval reader refuses them."""
    rc, out, err = _output(tmp_path, capsys, run, extra=())
    assert rc == 1 and out == "" and f"{tmp_path / 'r'}:{line}: " in err and what in err


def test_crlf_tabs_and_wide_spaces_are_plain():
    plain = run_lines(b"1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n", "r", 1, True)
    for raw in (b"1 Q0 a 1 2 r\r\n1 Q0 b 2 1 r\r\n", b"1\tQ0  a 1 2 r\n 1 Q0 b\t2 1 r  \n"):
        got = run_lines(raw, "r", 1, True)
        assert all(np.array_equal(x, y) for x, y in zip(got, plain))


def test_the_line_reader_names_the_first_bad_line_in_file_order():
    """ndeval stops at the first line it cannot read, whatever is wrong with it."""
    with pytest.raises(FormatError) as err:
        run_lines(b"1 Q0 a 1 2 r\nx Q0 b 2 1 r\n1 Q0 c 3\n", "r", 10, False)
    assert err.value.line == 11 and "topic 'x'" in str(err.value)
