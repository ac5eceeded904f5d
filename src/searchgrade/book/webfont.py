"""The book's Korean web font: NanumGothic as woff2, declared with @font-face, written at build time.

The published pages must not depend on the reader's fonts: a system without a Korean font would draw
every Hangul syllable as an empty box. The TTF files that koreanize-matplotlib ships (the same font the
figures use) are converted, whole and losslessly, to woff2 (fontTools with brotli) and written into the
build's ``_static/fonts/`` with a stylesheet that makes the font the first family of the page text,
the headings and, after the monospace fonts (which have no Hangul), of code. Nothing is fetched from
outside the book.

The fonts are not subset: NanumGothic's licence (SIL OFL 1.1) reserves the font's names, and a subset
is a Modified Version that could not keep them; a functionally equivalent conversion of the complete
font can. Every glyph, feature, hint and name is kept; only the TSI0-TSI5 tables are left out, the font
editor VTT's private sources, which no renderer reads and which make Chromium's font sanitiser refuse
the whole font ("TSI3: zero-length table").
The licence text travels next to the font files (``_static/fonts/NanumGothic-OFL.txt`` in the book).
Converting both weights takes about a minute, so the woff2 files are cached by a hash of the TTF and
of the conversion.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

FAMILY = "NanumGothic Web"
CSS_FILE = "searchgrade-fonts.css"
FONT_DIR = "fonts"
LICENSE_FILE = "NanumGothic-OFL.txt"
MONO_FAMILIES = ('ui-monospace, "Cascadia Code", "Source Code Pro", Menlo, Consolas, "DejaVu Sans Mono", '
                 '"Liberation Mono", monospace')
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
        """File name of the woff2 in the build's _static/fonts."""
        return Path(self.source).with_suffix(".woff2").name


FACES = (Face("NanumGothic.ttf", 400), Face("NanumGothicBold.ttf", 700))


def source_dir() -> Path:
    """Folder of the NanumGothic TTFs (koreanize-matplotlib's fonts, also used by the figures)."""
    from .plotting import korean_font_path

    return korean_font_path().parent


def font_css() -> str:
    """The stylesheet: @font-face per weight and the theme's font variables with a fallback stack."""
    faces = "".join(
        f"@font-face {{\n  font-family: \"{FAMILY}\";\n  font-style: normal;\n  font-weight: {face.weight};\n"
        f"  font-display: swap;\n  src: url(\"{FONT_DIR}/{face.woff2}\") format(\"woff2\");\n"
        f"  unicode-range: {UNICODE_RANGE};\n}}\n"
        for face in FACES)
    sans = f'"{FAMILY}", {SANS_FALLBACK}'
    return (
        "/* The book's Korean web font (written by searchgrade.book.webfont; NanumGothic, SIL OFL 1.1,\n"
        f"   licence in {FONT_DIR}/{LICENSE_FILE}). Nothing here is fetched from outside the book. */\n"
        f"{faces}"
        ":root {\n"
        f"  --pst-font-family-base: {sans};\n"
        f"  --pst-font-family-heading: {sans};\n"
        f"  --pst-font-family-monospace: {MONO_FAMILIES}, \"{FAMILY}\";\n"
        f"  --sg-font-family: {sans};\n"
        "}\n"
    )


def _digest(path: Path) -> str:
    """First 16 hex digits of the SHA-256 of a font file and of how it is converted (tables left out, fontTools)."""
    import fontTools

    h = hashlib.sha256(f"{EDITOR_TABLES} fontTools {fontTools.version}\n".encode())
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def convert(source: Path, target: Path) -> None:
    """Write the font `source` (TTF) as woff2 to `target`, without the VTT source tables (needs brotli)."""
    from fontTools.ttLib import TTFont

    try:
        import brotli  # noqa: F401
    except ImportError:
        raise RuntimeError("writing the woff2 web font needs brotli: pip install brotli "
                           "(it is in searchgrade's `book` extra)") from None
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


def cached_woff2(face: Face, cache: Path) -> Path:
    """The woff2 of a face from the cache, converted first if the TTF or the conversion (by hash) is new."""
    source = source_dir() / face.source
    if not source.is_file():
        raise RuntimeError(f"the web font's source {source} is missing (koreanize-matplotlib's fonts)")
    cached = Path(cache) / _digest(source) / face.woff2
    if not cached.is_file():
        convert(source, cached)
    return cached


def write_static(static: Path, cache: Path) -> list[Path]:
    """Write the fonts and the stylesheet into a build's _static folder; return the files written."""
    static = Path(static)
    fonts = static / FONT_DIR
    fonts.mkdir(parents=True, exist_ok=True)
    written = []
    for face in FACES:
        target = fonts / face.woff2
        shutil.copyfile(cached_woff2(face, cache), target)
        written.append(target)
    css = static / CSS_FILE
    css.write_text(font_css(), encoding="utf-8")
    written.append(css)
    if not (fonts / LICENSE_FILE).is_file():
        raise RuntimeError(f"the font licence {fonts / LICENSE_FILE} is missing: the book's "
                           f"_static/{FONT_DIR}/{LICENSE_FILE} must be copied with the fonts "
                           "(html_static_path: [_static])")
    return written
