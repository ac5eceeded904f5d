"""The book's one table style: a caption above the table (naming its collection), numbers rounded, headers on one line.

Whole-number columns print as whole numbers (2835, not 2835.00), and the package's short recall name
``R@k`` reads as the glossary's ``Recall@k`` in the caption, every header and row label (:func:`reader_label`).
Numbers of 1,000 or more print with thousands separators (2,835; 12,468.5), except in a column or index
whose label names years (연도, 년도, year); a column whose label holds ``%`` prints one decimal (99.6,
not 99.648); float row and column labels print with the fewest decimals that tell them apart
(0.0 0.1 … 1.0, not 0.000000 0.100000 …).
"""
from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

__all__ = ["Table", "cell_text", "reader_label", "show"]

_STYLES = [
    {"selector": "th", "props": "white-space: nowrap;"},
    {"selector": "caption", "props": "caption-side: top; text-align: left; font-style: italic; margin-bottom: 0.4em;"},
]
_YES_NO = {True: "예", False: "아니오"}
_SHORT_RECALL = re.compile(r"(?<![A-Za-z0-9_])R@(\d+|k\b|K\b)")
_YEAR_LABEL = re.compile(r"연도|년도|year", re.IGNORECASE)
_PERCENT_DIGITS = 1  # a share in % reads to one decimal: 99.6 %


def reader_label(label):
    """A header or row label as the reader sees it: ``R@10`` becomes ``Recall@10``; other labels pass through."""
    return _SHORT_RECALL.sub(r"Recall@\1", label) if isinstance(label, str) else label


def _names_years(label) -> bool:
    """True when a column or index label (a tuple for a MultiIndex column) names years."""
    parts = label if isinstance(label, tuple) else (label,)
    return any(isinstance(p, str) and _YEAR_LABEL.search(p) for p in parts)


def _is_percent(label) -> bool:
    """True when a column label (or any level of it) holds a % sign."""
    parts = label if isinstance(label, tuple) else (label,)
    return any(isinstance(p, str) and "%" in p for p in parts)


def cell_text(value, digits: int = 3, year: bool = False):
    """One table cell as the reader sees it: separators from 1,000 (none for years), floats to ``digits``.

    Missing values print as blanks; strings and other objects pass through unchanged.
    """
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return _YES_NO[bool(value)]
    if isinstance(value, (int, np.integer)):
        return str(int(value)) if year else f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return str(value)
        return f"{value:.{digits}f}" if year else f"{value:,.{digits}f}"
    return value


def _whole(column: pd.Series) -> bool:
    """True for a float (or all-number object) column of whole numbers beyond 0 and 1 (counts, years).

    Whole up to floating-point error: 1 / (1 - 0.95) = 19.999999999999982 prints as 20.

    A float column holding only 0 and 1 is read as scores (a perfect Recall@10, a missed Hit@1) and keeps
    its decimals, so that it lines up with the score columns beside it.
    """
    if pd.api.types.is_object_dtype(column.dtype):
        kept = column.dropna()
        if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                   for v in kept):
            return False
    elif not pd.api.types.is_float_dtype(column.dtype):
        return False
    values = column.dropna().to_numpy(dtype=float)
    if values.size == 0 or not np.all(np.isfinite(values)):
        return False
    return bool(np.all(np.abs(values - np.round(values)) < 1e-9) and np.abs(values).max() > 1)


def _label_decimals(values, digits: int) -> int:
    """The fewest decimals (at most ``digits``) that print every float label exactly; 0 for whole numbers."""
    floats = [float(v) for v in values if isinstance(v, (float, np.floating)) and np.isfinite(v)]
    for d in range(digits + 1):
        if all(abs(round(v, d) - v) < 1e-9 for v in floats):
            return d
    return digits


def _label_formatter(index: pd.Index, digits: int):
    """A function printing one label of ``index``: floats to a shared number of decimals, whole numbers with separators."""
    decimals = _label_decimals(index, digits)
    year = _names_years(index.name)

    def label(value):
        if isinstance(value, (float, np.floating)) and np.isfinite(value):
            return cell_text(int(round(value)), year=year) if decimals == 0 else f"{value:.{decimals}f}"
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return cell_text(value, year=year)
        return value

    return label


class Table:
    """A DataFrame shown with its caption: HTML in the book and JupyterLab, plain text elsewhere.

    Floats are rounded to ``digits`` decimals (one in a column whose label holds %), numbers of 1,000 or more
    get thousands separators except in year columns, booleans show as 예/아니오, missing values as blanks.
    """

    def __init__(self, df: pd.DataFrame, caption: str, digits: int = 3, column_digits=None):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"show() takes a DataFrame, not {type(df).__name__}")
        if not isinstance(caption, str) or not caption.strip():
            raise ValueError("a table needs a caption naming what it shows and its collection")
        column_digits = dict(column_digits or {})
        for value in (digits, *column_digits.values()):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"digits must be a non-negative integer, not {value!r}")
        unknown = [c for c in column_digits if c not in df.columns]
        if unknown:
            raise ValueError(f"column_digits names columns the table does not have: {unknown}")
        self.df, self.caption, self.digits, self.column_digits = df, caption, digits, column_digits

    def _shown(self) -> pd.DataFrame:
        """A copy with booleans spelled out, whole-number columns as integers, no -0.0, labels for the reader."""
        out = self.df.copy()
        for j, column in enumerate(out.columns):
            values = out.iloc[:, j]
            if values.dtype == bool:
                out.isetitem(j, values.map(_YES_NO))
            elif _whole(values):
                out.isetitem(j, pd.to_numeric(values).round().astype("Int64"))
            elif pd.api.types.is_float_dtype(values.dtype):    # -0.0004 shows as 0.000, not -0.000
                shown = self._digits(column)
                out.isetitem(j, values.mask(values.round(shown) == 0, 0.0))
        out = out.rename(index=reader_label, columns=reader_label)
        out.index.names = [reader_label(n) for n in out.index.names]
        out.columns.names = [reader_label(n) for n in out.columns.names]
        return out

    def _digits(self, column) -> int:
        """Decimals of one column: as ``column_digits`` says, else one for a share in %, else the table's."""
        if column in self.column_digits:
            return self.column_digits[column]
        return min(self.digits, _PERCENT_DIGITS) if _is_percent(column) else self.digits

    def _cells(self, shown: pd.DataFrame) -> pd.DataFrame:
        """Every cell as its text (the one formatting, for HTML and plain text alike)."""
        texts = shown.copy().astype(object)
        for j, (original, column) in enumerate(zip(self.df.columns, shown.columns)):
            digits, year = self._digits(original), _names_years(column)
            texts.isetitem(j, shown.iloc[:, j].map(lambda v: cell_text(v, digits, year)).astype(object))
        return texts

    def _labels(self, index: pd.Index) -> pd.Index:
        """An index (or each level of a MultiIndex) with its labels as the reader sees them."""
        if isinstance(index, pd.MultiIndex):
            levels = [index.get_level_values(i) for i in range(index.nlevels)]
            return pd.MultiIndex.from_arrays([lv.map(_label_formatter(lv, self.digits)) for lv in levels],
                                             names=index.names)
        return index.map(_label_formatter(index, self.digits))

    def _text_frame(self) -> pd.DataFrame:
        """The table as text cells under the reader's labels."""
        shown = self._shown()
        texts = self._cells(shown)
        texts.index = self._labels(shown.index)
        texts.columns = self._labels(shown.columns)
        return texts

    def _repr_html_(self) -> str:
        """The table as HTML with a <caption> above it."""
        styler = (self._text_frame().style.format(escape="html")
                  .format_index(escape="html", axis=0).format_index(escape="html", axis=1)
                  .set_caption(html.escape(reader_label(self.caption)))
                  .set_table_attributes('class="dataframe sg-table"')
                  .set_table_styles(_STYLES))
        return styler.to_html()

    def __repr__(self) -> str:
        """Caption, then the rounded table as text."""
        return f"{reader_label(self.caption)}\n{self._text_frame().to_string()}"


def show(df: pd.DataFrame, caption: str, digits: int = 3, column_digits=None) -> Table:
    """A table for display with its caption (name the collection in it); floats rounded to ``digits``.

    ``column_digits`` ({column label: decimals}) overrides the decimals of single columns, e.g. a % column
    whose small changes one decimal would print as 0.0.
    """
    return Table(df, caption, digits, column_digits)
