"""The one JSON Lines reader (searchgrade.io.jsonl) and the one error family of its three callers."""
import pickle

import pytest

from searchgrade import judges, rag
from searchgrade.io import jsonl as _jsonl
from searchgrade.collections import CollectionFormatError
from searchgrade.collections.beir import read_jsonl as beir_read_jsonl
from searchgrade.io import FormatError


def write(path, raw: bytes):
    path.write_bytes(raw)
    return path


def test_values_with_their_line_numbers_blank_lines_skipped(tmp_path):
    path = write(tmp_path / "a.jsonl", b'{"x": 1}\n\n  \n[1, 2]\r\n"s"\n')
    assert _jsonl.read_jsonl(path) == [(1, {"x": 1}), (4, [1, 2]), (5, "s")]


@pytest.mark.parametrize("raw, required, message", [
    (b'{"x": 1}\n{"x": \n', None, r"a\.jsonl:2: invalid JSON: Expecting value \(column 7\)"),
    (b'{"x": 1}\n\xff\xfe\n', None, r"a\.jsonl:2: not valid UTF-8"),
    (b'{"x": 1}\n[1]\n', (), r"a\.jsonl:2: expected a JSON object, got list"),
    (b'{"x": 1}\n{"y": 1}\n', ("x",), r"a\.jsonl:2: missing key 'x'"),
])
def test_a_bad_line_names_the_file_and_the_line(tmp_path, raw, required, message):
    path = write(tmp_path / "a.jsonl", raw)
    with pytest.raises(FormatError, match=message) as info:
        _jsonl.read_jsonl(path, required=required)
    assert info.value.line == 2 and info.value.path == str(path)


def test_collecting_problems_reads_on(tmp_path):
    path = write(tmp_path / "a.jsonl", b'{"x": 1}\n{bad\n{"x": 3}\n\xff\n')
    problems = []
    rows = _jsonl.read_jsonl(path, problems=problems)
    assert rows == [(1, {"x": 1}), (3, {"x": 3})]
    assert [line for line, _ in problems] == [2, 4]
    assert problems[0][1].startswith("invalid JSON") and problems[1][1].startswith("not valid UTF-8")


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        _jsonl.read_jsonl(tmp_path / "nope.jsonl")


def test_each_caller_raises_its_own_format_error(tmp_path):
    bad = write(tmp_path / "bad.jsonl", b'\n{oops\n')
    with pytest.raises(CollectionFormatError, match=r"bad\.jsonl:2: invalid JSON"):
        beir_read_jsonl(bad)
    with pytest.raises(judges.LabelFileError, match=r"bad\.jsonl:2: invalid JSON"):
        judges.read_labels(bad)
    with pytest.raises(rag.EvalSetError, match=r"bad\.jsonl:2: invalid JSON"):
        rag.load_items(bad)


@pytest.mark.parametrize("error", [CollectionFormatError("f", 3, "p"), judges.LabelFileError("f", 3, "p"),
                                   rag.EvalSetError("f", [(3, None, "p")])])
def test_one_error_family(error):
    assert isinstance(error, FormatError) and isinstance(error, ValueError)
    assert str(error) == "f:3: p" and error.path == "f" and error.line == 3 and error.problem == "p"
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
