"""searchgrade.retrieval.chunking: sentence splitting, three chunkings, content-hash ids, chunk-id labels, BM25 over chunks."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchgrade.retrieval import chunking as ch
from searchgrade import rag
from tests.support.examples import examples

CORPUS = {
    "d1": {"title": "체스_규칙", "text": "체스는 두 사람이 한다. 세계 선수권에서는 처음 40수에 각각 120분이 주어진다. "
                                      "시간을 넘기면 진다!"},
    "d2": {"title": "매리너_6호", "text": "과학 기기 전체 질량은 57.6 kg 이고 1969년에 발사되었다. 화성을 지나갔다."},
    "d3": {"title": "빈_문서", "text": "   "},
}


def item(quotes, min_docs=1, typ="single"):
    """A minimal valid item with evidence quotes [(doc_id, quote), ...]."""
    return {
        "id": "q1", "user_input": "질문", "reference": "답", "reference_contexts": [q for _, q in quotes],
        "must_have": ["a", "b"] if min_docs > 1 else ["a"],
        "evidence": [{"doc_id": d, "title": CORPUS[d]["title"], "quote": q, "role": "answer", "alt_doc_ids": []}
                     for d, q in quotes],
        "min_docs": min_docs, "reasoning": "r", "type": typ, "tags": [], "query_style": "natural",
    }


def test_split_sentences_keeps_decimals_and_abbreviations_inside():
    text = CORPUS["d2"]["text"]
    spans = ch.split_sentences(text)
    assert [text[s:e] for s, e in spans] == ["과학 기기 전체 질량은 57.6 kg 이고 1969년에 발사되었다.", "화성을 지나갔다."]
    sentence = "Worldwide Associates Inc.의 회장이 되었다."
    assert ch.split_sentences(sentence) == [(0, len(sentence))]
    assert ch.split_sentences("   ") == []
    assert ch.split_sentences("끝 없는 문장") == [(0, 7)]
    with pytest.raises(TypeError):
        ch.split_sentences(None)


def test_sentence_end_with_closing_quote():
    text = '그는 "그만!" 하고 외쳤다. 다음 문장.'
    parts = [text[s:e] for s, e in ch.split_sentences(text)]
    assert parts == ['그는 "그만!"', "하고 외쳤다.", "다음 문장."]


def test_paragraph_chunks_one_per_nonblank_document_with_content_hash_ids():
    chunks = ch.paragraph_chunks(CORPUS)
    assert [c.doc_id for c in chunks] == ["d1", "d2"]
    assert chunks[0].text == CORPUS["d1"]["text"].strip()
    assert chunks[0].chunk_id == ch.chunk_id("d1", chunks[0].text)
    titled = ch.paragraph_chunks(CORPUS, prefix_title=True)
    assert titled[0].text == "체스_규칙\n" + chunks[0].text
    # same boundaries, different content: every id changes
    assert not {c.chunk_id for c in chunks} & {c.chunk_id for c in titled}
    assert titled[0].pieces[0] == "체스_규칙"


def test_sentence_windows_cover_every_sentence_and_spans_match_text():
    chunks = ch.sentence_chunks(CORPUS, size=2, overlap=1)
    d1 = [c for c in chunks if c.doc_id == "d1"]
    assert len(d1) == 2
    for c in chunks:
        assert CORPUS[c.doc_id]["text"][c.start:c.end] == c.text
    assert d1[0].text.startswith("체스는") and d1[1].text.endswith("진다!")


@settings(max_examples=examples(60), deadline=None)
@given(n=st.integers(1, 30), size=st.integers(1, 6), data=st.data())
def test_window_starts_cover_all_and_every_overlap_run(n, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    starts = ch._window_starts(n, size, overlap)
    covered = set()
    for s in starts:
        covered.update(range(s, min(s + size, n)))
    assert covered == set(range(n))
    # any overlap + 1 consecutive items lie inside one window
    for i in range(0, n - overlap):
        assert any(s <= i and i + overlap < s + size for s in starts)
    # no window starts at or beyond the end, and only the last window reaches the end (none is redundant)
    assert all(s < n for s in starts)
    assert all(a + size < n for a in starts[:-1])


def test_char_windows_and_bad_parameters():
    chunks = ch.char_chunks(CORPUS, size=10, overlap=3)
    text = CORPUS["d1"]["text"]
    d1 = [c for c in chunks if c.doc_id == "d1"]
    assert d1[0].text == text[:10] and d1[1].start == 7
    assert d1[-1].end == len(text)
    with pytest.raises(ValueError, match="overlap"):
        ch.sentence_chunks(CORPUS, size=2, overlap=2)
    with pytest.raises(ValueError, match="size"):
        ch.char_chunks(CORPUS, size=0, overlap=0)
    with pytest.raises(ValueError, match="unknown chunking method"):
        ch.chunk_corpus(CORPUS, "tokens")
    with pytest.raises(TypeError, match="d9"):
        ch.paragraph_chunks({"d9": "no mapping"})


def test_chunk_qrels_follow_the_quotes_and_differ_between_chunkings():
    it = item([("d1", "처음 40수에 각각 120분"), ("d2", "57.6 kg 이고")], min_docs=2, typ="comparison")
    para = ch.paragraph_chunks(CORPUS)
    sent = ch.sentence_chunks(CORPUS, size=1, overlap=0)
    qp, qs = ch.chunk_qrels([it], para), ch.chunk_qrels([it], sent)
    assert set(qp["q1"]) == {c.chunk_id for c in para}
    holders = {c.chunk_id for c in sent if "40수" in c.text or "57.6" in c.text}
    assert set(qs["q1"]) == holders and len(holders) == 2
    assert not set(qp["q1"]) & set(qs["q1"])


def test_split_quotes_finds_quotes_cut_by_character_windows():
    it = item([("d1", "처음 40수에 각각 120분이 주어진다")])
    assert ch.split_quotes([it], ch.paragraph_chunks(CORPUS)) == []
    assert ch.split_quotes([it], ch.char_chunks(CORPUS, size=12, overlap=2)) == [("q1", 0)]


def test_chunk_index_search_and_quote_scoring(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path))
    chunks = ch.sentence_chunks(CORPUS, size=1, overlap=0, prefix_title=True)
    index = ch.ChunkIndex(chunks, tokeniser="ko-bigram")
    top = index.search("세계 선수권 처음 40수", k=2)
    assert top[0].doc_id == "d1" and "40수" in top[0].text
    it = item([("d1", "처음 40수에 각각 120분")])
    scores = rag.ranked_metrics(it, [c.as_dict() for c in top], ks=(1,))
    assert scores["AllEvidence@1"] == 1.0
    run = index.run({"q1": "화성"}, k=3)
    assert list(run["q1"]) == [c.chunk_id for c in index.search("화성", k=3)]
    assert list((tmp_path / "tokens").glob("ko-bigram-*.json"))
    # a second index over the same pieces gives the same tokens (memo / disk cache)
    again = ch.ChunkIndex(chunks, tokeniser="ko-bigram")
    assert again.chunk_tokens == index.chunk_tokens
    with pytest.raises(ValueError, match="empty"):
        ch.ChunkIndex([])
    with pytest.raises(ValueError, match="more than once"):
        ch.ChunkIndex(chunks + chunks[:1], tokeniser="ko-bigram")


def test_interleave_round_robin_without_repeats():
    chunks = ch.sentence_chunks(CORPUS, size=1, overlap=0)
    a, b, c, d = chunks[:4]
    assert ch.interleave([[a, b], [c, a, d]]) == [a, c, b, d]
    assert ch.interleave([[a, b], [c, a, d]], k=2) == [a, c]
    assert ch.interleave([]) == []
    with pytest.raises(ValueError):
        ch.interleave([[a]], k=0)
