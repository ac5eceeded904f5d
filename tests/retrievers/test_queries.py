"""Queries as {qid: text} or a queries file: BEIR's and MIRACL-ko's JSON lines, qid<TAB>text."""
import pytest

from searchgrade.io import FormatError
from searchgrade.retrievers import read_queries


def test_a_mapping_keeps_its_order_and_integer_ids_become_text():
    assert read_queries({"b": "x", 1: "y"}) == {"b": "x", "1": "y"}


@pytest.mark.parametrize("line", ['{"_id": "q1", "text": "t"}', '{"qid": "q1", "text": "t"}',
                                  '{"query_id": "q1", "query": "t"}', '{"id": "q1", "text": "t"}'])
def test_jsonl_forms(tmp_path, line):
    path = tmp_path / "q.jsonl"
    path.write_text(line + "\n\n", encoding="utf-8")
    assert read_queries(path) == {"q1": "t"}


def test_the_miracl_ko_queries_file_reads():
    from searchgrade.collections import data_root

    path = data_root() / "miracl_ko" / "queries_clean.jsonl"
    if not path.is_file():
        pytest.skip("data/raw/miracl_ko is not here")
    assert len(read_queries(path)) == 213


@pytest.mark.parametrize("content, suffix, message", [
    ('{"qid": "q1", "text": "t"}\n{"qid": "q1", "text": "u"}\n', ".jsonl", ":2: query 'q1' given twice"),
    ('{"qid": "q1"}\n', ".jsonl", ":1: no query text (a key among text, query)"),
    ('{"name": "q1", "text": "t"}\n', ".jsonl", ":1: no query id (a key among _id, qid, query_id, id)"),
    ('{"qid": "q 1", "text": "t"}\n', ".jsonl", ":1: query id 'q 1' is empty or contains whitespace"),
    ('{"qid": "q1", "text": ""}\n', ".jsonl", ":1: the query text is not a non-empty string: ''"),
    ('{"qid": true, "text": "t"}\n', ".jsonl", ":1: query id True is a bool, not a string"),
    ("q1 text without a tab\n", ".tsv", ":1: expected 'qid<TAB>text'"),
    ("", ".tsv", ": no queries (the file is empty)"),
    ("q1\tt\n", ".csv", ": a queries file is .jsonl"),
])
def test_bad_files_are_one_line_naming_file_and_line(tmp_path, content, suffix, message):
    path = tmp_path / f"queries{suffix}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises((FormatError, ValueError, TypeError)) as err:
        read_queries(path)
    assert str(err.value) == f"{path}{message}" or str(err.value).startswith(f"{path}{message}")
    assert "\n" not in str(err.value)


def test_bad_mappings_and_sources():
    with pytest.raises(ValueError, match="no queries"):
        read_queries({})
    with pytest.raises(ValueError, match="query 'q': the query text is not a non-empty string"):
        read_queries({"q": None})
    with pytest.raises(FileNotFoundError, match="no such queries file"):
        read_queries("missing.jsonl")
    with pytest.raises(TypeError, match="queries must be"):
        read_queries(["q1"])
