"""Tests for the relevance judges of searchgrade.judges (answer containment, embedding similarity, hole filling,
agreement with labels) and for the committed labelled KorQuAD sample."""
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from searchgrade.retrieval import dense
from searchgrade.collections import Collection
from searchgrade.judges import (
    GRADES,
    RUBRIC,
    AnswerJudge,
    EmbeddingJudge,
    LabelFileError,
    add_judgments,
    agreement,
    answer_spread,
    choose_threshold,
    draw_label_sample,
    easy_pairs,
    fill_holes,
    holes,
    make_judge,
    normalise_text,
    read_labels,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "data" / "labels" / "korquad_relevance.jsonl"

# A tiny hand-made collection in the KorQuAD mould: questions keep their answer texts.
CORPUS = {
    "bugs": {"title": "벅스 버니", "text": "벅스 버니는 1940년 단편 애니메이션에서 데뷔한 토끼 캐릭터이다."},
    "burger": {"title": "버거킹", "text": "버거킹은 1953년 미국 플로리다에서 세워진 햄버거 체인이다."},
    "looney": {"title": "루니 툰", "text": "루니 툰은 워너 브라더스의 애니메이션 시리즈로, 여러 캐릭터가 나온다."},
    "seoul": {"title": "서울", "text": "서울은 대한민국의 수도이며 한강이 도시를 가로지른다."},
}
QUERIES = {
    "q_bugs": "벅스 버니는 언제 처음 등장했나요?",
    "q_burger": "버거킹은 몇 년에 세워졌나요?",
    "q_seoul": "대한민국의 수도는 어디인가?",
}
ANSWERS = {"q_bugs": ["1940년"], "q_burger": ["1953년"], "q_seoul": ["서울"]}
QRELS = {"q_bugs": {"bugs": 1}, "q_burger": {"burger": 1}, "q_seoul": {"seoul": 1}}
TOY = Collection("toy", CORPUS, QUERIES, QRELS, {"answers": ANSWERS})


class FakeEncoder(dense.Encoder):
    """Deterministic 'embeddings': one coordinate per topic word, so cosines are known by hand."""

    name = "fake"
    TOPICS = ("벅스", "버거킹", "서울", "애니메이션")

    def settings(self):
        return {"model": "fake", "topics": list(self.TOPICS)}

    def _embed(self, texts, side):
        return np.array([[1.0 if t in text else 0.0 for t in self.TOPICS] + [0.1] for text in texts])


def fake_judge(threshold=0.5, related=None):
    return EmbeddingJudge(FakeEncoder(), QUERIES, CORPUS, threshold, related, progress=False)


# ---------------------------------------------------------------- the rubric

def test_rubric_has_the_three_grades():
    assert GRADES == (0, 1, 2) and set(RUBRIC) == {0, 1, 2}


def test_normalise_text_folds_case_space_and_unicode_forms():
    import unicodedata

    nfd = unicodedata.normalize("NFD", "한국 BBC")
    assert normalise_text(f"  {nfd}\n\t뉴스 ") == "한국 bbc 뉴스"


# ---------------------------------------------------------------- answer judge

def test_answer_judge_finds_the_answer_and_is_fooled_by_it():
    judge = AnswerJudge(ANSWERS, CORPUS)
    assert judge.judge("q_bugs", "bugs") == 2
    assert judge.judge("q_bugs", "burger") == 0
    assert judge.judge("q_bugs", "looney") == 0
    # The trap: "서울" occurs in the Seoul paragraph only; but a year answer would match any paragraph with that year.
    trap = AnswerJudge({"q_bugs": ["19"]}, CORPUS)
    assert trap.judge_many([("q_bugs", "bugs"), ("q_bugs", "burger"), ("q_bugs", "seoul")]).tolist() == [2, 2, 0]


def test_answer_judge_matches_across_whitespace_and_title():
    corpus = {"d": {"title": "한국 방송", "text": "설립  연도는\n1961년 이다"}}
    judge = AnswerJudge({"q": ["1961년", "없는 답"]}, corpus)
    assert judge.judge("q", "d") == 2
    assert AnswerJudge({"q": ["한국 방송"]}, corpus).judge("q", "d") == 2  # the title counts
    assert AnswerJudge({"q": ["한국 방송"]}, corpus, fields=("text",)).judge("q", "d") == 0


def test_answer_judge_batch_equals_single_calls():
    judge = make_judge("answer", TOY)
    pairs = [(q, d) for q in QUERIES for d in CORPUS]
    assert judge.judge_many(pairs).tolist() == [judge.judge(q, d) for q, d in pairs]
    assert judge.judge_many([]).tolist() == []


def test_answer_spread_counts_documents_with_the_answer():
    spread = answer_spread({"a": ["19"], "b": ["1940년"], "c": ["없음"], "d": ["서울", "한강"]}, CORPUS)
    assert spread.to_dict() == {"a": 2, "b": 1, "c": 0, "d": 1}
    assert spread.index.name == "qid"


def test_answer_spread_agrees_with_the_answer_judge():
    rng = np.random.default_rng(3)
    words = ["가", "나", "다", "1990년", "라마"]
    corpus = {f"d{i}": {"title": "", "text": " ".join(rng.choice(words, 6))} for i in range(30)}
    answers = {f"q{j}": [str(rng.choice(words))] for j in range(8)}
    judge = AnswerJudge(answers, corpus)
    spread = answer_spread(answers, corpus)
    for q in answers:
        assert spread[q] == sum(judge.judge(q, d) == 2 for d in corpus)


# ---------------------------------------------------------------- embedding judge

def test_embedding_judge_thresholds(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path))
    judge = fake_judge(threshold=0.9, related=0.5)
    sims = judge.similarity([("q_bugs", "bugs"), ("q_bugs", "looney"), ("q_bugs", "seoul")])
    # q_bugs = (1,0,0,0,.1); bugs doc = (1,0,0,1,.1); looney = (0,0,0,1,.1); seoul = (0,0,1,0,.1)
    q = np.array([1, 0, 0, 0, .1]); q /= np.linalg.norm(q)
    expect = []
    for v in ([1, 0, 0, 1, .1], [0, 0, 0, 1, .1], [0, 0, 1, 0, .1]):
        v = np.array(v, float)
        expect.append(q @ (v / np.linalg.norm(v)))
    np.testing.assert_allclose(sims, expect, rtol=1e-6)
    assert sims[0] == pytest.approx(1.01 / np.sqrt(1.01 * 2.01))
    # q_burger and the Burger King paragraph share their only topic word: cosine 1
    assert judge.judge_many([("q_bugs", "bugs"), ("q_bugs", "looney"), ("q_burger", "burger")]).tolist() == [1, 0, 2]
    looser = judge.with_threshold(0.7)
    assert looser.judge("q_bugs", "bugs") == 2 and judge.judge("q_bugs", "bugs") == 1
    assert looser._shared is judge._shared  # embeddings are shared, not recomputed


def test_make_judge_embedding_needs_a_threshold():
    with pytest.raises(ValueError, match="needs a threshold"):
        make_judge("embedding", TOY, encoder=FakeEncoder())


@pytest.mark.parametrize("bad", [1.5, -1.01, math.nan, math.inf])
def test_threshold_outside_its_range_is_refused(bad):
    with pytest.raises(ValueError, match="outside \\[-1, 1\\]"):
        fake_judge(threshold=bad)


def test_threshold_of_the_wrong_type_and_inverted_thresholds_are_refused():
    with pytest.raises(TypeError, match="must be a number"):
        fake_judge(threshold="0.5")
    with pytest.raises(TypeError, match="must be a number"):
        fake_judge(threshold=True)
    with pytest.raises(ValueError, match="related_threshold.*outside \\[-1, 0.5\\]"):
        fake_judge(threshold=0.5, related=0.8)
    with pytest.raises(ValueError, match="outside"):
        fake_judge().with_threshold(2.0)


# ---------------------------------------------------------------- bad input

def test_unknown_judge_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown judge 'llm'.*answer, embedding"):
        make_judge("llm", TOY)


def test_answer_judge_needs_answers():
    with pytest.raises(ValueError, match="keeps no answer texts"):
        make_judge("answer", Collection("bare", CORPUS, QUERIES, QRELS, {}))
    with pytest.raises(ValueError, match="'q'.*non-empty list"):
        AnswerJudge({"q": []}, CORPUS)
    with pytest.raises(ValueError, match="'q'.*non-empty list"):
        AnswerJudge({"q": "1940년"}, CORPUS)
    with pytest.raises(ValueError, match="empty after normalisation"):
        AnswerJudge({"q": ["  "]}, CORPUS)


def test_mismatched_ids_are_refused_with_the_pair_named():
    judge = AnswerJudge(ANSWERS, CORPUS)
    with pytest.raises(ValueError, match="pair 1: question 'q_nope' is not among the 3 questions"):
        judge.judge_many([("q_bugs", "bugs"), ("q_nope", "bugs")])
    with pytest.raises(ValueError, match="pair 0: document 'korquad-000-00' is not among the 4 documents"):
        judge.judge("q_bugs", "korquad-000-00")
    with pytest.raises(TypeError, match="not a single pair"):
        judge.judge_many(("q_bugs", "bugs"))
    with pytest.raises(TypeError, match="pair 0: expected \\(qid, docid\\)"):
        judge.judge_many([("q_bugs", "bugs", "extra")])


def test_empty_samples_are_refused():
    with pytest.raises(ValueError, match="empty sample"):
        agreement([], [])
    with pytest.raises(ValueError, match="positive is empty"):
        choose_threshold([], [0.1])
    with pytest.raises(ValueError, match="negative is empty"):
        choose_threshold([0.9], [])
    with pytest.raises(ValueError, match="label sample is empty"):
        validate(AnswerJudge(ANSWERS, CORPUS), pd.DataFrame(columns=["qid", "docid", "label", "source"]))


# ---------------------------------------------------------------- thresholds

def test_choose_threshold_separates_separable_scores():
    t = choose_threshold([0.8, 0.9, 0.85], [0.1, 0.3, 0.2])
    assert 0.3 < t < 0.8
    assert t == pytest.approx((0.3 + 0.8) / 2)


def test_choose_threshold_maximises_balanced_accuracy():
    pos = [0.9, 0.8, 0.4]          # one positive hides among the negatives
    neg = [0.5, 0.3, 0.2, 0.1, 0.05, 0.0]
    t = choose_threshold(pos, neg)
    # cut at 0.65: TPR 2/3, TNR 1 -> 0.833; cut at 0.35: TPR 1, TNR 5/6 -> 0.917 (best)
    assert t == pytest.approx(0.35)


def test_choose_threshold_refuses_non_finite_scores():
    with pytest.raises(ValueError, match="non-finite"):
        choose_threshold([0.5, math.nan], [0.1])


# ---------------------------------------------------------------- holes

RUNS = {
    "lexical": {"q_bugs": {"bugs": 3.0, "burger": 2.0, "seoul": 1.0}, "q_seoul": {"seoul": 2.0, "looney": 1.0}},
    "semantic": {"q_bugs": {"looney": 0.9, "bugs": 0.8}, "q_seoul": {"bugs": 0.5}},
}


def test_holes_are_unjudged_top_k_documents_of_any_run():
    assert holes(QRELS, RUNS, 2) == [("q_bugs", "burger"), ("q_bugs", "looney"), ("q_seoul", "bugs"),
                                     ("q_seoul", "looney")]
    assert holes(QRELS, RUNS["lexical"], 1) == []  # a single run is accepted too
    # a negative grade (pooled, not judged) is a hole as well
    assert holes({"q_bugs": {"bugs": 1, "burger": -1}}, RUNS["lexical"], 2) == [("q_bugs", "burger")]


def test_holes_with_mismatched_query_ids_are_refused():
    with pytest.raises(ValueError, match="no query of the runs is in qrels.*mismatched ids"):
        holes({"Q1": {"d": 1}}, RUNS, 3)


def test_fill_holes_grades_every_hole_and_keeps_judgments():
    judge = AnswerJudge({"q_bugs": ["애니메이션"], "q_burger": ["1953년"], "q_seoul": ["토끼"]}, CORPUS)
    filled = fill_holes(QRELS, RUNS, judge, 2)
    assert filled["q_bugs"] == {"bugs": 1, "burger": 0, "looney": 2}
    assert filled["q_seoul"] == {"seoul": 1, "bugs": 2, "looney": 0}
    assert QRELS["q_bugs"] == {"bugs": 1}  # input untouched
    assert holes(filled, RUNS, 2) == []


def test_add_judgments_refuses_overwrites_and_length_mismatch():
    with pytest.raises(ValueError, match="already judged"):
        add_judgments(QRELS, [("q_bugs", "bugs")], [0])
    with pytest.raises(ValueError, match="2 pairs but 1 grades"):
        add_judgments(QRELS, [("q_bugs", "x"), ("q_bugs", "y")], [0])


# ---------------------------------------------------------------- agreement

def test_agreement_counts_by_hand():
    ref = [2, 2, 0, 0, 1, 2]
    pred = [2, 0, 0, 2, 0, 2]
    a = agreement(ref, pred)
    assert a["n"] == 6 and a["accuracy"] == pytest.approx(3 / 6)
    assert a["answer_precision"] == pytest.approx(2 / 3) and a["answer_recall"] == pytest.approx(2 / 3)
    # p_o = 0.5; ref marginals (2/6, 1/6, 3/6), judge marginals (3/6, 0, 3/6): p_e = (6 + 0 + 9) / 36
    p_e = 15 / 36
    assert a["kappa"] == pytest.approx((0.5 - p_e) / (1 - p_e))
    assert a["confusion"].loc[2, 0] == 1 and a["confusion"].loc[0, 2] == 1 and a["confusion"].to_numpy().sum() == 6


def test_agreement_is_perfect_for_identical_grades_and_refuses_bad_values():
    a = agreement([0, 1, 2, 2], [0, 1, 2, 2])
    assert a["accuracy"] == 1 and a["kappa"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="outside the grades"):
        agreement([0, 3], [0, 0])
    with pytest.raises(ValueError, match="3 reference labels but 2 judge grades"):
        agreement([0, 1, 2], [0, 1])


def test_validate_reports_per_source_and_all():
    labels = pd.DataFrame({"qid": ["q_bugs", "q_bugs", "q_burger", "q_seoul"],
                           "docid": ["bugs", "seoul", "bugs", "seoul"],
                           "source": ["a", "b", "c", "a"], "label": [2, 0, 0, 2]})
    table = validate(AnswerJudge(ANSWERS, CORPUS), labels)
    assert list(table.index) == ["a", "b", "c", "all"]
    assert table.loc["a", "accuracy"] == 1 and table.loc["all", "n"] == 4
    # q_burger's answer "1953년" is not in the Bugs Bunny paragraph: correct 0
    assert table.loc["c", "judge_2"] == 0


# ---------------------------------------------------------------- drawing samples

def test_draw_label_sample_is_seeded_and_well_formed():
    runs = {"lexical": RUNS["lexical"], "semantic": RUNS["semantic"]}
    a = draw_label_sample(TOY, runs, n_questions=2, n_top=1, depth=2, seed=5)
    b = draw_label_sample(TOY, runs, n_questions=2, n_top=1, depth=2, seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert sorted(a["source"].value_counts().items()) == [("a", 2), ("b", 2), ("c", 1)]
    for row in a.itertuples():
        judged = QRELS[row.qid]
        assert (row.docid in judged) == (row.source == "a")
    with pytest.raises(ValueError, match="requested but the runs leave only"):
        draw_label_sample(TOY, runs, n_questions=3, n_top=50, depth=2, seed=5)


def test_easy_pairs_exclude_questions():
    pairs = easy_pairs(TOY, 2, seed=1, exclude=["q_bugs"])
    assert set(pairs["qid"]) == {"q_burger", "q_seoul"}
    assert pairs["expected"].tolist() == [2, 0, 2, 0]
    with pytest.raises(ValueError, match="3 questions requested but only 2"):
        easy_pairs(TOY, 3, exclude=["q_bugs"])


# ---------------------------------------------------------------- label files

def write_lines(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    return path


GOOD = {"qid": "q_bugs", "docid": "bugs", "source": "a", "label": 2}


@pytest.mark.parametrize("row, message", [
    ({"qid": "q_bugs", "docid": "burger", "source": "b", "label": 3}, ":2: label 3 is not one of"),
    ({"qid": "q_bugs", "docid": "burger", "source": "b", "label": True}, ":2: label True is not one of"),
    ({"qid": "q_bugs", "docid": "burger", "source": "d", "label": 0}, ":2: source 'd' is not one of"),
    ({"qid": "q_bugs", "docid": "burger", "label": 0}, ":2: missing key 'source'"),
    ({"qid": "q_bugs", "docid": "burger", "source": "b", "label": 0, "grade": 1}, ":2: unknown key"),
    ({"qid": "q_bugs", "docid": "bugs", "source": "a", "label": 1}, ":2: pair .* labelled twice .*line 1"),
    ("{not json", ":2: invalid JSON"),
    ({"qid": "q_bugs", "docid": "burger", "source": "c", "label": 0, "rank": 0}, ":2: rank must be an integer >= 1"),
    ({"qid": "q_bugs", "docid": "burger", "source": "c", "label": 0, "retrievers": "bm25"}, ":2: retrievers must be a list"),
    ({"qid": "q_zzz", "docid": "burger", "source": "b", "label": 0}, ":2: question 'q_zzz' is not in collection"),
    ({"qid": "q_bugs", "docid": "nope", "source": "b", "label": 0}, ":2: document 'nope' is not in collection"),
    ({"qid": "q_bugs", "docid": "burger", "source": "a", "label": 0}, ":2: source a .* not judged relevant"),
    ({"qid": "q_seoul", "docid": "seoul", "source": "c", "label": 2}, ":2: source c, but .* already judged"),
])
def test_bad_label_lines_are_named_by_file_and_line(tmp_path, row, message):
    path = write_lines(tmp_path / "labels.jsonl", [GOOD, row])
    with pytest.raises(LabelFileError, match=message):
        read_labels(path, TOY)


def test_label_file_sample_checks(tmp_path):
    path = write_lines(tmp_path / "labels.jsonl", [GOOD, {"qid": "q_bugs", "docid": "seoul", "source": "b", "label": 0}])
    df = read_labels(path, TOY)
    assert df["label"].tolist() == [2, 0] and df["line"].tolist() == [1, 2]
    with pytest.raises(LabelFileError, match="2 labelled pairs; at least 150"):
        read_labels(path, TOY, min_rows=150)
    with pytest.raises(LabelFileError, match="no pair from source\\(s\\) c"):
        read_labels(path, TOY, sources="abc")
    with pytest.raises(FileNotFoundError):
        read_labels(tmp_path / "missing.jsonl")
    empty = write_lines(tmp_path / "empty.jsonl", [""])
    with pytest.raises(LabelFileError, match="holds no labels"):
        read_labels(empty)


# ---------------------------------------------------------------- the committed labelled sample

@pytest.fixture(scope="module")
def korquad():
    from searchgrade.collections import load_korquad

    return load_korquad()


def test_committed_label_file_passes_the_schema_check(korquad):
    df = read_labels(LABELS, korquad, min_rows=150, sources="abc")
    assert len(df) >= 150
    assert set(df["label"]) <= {0, 1, 2}
    counts = df["source"].value_counts()
    assert all(counts[s] >= 30 for s in "abc")
    # non-obvious cases carry a note: every source-c pair labelled 1 or 2 explains itself
    hard = df[(df["source"] == "c") & (df["label"] > 0)]
    assert (hard["note"].str.len() > 0).all()


def test_label_file_has_a_readme_and_rubric():
    folder = LABELS.parent
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "korquad_relevance.jsonl" in readme and "second annotator" in readme
    rubric = (folder / "RUBRIC.md").read_text(encoding="utf-8")
    for grade in ("0", "1", "2"):
        assert f"**{grade}**" in rubric


def test_answer_spread_on_korquad_matches_the_documented_share(korquad):
    spread = answer_spread(korquad.meta["answers"], korquad.corpus)
    assert len(spread) == 5774 and (spread >= 1).all()  # every answer is a span of its own paragraph
    assert (spread > 1).mean() == pytest.approx(0.46, abs=0.01)
