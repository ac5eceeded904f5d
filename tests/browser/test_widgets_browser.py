"""The three widgets as a reader uses them: clicked, typed at, slid, on a desktop and a phone.

Whatever a widget shows is compared with what the package computes for that state, here, with
`searchgrade.score_ranking` / `evaluate` (never with the widget's own table).
"""
from __future__ import annotations

import random

import pytest

import searchgrade as sg
from tests.support.browser import DESKTOP, PHONE
from searchgrade.book import widgets
from searchgrade.report import viewer, widget
from searchgrade.book import single_relevant_ranking
from searchgrade.io import trec_order

LAB = '[data-sg-widget="scoring-lab"]'
SLIDER = '[data-sg-widget="rank-slider"]'
VIEWER = '[data-sg-widget="query-viewer"]'


def assert_shown(text: str, value: float, what: str):
    """The text a widget shows is the package's value at 4 decimals."""
    assert text == f"{widget.quantise(value) / widget.SCALE:.4f}", f"{what}: shows {text}, package {value}"
    assert abs(float(text) - value) <= 0.5e-4 + 1e-12, what


@pytest.fixture(scope="module")
def chapter(book):
    """Path of a chapter page by its file stem."""
    def find(stem: str):
        matches = list(book.glob(f"chapters/{stem}*.html"))
        assert matches, f"chapter {stem} is not in the build"
        return matches[0]
    return find


# --------------------------------------------------------------------------- scoring lab


def lab_state(root) -> tuple[list[int], int, int]:
    """(relevant ranks, k, missing) read back from the widget's controls."""
    pressed = root.locator("button.sg-toggle").evaluate_all("bs => bs.map(b => b.getAttribute('aria-pressed'))")
    ranks = [i + 1 for i, p in enumerate(pressed) if p == "true"]
    return ranks, int(root.locator("input.sg-k").input_value()), int(root.locator("select.sg-missing").input_value())


def check_lab(root, ranks: list[int], k: int, missing: int):
    """The widget is in the expected state and shows the package's values for it."""
    assert lab_state(root) == (ranks, k, missing)
    docs = widgets.lab_documents(10)
    qrels = {d: int(i + 1 in ranks) for i, d in enumerate(docs)}
    qrels.update({f"missing{j}": 1 for j in range(missing)})
    cells = root.locator("td.sg-value")
    shown = dict(zip(cells.evaluate_all("cs => cs.map(c => c.getAttribute('data-measure'))"),
                     cells.all_inner_texts()))
    expected_names = [f"P@{k}", f"R@{k}", f"Hit@{k}", f"AP@{k}", f"RR@{k}", f"nDCG@{k}", "RBP(p=0.8)"]
    assert list(shown) == expected_names
    expected = sg.score_ranking(docs, qrels, expected_names)
    for name in expected_names:
        assert_shown(shown[name].strip(), expected[name], f"{name} at relevant={ranks}, k={k}, missing={missing}")
    assert root.locator(".sg-total").inner_text().startswith(f"전체 정답 R = {len(ranks) + missing}개")
    states = root.locator("button.sg-toggle .sg-state").all_inner_texts()
    assert states == ["정답" if i + 1 in ranks else "오답" for i in range(10)]


def test_scoring_lab_follows_clicks_keys_and_selects(chapter, visit):
    v = visit(chapter("ch02"))
    root = v.page.locator(LAB)
    assert root.count() == 1
    root.wait_for(state="attached")
    assert root.get_attribute("data-ready") == "true"
    ranks, k, missing = [1, 3, 5, 7], 5, 0
    check_lab(root, ranks, k, missing)

    toggles = root.locator("button.sg-toggle")
    toggles.nth(1).click()                                  # mouse: rank 2 becomes relevant
    ranks = [1, 2, 3, 5, 7]
    check_lab(root, ranks, k, missing)
    live = root.locator(".sg-live")
    assert live.get_attribute("aria-live") == "polite" and "P@5" in live.inner_text()

    toggles.nth(0).focus()                                  # keyboard: Space and Enter on a focused toggle
    v.page.keyboard.press("Space")
    ranks = [2, 3, 5, 7]
    check_lab(root, ranks, k, missing)
    v.page.keyboard.press("Tab")                            # Tab moves to the next result
    assert toggles.nth(1).evaluate("b => b === document.activeElement")
    v.page.keyboard.press("Enter")
    ranks = [3, 5, 7]
    check_lab(root, ranks, k, missing)

    k_input = root.locator("input.sg-k")                    # the k slider, by keyboard
    k_input.focus()
    v.page.keyboard.press("End")
    k = 10
    check_lab(root, ranks, k, missing)
    v.page.keyboard.press("ArrowLeft")
    k = 9
    check_lab(root, ranks, k, missing)
    assert root.locator("output.sg-k-out").inner_text() == "9"

    root.locator("select.sg-missing").select_option("3")
    missing = 3
    check_lab(root, ranks, k, missing)

    root.locator("button.sg-preset", has_text="정답이 10위에 하나").click()
    ranks = [10]
    check_lab(root, ranks, k, missing)
    assert root.locator('td.sg-value[data-measure="RR@9"]').inner_text() == "0.0000"

    rng = random.Random(7)                                  # a random walk through the states
    for _ in range(25):
        action = rng.choice(["toggle", "k", "missing"])
        if action == "toggle":
            r = rng.randint(1, 10)
            toggles.nth(r - 1).click()
            ranks = sorted(set(ranks) ^ {r})
        elif action == "k":
            k = rng.randint(1, 10)
            k_input.fill(str(k))
        else:
            missing = rng.randint(0, 5)
            root.locator("select.sg-missing").select_option(str(missing))
        check_lab(root, ranks, k, missing)
    assert not v.local_errors(), v.local_errors()


# --------------------------------------------------------------------------- rank slider


def test_rank_slider_follows_the_keyboard(chapter, visit):
    v = visit(chapter("ch04b"))
    root = v.page.locator(SLIDER)
    assert root.count() == 1 and root.get_attribute("data-ready") == "true"
    measures = root.locator("figure.sg-chart").evaluate_all("fs => fs.map(f => f.getAttribute('data-measure'))")
    assert measures == ["RR", "AP", "nDCG@10", "R@10", "RBP(p=0.8)", "ERR@20", "INST(T=1)"]
    rng = root.locator("input.sg-rank")
    rng.focus()
    v.page.keyboard.press("Home")
    previous_x = None
    for rank in range(1, 21):
        if rank > 1:
            v.page.keyboard.press("ArrowRight")
        assert rng.input_value() == str(rank)
        assert rng.get_attribute("aria-valuetext") == f"정답 순위 {rank}위"
        expected = sg.score_ranking(*single_relevant_ranking(rank, 20), measures)
        for j, m in enumerate(measures):
            fig = root.locator("figure.sg-chart").nth(j)
            assert_shown(fig.locator(".sg-value").inner_text(), expected[m], f"{m} at rank {rank}")
            # the marker sits on the curve's point for this rank
            point = fig.locator("polyline").get_attribute("points").split()[rank - 1]
            marker = (fig.locator("circle.sg-marker").get_attribute("cx"), fig.locator("circle.sg-marker").get_attribute("cy"))
            assert tuple(float(x) for x in point.split(",")) == tuple(float(x) for x in marker)
        x = float(root.locator("circle.sg-marker").first.get_attribute("cx"))
        assert previous_x is None or x > previous_x
        previous_x = x
        assert f"정답 순위 {rank}위" in root.locator(".sg-live").inner_text() or rank == 1
    v.page.keyboard.press("End")
    assert root.locator("output.sg-rank-out").inner_text() == "20"
    assert not v.local_errors(), v.local_errors()


# --------------------------------------------------------------------------- per-query viewer (test pages)


def viewer_html_page(folder, name: str, fragment: str):
    """A minimal page holding one widget's HTML."""
    path = folder / name
    path.write_text('<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8">'
                    '<meta name="viewport" content="width=device-width, initial-scale=1">'
                    f"<title>viewer</title></head><body><main>{fragment}</main></body></html>", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def viewer_page(tmp_path_factory):
    """A small page built from the package: the viewer on Cranfield with three runs and filters."""
    from searchgrade import collections, retrieval

    cran = collections.load("cranfield")
    systems = {"BM25 (어간)": ("stems", "bm25"), "TF-IDF (어간)": ("stems", "tfidf"),
               "일치 수준 (어간)": ("stems", "coordination")}
    runs = {name: retrieval.index(cran, analyser=a, model=m).search(cran.queries, k=20, exclude=cran.exclude)
            for name, (a, m) in systems.items()}
    measures = ["nDCG@10", "RR", "R@10"]
    scores = {name: sg.evaluate(cran.qrels, run, measures, missing="zero") for name, run in runs.items()}
    bm25, tfidf = scores["BM25 (어간)"]["nDCG@10"], scores["TF-IDF (어간)"]["nDCG@10"]
    filters = {"BM25가 이긴 질문": list(bm25.index[bm25 > tfidf + 0.3][:6]),
               "TF-IDF가 이긴 질문": list(tfidf.index[tfidf > bm25 + 0.3][:6]),
               "모두 0점": list(bm25.index[(bm25 == 0) & (tfidf == 0)][:6]),
               "빈 묶음": []}
    html = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, mode="html").data
    data = viewer.query_viewer_data(cran.queries, runs, cran.qrels, cran.corpus, scores, filters)
    path = viewer_html_page(tmp_path_factory.mktemp("viewer"), "viewer.html", html)
    return path, cran, runs, scores, filters, data


def expected_mark(grade, graded: bool) -> str:
    """The judgment label the viewer should show (the book's terms)."""
    if grade is None:
        return "판정되지 않음"
    if grade >= 1:
        return f"정답(등급 {grade})" if graded else "정답"
    return "오답"


def check_viewer(root, qid, coll, runs, scores, data=None):
    """The viewer shows this query: its text, the judged relevant documents with where each run ranked
    them, each run's top 5 with judgments, the per-query scores; and (given the widget's data) exactly the
    markup the package renders for that query."""
    assert root.get_attribute("data-qid") == qid
    assert root.locator(".sg-query-text").inner_text().strip() == coll.queries[qid].strip()
    cols = root.locator("section.sg-col")
    assert cols.count() == 3
    graded = any(g > 1 for q in (data["order"] if data else [qid]) for g in coll.qrels[q].values())
    for j, (name, run) in enumerate(runs.items()):
        col = cols.nth(j)
        assert col.get_attribute("aria-label") == name
        items = col.locator("ol.sg-top > li")
        shown = items.evaluate_all("ls => ls.map(l => [l.getAttribute('data-docid'), l.getAttribute('data-grade')])")
        expected = trec_order(run.get(qid, {}), 5)
        assert [d for d, _ in shown] == expected, (name, qid)
        for (d, grade), i in zip(shown, range(len(shown))):
            g = coll.qrels[qid].get(d)
            assert grade == ("" if g is None else str(g))
            assert items.nth(i).locator(".sg-mark").first.inner_text() == expected_mark(g, graded)
        values = col.locator("td.sg-value")
        names = values.evaluate_all("vs => vs.map(v => v.getAttribute('data-measure'))")
        assert names == list(scores[name].columns)
        for m, text in zip(names, values.all_inner_texts()):
            assert_shown(text, float(scores[name].loc[qid, m]), f"{name} {m} on query {qid}")
    relevant = sorted(((d, g) for d, g in coll.qrels[qid].items() if g >= 1), key=lambda p: (-p[1], p[0]))
    assert root.locator(".sg-relevant").inner_text().startswith(f"정답표의 정답 문서 {len(relevant)}개")
    gold = root.locator("ol.sg-gold-docs > li")
    assert gold.evaluate_all("ls => ls.map(l => l.getAttribute('data-docid'))") == [d for d, _ in relevant[:5]]
    for i, (d, _) in enumerate(relevant[:5]):
        where = []
        for name, run in runs.items():
            order = trec_order(run.get(qid, {}))
            where.append(f"{name} {order.index(d) + 1}위" if d in order else f"{name} 목록에 없음")
        assert gold.nth(i).locator(".sg-ranks").inner_text() == "검색기가 매긴 순위: " + ", ".join(where)
    if data is not None:                                    # the page's script built the package's markup
        same = root.evaluate("""(el, html) => { const t = document.createElement("template"); t.innerHTML = html;
                                   return t.innerHTML === el.querySelector(".sg-view").innerHTML; }""",
                             viewer.viewer_query_html(data, qid))
        assert same, f"the script's markup for query {qid} differs from viewer_query_html"


def test_query_viewer_follows_filters_and_queries(viewer_page, visit):
    path, cran, runs, scores, filters, data = viewer_page
    v = visit(path)
    root = v.page.locator(VIEWER)
    assert root.get_attribute("data-ready") == "true"
    order = list(dict.fromkeys(q for m in filters.values() for q in m))
    check_viewer(root, order[0], cran, runs, scores, data)
    filt, query = root.locator("select.sg-filter"), root.locator("select.sg-query")
    assert filt.input_value() == "-1"                        # no start given: every query is offered
    labels = filt.locator("option").all_inner_texts()
    assert labels[0] == f"모든 질문 ({len(order)}개)"
    assert filt.locator("option", has_text="빈 묶음").get_attribute("disabled") is not None
    for i, (label, members) in enumerate(filters.items()):
        if not members:
            continue
        filt.select_option(str(i))
        options = query.locator("option").evaluate_all("os => os.map(o => o.value)")
        assert options == members, label
        check_viewer(root, query.input_value(), cran, runs, scores, data)
        query.select_option(members[-1])
        check_viewer(root, members[-1], cran, runs, scores, data)
        assert members[-1] in root.locator(".sg-live").inner_text()
    # keyboard: a focused <select> changes with the arrow keys
    filt.select_option("-1")
    query.select_option(order[0])
    query.focus()
    v.page.keyboard.press("ArrowDown")
    check_viewer(root, order[1], cran, runs, scores, data)
    assert not v.local_errors(), v.local_errors()


@pytest.fixture(scope="module")
def korquad_viewer_page(tmp_path_factory):
    """The viewer on KorQuAD with three of the line-up's runs and the collection's answer strings."""
    from searchgrade.book import korean_runs

    kq = korean_runs.load_collection("korquad-dev")
    names = ["bm25-kiwi", "dense-e5", "rerank-kiwi-e5"]
    kq_runs = {n: korean_runs.get_run("korquad-dev", n, progress=False) for n in names}
    scores = {n: sg.evaluate(kq.qrels, r, ["RR@10", "nDCG@10", "R@10"], missing="zero") for n, r in kq_runs.items()}
    rr = {n: s["RR@10"] for n, s in scores.items()}
    dense_won = [q for q in kq.queries if rr["dense-e5"].get(q, 0) > rr["bm25-kiwi"].get(q, 0)][:5]
    missed = [q for q in kq.queries if all(rr[n].get(q, 0) == 0 for n in names)][:5]
    filters = {"밀집 검색이 이긴 질문": dense_won, "셋 다 놓친 질문": missed}
    start = dense_won[-1]
    html = viewer.query_viewer(kq.queries, kq_runs, kq.qrels, kq.corpus, scores, filters,
                                answers=kq.meta["answers"], start=start, mode="html").data
    data = viewer.query_viewer_data(kq.queries, kq_runs, kq.qrels, kq.corpus, scores, filters,
                                     answers=kq.meta["answers"], start=start)
    path = viewer_html_page(tmp_path_factory.mktemp("kq-viewer"), "viewer.html", html)
    return path, kq, kq_runs, scores, filters, data, start


def check_answers(root, qid, coll):
    """Highlights are the question's answer strings; documents are marked where the answer judge finds one."""
    answers = coll.meta["answers"][qid]
    norm = lambda t: " ".join(t.casefold().split())  # noqa: E731
    assert root.locator(".sg-answers").is_visible()
    assert [norm(a) for a in root.locator(".sg-answers mark.sg-hl").all_inner_texts()] == \
        [norm(a) for a in dict.fromkeys(a for a in answers if a.split())]
    marks = root.locator(".sg-view li mark.sg-hl").all_inner_texts()
    assert all(norm(m) in {norm(a) for a in answers} for m in marks), marks
    judge = sg.judges.AnswerJudge({qid: answers}, coll.corpus)
    items = root.locator(".sg-view li[data-docid]")
    for i in range(items.count()):
        li = items.nth(i)
        d = li.get_attribute("data-docid")
        assert (li.locator(".sg-mark-ans").count() == 1) == (judge.judge(qid, d) > 0), (qid, d)
    gold = root.locator("ol.sg-gold-docs > li").first           # KorQuAD's gold paragraph holds the answer
    assert gold.locator("mark.sg-hl").count() >= 1 and gold.locator(".sg-mark-ans").count() == 1


def test_query_viewer_shows_answers_and_the_gold_paragraph(korquad_viewer_page, visit):
    path, kq, kq_runs, scores, filters, data, start = korquad_viewer_page
    v = visit(path)
    root = v.page.locator(VIEWER)
    assert root.get_attribute("data-ready") == "true"
    check_viewer(root, start, kq, kq_runs, scores, data)
    check_answers(root, start, kq)
    query = root.locator("select.sg-query")
    for qid in filters["밀집 검색이 이긴 질문"][:3]:
        query.select_option(qid)
        check_viewer(root, qid, kq, kq_runs, scores, data)
        check_answers(root, qid, kq)
    assert not v.local_errors(), v.local_errors()


@pytest.mark.parametrize("viewport, side_by_side", [(DESKTOP, True), (PHONE, False)])
def test_query_viewer_columns_side_by_side_on_a_desktop(korquad_viewer_page, visit, viewport, side_by_side):
    v = visit(korquad_viewer_page[0], viewport=viewport)
    boxes = v.page.locator(f"{VIEWER} section.sg-col").evaluate_all(
        "cs => cs.map(c => { const r = c.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
    assert len(boxes) == 3
    if side_by_side:
        assert len({round(b[1]) for b in boxes}) == 1, boxes           # one row ...
        assert boxes[0][2] <= boxes[1][0] and boxes[1][2] <= boxes[2][0], boxes   # ... left to right
    else:
        assert boxes[0][3] <= boxes[1][1] and boxes[1][3] <= boxes[2][1], boxes   # stacked
    gold = v.page.locator(f"{VIEWER} section.sg-gold").bounding_box()
    assert gold["y"] + gold["height"] <= min(b[1] for b in boxes) + 0.5    # the gold paragraph comes first


def test_query_viewer_in_chapter_5_shows_the_real_runs(chapter, visit):
    """Chapter 5's viewer against the line-up's runs as `searchgrade.book.korean_runs` reads them, filter by filter:
    it starts on a question where dense retrieval wins (MIRACL-ko has no answer strings to highlight)."""
    from searchgrade.book import korean_runs

    v = visit(chapter("ch05"))
    root = v.page.locator(VIEWER)
    assert root.count() == 1
    root.scroll_into_view_if_needed()
    assert root.get_attribute("data-ready") == "true"
    names = root.locator("section.sg-col").evaluate_all("cs => cs.map(c => c.getAttribute('aria-label'))")
    assert len(names) == 3 and all(n in korean_runs.LINEUP for n in names), names
    kq = korean_runs.load_collection("miracl-ko")
    shown_runs = {n: korean_runs.get_run("miracl-ko", n, progress=False) for n in names}
    measures = root.locator("section.sg-col").first.locator("td.sg-value").evaluate_all(
        "vs => vs.map(v => v.getAttribute('data-measure'))")
    filt, query = root.locator("select.sg-filter"), root.locator("select.sg-query")
    start = root.get_attribute("data-qid")
    assert filt.locator("option:checked").inner_text().startswith("밀집 검색이 이긴 질문")
    rr = {n: sg.evaluate({start: kq.qrels[start]}, {start: shown_runs[n].get(start, {})}, ["RR@10"],
                         missing="zero")["RR@10"][start] for n in ("bm25-kiwi", "dense-e5") if n in shown_runs}
    assert rr["dense-e5"] > rr["bm25-kiwi"], f"the viewer starts on {start}, where dense retrieval does not win: {rr}"
    labels = filt.locator("option").evaluate_all("os => os.map(o => [o.value, o.disabled])")
    checked = 0
    for value, disabled in labels:
        if value == "-1" or disabled:
            continue
        filt.select_option(value)
        members = query.locator("option").evaluate_all("os => os.map(o => o.value)")
        assert members
        qids = list(dict.fromkeys([members[0], members[-1]]))
        scores = {n: sg.evaluate({q: kq.qrels[q] for q in qids}, {q: shown_runs[n].get(q, {}) for q in qids},
                                 measures, missing="zero")
                  for n in names}
        for qid in qids:
            query.select_option(qid)
            check_viewer(root, qid, kq, shown_runs, scores)
            checked += 1
    assert checked >= 4
    assert not v.local_errors(), v.local_errors()


# --------------------------------------------------------------------------- phone width and focus


def widget_geometry(root):
    return root.evaluate("""el => {
        const r = el.getBoundingClientRect();
        let widest = 0;
        el.querySelectorAll('*').forEach(c => { const b = c.getBoundingClientRect(); if (b.width) widest = Math.max(widest, b.right); });
        return {left: r.left, right: r.right, scroll: el.scrollWidth, client: el.clientWidth, widest: widest,
                viewport: window.innerWidth};
    }""")


@pytest.mark.parametrize("where, selector", [("ch02", LAB), ("ch04b", SLIDER), ("viewer", VIEWER), ("ch05", VIEWER)])
def test_widgets_fit_a_phone_and_stay_operable(where, selector, viewer_page, visit, request):
    target = viewer_page[0] if where == "viewer" else request.getfixturevalue("chapter")(where)
    v = visit(target, viewport=PHONE)
    root = v.page.locator(selector)
    root.scroll_into_view_if_needed()
    g = widget_geometry(root)
    assert g["right"] <= g["viewport"] + 0.5, g
    assert g["scroll"] <= g["client"] + 1, f"content overflows the widget: {g}"
    assert g["widest"] <= g["viewport"] + 0.5, g
    controls = root.locator("button, input, select")
    assert controls.count() >= 1
    for i in range(controls.count()):
        c = controls.nth(i)
        c.focus()
        assert c.evaluate("e => e === document.activeElement"), f"control {i} cannot take focus"
        box = c.bounding_box()
        assert box and box["height"] >= 40 and box["x"] >= 0 and box["x"] + box["width"] <= g["viewport"] + 0.5
        label = c.evaluate("""e => e.getAttribute('aria-label') || (e.labels && e.labels.length ? e.labels[0].innerText : '')
                                   || e.innerText""")
        assert label.strip(), f"control {i} has no accessible name"
    if where == "ch02":                                     # still works at phone width
        toggles = root.locator("button.sg-toggle")
        toggles.nth(9).click()
        check_lab(root, [1, 3, 5, 7, 10], 5, 0)
    assert not v.local_errors(), v.local_errors()
