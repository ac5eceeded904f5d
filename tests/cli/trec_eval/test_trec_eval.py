"""The trec_eval command reads its run a part at a time: --stream_info (searchgrade's own option) says how on
standard error, while standard output stays trec_eval's; errors in a run read so keep their file and line."""
import os
import subprocess
import sys

import numpy as np
import pytest

from searchgrade.cli.trec_eval.args import UsageError, parse_args
from searchgrade.trec_eval import main
from tests.support.golden import ROOT

QRELS = "".join(f"{q} 0 d{d} {(q + d) % 3}\n" for q in range(1, 13) for d in range(6))
LINES = [f"{q} Q0 d{d} {d} {10 - d / 4} r\n" for q in range(1, 13) for d in range(9)]
SHUFFLED = [LINES[i] for i in np.random.default_rng(0).permutation(len(LINES))]


def command(tmp_path, run_lines, *args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """The command as a user runs it, in a fresh interpreter."""
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text("".join(run_lines))
    run = "-" if stdin is not None else str(tmp_path / "run")
    return subprocess.run([sys.executable, "-m", "searchgrade.trec_eval", *args, str(tmp_path / "qrels"), run],
                          input=stdin, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=120)


@pytest.mark.parametrize("lines, way", [(LINES, "read in one pass, grouped by query"),
                                        (SHUFFLED, "is not grouped by query (query")])
def test_stream_info_says_how_the_run_was_read(tmp_path, lines, way):
    plain = command(tmp_path, LINES, "-q", "-m", "all_trec")
    told = command(tmp_path, lines, "-q", "-m", "all_trec", "--stream_info")
    assert told.returncode == plain.returncode == 0 and told.stdout == plain.stdout
    assert told.stderr.decode().startswith("trec_eval: ") and way in told.stderr.decode()
    assert plain.stderr == b""


def test_stream_info_on_standard_input(tmp_path):
    told = command(tmp_path, [], "--stream", "-m", "map", stdin="".join(SHUFFLED).encode())
    assert told.returncode == 0 and told.stdout.startswith(b"map")
    assert "<stdin> is not grouped by query" in told.stderr.decode()


def test_the_option_keeps_trec_eval_prefixes_and_refuses_debug_output():
    assert parse_args(["--stream_info", "q", "r"])["stream_info"] and parse_args(["--s", "q", "r"])["stream_info"]
    assert not parse_args(["q", "r"])["stream_info"]
    assert parse_args(["--v"])["version"]  # no prefix of a trec_eval option changes meaning
    with pytest.raises(UsageError, match="takes no value"):
        parse_args(["--stream_info=1", "q", "r"])
    with pytest.raises(UsageError, match="-D .*--stream_info"):
        parse_args(["-D", "5", "q", "r"])


def test_a_bad_line_late_in_a_run_not_grouped_prints_nothing(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text("".join(SHUFFLED) + "3 Q0 d1 1 1.0 r\n")  # a document twice, on the last line
    assert main(["-q", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 1
    out = capsys.readouterr()
    first = SHUFFLED.index(next(line for line in SHUFFLED if line.startswith("3 Q0 d1 "))) + 1
    assert out.out == "" and out.err == (f"trec_eval: {tmp_path / 'run'}:{len(SHUFFLED) + 1}: duplicate document: "
                                         f"query 3 document d1 is already on line {first}\n")
