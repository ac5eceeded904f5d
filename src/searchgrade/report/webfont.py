"""The Korean web font: NanumGothic as woff2, converted once and cached; embedded in the report's page.

A system without a Korean font draws every Hangul syllable as an empty box, so neither the book nor
the report depends on the reader's fonts. The TTF files that koreanize-matplotlib ships (read as
files: matplotlib is not imported) are converted, whole and losslessly, to woff2 (fontTools with
brotli), without the TSI0-TSI5 tables: the font editor VTT's private sources, which no renderer reads
and which make Chromium's font sanitiser refuse the whole font ("TSI3: zero-length table"). The fonts
are not subset: NanumGothic's licence (SIL OFL 1.1) reserves the font's names, and a subset is a
Modified Version that could not keep them; a functionally equivalent conversion of the complete font
can. Converting a weight takes about 20 s of CPU, so the woff2 files are cached by a hash of the TTF
and of the conversion.

The book writes the files into its ``_static/fonts`` (:mod:`searchgrade.book.webfont`); the report,
one file that opens from disk, embeds the regular weight as a ``data:`` URL (:func:`embedded_css`,
about 2.3 MB). Bold text is drawn by the browser from the regular weight: a second embedded weight
would double the page for headings and table heads only. The licence travels inside the page, in
its footer (:func:`licence_html`).
"""
from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .widget import asset

__all__ = ["FAMILY", "FACES", "Face", "EDITOR_TABLES", "UNICODE_RANGE", "SANS_FALLBACK", "source_dir", "convert",
           "cache_key", "cached_woff2", "embedded_css", "licence_text", "licence_html", "available"]

FAMILY = "NanumGothic Web"
EDITOR_TABLES = ("TSI0", "TSI1", "TSI2", "TSI3", "TSI5")  # VTT sources: unused by renderers, refused by OTS
# Every character but the spaces: NanumGothic maps U+0000-U+0020 and U+00A0 to one glyph, which a PDF's
# text layer then reads back as U+0001; the next font in the stack draws the spaces instead.
UNICODE_RANGE = "U+21-9F, U+A1-10FFFF"
SANS_FALLBACK = 'system-ui, -apple-system, "Segoe UI", "Noto Sans", "Liberation Sans", Arial, sans-serif'


@dataclass(frozen=True)
class Face:
    """One weight of the web font: the TTF koreanize-matplotlib ships and the woff2 written for it."""

    source: str
    weight: int

    @property
    def woff2(self) -> str:
        """File name of the woff2."""
        return Path(self.source).with_suffix(".woff2").name


FACES = (Face("NanumGothic.ttf", 400), Face("NanumGothicBold.ttf", 700))


def source_dir() -> Path:
    """Folder of the NanumGothic TTFs that koreanize-matplotlib ships (found without importing it)."""
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the Korean web font is NanumGothic as koreanize-matplotlib ships it, which is not "
                           "installed (pip install 'searchgrade[book]')")
    return Path(list(spec.submodule_search_locations)[0]) / "fonts"


def available() -> str:
    """'' where the web font can be embedded here, else what is missing (koreanize-matplotlib, fontTools, brotli)."""
    missing = [name for name, module in (("koreanize-matplotlib", "koreanize_matplotlib"), ("fontTools", "fontTools"),
                                         ("brotli", "brotli")) if importlib.util.find_spec(module) is None]
    return f"{', '.join(missing)} not installed" if missing else ""


def cache_key(path: Path) -> str:
    """The cache folder of a font's woff2: first 16 hex digits of the SHA-256 of the font file and of how it
    is converted (tables left out, fontTools version)."""
    import fontTools

    h = hashlib.sha256(f"{EDITOR_TABLES} fontTools {fontTools.version}\n".encode())
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def convert(source: Path, target: Path) -> None:
    """Write the font `source` (TTF) as woff2 to `target`, without the VTT source tables (needs brotli)."""
    try:
        from fontTools.ttLib import TTFont
        import brotli  # noqa: F401
    except ImportError:
        raise RuntimeError("writing the woff2 web font needs fontTools and brotli: pip install fonttools brotli "
                           "(both are in searchgrade's `book` extra)") from None
    font = TTFont(str(source), recalcBBoxes=False, recalcTimestamp=False)
    for tag in EDITOR_TABLES:
        if tag in font:
            del font[tag]
    font.flavor = "woff2"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    os.close(fd)
    try:
        font.save(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def cached_woff2(face: Face, cache: Path, folder: Path | None = None, converter=None) -> Path:
    """The woff2 of a face from the cache, converted first if the TTF or the conversion (by hash) is new.

    ``folder`` holds the TTF (default :func:`source_dir`); ``converter`` writes it (default :func:`convert`).
    """
    source = Path(folder or source_dir()) / face.source
    if not source.is_file():
        raise RuntimeError(f"the web font's source {source} is missing (koreanize-matplotlib's fonts)")
    cached = Path(cache) / cache_key(source) / face.woff2
    if not cached.is_file():
        (converter or convert)(source, cached)
    return cached


def licence_text() -> str:
    """The SIL Open Font License text of NanumGothic, shipped with this package."""
    return asset("NanumGothic-OFL.txt")


def licence_html(lang: str = "ko") -> str:
    """The licence as a collapsed block for a page's footer; "://" written as a character reference.

    The addresses in the licence are text, not links: written ``&#58;//`` they read the same in the
    browser, and a scan of the page for outside resources (``https://``) finds none.
    """
    import html

    from .text import say

    text = html.escape(licence_text()).replace("://", "&#58;//")
    return (f'<details class="sg-licence"><summary>{say(lang, "licence")}</summary>'
            f"<pre>{text}</pre></details>")


def embedded_css(cache: Path) -> str:
    """A stylesheet embedding the regular weight as a data: URL, first in the page's font stack."""
    face = FACES[0]
    data = base64.b64encode(cached_woff2(face, cache).read_bytes()).decode("ascii")
    return ("/* The Korean web font NanumGothic (SIL OFL 1.1), embedded by searchgrade.report.webfont; the licence "
            "is in the page's footer. */\n"
            f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: {face.weight}; '
            f'font-display: block; src: url(data:font/woff2;base64,{data}) format("woff2"); '
            f"unicode-range: {UNICODE_RANGE}; }}\n"
            f':root {{ --sg-font-family: "{FAMILY}", {SANS_FALLBACK}; }}\n')
