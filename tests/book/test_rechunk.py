"""Answer keys that survive rechunking (searchgrade.rag.passage_keys) and chapter 8's MIRACL chunkings (book.rechunk)."""
from __future__ import annotations

import pytest

import searchgrade as sg
from searchgrade import rag
from searchgrade.book import rechunk
from searchgrade.collections.base import Collection
from searchgrade.retrieval import chunking

CORPUS = {
    "7#0": {"title": "고래", "text": "대왕고래는 가장 큰 동물이다. 몸길이는 30미터에 이른다. 바다에 산다."},
    "7#1": {"title": "고래", "text": "고래는 포유류이다. 새끼에게 젖을 먹인다."},
    "7#3": {"title": "고래", "text": "혹등고래는 노래를 부른다."},
    "9#0": {"title": "상어", "text": "상어는 연골어류이다. 대부분 바다에 산다."},
}
QRELS = {"q1": {"7#0": 1, "7#1": 0}, "q2": {"7#1": 1, "7#3": 1, "9#0": 0}}
QUERIES = {"q1": "가장 큰 동물", "q2": "고래 포유류 노래"}


def _key(min_chars: int = 5) -> dict:
    ids = {c.doc_id: c.chunk_id for c in chunking.paragraph_chunks(CORPUS, prefix_title=True)}
    return rag.passage_keys(QRELS, CORPUS, ids, rechunk.sentences, min_chars)


def _dicts(chunks) -> list[dict]:
    return [c.as_dict() for c in chunks]


def test_keys_hold_normalised_sentences_and_the_chunk_id_of_the_day():
    key = _key()
    k0 = key["q1"][0]
    assert (k0.passage_id, k0.grade) == ("7#0", 1)
    assert k0.quotes == ("대왕고래는가장큰동물이다.", "몸길이는30미터에이른다.", "바다에산다.")
    assert k0.chunk_id == chunking.chunk_id("7#0", "고래\n" + CORPUS["7#0"]["text"])


def test_short_sentences_are_not_quotes_and_a_passage_with_none_is_quoted_whole():
    key = _key(min_chars=10)
    assert key["q1"][0].quotes == ("대왕고래는가장큰동물이다.", "몸길이는30미터에이른다.")
    assert key["q2"][1].quotes == ("혹등고래는노래를부른다.",)
    key = _key(min_chars=100)
    assert key["q2"][1].quotes == ("혹등고래는노래를부른다.",)


def test_bad_keys_are_refused_with_the_passage_named():
    with pytest.raises(KeyError, match="'7#9' is not in the corpus"):
        rag.passage_keys({"q": {"7#9": 1}}, CORPUS, {}, rechunk.sentences)
    with pytest.raises(KeyError, match="'7#0' has no chunk id"):
        rag.passage_keys({"q": {"7#0": 1}}, CORPUS, {}, rechunk.sentences)
    with pytest.raises(ValueError, match="min_chars"):
        rag.passage_keys(QRELS, CORPUS, {}, rechunk.sentences, min_chars=0)
    with pytest.raises(ValueError, match="match must be"):
        rag.key_matches(_key()["q1"][0], {"chunk_id": "x", "text": "y"}, "quote")


def test_text_keys_survive_rechunking_and_id_keys_do_not():
    key = _key(min_chars=10)
    windows = _dicts(chunking.sentence_chunks(CORPUS, size=2, overlap=1))
    merged = _dicts(rechunk.merged_neighbours(CORPUS))
    by_text = rag.chunk_grades(key, windows)
    assert sorted(by_text["q1"].values()) == [0, 1, 1]  # 7#0's two windows take grade 1, 7#1's one window 0
    # a short quote ("바다에 산다.") also matches the shark's window: why short sentences are no quotes
    assert sorted(rag.chunk_grades(_key(min_chars=5), windows)["q1"].values()) == [0, 1, 1, 1]
    assert rag.chunk_grades(key, windows, "id")["q1"] == {}
    merged_grades = rag.chunk_grades(key, merged)
    # 7#0 and 7#1 merge (grades 1 and 0): the merge takes the higher grade
    assert merged_grades["q1"] == {merged[0]["chunk_id"]: 1}
    assert rag.chunk_grades(key, merged, "id")["q1"] == {}
    # a passage left alone keeps its chunk id, so the id key still finds it
    alone = [c for c in merged if c["doc_id"] == "7#3"]
    assert rag.chunk_grades(key, alone, "id")["q2"] == {alone[0]["chunk_id"]: 1}


def test_text_matching_ignores_spacing_and_markup_but_not_a_missing_sentence():
    k0 = _key()["q1"][0]
    assert rag.key_matches(k0, {"chunk_id": "c", "text": "…  몸길이는 <b>30</b>미터에\n이른다. …"})
    assert not rag.key_matches(k0, {"chunk_id": "c", "text": "몸길이는 30미터"})
    assert rag.key_matches(k0, {"chunk_id": k0.chunk_id, "text": ""}, "id")


def test_a_quote_is_not_found_across_two_chunks():
    k0 = _key()["q1"][0]
    chunks = [{"chunk_id": "a", "text": "대왕고래는 가장 큰"}, {"chunk_id": "b", "text": "동물이다."}]
    assert rag.chunk_grades({"q1": [k0]}, chunks) == {"q1": {}}


def test_evidence_scores_by_hand():
    key = _key()
    windows = _dicts(chunking.sentence_chunks(CORPUS, size=2, overlap=1))
    by_doc = {c["doc_id"]: c for c in reversed(windows)}
    ranked = {"q2": [by_doc["9#0"], by_doc["7#1"], by_doc["7#0"], by_doc["7#3"]]}
    two = rag.evidence_scores(key, ranked, 2)
    assert two.loc["q2", "EvidenceRecall@2"] == 0.5 and two.loc["q2", "AllEvidence@2"] == 0.0
    assert two.loc["q1", "EvidenceRecall@2"] == 0.0  # no ranking: nothing retrieved
    four = rag.evidence_scores(key, ranked, 4)
    assert four.loc["q2", "AllEvidence@4"] == 1.0 and four.loc["q2", "found"] == 2
    assert rag.evidence_scores(key, ranked, 4, "id")["found"].sum() == 0
    with pytest.raises(ValueError, match="k must be"):
        rag.evidence_scores(key, ranked, 0)


def test_subtopics_make_strec_equal_evidence_recall_and_alpha_ndcg_charge_repeats():
    key = _key()
    windows = _dicts(chunking.sentence_chunks(CORPUS, size=2, overlap=1))
    topics = rag.subtopic_qrels(key, windows)
    assert set(topics) == {"q1", "q2"} and set(topics["q2"]) == {"7#1", "7#3"}
    w0 = [c for c in windows if c["doc_id"] == "7#0"]
    w1 = [c for c in windows if c["doc_id"] == "7#1"]
    w3 = [c for c in windows if c["doc_id"] == "7#3"]
    repeat = {"q2": {w1[0]["chunk_id"]: 3.0, w0[0]["chunk_id"]: 2.0, w3[0]["chunk_id"]: 1.0}}
    fresh = {"q2": {w1[0]["chunk_id"]: 3.0, w3[0]["chunk_id"]: 2.0, w0[0]["chunk_id"]: 1.0}}
    q2 = {"q2": topics["q2"]}
    strec = sg.evaluate(q2, repeat, ["StRecall@2", "alpha_nDCG@3"])
    ranked = {"q2": [w1[0], w0[0], w3[0]]}
    assert strec.loc["q2", "StRecall@2"] == rag.evidence_scores({"q2": key["q2"]}, ranked, 2).loc[
        "q2", "EvidenceRecall@2"] == 0.5
    better = sg.evaluate(q2, fresh, ["alpha_nDCG@3"])
    assert better.loc["q2", "alpha_nDCG@3"] == pytest.approx(1.0)
    assert strec.loc["q2", "alpha_nDCG@3"] < 1.0
    q1 = {"q1": topics["q1"]}  # 7#0 has two overlapping windows: the second repeats the first
    assert rag.redundant_chunks(q1, {"q1": [w0[0], w1[0], w0[1]]}, 3)["q1"] == 1
    assert rag.redundant_chunks(q1, {"q1": [w0[0], w1[0], w0[1]]}, 2)["q1"] == 0
    assert rag.redundant_chunks(q2, {"q2": [w1[0], w0[0], w3[0]]}, 3)["q2"] == 0
    assert rag.redundant_chunks(q2, {}, 3)["q2"] == 0


def test_merging_pairs_adjacent_paragraphs_only():
    merged = rechunk.merged_neighbours(CORPUS)
    assert [c.doc_id for c in merged] == ["7#0+7#1", "7#3", "9#0"]
    assert merged[0].text == "고래\n" + CORPUS["7#0"]["text"] + "\n" + CORPUS["7#1"]["text"]
    assert merged[0].pieces[0] == "고래" and len(merged[0].pieces) == 1 + 3 + 2
    three = {f"1#{n}": {"title": "t", "text": f"문장 {n}."} for n in (0, 1, 2)}
    assert [c.doc_id for c in rechunk.merged_neighbours(three)] == ["1#0+1#1", "1#2"]


def test_article_ids_and_neighbours():
    assert rechunk.article_of("44#12") == ("44", 12)
    with pytest.raises(ValueError, match="'44' is not"):
        rechunk.article_of("44")
    assert rechunk.neighbours(CORPUS) == [("7#0", "7#1")]


def test_pool_counts():
    coll = Collection("tiny", CORPUS, QUERIES, QRELS, {})
    assert rechunk.pool_counts(coll) == {"passages": 4, "questions": 2, "adjacent_pairs": 1, "relevant": 3,
                                         "relevant_with_neighbour": 2, "multi_evidence": 1}


@pytest.mark.model  # BM25 with Kiwi: loads Kiwi's morphological model (kiwipiepy_model)
def test_rankings_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path))
    chunks = chunking.sentence_chunks(CORPUS, size=2, overlap=1)
    first = rechunk.ranked_chunks(chunks, QUERIES, k=3)
    assert first["q1"][0]["doc_id"] == "7#0"
    assert len(list((tmp_path / "chunk_runs").glob("*.json"))) == 1

    def refuse(*args, **kwargs):
        raise AssertionError("the cached ranking should have been read")

    monkeypatch.setattr(rechunk, "ChunkIndex", refuse)
    assert rechunk.ranked_chunks(chunks, QUERIES, k=3) == first
    with pytest.raises(AssertionError, match="cached ranking"):
        rechunk.ranked_chunks(chunks, {"q1": "다른 질문"}, k=3)


def test_the_hand_check_file_is_well_formed():
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "labels" / "ch08_chunk_check.tsv"
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert rows and list(rows[0]) == ["qid", "passage_id", "chunk_id", "verdict", "note"]
    assert {r["verdict"] for r in rows} <= {"yes", "partial", "no"}
    assert len({r["chunk_id"] for r in rows}) == len(rows)
    assert all(r["note"].strip() and rechunk.article_of(r["passage_id"]) for r in rows)
