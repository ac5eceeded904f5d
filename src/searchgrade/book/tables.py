"""The book's one table style: a caption above the table (naming its collection), numbers rounded, headers on one line."""
from __future__ import annotations

import html

import pandas as pd

__all__ = ["Table", "show"]

_STYLES = [
    {"selector": "th", "props": "white-space: nowrap;"},
    {"selector": "caption", "props": "caption-side: top; text-align: left; font-style: italic; margin-bottom: 0.4em;"},
]
_YES_NO = {True: "예", False: "아니오"}


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
        """The frame with booleans spelled out (a copy only when there are any)."""
        bools = [c for c in self.df.columns if self.df[c].dtype == bool]
        if not bools:
            return self.df
        out = self.df.copy()
        for c in bools:
            out[c] = out[c].map(_YES_NO)
        return out

    def _repr_html_(self) -> str:
        """The table as HTML with a <caption> above it."""
        styler = (self._shown().style.format(precision=self.digits, na_rep="")
                  .set_caption(html.escape(self.caption))
                  .set_table_attributes('class="dataframe sg-table"')
                  .set_table_styles(_STYLES))
        return styler.to_html()

    def __repr__(self) -> str:
        """Caption, then the rounded table as text."""
        return f"{self.caption}\n{self._shown().round(self.digits).to_string()}"


def show(df: pd.DataFrame, caption: str, digits: int = 3) -> Table:
    """A table for display with its caption (name the collection in it); floats rounded to ``digits``."""
    return Table(df, caption, digits)
