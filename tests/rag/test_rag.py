"""Tests for searchgrade.rag: quote normalisation, item validation, evidence metrics, repeated runs, grading records."""
import copy
import json

import pandas as pd
import pytest
from scipy.stats import binomtest

from searchgrade import rag
from searchgrade.io import FormatError

# ---------------------------------------------------------------------------
# A tiny corpus and item factory

CORPUS = {
    "d1": {"title": "이미지 업로드 장애 대응", "text": "썸네일 생성이 밀리면 thumbnail-worker 큐 적체를 먼저 확인한다."},
    "d2": {"title": "워커 설정", "text": "| thumbnail-worker | concurrency 8 |"},
    "d3": {"title": "운영 요약", "text": "요약: thumbnail-worker 의 concurrency 8 (운영 환경 기준)"},
    "d4": {"title": "링크 문서", "text": "<p>자세한 값은 [운영 문서](https://wiki.example/ops(2))를 보라 &amp; 확인</p>"},
    "d5": {"title": "무관한 문서", "text": "점심 메뉴는 김치찌개다."},
}


def make_item(**overrides):
    """A valid two-document bridge item; keyword arguments replace fields."""
    item = {
        "id": "q-1",
        "user_input": "썸네일 생성이 밀릴 때 처리하는 워커의 동시 실행 수는?",
        "reference": "thumbnail-worker가 처리하며 concurrency는 8이다.",
        "reference_contexts": ["thumbnail-worker 큐 적체", "concurrency 8"],
        "must_have": ["처리 워커는 thumbnail-worker", "동시 실행 수 8"],
        "evidence": [
            {"doc_id": "d1", "title": "이미지 업로드 장애 대응", "quote": "thumbnail-worker 큐 적체",
             "role": "bridge", "alt_doc_ids": []},
            {"doc_id": "d2", "title": "워커 설정", "quote": "concurrency 8", "role": "answer",
             "alt_doc_ids": ["d3"]},
        ],
        "min_docs": 2,
        "reasoning": "장애 대응 문서에서 워커 이름을 얻고 설정 문서에서 동시 실행 수를 찾는다.",
        "type": "bridge",
        "tags": ["multi_hop"],
        "query_style": "natural",
    }
    item.update(copy.deepcopy(overrides))
    return item


def single_item(**overrides):
    """A valid single-document item."""
    base = dict(
        id="q-s", type="single", min_docs=1, tags=[], must_have=["동시 실행 수 8"],
        reference_contexts=["concurrency 8"],
        evidence=[{"doc_id": "d2", "title": "워커 설정", "quote": "concurrency 8", "role": "answer",
                   "alt_doc_ids": ["d3"]}],
    )
    base.update(overrides)
    return make_item(**base)


def codes(problems, item_id=None):
    """Problem codes, optionally only those of one item."""
    return [p.code for p in problems if item_id is None or p.item_id == item_id]


# ---------------------------------------------------------------------------
# Normalisation


@pytest.mark.parametrize("raw, expected", [
    ("a &amp; b &lt;tag&gt;", "a&b"),            # entities unescaped, then the resulting tag removed
    ("<b>굵게</b><br/>다음 줄", "굵게다음줄"),      # tags removed
    ("3 < 5 and 7 > 2", "3<5and7>2"),             # a bare < is text
    ("[운영 문서](https://x.example/a(b))를", "운영문서를"),   # link -> text, one level of parentheses in url
    ("![그림 설명](img.png)", "그림설명"),          # image -> alt text
    (r"thumbnail\_worker \#1 \[x\]", "thumbnail_worker#1[x]"),  # Markdown escapes removed
    ("**굵게** 와 `code`", "굵게와code"),          # emphasis and code markers removed
    ("a \t\n b\u00a0c\u200bd\u3000e", "abcde"),  # every whitespace (incl. NBSP, ideographic, zero-width)
    ("\u1100\u1161\u11a8", "각"),                 # NFD jamo -> NFC syllable
])
def test_normalise_cases(raw, expected):
    assert rag.normalise(raw) == expected


def test_quote_in_ignores_table_padding_and_markup():
    assert rag.quote_in("thumbnail-worker | concurrency 8", "|  thumbnail-worker  |\n| concurrency 8 |") is False
    assert rag.quote_in("thumbnail-worker | concurrency 8", "|  thumbnail-worker  |  concurrency 8  |")
    assert rag.quote_in("운영 문서를 보라 & 확인", CORPUS["d4"]["text"])
    assert not rag.quote_in("운영 문서를 보라 & 확인함", CORPUS["d4"]["text"])


def test_empty_quote_is_an_error():
    with pytest.raises(ValueError, match="empty after normalisation"):
        rag.quote_in(" <br/> ", "anything")
    with pytest.raises(TypeError):
        rag.normalise(None)


def test_find_quote_searches_whole_corpus():
    assert rag.find_quote("concurrency 8", CORPUS) == ["d2", "d3"]
    assert rag.find_quote("없는 문장", CORPUS) == []


# ---------------------------------------------------------------------------
# Schema checks


def test_valid_item_has_no_problems():
    assert rag.check_item(make_item()) == []
    assert rag.validate([make_item(), single_item()], CORPUS) == []


@pytest.mark.parametrize("field", list(rag.ITEM_FIELDS))
def test_missing_field_is_reported(field):
    item = make_item()
    del item[field]
    probs = rag.check_item(item)
    assert any(p.code == "missing_field" and field in p.message for p in probs)


@pytest.mark.parametrize("field, value, code", [
    ("min_docs", "2", "wrong_type"),
    ("min_docs", True, "wrong_type"),
    ("tags", "multi_hop", "wrong_type"),
    ("must_have", ["ok", 3], "wrong_type"),
    ("user_input", "   ", "empty_field"),
    ("type", "multihop", "unknown_type"),
    ("query_style", "formal", "unknown_query_style"),
    ("tags", ["Multi Hop"], "bad_tag"),
    ("must_have", ["처리 워커는 thumbnail-worker"], "must_have_count"),
    ("min_docs", 1, "min_docs"),
    ("min_docs", 0, "min_docs"),
])
def test_mistyped_or_unknown_values(field, value, code):
    probs = rag.check_item(make_item(**{field: value}))
    assert code in codes(probs), probs
    assert all(p.item_id == "q-1" for p in probs)


def test_unknown_fields_and_roles():
    item = make_item(must_haves=["typo"])
    assert "unknown_field" in codes(rag.check_item(item))
    item = make_item()
    item["evidence"][0]["role"] = "answr"
    item["evidence"][1]["extra"] = 1
    got = codes(rag.check_item(item))
    assert "unknown_role" in got and "unknown_field" in got


def test_single_items_need_exactly_one_document_and_few_facts():
    assert "min_docs" in codes(rag.check_item(single_item(min_docs=2)))
    assert "must_have_count" in codes(rag.check_item(single_item(must_have=["a", "b", "c", "d"])))


def test_evidence_entry_problems():
    item = make_item()
    item["evidence"][0]["quote"] = "<br/>"
    item["evidence"][1]["alt_doc_ids"] = ["d2", "d3"]
    del item["evidence"][1]["title"]
    got = codes(rag.check_item(item))
    assert "empty_field" in got and "alt_doc_ids" in got and "missing_field" in got
    assert "empty_field" in codes(rag.check_item(make_item(evidence=[])))


# ---------------------------------------------------------------------------
# Checks against the corpus


def test_broken_quote_is_refused_with_item_id():
    item = make_item(id="q-broken")
    item["evidence"][0]["quote"] = "thumbnail-worker 큐 폭증"
    probs = rag.validate([item, make_item(id="q-ok")], CORPUS)
    assert codes(probs) == ["quote_not_found"]
    assert probs[0].item_id == "q-broken" and "d1" in probs[0].message
    assert str(probs[0]).startswith("q-broken: [quote_not_found]")


def test_quote_found_only_in_alt_document_is_accepted():
    item = make_item()
    item["evidence"][1]["quote"] = "concurrency 8 (운영 환경 기준)"     # only in d3
    item["reference_contexts"] = ["thumbnail-worker 큐 적체", "concurrency 8 (운영 환경 기준)"]
    assert rag.validate([item], CORPUS) == []
    item["evidence"][1]["alt_doc_ids"] = []
    assert codes(rag.validate([item], CORPUS)) == ["quote_not_found", "context_not_found"]


def test_quote_normalised_before_matching():
    item = make_item()
    item["evidence"][1] = {"doc_id": "d4", "title": "링크 문서", "quote": "[운영 문서](http://other)를 보라 &amp; 확인",
                           "role": "answer", "alt_doc_ids": []}
    item["reference_contexts"] = ["thumbnail-worker 큐 적체", "운영 문서를 보라 & 확인"]
    assert rag.validate([item], CORPUS) == []


def test_unlisted_document_holding_the_quote_is_reported():
    item = make_item()
    item["evidence"][1]["alt_doc_ids"] = []
    probs = rag.validate([item], CORPUS)
    assert codes(probs) == ["alt_missing"] and "d3" in probs[0].message
    assert rag.validate([item], CORPUS, check_alts=False) == []
    fixed = rag.complete_alt_doc_ids(item, CORPUS)
    assert fixed["evidence"][1]["alt_doc_ids"] == ["d3"] and item["evidence"][1]["alt_doc_ids"] == []
    assert rag.validate([fixed], CORPUS) == []


def test_unknown_document_title_mismatch_and_context():
    item = make_item()
    item["evidence"][0]["doc_id"] = "d9"
    item["evidence"][1]["title"] = "틀린 제목"
    item["reference_contexts"] = ["어디에도 없는 문장"]
    got = codes(rag.validate([item], CORPUS))
    assert {"unknown_doc", "title_mismatch", "context_not_found"} <= set(got)
    # a corpus given as plain texts has no titles, so titles are not compared
    texts = {d: v["text"] for d, v in CORPUS.items()}
    item = make_item()
    item["evidence"][1]["title"] = "아무 제목"
    assert rag.validate([item], texts) == []


def test_fewer_distinct_documents_than_min_docs():
    item = make_item()
    item["evidence"][1] = {"doc_id": "d1", "title": "이미지 업로드 장애 대응", "quote": "먼저 확인한다",
                           "role": "answer", "alt_doc_ids": []}
    item["reference_contexts"] = ["thumbnail-worker 큐 적체"]
    probs = rag.validate([item], CORPUS)
    assert codes(probs) == ["min_docs"] and "1 distinct document" in probs[0].message
    assert rag.min_documents(item) == (1, ("d1",))


def test_alternatives_can_collapse_two_documents_into_one():
    item = make_item()
    # d3 holds the d2 fact and is also declared an alternative for the d1 evidence
    item["evidence"][0]["alt_doc_ids"] = ["d3"]
    probs = rag.validate([item], CORPUS)
    assert codes(probs) == ["min_docs"] and "['d3']" in probs[0].message
    assert rag.min_documents(item) == (1, ("d3",))
    assert rag.min_documents(make_item()) == (2, ("d1", "d2"))


def test_duplicate_ids_are_reported():
    probs = rag.validate([make_item(), make_item()], CORPUS)
    assert codes(probs) == ["duplicate_id"]


# ---------------------------------------------------------------------------
# Single-chunk check


def retriever(chunks):
    """A retrieve(question, k) callable that always returns the given ranked chunks."""
    def retrieve(question, k):
        return chunks[:k] if k is not None else chunks
    return retrieve


def test_single_chunk_check_flags_composite_item():
    both = {"doc_id": "d9", "text": "thumbnail-worker 큐 적체가 보이면 concurrency 8 을 확인"}
    ranked = [{"doc_id": "d5", "text": "점심"}, {"doc_id": "d1", "text": CORPUS["d1"]["text"]}, both]
    probs = rag.validate([make_item()], CORPUS, retrieve=retriever(ranked))
    assert codes(probs) == ["single_chunk"] and "rank 3" in probs[0].message


def test_single_chunk_check_passes_when_quotes_are_split():
    ranked = [(d, CORPUS[d]["text"]) for d in ("d1", "d2", "d3", "d5")]
    assert rag.validate([make_item()], CORPUS, retrieve=retriever(ranked)) == []


def test_single_chunk_check_looks_only_at_top_k_and_composite_items():
    both = {"doc_id": "d9", "text": "thumbnail-worker 큐 적체 concurrency 8"}
    ranked = [{"doc_id": "d5", "text": "x"}] * 10 + [both]
    seen = []

    def retrieve(question, k):
        seen.append((question, k))
        return ranked            # more than k: the validator cuts at k
    assert rag.validate([make_item(), single_item()], CORPUS, retrieve=retrieve) == []
    assert seen == [(make_item()["user_input"], 10)]        # the single item is not checked
    assert codes(rag.validate([make_item()], CORPUS, retrieve=retriever(ranked), k=11)) == ["single_chunk"]


# ---------------------------------------------------------------------------
# Files


def test_write_and_load_roundtrip(tmp_path):
    path = tmp_path / "items.jsonl"
    rag.write_items([make_item(), single_item()], path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and "썸네일" in lines[0]              # UTF-8, not \u escapes
    assert list(json.loads(lines[0])) == list(rag.ITEM_FIELDS)
    assert rag.load_items(path) == [make_item(), single_item()]


def test_write_refuses_invalid_items(tmp_path):
    with pytest.raises(ValueError, match="unknown_type"):
        rag.write_items([make_item(type="x")], tmp_path / "x.jsonl")


def test_load_errors_name_file_line_and_item(tmp_path):
    path = tmp_path / "items.jsonl"
    bad = make_item(id="q-2", type="nonsense")
    path.write_text("\n".join([json.dumps(make_item(), ensure_ascii=False), "{not json",
                               json.dumps(bad, ensure_ascii=False), "[1, 2]",
                               json.dumps(make_item(), ensure_ascii=False)]) + "\n", encoding="utf-8")
    with pytest.raises(rag.EvalSetError) as info:
        rag.load_items(path)
    msg = str(info.value)
    assert f"{path}:2: invalid JSON" in msg
    assert f"{path}:3: item 'q-2': [unknown_type]" in msg
    assert f"{path}:4: each line must hold one item as a JSON object, got list" in msg
    assert f"{path}:5: item 'q-1': [duplicate_id] item already defined on line 1" in msg
    assert [e[0] for e in info.value.errors] == [2, 3, 4, 5]
    assert isinstance(info.value, FormatError)  # one error family with the TREC and collection readers


def test_load_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        rag.load_items(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------------------
# Metrics on hand-made rankings

# rank 1: unrelated doc; 2: an evidence doc (d1) but a chunk without its quote;
# 3: the alternative d3 holding quote 2; 4: the d1 chunk with quote 1; 5: d2.
RANKING = [
    {"doc_id": "d5", "text": "점심 메뉴"},
    {"doc_id": "d1", "text": "이 청크에는 인용이 없다"},
    {"doc_id": "d3", "text": "요약: thumbnail-worker 의 concurrency 8"},
    {"doc_id": "d1", "text": "썸네일이 밀리면 thumbnail-worker 큐 적체를 본다"},
    {"doc_id": "d2", "text": "| concurrency 8 |"},
]


def test_ranked_metrics_by_hand():
    m = rag.ranked_metrics(make_item(), RANKING, ks=(1, 2, 3, 4, 5))
    assert [m[f"DocHit@{k}"] for k in (1, 2, 3)] == [0.0, 1.0, 1.0]
    assert [m[f"AllDocs@{k}"] for k in (1, 2, 3, 5)] == [0.0, 0.0, 1.0, 1.0]     # alt d3 fills group {d2, d3}
    assert [m[f"EvidenceRecall@{k}"] for k in (1, 2, 3, 4)] == [0.0, 0.0, 0.5, 1.0]
    assert [m[f"AllEvidence@{k}"] for k in (3, 4)] == [0.0, 1.0]
    assert m["RR_doc"] == pytest.approx(1 / 2)
    assert m["RR_evidence"] == pytest.approx(1 / 3)


def test_quote_in_unrelated_document_counts_only_with_scope_any():
    ranking = [{"doc_id": "d5", "text": "복사본: thumbnail-worker 큐 적체"}] + RANKING[1:]
    scoped = rag.ranked_metrics(make_item(), ranking, ks=(1,))
    loose = rag.ranked_metrics(make_item(), ranking, ks=(1,), quote_scope="any")
    assert scoped["EvidenceRecall@1"] == 0.0 and scoped["RR_evidence"] == pytest.approx(1 / 3)
    assert loose["EvidenceRecall@1"] == 0.5 and loose["RR_evidence"] == 1.0
    assert loose["DocHit@1"] == 0.0                     # document metrics do not change
    with pytest.raises(ValueError, match="quote_scope"):
        rag.ranked_metrics(make_item(), ranking, quote_scope="anywhere")


def test_found_via_alt_id_only():
    ranking = [{"doc_id": "d1", "text": CORPUS["d1"]["text"]}, {"doc_id": "d3", "text": CORPUS["d3"]["text"]}]
    m = rag.ranked_metrics(make_item(), ranking, ks=(2,))
    assert m["AllDocs@2"] == 1.0 and m["AllEvidence@2"] == 1.0
    item = make_item()
    item["evidence"][1]["alt_doc_ids"] = []
    m = rag.ranked_metrics(item, ranking, ks=(2,))
    assert m["AllDocs@2"] == 0.0 and m["EvidenceRecall@2"] == 0.5


def test_empty_ranking_scores_zero():
    m = rag.ranked_metrics(make_item(), [], ks=(10,))
    assert all(v == 0.0 for v in m.values())


def test_set_metrics():
    s = rag.set_metrics(make_item(), [RANKING[0], RANKING[2]])
    assert s == {"DocHit": 1.0, "AllDocs": 0.0, "EvidenceRecall": 0.5, "AllEvidence": 0.0}
    assert rag.set_metrics(make_item(), RANKING) == {"DocHit": 1.0, "AllDocs": 1.0, "EvidenceRecall": 1.0,
                                                     "AllEvidence": 1.0}


def test_chunk_formats_and_errors():
    as_pairs = [(c["doc_id"], c["text"]) for c in RANKING]
    as_content = [{"doc_id": c["doc_id"], "content": c["text"], "rank": i} for i, c in enumerate(RANKING, 1)]
    expected = rag.ranked_metrics(make_item(), RANKING)
    assert rag.ranked_metrics(make_item(), as_pairs) == expected
    assert rag.ranked_metrics(make_item(), as_content) == expected
    with pytest.raises(ValueError, match="rank"):
        rag.ranked_metrics(make_item(), [{"doc_id": "d1", "text": "x", "rank": 2}])
    with pytest.raises(TypeError, match="doc_id"):
        rag.ranked_metrics(make_item(), [{"doc_id": "d1"}])
    with pytest.raises(TypeError):
        rag.ranked_metrics(make_item(), "d1 d2")
    with pytest.raises(ValueError, match="ks"):
        rag.ranked_metrics(make_item(), RANKING, ks=(0,))


def test_evaluate_items_and_missing_rankings():
    items = [make_item(), single_item()]
    df = rag.evaluate_items(items, {"q-1": RANKING, "q-s": RANKING[2:3]}, ks=(3, 5))
    assert list(df.index) == ["q-1", "q-s"] and df.index.name == "item_id"
    assert list(df.columns) == ["DocHit@3", "DocHit@5", "AllDocs@3", "AllDocs@5", "EvidenceRecall@3",
                                "EvidenceRecall@5", "AllEvidence@3", "AllEvidence@5", "RR_doc", "RR_evidence"]
    assert df.loc["q-1", "EvidenceRecall@3"] == 0.5 and df.loc["q-s", "AllEvidence@3"] == 1.0
    with pytest.raises(ValueError, match="no rankings for 1 item"):
        rag.evaluate_items(items, {"q-1": RANKING})
    zero = rag.evaluate_items(items, {"q-1": RANKING}, missing="empty")
    assert (zero.loc["q-s"] == 0).all()
    with pytest.raises(ValueError, match="unknown item ids"):
        rag.evaluate_items(items, {"q-1": RANKING, "q-s": [], "q-x": []})
    sets = rag.evaluate_sets(items, {"q-1": RANKING[:2], "q-s": RANKING})
    assert sets.loc["q-1"].tolist() == [1.0, 0.0, 0.0, 0.0] and sets.loc["q-s", "AllEvidence"] == 1.0


def test_breakdown_values():
    items = [make_item(id="a", tags=["x"]), make_item(id="b", type="comparison", tags=["x", "y"]),
             single_item(id="c", tags=["y"])]
    per = pd.DataFrame({"AllEvidence@10": [1.0, 0.0, 1.0], "RR_doc": [1.0, 0.5, 0.25]}, index=["a", "b", "c"])
    out = rag.breakdown(items, per)
    assert list(out.index) == ["ALL", "single", "composite", "type:single", "type:bridge", "type:comparison",
                               "tag:x", "tag:y"]
    assert list(out.columns) == ["n", "AllEvidence@10", "MRR_doc"]
    assert out.loc["ALL", "n"] == 3 and out.loc["ALL", "AllEvidence@10"] == pytest.approx(2 / 3)
    assert out.loc["composite", "MRR_doc"] == pytest.approx(0.75)
    assert out.loc["tag:y", "AllEvidence@10"] == pytest.approx(0.5) and out.loc["tag:y", "n"] == 2
    with pytest.raises(ValueError, match="lack"):
        rag.breakdown(items, per.drop("c"))
    with pytest.raises(ValueError, match="not items"):
        rag.breakdown(items[:2], per)


def test_item_counts():
    c = rag.item_counts([make_item(), single_item(), make_item(id="q-2", query_style="typo")])
    assert c["kind"].to_dict() == {"single": 1, "composite": 2}
    assert c["type"]["bridge"] == 2 and c["type"]["temporal"] == 0
    assert c["query_style"].to_dict() == {"natural": 2, "typo": 1, "keywords": 0}
    assert c["tag"].to_dict() == {"multi_hop": 2}


# ---------------------------------------------------------------------------
# Repeated measurement


def runs_from(matrix, ids, column="AllEvidence@10"):
    """One per-item DataFrame per row of matrix (rows = runs)."""
    return [pd.DataFrame({column: row}, index=pd.Index(ids, name="item_id")) for row in matrix]


def test_run_summary_and_item_means():
    ids = ["a", "b", "c", "d"]
    runs = runs_from([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]], ids)
    summary = rag.run_summary(runs)
    row = summary.loc["AllEvidence@10"]
    assert row["mean"] == pytest.approx(0.5) and row["min"] == 0.25 and row["max"] == 0.75 and row["runs"] == 3
    means = rag.item_means(runs)
    assert means["AllEvidence@10"].tolist() == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    shuffled = [r.loc[["d", "c", "b", "a"]] for r in runs]        # order of rows does not matter
    assert rag.item_means(shuffled).loc["b", "AllEvidence@10"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="other items"):
        rag.run_summary(runs + runs_from([[1, 1, 1]], ids[:3]))
    with pytest.raises(ValueError, match="no runs"):
        rag.run_summary([])


@pytest.mark.parametrize("up, down, ties", [(35, 15, 5), (25, 24, 0), (0, 0, 3), (7, 1, 2)])
def test_sign_test_runs_matches_exact_binomial(up, down, ties):
    n = up + down + ties
    ids = [f"q{i}" for i in range(n)]
    before = [0.5] * n
    after = [0.75] * up + [0.25] * down + [0.5] * ties
    res = rag.sign_test_runs(runs_from([before, before], ids), runs_from([after, after], ids), "AllEvidence@10")
    assert (res.up, res.down, res.ties) == (up, down, ties)
    expected = 1.0 if up + down == 0 else binomtest(up, up + down, 0.5).pvalue
    assert res.p_value == pytest.approx(expected)


def test_sign_test_values_from_the_source_article():
    # 35 up / 15 down -> p about 0.007; 25 / 24 -> p = 1.0 (seed 003)
    ids = [f"q{i}" for i in range(50)]
    res = rag.sign_test_runs(runs_from([[0] * 50], ids), runs_from([[1] * 35 + [-1] * 15], ids), "AllEvidence@10")
    assert round(res.p_value, 3) == 0.007
    with pytest.raises(KeyError, match="RR_doc"):
        rag.sign_test_runs(runs_from([[0] * 50], ids), runs_from([[1] * 50], ids), "RR_doc")
    with pytest.raises(ValueError, match="different items"):
        rag.sign_test_runs(runs_from([[0] * 50], ids), runs_from([[1] * 49], ids[:49]), "AllEvidence@10")


# ---------------------------------------------------------------------------
# Grading records


def grading(item=None, verdicts=("yes", "partial"), **overrides):
    """A grading record for make_item() (facts copied from the item)."""
    item = item or make_item()
    rec = {
        "run": "r1",
        "id": item["id"],
        "answer": "thumbnail-worker가 처리합니다.",
        "must_have": [{"fact": f, "verdict": v, "wrong": ""} for f, v in zip(item["must_have"], verdicts)],
        "correctness": "partial",
        "faithfulness": "faithful",
        "unsupported_claims": [],
        "notes": "",
    }
    rec.update(overrides)
    return rec


def test_valid_grading_record():
    assert rag.validate_gradings([grading()], [make_item()]) == []


def test_grading_with_wrong_count_order_or_text_is_refused():
    item = make_item()
    short = grading()
    short["must_have"] = short["must_have"][:1]
    swapped = grading()
    swapped["must_have"] = swapped["must_have"][::-1]
    edited = grading()
    edited["must_have"][1]["fact"] = "동시 실행 수 여덟"
    assert codes(rag.validate_gradings([short], [item])) == ["fact_count"]
    assert codes(rag.validate_gradings([swapped], [item])) == ["fact_order"]
    probs = rag.validate_gradings([edited], [item])
    assert codes(probs) == ["fact_mismatch"] and "must_have[1]" in probs[0].message


@pytest.mark.parametrize("overrides, code", [
    ({"correctness": "mostly"}, "bad_correctness"),
    ({"faithfulness": "ok"}, "bad_faithfulness"),
    ({"correctness": "correct"}, "inconsistent"),                                  # a partial verdict
    ({"unsupported_claims": ["x"]}, "inconsistent"),                               # faithful with claims
    ({"faithfulness": "major", "unsupported_claims": list("abcdef")}, "too_many_claims"),
    ({"score": 1}, "unknown_field"),
    ({"correctness": 1}, "wrong_type"),
])
def test_grading_label_problems(overrides, code):
    assert code in codes(rag.validate_gradings([grading(**overrides)], [make_item()]))


def test_grading_verdict_unknown_item_duplicates_missing_fields():
    assert "bad_verdict" in codes(rag.validate_gradings([grading(verdicts=("yes", "maybe"))], [make_item()]))
    assert codes(rag.validate_gradings([grading(id="q-x")], [make_item()])) == ["unknown_item"]
    assert codes(rag.validate_gradings([grading(), grading()], [make_item()])) == ["duplicate_id"]
    assert rag.validate_gradings([grading(), grading(run="r2")], [make_item()]) == []
    rec = grading()
    del rec["faithfulness"]
    assert "missing_field" in codes(rag.validate_gradings([rec], [make_item()]))


def test_grading_scores_and_aggregate():
    items = [make_item(), single_item()]
    recs = [
        grading(verdicts=("yes", "partial")),                                          # 0.75
        grading(item=items[1], verdicts=("no",), correctness="incorrect", faithfulness="major",
                unsupported_claims=["동시 실행 수 16"]),                                 # 0.0
        grading(run="r2", verdicts=("yes", "yes"), correctness="correct", faithfulness="minor",
                unsupported_claims=["일반 상식"]),                                       # 1.0
    ]
    scores = rag.grading_scores(recs, items)
    assert scores["must_have_recall"].tolist() == [0.75, 0.0, 1.0]
    assert scores["correctness"].tolist() == [0.5, 0.0, 1.0]
    agg = rag.aggregate_gradings(recs, items)
    assert agg["n"] == 3
    assert agg["MustHaveRecall"] == pytest.approx((0.75 + 0.0 + 1.0) / 3)
    assert agg["Correctness"] == pytest.approx(0.5)
    assert [agg[f"faithfulness:{k}"] for k in rag.FAITHFULNESS_LABELS] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    no_answer = grading(verdicts=("no", "no"), correctness="no_answer")
    assert rag.grading_scores([no_answer])["correctness"].tolist() == [0.0]
    with pytest.raises(ValueError, match="fact_count"):
        bad = grading()
        bad["must_have"].pop()
        rag.aggregate_gradings([bad], items)
    with pytest.raises(ValueError, match="no grading records"):
        rag.aggregate_gradings([], items)


def test_gradings_file_roundtrip_and_errors(tmp_path):
    path = tmp_path / "g.jsonl"
    rag.write_gradings([grading()], path)
    assert rag.load_gradings(path) == [grading()]
    path.write_text(json.dumps(grading(), ensure_ascii=False) + "\n"
                    + json.dumps(grading(correctness="wrong"), ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(rag.EvalSetError) as info:
        rag.load_gradings(path)
    assert f"{path}:2: item 'q-1': [bad_correctness]" in str(info.value)
    with pytest.raises(ValueError):
        rag.write_gradings([grading(faithfulness="?")], path)
