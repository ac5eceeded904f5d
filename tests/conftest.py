"""Shared fixtures for the metrics and trec_eval tests."""
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
