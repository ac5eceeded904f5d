"""searchgrade.io.text read block after block: the same runs, qrels, reports and errors as the whole text, the
first error stopping the reading, and a document found twice across blocks named with its first line."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchgrade.io import FormatError
from searchgrade.io.text import read_qrels_blocks, read_qrels_text, read_run_blocks, read_run_text

RUN_LINES = ["q1 Q0 a 1 2.5 r", "q1 Q0 b 2 1.5 r", "q2 Q0 a 1 0.5 r", "q2 Q0 a 2 0.5 r", "# note", "", "  \t",
             "q3 Q0 c x 1 r", "q3 Q0 d 1 nan r", "q4 Q0 e 1 1 r junk", "q4 Q0 f", "q5\tQ0 g 1 1e3 s",
             "q\x00 Q0 h 1 1 r", "q6 Q0 i 1 1_0 r", "q7 Q0 j 1 1 \x1c"]
QRELS_LINES = ["q1 0 a 1", "q1 0 b 0", "q2 0 a 2", "q2 0 a 1", "# note", "", " ", "q3 0 c x", "q3 0 d 1 1",
               "q4\t0 e -1", "q\x00 0 f 1", "q5 0 g 99999999999999999999"]


def _blocks(lines: list[str], cuts: list[int]) -> list[str]:
    """The lines as one text cut after the given line numbers (each block ends at a line end)."""
    bounds = sorted({c for c in cuts if 0 < c < len(lines)})
    parts, start = [], 0
    for end in [*bounds, len(lines)]:
        parts.append("".join(line + "\n" for line in lines[start:end]))
        start = end
    return parts


def _outcome(read, *args):
    try:
        return read(*args)
    except FormatError as err:
        return err


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["run", "qrels"]), st.data())
def test_blocks_read_as_the_whole_text_or_stop_no_later(kind, data):
    pool = RUN_LINES if kind == "run" else QRELS_LINES
    lines = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=30))
    cuts = data.draw(st.lists(st.integers(0, len(lines)), max_size=6))
    whole_reader, block_reader = (read_run_text, read_run_blocks) if kind == "run" else (read_qrels_text,
                                                                                         read_qrels_blocks)
    text = "".join(line + "\n" for line in lines)
    blocks = _blocks(lines, cuts)
    whole = _outcome(whole_reader, text, "x")
    got = _outcome(block_reader, iter(blocks), "x", lambda: iter(blocks))
    if not isinstance(whole, FormatError) or "\x00" not in text:
        assert (str(got) if isinstance(got, FormatError) else got) == (
            str(whole) if isinstance(whole, FormatError) else whole)
    else:  # the whole text's NUL is found before any line is read; block by block, no later than it
        assert isinstance(got, FormatError) and got.line <= text.count("\n", 0, text.index("\x00")) + 1


def test_a_document_twice_across_blocks_names_its_first_line_from_a_second_reading():
    blocks = ["q1 Q0 a 1 1 r\n\n", "# c\nq1 Q0 b 2 1 r\n", "q2 Q0 a 1 1 r\nq1 Q0 a 3 0 r\n"]
    readings = []

    def again():
        readings.append(1)
        return iter(blocks)

    with pytest.raises(FormatError, match=r"^x:6: duplicate document: query q1 document a is already on line 1$"):
        read_run_blocks(iter(blocks), "x", again)
    assert readings == [1]


def test_the_first_bad_line_stops_the_reading():
    read = []

    def blocks():
        for i in range(1000):
            read.append(i)
            yield "q1 Q0 a 1 1 r\n" if i == 0 else "q1 Q0 b 1 nan r\n"

    with pytest.raises(FormatError, match=r"^x:2: score 'nan' is not finite$"):
        read_run_blocks(blocks(), "x")
    assert read == [0, 1]


def test_a_run_read_as_qrels_and_qrels_read_as_a_run_ask_whether_they_were_swapped():
    with pytest.raises(FormatError, match=r"found 6 \(qrels lines have no fields after the grade; a run line: are "
                                          r"the qrels and the run swapped\?\)"):
        read_qrels_text("q1 Q0 d1 1 2.5 bm25\n", "run.txt")
    with pytest.raises(FormatError, match=r"found 4 \(a qrels line: are the qrels and the run swapped\?\)"):
        read_run_text("q1 0 d1 1\n", "qrels.txt")
    with pytest.raises(FormatError, match=r"found 5 \(qrels lines have no fields after the grade\)$"):
        read_qrels_text("q1 0 d1 1 x\n", "odd.txt")
