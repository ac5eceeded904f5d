"""searchgrade.book.tables: the book's table style (caption above, rounding, booleans, refusals)."""
import pandas as pd
import pytest

from searchgrade.book import show


def test_html_has_the_caption_rounded_numbers_and_korean_booleans():
    df = pd.DataFrame({"평균": [0.123456, 1.0], "유의": [True, False]}, index=["a", "b"])
    out = show(df, "KorQuAD 1.0 dev: 평균 <비교>", digits=2)._repr_html_()
    assert "<caption>KorQuAD 1.0 dev: 평균 &lt;비교&gt;</caption>" in out
    assert "0.12" in out and "0.123" not in out
    assert "예" in out and "아니오" in out
    assert "white-space: nowrap" in out and "caption-side: top" in out


def test_text_form_and_the_frame_is_not_changed():
    df = pd.DataFrame({"x": [0.98765], "ok": [True]})
    text = repr(show(df, "Cranfield: x", digits=1))
    assert text.splitlines()[0] == "Cranfield: x"
    assert "1.0" in text and "예" in text
    assert df["ok"].dtype == bool


@pytest.mark.parametrize("args, error", [
    (([1, 2], "c"), TypeError),
    ((pd.DataFrame({"a": [1]}), " "), ValueError),
    ((pd.DataFrame({"a": [1]}), "c", -1), ValueError),
    ((pd.DataFrame({"a": [1]}), "c", True), ValueError),
])
def test_refusals(args, error):
    with pytest.raises(error):
        show(*args)


def test_whole_number_columns_print_as_integers_and_others_keep_their_digits():
    df = pd.DataFrame({"문서 수": [2835.0, 1962.0], "평균": [0.5, 0.25], "빈칸": [3.0, None]})
    out = show(df, "Cranfield: 셈", digits=3)._repr_html_()
    assert "2,835" in out and "2,835.0" not in out and "1,962.000" not in out
    assert "0.500" in out and "0.250" in out
    assert ">3<" in out and "3.000" not in out
    text = repr(show(df, "Cranfield: 셈"))
    assert "2,835" in text and "2,835.0" not in text and "0.5" in text
    assert df["문서 수"].dtype == float


def test_short_recall_labels_read_as_recall():
    df = pd.DataFrame({"R@10": [1.0], "MRR@10": [0.5], "nDCG@10": [0.5]},
                      index=pd.Index(["R@5"], name="R@k"))
    out = show(df, "장난감 예", digits=2)._repr_html_()
    assert "Recall@10" in out and "Recall@5" in out and "Recall@k" in out
    assert "MRR@10" in out and ">R@10<" not in out
    assert list(df.columns) == ["R@10", "MRR@10", "nDCG@10"]


def test_a_column_of_perfect_scores_keeps_its_decimals():
    df = pd.DataFrame({"1위": [1.0, 1.0], "2위": [1.0, 0.5]}, index=["Recall@10", "RR"])
    out = show(df, "장난감 예", digits=3)._repr_html_()
    assert "1.000" in out and "0.500" in out


def test_numbers_in_an_object_column_print_whole_and_text_columns_are_left_alone():
    df = pd.DataFrame({"a": [2835.0, "x"], "b": [1962.0, 3.5]}).T   # every column is object
    out = show(df, "Cranfield: 셈")._repr_html_()
    assert ">2,835<" in out and ">1,962<" in out         # column 0: numbers only
    assert "3.500" in out and ">x<" in out               # column 1: text and a number, left alone
    mixed = pd.DataFrame({"이름": ["x", "y"], "수": pd.Series([3.0, 12.0], dtype=object)})
    html = show(mixed, "장난감 예")._repr_html_()
    assert ">12<" in html and "12.000" not in html


def test_a_value_that_rounds_to_zero_shows_no_minus_sign():
    df = pd.DataFrame({"변화(%)": [-0.04, -4.0, 0.5]})
    out = show(df, "Cranfield: 변화", digits=1)._repr_html_()
    assert "-0.0" not in out and ">0.0<" in out and "-4.0" in out


def test_whole_up_to_floating_point_error():
    df = pd.DataFrame({"1/(1-p)": [1 / (1 - p) for p in (0.5, 0.8, 0.95)], "p": [0.5, 0.8, 0.95]})
    out = show(df, "장난감 예")._repr_html_()
    assert ">20<" in out and ">5<" in out and "20.000" not in out and "0.950" in out
