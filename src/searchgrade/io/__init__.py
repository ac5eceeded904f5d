"""TREC files in and out: qrels and runs read (:mod:`.readers`, with the rules; :mod:`.stream` reads a run of
any size a part of whole queries at a time), adapted from other forms (:mod:`.adapters`) and written
(:mod:`.writers`), over :mod:`.sources` and :mod:`.errors`.

To add a format, write a reader module that reads through :mod:`.sources` (as :mod:`.subtopics` reads ndeval's
qrels) and raises :class:`FormatError` naming the line, with its tests in tests/io/; re-export it here.
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
