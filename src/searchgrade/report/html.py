"""The building blocks of ``searchgrade report``'s page: the page shell and its CSS, tables, notes, inline SVG bars.

Everything returns HTML text; every value from the data (names, descriptions, queries) is escaped.
Nothing refers to a file or an address outside the page: the styles are inline and the figures are
inline SVG, so the report opens from disk with no server and no network.
"""
from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .text import say

__all__ = ["esc", "page", "section", "note", "table", "number", "histogram_svg", "PALETTE"]

PALETTE = [
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
]
"""Okabe-Ito colours, colour-blind safe: the report's bars (the book's figures use the same eight)."""

CSS = """
:root { color-scheme: light; --fg: #1d1d1f; --muted: #5b5b66; --line: #d5d5dc; --soft: #f4f4f7; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff; line-height: 1.6;
       font-family: var(--sg-font-family, system-ui, -apple-system, "Apple SD Gothic Neo", "Malgun Gothic",
                    "Noto Sans KR", "Noto Sans CJK KR", "NanumGothic", "Segoe UI", sans-serif); }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.25rem; margin: 2.2rem 0 .6rem;
     border-bottom: 1px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
p { margin: .5rem 0; } .sg-lead { color: var(--muted); }
.sg-note { color: var(--muted); font-size: .92rem; }
.sg-scroll { overflow-x: auto; max-width: 100%; margin: .5rem 0 1rem; }
table { border-collapse: collapse; font-size: .92rem; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .6rem; text-align: left; vertical-align: top; }
thead th { background: var(--soft); }
td.sg-num, th.sg-num { text-align: right; white-space: nowrap; }
sup { color: var(--accent); font-weight: 600; }
td.sg-best strong { font-weight: 700; } .sg-flag { color: #B00020; margin-left: .15rem; }
.sg-figures { display: flex; flex-wrap: wrap; gap: .75rem; }
.sg-figures svg { width: 15rem; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
details { margin: .5rem 0; } summary { cursor: pointer; color: var(--accent); }
.sg-licence pre { white-space: pre-wrap; font-size: .8rem; max-height: 20rem; overflow: auto; }
footer { color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); margin-top: 3rem; padding-top: .6rem; }
code { background: var(--soft); padding: 0 .25rem; border-radius: 3px; word-break: break-all; }
"""


def esc(text) -> str:
    """HTML-escaped text (quotes too)."""
    return html.escape(str(text), quote=True)


def page(title: str, lead: str, sections: Sequence[str], footer: str, font_css: str = "", lang: str = "ko") -> str:
    """A complete HTML document in ``lang`` with the inline stylesheet (and the web font's, if given)."""
    font = f'<style id="sg-webfont">{font_css}</style>' if font_css else ""
    return (f"<!DOCTYPE html>\n<html lang=\"{esc(lang)}\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title>{font}<style>{CSS}</style></head><body><main>"
            f"<h1>{esc(title)}</h1><p class=\"sg-lead\">{lead}</p>{''.join(sections)}"
            f"<footer>{footer}</footer></main></body></html>\n")


def section(ident: str, heading: str, body: str) -> str:
    """A <section> with an id and a heading."""
    return f'<section id="{esc(ident)}"><h2>{esc(heading)}</h2>{body}</section>'


def note(text: str) -> str:
    """A muted paragraph (text already HTML)."""
    return f'<p class="sg-note">{text}</p>'


def number(value, digits: int = 4, yes_no: tuple[str, str] = ("예", "아니오")) -> str:
    """A value as text: integers as they are, other numbers with ``digits`` decimals, missing as an em dash."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "\u2014"
    if isinstance(value, bool):
        return yes_no[0] if value else yes_no[1]
    if isinstance(value, int):
        return f"{value:,}"
    return f"{float(value):.{digits}f}"


def table(df: pd.DataFrame, caption: str, ident: str = "", digits: int = 4, index_label: str = "",
          yes_no: tuple[str, str] = ("예", "아니오")) -> str:
    """A DataFrame as an escaped HTML table (numbers right-aligned, ``data-row``/``data-col`` on each cell).

    ``yes_no``: how True and False are written (the page's language).
    """
    head = "".join(f'<th scope="col" class="{_num_class(df[c])}">{esc(c)}</th>' for c in df.columns)
    classes = [_num_class(df[c]) for c in df.columns]
    rows = []
    for label, *values in df.itertuples(name=None):   # column by column, so each keeps its dtype
        cells = "".join(f'<td class="{k}" data-col="{esc(c)}">{_cell(v, digits, yes_no)}</td>'
                        for c, k, v in zip(df.columns, classes, values))
        rows.append(f'<tr data-row="{esc(label)}"><th scope="row">{esc(label)}</th>{cells}</tr>')
    ident_attr = f' id="{esc(ident)}"' if ident else ""
    return (f'<div class="sg-scroll"><table{ident_attr}><caption>{esc(caption)}</caption><thead><tr>'
            f'<th scope="col">{esc(index_label or df.index.name or "")}</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _num_class(column: pd.Series) -> str:
    """sg-num for a numeric column."""
    return "sg-num" if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column) else ""


def _cell(value, digits: int, yes_no: tuple[str, str]) -> str:
    """One escaped cell: numbers formatted, text escaped."""
    if isinstance(value, str):
        return esc(value)
    if isinstance(value, np.generic):
        value = value.item()
    return esc(number(value, digits, yes_no)) if isinstance(value, (int, float, bool)) or value is None else esc(value)


def histogram_svg(name: str, counts: Sequence[int], labels: Sequence[str], ymax: int, colour_index: int,
                  measure: str, lang: str = "ko") -> str:
    """One retriever's histogram of per-query scores as inline SVG: one bar per bin, bars carry their counts."""
    width, height, left, top, bottom = 240, 150, 30, 28, 26
    plot_w, plot_h = width - left - 8, height - top - bottom
    bw = plot_w / max(1, len(counts))
    colour = PALETTE[colour_index % len(PALETTE)]
    bars = []
    for i, (count, label) in enumerate(zip(counts, labels)):
        h = 0 if ymax == 0 else plot_h * count / ymax
        bars.append(f'<rect x="{left + i * bw + 1:.2f}" y="{top + plot_h - h:.2f}" width="{bw - 2:.2f}" height="{h:.2f}" '
                    f'fill="{colour}" data-bin="{esc(label)}" data-count="{int(count)}">'
                    f"<title>{esc(say(lang, 'bar_title', label=label, count=int(count)))}</title></rect>")
    axis = (f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>'
            f'<text x="{left}" y="{height - 8}" font-size="10">0</text>'
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" font-size="10" text-anchor="middle">0.5</text>'
            f'<text x="{left + plot_w}" y="{height - 8}" font-size="10" text-anchor="end">1</text>'
            f'<text x="{left - 4}" y="{top + 4}" font-size="10" text-anchor="end">{ymax:,}</text>'
            f'<text x="{left - 4}" y="{top + plot_h}" font-size="10" text-anchor="end">0</text>')
    label = say(lang, "histogram", name=name, measure=measure, bars=len(counts), ymax=ymax)
    return (f'<svg viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{esc(label)}" data-retriever="{esc(name)}"><title>{esc(label)}</title>'
            f'<text x="{left}" y="16" font-size="12" font-weight="600">{esc(name)}</text>{"".join(bars)}{axis}</svg>')
