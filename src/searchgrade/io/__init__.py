"""TREC files in and out: reading (:mod:`.readers`, its rules; :mod:`.subtopics`), adapting other input forms
(:mod:`.adapters`) and writing (:mod:`.writers`) qrels and runs, over sources (:mod:`.sources`) and errors (:mod:`.errors`).

To add a format, give it a reader module that opens its source with :func:`.sources.open_source` and raises
:class:`FormatError` naming the line (as :mod:`.subtopics` does for ndeval's qrels), and re-export it here.
"""
from .adapters import as_qrels, as_run, qrels_frame, run_frame
from .errors import FormatError, InputWarning, ReadReport
from .readers import (LoadedQrels, LoadedRun, load_columns, load_qrels, load_run, parse_qrels, parse_run, read_qrels,
                      read_run)
from .subtopics import as_subtopic_qrels, read_subtopic_qrels
from .writers import trec_order, write_qrels, write_run

__all__ = [
    "FormatError",
    "InputWarning",
    "ReadReport",
    "trec_order",
    "parse_qrels",
    "read_qrels",
    "load_qrels",
    "parse_run",
    "read_run",
    "load_run",
    "as_qrels",
    "as_run",
    "qrels_frame",
    "run_frame",
    "write_run",
    "write_qrels",
    "read_subtopic_qrels",
    "as_subtopic_qrels",
]
