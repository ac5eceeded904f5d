"""searchgrade.book.widgets and searchgrade.report.viewer: the embedded numbers are the package's, the HTML is accessible and self-contained."""
import html
import json
import random
import re
from html.parser import HTMLParser

import pytest

import searchgrade as sg
from searchgrade.book import widgets
from searchgrade.report import viewer, widget
from searchgrade.report.text import VIEWER, VIEWER_PAGE
from searchgrade.io import trec_order
from tests.support.examples import spread

N, MAX_MISSING = 10, 5


@pytest.fixture(autouse=True)
def _book_mode(monkeypatch):
    """Tests see the book build's situation unless they say otherwise: no Jupyter session, no override."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv(widget.MODE_ENV, raising=False)


@pytest.fixture(scope="module")
def table():
    return widgets.scoring_table(N, MAX_MISSING, 0.8)


def embedded_data(page: str) -> dict:
    """The JSON a widget embeds for its script."""
    match = re.search(r'<script type="application/json" id="([^"]+)-data">(.*?)</script>', page, re.S)
    assert match, "no embedded data"
    return json.loads(match.group(2))


class Elements(HTMLParser):
    """Collects (tag, attrs) of every start tag."""

    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(page: str) -> list[tuple[str, dict]]:
    parser = Elements()
    parser.feed(page)
    return parser.tags


# --------------------------------------------------------------------------- scoring lab


@pytest.mark.parametrize("k", spread(range(1, N + 1)))
def test_lab_table_equals_package_for_every_state(table, k):
    """All 1024 x 6 states at this k: the lookup the page does equals the package's value, rounded."""
    names = table.measure_names(k)
    qrels, run = {}, {}
    docs = widgets.lab_documents(N)
    for bits in range(2**N):
        for missing in range(MAX_MISSING + 1):
            qid = f"{bits}:{missing}"
            qrels[qid] = widgets.lab_qrels(bits, N, missing)
            run[qid] = {d: float(N - i) for i, d in enumerate(docs)}
    df = sg.evaluate(qrels, run, list(names.values()), ties="input", missing="zero")
    wrong = []
    for qid, row in df.iterrows():
        bits, missing = map(int, qid.split(":"))
        got = table.lookup(bits, k, missing)
        for key, name in names.items():
            if got[key] != widget.quantise(row[name]):
                wrong.append((bits, missing, name, got[key], row[name]))
    assert not wrong, wrong[:5]


def test_lab_table_equals_score_ranking_on_sampled_states(table):
    rng = random.Random(20260101)
    docs = widgets.lab_documents(N)
    for _ in range(400):
        bits, k, missing = rng.randrange(2**N), rng.randint(1, N), rng.randint(0, MAX_MISSING)
        names = table.measure_names(k)
        expected = sg.score_ranking(docs, widgets.lab_qrels(bits, N, missing), list(names.values()))
        got = table.lookup(bits, k, missing)
        for key, name in names.items():
            assert got[key] == widget.quantise(expected[name]), (bits, k, missing, name)
            assert abs(got[key] / widget.SCALE - expected[name]) <= 0.5e-4 + 1e-12


def test_lab_known_values(table):
    """Chapter 2's example state and the seed's 'one relevant at rank 10', by hand."""
    start = sum(1 << (r - 1) for r in (1, 3, 5, 7))
    got = table.lookup(start, 5, 0)
    assert (got["P"], got["R"], got["Hit"], got["RR"]) == (6000, 7500, 10_000, 10_000)
    assert got["AP"] == widget.quantise((1 + 2 / 3 + 3 / 5) / 4)
    tenth = table.lookup(1 << 9, 10, 0)
    assert (tenth["R"], tenth["RR"]) == (10_000, 1000)
    assert all(v == 0 for key, v in table.lookup(1 << 9, 9, 0).items() if key != "RBP")
    assert table.lookup(1 << 9, 9, 0)["RBP"] == widget.quantise(0.2 * 0.8**9)


def test_lab_embedded_table_is_the_table(table):
    page = widgets.scoring_lab(mode="html").data
    data = embedded_data(page)
    assert data["byPrefix"] == [list(a) for a in table.by_prefix]
    assert data["byPrefixR"] == [list(a) for a in table.by_prefix_r]
    assert data["recall"] == list(table.recall) and data["rbp"] == list(table.rbp)
    assert len(page.encode("utf-8")) < 300_000


def test_lab_initial_html_shows_lookup_values(table):
    page = widgets.scoring_lab(relevant=[2, 4], k=3, missing=1, mode="html").data
    got = table.lookup(0b1010, 3, 1)
    names = table.measure_names(3)
    for key, name in names.items():
        cell = re.search(rf'data-measure="{re.escape(html.escape(name))}">([^<]+)<', page)
        assert cell and cell.group(1) == f"{got[key] / 10_000:.4f}", name


def test_lab_html_is_accessible_and_namespaced():
    page = widgets.scoring_lab(mode="html").data
    tags = elements(page)
    toggles = [a for t, a in tags if t == "button" and "sg-toggle" in a.get("class", "")]
    assert len(toggles) == N
    assert all(a.get("aria-pressed") in ("true", "false") and a.get("aria-label") for a in toggles)
    assert [a["aria-pressed"] for a in toggles] == ["true", "false"] * 4 + ["false", "false"]
    ids = [a["id"] for _, a in tags if "id" in a]
    assert len(ids) == len(set(ids))
    labelled = {a["for"] for t, a in tags if t == "label"}
    for t, a in tags:
        if t in ("select", "input"):
            assert a["id"] in labelled, f"{t} {a['id']} has no <label>"
    live = [a for _, a in tags if a.get("aria-live") == "polite"]
    assert len(live) == 1 and live[0].get("role") == "status"
    # a second instance on the same page gets different ids
    other = widgets.scoring_lab(mode="html").data
    other_ids = {a["id"] for _, a in elements(other) if "id" in a}
    assert not other_ids & set(ids)


@pytest.mark.parametrize("make", [
    lambda: widgets.scoring_lab(mode="html").data,
    lambda: widgets.rank_slider(mode="html").data,
])
def test_widgets_load_nothing_from_outside(make):
    page = make()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.I)
    assert "@import" not in page and "url(" not in page
    assert "<script src" not in page


@pytest.mark.parametrize("kwargs, message", [
    ({"k": 0}, "k must be in 1..10"),
    ({"k": 11}, "k must be in 1..10"),
    ({"missing": 6}, "missing must be in 0..5"),
    ({"relevant": [0]}, "relevant rank must be in 1..10"),
    ({"relevant": [11]}, "relevant rank must be in 1..10"),
    ({"relevant": [2, 2]}, "must not repeat"),
    ({"n": 11}, "n must be in 1..10"),
    ({"k": 2.5}, "k must be an integer"),
    ({"mode": "svg"}, "mode must be one of"),
    ({"presets": {"bad": [12]}}, "preset 'bad'"),
    ({"rbp_p": 1.0}, "rbp_p must be in"),
])
def test_lab_refuses_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        widgets.scoring_lab(**kwargs)


def test_lab_ipywidgets_reads_the_same_table(table):
    box = widgets.scoring_lab(mode="ipywidgets")
    ui = box.sg
    ui["toggles"][0].value = False          # ranks 3, 5, 7 relevant
    ui["toggles"][9].value = True           # ... and 10
    ui["k"].value = 4
    ui["missing"].value = 2
    bits = sum(1 << (r - 1) for r in (3, 5, 7, 10))
    got, names = table.lookup(bits, 4, 2), table.measure_names(4)
    for key, name in names.items():
        assert f'data-measure="{html.escape(name)}">{got[key] / 10_000:.4f}<' in ui["output"].value


# --------------------------------------------------------------------------- rank slider


def test_rank_slider_values_are_score_ranking():
    measures = list(widgets.SLIDER_MEASURES)   # chapter 4 shows these, INST(T=1) among them
    page = widgets.rank_slider(measures, n=20, start=3, mode="html").data
    data = embedded_data(page)
    assert data["measures"] == measures
    for r in range(1, 21):
        expected = sg.score_ranking(*sg.book.single_relevant_ranking(r, 20), measures)
        for j, m in enumerate(measures):
            assert data["values"][j][r - 1] == widget.quantise(expected[m]), (r, m)
    # the marker sits higher (smaller y) where the value is larger, and moves right with the rank
    for j in range(len(measures)):
        xy, vals = data["xy"][j], data["values"][j]
        assert all(a[0] < b[0] for a, b in zip(xy, xy[1:]))
        for a in range(20):
            for b in range(20):
                if vals[a] > vals[b]:
                    assert xy[a][1] < xy[b][1]
    tags = elements(page)
    ranges = [a for t, a in tags if t == "input" and a.get("type") == "range"]
    assert len(ranges) == 1 and ranges[0]["aria-valuetext"] == "정답 순위 3위"
    assert sum(1 for t, a in tags if t == "svg" and a.get("role") == "img" and a.get("aria-label")) == len(measures)
    assert any(a.get("aria-live") == "polite" for _, a in tags)


def test_rank_slider_refuses_bad_input():
    with pytest.raises(ValueError, match="unknown|Unknown|known"):
        widgets.rank_slider(["NotAMeasure@3"])
    with pytest.raises(ValueError, match="start must be in 1..20"):
        widgets.rank_slider(start=21)
    with pytest.raises(ValueError, match="at least one measure"):
        widgets.rank_slider([])
    with pytest.raises(ValueError, match="repeat"):
        widgets.rank_slider(["RR", "RR"])


def test_rank_slider_ipywidgets():
    box = widgets.rank_slider(["RR", "R@10"], n=20, start=1, mode="ipywidgets")
    box.sg["slider"].value = 11
    assert 'data-measure="RR">0.0909<' in box.sg["output"].value
    assert 'data-measure="R@10">0.0000<' in box.sg["output"].value


# --------------------------------------------------------------------------- per-query viewer


@pytest.fixture(scope="module")
def cranfield_viewer_inputs():
    from searchgrade import collections, retrieval

    cran = collections.load("cranfield")
    systems = {"BM25": ("stems", "bm25"), "TF-IDF": ("stems", "tfidf"), "일치 수준": ("stems", "coordination")}
    runs = {name: retrieval.index(cran, analyser=a, model=m).search(cran.queries, k=20, exclude=cran.exclude)
            for name, (a, m) in systems.items()}
    scores = {name: sg.evaluate(cran.qrels, run, ["nDCG@10", "RR", "R@10"], missing="zero")
              for name, run in runs.items()}
    bm25, tfidf = scores["BM25"]["nDCG@10"], scores["TF-IDF"]["nDCG@10"]
    filters = {"BM25가 이긴 질문": list(bm25.index[bm25 > tfidf + 0.3][:8]),
               "TF-IDF가 이긴 질문": list(tfidf.index[tfidf > bm25 + 0.3][:8]),
               "모두 0점": list(bm25.index[(bm25 == 0) & (tfidf == 0)][:8])}
    return cran, runs, scores, filters


def top_items(fragment: str) -> list[list[str]]:
    """Document ids of each <ol class="sg-top"> list (one per run column), in order."""
    return [re.findall(r'<li data-docid="([^"]*)"', ol) for ol in re.findall(r'<ol class="sg-top">(.*?)</ol>', fragment, re.S)]


def initial_view(page: str) -> str:
    """The markup inside the HTML page's <div class="sg-view"> (the start query, before any script runs)."""
    match = re.search(r'<div class="sg-view">(.*)</div><p class="sg-print-note">', page, re.S)
    assert match, "no sg-view"
    return match.group(1)


def test_query_viewer_data_is_the_runs_and_the_package(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    data = viewer.query_viewer_data(cran.queries, runs, cran.qrels, cran.corpus, scores, filters)
    assert data["runs"] == list(runs)
    assert data["order"] == list(dict.fromkeys(q for m in filters.values() for q in m))
    assert data["graded"] is True and data["answers"] == {}
    for q in data["order"]:
        for j, (name, run) in enumerate(runs.items()):
            top = data["top"][q][j]
            assert [d for d, _ in top] == trec_order(run[q], 5)
            assert [g for _, g in top] == [cran.qrels[q].get(d) for d, _ in top]
            assert data["scores"][q][j] == [widget.quantise(v) for v in scores[name].loc[q]]
        relevant = sorted(((d, g) for d, g in cran.qrels[q].items() if g >= 1), key=lambda p: (-p[1], p[0]))
        assert data["relevant"][q] == [list(p) for p in relevant]
        gold = data["gold"][q]
        assert [g[:2] for g in gold] == [list(p) for p in relevant[:5]]
        for d, _, snippet, spans, has_answer, ranks in gold:       # where each run ranked the relevant document
            full = [trec_order(run[q]) for run in runs.values()]
            assert ranks == [order.index(d) + 1 if d in order else None for order in full]
            assert spans == [] and has_answer is None
            assert snippet.rstrip("\u2026") in " ".join(cran.corpus[d]["text"].split())


def test_query_viewer_computes_scores_when_not_given(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    data = viewer.query_viewer_data(cran.queries, runs, cran.qrels, cran.corpus, None, filters,
                                     measures=["nDCG@10", "RR", "R@10"])
    for q in data["order"]:
        for j, name in enumerate(runs):
            assert data["scores"][q][j] == [widget.quantise(v) for v in scores[name].loc[q]]


def test_query_viewer_html(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    page = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, mode="html").data
    tags = elements(page)
    labelled = {a["for"] for t, a in tags if t == "label"}
    selects = [a for t, a in tags if t == "select"]
    assert len(selects) == 2 and all(a["id"] in labelled for a in selects)
    assert sum(1 for t, a in tags if t == "section" and a.get("aria-label") in runs) == 3
    assert sum(1 for t, a in tags if t == "section" and "sg-gold" in a.get("class", "")) == 1
    assert any(a.get("aria-live") == "polite" for _, a in tags)
    data = embedded_data(page)
    first = data["order"][0]
    assert data["start"] == first and data["startFilter"] == -1       # no start given: every query is offered
    assert top_items(initial_view(page)) == [trec_order(run[first], 5) for run in runs.values()]
    relevant = sum(1 for g in cran.qrels[first].values() if g >= 1)
    assert f'<p class="sg-relevant">정답표의 정답 문서 {relevant}개</p>' in page
    assert len(page.encode("utf-8")) < 300_000


def test_query_viewer_marks_judgments(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    data = viewer.query_viewer_data(cran.queries, runs, cran.qrels, cran.corpus, scores, filters)
    assert viewer.viewer_mark(data, None) == "판정되지 않음"
    assert viewer.viewer_mark(data, 0) == "오답" and viewer.viewer_mark(data, -1) == "오답"
    assert viewer.viewer_mark(data, 3) == "정답(등급 3)"
    binary = {q: {d: 1 for d in j} for q, j in cran.qrels.items()}
    flat = viewer.query_viewer_data(cran.queries, runs, binary, cran.corpus, None, filters)
    assert flat["graded"] is False and viewer.viewer_mark(flat, 1) == "정답"


def test_query_viewer_starts_where_asked(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    start = filters["TF-IDF가 이긴 질문"][1]
    page = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, start=start,
                                mode="html").data
    data = embedded_data(page)
    assert data["start"] == start and data["startFilter"] == 1
    selected = re.findall(r'<option value="([^"]*)"[^>]*\sselected>', page)
    assert selected == ["1", start]                          # the group holding the start query, and the query
    query_select = re.search(r'<select class="sg-query"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]*)"', query_select) == filters["TF-IDF가 이긴 질문"]
    assert initial_view(page) == viewer.viewer_query_html(data, start)
    with pytest.raises(ValueError, match=r"start query 'nope' is not among"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, start="nope")


def answer_corpus():
    """Three runs over four documents; the answer of q1 sits past the first 40 characters of d1."""
    filler = "가나다라마바사아자차카타파하 " * 6
    corpus = {"d1": {"title": "첫 문서", "text": filler + "정답은 1985년 서울이다. " + filler},
              "d2": {"title": "둘째", "text": "여기에도 1985년이 나온다."},
              "d3": {"title": "셋째", "text": "답이 없는 문단이다."},
              "d4": {"title": "넷째", "text": "Answer Text in Latin, answer   text again."}}
    runs = {"a": {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}},
            "b": {"q1": {"d3": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}},
            "c": {"q1": {}, "q2": {"d4": 2.0, "d1": 1.0}}}
    qrels = {"q1": {"d1": 1}, "q2": {"d4": 1, "d3": 0}}
    queries = {"q1": "언제 어디?", "q2": "which text?"}
    answers = {"q1": ["1985년"], "q2": ["answer text"]}
    return queries, runs, qrels, corpus, answers


def test_query_viewer_highlights_answers():
    queries, runs, qrels, corpus, answers = answer_corpus()
    data = viewer.query_viewer_data(queries, runs, qrels, corpus, answers=answers, snippet_chars=40, gold_chars=60)
    judge = sg.judges.AnswerJudge(answers, corpus)
    for q in data["order"]:
        for d, (snippet, spans, has_answer) in data["passages"][q].items():
            assert has_answer == (judge.judge(q, d) > 0), (q, d)
            for a, b in spans:                                  # each span is an answer, case aside
                assert snippet[a:b].casefold().split() == answers[q][0].casefold().split()
            assert bool(spans) == has_answer                    # the window is moved onto the answer
    snippet, spans, _ = data["passages"]["q1"]["d1"]
    assert snippet.startswith("\u2026") and snippet.endswith("\u2026") and len(snippet) == 42
    gold = data["gold"]["q1"][0]
    assert gold[0] == "d1" and gold[2][gold[3][0][0]:gold[3][0][1]] == "1985년"
    assert gold[5] == [2, 2, None]                              # ranked 2nd by a and b, absent from c
    assert [len(data["passages"]["q2"]["d4"][1])] == [2]        # both occurrences, whitespace and case aside
    fragment = viewer.viewer_query_html(data, "q1")
    assert '<mark class="sg-hl">1985년</mark>' in fragment
    assert fragment.count('<span class="sg-mark sg-mark-ans">답 포함</span>') == 4   # d1 twice, d2, gold d1
    assert '<p class="sg-answers">답 문자열: <mark class="sg-hl">1985년</mark></p>' in fragment
    assert "a 2위, b 2위, c 목록에 없음" in fragment
    assert '<p class="sg-note sg-empty">이 질문에는 결과가 없다.</p>' in fragment   # run c is empty for q1
    plain = viewer.query_viewer_data(queries, runs, qrels, corpus)
    assert "sg-hl" not in viewer.viewer_query_html(plain, "q1") and "답 포함" not in viewer.viewer_query_html(plain, "q1")


def test_query_viewer_refuses_bad_answers():
    queries, runs, qrels, corpus, _ = answer_corpus()
    with pytest.raises(ValueError, match="answers must be a dict"):
        viewer.query_viewer_data(queries, runs, qrels, corpus, answers=["1985년"])
    with pytest.raises(ValueError, match=r"answers\['q1'\] must be a list of strings"):
        viewer.query_viewer_data(queries, runs, qrels, corpus, answers={"q1": "1985년"})


def test_query_viewer_escapes_document_text():
    evil = "</script><script>alert(1)</script> & <b>"
    queries = {"1": "q <one>"}
    corpus = {"a": {"title": evil, "text": evil}, "b": {"title": "b", "text": "b"}}
    runs = {name: {"1": {"a": 2.0, "b": 1.0}} for name in ("x", "y", "z")}
    page = viewer.query_viewer(queries, runs, {"1": {"a": 1}}, corpus, answers={"1": ["<b>"]}, mode="html").data
    data_part = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S).group(1)
    assert "</script" not in data_part and "<" not in data_part
    assert json.loads(data_part)["titles"]["a"] == evil
    assert "<script>alert(1)" not in page.replace(data_part, "") and "<b>" not in page.replace(data_part, "")
    assert '<mark class="sg-hl">&lt;b&gt;</mark>' in page


def test_query_viewer_refuses_bad_input(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    with pytest.raises(ValueError, match="one to three runs"):
        viewer.query_viewer(cran.queries, {}, cran.qrels, cran.corpus)
    with pytest.raises(ValueError, match="one to three runs"):
        viewer.query_viewer(cran.queries, {**runs, "extra": runs["BM25"]}, cran.qrels, cran.corpus)
    with pytest.raises(ValueError, match=r"filter 'x': query ids not in `queries`: \['nope'\]"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, filters={"x": ["1", "nope"]})
    with pytest.raises(ValueError, match="give a list of query ids"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, filters={"x": "1"})
    small_corpus = {d: v for d, v in cran.corpus.items() if d != trec_order(runs["BM25"]["1"], 1)[0]}
    with pytest.raises(ValueError, match=r"run 'BM25', query '1': document '\d+' is not in the corpus"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, small_corpus, qids=["1"])
    partial = {name: df.drop(index="1") for name, df in scores.items()}
    with pytest.raises(ValueError, match=r"has no row for queries \['1'\]"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, partial, qids=["1"])
    with pytest.raises(ValueError, match="bytes"):
        viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, max_bytes=10_000)
    with pytest.raises(ValueError, match="without judgments"):
        viewer.query_viewer({**cran.queries, "zz": "new"}, runs, cran.qrels, cran.corpus, qids=["zz"])


def test_query_viewer_html_and_ipywidgets_agree(cranfield_viewer_inputs):
    """The HTML page's first view and every ipywidgets view are the same markup, from the same data."""
    cran, runs, scores, filters = cranfield_viewer_inputs
    start = filters["BM25가 이긴 질문"][2]
    page = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, start=start,
                                mode="html").data
    box = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, start=start,
                               mode="ipywidgets")
    ui, data = box.sg, embedded_data(page)
    assert json.loads(json.dumps(ui["data"])) == data
    assert ui["filter"].value.startswith("BM25가 이긴 질문") and ui["query"].value == start
    assert initial_view(page) == viewer.viewer_query_html(data, start)
    assert f'<div class="sg-view">{viewer.viewer_query_html(data, start)}</div>' in ui["output"].value
    for q in data["order"][:12]:
        ui["filter"].value = ui["filter"].options[0]
        ui["query"].value = q
        assert f'<div class="sg-view">{viewer.viewer_query_html(data, q)}</div>' in ui["output"].value
        assert top_items(ui["output"].value) == [trec_order(run[q], 5) for run in runs.values()]


def test_query_viewer_ipywidgets(cranfield_viewer_inputs):
    cran, runs, scores, filters = cranfield_viewer_inputs
    box = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, mode="ipywidgets")
    ui = box.sg
    # what a reader sees before touching anything: the first query, not an empty group
    assert ui["query"].value == ui["data"]["start"] and ui["query"].value is not None
    assert f'data-qid="{ui["query"].value}"' in ui["output"].value
    label = next(o for o in ui["filter"].options if o.startswith("TF-IDF가 이긴 질문"))
    ui["filter"].value = label
    assert ui["query"].value == filters["TF-IDF가 이긴 질문"][0]      # a new group starts at its first query
    q = filters["TF-IDF가 이긴 질문"][-1]
    ui["query"].value = q
    for run in runs.values():
        for d in trec_order(run[q], 5):
            assert f'data-docid="{d}"' in ui["output"].value


# --------------------------------------------------------------------------- the book's voice

POLITE = re.compile(r"(?:니다|세요|해요|어요|아요|에요|예요|죠)(?=[\s.,!?)\]<\"']|$)")


def korean_text(markup: str) -> list[str]:
    """Every piece of Korean a reader can see or hear: text between tags and accessible attribute values."""
    parts = re.split(r"<[^>]+>", re.sub(r"<script.*?</script>|<style.*?</style>", "", markup, flags=re.S))
    parts += re.findall(r'(?:aria-label|aria-valuetext|title)="([^"]*)"', markup)
    return [html.unescape(p).strip() for p in parts if re.search("[\uac00-\ud7a3]", p)]


def test_voice_check_can_fail():
    assert POLITE.search("바뀝니다.") and POLITE.search("없어요") and POLITE.search("고르세요<")
    assert not POLITE.search("바뀐다.") and not POLITE.search("정답표의 정답 문서 3개")


def test_widget_text_is_in_the_book_voice(cranfield_viewer_inputs):
    """Labels, help, notes and messages in 해라체 (…다), never 합니다/해요, in both renderings."""
    cran, runs, scores, filters = cranfield_viewer_inputs
    queries, aruns, aqrels, acorpus, answers = answer_corpus()
    pages = [widgets.scoring_lab(mode="html").data, widgets.rank_slider(mode="html").data,
             viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, filters, mode="html").data,
             viewer.query_viewer(queries, aruns, aqrels, acorpus, answers=answers, mode="html").data]
    lab, slider = widgets.scoring_lab(mode="ipywidgets"), widgets.rank_slider(mode="ipywidgets")
    box = viewer.query_viewer(cran.queries, runs, cran.qrels, cran.corpus, scores, {"빈 묶음": [], **filters},
                              mode="ipywidgets")
    pages += [lab.sg["output"].value, slider.sg["output"].value, box.sg["output"].value]
    box.sg["filter"].value = box.sg["filter"].options[1]          # the empty group's message
    pages.append(box.sg["output"].value)
    texts = [t for page in pages for t in korean_text(page)]
    texts += list(VIEWER["ko"].values()) + [VIEWER_PAGE["ko"]["print"], widgets.LAB_TOTAL, widgets.SLIDER_RANK_TEXT]
    texts += [t.tooltip for t in lab.sg["toggles"]] + [w.description for w in (lab.sg["k"], lab.sg["missing"])]
    assert len(texts) > 40
    assert "이 묶음에는 질문이 없다." in texts
    polite = [t for t in texts if POLITE.search(t)]
    assert not polite, polite


# --------------------------------------------------------------------------- mode


def test_auto_mode_in_a_session_returns_ipywidgets(monkeypatch):
    import ipywidgets

    monkeypatch.setenv("JPY_SESSION_NAME", "x.ipynb")
    assert isinstance(widgets.scoring_lab(), ipywidgets.Widget)
    assert isinstance(widgets.rank_slider(), ipywidgets.Widget)
