"""searchgrade.report.widget: the plumbing of every kernel-free widget, and the one loader of the package's assets."""
import ast
import html
import json
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

from searchgrade.report import widget

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "searchgrade"


@pytest.fixture(autouse=True)
def _book_mode(monkeypatch):
    """No Jupyter session and no override, as in a book build, unless a test says otherwise."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.delenv(widget.MODE_ENV, raising=False)


def test_quantise_rounds_to_four_decimals_halves_up():
    assert widget.quantise(0.28125) == 2813
    assert widget.quantise(1 / 3) == 3333
    assert widget.quantise(0.0) == 0 and widget.quantise(1.0) == 10_000
    with pytest.raises(ValueError, match="not a finite number"):
        widget.quantise(float("nan"))


def test_format_value_is_what_the_script_shows():
    assert widget.format_value(2813) == "0.2813" and widget.format_value(10_000) == "1.0000"
    assert widget.format_value(None) == "\u2014"


def test_resolve_mode(monkeypatch):
    assert widget.resolve_mode("auto") == "html"                 # book build: no Jupyter session
    monkeypatch.setenv("JPY_SESSION_NAME", "/chapters/ch02_ranking.md")
    assert widget.resolve_mode("auto") == "ipywidgets"           # JupyterLab kernel
    assert widget.resolve_mode("html") == "html"
    monkeypatch.setenv(widget.MODE_ENV, "html")
    assert widget.resolve_mode("auto") == "html"                 # the override wins
    monkeypatch.setenv(widget.MODE_ENV, "svg")
    with pytest.raises(ValueError, match="SEARCHGRADE_WIDGET_MODE"):
        widget.resolve_mode("auto")
    with pytest.raises(ValueError, match="mode must be one of"):
        widget.resolve_mode("notebook")


def test_check_int_names_the_argument():
    assert widget.check_int("k", np.int64(3), 1, 5) == 3
    with pytest.raises(ValueError, match="k must be an integer in 1..5, not True"):
        widget.check_int("k", True, 1, 5)
    with pytest.raises(ValueError, match="depth must be in 1..20, got 21"):
        widget.check_int("depth", 21, 1, 20)


def test_widget_ids_differ_per_instance_and_share_the_content_hash():
    a, b = widget.widget_id("lab", "same"), widget.widget_id("lab", "same")
    assert a != b and a.rsplit("-", 1)[0] == b.rsplit("-", 1)[0]
    assert re.fullmatch(r"sg-lab-[0-9a-f]{8}-\d+", a)


def test_widget_html_embeds_its_data_safely_and_wires_only_itself():
    data = {"text": "</script><b>&", "n": 1}
    page = widget.widget_html("sg-t-1", "<p>body</p>", data, "function f(root, data) {}", "f", "test", "sg-t", "en")
    assert page.startswith('<div class="sg-widget sg-t tex2jax_ignore mathjax_ignore" id="sg-t-1" data-sg-widget="test">')
    assert f"<style>{widget.asset('widgets.css')}</style>" in page
    embedded = re.search(r'<script type="application/json" id="sg-t-1-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in embedded and "&" not in embedded and json.loads(embedded) == data
    assert 'f(root, JSON.parse(document.getElementById("sg-t-1-data").textContent));' in page
    assert 'var root = document.getElementById("sg-t-1");' in page
    note = re.search(r'<p class="sg-print-note">(.*?)<span class="sg-edition">', page).group(1)
    assert html.unescape(note) and not re.search("[\uac00-\ud7a3]", note)      # the English print note


# --------------------------------------------------------------------------- the one asset loader


def _package_data() -> list[str]:
    """The package-data globs of pyproject.toml, relative to src/searchgrade."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["searchgrade"]


def _asset_calls() -> set[tuple[str, str]]:
    """(package, name) of every ``asset(name[, package])`` call in the source (literals, or a module's str constants)."""
    found = set()
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                     for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "asset" and node.args:
                args = [a.value if isinstance(a, ast.Constant) else constants.get(getattr(a, "id", None))
                        for a in node.args]
                assert all(isinstance(a, str) for a in args), f"{path}: asset() with an argument not a str constant"
                found.add((args[1] if len(args) > 1 else "searchgrade.report", args[0]))
    return found


def _assets() -> list[Path]:
    """Every file of an ``assets/`` folder of the package."""
    return sorted(p for p in PKG.rglob("assets/*") if p.is_file())


def test_every_asset_is_package_data_read_by_the_loader_and_used():
    files = _assets()
    assert {p.parent.parent.name for p in files} == {"report", "book"} and len(files) >= 9
    globs = _package_data()
    for path in files:
        rel = path.relative_to(PKG).as_posix()
        assert any(fnmatch(rel, g) for g in globs), f"{rel} is not package data in pyproject.toml"
        package = "searchgrade." + path.parent.parent.name
        assert widget.asset(path.name, package) == path.read_text(encoding="utf-8")
    used = _asset_calls()
    shipped = {("searchgrade." + p.parent.parent.name, p.name) for p in files}
    assert used <= shipped, f"asset() calls naming no file: {sorted(used - shipped)}"
    assert shipped <= used, f"assets no code reads: {sorted(shipped - used)}"


def test_a_missing_asset_names_the_file():
    with pytest.raises(FileNotFoundError, match="no-such.js"):
        widget.asset("no-such.js")
