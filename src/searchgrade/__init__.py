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

__all__ = [*sorted(_LAZY), *_io.__all__]


def __getattr__(name: str):
    """Import a public name's module the first time the name is used."""
    if name not in _LAZY:
        raise AttributeError(f"module 'searchgrade' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
