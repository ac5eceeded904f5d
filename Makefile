# 검색을 채점하는 법: two commands on a fresh machine, `make book` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
JB     := $(VENV)/bin/jupyter-book

.PHONY: book test lab clean venv

venv: $(STAMP)

# The environment is rebuilt whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,book]'
	touch $@

# --all re-reads every page and execute_notebooks: force re-executes it, so a
# change in src/ or data/raw can never be served from a stale cache.
# -W turns every Sphinx warning (a failing cell included) into a failure.
book: $(STAMP)
	$(PY) -m searchgrade.checksums data/raw
	$(JB) build . --all -W --keep-going

test: $(STAMP)
	$(PY) -m pytest

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters

clean:
	rm -rf _build .jupyter_cache
