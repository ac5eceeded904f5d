"""The book's own evaluation set (data/evalset): it loads, validates against KorQuAD, and meets the set's rules."""
import importlib.util
import json
import re
from pathlib import Path

import pytest

from searchgrade import rag
from searchgrade.retrieval import BM25Okapi

ROOT = Path(__file__).resolve().parents[2]
EVALSET = ROOT / "data" / "evalset"
KORQUAD = ROOT / "data" / "raw" / "korquad" / "KorQuAD_v1.0_dev.json"


def read_korquad_paragraphs(path=KORQUAD):
    """KorQuAD dev paragraphs as documents: korquad-{a:03d}-{p:02d}; a repeated text keeps its first id."""
    corpus, first = {}, {}
    for a, article in enumerate(json.loads(Path(path).read_text(encoding="utf-8"))["data"]):
        for p, par in enumerate(article["paragraphs"]):
            text = par["context"]
            if text not in first:
                first[text] = f"korquad-{a:03d}-{p:02d}"
                corpus[first[text]] = {"title": article["title"], "text": text}
    return corpus


@pytest.fixture(scope="module")
def corpus():
    """The collection through the shared loader (searchgrade.collections)."""
    from searchgrade.collections import load_korquad

    return load_korquad().corpus


@pytest.fixture(scope="module")
def items():
    return rag.load_items(EVALSET / "items.jsonl")


@pytest.fixture(scope="module")
def maintain():
    spec = importlib.util.spec_from_file_location("evalset_maintain", EVALSET / "maintain.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shared_loader_uses_the_same_document_ids(corpus):
    local = read_korquad_paragraphs()
    assert len(local) == 961
    assert {d: (v["title"], v["text"]) for d, v in corpus.items()} == \
        {d: (v["title"], v["text"]) for d, v in local.items()}


def test_size_composite_share_types_and_styles(items):
    assert len(items) >= 80
    composite = sum(rag.is_composite(it) for it in items)
    assert composite / len(items) >= 0.70
    assert {it["type"] for it in items} == set(rag.TYPES)
    assert {it["query_style"] for it in items} == set(rag.QUERY_STYLES)
    assert len({it["id"] for it in items}) == len(items)


def test_every_item_passes_the_validator(items, corpus):
    problems = rag.validate(items, corpus)
    assert problems == [], "\n".join(map(str, problems))


def test_no_single_paragraph_holds_all_quotes_of_a_composite_item(items, corpus):
    # stronger than the single-chunk check: no paragraph of the whole collection contains every quote
    texts = {d: rag.normalise(v["text"]) for d, v in corpus.items()}
    for it in items:
        if rag.is_composite(it):
            quotes = [q for q, _ in rag.gold(it).quotes]
            holders = [d for d, t in texts.items() if all(q in t for q in quotes)]
            assert holders == [], f"{it['id']}: all quotes in {holders}"


def _bigrams(text):
    """Character bigrams inside each run of letters and digits (a single character stays a unigram)."""
    out = []
    for run in re.findall(r"\w+", text.lower()):
        out += [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
    return out


def test_single_chunk_check_with_bm25(items, corpus):
    ids = list(corpus)
    bm25 = BM25Okapi([_bigrams(corpus[d]["title"] + " " + corpus[d]["text"]) for d in ids])

    def retrieve(question, k):
        idx, _ = bm25.top_k(_bigrams(question), k)
        return [{"doc_id": ids[i], "text": corpus[ids[i]]["text"]} for i in idx]

    problems = rag.validate(items, corpus, retrieve=retrieve, k=10)
    assert problems == [], "\n".join(map(str, problems))
    # the rankings are real: BM25 finds some evidence document in its top 10 for most items
    runs = {it["id"]: retrieve(it["user_input"], 10) for it in items}
    per_item = rag.evaluate_items(items, runs, ks=(10,))
    assert per_item["DocHit@10"].mean() > 0.5


def test_reference_contexts_are_the_quotes(items):
    for it in items:
        assert it["reference_contexts"] == [e["quote"] for e in it["evidence"]], it["id"]


def _article(doc_id):
    return doc_id.rsplit("-", 1)[0]


def test_computed_tags_hold(items):
    for it in items:
        docs = {d for e in it["evidence"] for d in [e["doc_id"], *e["alt_doc_ids"]]}
        cross = len({_article(e["doc_id"]) for e in it["evidence"]}) >= 2
        assert ("cross_article" in it["tags"]) == cross, it["id"]
        has_alt = any(e["alt_doc_ids"] for e in it["evidence"])
        assert ("duplicate_fact" in it["tags"]) == has_alt, it["id"]
        if "multi_hop" in it["tags"]:
            assert rag.is_composite(it) and len(docs) >= 2, it["id"]


def test_location_hint_items_need_the_title(items, corpus):
    tagged = [it for it in items if "location_hint" in it["tags"]]
    assert tagged
    for it in tagged:
        lacking = []
        for e in it["evidence"]:
            name = re.sub(r"_\(.*\)$", "", e["title"]).replace("_", " ")
            if rag.normalise(name) not in rag.normalise(corpus[e["doc_id"]]["text"]):
                lacking.append(e["doc_id"])
        assert lacking, f"{it['id']}: every evidence paragraph names its article"


def test_query_styles_look_right(items):
    for it in items:
        q = it["user_input"]
        if it["query_style"] == "keywords":
            assert not q.rstrip().endswith(("?", "요", ".")), it["id"]
        else:
            assert len(q.split()) >= 3, it["id"]


def test_readme_counts_are_current(items, maintain):
    text = (EVALSET / "README.md").read_text(encoding="utf-8")
    assert maintain.readme_block(text) == maintain.counts_block(items)


def test_hand_gradings(items):
    records = rag.load_gradings(EVALSET / "gradings.jsonl")
    assert len(records) >= 6
    assert rag.validate_gradings(records, items) == []
    for r in records:
        assert "one AI coding session" in r["answer_by"] and "AI coding session" in r["graded_by"]
    labels = {r["correctness"] for r in records}
    assert {"correct", "partial", "incorrect", "no_answer"} <= labels
    verdicts = {v["verdict"] for r in records for v in r["must_have"]}
    assert verdicts == {"yes", "partial", "no"}
    agg = rag.aggregate_gradings(records, items)
    scores = rag.grading_scores(records, items)
    assert agg["n"] == len(records)
    assert agg["MustHaveRecall"] == pytest.approx(scores["must_have_recall"].mean())
    assert sum(agg[f"faithfulness:{k}"] for k in rag.FAITHFULNESS_LABELS) == pytest.approx(1.0)


def test_maintain_check_passes(maintain, capsys):
    assert maintain.main(["check"]) == 0
    assert "0 problem(s)" in capsys.readouterr().out
