"""Tests for searchgrade/__init__.py: public names and subpackages load on first use, not at start-up."""
import subprocess
import sys

import pytest

import searchgrade as sg


def _run(code: str) -> str:
    """stdout of a fresh interpreter running code (nothing imported before it)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


SUBPACKAGES = [("stats", "t_test"), ("judges", "pool"), ("rag", None), ("io", "read_run"), ("fusion", "fuse"),
               ("measures", None), ("comparison", "compare")]


def test_subpackages_load_on_attribute_access():
    """One fresh interpreter: which subpackages were loaded by ``import searchgrade`` alone, then each one
    reached as an attribute (a single start-up, not one per subpackage)."""
    code = ("import sys, searchgrade as sg\n"
            f"subs = {SUBPACKAGES!r}\n"
            "before = {sub: 'searchgrade.' + sub in sys.modules for sub, _ in subs}\n"
            "for sub, name in subs:\n"
            "    module = getattr(sg, sub)\n"
            "    print(sub, before[sub], module.__name__, hasattr(module, name) if name else True)\n")
    lines = [line.split() for line in _run(code).splitlines()]
    assert [line[0] for line in lines] == [sub for sub, _ in SUBPACKAGES]
    for sub, before, module_name, has in lines:
        assert module_name == f"searchgrade.{sub}" and has == "True", sub
        assert before == ("True" if sub == "io" else "False"), sub  # io is the one subpackage read at start-up


def test_start_up_imports_no_subpackage_and_no_scipy():
    code = ("import sys, searchgrade; print(' '.join(sorted(m for m in sys.modules if m.startswith('searchgrade.') "
            "and m.count('.') == 1 or m in ('scipy', 'pandas'))))")
    loaded = set(_run(code).split())
    assert "searchgrade.stats" not in loaded and "scipy" not in loaded
    assert not loaded - {"searchgrade.io"}


def test_unknown_names_and_the_book_still_raise():
    with pytest.raises(AttributeError, match="has no attribute 'statz'"):
        sg.statz
    assert "stats" in dir(sg) and "stats" not in sg.__all__   # a star import does not load every subpackage
    code = ("import searchgrade as sg\ntry:\n    sg.book\nexcept AttributeError as e:\n    print('refused', e)\n"
            "print('book' in dir(sg))")
    assert _run(code).split("\n")[:2] == ["refused module 'searchgrade' has no attribute 'book'", "False"]
