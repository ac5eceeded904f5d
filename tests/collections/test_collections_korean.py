"""Tests for searchgrade.collections (the Korean loaders and BEIR): the real Korean collections' counts and a BEIR folder, good and bad."""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from searchgrade import collections as ck
from searchgrade.collections import Collection, CollectionFormatError

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"


# ---------------------------------------------------------------- KorQuAD


@pytest.fixture(scope="module")
def korquad():
    return ck.load_korquad()


def test_korquad_counts(korquad):
    assert isinstance(korquad, Collection)
    assert korquad.name == "korquad-dev"
    assert len(korquad.queries) == 5774
    assert len(korquad.corpus) == 961
    assert korquad.meta["paragraphs"] == 964
    assert korquad.meta["articles"] == 140
    assert sum(len(r) for r in korquad.qrels.values()) == 5774
    assert all(list(r.values()) == [1] for r in korquad.qrels.values())
    assert set(korquad.qrels) == set(korquad.queries)


def test_korquad_docid_scheme(korquad):
    first = next(iter(korquad.corpus))
    assert first == "korquad-000-00"
    assert korquad.corpus[first]["title"] == "임종석"
    # the first question of the file asks about the first paragraph
    assert korquad.queries["6548850-0-0"].startswith("임종석이 여의도 농민 폭력 시위를 주도한")
    assert korquad.qrels["6548850-0-0"] == {"korquad-000-00": 1}
    assert korquad.meta["answers"]["6548850-0-0"] == ["1989년 2월 15일"]
    assert all(len(d) == len("korquad-000-00") for d in korquad.corpus)


def test_korquad_duplicates_map_to_first(korquad):
    dups = korquad.meta["duplicates"]
    assert [(d["docid"], d["same_as"]) for d in dups] == [
        ("korquad-068-04", "korquad-068-03"),
        ("korquad-068-05", "korquad-068-03"),
        ("korquad-125-46", "korquad-125-36"),
    ]
    for d in dups:
        assert d["docid"] not in korquad.corpus
    judged = Counter(doc for row in korquad.qrels.values() for doc in row)
    # questions of the duplicate paragraphs (2 + 14, 10) are judged against the first occurrence
    assert judged["korquad-068-03"] >= 16
    assert len(set(d["text"] for d in korquad.corpus.values())) == 961


def test_korquad_answers_are_in_gold_paragraph(korquad):
    for qid, row in korquad.qrels.items():
        (docid,) = row
        text = korquad.corpus[docid]["text"]
        for answer, start in zip(korquad.meta["answers"][qid], korquad.meta["answer_starts"][qid]):
            assert text[start:start + len(answer)] == answer


def test_korquad_bad_json_names_line(tmp_path):
    folder = tmp_path / "korquad"
    folder.mkdir()
    (folder / "KorQuAD_v1.0_dev.json").write_text('{"version": "x",\n "data": [\n  {"title": "a",, }]}', encoding="utf-8")
    with pytest.raises(CollectionFormatError, match=r"KorQuAD_v1.0_dev.json:3: invalid JSON"):
        ck.load_korquad(tmp_path)


def test_korquad_duplicate_question_id(tmp_path):
    folder = tmp_path / "korquad"
    folder.mkdir()
    qa = {"id": "x-1", "question": "무엇?", "answers": [{"text": "가", "answer_start": 0}]}
    data = {"data": [{"title": "t", "paragraphs": [{"context": "가나다", "qas": [qa, qa]}]}]}
    (folder / "KorQuAD_v1.0_dev.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CollectionFormatError, match="question id x-1 occurs twice"):
        ck.load_korquad(tmp_path)


# ---------------------------------------------------------------- AutoRAG


def test_autorag_counts():
    c = ck.load_autorag()
    assert (len(c.corpus), len(c.queries)) == (720, 114)
    assert all(len(row) == 1 for row in c.qrels.values())
    assert set(c.qrels) == set(c.queries)
    for docid, doc in c.corpus.items():
        assert not any(ch.isspace() for ch in docid)
        assert doc["title"] == ""
        assert c.meta["original_ids"][docid] == doc["source"]
    assert c.qrels["0_finance"] == {"finance_-_지방은행_시중은행_전환_가이드.pdf_-_4": 1}
    # the files hold four domains (the MTEB card speaks of five)
    assert c.meta["domains"] == ["commerce", "finance", "law", "public"]
    assert Counter(q.split("_", 1)[1] for q in c.queries) == {"law": 37, "public": 29, "commerce": 26, "finance": 22}
    assert all(c.meta["answers"][q] for q in c.queries)


# ---------------------------------------------------------------- Ko-StrategyQA


@pytest.fixture(scope="module")
def strategyqa():
    return ck.load_ko_strategyqa_dev()


def test_strategyqa_matches_mteb_statistics(strategyqa):
    s = ck.qrels_statistics(strategyqa)
    assert s["queries"] == 592
    assert s["distinct_query_texts"] == 592
    assert s["judgments"] == 1145
    assert s["relevant_docs"] == 1077
    assert (s["relevant_min"], round(s["relevant_mean"], 4), s["relevant_max"]) == (1, 1.9341, 7)
    assert (s["query_chars_min"], round(s["query_chars_mean"], 3), s["query_chars_max"]) == (10, 22.753, 60)
    assert strategyqa.corpus == {}
    assert "not available" in strategyqa.meta["corpus_note"]
    assert len(strategyqa.meta["relevant_paragraphs"]) == 1077


def test_strategyqa_steps(strategyqa):
    steps = strategyqa.meta["steps"]
    assert set(steps) == set(strategyqa.queries)
    for qid, info in steps.items():
        assert qid == f"{info['question_id']}-{info['step']}"
        assert 1 <= info["step"] <= info["steps"]
    # the first dev question (tomato peeling): every step has an annotator's no_evidence or operation
    assert not any(q.startswith("88675643c5f299344f36-") for q in strategyqa.queries)
    assert strategyqa.queries["5c27625de0e7c35be856-1"] == "토니 베넷의 중간 이름은 무엇인가요?"
    assert strategyqa.qrels["a895b73bdfb2397b2e27-1"] == {"Friday the 13th-1": 1, "Friday the 13th-25": 1}


def test_strategyqa_back_references(strategyqa):
    refer = {q for q, info in strategyqa.meta["steps"].items() if info["refers_to"]}
    assert len(refer) == 71
    assert all(strategyqa.meta["steps"][q]["step"] > 1 for q in refer)


@pytest.mark.parametrize("text,step,expected", [
    ("1번은 어떤 신화의 일부인가요?", 2, [1]),
    ("어느 시기에 #1이 처음 출판되었나요?", 2, [1]),
    ("2번과 3번은 양성인가요?", 4, [2, 3]),
    ("1위는 어느 나라 출신인가요?", 2, [1]),
    ("2는 어느 나무 그룹에서 얻나요?", 3, [2]),
    ("플레이스테이션 4는 몇 년도에 출시되었나요?", 2, []),
    ("하이스피드 1 철도의 길이는 얼마나 되나요?", 2, []),
    ("10번째 닥터는 누구인가요?", 3, []),
    ("2015년에는 13일의 금요일이 몇 번 있었나요?", 2, []),
])
def test_back_references(text, step, expected):
    assert ck.back_references(text, step) == expected


def test_strategyqa_drop_rule(tmp_path):
    folder = tmp_path / "ko_strategyqa"
    folder.mkdir()
    data = {"qa": {
        "question": "질문?",
        "decomposition": ["첫 단계?", "1번은 무엇?", "셋째?"],
        "evidence": [
            [[["A-1"]], [["B-1"], "operation"], [["C-1"]]],
            [[["A-2", "A-1"]], [["B-2"]], ["no_evidence"]],
            [[["A-3"]], [["B-3"]], [["C-3"]]],
        ],
    }}
    (folder / "ko-strategy-qa_dev.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    c = ck.load_ko_strategyqa_dev(tmp_path)
    assert c.queries == {"qa-1": "첫 단계?"}
    assert c.qrels == {"qa-1": {"A-1": 1, "A-2": 1, "A-3": 1}}
    assert c.meta["dropped_steps"] == {"no_evidence or operation": 2}


def test_strategyqa_bad_marker(tmp_path):
    folder = tmp_path / "ko_strategyqa"
    folder.mkdir()
    data = {"qa": {"decomposition": ["a?"], "evidence": [[["no-evidence"]]]}}
    (folder / "ko-strategy-qa_dev.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CollectionFormatError, match="unknown marker 'no-evidence'"):
        ck.load_ko_strategyqa_dev(tmp_path)


def test_trec_safe_ids(strategyqa):
    safe, renamed = ck.trec_safe_ids(strategyqa)
    assert safe.qrels["a895b73bdfb2397b2e27-1"] == {"Friday_the_13th-1": 1, "Friday_the_13th-25": 1}
    assert renamed["Friday_the_13th-25"] == "Friday the 13th-25"
    assert sum(len(r) for r in safe.qrels.values()) == 1145
    clash = Collection("x", {"a b": {"title": "", "text": "1"}, "a_b": {"title": "", "text": "2"}}, {}, {})
    with pytest.raises(ValueError, match="both become 'a_b'"):
        ck.trec_safe_ids(clash)


# ---------------------------------------------------------------- BEIR


def test_beir_fixture():
    c = ck.load_beir(FIXTURE)
    assert c.name == "beir_small"
    assert len(c.corpus) == 6
    assert list(c.queries) == ["q1", "q2", "q3", "q4"]
    assert c.qrels["q2"] == {"d3": 2, "d5": 0}
    assert c.corpus["d1"] == {"title": "토마토", "text": "토마토 껍질을 벗기려면 끓는 물에 잠깐 데친 뒤 얼음물에 넣는다."}
    assert c.meta["queries_not_in_split"] == 1
    dev = ck.load_beir(FIXTURE, split="dev")
    assert list(dev.queries) == ["q5"]
    assert ck.load("beir", folder=FIXTURE).qrels == c.qrels


def test_beir_missing_split():
    with pytest.raises(FileNotFoundError, match="qrels splits here: dev, test"):
        ck.load_beir(FIXTURE, split="train")


def _copy(tmp_path: Path) -> Path:
    dest = tmp_path / "beir"
    shutil.copytree(FIXTURE, dest)
    return dest


def _replace_line(path: Path, lineno: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[lineno - 1] = text
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize("file,lineno,text,message", [
    ("corpus.jsonl", 3, '{"_id": "d3", "text": "broken', r"corpus.jsonl:3: invalid JSON"),
    ("corpus.jsonl", 4, '{"_id": "d2", "title": "", "text": "again"}', r"corpus.jsonl:4: document id 'd2' duplicated \(first on line 2\)"),
    ("corpus.jsonl", 2, '{"title": "", "text": "no id"}', r"corpus.jsonl:2: missing key '_id'"),
    ("corpus.jsonl", 2, '["_id", "d2"]', r"corpus.jsonl:2: expected a JSON object"),
    ("queries.jsonl", 2, '{"_id": "q1", "text": "same id"}', r"queries.jsonl:2: query id 'q1' duplicated"),
    ("queries.jsonl", 1, '{"_id": "q1", "text": 5}', r"queries.jsonl:1: 'text' is not a string"),
    ("qrels/test.tsv", 2, "q1\td99\t1", r"test.tsv:2: document 'd99' is not in corpus.jsonl"),
    ("qrels/test.tsv", 3, "q99\td3\t1", r"test.tsv:3: query 'q99' is not in queries.jsonl"),
    ("qrels/test.tsv", 4, "q2 d5 0", r"test.tsv:4: expected 3 tab-separated fields"),
    ("qrels/test.tsv", 5, "q3\td2\tyes", r"test.tsv:5: score 'yes' is not an integer"),
    ("qrels/test.tsv", 5, "q1\td1\t1", r"test.tsv:5: query 'q1' judges document 'd1' twice"),
    ("qrels/test.tsv", 1, "qid\tdocid\tscore", r"test.tsv:1: expected the header"),
])
def test_beir_bad_input(tmp_path, file, lineno, text, message):
    folder = _copy(tmp_path)
    _replace_line(folder / file, lineno, text)
    with pytest.raises(CollectionFormatError, match=message):
        ck.load_beir(folder)


def test_beir_ids_with_spaces_are_counted(tmp_path):
    folder = _copy(tmp_path)
    _replace_line(folder / "corpus.jsonl", 1, '{"_id": "d 1", "title": "", "text": "x"}')
    _replace_line(folder / "qrels/test.tsv", 2, "q1\td 1\t1")
    c = ck.load_beir(folder)
    assert c.meta["ids_with_whitespace"] == 1
    assert c.qrels["q1"] == {"d 1": 1}
