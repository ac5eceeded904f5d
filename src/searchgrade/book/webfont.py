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
of the conversion. The conversion lives in :mod:`searchgrade.report.webfont` (the report embeds the
same font); this module writes the book's files.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from ..report import webfont as report_webfont
from ..report.webfont import (  # noqa: F401  (re-exported: the font and its conversion)
    EDITOR_TABLES,
    FACES,
    FAMILY,
    SANS_FALLBACK,
    UNICODE_RANGE,
    Face,
    cache_key,
    convert,
    source_dir,
)

CSS_FILE = "searchgrade-fonts.css"
FONT_DIR = "fonts"
LICENSE_FILE = "NanumGothic-OFL.txt"
MONO_FAMILIES = ('ui-monospace, "Cascadia Code", "Source Code Pro", Menlo, Consolas, "DejaVu Sans Mono", '
                 '"Liberation Mono", monospace')


def cached_woff2(face: Face, cache: Path) -> Path:
    """The woff2 of a face from the cache, converted first if the TTF or the conversion (by hash) is new."""
    return report_webfont.cached_woff2(face, cache, source_dir(), convert)


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
