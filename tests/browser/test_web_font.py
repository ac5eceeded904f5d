"""Korean in the published pages is drawn with the book's web font, on a Chromium with no Korean font.

Three independent readings: Chromium's own record of the fonts that drew each element's text
(DevTools `CSS.getPlatformFontsForNode`), `document.fonts`, and glyph widths (a Hangul string measured
in the element's font stack equals the web font alone and differs from the stack without it).
Without a Korean system font the stack without the web font can only draw empty boxes, so these
tests cannot pass for the wrong reason; the first test makes sure of that precondition.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.browser import book_pages
from searchgrade.book import webfont

HANGUL = "[\\uac00-\\ud7a3]"

# Marks every visible element whose own text has Hangul with data-sg-probe and says what it is.
PROBE_JS = """
() => {
  const hangul = /[\\uac00-\\ud7a3]/g;
  const kinds = [["h1, h2, h3, h4, h5, h6", "heading"], ["th, td", "table"],
                 [".highlight .c, .highlight .c1, .highlight .cm, .highlight .ch", "code comment"],
                 ['[data-sg-widget="scoring-lab"]', "scoring lab"], ['[data-sg-widget="rank-slider"]', "rank slider"],
                 ['[data-sg-widget="query-viewer"]', "query viewer"], ["p, li, dd, dt", "body"]];
  const seen = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const count = (node.data.match(hangul) || []).length;
    const el = node.parentElement;
    if (!count || !el || el.closest("script, style, option, title, noscript, .MathJax, mjx-container")) { continue; }
    seen.set(el, (seen.get(el) || 0) + count);
  }
  const out = [];   // in document order, as DOM.querySelectorAll returns the probes
  const order = Array.from(seen.keys()).sort((a, b) =>
    a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  order.forEach(el => {
    const count = seen.get(el);
    const rects = el.getClientRects();
    if (!rects.length || !el.checkVisibility({visibilityProperty: true, opacityProperty: false})) { return; }
    el.setAttribute("data-sg-probe", String(out.length));
    const kind = kinds.find(([sel]) => el.closest(sel));
    out.push({i: out.length, count: count, kind: kind ? kind[1] : "other", tag: el.tagName.toLowerCase(),
              text: el.textContent.trim().slice(0, 60)});
  });
  return out;
}
"""

# Width of a Hangul string in the element's own font, in the web font alone and in the stack without it.
WIDTH_JS = """
([selector, family]) => {
  const el = document.querySelector(selector);
  const text = (el.textContent.match(/[\\uac00-\\ud7a3]/g) || []).join("").slice(0, 24);
  const style = getComputedStyle(el);
  const probe = document.createElement("span");
  probe.textContent = text;
  Object.assign(probe.style, {position: "absolute", whiteSpace: "nowrap", visibility: "hidden", left: "0", top: "0",
                              fontSize: style.fontSize, fontWeight: style.fontWeight, fontStyle: style.fontStyle});
  document.body.appendChild(probe);
  const width = stack => { probe.style.fontFamily = stack; return probe.getBoundingClientRect().width; };
  const own = style.fontFamily;
  const without = own.split(",").map(s => s.trim()).filter(s => s.replace(/["']/g, "") !== family).join(", ");
  const result = {text: text, own: width(own), web: width('"' + family + '"'), without: width(without || "serif"),
                  check: document.fonts.check(style.fontWeight + " " + style.fontSize + ' "' + family + '"', text)};
  probe.remove();
  return result;
}
"""


def test_no_korean_system_font():
    """Precondition: fontconfig knows no Korean font, so only the web font can draw Hangul here."""
    if not shutil.which("fc-list"):
        pytest.fail("fc-list (fontconfig) is missing: cannot check that no Korean system font is installed")
    found = subprocess.run(["fc-list", ":lang=ko", "family", "file"], capture_output=True, text=True, check=True)
    assert not found.stdout.strip(), ("Korean system fonts are installed, so these tests could pass without "
                                      f"the web font; remove them (fonts-nanum, fonts-noto-cjk, ...):\n{found.stdout}")


def fonts_per_probe(page) -> list[list[dict]]:
    """Chromium's platform fonts for the text of each [data-sg-probe] element, in probe order."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-sg-probe]"})["nodeIds"]
    fonts = [cdp.send("CSS.getPlatformFontsForNode", {"nodeId": n})["fonts"] for n in ids]
    cdp.detach()
    return fonts


def web_font_glyphs(fonts: list[dict]) -> int:
    """Glyphs drawn by the book's NanumGothic (a font the page loaded, not a system one)."""
    return sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"].startswith("NanumGothic"))


def check_page(visit, path) -> dict[str, int]:
    """Every visible Hangul text on the page is drawn by the web font; returns how many elements per kind."""
    v = visit(path)
    v.page.evaluate("() => document.fonts.ready.then(() => true)")
    probes = v.page.evaluate(PROBE_JS)
    fonts = fonts_per_probe(v.page)
    assert len(fonts) == len(probes)
    wrong = [(p["kind"], p["tag"], p["text"], f) for p, f in zip(probes, fonts) if web_font_glyphs(f) < p["count"]]
    assert not wrong, f"{path.name}: Hangul not drawn with the web font: {wrong[:5]} ({len(wrong)} elements)"
    faces = v.page.evaluate(f"""() => Array.from(document.fonts).filter(f => f.family.replace(/["']/g, "") ===
                                {webfont.FAMILY!r}).map(f => [f.weight, f.status])""")
    assert ["400", "loaded"] in faces, faces
    assert not [f for f in faces if f[1] == "error"], faces
    kinds: dict[str, int] = {}
    for p in probes:
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    return kinds


@pytest.fixture(scope="module")
def pages(book):
    return book_pages()


def test_every_page_draws_hangul_with_the_web_font(pages, visit):
    assert pages
    totals: dict[str, int] = {}
    for path in pages:
        for kind, n in check_page(visit, path).items():
            totals[kind] = totals.get(kind, 0) + n
    # the check saw every kind of text the book has, not a page without Korean
    for kind in ("heading", "body", "table", "code comment", "scoring lab", "rank slider", "query viewer"):
        assert totals.get(kind, 0) > 0, f"no {kind} with Hangul was checked: {totals}"


@pytest.mark.parametrize("stem, selector", [
    ("ch02", "article h1"),
    ("ch02", "article p"),
    ("ch02", ".highlight .c1"),
    ("ch02", "table.dataframe th"),
    ("ch02", '[data-sg-widget="scoring-lab"] .sg-help'),
    ("ch04b", '[data-sg-widget="rank-slider"] svg text'),
    ("ch05", '[data-sg-widget="query-viewer"] .sg-gold .sg-snippet'),
])
def test_hangul_widths_are_the_web_fonts(stem, selector, book, visit):
    """The element's Hangul is as wide as in the web font alone, and not as in the stack without it."""
    matches = sorted(book.glob(f"chapters/{stem}*.html"))
    assert matches, f"no chapter {stem}"
    v = visit(matches[0])
    v.page.evaluate("() => document.fonts.ready.then(() => true)")
    element = v.page.locator(selector).filter(has_text=re.compile(HANGUL)).first
    element.scroll_into_view_if_needed()
    marked = element.evaluate("e => { e.setAttribute('data-sg-width', '1'); return e.tagName; }")
    assert marked
    got = v.page.evaluate(WIDTH_JS, ['[data-sg-width="1"]', webfont.FAMILY])
    assert got["text"], got
    assert got["check"], f"document.fonts cannot draw {got['text']!r} with {webfont.FAMILY}"
    assert abs(got["own"] - got["web"]) < 0.5, got
    assert abs(got["own"] - got["without"]) > 1.0, got


def test_without_the_web_font_hangul_is_boxes(visit, tmp_path):
    """The control: the same check on a page without the web font finds no font that draws Hangul."""
    page = tmp_path / "plain.html"
    page.write_text('<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>x</title></head>'
                    "<body><p>한글 문단이다. 글꼴이 없으면 빈 네모로 그려진다.</p></body></html>", encoding="utf-8")
    v = visit(page)
    probes = v.page.evaluate(PROBE_JS)
    fonts = fonts_per_probe(v.page)
    assert len(probes) == 1 and web_font_glyphs(fonts[0]) == 0
    assert not [f for f in fonts[0] if f["isCustomFont"]]
    same = v.page.evaluate("""() => {            // every syllable the same box: the same width for all
        const c = document.createElement("canvas").getContext("2d");
        c.font = "16px sans-serif";
        return ["가", "힣", "뷁", "ㅎ"].map(s => c.measureText(s).width);
    }""")
    assert len(set(same[:3])) == 1, same
