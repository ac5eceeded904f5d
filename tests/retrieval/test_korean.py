"""Tests for searchgrade.retrieval.korean: the four Korean tokenisers on hand-checked examples."""
from __future__ import annotations

import pytest

from searchgrade.retrieval import korean as ko

SENTENCE = "임종석이 여의도 농민 폭력 시위를 주도한 혐의로 지명수배 된 날은?"


def test_names_are_stable():
    assert list(ko.TOKENISERS) == ["ko-ws", "ko-bigram", "ko-kiwi", "ko-mecab"]
    for name in ko.TOKENISERS:
        assert ko.get_tokeniser(name).name == name
        assert ko.get_tokeniser(name) is ko.get_tokeniser(name)
    with pytest.raises(ValueError, match="unknown Korean tokeniser 'okt'; known: ko-ws"):
        ko.get_tokeniser("okt")


def test_whitespace():
    assert ko.whitespace(SENTENCE) == ["임종석이", "여의도", "농민", "폭력", "시위를", "주도한", "혐의로", "지명수배", "된", "날은"]
    assert ko.whitespace("BM25, e커머스!") == ["bm25", "e커머스"]
    assert ko.whitespace("") == []


def test_bigrams_stay_inside_words():
    assert ko.bigrams("시위를 주도한") == ["시위", "위를", "주도", "도한"]
    # single syllables stay unigrams; Latin and digit runs stay whole; no bigram across the space
    assert ko.bigrams("된 날") == ["된", "날"]
    assert ko.bigrams("e커머스를 BM25") == ["e", "커머", "머스", "스를", "bm25"]
    assert ko.bigrams("2018년에") == ["2018", "년에"]
    assert "를주" not in ko.bigrams("시위를 주도한")


def test_keep_tag():
    for tag in ("NNG", "NNP", "NR", "XR", "SL", "SN", "SH", "VV", "VA", "VV-R", "VA-I"):
        assert ko.keep_tag(tag)
    for tag in ("NNB", "NP", "JKS", "JX", "EF", "EP", "ETM", "XSV", "VX", "VCP", "MAG", "MM", "SF"):
        assert not ko.keep_tag(tag)


def test_kiwi_content_morphemes():
    kiwi = ko.get_tokeniser("ko-kiwi")
    assert kiwi(SENTENCE) == ["임종석", "여의도", "농민", "폭력", "시위", "주도", "혐의", "지명", "수배", "날"]
    # stems of verbs and adjectives; particles and endings gone; B 2 B joined again
    assert kiwi("밥을 먹었다") == ["밥", "먹"]
    assert kiwi("아름다운 하늘") == ["아름답", "하늘"]
    assert kiwi("B2B 거래") == ["b2b", "거래"]


def test_kiwi_batch_equals_single_calls():
    kiwi = ko.get_tokeniser("ko-kiwi")
    texts = [SENTENCE, "밥을 먹었다", "", "아름다운 하늘이 예뻤다"]
    assert kiwi.batch(texts, progress=False) == [kiwi(t) for t in texts]


def test_mecab_content_morphemes():
    mecab = ko.get_tokeniser("ko-mecab")
    # MeCab-ko's dictionary reads 지명수배 as 지명수 (a person's name) + 배; 된 is expanded to its stem 되
    assert mecab(SENTENCE) == ["임종석", "여의도", "농민", "폭력", "시위", "주도", "혐의", "지명수", "되", "날"]
    assert mecab("아름다운 하늘이 예뻤다") == ["아름답", "하늘", "예쁘"]
    assert mecab("B2B 거래") == ["b2b", "거래"]


def test_batch_helpers():
    texts = ["김치는 발효 음식이다", "서울의 한강"]
    assert ko.tokenise_all(texts, "ko-mecab", progress=False) == [ko.get_tokeniser("ko-mecab")(t) for t in texts]
    assert ko.whitespace.batch(texts, progress=False) == [["김치는", "발효", "음식이다"], ["서울의", "한강"]]


def test_settings_name_versions():
    s = ko.get_tokeniser("ko-kiwi").settings()
    assert s["name"] == "ko-kiwi" and s["kiwipiepy"] and s["kiwipiepy_model"]
    assert ko.get_tokeniser("ko-mecab").settings()["python-mecab-ko"]
