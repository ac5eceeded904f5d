"""`searchgrade report`'s page in headless Chromium: opened from disk, nothing fetched, numbers as the package computes.

The report is built by `tests/support/report.py` (BM25 with two tokenisers, a toy encoder, RRF and a
second stage on a slice of KorQuAD 1.0 dev) and opened as a file:// page; what the browser shows is compared with
`searchgrade.evaluate` on the same runs (never with the report's own tables).
"""
from __future__ import annotations

import numpy as np
import pytest

import searchgrade as sg
from tests.support.browser import DESKTOP, PHONE
from tests.support.report import build
from searchgrade import report
from searchgrade.io import trec_order

VIEWER = '[data-sg-widget="query-viewer"]'


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(collection, runs, path of the written report)."""
    root = tmp_path_factory.mktemp("report-browser")
    coll, folder, text = build(root)
    path = root / "report.html"
    path.write_text(text, encoding="utf-8")
    return coll, folder.runs, path


def test_the_report_opens_offline_without_errors(built, visit):
    _, _, path = built
    v = visit(path)
    assert v.external == [], f"the page asked for outside resources: {v.external}"
    assert not v.local_errors(), v.local_errors()
    ids = v.page.locator("section[id]").evaluate_all("ss => ss.map(s => s.id)")
    assert ids == ["collection", "lineup", "main-table", "ceiling", "flips", "distribution", "second-stage", "viewer"]


def test_the_main_table_shows_the_package_means(built, visit):
    coll, runs, path = built
    v = visit(path)
    rows = v.page.locator("#main-comparison tbody tr").evaluate_all(
        "rs => rs.map(r => Array.from(r.children).map(c => c.childNodes[0].textContent.trim()))")
    assert [r[1] for r in rows] == list(runs)
    for r in rows:
        means = sg.evaluate(coll.qrels, runs[r[1]], list(report.MEASURES)).mean()
        for m, shown in zip(report.MEASURES, r[2:]):
            assert float(shown) == pytest.approx(means[m], abs=5e-5), (r[1], m, shown)


def test_the_histograms_are_drawn_to_scale(built, visit):
    """One figure per run; a bar per bin with the package's count; every bar of every figure on one scale."""
    coll, runs, path = built
    v = visit(path)
    figures = v.page.locator("#histograms svg")
    assert figures.count() == len(runs)
    per_pixel = []
    for i, name in enumerate(runs):
        svg = figures.nth(i)
        assert svg.get_attribute("data-retriever") == name
        bars = svg.locator("rect").evaluate_all(
            "rs => rs.map(r => [Number(r.dataset.count), r.getBoundingClientRect().height])")
        values = sg.evaluate(coll.qrels, runs[name], ["nDCG@10"])["nDCG@10"].to_numpy()
        assert [c for c, _ in bars] == np.histogram(values, bins=np.linspace(0, 1, 11))[0].tolist()
        assert all(h == 0 for c, h in bars if c == 0)
        per_pixel += [h / c for c, h in bars if c > 0]
    assert max(per_pixel) - min(per_pixel) <= 0.02 * max(per_pixel), "the figures are not drawn on one scale"


def test_the_viewer_switches_queries_and_shows_their_scores(built, visit):
    coll, runs, path = built
    v = visit(path)
    root = v.page.locator(VIEWER)
    root.scroll_into_view_if_needed()
    assert root.get_attribute("data-ready") == "true"
    names = root.locator("section.sg-col").evaluate_all("cs => cs.map(c => c.getAttribute('aria-label'))")
    assert len(names) == 3 and set(names) <= set(runs)
    filt, query = root.locator("select.sg-filter"), root.locator("select.sg-query")
    checked = 0
    for value, disabled in filt.locator("option").evaluate_all("os => os.map(o => [o.value, o.disabled])"):
        if disabled:
            continue
        filt.select_option(value)
        qid = query.locator("option").first.get_attribute("value")
        query.select_option(qid)
        assert root.get_attribute("data-qid") == qid
        assert root.locator(".sg-query-text").inner_text() == coll.queries[qid]
        for j, name in enumerate(names):
            col = root.locator("section.sg-col").nth(j)
            shown = dict(zip(col.locator("td.sg-value").evaluate_all("vs => vs.map(v => v.dataset.measure)"),
                             col.locator("td.sg-value").all_inner_texts()))
            want = sg.evaluate({qid: coll.qrels[qid]}, {qid: runs[name].get(qid, {})}, list(shown), missing="zero")
            for m, text in shown.items():
                assert float(text) == pytest.approx(want.loc[qid, m], abs=5e-5), (qid, name, m)
            docs = col.locator("ol.sg-top li").evaluate_all("ls => ls.map(l => l.dataset.docid)")
            assert docs == trec_order(runs[name].get(qid, {}))[:5]
        checked += 1
    assert checked >= 3
    assert not v.local_errors(), v.local_errors()


def test_the_flips_open_and_the_page_fits_a_phone(built, visit):
    _, _, path = built
    v = visit(path, viewport=PHONE)
    overflow = v.page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than a phone screen"
    details = v.page.locator("#flips details")
    if details.count():
        details.locator("summary").click()
        assert details.evaluate("d => d.open") is True
        assert details.locator("table tbody tr").count() >= 1
    desktop = visit(path, viewport=DESKTOP)
    assert desktop.page.locator("#second-stage table").count() == 1


def test_the_report_draws_hangul_with_its_embedded_font(built, visit):
    """On a machine without Korean system fonts (test_web_font checks that) every Hangul text is drawn by
    the NanumGothic the page embeds: headings, prose, tables and the viewer."""
    from test_web_font import check_page

    _, _, path = built
    kinds = check_page(visit, path)
    for kind in ("heading", "body", "table", "query viewer"):
        assert kinds.get(kind, 0) > 0, f"no {kind} with Hangul was checked: {kinds}"


def test_the_viewer_holds_every_query_and_finds_one_by_its_words(built, visit):
    coll, runs, path = built
    v = visit(path)
    root = v.page.locator(VIEWER)
    root.scroll_into_view_if_needed()
    query, search = root.locator("select.sg-query"), root.locator("input.sg-search")
    judged = [q for q in coll.queries if q in coll.qrels]
    assert query.locator("option").count() == len(judged)              # every judged query, not a sample
    target = judged[-1]
    words = coll.queries[target].split()[:2]
    search.fill(" ".join(words))
    shown = query.locator("option").evaluate_all("os => os.map(o => o.value)")
    want = [q for q in judged if " ".join(words).lower() in coll.queries[q].lower() or
            " ".join(words).lower() in q.lower()]
    assert shown == want and target in shown
    query.select_option(target)
    assert root.get_attribute("data-qid") == target
    assert root.locator(".sg-query-text").inner_text() == coll.queries[target]
    search.fill("낱말이-없는-질문-zzz")
    assert query.locator("option").count() == 0
    assert root.locator(".sg-no-match").count() == 1
    assert not v.local_errors(), v.local_errors()
