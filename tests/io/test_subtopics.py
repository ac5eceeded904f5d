"""searchgrade.io.read_subtopic_qrels: ndeval's qrels format, its fast and strict paths, and its errors."""
from __future__ import annotations

import pytest

from searchgrade.io import FormatError, as_subtopic_qrels, read_subtopic_qrels
from searchgrade.io.subtopics import parse_subtopic_qrels, plain_columns


def _read(tmp_path, text, **kw):
    path = tmp_path / "sub.qrels"
    path.write_text(text)
    return read_subtopic_qrels(path, **kw)


def test_nested_form(tmp_path):
    got = _read(tmp_path, "7 1 d1 1\n7 2 d1 0\n7 2 d2 3\n8 1 d9 2\n")
    assert got == {"7": {"1": {"d1": 1}, "2": {"d1": 0, "d2": 3}}, "8": {"1": {"d9": 2}}}


def test_ndeval_mode_reads_numbers(tmp_path):
    got = _read(tmp_path, "07 1 d1 1\n7 02 d2 1\n", ndeval=True)
    assert got == {7: {1: {"d1": 1}, 2: {"d2": 1}}}


def test_fast_and_strict_paths_agree(tmp_path):
    plain = "1 1 a 1\n1 2 b 0\n2 1 c 2\n"
    odd = "# judged by hand\n1 1 a 1\n\n1   2 b 0\n2 1 c 2"  # a comment, a blank line, wider spaces, no final newline
    assert plain_columns(plain.encode()) is not None and plain_columns(odd.encode()) is None
    assert _read(tmp_path, plain) == _read(tmp_path, odd)


@pytest.mark.parametrize("text, line, what", [
    ("1 1 a 1\n1 1 a\n", 2, "expected 4 fields"),
    ("1 1 a 1\n1 1 b x\n", 2, "not an integer"),
    ("1 1 a 1\n1 2 a 1\n1 1 a 0\n", 3, "judged twice"),
])
def test_errors_name_the_line(tmp_path, text, line, what):
    with pytest.raises(FormatError, match=what) as err:
        _read(tmp_path, text)
    assert err.value.line == line and str(err.value).startswith(f"{tmp_path / 'sub.qrels'}:{line}:")


def test_ndeval_mode_refuses_what_ndeval_refuses():
    with pytest.raises(FormatError, match="negative"):
        parse_subtopic_qrels("1 1 a 1\n1 1 b -1\n", "q", ndeval=True)
    with pytest.raises(FormatError, match="topic 'a1' is not a number"):
        parse_subtopic_qrels("a1 1 a 1\n", "q", ndeval=True)
    assert parse_subtopic_qrels("1 1 a -1\n", "q").grades.tolist() == [-1]  # without ndeval=True: any integer


def test_an_empty_file_is_an_error(tmp_path):
    with pytest.raises(FormatError, match="no judgment"):
        _read(tmp_path, "\n# nothing\n")


def test_records_and_errors():
    assert as_subtopic_qrels([("q", "s", "d", 1)]) == {"q": {"s": {"d": 1}}}
    with pytest.raises(ValueError, match="judged twice"):
        as_subtopic_qrels([("q", "s", "d", 1), ("q", "s", "d", 0)])
    with pytest.raises(TypeError):
        as_subtopic_qrels(3)


def test_ndeval_mode_ignores_fields_after_the_fourth():
    """Issue 41 D10: ndeval's splitter reads four fields and ignores the rest; without ndeval=True, exactly four."""
    got = parse_subtopic_qrels("1 1 a 1 extra\n1 2 b 0 x y\n", "q", ndeval=True)
    assert got.topics == [1, 1] and got.subtopics == [1, 2] and got.docs == ["a", "b"] and got.grades.tolist() == [1, 0]
    with pytest.raises(FormatError, match="expected 4 fields"):
        parse_subtopic_qrels("1 1 a 1 extra\n", "q")


@pytest.mark.parametrize("text, line, what", [
    ("1 1 a 1\r1 2 b 1\r1 3 c 1\r", 1, "carriage return inside the line"),
    ("1 1 a 1\n1 2 b\x00 1\n", 2, "NUL character"),
])
@pytest.mark.parametrize("ndeval", [True, False])
def test_cr_only_line_ends_and_nul_are_refused(text, line, what, ndeval):
    """ndeval reads a CR-only file as one line (its first judgment) and a line cut at a NUL: refused, named."""
    with pytest.raises(FormatError, match=what) as err:
        parse_subtopic_qrels(text, "q", ndeval=ndeval)
    assert err.value.line == line


def test_crlf_and_a_cr_before_blanks_are_line_ends():
    want = parse_subtopic_qrels("1 1 a 1\n1 2 b 0\n", "q", ndeval=True)
    for text in ("1 1 a 1\r\n1 2 b 0\r\n", "1 1 a 1 \r \n1 2 b 0\r\r\n"):
        got = parse_subtopic_qrels(text, "q", ndeval=True)
        assert [list(map(list, [got.topics, got.subtopics, got.docs])), got.grades.tolist()] == \
            [list(map(list, [want.topics, want.subtopics, want.docs])), want.grades.tolist()]
