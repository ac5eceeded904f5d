"""The smoke test that .ci/run runs in clean venvs (core, then the report extra), run here in the dev venv.

.ci/run installs the core and the `report` extra each in a fresh venv and runs .ci/smoke_install.py there;
this keeps the script itself working between CI runs (the bare-venv checks, no torch or IPython, need CI).
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "smoke_install.py"


@pytest.fixture(scope="module")
def smoke():
    if not (Path(sys.executable).parent / "searchgrade").exists() and not shutil.which("searchgrade"):
        pytest.skip("the searchgrade script is not installed beside this python")
    spec = importlib.util.spec_from_file_location("smoke_install", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_core_smoke_test(smoke, tmp_path, capsys):
    smoke.core(tmp_path)
    assert "core: ok" in capsys.readouterr().out


def test_the_report_smoke_test(smoke, tmp_path, capsys):
    smoke.report(tmp_path, bare=False)
    assert "report: ok" in capsys.readouterr().out
    assert '<html lang="en">' in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_ci_installs_core_and_report_before_make_test():
    ci = (SCRIPT.parent / "run").read_text(encoding="utf-8")
    assert ci.index("smoke_install.py") < ci.index("make test")
    assert "for extra in core report" in ci
