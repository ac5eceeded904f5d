"""The result of :func:`searchgrade.compare`: a systems x measures table of means with significance letters.

:class:`Comparison` holds the means, one row per tested pair and measure, and the aligned
per-query tables; it answers which systems each one beats (:meth:`Comparison.beaten`,
:meth:`Comparison.markers`, :meth:`Comparison.matrix`) and renders the report as text,
Markdown, LaTeX and HTML, every mean followed by the :func:`letter` of each system it beats
significantly.  How the tests are chosen, corrected and read is in :mod:`searchgrade.comparison`,
which builds this object and exports it.
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

__all__ = ["Comparison", "letter"]

_TEST_LABELS = {"permutation": "paired randomization test", "randomization": "paired randomization test",
                "t": "paired t-test", "sign": "sign test"}

_CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg (FDR)",
                      "by": "Benjamini-Yekutieli (FDR)"}


def letter(i: int) -> str:
    """The i-th system's label (0-based): a, b, ..., z, aa, ab, ... (bijective base 26)."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(ord("a") + r) + out
    return out


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    """text with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _markdown_escape(text: str) -> str:
    """text safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


class Comparison:
    """The result of :func:`searchgrade.compare`: ``means`` (systems x measures), ``tests`` (one row per measure and pair), renderings.

    ``tests`` columns: ``measure``, ``system_a``, ``system_b``, ``mean_a``, ``mean_b`` (arithmetic
    means of the per-query values tested), ``diff`` (mean of a - b), ``p_value``, ``p_adjusted``,
    ``significant``, ``wins``/``ties``/``losses`` (queries where a scored higher / the same /
    lower) and ``n`` (queries). ``per_query`` holds the aligned per-query tables, ``dropped``
    the queries left out under ``on="intersection"``.
    """

    def __init__(self, *, systems, measures, means, tests, per_query, baseline, test, correction, family, alpha,
                 n_perm, seed, dropped):
        self.systems, self.measures = list(systems), list(measures)
        self.means, self.tests, self.per_query = means, tests, per_query
        self.baseline, self.test, self.correction, self.family = baseline, test, correction, family
        self.alpha, self.n_perm, self.seed, self.dropped = alpha, n_perm, seed, dropped

    @property
    def letters(self) -> dict:
        """{system: its letter} in input order."""
        return {name: letter(i) for i, name in enumerate(self.systems)}

    @property
    def n_queries(self) -> int:
        """How many queries every test compared."""
        return int(len(next(iter(self.per_query.values()))))

    def win_tie_loss(self, measure: str | None = None) -> pd.DataFrame:
        """Per-query wins, ties and losses of system_a against system_b, one row per pair (and measure)."""
        cols = ["measure", "system_a", "system_b", "wins", "ties", "losses"]
        out = self.tests[cols]
        if measure is not None:
            self._check_measure(measure)
            out = out[out["measure"] == measure].drop(columns="measure")
        return out.reset_index(drop=True)

    def _check_measure(self, measure: str) -> None:
        """Refuse a measure the report does not hold."""
        if measure not in self.measures:
            raise KeyError(f"no measure {measure!r} in this comparison; it has {self.measures}")

    def beaten(self, system, measure: str) -> list:
        """The systems that ``system`` beats significantly on ``measure``, in input order."""
        self._check_measure(measure)
        if system not in self.systems:
            raise KeyError(f"no system {system!r} in this comparison; it has {self.systems}")
        rows = self.tests[(self.tests["measure"] == measure) & self.tests["significant"]]
        won = set(rows.loc[(rows["system_a"] == system) & (rows["diff"] > 0), "system_b"])
        won |= set(rows.loc[(rows["system_b"] == system) & (rows["diff"] < 0), "system_a"])
        return [s for s in self.systems if s in won]

    def markers(self) -> pd.DataFrame:
        """Systems x measures: the letters of the systems each one beats significantly ('' for none)."""
        sep = "" if len(self.systems) <= 26 else ","
        lett = self.letters
        data = {m: [sep.join(lett[s] for s in self.beaten(name, m)) for name in self.systems] for m in self.measures}
        return pd.DataFrame(data, index=pd.Index(self.systems, name="system"))

    def matrix(self, measure: str, value: str = "diff") -> pd.DataFrame:
        """Square systems x systems table of one ``tests`` column for ``measure``; NaN where no test was made.

        Cell (row, column) reads the pair from the row's side: ``diff`` is mean(row - column),
        ``wins``/``losses`` count the row's per-query wins/losses; ``p_value``, ``p_adjusted``,
        ``significant`` and ``ties`` are symmetric.
        """
        self._check_measure(measure)
        if value not in self.tests.columns or value in ("measure", "system_a", "system_b"):
            raise KeyError(f"value must be one of the tests' columns {list(self.tests.columns)[3:]}, not {value!r}")
        mirror = {"wins": "losses", "losses": "wins"}.get(value, value)   # the column read from b's side
        mat = pd.DataFrame(np.nan, index=self.systems, columns=self.systems, dtype=object)
        for _, r in self.tests[self.tests["measure"] == measure].iterrows():
            mat.loc[r["system_a"], r["system_b"]] = r[value]
            mat.loc[r["system_b"], r["system_a"]] = 0.0 - r["diff"] if value == "diff" else r[mirror]
        return mat.infer_objects()

    # ----------------------------------------------------------------- renderings

    def legend(self) -> str:
        """One sentence saying what the markers mean: test, correction, family, alpha."""
        test = _TEST_LABELS[self.test]
        if self.test in ("permutation", "randomization") and self.n_perm is not None:
            test += f", {self.n_perm:,} sign flips, seed {self.seed}"
        scope = (f"every system against the baseline {self.baseline!s} ({letter(self.systems.index(self.baseline))})"
                 if self.baseline is not None else "every pair of systems")
        return (f"Letters after a mean name the systems it beats significantly on that measure: {test}, "
                f"{self.n_queries:,} queries, {scope}, {self._correction_text()}, p <= {self.alpha:g}.")

    def _correction_text(self) -> str:
        """Which correction was applied, over which family, in words."""
        if self.correction is None:
            return "no correction for multiple tests"
        if self.correction == "tukey":
            return (f"randomised Tukey HSD within each measure over all systems ({self.n_perm:,} shuffles, "
                    f"seed {self.seed})")
        if self.correction == "tukey-parametric":
            return "parametric Tukey HSD within each measure over all systems"
        name = _CORRECTION_LABELS[self.correction]
        return {"measure": f"{name}-adjusted within each measure over its pairs",
                "pair": f"{name}-adjusted within each pair over its measures",
                "all": f"{name}-adjusted over all tests"}[self.family]

    def _cells(self, digits: int, fmt) -> list[list[str]]:
        """Rows of [letter, name, cell per measure] with fmt(mean_text, markers) per cell."""
        marks, lett = self.markers(), self.letters
        rows = []
        for name in self.systems:
            cells = [fmt(_number(self.means.loc[name, m], digits), marks.loc[name, m]) for m in self.measures]
            rows.append([lett[name], str(name), *cells])
        return rows

    def table(self, digits: int = 3) -> pd.DataFrame:
        """The report as a DataFrame of text: a letter column, then one column per measure ('0.412 bc')."""
        rows = self._cells(digits, lambda mean, mark: f"{mean} {mark}" if mark else mean)
        out = pd.DataFrame([r[2:] for r in rows], index=pd.Index([r[1] for r in rows], name="system"),
                           columns=self.measures)
        out.insert(0, "#", [r[0] for r in rows])
        return out

    def __str__(self) -> str:
        rows = self._cells(3, lambda mean, mark: f"{mean} {mark}" if mark else mean)
        header = ["#", "system", *self.measures]
        widths = [max(len(x) for x in col) for col in zip(header, *rows)]
        lines = [[h.ljust(w) for h, w in zip(cells, widths)] for cells in [header, ["-" * w for w in widths], *rows]]
        return "\n".join("  ".join(cells).rstrip() for cells in lines) + "\n" + self.legend()

    def __repr__(self) -> str:
        return (f"<Comparison of {len(self.systems)} systems on {len(self.measures)} measures: {len(self.tests)} "
                f"tests ({self.test}), {int(self.tests['significant'].sum())} significant>")

    def to_markdown(self, digits: int = 3, *, letter_header: str = "#", system_header: str = "system",
                    legend: bool = True) -> str:
        """A Markdown pipe table; markers as <sup>letters</sup>; the legend below unless legend=False."""
        rows = self._cells(digits, lambda mean, mark: f"{mean}<sup>{mark}</sup>" if mark else mean)
        header = [letter_header, system_header, *self.measures]
        lines = ["| " + " | ".join(_markdown_escape(h) for h in header) + " |",
                 "|" + "|".join([":--", ":--", *["--:"] * len(self.measures)]) + "|"]
        lines += ["| " + " | ".join([r[0], _markdown_escape(r[1]), *r[2:]]) + " |" for r in rows]
        return "\n".join(lines) + ("\n\n" + self.legend() if legend else "") + "\n"

    def to_latex(self, digits: int = 3, *, caption: str | None = None, label: str | None = None,
                 letter_header: str = "\\#", system_header: str = "System") -> str:
        """A booktabs tabular (in a table float when caption or label is given); markers as $^{letters}$."""
        rows = self._cells(digits, lambda mean, mark: f"{mean}$^{{{mark}}}$" if mark else mean)
        header = [letter_header, system_header, *(_latex_escape(m) for m in self.measures)]
        lines = [r"\begin{tabular}{ll" + "r" * len(self.measures) + "}", r"\toprule",
                 " & ".join(header) + r" \\", r"\midrule"]
        lines += [" & ".join([r[0], _latex_escape(r[1]), *r[2:]]) + r" \\" for r in rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        if caption is None and label is None:
            return "\n".join(lines) + "\n"
        head = [r"\begin{table}[ht]", r"\centering"]
        if caption is not None:
            head.append(r"\caption{" + _latex_escape(caption) + "}")
        if label is not None:
            head.append(r"\label{" + label + "}")
        return "\n".join(head + lines + [r"\end{table}"]) + "\n"

    def to_html(self, digits: int = 3, *, caption: str | None = None, letter_header: str = "#",
                system_header: str = "system", legend: bool = True) -> str:
        """An HTML table (caption on top, legend below unless legend=False); markers as <sup>letters</sup>."""
        esc = html.escape
        rows = self._cells(digits, lambda mean, mark: f"{mean}<sup>{esc(mark)}</sup>" if mark else mean)
        head = "".join(f"<th>{esc(str(h))}</th>" for h in [letter_header, system_header, *self.measures])
        body = "".join("<tr><td>" + esc(r[0]) + "</td><td>" + esc(r[1]) + "</td>"
                       + "".join(f'<td style="text-align: right">{c}</td>' for c in r[2:]) + "</tr>" for r in rows)
        cap = f"<caption>{esc(caption)}</caption>" if caption is not None else ""
        foot = f"<p>{esc(self.legend())}</p>" if legend else ""
        return (f'<div class="sg-comparison"><table>{cap}<thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table>{foot}</div>")

    def _repr_html_(self) -> str:
        return self.to_html()


def _number(value, digits: int) -> str:
    """A mean as text: integers (summed counts) as they are, other numbers with `digits` decimals."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return f"{int(value):,}"
    return f"{float(value):.{digits}f}"
