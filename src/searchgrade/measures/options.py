"""The options of an evaluation, checked in one place, and the warning of ``missing="ignore"``."""
from __future__ import annotations

import numbers
from dataclasses import dataclass

__all__ = ["Options", "TIES", "MISSING", "MissingQueriesWarning"]

TIES = ("trec", "input", "expected")
MISSING = ("ignore", "zero")


def _positive_int(value) -> bool:
    """An int >= 1 (bool is not an int here)."""
    return not isinstance(value, bool) and isinstance(value, numbers.Integral) and value >= 1


@dataclass(frozen=True)
class Options:
    """How a run is ranked and which queries get a row (see :class:`searchgrade.Evaluator`)."""

    ties: str = "trec"
    missing: str = "ignore"
    rel_level: int = 1
    judged_only: bool = False
    max_docs: int | None = None

    def __post_init__(self):
        if self.ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {self.ties!r}")
        if self.missing not in MISSING:
            raise ValueError(f"missing must be one of {MISSING}, not {self.missing!r}")
        if not _positive_int(self.rel_level):
            raise ValueError(f"rel_level must be a positive integer, not {self.rel_level!r}")
        if self.max_docs is not None and not _positive_int(self.max_docs):
            raise ValueError(f"max_docs must be a positive integer or None, not {self.max_docs!r}")
        if self.ties == "expected" and self.max_docs is not None:
            raise ValueError("max_docs cannot be combined with ties='expected' (the cut would split tie groups)")
        object.__setattr__(self, "rel_level", int(self.rel_level))
        object.__setattr__(self, "judged_only", bool(self.judged_only))
        if self.max_docs is not None:
            object.__setattr__(self, "max_docs", int(self.max_docs))


class MissingQueriesWarning(UserWarning):
    """Qrels queries the run does not rank, left without a row under ``missing="ignore"`` (trec_eval without -c).

    ``queries`` holds their ids (natural order), ``count`` how many, ``listed`` the first few as the
    message shows them and ``note`` a sentence when some would match a run query id as text (``1`` vs
    ``"1"``), else "".  The message speaks of the API's options; a command line writes its own from these.
    """

    def __init__(self, queries, listed: str, note: str = ""):
        self.queries, self.listed, self.note = list(queries), listed, note
        self.count = n = len(self.queries)
        super().__init__(f"{n} qrels quer{'y is' if n == 1 else 'ies are'} not in the run and "
                         f"{'gets' if n == 1 else 'get'} no row (missing='ignore', as trec_eval does; "
                         f"missing='zero', trec_eval -c, scores {'it' if n == 1 else 'them'} on an empty "
                         f"ranking): {listed}{note}")
