"""Shared fixtures, and how the tests are laid out and imported.

Layout: ``tests/`` mirrors ``src/searchgrade/``. The tests of ``src/searchgrade/<pkg>/<module>.py`` live in
``tests/<pkg>/test_<module>.py`` (several files for one module are suffixed, ``test_<module>_<aspect>.py``;
a package's front door, its ``__init__``, is ``test_<pkg>.py``); the tests of a top-level module, and the
checks that cut across the package (layout, engine walk, peer values, hostile inputs), live at the root.
A command's golden suite lives with the command (``tests/cli/trec_eval/test_golden.py``). Helpers that
several test modules share live in ``tests/support/``; a test module imports only from there and uses the
fixtures below, never another test module (``test_layout.py`` checks it). ``tests/browser``, ``tests/lab``
and ``tests/pdf`` need a built book, a browser or a PDF and have their own ``make`` targets.

Import mode: pytest's default (``prepend``) with packages. ``tests/`` and every folder of tests in it has
an ``__init__.py``, so a test module is imported under its dotted path from the repository root
(``tests.io.test_bulk``, ``tests.cli.ndeval.test_golden``): two files may share a basename in different
folders, and ``tests/io`` or ``tests/collections`` never shadow the standard library's ``io`` or
``collections``. Helpers are imported the same way: ``from tests.support.golden import load_cases``.
(The browser, lab and pdf folders have no ``__init__.py``; pytest puts each on ``sys.path`` itself.)
"""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREC_DIR = ROOT / "data" / "raw" / "trec_eval_test"


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    """Folder with trec_eval's own test files (qrels, run, expected outputs)."""
    return TREC_DIR


@pytest.fixture(scope="session")
def trec_qrels():
    """trec_eval's test qrels (binary) as a dict."""
    from searchgrade import read_qrels

    return read_qrels(TREC_DIR / "qrels.test")


@pytest.fixture(scope="session")
def trec_run():
    """trec_eval's test run (3 queries x 500 documents) as a dict."""
    from searchgrade import read_run

    return read_run(TREC_DIR / "results.test")


@pytest.fixture(scope="session")
def graded_qrels():
    """trec_eval's graded qrels (grades -1 .. 4)."""
    from searchgrade import read_qrels

    return read_qrels(TREC_DIR / "qrels.rel_level")
