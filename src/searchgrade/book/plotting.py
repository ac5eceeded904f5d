"""One plot style for the whole book: Korean font, colour-blind-safe colours, labelled axes."""
from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import matplotlib.font_manager as fm

from ..report.html import PALETTE as REPORT_PALETTE

# Okabe & Ito (2008) palette, safe for the common forms of colour blindness.
PALETTE = list(REPORT_PALETTE)  # the Okabe-Ito colours, one list for the book and the report
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), (0, (5, 5))]

KOREAN_FONT = "NanumGothic"


def korean_font_path() -> Path:
    """Path of the bundled NanumGothic font (shipped by koreanize-matplotlib)."""
    import koreanize_matplotlib  # noqa: F401  (registers the fonts with matplotlib)

    for font in fm.fontManager.ttflist:
        if font.name == KOREAN_FONT and font.weight in (400, "normal", "regular"):
            return Path(font.fname)
    for font in fm.fontManager.ttflist:
        if font.name == KOREAN_FONT:
            return Path(font.fname)
    raise RuntimeError("the bundled Korean font NanumGothic was not found; is koreanize-matplotlib installed?")


def use_book_style() -> None:
    """Set matplotlib's defaults for the book: NanumGothic, Okabe-Ito colours, readable sizes."""
    korean_font_path()  # fails loudly if the font is missing, instead of drawing boxes
    mpl.rcParams.update(
        {
            "font.family": KOREAN_FONT,
            "axes.unicode_minus": False,  # NanumGothic has no U+2212 glyph
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "figure.figsize": (7.0, 4.2),
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "savefig.bbox": "tight",
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.labelsize": 11,
            "legend.fontsize": 10,
            "legend.frameon": False,
            "lines.linewidth": 2.0,
            "lines.markersize": 6,
        }
    )


def label_axes(ax, xlabel: str, ylabel: str, title: str | None = None):
    """Label both axes (and optionally the title); the book never leaves an axis unlabelled."""
    if not xlabel or not ylabel:
        raise ValueError("every axis in the book needs a label")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax
