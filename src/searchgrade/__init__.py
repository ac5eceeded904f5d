"""searchgrade: grade retrieval the way trec_eval does, and say where you differ."""
from . import io as _io
from .io import *  # noqa: F401,F403  (FormatError, read_qrels, read_run, parse_*, write_*)
from .metrics import (
    Evaluator,
    Measure,
    aggregate,
    evaluate,
    known_measures,
    mean,
    parse_measure,
    score_ranking,
)
from ._cwl import CWLCurves, cwl
from .comparison import Comparison, compare

__version__ = "0.1.0"

__all__ = [
    "CWLCurves",
    "Comparison",
    "Evaluator",
    "Measure",
    "aggregate",
    "compare",
    "cwl",
    "evaluate",
    "known_measures",
    "mean",
    "parse_measure",
    "score_ranking",
    *_io.__all__,
]
