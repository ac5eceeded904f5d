"""`searchgrade report` from plain TREC run files of any system, in English or Korean, and its one-line errors.

Three small run files (one misses two queries, one names a query the judgments lack) and their qrels are
written here with a seeded generator; no model, no collection needed.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from html import unescape
from pathlib import Path

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.__main__ import main
from searchgrade.report import text as words

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "beir_small"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
MEASURES = ["P@10", "nDCG@10", "RR@10"]


def write_runs(folder: Path) -> tuple[Path, list[Path]]:
    """qrels.txt and three runs (bm25.run.gz-like names, one without queries 3 and 7, one with query 99)."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(30)]
    lines = [f"{q} 0 {d} {int(rng.integers(0, 3))}" for q in range(1, 13) for d in rng.choice(docs, 4, replace=False)]
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    paths = []
    for name, drop in (("bm25.run", ()), ("dense.trec", (3, 7)), ("hybrid", ())):
        rows = [f"{q} Q0 {d} {r + 1} {10 - r} tag-{name}" for q in range(1, 13) if q not in drop
                for r, d in enumerate(rng.choice(docs, 10, replace=False))]
        if name == "hybrid":
            rows.append("99 Q0 d1 1 1.0 tag-hybrid")
        path = folder / name
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        paths.append(path)
    return qrels, paths


@pytest.fixture()
def plain(tmp_path):
    return write_runs(tmp_path)


def report(*args) -> int:
    return main(["report", *map(str, args), "--n-perm", "200", "--quiet", "--no-font",
                 "--measures", ",".join(MEASURES)])


def visible(html: str) -> str:
    """The page's text without its style, scripts and embedded data."""
    html = re.sub(r"<style.*?</style>|<script.*?</script>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def main_means(html: str) -> dict[str, list[float]]:
    body = html[html.index('id="main-comparison"'):]
    body = body[:body.index("</table>")]
    rows = re.findall(r'<tr data-row="([^"]+)">(.*?)</tr>', body, re.S)
    return {name: [float(v) for v in re.findall(r'data-col="[^"]+">(?:<strong>)?([0-9.]+)', cells)]
            for name, cells in rows}


def test_three_plain_run_files_make_an_english_page(plain, tmp_path, capsys):
    qrels, runs = plain
    out = tmp_path / "page.html"
    assert report("--qrels", qrels, "--lang", "en", "--out", out, *runs) == 0
    html = out.read_text(encoding="utf-8")
    assert '<html lang="en">' in html and "Main table" in html and "Retrievers compared" in html
    assert not HANGUL.findall(visible(html))                 # no Korean word of the page's own
    # runs named by file name without the extension; the means are sg.mean's (a query without results left out)
    means = main_means(html)
    assert list(means) == ["bm25", "dense", "hybrid"]
    qrels_dict = sg.read_qrels(qrels)
    for name, path in zip(means, runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            want = sg.mean(qrels_dict, sg.read_run(path, warn=False), MEASURES)
        assert means[name] == pytest.approx([round(want[m], 4) for m in MEASURES], abs=1e-9), name
    assert 'data-missing="ignore"' in html and "left out of that retriever's means" in visible(html)
    err = capsys.readouterr().err
    assert "hybrid: 1 run query is not in the judgments and was skipped" in err
    assert "Run queries skipped because the judgments do not have them: hybrid 1" in visible(html)
    assert "Made from the judgments and the runs alone" in html      # no collection: ids only


def test_minus_c_counts_a_query_without_results_as_zero(plain, tmp_path):
    qrels, runs = plain
    out = tmp_path / "page.html"
    assert report("--qrels", qrels, "-c", "--out", out, *runs) == 0
    html = out.read_text(encoding="utf-8")
    assert '<html lang="ko">' in html and 'data-missing="zero"' in html and "0점으로 센다" in html
    dense = sg.mean(sg.read_qrels(qrels), sg.read_run(runs[1], warn=False), MEASURES, missing="zero")
    assert main_means(html)["dense"] == pytest.approx([round(dense[m], 4) for m in MEASURES], abs=1e-9)


def test_runs_named_by_run_id_and_clashing_names(plain, tmp_path, capsys):
    qrels, runs = plain
    out = tmp_path / "page.html"
    assert report("--qrels", qrels, "--names", "runid", "--out", out, *runs) == 0
    assert list(main_means(out.read_text(encoding="utf-8"))) == ["tag-bm25.run", "tag-dense.trec", "tag-hybrid"]
    twin = tmp_path / "other"
    twin.mkdir()
    (twin / "bm25.txt").write_bytes(runs[0].read_bytes())
    capsys.readouterr()
    assert report("--qrels", qrels, "--out", out, runs[0], twin / "bm25.txt") == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "two runs are named 'bm25'" in err and "--names runid" in err


def test_a_collection_gives_the_viewer_its_texts(tmp_path):
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d3 2 1.0 a\nq2 Q0 d3 1 1.0 a\nq3 Q0 d2 1 1.0 a\n", encoding="utf-8")
    qrels = FIXTURE / "qrels" / "test.tsv"
    out = tmp_path / "page.html"
    assert report("--collection", FIXTURE, "--out", out, run) == 0     # judgments from the collection
    assert "토마토 껍질을" in out.read_text(encoding="utf-8")
    plain = tmp_path / "qrels.txt"
    plain.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                             (line.split("\t") for line in qrels.read_text().splitlines()[1:])), encoding="utf-8")
    assert report("--qrels", plain, "--out", out, run) == 0            # no collection: ids only
    assert "토마토" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, words_", [
    (["--measures", ""], "--measures '' names nothing"),
    (["--viewer", ","], "--viewer ',' names nothing"),
])
def test_empty_lists_are_one_line_errors(plain, tmp_path, capsys, args, words_):
    qrels, runs = plain
    assert main(["report", "--qrels", str(qrels), "--out", str(tmp_path / "p.html"), *args, *map(str, runs)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words_ in err
    assert not (tmp_path / "p.html").exists()


def test_out_a_folder_is_refused_and_leaves_nothing(plain, tmp_path, capsys):
    qrels, runs = plain
    folder = tmp_path / "here"
    folder.mkdir()
    assert report("--qrels", qrels, "--out", folder, *runs) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a folder" in err and "Traceback" not in err
    assert list(folder.iterdir()) == [] and not list(tmp_path.glob("*.tmp*"))


def test_runs_out_a_file_and_check_without_out(tmp_path, capsys):
    lineup = tmp_path / "one.toml"
    lineup.write_text('[[retriever]]\nname = "b"\nkind = "bm25"\ntokeniser = "ko-bigram"\n', encoding="utf-8")
    taken = tmp_path / "taken"
    taken.write_text("x", encoding="utf-8")
    assert main(["runs", "--lineup", str(lineup), "--collection", str(FIXTURE), "--out", str(taken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err
    assert main(["runs", "--lineup", str(lineup), "--collection", str(FIXTURE), "--check"]) == 0
    assert "all usable here" in capsys.readouterr().out
    assert main(["runs", "--lineup", str(lineup), "--collection", str(FIXTURE)]) == 2
    assert "--out DIR is required" in capsys.readouterr().err


def test_a_corrupt_lineup_json_is_named(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.run").write_text("q1 Q0 d1 1 1.0 a\n", encoding="utf-8")
    (folder / "lineup.json").write_text('{"retrievers": [', encoding="utf-8")
    assert main(["report", "--collection", str(FIXTURE), "--runs", str(folder), "--out", str(tmp_path / "p.html"),
                 "--quiet", "--no-font"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{folder / 'lineup.json'}:1: not valid JSON" in err


def test_the_report_needs_neither_tqdm_nor_ipython(plain, tmp_path):
    """Run as the core alone would: tqdm and IPython cannot be imported, and neither is loaded."""
    qrels, runs = plain
    out = tmp_path / "page.html"
    code = ("import sys; sys.modules['tqdm'] = None; sys.modules['IPython'] = None\n"
            "from searchgrade.__main__ import main\n"
            f"rc = main(['report', '--qrels', {str(qrels)!r}, '--lang', 'en', '--n-perm', '100', '--out', {str(out)!r}, "
            f"*{[str(r) for r in runs]!r}])\n"
            "assert 'ipywidgets' not in sys.modules\n"
            "sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_both_languages_have_the_same_words():
    assert set(words.TEXT["ko"]) == set(words.TEXT["en"])
    assert set(words.VIEWER["ko"]) == set(words.VIEWER["en"])
    assert set(words.VIEWER_PAGE["ko"]) == set(words.VIEWER_PAGE["en"])
    assert not HANGUL.findall(json.dumps([words.TEXT["en"], words.VIEWER["en"], words.VIEWER_PAGE["en"]],
                                         ensure_ascii=False))


# ------------------------------------------------- the page of plain files (issue 41 §3, cosmetics)
def test_a_plain_page_names_judgments_shows_ids_once_and_only_what_the_files_tell(plain, tmp_path):
    qrels, runs = plain
    out = tmp_path / "page.html"
    assert report("--qrels", qrels, "--lang", "en", "--out", out, *runs) == 0
    html = out.read_text(encoding="utf-8")
    text = visible(html)
    assert "of the judgments qrels.txt" in text and "Judgments qrels.txt (hash of its query ids" in text
    assert "Collection qrels.txt" not in text and "collection qrels.txt" not in text
    lineup = html[html.index('id="lineup-table"'):]
    lineup = visible(lineup[:lineup.index("</table>")])
    assert "no record" not in lineup and "SHA-256" not in lineup and "depth" in lineup
    assert not re.search(r'<span class="sg-docid">\(d\d+\)', html)     # the viewer shows an id once
    assert not re.search(r"\b(d\d+) \(\1\)", text)               # no "d3 (d3)"
    assert not re.search(r"\b1 (more )?relevant documents\b", text)


def test_the_viewer_says_one_relevant_document_in_the_singular():
    from searchgrade.report.viewer import query_viewer_data, viewer_query_html

    corpus = {d: {"title": "", "text": ""} for d in "abcdef"}
    qrels = {"q1": {"a": 1}, "q2": {d: 1 for d in "abcdef"}}
    data = query_viewer_data({"q1": "one", "q2": "two"}, {"r": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}}, qrels,
                             corpus, lang="en", max_relevant_shown=5)
    one = visible(viewer_query_html(data, "q1"))
    assert "1 relevant document of the judgments" in one and "a (a)" not in one
    assert "6 relevant documents of the judgments" in visible(viewer_query_html(data, "q2"))
    assert "1 more relevant document." in visible(viewer_query_html(data, "q2"))
    js = (ROOT / "src" / "searchgrade" / "report" / "assets" / "viewer.js").read_text(encoding="utf-8")
    assert "T.more_one" in js and "T.gold_one" in js and "title === d" in js   # the script's twin of the markup


@pytest.mark.parametrize("lang, noted", [("ko", True), ("en", False)])
def test_the_korean_font_note_is_for_a_korean_page(plain, tmp_path, capsys, monkeypatch, lang, noted):
    from searchgrade.report import webfont

    monkeypatch.setattr(webfont, "available", lambda: "fontTools is not installed")
    qrels, runs = plain
    assert main(["report", "--qrels", str(qrels), "--lang", lang, "--out", str(tmp_path / "p.html"), "--quiet",
                 "--n-perm", "50", "--measures", "P@10,nDCG@10", *map(str, runs)]) == 0
    assert ("Korean web font" in capsys.readouterr().err) == noted


def test_more_run_files_than_a_page_compares_is_one_line_before_reading_them(tmp_path, capsys):
    from searchgrade.report.data import MAX_RUNS

    files = [str(tmp_path / f"missing{i}.run") for i in range(MAX_RUNS + 1)]   # never opened
    assert report("--qrels", tmp_path / "qrels.txt", "--out", tmp_path / "p.html", *files) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {MAX_RUNS + 1:,} runs are more than one report compares (at most "
                   f"{MAX_RUNS:,}): choose the runs to compare (fewer run files, or --retrievers)"]
