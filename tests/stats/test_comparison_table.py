"""Tests for searchgrade.stats.comparison_table and .latex: the LaTeX table a paper can take (issue 41 §1)."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from searchgrade import compare
from searchgrade.stats import latex

SYSTEMS = {"bm25_base": 0.0, "dense & co": 0.15, "hybrid": 0.3, "twin": 0.3}


def _tables(n: int = 40, seed: int = 7) -> dict:
    """Per-query tables of two measures for four systems of rising quality (two of them equal in law)."""
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    out = {}
    for name, push in SYSTEMS.items():
        ap = np.clip(base * 0.5 + push + rng.normal(0, 0.08, n), 0, 1)
        out[name] = pd.DataFrame({"AP": ap, "P@5": np.round(ap * 5) / 5}, index=[f"q{i}" for i in range(n)])
    return out


@pytest.fixture(scope="module")
def report():
    return compare(None, _tables(), ["AP", "P@5"], test="t")


def _body(tex: str) -> list[str]:
    lines = tex.splitlines()
    return lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")]


def test_a_table_float_with_booktabs_caption_and_label(report):
    tex = report.to_latex(label="tab:results")
    lines = tex.strip().splitlines()
    assert lines[0].startswith("%") and "booktabs" in lines[0]
    assert lines[1] == r"\begin{table}[htbp]" and lines[-1] == r"\end{table}"
    assert r"\label{tab:results}" in lines and r"\begin{tabular}{llrr}" in lines
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    caption = next(line for line in lines if line.startswith(r"\caption{"))
    assert "paired t-test, 40 queries, every pair of systems, Holm-adjusted within each measure" in caption
    assert caption.endswith(r"$p \le 0.05$.}") and "<=" not in tex
    assert "The best mean on each measure is in bold." in caption
    body = _body(tex)
    assert len(body) == 4 and all(line.replace(r"\&", "").count("&") == 3 and line.endswith(r"\\") for line in body)
    assert body[0].startswith(r"a & bm25\_base & ") and body[1].startswith(r"b & dense \& co & ")


def test_bold_best_and_superscript_letters_follow_the_tests(report):
    body = _body(report.to_latex(digits={"AP": 4}))
    best = report.best({"AP": 4})
    for i, name in enumerate(report.systems):
        cells = body[i].removesuffix(r" \\").split(" & ")[2:]
        for measure, text in zip(report.measures, cells):
            marks = report.markers().loc[name, measure]
            assert (f"\\textsuperscript{{{marks}}}" in text) == bool(marks)
            assert text.startswith(r"\textbf{") == (name in best[measure])
            shown = re.search(r"\d+\.\d+", text).group()
            assert len(shown.split(".")[1]) == (4 if measure == "AP" else 3)
            lacks = "".join(report.letters[s] for s in report.systems
                            if s != name and s not in report.beaten(name, measure))
            assert (f"\\hphantom{{\\textsuperscript{{{lacks}}}}}" in text) == bool(lacks)
    means = report.means["AP"].round(4)
    assert best["AP"] == [n for n in report.systems if means[n] == means.max()]


def test_ties_in_the_shown_digits_are_all_bold(report):
    best = report.best(0)                   # every mean rounds to 0 or 1
    shown = report.means.round(0)
    for m in report.measures:
        assert best[m] == [n for n in report.systems if shown.loc[n, m] == shown[m].max()]
    assert len(best["P@5"]) >= 2


def test_caption_text_is_escaped_and_the_legend_follows(report):
    tex = report.to_latex(caption="Results on KorQuAD_v1 (p <= 0.05, 100% of queries)", legend=False, bold=False)
    assert r"\caption{Results on KorQuAD\_v1 (p $\le$ 0.05, 100\% of queries)}" in tex
    assert r"\textbf" not in tex
    joined = report.to_latex(caption="Results")
    assert r"\caption{Results. The best mean on each measure is in bold. Superscript letters" in joined


def test_caption_given_the_legend_method_or_its_text(report):
    plain = report.to_latex()
    assert report.to_latex(caption=report.legend) == plain
    assert report.to_latex(caption=report.legend()) == plain
    assert "bound method" not in plain
    with pytest.raises(TypeError, match="caption must be text, not a function"):
        report.to_latex(caption=str.upper)
    with pytest.raises(TypeError, match="caption must be text, not int"):
        report.to_latex(caption=3)


def test_options_are_checked(report):
    with pytest.raises(ValueError, match="label must be a LaTeX label"):
        report.to_latex(label="tab results")
    with pytest.raises(KeyError, match=r"digits names measure\(s\) \['nDCG@10'\]"):
        report.to_latex(digits={"nDCG@10": 2})
    with pytest.raises(ValueError, match="digits for 'AP' must be a whole number"):
        report.to_latex(digits=-1)
    with pytest.raises(ValueError, match="environment must be"):
        report.to_latex(environment="figure")
    with pytest.raises(ValueError, match="placement must be"):
        report.to_latex(placement="H]")
    with pytest.raises(ValueError, match="caption= needs a float"):
        report.to_latex(environment=None, caption="x")
    bare = report.to_latex(environment=None)
    assert r"\begin{table}" not in bare and r"\begin{tabular}" in bare and r"\caption" not in bare
    wide = report.to_latex(environment="table*", placement="t")
    assert r"\begin{table*}[t]" in wide and wide.rstrip().endswith(r"\end{table*}")


def test_digits_reach_every_rendering(report):
    assert report.table(digits={"P@5": 1}).loc["hybrid", "P@5"].split()[0] == f"{report.means.loc['hybrid', 'P@5']:.1f}"
    assert f"{report.means.loc['twin', 'AP']:.5f}" in report.to_markdown(digits=5)


def test_escape():
    assert latex.escape(r"a_b & c% $d# {e} ~f ^g \h <i >j") == (
        r"a\_b \& c\% \$d\# \{e\} \textasciitilde{}f \textasciicircum{}g \textbackslash{}h \textless{}i "
        r"\textgreater{}j")
    assert latex.escape("p <= 0.05, q >= 1") == r"p $\le$ 0.05, q $\ge$ 1"


def _check_source(tex: str) -> None:
    """What a LaTeX engine would object to, checked on the text: balanced braces and environments."""
    text = re.sub(r"\\[{}]", "", "\n".join(line for line in tex.splitlines() if not line.startswith("%")))
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a closing brace before its opening one"
    assert depth == 0, "unbalanced braces"
    begins = re.findall(r"\\begin\{([a-z*]+)\}", text)
    assert begins == re.findall(r"\\end\{([a-z*]+)\}", text)[::-1], "environments do not nest"
    assert text.count("$") % 2 == 0, "an unclosed math shift"
    plain = re.sub(r"\$[^$]*\$", "", text)                       # math holds \le, ^ and the like
    plain = re.sub(r"\\[&_%#$]", "", plain).replace(" & ", " ")   # escaped text, column separators
    assert not re.search(r"[&%#_^~<>]", plain), f"an unescaped special character in {plain!r}"


def _latex_engine() -> str | None:
    """pdflatex when it and booktabs.sty are installed (Debian: texlive-latex-base, texlive-latex-recommended)."""
    engine, kpsewhich = shutil.which("pdflatex"), shutil.which("kpsewhich")
    if not engine or not kpsewhich:
        return None
    found = subprocess.run([kpsewhich, "booktabs.sty"], capture_output=True, text=True).stdout.strip()
    return engine if found else None


def _tables_to_compile(report) -> list[str]:
    tukey = compare(None, _tables(), ["AP", "P@5"], correction="tukey", n_perm=500, seed=3, baseline="hybrid")
    return [report.to_latex(label="tab:a", digits={"AP": 4}), report.to_latex(caption="KorQuAD_v1: 50% & more"),
            tukey.to_latex(environment="table*"), report.to_latex(environment=None)]


def test_the_source_is_well_formed(report):
    for tex in _tables_to_compile(report):
        _check_source(tex)


@pytest.mark.skipif(_latex_engine() is None, reason="no pdflatex with booktabs.sty installed (Debian packages "
                    "texlive-latex-base and texlive-latex-recommended); test_the_source_is_well_formed checked "
                    "the source instead")
def test_the_table_compiles(report, tmp_path):
    body = "\n\n".join(_tables_to_compile(report))
    (tmp_path / "t.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                    f"{body}\n\\end{{document}}\n", encoding="utf-8")
    out = subprocess.run([_latex_engine(), "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-3000:]
    log = (tmp_path / "t.log").read_text(errors="replace")
    assert "Undefined control sequence" not in log and "Missing $ inserted" not in log
    assert (tmp_path / "t.pdf").stat().st_size > 1000
