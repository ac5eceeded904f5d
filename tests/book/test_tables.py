"""searchgrade.book.tables: the book's table style (caption above, rounding, booleans, refusals) and how numbers
read in its tables (separators, years, %, float labels)."""
import numpy as np
import pandas as pd
import pytest

from searchgrade.book import show
from searchgrade.book.tables import cell_text


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


def test_whole_numbers_from_1000_get_thousands_separators():
    df = pd.DataFrame({"문서": [1400, 205765], "질문": [225.0, 12468.0], "평균": [1837.25, 0.5]},
                      index=["크랜필드", "큰 컬렉션"])
    out = show(df, "Cranfield: 셈", digits=2)._repr_html_()
    for text in (">1,400<", ">205,765<", ">225<", ">12,468<", ">1,837.25<", ">0.50<"):
        assert text in out, text
    for raw in ("1400", "205765", "12468", "1837"):
        assert f">{raw}" not in out, raw
    text = repr(show(df, "Cranfield: 셈"))
    assert "205,765" in text and "12,468" in text


def test_years_print_without_separators():
    df = pd.DataFrame({"출판 연도 중앙값": [1962.0, 1963.0], "판정 수": [1837, 2000]},
                      index=pd.Index([1998, 2018], name="연도"))
    out = show(df, "Cranfield: 연도")._repr_html_()
    assert ">1962<" in out and ">1,962<" not in out
    assert ">1998<" in out and ">2018<" in out and ">2,018<" not in out
    assert ">1,837<" in out and ">2,000<" in out


def test_year_columns_under_a_multiindex_header_keep_their_digits():
    df = pd.DataFrame({("사건", "year"): [2016, 2018], ("사건", "질문 수"): [1010916, 100000]})
    out = show(df, "연표")._repr_html_()
    assert ">2016<" in out and ">1,010,916<" in out and ">100,000<" in out


def test_a_percent_column_prints_one_decimal():
    df = pd.DataFrame({"정답을 정답이라 함(%)": [99.648, 12.0], "평균": [0.12345, 0.5]})
    out = show(df, "MIRACL-ko: 판정자")._repr_html_()
    assert ">99.6<" in out and "99.648" not in out and ">12.0<" in out
    assert ">0.123<" in out


def test_float_labels_print_with_the_fewest_decimals_that_tell_them_apart():
    levels = pd.Series([0.9] * 11, index=[round(0.1 * i, 1) for i in range(11)], name="보간 정밀도")
    out = show(levels.rename_axis("재현율").to_frame().T, "장난감 예")._repr_html_()
    assert ">0.0<" in out and ">0.1<" in out and ">1.0<" in out and "0.000000" not in out
    depth = pd.DataFrame({"식 1/(1-p)": [2.0, 5.0, 20.0]}, index=pd.Index([0.5, 0.8, 0.95], name="p"))
    html = show(depth, "RBP")._repr_html_()
    assert ">0.50<" in html and ">0.95<" in html and "0.500000" not in html
    whole = show(pd.DataFrame({"x": [1.0, 2.0]}, index=[1000.0, 2000.0]), "셈")._repr_html_()
    assert ">1,000<" in whole and "1000.0" not in whole


def test_cell_text_spells_missing_booleans_and_text():
    assert cell_text(None) == "" and cell_text(np.nan) == "" and cell_text(pd.NA) == ""
    assert cell_text(True) == "예" and cell_text(np.bool_(False)) == "아니오"
    assert cell_text("1400") == "1400"
    assert cell_text(np.int64(1400)) == "1,400" and cell_text(1400, year=True) == "1400"
    assert cell_text(-12345.678, digits=1) == "-12,345.7"


def test_column_digits_override_one_column():
    df = pd.DataFrame({"MAP 변화(%)": [0.0038, -0.68], "판정(%)": [97.25, 88.0], "R@10": [0.12345, 1.0]})
    out = show(df, "Cranfield", column_digits={"MAP 변화(%)": 3, "R@10": 2})._repr_html_()
    assert ">0.004<" in out and ">-0.680<" in out and ">97.2<" in out and ">0.12<" in out
    with pytest.raises(ValueError, match="does not have"):
        show(df, "Cranfield", column_digits={"없는 열": 2})
    with pytest.raises(ValueError):
        show(df, "Cranfield", column_digits={"판정(%)": -1})


def test_text_in_cells_and_labels_is_shown_not_read_as_html():
    df = pd.DataFrame({"원문": ["큐 적체를<br/> 확인"]}, index=pd.Index(["< 1/10"], name="구분"))
    out = show(df, "정규화의 예")._repr_html_()
    assert "&lt;br/&gt;" in out and "<br/>" not in out and "&lt; 1/10" in out
