"""Korean text in the book's figures is drawn with the bundled NanumGothic, not as empty boxes.

Images cannot be read back here, so this is tested where the boxes would come from: matplotlib warns
"Glyph ... missing from font(s)" when it falls back to a font without Hangul, and a PDF names the fonts
it embeds. (The browser tests check that the figure images load and have a real size.)
"""
import io
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from searchgrade.book.plotting import KOREAN_FONT, korean_font_path, label_axes, use_book_style  # noqa: E402

KOREAN = "검색을 채점하는 법: 정답 순위와 점수"


def draw(fmt: str) -> tuple[bytes, list[str]]:
    """Render a small figure with Korean title, labels and legend; return the file and warnings."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3], [0.5, 0.3, 0.2], label="정답 하나")
    label_axes(ax, "정답 순위", "점수 (nDCG@10)", KOREAN)
    ax.legend()
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(buf, format=fmt)
    plt.close(fig)
    return buf.getvalue(), [str(w.message) for w in caught]


def test_book_style_draws_korean_with_nanumgothic():
    use_book_style()
    path = Path(font_manager.findfont(font_manager.FontProperties(family=matplotlib.rcParams["font.family"]),
                                      fallback_to_default=False))
    assert path == korean_font_path() and path.name.startswith("NanumGothic"), path
    png, caught = draw("png")
    assert not [w for w in caught if "Glyph" in w and "missing" in w], caught
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5_000
    pdf, caught = draw("pdf")
    assert not [w for w in caught if "Glyph" in w], caught
    assert KOREAN_FONT.encode() in pdf, "the PDF does not embed NanumGothic"


def test_without_the_book_style_korean_would_be_boxes():
    """The check above can fail: with a Latin-only font matplotlib reports the missing glyphs."""
    with matplotlib.rc_context({"font.family": "DejaVu Sans"}):
        _, caught = draw("png")
    assert any("Glyph" in w and "missing" in w for w in caught), caught
