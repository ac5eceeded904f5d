"""Tests for searchgrade/__init__.py: public names and subpackages load on first use, not at start-up."""
import subprocess
import sys

import pytest

import searchgrade as sg


def _run(code: str) -> str:
    """stdout of a fresh interpreter running code (nothing imported before it)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("sub, name", [("stats", "t_test"), ("judges", "pool"), ("rag", None), ("io", "read_run"),
                                       ("fusion", "fuse"), ("measures", None), ("comparison", "compare")])
def test_subpackages_load_on_attribute_access(sub, name):
    code = (f"import sys, searchgrade as sg; before = 'searchgrade.{sub}' in sys.modules; "
            f"module = sg.{sub}; print(before, module.__name__, "
            f"{'hasattr(module, ' + repr(name) + ')' if name else True})")
    before, module_name, has = _run(code).split()
    assert module_name == f"searchgrade.{sub}" and has == "True"
    assert before == ("True" if sub == "io" else "False")     # io is the one subpackage read at start-up


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
