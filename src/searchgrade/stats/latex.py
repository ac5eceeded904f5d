"""LaTeX for a comparison table: escaping text, cells with bold and superscript letters, the table float.

:meth:`searchgrade.comparison.Comparison.to_latex` builds its table with these. The convention is
ranx's (``Report.to_latex``): the best mean of each measure in bold, after each mean the letters of
the systems it beats significantly as a superscript, and the letters it does not carry as an
invisible ``\\hphantom`` so that every cell of a column is as wide and the numbers line up. The
float uses booktabs' rules (``\\usepackage{booktabs}`` in the preamble; nothing else is needed).
"""
from __future__ import annotations

import re

__all__ = ["ENVIRONMENTS", "caption_text", "cell", "escape", "table_float"]

ENVIRONMENTS = ("table", "table*", None)
"""What :func:`table_float` wraps the tabular in: a float, a two-column-wide float, or nothing."""

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "<=": r"$\le$", ">=": r"$\ge$"}
_TOKEN = re.compile(r"<=|>=|[\\&%$#_{}~^<>]")
_LABEL_BAD = re.compile(r"[\\{}%#\s]")


def escape(text) -> str:
    """text with LaTeX's special characters escaped; ``<=`` and ``>=`` become ``$\\le$`` and ``$\\ge$``."""
    return _TOKEN.sub(lambda m: _SPECIAL[m.group()], str(text))


def cell(number: str, letters: str, others: str, bold: bool) -> str:
    """One mean: bold if best, its letters as a superscript, the letters it lacks as a same-width phantom."""
    out = rf"\textbf{{{number}}}" if bold else number
    if letters:
        out += rf"\textsuperscript{{{letters}}}"
    if others:
        out += rf"\hphantom{{\textsuperscript{{{others}}}}}"
    return out


def caption_text(caption, legend_text: str | None) -> str | None:
    """The caption: the user's text (escaped) then the legend (already LaTeX), or None when both are empty."""
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"caption must be text, not {type(caption).__name__}: the legend is already in the "
                        "caption unless legend=False")
    text = caption.strip() if caption else ""
    if text and legend_text and text[-1] not in ".!?:":
        text += "."                                   # the legend is a sentence of its own
    parts = [escape(text)] if text else []
    if legend_text:
        parts.append(legend_text)
    return " ".join(parts) if parts else None


def _check_label(label) -> None:
    """Refuse a label LaTeX cannot take (braces, backslash, %, #, spaces)."""
    if label is None:
        return
    if not isinstance(label, str) or not label or _LABEL_BAD.search(label):
        raise ValueError(f"label must be a LaTeX label such as 'tab:results' (no spaces, braces, backslash, % "
                         f"or #), not {label!r}")


def table_float(tabular: list[str], *, environment, placement: str, caption: str | None, label) -> str:
    """The tabular's lines in a table float (caption on top, then the label), or alone when environment=None."""
    if environment not in ENVIRONMENTS:
        raise ValueError(f"environment must be 'table', 'table*' or None (a bare tabular), not {environment!r}")
    if not isinstance(placement, str) or not re.fullmatch(r"[htbp!]+", placement):
        raise ValueError(f"placement must be letters of 'htbp!' such as 'htbp', not {placement!r}")
    _check_label(label)
    head = ["% needs \\usepackage{booktabs} in the preamble"]
    if environment is None:
        if label is not None:
            raise ValueError("label= needs a float: leave environment='table' (or 'table*')")
        return "\n".join(head + tabular) + "\n"
    head += [rf"\begin{{{environment}}}[{placement}]", r"\centering"]
    if caption is not None:
        head.append(rf"\caption{{{caption}}}")
    if label is not None:
        head.append(rf"\label{{{label}}}")
    return "\n".join(head + tabular + [rf"\end{{{environment}}}"]) + "\n"
