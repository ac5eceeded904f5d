"""The columns of a Spark DataFrame of qrels or of a run: their names (ir_measures' by default) and types.

Everything here reads the schema only: no Spark job runs.  A column that is absent, an id that is
neither text nor an integer, a score that is not a number or a grade that is neither an integer nor a
number (whose values :mod:`.checks` then reads) is a :class:`~searchgrade.io.errors.FormatError`
naming the DataFrame and the column.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..io.errors import FormatError

__all__ = ["QRELS_COLUMNS", "RUN_COLUMNS", "Side", "side"]

#: ir_measures' column names, by role: what each role is called unless ``qrels_columns=`` says otherwise.
QRELS_COLUMNS = {"query_id": "query_id", "doc_id": "doc_id", "relevance": "relevance"}
#: ... and ``run_columns=`` for a run.
RUN_COLUMNS = {"query_id": "query_id", "doc_id": "doc_id", "score": "score"}

_ID_TYPES = (T.StringType, T.CharType, T.VarcharType, T.IntegralType)


@dataclass(frozen=True)
class Side:
    """One input, checked: its DataFrame, the column of each role, and what its messages call it."""

    kind: str  # "qrels" or "run"
    df: DataFrame
    names: dict  # {role: column}, roles query_id, doc_id and relevance or score
    value_type: T.DataType  # the type of the relevance or score column

    @property
    def source(self) -> str:
        """'qrels DataFrame' or 'run DataFrame', as the file readers name a DataFrame."""
        return f"{self.kind} DataFrame"

    @property
    def role(self) -> str:
        """'relevance' or 'score'."""
        return "relevance" if self.kind == "qrels" else "score"

    def col(self, role: str) -> Column:
        """The column of a role (names with dots or spaces quoted)."""
        return F.col(f"`{self.names[role]}`")

    def ids(self, role: str) -> Column:
        """An id column as text: strings as they are, integers written in decimal (as sg.evaluate reads them)."""
        return self.col(role).cast("string")


def side(df, kind: str, columns: Mapping[str, str] | None) -> Side:
    """The checked columns of a qrels (kind "qrels") or run ("run") DataFrame; ``columns`` names some roles."""
    if not isinstance(df, DataFrame):
        raise TypeError(f"{kind} must be a Spark DataFrame (read one with searchgrade.spark.read_{kind}), "
                        f"not {type(df).__name__}")
    defaults = QRELS_COLUMNS if kind == "qrels" else RUN_COLUMNS
    unknown = set(columns or {}) - set(defaults)
    if unknown:
        raise ValueError(f"{kind}_columns: unknown role(s) {sorted(unknown)}; the roles are {list(defaults)}")
    names = {**defaults, **(columns or {})}
    source = f"{kind} DataFrame"
    types = {f.name: f.dataType for f in df.schema.fields}
    for role, name in names.items():
        if name not in types:
            raise FormatError(source, None, f"no column {name!r} for the {role} (its columns are {list(types)}); "
                                            f"name it with {kind}_columns={{{role!r}: ...}}")
    for role in ("query_id", "doc_id"):
        if not isinstance(types[names[role]], _ID_TYPES):
            raise FormatError(source, None, f"column {names[role]!r} ({role}) is {types[names[role]].simpleString()}"
                                            "; ids must be strings or integers")
    value = types[names["relevance" if kind == "qrels" else "score"]]
    _check_value_type(source, kind, names, value)
    return Side(kind, df, names, value)


def _check_value_type(source: str, kind: str, names: dict, value: T.DataType) -> None:
    """FormatError unless the grades are numbers (integers, or numbers checked whole later) and scores numbers."""
    role = "relevance" if kind == "qrels" else "score"
    if isinstance(value, T.NumericType):
        return
    what = "grades must be integers" if kind == "qrels" else "scores must be numbers"
    raise FormatError(source, None, f"column {names[role]!r} ({role}) is {value.simpleString()}, not numeric: "
                                    f"{what} (cast it first, e.g. F.col({names[role]!r}).cast('double'))")
