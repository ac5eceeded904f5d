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

Markers (pyproject.toml): ``make test`` runs the fast suite, without ``runs`` (the Korean runs: ``make
test-runs``), ``peers`` (the oracle is another package, imported inside the test: ``make test-peers``) and
``spark`` (``make test-spark``). A test that hands a peer's own objects to searchgrade as an input form
(ir_measures' namedtuples, pyndeval's records) is not a peers test: it imports them with
``pytest.importorskip`` inside the test.

Hypothesis profiles: "fast", the default, runs a quarter of each property's examples (never fewer than 20)
and of the few long case lists marked ``spread`` (``tests/support/examples.py``); "thorough"
(``--hypothesis-profile=thorough``: ``make test-peers`` and CI) runs them all. A property without its own
count runs the profile's (25 or hypothesis's 100).

The Korean web font is converted once, not once per test (``web_font_converted_once`` below).
"""
import re
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

hypothesis_settings.register_profile("thorough", max_examples=100)
hypothesis_settings.register_profile("fast", max_examples=25)
hypothesis_settings.load_profile("fast")  # --hypothesis-profile, read after this file, overrides it

PEERS_MODULE = re.compile(r"^pytestmark = pytest\.mark\.peers\b", re.M)


def pytest_ignore_collect(collection_path, config):
    """A module whose every test is a peers test (``pytestmark = pytest.mark.peers`` at its top level) is not
    imported at all when ``-m`` leaves peers out (``not peers``, as ``make test`` does): importing it would
    import its oracle (ranx alone takes 3 CPU-seconds) for tests that are then deselected."""
    if collection_path.suffix != ".py" or "not peers" not in (config.getoption("markexpr") or ""):
        return None
    return True if PEERS_MODULE.search(collection_path.read_text(encoding="utf-8")) else None

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


@pytest.fixture(scope="session", autouse=True)
def web_font_converted_once():
    """The report's web font is converted at most once (tests/support/webfont.py): into the session's cache
    (``$SEARCHGRADE_CACHE`` or ``data/cache``, as it is when the session starts) and the machine's test font
    cache; a report given a cache of its own gets a copy. ``searchgrade.book.webfont.convert``, which the
    conversion's own tests call, is not replaced."""
    from searchgrade.places import cache_root

    try:
        from searchgrade.report import webfont
    except ImportError:  # the report's extra is not installed: no report is built
        yield
        return
    if webfont.available():
        yield
        return
    from tests.support.webfont import FONT_CACHE, converter, seed

    folders = [cache_root() / "webfont", FONT_CACHE]
    seed(folders)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(webfont, "convert", converter(folders, webfont.convert))
        yield
