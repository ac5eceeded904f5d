"""searchgrade: grade retrieval the way trec_eval does, and say where you differ."""
from . import io as _io
from .io import *  # noqa: F401,F403  (FormatError, read_qrels, read_run, parse_*, write_*)

__version__ = "0.1.0"

# Imported on first use (PEP 562), so that ``python -m searchgrade.trec_eval`` does not pay for scipy.stats.
_LAZY = {
    "CWLCurves": "curves",
    "cwl": "curves",
    "Comparison": "comparison",
    "compare": "comparison",
    "Evaluator": "metrics",
    "Measure": "metrics",
    "MissingQueriesWarning": "metrics",
    "aggregate": "metrics",
    "evaluate": "metrics",
    "evaluate_retriever": "retrievers",
    "fuse": "fusion",
    "known_measures": "metrics",
    "mean": "metrics",
    "optimize_fusion": "fusion",
    "measure_table": "metrics",
    "parse_measure": "metrics",
    "retrieve": "retrievers",
    "score_ranking": "metrics",
}

# Subpackages and modules loaded on first attribute access (SPEC 1), so that ``sg.stats`` works after a
# plain ``import searchgrade`` without being imported at start-up. ``searchgrade.book`` is left out: the
# core never loads the book's helpers (import it by name).
_SUBMODULES = ("checksums", "cli", "collections", "comparison", "curves", "fusion", "io", "judges", "measures",
               "metrics", "ndeval", "rag", "report", "retrieval", "stats", "trec_eval")

__all__ = [*sorted(_LAZY), *_io.__all__]


def __getattr__(name: str):
    """Import a public name's module, or a subpackage, the first time it is used."""
    import importlib

    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)   # importing binds it here as well
    if name not in _LAZY:
        raise AttributeError(f"module 'searchgrade' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
