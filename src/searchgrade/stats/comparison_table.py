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
from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import latex as latex_module

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


def _markdown_escape(text: str) -> str:
    """text safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


class Comparison:
    """The result of :func:`searchgrade.compare`: ``means`` (systems x measures), ``tests`` (one row per measure and pair), renderings.

    ``tests`` columns: ``measure``, ``system_a``, ``system_b``, ``mean_a``, ``mean_b`` (arithmetic
    means of the per-query values tested), ``diff`` (mean of a - b), ``p_value`` (the pairwise
    test's; NaN when Tukey's HSD decided, as no pairwise test ran), ``p_adjusted`` (the p that
    decided), ``significant``, ``wins``/``ties``/``losses`` (queries where a scored higher / the
    same / lower) and ``n`` (queries). ``per_query`` holds the aligned per-query tables,
    ``dropped`` the queries left out under ``on="intersection"``. ``test`` is the pairwise
    test's name, None when Tukey's HSD (``correction``) decided; :attr:`decided_by` names
    whichever did.
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

    @property
    def decided_by(self) -> str:
        """The name of the test whose p-values made the decisions: ``test``, or the Tukey HSD that replaced it."""
        return self.correction if self.test is None else self.test

    def legend(self, *, latex: bool = False) -> str:
        """One sentence saying what the markers mean: the test that decided, queries, pairs, correction, alpha.

        ``latex=True`` gives the same sentence as LaTeX (text escaped, ``$p \\le 0.05$``), as
        :meth:`to_latex` puts it in its caption.
        """
        fix = latex_module.escape if latex else str
        clauses = [fix(self._test_text()), f"{self.n_queries:,} queries", fix(self._scope_text())]
        if self.test is not None:
            clauses.append(fix(self._correction_text()))
        threshold = rf"$p \le {self.alpha:g}$" if latex else f"p <= {self.alpha:g}"
        lead = "Superscript letters" if latex else "Letters"
        return (f"{lead} after a mean name the systems it beats significantly on that measure: "
                f"{', '.join(clauses)}, {threshold}.")

    def _test_text(self) -> str:
        """The deciding test in words (Tukey's HSD when it replaced the pairwise test)."""
        k = len(self.systems)
        if self.correction == "tukey" and self.test is None:
            return (f"randomised Tukey HSD (each pair's difference against the range of all {k} systems' means "
                    f"with every query's scores shuffled across the systems; {self.n_perm:,} shuffles, seed "
                    f"{self.seed}), family-wise within each measure")
        if self.correction == "tukey-parametric" and self.test is None:
            return (f"parametric Tukey HSD over all {k} systems (one-way layout: the systems read as unpaired "
                    "samples, the query effect left in the error), family-wise within each measure")
        test = _TEST_LABELS[self.test]
        if self.test in ("permutation", "randomization") and self.n_perm is not None:
            test += f", {self.n_perm:,} sign flips, seed {self.seed}"
        return test

    def _scope_text(self) -> str:
        """Which pairs were tested."""
        if self.baseline is None:
            return "every pair of systems"
        return f"every system against the baseline {self.baseline!s} ({letter(self.systems.index(self.baseline))})"

    def _correction_text(self) -> str:
        """Which correction was applied to the pairwise test's p-values, over which family, in words."""
        if self.correction is None:
            return "no correction for multiple tests"
        name = _CORRECTION_LABELS[self.correction]
        return {"measure": f"{name}-adjusted within each measure over its pairs",
                "pair": f"{name}-adjusted within each pair over its measures",
                "all": f"{name}-adjusted over all tests"}[self.family]

    def _cells(self, digits, fmt) -> list[list[str]]:
        """Rows of [letter, name, cell per measure] with fmt(mean_text, markers) per cell."""
        marks, lett, places = self.markers(), self.letters, self._digits(digits)
        rows = []
        for name in self.systems:
            cells = [fmt(_number(self.means.loc[name, m], places[m]), marks.loc[name, m]) for m in self.measures]
            rows.append([lett[name], str(name), *cells])
        return rows

    def _digits(self, digits) -> dict[str, int]:
        """{measure: decimals} from one number for all, or a mapping {measure: decimals} (the rest get 3)."""
        if isinstance(digits, Mapping):
            unknown = [m for m in digits if m not in self.measures]
            if unknown:
                raise KeyError(f"digits names measure(s) {unknown} this comparison lacks; it has {self.measures}")
            places = {m: digits.get(m, 3) for m in self.measures}
        else:
            places = dict.fromkeys(self.measures, digits)
        for m, d in places.items():
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 0 <= d <= 15:
                raise ValueError(f"digits for {m!r} must be a whole number from 0 to 15, not {d!r}")
        return places

    def best(self, digits=3) -> dict[str, list]:
        """{measure: the systems with the highest mean as shown with these digits} (ties all count)."""
        places = self._digits(digits)
        out = {}
        for m in self.measures:
            shown = {name: float(_number(self.means.loc[name, m], places[m]).replace(",", "")) for name in self.systems}
            top = max(shown.values())
            out[m] = [name for name in self.systems if shown[name] == top]
        return out

    def table(self, digits=3) -> pd.DataFrame:
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
                f"tests ({self.decided_by}), {int(self.tests['significant'].sum())} significant>")

    def to_markdown(self, digits=3, *, letter_header: str = "#", system_header: str = "system",
                    legend: bool = True) -> str:
        """A Markdown pipe table; markers as <sup>letters</sup>; the legend below unless legend=False."""
        rows = self._cells(digits, lambda mean, mark: f"{mean}<sup>{mark}</sup>" if mark else mean)
        header = [letter_header, system_header, *self.measures]
        lines = ["| " + " | ".join(_markdown_escape(h) for h in header) + " |",
                 "|" + "|".join([":--", ":--", *["--:"] * len(self.measures)]) + "|"]
        lines += ["| " + " | ".join([r[0], _markdown_escape(r[1]), *r[2:]]) + " |" for r in rows]
        return "\n".join(lines) + ("\n\n" + self.legend() if legend else "") + "\n"

    def to_latex(self, digits=3, *, caption=None, label: str | None = None, legend: bool = True, bold: bool = True,
                 environment: str | None = "table", placement: str = "htbp", letter_header: str = "\\#",
                 system_header: str = "System") -> str:
        """A table float for a paper: booktabs rules, the best mean bold, significance letters as superscripts.

        ``digits``: decimals for every measure, or ``{measure: decimals}`` (the rest get 3).
        ``caption``: your text, followed by the legend (:meth:`legend` in LaTeX: the test that
        decided, the queries, the pairs, the correction, ``$p \\le \\alpha$``) unless
        ``legend=False``; passing ``caption=c.legend`` (the method) or its text gives the legend
        alone. ``label``: a ``\\label`` such as ``"tab:results"``. ``bold``: the highest mean
        of each measure as shown (every tie) in bold, said in the caption. ``environment``:
        ``"table"``, ``"table*"`` (both columns of a two-column paper) or None (the bare tabular;
        no caption, the legend is then yours to place). Letters a mean lacks are set as an
        invisible ``\\hphantom`` so a column's numbers line up (ranx's convention). The source
        needs ``\\usepackage{booktabs}``; text in other scripts than Latin needs an engine or
        package for it (XeLaTeX, LuaLaTeX, kotex). For a table wider than the page, wrap it in
        ``\\resizebox{\\textwidth}{!}{...}`` (graphicx).
        """
        rows = self._latex_rows(digits, bold)
        header = [letter_header, system_header, *(latex_module.escape(m) for m in self.measures)]
        tabular = [r"\begin{tabular}{ll" + "r" * len(self.measures) + "}", r"\toprule",
                   " & ".join(header) + r" \\", r"\midrule", *(" & ".join(r) + r" \\" for r in rows),
                   r"\bottomrule", r"\end{tabular}"]
        if environment is None and caption is not None:
            raise ValueError("caption= needs a float: leave environment='table' (or 'table*')")
        return latex_module.table_float(tabular, environment=environment, placement=placement,
                                        caption=self._latex_caption(caption, legend, bold), label=label)

    def _latex_rows(self, digits, bold: bool) -> list[list[str]]:
        """[letter, escaped name, cell per measure] with bold best means and superscript letters."""
        places, best, lett = self._digits(digits), self.best(digits), self.letters
        sep = "" if len(self.systems) <= 26 else ","
        rows = []
        for name in self.systems:
            cells = []
            for m in self.measures:
                beaten = set(self.beaten(name, m))
                others = sep.join(lett[s] for s in self.systems if s != name and s not in beaten)
                cells.append(latex_module.cell(_number(self.means.loc[name, m], places[m]),
                                               sep.join(lett[s] for s in self.systems if s in beaten), others,
                                               bold and name in best[m]))
            rows.append([lett[name], latex_module.escape(name), *cells])
        return rows

    def _latex_caption(self, caption, legend: bool, bold: bool) -> str | None:
        """The caption's LaTeX: the user's text, what bold means, the legend; c.legend (or its text) is the legend."""
        if callable(caption) and getattr(caption, "__self__", None) is self and \
                getattr(caption, "__func__", None) is Comparison.legend:
            caption, legend = None, True
        elif isinstance(caption, str) and caption == self.legend():
            caption, legend = None, True
        elif callable(caption):
            raise TypeError("caption must be text, not a function: the legend is already in the caption "
                            "(legend=True); to pass it yourself call it, caption=c.legend()")
        note = "The best mean on each measure is in bold. " if bold else ""
        return latex_module.caption_text(caption, note + self.legend(latex=True) if legend else None)

    def to_html(self, digits=3, *, caption: str | None = None, letter_header: str = "#",
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
