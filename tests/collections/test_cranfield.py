"""Tests for searchgrade.collections: the Cranfield loader on the real files and on small broken ones."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from searchgrade import collections as ds

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "data" / "raw"


@pytest.fixture(scope="module")
def cran():
    return ds.load("cranfield")


@pytest.fixture(scope="module")
def cran_raw():
    return ds.load("cranfield", grades="raw")


# ---------------------------------------------------------------- real data


def test_counts(cran):
    assert len(cran.corpus) == 1400
    assert len(cran.queries) == 225
    assert sum(len(r) for r in cran.qrels.values()) == 1837
    assert cran.meta["judgment_lines"] == 1837
    assert list(cran.corpus) == [str(i) for i in range(1, 1401)]
    assert list(cran.queries) == [str(i) for i in range(1, 226)]


def test_raw_code_distribution(cran_raw, cran):
    expected = {-1: 225, 1: 128, 2: 387, 3: 734, 4: 363}
    assert Counter(g for r in cran_raw.qrels.values() for g in r.values()) == expected
    assert Counter(g for r in cran.raw_codes.values() for g in r.values()) == expected


def test_book_grades_are_five_minus_code(cran):
    for qid, row in cran.raw_codes.items():
        for docid, code in row.items():
            assert cran.qrels[qid][docid] == (0 if code == -1 else 5 - code)
    assert Counter(g for r in cran.qrels.values() for g in r.values()) == {0: 225, 4: 128, 3: 387, 2: 734, 1: 363}
    assert "5 - code" in cran.meta["grade_convention"]


def test_minus_one_is_one_source_document_per_query(cran):
    minus = cran.meta["minus_one"]
    assert set(minus) == set(cran.queries)
    assert all(len(docs) == 1 for docs in minus.values())
    assert cran.exclude == {q: set(d) for q, d in minus.items()}
    assert len({d[0] for d in minus.values()}) == 128


def test_empty_abstracts_kept(cran):
    assert cran.meta["empty_documents"] == ["471", "995"]
    assert cran.corpus["471"] == {"title": "", "text": "", "author": "", "bib": ""}


def test_stray_markers_reported_not_dropped(cran):
    quirks = {(q["docid"], q["marker"]) for q in cran.meta["quirks"]}
    assert quirks == {("240", ".A"), ("240", ".B"), ("576", ".W"), ("578", ".W")}
    # the text after a stray marker stays in the abstract
    assert "application to turbulent separations" in cran.corpus["240"]["text"]
    assert "unity in low-speed flow" in cran.corpus["240"]["text"]


def test_first_document_and_query(cran):
    doc = cran.corpus["1"]
    assert doc["title"] == "experimental investigation of the aerodynamics of a wing in a slipstream ."
    assert doc["author"] == "brenckman,m."
    assert doc["text"].startswith(doc["title"])
    assert cran.queries["1"].startswith("what similarity laws must be obeyed")
    assert cran.meta["original_query_ids"]["3"] == "004"
    assert cran.meta["original_query_ids"]["225"] == "365"


def test_qrels_use_renumbered_query_ids(cran):
    """cranqrel numbers queries by position: with that reading, word overlap finds relevant documents."""
    from searchgrade.retrieval import index

    ix = index(cran, "stems")
    run = ix.search(cran.queries, k=10, exclude=cran.exclude)

    def hits(mapping):
        return sum(
            len({d for d, g in cran.qrels[j].items() if g > 0} & set(run[q])) for q, j in mapping.items()
        ) / len(mapping)

    renumbered = hits({q: q for q in cran.queries})
    by_number = {q: str(int(n)) for q, n in cran.meta["original_query_ids"].items() if str(int(n)) in cran.qrels}
    assert renumbered > 1.5 and hits(by_number) < 0.3


def test_meta_has_provenance(cran):
    for key in ("source", "licence", "grade_convention", "codes"):
        assert cran.meta[key]
    assert "complete answer" in cran.meta["codes"][1]


def test_unknown_collection_and_grades():
    with pytest.raises(ValueError, match="unknown collection 'nope'.*cranfield"):
        ds.load("nope")
    with pytest.raises(ValueError, match="grades"):
        ds.load("cranfield", grades="binary")


def test_data_dir_env_and_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_DATA", str(tmp_path))
    assert ds.data_root() == tmp_path
    with pytest.raises(FileNotFoundError, match="cran.all.1400, cran.qry, cranqrel"):
        ds.load("cranfield")
    assert len(ds.load("cranfield", data_dir=RAW).corpus) == 1400


def test_register_rejects_duplicates():
    with pytest.raises(ValueError, match="already registered"):
        ds.register("cranfield", lambda data_dir: None)


# ---------------------------------------------------------------- small files


def write_collection(root: Path, docs: str, qry: str, qrel: str) -> Path:
    folder = root / "cranfield"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cran.all.1400").write_text(docs)
    (folder / "cran.qry").write_text(qry)
    (folder / "cranqrel").write_text(qrel)
    return root


DOCS = ".I 1\n.T\nflat plate .\n.A\nsmith\n.B\nj. 1958\n.W\nflat plate\nflow .\n.I 2\n.T\n.A\n.B\n.W\n"
QRY = ".I 004\n.W\nflow over a\nflat plate .\n.I 009\n.W\nempty ?\n"


def test_small_collection_loads(tmp_path):
    root = write_collection(tmp_path, DOCS, QRY, "1 1 2\r\n1 2 -1\r\n2 2 4")
    col = ds.load("cranfield", data_dir=root)
    assert col.corpus["1"]["text"] == "flat plate flow ."
    assert col.corpus["2"]["text"] == ""
    assert col.queries == {"1": "flow over a flat plate .", "2": "empty ?"}
    assert col.qrels == {"1": {"1": 3, "2": 0}, "2": {"2": 1}}
    assert col.raw_codes == {"1": {"1": 2, "2": -1}, "2": {"2": 4}}
    assert col.exclude == {"1": {"2"}}


@pytest.mark.parametrize(
    "qrel, line, message",
    [
        ("1 1 2\n1 2\n", 2, "expected 3 fields"),
        ("1 1 2 9\n", 1, "expected 3 fields"),
        ("1 1 x\n", 1, "not an integer"),
        ("1 1 5\n", 1, "not one of -1, 1, 2, 3, 4"),
        ("1 1 0\n", 1, "not one of"),
        ("a 1 2\n", 1, "query id 'a'"),
        ("1 1 2\n1 1 3\n", 2, "judges document 1 twice"),
    ],
)
def test_bad_qrels_name_file_and_line(tmp_path, qrel, line, message):
    root = write_collection(tmp_path, DOCS, QRY, qrel)
    with pytest.raises(ds.CollectionFormatError, match=message) as err:
        ds.load("cranfield", data_dir=root)
    assert err.value.line == line
    assert err.value.path.endswith("cranqrel")
    assert f"cranqrel:{line}:" in str(err.value)


def test_qrels_pointing_outside_collection(tmp_path):
    root = write_collection(tmp_path, DOCS, QRY, "1 7 2\n")
    with pytest.raises(ds.CollectionFormatError, match="document 7 .*not in cran.all.1400"):
        ds.load("cranfield", data_dir=root)
    root = write_collection(tmp_path, DOCS, QRY, "3 1 2\n")
    with pytest.raises(ds.CollectionFormatError, match="query 3 is judged but not in cran.qry"):
        ds.load("cranfield", data_dir=root)


@pytest.mark.parametrize(
    "docs, line, message",
    [
        (".I 1\n.T\nx\n.A\n.B\n.I 2\n.W\ny\n", 1, "document 1 has no .W"),
        (".I 1\n.W\nx\n.I 2\n.T\ny\n", 4, "document 2 has no .W"),
        ("stray\n.I 1\n.W\nx\n", 1, "text before the first"),
        (".I one\n.W\nx\n", 1, "expected '.I <number>'"),
        (".I 1\n.W\nx\n.I 1\n.W\ny\n", 4, "occurs twice"),
        (".I 1\n.T\nx\n.T\ny\n.W\nz\n", 4, "field .T repeated"),
        (".I 1\n.X\nx\n.W\ny\n", 2, "unknown field marker"),
        (".I 1\nloose text\n.W\ny\n", 2, "text outside any field"),
    ],
)
def test_bad_documents_name_file_and_line(tmp_path, docs, line, message):
    root = write_collection(tmp_path, docs, QRY, "1 1 2\n")
    with pytest.raises(ds.CollectionFormatError, match=message) as err:
        ds.load("cranfield", data_dir=root)
    assert err.value.line == line
    assert err.value.path.endswith("cran.all.1400")


@pytest.mark.parametrize(
    "qry, line, message",
    [
        (".I 001\n.W\nx\n.I 002\n.I 003\n.W\ny\n", 4, "query 002 has no .W"),
        (".I 001\n.W\nx\n.I 002\n", 4, "query 002 has no .W"),
        (".I 001\n.W\nx\n.W\ny\n", 4, ".W repeated"),
        (".I 001\n.W\nx\n.I 001\n.W\ny\n", 4, "occurs twice"),
        (".I 001\noops\n.W\nx\n", 2, "outside a .W field"),
        (".I 001\n.W\n\n", 1, "empty .W"),
        ("", None, "no '.I' records"),
    ],
)
def test_bad_queries_name_file_and_line(tmp_path, qry, line, message):
    root = write_collection(tmp_path, DOCS, qry, "1 1 2\n")
    with pytest.raises(ds.CollectionFormatError, match=message) as err:
        ds.load("cranfield", data_dir=root)
    assert err.value.line == line
    assert err.value.path.endswith("cran.qry")


def test_non_utf8_is_reported_with_line(tmp_path):
    root = write_collection(tmp_path, DOCS, QRY, "1 1 2\n")
    (root / "cranfield" / "cranqrel").write_bytes(b"1 1 2\n1 2 \xff3\n")
    with pytest.raises(ds.CollectionFormatError, match="cranqrel:2: not valid UTF-8"):
        ds.load("cranfield", data_dir=root)


def test_cranfield_grade():
    assert [ds.cranfield_grade(c) for c in (-1, 1, 2, 3, 4)] == [0, 4, 3, 2, 1]
    with pytest.raises(ValueError):
        ds.cranfield_grade(5)


# ---------------------------------------------------------------- one load() for every collection

BEIR_SMALL = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"


def test_load_knows_the_korean_collections():
    assert {"cranfield", "korquad-dev", "autorag", "ko-strategyqa-dev", "beir"} <= set(ds.LOADERS)
    auto = ds.load("autorag", data_dir=RAW)
    assert (len(auto.corpus), len(auto.queries)) == (720, 114)
    strat = ds.load("ko-strategyqa-dev", data_dir=RAW)
    assert len(strat.queries) == 592 and sum(len(d) for d in strat.qrels.values()) == 1145


def test_load_takes_a_beir_folder_by_path():
    from searchgrade import collections as collections_ko

    expected = collections_ko.load_beir(BEIR_SMALL)
    for name in (BEIR_SMALL, str(BEIR_SMALL)):
        got = ds.load(name)
        assert (got.corpus, got.queries, got.qrels) == (expected.corpus, expected.queries, expected.qrels)
    got = ds.load("beir", folder=BEIR_SMALL)
    assert got.qrels == expected.qrels


def test_unknown_name_mentions_folders(tmp_path):
    with pytest.raises(ValueError, match="BEIR-format folder"):
        ds.load(str(tmp_path / "no-such-folder"))
