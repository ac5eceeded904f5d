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
