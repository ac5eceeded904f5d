"""Relevance without ids: retrieved texts graded by judged passages (the text key) or by Kiwi ROUGE (ranx-k)."""
import warnings
from types import SimpleNamespace

import pytest

import searchgrade as sg
from searchgrade.rag import PassageKey
from searchgrade.retrievers.text_relevance import by_passages, by_rouge, text_keys

# ----------------------------------------------------------------------------- the text key

CORPUS = {
    "p1": {"text": "The river rises in the northern hills. It flows south for two hundred kilometres."},
    "p2": {"text": "The old bridge was built in 1820. It was rebuilt after the flood of 1952."},
    "p3": {"text": "Fishing is allowed from May to September. A licence is needed for adults."},
}
QRELS = {"q1": {"p1": 1, "p2": 2, "p3": 0}}


def ranked(*texts):
    """A run and its texts for query q1, in the given order (ids c1, c2, ...)."""
    ids = [f"c{i}" for i in range(1, len(texts) + 1)]
    return {"q1": {c: float(len(ids) - i) for i, c in enumerate(ids)}}, {"q1": dict(zip(ids, texts))}


def test_text_keys_quote_each_judged_passage_by_its_sentences():
    keys = text_keys(QRELS, CORPUS)
    assert [(k.passage_id, k.grade, len(k.quotes)) for k in keys["q1"]] == [("p1", 1, 2), ("p2", 2, 2), ("p3", 0, 2)]


def test_windows_merges_and_pieces_take_their_passages_place():
    run, texts = ranked(
        "Unrelated text about the weather in spring.",
        "It was rebuilt after the flood of 1952.",                                   # a window of p2
        "The river rises in the northern hills. It flows south. The old bridge was built in 1820.",  # merge
        "built in 1820",                                                             # a piece of p2
        "northern hills",                                                            # a piece of p1
    )
    graded = by_passages(run, texts, text_keys(QRELS, CORPUS))
    assert graded.qrels == QRELS
    # the merge holds p1 and p2; p2 (grade 2) was taken at rank 2, so it is credited with p1;
    # the piece of p2 repeats evidence already credited and stays a non-relevant result
    assert graded.matched == {"q1": {"c2": "p2", "c3": "p1"}}
    assert list(graded.run["q1"]) == ["c1", "p2", "p1", "c4", "c5"]
    table = sg.evaluate(graded.qrels, graded.run, ["R@2", "R@3", "RR", "nDCG@5"])
    assert table.loc["q1", ["R@2", "R@3", "RR"]].tolist() == [0.5, 1.0, 0.5]


def test_pieces_count_only_when_asked_and_long_enough():
    run, texts = ranked("northern hills", "hills")
    keys = text_keys(QRELS, CORPUS)
    assert by_passages(run, texts, keys).matched == {"q1": {"c1": "p1"}}
    assert by_passages(run, texts, keys, contained=False).matched == {"q1": {}}


def test_a_retrieved_id_equal_to_a_judged_id_is_renamed_when_unmatched():
    run, texts = {"q1": {"p3": 2.0, "x": 1.0}}, {"q1": {"p3": "nothing of the kind", "x": "It was built in 1820."}}
    keys = {"q1": [PassageKey("p3", 1, "p3", ("fishingisallowed",)), PassageKey("p2", 1, "p2", ("wasbuiltin1820.",))]}
    graded = by_passages(run, texts, keys)
    assert graded.run == {"q1": {"retrieved:p3": 2.0, "p2": 1.0}}


def test_a_result_without_text_is_one_line():
    with pytest.raises(ValueError, match=r"^query 'q1': result 'c1' has no text to grade"):
        by_passages({"q1": {"c1": 1.0}}, {"q1": {"c1": None}}, text_keys(QRELS, CORPUS))


def test_retrieve_with_texts_feeds_the_text_key():
    docs = [SimpleNamespace(page_content="It flows south for two hundred kilometres.", metadata={}, id="w9")]
    run, texts = sg.retrieve(lambda q: docs, {"q1": "where does the river go"}, texts=True, progress=False)
    graded = by_passages(run, texts, text_keys(QRELS, CORPUS))
    assert graded.run == {"q1": {"p1": 1.0}}


# ----------------------------------------------------------------------------- Kiwi ROUGE (ranx-k's method)

QUESTIONS = {
    "k1": "세종대왕이 만든 문자는 무엇인가?",
    "k2": "제주도에서 가장 높은 산은?",
    "k3": "김치는 어떻게 담그나?",
    "k4": "광합성은 어디에서 일어나나?",
}
REFERENCES = {
    "k1": ["훈민정음은 1443년 세종대왕이 창제한 문자로, 1446년에 반포되었다.",
           "한글날은 훈민정음 반포를 기념하는 날로 10월 9일이다."],
    "k2": ["한라산은 제주도 한가운데 솟은 화산으로 높이는 1947미터이다."],
    "k3": ["김치는 절인 배추에 고춧가루, 마늘, 젓갈로 만든 양념을 버무려 담근다."],
    "k4": ["광합성은 식물 세포의 엽록체에서 빛 에너지를 써서 포도당을 만드는 과정이다.",
           "엽록체 안의 엽록소는 빛 에너지를 흡수하여 광합성에 쓴다."],
}
# written for this test: near copies, a text holding two references, repeats, misses
RETRIEVED = {
    "k1": ["세종대왕은 조선의 네 번째 임금으로, 집현전 학자들과 함께 여러 책을 펴냈다.",
           "훈민정음은 1443년 세종대왕이 창제한 문자로 1446년에 널리 반포되었다.",
           "훈민정음은 1443년에 창제되어 1446년에 반포되었고, 그 반포를 기념하는 한글날은 10월 9일이다.",
           "한글날은 10월 9일로, 훈민정음 반포를 기념하는 날이다.",
           "김치는 배추와 고춧가루로 담그는 음식이다."],
    "k2": ["제주도는 한국에서 가장 큰 섬이며 감귤이 유명하다.",
           "설악산은 강원도에 있는 산으로 단풍이 아름답다.",
           "한라산은 제주도 한가운데 솟은 화산이며 높이가 1947미터이다.",
           "백두산 천지는 화산 분화구에 생긴 호수이다."],
    "k3": ["된장은 메주를 소금물에 담가 발효시켜 만든다.",
           "막걸리는 쌀을 누룩으로 발효시킨 술이다.",
           "불고기는 얇게 썬 소고기를 양념에 재워 굽는다."],
    "k4": ["광합성은 식물 세포의 엽록체에서 빛 에너지로 포도당을 만드는 과정이다.",
           "광합성은 식물의 엽록체에서 빛 에너지로 포도당을 만드는 일이다.",
           "엽록체의 엽록소는 빛 에너지를 흡수하여 광합성에 쓰며, 광합성은 엽록체에서 일어난다.",
           "미토콘드리아는 세포 호흡으로 에너지를 만든다."],
}
K = 4


def fixture_run(k=K):
    """The retrieved texts as a run with texts (ids c0, c1, ...)."""
    run = {q: {f"c{i}": float(10 - i) for i in range(len(ts[:k]))} for q, ts in RETRIEVED.items()}
    return run, {q: {f"c{i}": t for i, t in enumerate(ts[:k])} for q, ts in RETRIEVED.items()}


def means(graded, measures):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return sg.mean(graded.qrels, graded.run, measures)


@pytest.fixture(scope="module")
def kiwi():
    return pytest.importorskip("kiwipiepy")


@pytest.mark.model  # loads Kiwi's morphological model (kiwipiepy_model)
def test_the_two_conventions_differ_where_documented(kiwi):
    run, texts = fixture_run()
    ours, theirs = (by_rouge(run, texts, REFERENCES, threshold=0.5, convention=c) for c in ("searchgrade", "ranx-k"))
    # k4: a repeat of the first reference at rank 2 stays there here; ranx-k removes it, lifting rank 3 to 2
    assert list(ours.run["k4"]) == ["reference-1", "c1", "reference-2", "c3"]
    assert list(theirs.run["k4"]) == ["reference-1", "reference-2", "c3"]
    # k3 matched nothing: its reference is relevant here, judged non-relevant by ranx-k
    assert ours.qrels["k3"] == {"reference-1": 1} and theirs.qrels["k3"] == {"reference-1": 0}
    assert means(ours, ["AP@4"])["AP@4"] < means(theirs, ["AP@4"])["AP@4"]
    # recall counts references nothing matched (threshold 0.9: k1's second reference is missed)
    strict = {c: by_rouge(run, texts, REFERENCES, threshold=0.9, convention=c) for c in ("searchgrade", "ranx-k")}
    assert means(strict["searchgrade"], ["R@4"])["R@4"] == pytest.approx((0.5 + 1 + 0 + 0.5) / 4)
    assert means(strict["ranx-k"], ["R@4"])["R@4"] == pytest.approx((1 + 1 + 0 + 1) / 4)


@pytest.mark.model  # loads Kiwi's morphological model (kiwipiepy_model)
def test_a_text_whose_best_match_is_taken_is_credited_with_its_next(kiwi):
    run, texts = fixture_run()
    graded = by_rouge(run, texts, REFERENCES, threshold=0.5)
    assert graded.matched["k1"] == {"c1": "reference-1", "c2": "reference-2"}
    assert by_rouge(run, texts, REFERENCES, threshold=0.5, convention="ranx-k").matched["k1"] == {
        "c1": "reference-1", "c3": "reference-2"}


@pytest.mark.model  # loads Kiwi's morphological model (kiwipiepy_model)
def test_bad_arguments_are_one_line(kiwi):
    run, texts = fixture_run()
    for kwargs, message in [({"threshold": 1.5}, "threshold must be a number from 0 to 1"),
                            ({"rouge": "rougeS"}, "rouge must be one of rouge1, rouge2, rougeL"),
                            ({"convention": "ranx"}, "convention must be one of 'searchgrade', 'ranx-k'")]:
        with pytest.raises(ValueError, match=message):
            by_rouge(run, texts, REFERENCES, **kwargs)
    with pytest.raises(TypeError, match="query 'k2': references are a list of texts"):
        by_rouge(run, texts, {**REFERENCES, "k2": "one string"})


@pytest.mark.peers
@pytest.mark.parametrize("threshold, rouge", [(0.3, "rougeL"), (0.7, "rougeL"), (0.9, "rougeL"), (0.5, "rouge1"),
                                              (0.7, "rouge2")])  # ranx-k loads Kiwi on every call (seconds)
def test_ranx_k_convention_gives_ranx_k_0_0_17_values(kiwi, threshold, rouge, capsys):
    from ranx_k.evaluation import evaluate_with_ranx_similarity

    by_question = {QUESTIONS[q]: RETRIEVED[q] for q in QUESTIONS}
    retriever = SimpleNamespace(invoke=lambda question: [SimpleNamespace(page_content=t, metadata={})
                                                         for t in by_question[question]])
    theirs = evaluate_with_ranx_similarity(retriever, list(QUESTIONS.values()), [REFERENCES[q] for q in QUESTIONS],
                                           k=K, method="kiwi_rouge", similarity_threshold=threshold,
                                           rouge_type=rouge, evaluation_mode="reference_based")
    capsys.readouterr()  # ranx-k prints its progress
    run, texts = fixture_run()
    graded = by_rouge(run, texts, REFERENCES, threshold=threshold, rouge=rouge, convention="ranx-k")
    ours = means(graded, [f"Success@{K}", f"nDCG@{K}", f"AP@{K}", "RR"])
    assert ours.tolist() == pytest.approx([theirs[f"hit_rate@{K}"], theirs[f"ndcg@{K}"], theirs[f"map@{K}"],
                                           theirs["mrr"]], abs=1e-12)
