"""Tests of searchgrade.collections.miracl: MIRACL-ko's counts, its query variants, and refusals of damaged copies."""
from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from searchgrade import collections as ck
from searchgrade.collections import CollectionFormatError

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


@pytest.fixture(scope="module")
def miracl():
    return ck.load("miracl-ko")


@pytest.fixture
def raw_copy(tmp_path: Path) -> Path:
    """A private copy of data/raw/miracl_ko that a test may damage; returns the data_dir holding it."""
    shutil.copytree(RAW / "miracl_ko", tmp_path / "miracl_ko")
    return tmp_path


def _replace_line(path: Path, lineno: int, new: str) -> None:
    """Overwrite one line (1-based) of a text file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[lineno - 1] = new
    path.write_text("\n".join(lines), encoding="utf-8")


def test_counts(miracl):
    assert miracl.name == "miracl-ko"
    assert len(miracl.queries) == 213
    assert len(miracl.corpus) == 2835
    grades = Counter(g for row in miracl.qrels.values() for g in row.values())
    assert grades == {1: 547, 0: 2510}
    assert set(miracl.qrels) == set(miracl.queries)
    relevant = [sum(g > 0 for g in row.values()) for row in miracl.qrels.values()]
    assert (min(relevant), max(relevant)) == (1, 12)
    assert miracl.meta["queries"] == "clean"
    assert all(doc["title"] and doc["text"] for doc in miracl.corpus.values())


def test_first_records_read_as_written(miracl):
    assert next(iter(miracl.queries.items())) == ("1003", "그리스의 수도는 어디인가요?")
    assert next(iter(miracl.corpus)) == "44#0"
    assert miracl.corpus["44#0"]["title"] == "우크라이나"
    assert miracl.qrels["2"]["317339#6"] == 1 and miracl.qrels["2"]["317339#9"] == 0


@pytest.mark.parametrize("axis, missing", [("spacing", {"1202"}), ("josa", 9), ("jamo", set())])
def test_variants_align_with_queries(miracl, axis, missing):
    variant = ck.load("miracl-ko", queries=axis)
    assert variant.name == f"miracl-ko-{axis}"
    assert ck.load(f"miracl-ko-{axis}").queries == variant.queries
    without = variant.meta["without_variant"]
    assert (set(without) == missing) if isinstance(missing, set) else len(without) == missing
    assert list(variant.queries) == [q for q in miracl.queries if q not in without]
    assert set(variant.qrels) == set(variant.queries)
    assert all(variant.qrels[q] == miracl.qrels[q] for q in variant.queries)
    assert variant.corpus == miracl.corpus
    assert variant.meta["clean_queries"] == {q: miracl.queries[q] for q in variant.queries}
    assert all(variant.queries[q] != miracl.queries[q] for q in variant.queries)
    assert "nobody reviewed" in variant.meta["variant_note"]


def test_spacing_variant_only_removes_spaces(miracl):
    variant = ck.load("miracl-ko-spacing")
    assert all(t == miracl.queries[q].replace(" ", "") for q, t in variant.queries.items())


def test_unknown_variant_refused():
    with pytest.raises(ValueError, match="spacing, josa, jamo"):
        ck.load("miracl-ko", queries="typos")


def test_malformed_corpus_line_names_file_and_line(raw_copy):
    _replace_line(raw_copy / "miracl_ko" / "corpus.jsonl", 7, '{"docid": "x#1", "title": "t", "text": ')
    with pytest.raises(CollectionFormatError, match=r"corpus\.jsonl:7: invalid JSON"):
        ck.load("miracl-ko", data_dir=raw_copy)


@pytest.mark.parametrize("file, lineno, line, message", [
    ("queries_clean.jsonl", 5, '{"qid": "1003", "text": "다시"}', r"queries_clean\.jsonl:5: qid '1003' duplicated \(first on line 1\)"),
    ("queries_clean.jsonl", 2, '{"qid": "1009"}', r"queries_clean\.jsonl:2: missing key 'text'"),
    ("corpus.jsonl", 3, '{"docid": "a b", "title": "t", "text": "x"}', r"corpus\.jsonl:3: docid 'a b' contains whitespace"),
    ("qrels.tsv", 4, "2\t0\tnowhere#1\t1", r"qrels\.tsv:4: passage 'nowhere#1' is not in corpus\.jsonl"),
    ("qrels.tsv", 6, "2\t0\t317339#6", r"qrels\.tsv:6: expected 4 fields"),
    ("qrels.tsv", 9, "999999\t0\t44#0\t1", r"qrels\.tsv:9: query '999999' is not in queries_clean\.jsonl"),
    ("qrels.tsv", 2, "2\t0\t317339#9\t2", r"qrels\.tsv:2: grade 2 is not 0 or 1"),
    ("perturbations/josa.jsonl", 3, '{"qid": "nope", "axis": "josa", "text": "x"}', r"josa\.jsonl:3: qid 'nope' is not in"),
    ("perturbations/josa.jsonl", 1, '{"qid": "1003", "axis": "jamo", "text": "x"}', r"josa\.jsonl:1: axis 'jamo' in the josa file"),
])
def test_damaged_copy_refused_with_file_and_line(raw_copy, file, lineno, line, message):
    _replace_line(raw_copy / "miracl_ko" / file, lineno, line)
    with pytest.raises(CollectionFormatError, match=message):
        ck.load("miracl-ko", data_dir=raw_copy, queries="josa" if "josa" in file else "clean")


def test_missing_file_named(raw_copy):
    (raw_copy / "miracl_ko" / "qrels.tsv").unlink()
    with pytest.raises(FileNotFoundError, match="MIRACL-ko: missing qrels.tsv"):
        ck.load("miracl-ko", data_dir=raw_copy)


MIRACL_QUERIES = {"miracl-ko": 213, "miracl-ko-spacing": 212, "miracl-ko-josa": 204, "miracl-ko-jamo": 213}


@pytest.mark.runs
@pytest.mark.parametrize("collection", list(MIRACL_QUERIES))
def test_miracl_runs_exist_with_the_collections_queries(collection):
    from searchgrade.book import korean_runs

    assert set(korean_runs.MIRACL_COLLECTIONS) == set(MIRACL_QUERIES)
    assert collection in korean_runs.DEFAULT_COLLECTIONS
    coll = korean_runs.load_collection(collection)
    assert len(coll.queries) == MIRACL_QUERIES[collection]
    line = korean_runs.get_runs(collection, progress=False)
    assert list(line) == list(korean_runs.LINEUP)
    for name, run in line.items():
        info = korean_runs.run_info(collection, name)
        assert (korean_runs.runs_root() / collection / f"{name}.run").is_file()
        assert info["collection_hash"] == korean_runs.collection_hash(coll)
        assert info["queries"] == len(coll.queries) and info["documents"] == 2835
        assert set(run) <= set(coll.queries)
        assert len(coll.queries) - len(run) == info["queries_without_results"], name
        assert all(0 < len(docs) <= korean_runs.DEFAULT_DEPTH for docs in run.values())
        if info["family"] == "dense":  # a dense retriever ranks every passage for every question
            assert set(run) == set(coll.queries), name
