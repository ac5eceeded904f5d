"""The book's one table style: a caption above the table (naming its collection), numbers rounded, headers on one line.

Whole-number columns print as whole numbers (2835, not 2835.00), and the package's short recall name
``R@k`` reads as the glossary's ``Recall@k`` in the caption, every header and row label (:func:`reader_label`).
"""
from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd

__all__ = ["Table", "reader_label", "show"]

_STYLES = [
    {"selector": "th", "props": "white-space: nowrap;"},
    {"selector": "caption", "props": "caption-side: top; text-align: left; font-style: italic; margin-bottom: 0.4em;"},
]
_YES_NO = {True: "예", False: "아니오"}
_SHORT_RECALL = re.compile(r"(?<![A-Za-z0-9_])R@(\d+|k\b|K\b)")


def reader_label(label):
    """A header or row label as the reader sees it: ``R@10`` becomes ``Recall@10``; other labels pass through."""
    return _SHORT_RECALL.sub(r"Recall@\1", label) if isinstance(label, str) else label


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


class Table:
    """A DataFrame shown with its caption: HTML in the book and JupyterLab, plain text elsewhere.

    Floats are rounded to ``digits`` decimals, booleans shown as 예/아니오, missing values as blanks.
    """

    def __init__(self, df: pd.DataFrame, caption: str, digits: int = 3):
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"show() takes a DataFrame, not {type(df).__name__}")
        if not isinstance(caption, str) or not caption.strip():
            raise ValueError("a table needs a caption naming what it shows and its collection")
        if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
            raise ValueError(f"digits must be a non-negative integer, not {digits!r}")
        self.df, self.caption, self.digits = df, caption, digits

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
                out.isetitem(j, values.mask(values.round(self.digits) == 0, 0.0))
        out = out.rename(index=reader_label, columns=reader_label)
        out.index.names = [reader_label(n) for n in out.index.names]
        out.columns.names = [reader_label(n) for n in out.columns.names]
        return out

    def _repr_html_(self) -> str:
        """The table as HTML with a <caption> above it."""
        styler = (self._shown().style.format(precision=self.digits, na_rep="")
                  .set_caption(html.escape(reader_label(self.caption)))
                  .set_table_attributes('class="dataframe sg-table"')
                  .set_table_styles(_STYLES))
        return styler.to_html()

    def __repr__(self) -> str:
        """Caption, then the rounded table as text."""
        return f"{reader_label(self.caption)}\n{self._shown().round(self.digits).to_string()}"


def show(df: pd.DataFrame, caption: str, digits: int = 3) -> Table:
    """A table for display with its caption (name the collection in it); floats rounded to ``digits``."""
    return Table(df, caption, digits)
