"""The widgets as ipywidgets in a live JupyterLab: a real server, kernel and front end (``make test-lab``).

A notebook that creates the chapter-2 scoring lab and the chapter-4 rank slider with
``mode="ipywidgets"`` is opened in JupyterLab (started here on a free local port), run with
"Run All Cells", and then clicked and slid in headless Chromium. What the front end shows after
each action is compared with what `searchgrade.score_ranking` computes for that state.
Nothing reaches the network: the server listens on 127.0.0.1 and the browser refuses every
other host.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import searchgrade as sg
from searchgrade.book import widgets
from searchgrade.report import widget
from searchgrade.book import single_relevant_ranking
from searchgrade.io import trec_order

nbformat = pytest.importorskip("nbformat")
TOKEN = "searchgrade-lab-test"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# a tiny collection for the viewer: three queries, three runs (C returns nothing for q3)
QUERIES = {"q1": "첫째 질문", "q2": "둘째 질문", "q3": "셋째 질문"}
CORPUS = {f"d{i}": {"title": f"문서 {i}", "text": f"문서 {i}의 본문"} for i in range(1, 7)}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1, "d5": 0}, "q3": {"d3": 2}}
RUNS = {"A": {q: {f"d{i}": 7.0 - i for i in range(1, 7)} for q in QUERIES},
        "B": {q: {f"d{i}": float(i) for i in range(1, 7)} for q in QUERIES},
        "C": {"q1": {"d2": 1.0, "d1": 0.5}, "q2": {"d2": 1.0}, "q3": {}}}
FILTERS = {"A가 1위에 정답을 놓은 질문": ["q1"]}
CELLS = [
    "from searchgrade.book import widgets\nlab = widgets.scoring_lab(relevant=(1, 3, 5, 7), k=5, mode='ipywidgets')\nlab",
    "slider = widgets.rank_slider(['RR', 'nDCG@10', 'R@10'], n=20, start=3, mode='ipywidgets')\nslider",
    "from searchgrade.report.viewer import query_viewer\n"
    f"viewer = query_viewer({QUERIES!r}, {RUNS!r}, {QRELS!r}, {CORPUS!r}, filters={FILTERS!r}, "
    f"qids={list(QUERIES)!r}, mode='ipywidgets')\nviewer",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """JupyterLab on 127.0.0.1 serving a folder with one notebook; yields the notebook's URL."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "widgets.ipynb")
    port = free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / ".config"), JUPYTER_RUNTIME_DIR=str(root / ".runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(root / ".settings"), JUPYTERLAB_WORKSPACES_DIR=str(root / ".workspaces"))
    log = open(tmp_path_factory.mktemp("lab-log") / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}",
         "--ServerApp.allow_root=True", "--LabApp.extension_manager=readonly",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.close()
            pytest.fail("JupyterLab did not start:\n" + Path(log.name).read_text()[-3000:])
        time.sleep(0.5)
    yield f"{base}/lab/tree/widgets.ipynb?token={TOKEN}", port
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def notebook(server):
    """The notebook open in Chromium, every cell run, both widgets rendered."""
    from playwright.sync_api import sync_playwright

    url, port = server
    executable = os.environ.get("SEARCHGRADE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(executable).exists():
        pytest.fail(f"Chromium not found at {executable}")
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        local = (f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/")
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(local)
                      else route.abort())
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        accept = page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept")  # "Select Kernel": Python 3
        try:
            accept.wait_for(timeout=30_000)
            accept.click()
        except Exception:
            pass  # the kernel started without asking
        # the kernel is connected (status bar) and idle before anything runs, or the widget
        # manager may not know the kernel yet and leave the outputs at "Loading widget..."
        page.wait_for_function("() => /\\| Idle/.test(document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar')"
                               "?.innerText || '')", timeout=120_000)
        page.wait_for_timeout(2_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        try:
            page.wait_for_function("() => document.querySelectorAll('.jp-OutputArea .widget-dropdown select').length >= 2"
                                   " && document.querySelectorAll('.widget-toggle-button').length === 10",
                                   timeout=180_000)
        except Exception:
            shot = Path(os.environ.get("SEARCHGRADE_LAB_SCREENSHOT", "/tmp/searchgrade-lab.png"))
            page.screenshot(path=str(shot), full_page=True)
            outputs = page.locator(".jp-OutputArea").all_inner_texts()
            pytest.fail(f"the widgets did not render (screenshot: {shot}); outputs: {outputs}; errors: {errors}")
        yield page, errors
        context.close()
        browser.close()


def lab_values(page) -> dict[str, str]:
    cells = page.locator(".jp-OutputArea").nth(0).locator("td.sg-value")
    return dict(zip(cells.evaluate_all("cs => cs.map(c => c.getAttribute('data-measure'))"), cells.all_inner_texts()))


def expect_lab(page, relevant: list[int], k: int):
    """The lab's table shows the package's values for these relevant ranks at this k (waits for the kernel)."""
    docs = widgets.lab_documents(10)
    qrels = {d: int(i + 1 in relevant) for i, d in enumerate(docs)}
    names = [f"P@{k}", f"R@{k}", f"Hit@{k}", f"AP@{k}", f"RR@{k}", f"nDCG@{k}", "RBP(p=0.8)"]
    expected = sg.score_ranking(docs, qrels, names)
    want = {n: f"{widget.quantise(expected[n]) / widget.SCALE:.4f}" for n in names}
    deadline = time.monotonic() + 30
    while lab_values(page) != want:
        if time.monotonic() > deadline:
            assert lab_values(page) == want, f"relevant={relevant}, k={k}"
        page.wait_for_timeout(100)


def test_scoring_lab_in_jupyterlab_follows_clicks(notebook):
    page, errors = notebook
    toggles = page.locator(".widget-toggle-button")
    assert toggles.count() == 10
    expect_lab(page, [1, 3, 5, 7], 5)
    toggles.nth(9).click()                      # rank 10 becomes relevant: outside k = 5, R grows
    expect_lab(page, [1, 3, 5, 7, 10], 5)
    toggles.nth(0).click()                      # rank 1 no longer relevant
    expect_lab(page, [3, 5, 7, 10], 5)
    slider = page.locator(".widget-slider").first  # the lab's k slider comes first in the notebook
    slider.locator(".noUi-handle").focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect_lab(page, [3, 5, 7, 10], 10)
    assert not errors, errors


def slider_values(page) -> dict[str, str]:
    spans = page.locator(".jp-OutputArea").nth(1).locator("span.sg-value")
    return dict(zip(spans.evaluate_all("ss => ss.map(s => s.getAttribute('data-measure'))"), spans.all_inner_texts()))


def test_rank_slider_in_jupyterlab_shows_the_package_values(notebook):
    page, errors = notebook
    slider = page.locator(".widget-slider").nth(1)
    slider.locator(".noUi-handle").focus()
    names = ["RR", "nDCG@10", "R@10"]
    for rank in (3, 4, 5, 6):
        if rank > 3:
            page.keyboard.press("ArrowRight")
        ranking, qrels = single_relevant_ranking(rank, n=20)
        expected = sg.score_ranking(ranking, qrels, names)
        want = {n: f"{widget.quantise(expected[n]) / widget.SCALE:.4f}" for n in names}
        deadline = time.monotonic() + 30
        while slider_values(page) != want or slider.locator(".widget-readout").inner_text().strip() != str(rank):
            assert time.monotonic() < deadline, (rank, slider_values(page), want)
            page.wait_for_timeout(100)
    assert not errors, errors


def viewer_shows(page, qid: str) -> bool:
    """The viewer's output is this query: its text and each run's top documents in trec_eval order."""
    out = page.locator(".jp-OutputArea").nth(2)
    if not out.locator(".sg-query-text").count() or out.locator(".sg-query-text").inner_text().strip() != QUERIES[qid]:
        return False
    cols = out.locator("section.sg-col")
    for j, (name, run) in enumerate(RUNS.items()):
        docs = cols.nth(j).locator("ol.sg-top > li").evaluate_all("ls => ls.map(l => l.getAttribute('data-docid'))")
        if docs != trec_order(run.get(qid, {}), 5):
            return False
    return True


def test_query_viewer_in_jupyterlab_follows_the_dropdowns(notebook):
    page, errors = notebook
    out = page.locator(".jp-OutputArea").nth(2)
    filt, query = out.locator(".widget-dropdown select").nth(0), out.locator(".widget-dropdown select").nth(1)
    assert viewer_shows(page, "q1")
    for qid in ("q3", "q2"):
        query.select_option(label=f"{qid}. {QUERIES[qid]}")
        deadline = time.monotonic() + 30
        while not viewer_shows(page, qid):
            assert time.monotonic() < deadline, f"the viewer does not show {qid}"
            page.wait_for_timeout(100)
    label = next(o for o in filt.locator("option").all_inner_texts() if o.startswith("A가"))
    filt.select_option(label=label)
    deadline = time.monotonic() + 30
    while (options := query.locator("option").evaluate_all("os => os.map(o => o.textContent.replace(/\\u00a0/g, ' ').trim())")) != ["q1. 첫째 질문"]:
        assert time.monotonic() < deadline, f"the filter did not narrow the query list: {options}, filter {label!r}"
        page.wait_for_timeout(100)
    assert not errors, errors
