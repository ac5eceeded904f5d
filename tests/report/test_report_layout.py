"""The report package's import rules (issue 21): `searchgrade.report` imports neither `searchgrade.book` nor matplotlib.

Checked twice: on the syntax trees of every module of src/searchgrade/report (imports inside functions
too, relative ones resolved), and by importing the command in a fresh interpreter and looking at what
it loaded. The book may import the report (and uses its names from where they are defined).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "src" / "searchgrade"
FORBIDDEN = ("searchgrade.book", "matplotlib", "koreanize_matplotlib")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a module, at any depth, relative ones resolved."""
    package = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out += [(node.lineno, f"{module}.{a.name}" if not node.module or node.level and a.name != "*" else module)
                    for a in node.names]
            out.append((node.lineno, module))
    return out


def forbidden(path: Path) -> list[str]:
    return [f"{path.name}:{line}: {name}" for line, name in imported_modules(path)
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)]


def test_report_modules_import_neither_book_nor_matplotlib():
    modules = sorted((ROOT / "report").glob("*.py"))
    assert {p.name for p in modules} >= {"__init__.py", "page.py", "html.py", "analyses.py", "viewer.py", "widget.py"}
    assert [bad for p in modules for bad in forbidden(p)] == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    fake = ROOT / "report" / "_probe_for_test.py"      # resolved as a module of searchgrade.report
    text = "def f():\n    from ..book import plotting\n    import matplotlib.pyplot as plt\n"
    try:
        fake.write_text(text, encoding="utf-8")
        assert forbidden(fake) == ["_probe_for_test.py:2: searchgrade.book.plotting",
                                   "_probe_for_test.py:2: searchgrade.book",
                                   "_probe_for_test.py:3: matplotlib.pyplot"]
    finally:
        fake.unlink()


def test_importing_the_report_loads_no_book_and_no_matplotlib():
    code = ("import sys, searchgrade.report, searchgrade.report.page, searchgrade.report.webfont; "
            "print(sorted(m for m in sys.modules if m.startswith(('searchgrade.book', 'matplotlib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT.parent), "PATH": ""})
    assert out.stdout.strip() == "[]"


def test_the_book_uses_the_reports_analyses_and_widget_plumbing():
    from searchgrade.book import diagnostics, widgets
    from searchgrade.report import analyses, widget

    assert diagnostics.main_table is analyses.main_table and diagnostics.rank_flips is analyses.rank_flips
    assert widgets.quantise is widget.quantise and widgets.widget_html is widget.widget_html
    assert diagnostics.check_run is analyses.check_run
    assert not {"query_viewer", "quantise", "widget_html"} & set(widgets.__all__)   # used, not re-exported


def test_the_report_palette_is_the_books():
    pytest.importorskip("matplotlib")
    from searchgrade.book.plotting import PALETTE
    from searchgrade.report.html import PALETTE as REPORT

    assert REPORT == PALETTE
