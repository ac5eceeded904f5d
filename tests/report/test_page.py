"""The HTML report (searchgrade.report), read as text: every number it shows, recomputed here from the runs.

Runs: BM25 (two tokenisers), a toy encoder (no model), RRF and a second stage, on a slice of KorQuAD 1.0
dev (60 paragraphs and their questions, so the runs differ) and on tests/fixtures/beir_small.
"""
from __future__ import annotations

import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import searchgrade as sg
from searchgrade import collections as ck
from searchgrade.collections import collection_hash
from searchgrade import stats
from searchgrade import report
from searchgrade.retrieval import lineup as L
from searchgrade.retrieval import runs as engine
from searchgrade.retrieval import workspace
from searchgrade.io import FormatError
from searchgrade.cli.report import main as report_command
from searchgrade.io.runfolder import read_runs
from tests.support.report import FONT_CACHE, build

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "beir_small"

@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The slice, its runs (written and read back) and the report built from them."""
    return build(tmp_path_factory.mktemp("report"))


class Tables(HTMLParser):
    """Every <table> of a page as rows of cell texts, by the table's id (or its position)."""

    def __init__(self):
        super().__init__()
        self.tables, self.stack, self.row, self.cell = {}, [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append(dict(attrs).get("id") or f"#{len(self.tables) + len(self.stack)}")
            self.tables[self.stack[-1]] = []
        elif tag == "tr" and self.stack:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[self.stack[-1]].append(self.row)
            self.row = None
        elif tag == "table" and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables_of(text: str) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(text)
    return parser.tables


def per_query(coll, runs, measures):
    return {n: sg.evaluate(coll.qrels, run, measures, missing="zero") for n, run in runs.items()}


def own(coll, runs, measures):
    """Per-query scores as sg.evaluate gives them by default: a query without results gets no row."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return {n: sg.evaluate(coll.qrels, run, measures) for n, run in runs.items()}


def shared(tables):
    """The tables on the queries every one of them has (what the report's paired tests use)."""
    common = [q for q in next(iter(tables.values())).index if all(q in t.index for t in tables.values())]
    return {n: t.loc[common] for n, t in tables.items()}


def main_rows(text):
    """{retriever: [cell texts]} of the comparison table (a letter, the name, one cell per measure)."""
    start = text.index('id="main-comparison"')
    tables = tables_of(text[start:text.index("</table>", start) + 8])
    rows = next(iter(tables.values()))
    return rows[0], {r[1]: r for r in rows[1:]}


def test_main_table_means_and_markers(made):
    coll, folder, text = made
    header, rows = main_rows(text)
    assert header[2:] == list(report.MEASURES)
    scores = own(coll, folder.runs, list(report.MEASURES))
    means = {n: df.mean() for n, df in scores.items()}
    assert any(len(df) < len(coll.qrels) for df in scores.values())      # a run without results for some query
    for name, run in folder.runs.items():                                  # the means are sg.mean's
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            assert sg.mean(coll.qrels, run, list(report.MEASURES)).to_dict() == pytest.approx(means[name].to_dict())
    scores = shared(scores)
    best = max(folder.runs, key=lambda n: means[n]["nDCG@10"])
    letters = {n: chr(ord("a") + i) for i, n in enumerate(folder.runs)}
    assert list(rows) == list(folder.runs)
    for name, row in rows.items():
        for m, cell in zip(report.MEASURES, row[2:]):
            flagged = cell.endswith("†")
            cell = cell.rstrip("†")
            # a mean deeper than its run is flagged: the rerank stage returns 10 candidates, the others 50
            assert flagged == (name == "rerank-toy" and m in ("R@100", "AP@100")), (name, m)
            value, _, marks = cell.partition(" ") if " " in cell else (cell[:6], "", cell[6:])
            assert float(value) == pytest.approx(means[name][m], abs=5e-5), (name, m)
            # a mark only where the paired test against the best, Holm-adjusted over the other runs, says so
            others = [o for o in folder.runs if o != best]
            p = stats.holm([stats.permutation_test(scores[best][m], scores[o][m], n_perm=2000).p_value for o in others])
            sig = {o: p_o <= 0.05 for o, p_o in zip(others, p)}
            if name == best:
                want = "".join(letters[o] for o in others if sig[o] and means[best][m] > means[o][m])
            else:
                want = letters[best] if sig[name] and means[name][m] > means[best][m] else ""
            assert marks.strip() == want, (name, m, cell)
    assert f"<b>{best}</b>" in text
    # the best value of each column is bold (every run sharing it at four decimals)
    start = text.index('id="main-comparison"')
    body = text[start:text.index("</table>", start)]
    for m in report.MEASURES:
        top = max(round(means[n][m], 4) for n in folder.runs)
        bold = re.findall(rf'data-col="{re.escape(m)}"><strong>([0-9.]+)</strong>', body)
        assert bold and all(float(b) == pytest.approx(top, abs=1e-9) for b in bold), m
        assert len(bold) == sum(f"{means[n][m]:.4f}" == f"{top:.4f}" for n in folder.runs)
    assert "rerank-toy(10개)의 R@100" in text[text.index('id="shallow-note"'):]


def test_ceiling(made):
    coll, folder, text = made
    r = np.array([sum(g >= 1 for g in rel.values()) for rel in coll.qrels.values()])
    value = float(np.minimum(1, r / 10).mean())
    got = float(re.search(r'data-ceiling="([0-9.e-]+)"', text).group(1))
    assert got == pytest.approx(value, abs=1e-12)
    p10 = max(df["P@10"].mean() for df in own(coll, folder.runs, ["P@10"]).values())
    assert f"{p10:.4f}로 천장의 {100 * p10 / value:.1f}%다" in text


def test_flips_are_counted_and_tested(made):
    coll, folder, text = made
    measures = list(report.MEASURES)
    table = pd.DataFrame({n: df.mean() for n, df in own(coll, folder.runs, measures).items()}).T
    flips = 0
    for a, b in [(a, b) for i, a in enumerate(measures) for b in measures[i + 1:]]:
        for x, y in [(x, y) for i, x in enumerate(folder.runs) for y in list(folder.runs)[i + 1:]]:
            da, db = table.at[x, a] - table.at[y, a], table.at[x, b] - table.at[y, b]
            flips += abs(da) > 1e-12 and abs(db) > 1e-12 and np.sign(da) != np.sign(db)
    found = re.search(r'data-flips="(\d+)" data-real="(\d+)"', text)
    assert int(found.group(1)) == flips and flips > 0
    real = tables_of(text).get("flips-real", [])
    assert len(real) - 1 == int(found.group(2)) or (not real and found.group(2) == "0")
    every = tables_of(text)["flips-all"]
    assert [r[0] for r in every[1:]] == [str(i) for i in range(1, flips + 1)]     # numbered from 1
    header = every[0]
    depth = [r[header.index("깊이 주의")] for r in every[1:]]
    for row, note in zip(every[1:], depth):
        pair = {row[header.index("a에서 앞선 쪽")], row[header.index("b에서 앞선 쪽")]}
        deep = {row[header.index("지표 a")], row[header.index("지표 b")]} & {"R@100", "AP@100"}
        assert bool(note) == ("rerank-toy" in pair and bool(deep)), row
        if note:
            assert row[header.index("진짜")] == "아니오"                        # never counted as real
    assert int(re.search(r'data-shallow="(\d+)"', text).group(1)) == sum(bool(n) for n in depth)


def test_histograms_count_the_per_query_scores(made):
    coll, folder, text = made
    bars = re.findall(r'<svg viewBox[^>]*data-retriever="([^"]+)">(.*?)</svg>', text, re.S)
    assert [name for name, _ in bars] == list(folder.runs)
    scores = own(coll, folder.runs, ["nDCG@10"])
    for name, body in bars:
        counts = [int(c) for c in re.findall(r'data-count="(\d+)"', body)]
        values = scores[name]["nDCG@10"].to_numpy()
        assert counts == np.histogram(values, bins=np.linspace(0, 1, 11))[0].tolist(), name
        assert sum(counts) == sum(1 for q in coll.qrels if q in folder.runs[name])   # the queries it answered
    summary = {r[0]: r[1:] for r in tables_of(text)["distribution-summary"][1:]}
    ws = scores["bm25-ws"]["nDCG@10"]
    assert summary["bm25-ws"][2:4] == [str(int((ws == 1).sum())), str(int((ws == 0).sum()))]


def test_second_stage_ceiling(made):
    coll, folder, text = made
    rows = dict(r for r in tables_of(text)["stage-rerank-toy"][1:])
    before = sg.evaluate(coll.qrels, folder.runs["bm25-bigram"], ["R@10"], missing="zero")["R@10"]
    after = sg.evaluate(coll.qrels, folder.runs["rerank-toy"], ["R@10"], missing="zero")["R@10"]
    assert float(rows["1단계 bm25-bigram의 Recall@10"]) == pytest.approx(before.mean(), abs=5e-5)
    assert float(rows["rerank-toy의 Recall@10"]) == pytest.approx(after.mean(), abs=5e-5)
    assert rows["질문마다 같은가"] == "예" and before.equals(after)
    assert rows["후보에 정답이 없는 질문"].startswith(f"{int((before == 0).sum()):,}개")


def test_the_second_stage_section_follows_the_kinds_property_not_its_name(made):
    """A run is a second stage when its record says so (Kind.second_stage), whatever its kind is called."""
    from searchgrade.retrieval.kinds import KINDS

    coll, folder, _ = made
    assert [k for k, row in KINDS.items() if row.second_stage] == ["rerank"]
    assert folder.infos["rerank-toy"]["second_stage"] is True and folder.infos["bm25-bigram"]["second_stage"] is False
    renamed = {n: dict(i, kind="my-stage") if n == "rerank-toy" else i for n, i in folder.infos.items()}
    text = report.build_report(coll, folder.runs, renamed, n_perm=200, font=False)
    assert 'id="second-stage"' in text and 'id="stage-rerank-toy"' in text
    unmarked = {n: dict(i, second_stage=False) for n, i in folder.infos.items()}
    text = report.build_report(coll, folder.runs, unmarked, n_perm=200, font=False)
    assert 'id="second-stage"' not in text


def test_viewer_shows_the_three_best_and_their_groups(made):
    coll, folder, text = made
    scores = per_query(coll, folder.runs, ["nDCG@10"])
    means = own(coll, folder.runs, ["nDCG@10"])
    best3 = sorted(folder.runs, key=lambda n: -means[n]["nDCG@10"].mean())[:3]
    cols = re.findall(r'<section class="sg-col" aria-label="([^"\x27]+)"', text)   # markup, not the script
    assert cols == best3
    a, b, _ = best3
    label = f"{b}의 점수가 {a}보다 높은 질문 (nDCG@10)"
    n_better = int((scores[b]["nDCG@10"] > scores[a]["nDCG@10"]).sum())
    if n_better:
        assert label in text
    assert '<mark class="sg-hl">' in text                     # KorQuAD's answer strings are highlighted
    # every judged query is in the viewer (not a sample), and a search box narrows the menu
    data = json.loads(re.search(r'<script type="application/json" id="sg-viewer-[^"]+-data">(.*?)</script>',
                                text, re.S).group(1))
    assert data["order"] == [q for q in coll.queries if q in coll.qrels] and len(data["order"]) == len(coll.qrels)
    assert re.search(r'<input type="search" class="sg-search" id="sg-viewer-[^"]+-search"', text)


def test_the_page_is_self_contained_and_reproducible(made):
    coll, folder, text = made
    assert text.startswith("<!DOCTYPE html>") and '<html lang="ko">' in text
    assert not re.search(r"https?://|<link\b|\bsrc=|@import|url\((?!data:font/woff2;base64,)", text)
    again = report.build_report(coll, folder.runs, folder.infos, n_perm=2000, font_cache=FONT_CACHE)
    strip = lambda t: re.sub(r"sg-viewer-[0-9a-f]{8}-\d+", "ID", t)   # noqa: E731  (the widget's per-kernel counter)
    assert strip(again) == strip(text)


def test_small_inputs_and_bad_options(tmp_path, monkeypatch):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    coll = ck.load_beir(FIXTURE)
    lineup = L.parse_lineup('[[retriever]]\nname = "b"\nkind = "bm25"\ntokeniser = "ko-bigram"\n'
                            '[[retriever]]\nname = "w"\nkind = "bm25"\ntokeniser = "ko-ws"\n', "two.toml")
    engine.make_runs(coll, lineup, tmp_path / "runs", progress=False)
    folder = read_runs(tmp_path / "runs", collection_hash(coll))
    text = report.build_report(coll, folder.runs, folder.infos, n_perm=200, font=False)
    assert 'class="sg-widget sg-viewer sg-runs-2' in text and 'id="second-stage"' not in text   # two runs: two columns
    cols = r'<section class="sg-col" aria-label="([^"\x27]+)"'     # the markup, not the script
    assert sorted(re.findall(cols, text)) == ["b", "w"]
    picked = report.build_report(coll, folder.runs, viewer=["w"], n_perm=200, font=False)
    assert re.findall(cols, picked) == ["w"]
    with pytest.raises(ValueError, match="viewer: name one to three runs, not 4"):
        report.build_report(coll, {**folder.runs, "c": folder.runs["b"], "d": folder.runs["w"]},
                            viewer=["b", "w", "c", "d"], n_perm=200, font=False)
    one = report.build_report(coll, {"b": folder.runs["b"]}, n_perm=200, font=False)
    assert "검색할 짝이 없다" not in one and "검정할 짝이 없다" in one
    with pytest.raises(ValueError, match="primary measure 'ERR@20' must be one of"):
        report.build_report(coll, folder.runs, primary="ERR@20")
    with pytest.raises(ValueError, match="viewer: no run named x"):
        report.build_report(coll, folder.runs, viewer=["b", "w", "x"], n_perm=200, font=False)
    with pytest.raises(ValueError, match="not in the qrels"):
        report.build_report(coll, {"b": {"q-unknown": {"d1": 1.0}}, "w": folder.runs["w"]})
    out = report.write_report(FIXTURE, tmp_path / "runs", tmp_path / "r" / "report.html", n_perm=200, font=False)
    assert out.read_text(encoding="utf-8").count("<section") >= 6


def test_measures_in_any_spelling_print_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    coll = ck.load_beir(FIXTURE)
    lineup = L.parse_lineup('[[retriever]]\nname = "b"\nkind = "bm25"\ntokeniser = "ko-bigram"\n'
                            '[[retriever]]\nname = "w"\nkind = "bm25"\ntokeniser = "ko-ws"\n', "two.toml")
    engine.make_runs(coll, lineup, tmp_path / "runs", progress=False)
    runs = read_runs(tmp_path / "runs", collection_hash(coll)).runs
    # trec_eval's spellings; the report's own nDCG@10, RR@10 and P@1 reuse these columns instead of clashing
    text = report.build_report(coll, runs, measures=["ndcg_cut_10", "MRR@10", "P_1"], n_perm=200, font=False)
    header, rows = main_rows(text)
    assert header[2:] == ["ndcg_cut_10", "MRR@10", "P_1"]
    want = sg.mean(coll.qrels, runs["b"], ["nDCG@10"], missing="zero")["nDCG@10"]
    assert float(rows["b"][2][:6]) == pytest.approx(want, abs=5e-5)
    assert "기준은 ndcg_cut_10 평균이" in text                  # nDCG@10, the default primary, as written
    assert "평균 뒤의 분포 (ndcg_cut_10)" in text
    text = report.build_report(coll, runs, measures=["MRR@10", "P@10"], primary="RR@10", n_perm=200, font=False)
    assert "기준은 MRR@10 평균이" in text                       # any spelling of a measure picks it
    text = report.build_report(coll, runs, measures=["recip_rank", "P_5"], n_perm=200, font=False)
    assert "기준은 recip_rank 평균이" in text                   # no nDCG@10: the first measure
    with pytest.raises(ValueError, match="'MRR@10' and 'RR@10' are one measure"):
        report.build_report(coll, runs, measures=["MRR@10", "RR@10"])
    out = tmp_path / "r.html"
    assert report_command(["--collection", str(FIXTURE), "--runs", str(tmp_path / "runs"), "--out", str(out),
                        "--measures", "MRR@10", "--primary", "MRR@10", "--n-perm", "100", "--quiet", "--no-font"]) == 0
    assert "기준은 MRR@10 평균이" in out.read_text(encoding="utf-8")


def test_the_korean_web_font_is_embedded(made):
    """The page carries NanumGothic itself (readable without Korean system fonts), with its licence."""
    import base64

    from searchgrade.report import webfont

    _, _, text = made
    style = re.search(r'<style id="sg-webfont">(.*?)</style>', text, re.S).group(1)
    data = re.search(r"url\(data:font/woff2;base64,([A-Za-z0-9+/=]+)\)", style).group(1)
    woff2 = base64.b64decode(data)
    assert woff2[:4] == b"wOF2"
    assert woff2 == webfont.cached_woff2(webfont.FACES[0], FONT_CACHE).read_bytes()
    assert f'font-family: "{webfont.FAMILY}"' in style
    footer = text[text.index("<footer>"):]
    licence = re.search(r'<details class="sg-licence">.*?<pre>(.*?)</pre>', footer, re.S).group(1)
    assert __import__("html").unescape(licence) == webfont.licence_text()    # the licence, whole, in the page
    assert f'--sg-font-family: "{webfont.FAMILY}"' in style
    assert "var(--sg-font-family" in text                     # the page text and the viewer use it first
    book_licence = Path(__file__).resolve().parents[2] / "_static" / "fonts" / "NanumGothic-OFL.txt"
    assert webfont.licence_text() == book_licence.read_text(encoding="utf-8")   # the book's copy, unchanged


def test_the_same_lineup_on_two_query_sets(tmp_path, monkeypatch):
    """`runs --queries` records the variant; `report --baseline` pairs each run with its namesake per query."""
    import json as _json

    from searchgrade.cli import runs as command

    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "cache"))
    coll = ck.load_beir(FIXTURE)
    variant = tmp_path / "nospace.jsonl"
    subset = list(coll.queries)[:-1]                       # a subset of the ids; the first two lose their spaces
    variant.write_text("".join(_json.dumps({"_id": q, "text": coll.queries[q].replace(" ", "") if i < 2
                                            else coll.queries[q]}, ensure_ascii=False) + "\n"
                               for i, q in enumerate(subset)), encoding="utf-8")
    lineup = tmp_path / "two.toml"
    lineup.write_text('[[retriever]]\nname = "b"\nkind = "bm25"\ntokeniser = "ko-bigram"\n'
                      '[[retriever]]\nname = "w"\nkind = "bm25"\ntokeniser = "ko-ws"\n', encoding="utf-8")
    workspace._WORKSPACES.clear()
    common = ["--lineup", str(lineup), "--collection", str(FIXTURE), "--quiet"]
    assert command.main([*common, "--out", str(tmp_path / "clean")]) == 0
    assert command.main([*common, "--out", str(tmp_path / "nospace"), "--queries", str(variant)]) == 0
    record = _json.loads((tmp_path / "nospace" / "queries.json").read_text(encoding="utf-8"))
    assert record["file"] == str(variant.resolve()) and record["queries"] == len(subset)
    out = tmp_path / "r.html"
    assert report_command(["--collection", str(FIXTURE), "--runs", str(tmp_path / "nospace"), "--out", str(out),
                        "--baseline", str(tmp_path / "clean"), "--n-perm", "200", "--quiet", "--no-font"]) == 0
    text = out.read_text(encoding="utf-8")
    rows = {r[0]: r[1:] for r in tables_of(text)["baseline-table"][1:]}
    assert list(rows) == ["b", "w"]
    clean, nospace = read_runs(tmp_path / "clean", collection_hash(coll)), tmp_path / "nospace"
    from searchgrade.collections import with_queries

    variant_coll = with_queries(coll, variant)
    for name in rows:
        qrels = {q: coll.qrels[q] for q in subset if q in coll.qrels}
        mine = sg.evaluate(qrels, read_runs(nospace, collection_hash(variant_coll)).runs[name], ["nDCG@10"], missing="zero")
        base = sg.evaluate(qrels, clean.runs[name], ["nDCG@10"], missing="zero")
        assert float(rows[name][0]) == pytest.approx(mine["nDCG@10"].mean(), abs=5e-5)
        assert float(rows[name][1]) == pytest.approx(base["nDCG@10"].mean(), abs=5e-5)
    with pytest.raises(FormatError, match=r"nospace\.jsonl:1: query 'zz' is not a query"):
        variant.write_text('{"_id": "zz", "text": "x"}\n', encoding="utf-8")
        with_queries(coll, variant)
