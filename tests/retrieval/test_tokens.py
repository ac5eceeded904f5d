"""The token cache (searchgrade.retrieval.tokens): a BM25 run's corpus is tokenised once per text and setting.

A stand-in tokeniser counts the texts it is given, so the test sees exactly when the corpus is
tokenised again: not for a new output folder or a new process (issue 24: Kiwi took ~7 s per new
folder), but for a changed text or changed tokeniser settings.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from searchgrade import collections as ck
from searchgrade.collections import Collection
from searchgrade.io import read_run
from searchgrade.retrieval import chunking, dense, korean, tokens
from searchgrade.retrieval import lineup as L
from searchgrade.retrieval import runs as engine
from searchgrade.retrieval import workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"
LINEUP = '[[retriever]]\nname = "bm25-count"\nkind = "bm25"\ntokeniser = "ko-count"\n'


class CountingTokeniser(korean.Tokeniser):
    """Eojeol tokens, with every text it tokenises recorded in ``seen``."""

    name = "ko-count"
    version = "1"
    seen: list[str] = []

    def __call__(self, text):
        type(self).seen.append(text)
        return korean.whitespace(text)

    def settings(self):
        return {"name": self.name, "version": self.version}


@pytest.fixture()
def counting(monkeypatch, tmp_path):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(korean.TOKENISERS, "ko-count", CountingTokeniser)
    monkeypatch.setattr(korean, "_INSTANCES", {})
    monkeypatch.setattr(CountingTokeniser, "seen", [])
    return CountingTokeniser


def _run_in_new_process(coll: Collection, out: Path) -> dict:
    """make_runs as a fresh process would: no workspace, no token memo; the run written."""
    workspace._WORKSPACES.clear()
    tokens.clear_memo()
    engine.make_runs(coll, L.parse_lineup(LINEUP, "count.toml"), out, progress=False)
    return read_run(out / "bm25-count.run")


def test_a_new_output_folder_does_not_tokenise_the_corpus_again(counting, tmp_path):
    coll = ck.load_beir(FIXTURE)
    docs = dense.doc_texts(coll.corpus)
    first = _run_in_new_process(coll, tmp_path / "a")
    assert set(docs) <= set(counting.seen)
    assert len(list((tmp_path / "cache" / "tokens").glob("ko-count-*.json"))) == 1
    counting.seen.clear()
    second = _run_in_new_process(coll, tmp_path / "b")
    assert second == first
    assert not set(docs) & set(counting.seen)                  # only the queries were tokenised
    assert set(counting.seen) == set(coll.queries.values())


def test_a_changed_text_or_setting_misses_the_cache(counting, tmp_path, monkeypatch):
    coll = ck.load_beir(FIXTURE)
    _run_in_new_process(coll, tmp_path / "a")
    changed = dict(coll.corpus)
    changed["d1"] = {**changed["d1"], "text": changed["d1"]["text"] + " 새 문장."}
    edited = Collection(coll.name, changed, coll.queries, coll.qrels)
    counting.seen.clear()
    _run_in_new_process(edited, tmp_path / "b")
    assert dense.doc_text(changed["d1"]) in counting.seen
    monkeypatch.setattr(CountingTokeniser, "version", "2")     # e.g. a new Kiwi release
    counting.seen.clear()
    _run_in_new_process(coll, tmp_path / "c")
    assert set(dense.doc_texts(coll.corpus)) <= set(counting.seen)
    assert len(list((tmp_path / "cache" / "tokens").glob("ko-count-*.json"))) == 3


def test_chunk_pieces_use_the_same_cache(counting, tmp_path):
    coll = ck.load_beir(FIXTURE)
    chunks = chunking.sentence_chunks(coll, size=1, overlap=0)
    pieces = sorted({p for c in chunks for p in c.pieces})
    tokens.clear_memo()
    chunking.ChunkIndex(chunks, tokeniser="ko-count")
    assert tokens.cache_path(korean.get_tokeniser("ko-count"), pieces).is_file()
    tokens.clear_memo()
    counting.seen.clear()
    chunking.ChunkIndex(chunks, tokeniser="ko-count")
    assert counting.seen == []
