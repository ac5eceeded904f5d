"""The package's architecture: a light evaluation core, three subpackages with their own extras, no cycles."""
import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "searchgrade"
PUBLIC_CORE = ["__init__", "__main__", "io", "metrics", "curves", "trec_eval", "stats", "comparison", "rag", "judges", "variants",
               "checksums"]
# the core's private helper modules (a leading underscore) are core too
CORE = PUBLIC_CORE + sorted(p.stem for p in PKG.glob("_*.py") if p.stem not in ("__init__", "__main__"))
SUBPACKAGES = {"collections", "retrieval", "book"}
THIRD_PARTY_CORE = {"numpy", "pandas", "scipy"}


def _imports(path: Path, top_level_only: bool) -> list[tuple[str, int]]:
    """(absolute module name, level) of each import; relative imports keep their dots as a level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and not base:  # from . import x
                found += [(alias.name, node.level) for alias in node.names]
            else:
                found.append((base, node.level))
    return found


@pytest.mark.parametrize("name", CORE)
def test_core_imports_only_numpy_pandas_scipy_at_module_level(name):
    stdlib = sys.stdlib_module_names
    for module, level in _imports(PKG / f"{name}.py", top_level_only=True):
        root = module.split(".")[0]
        if level:
            assert root not in SUBPACKAGES, f"{name}.py imports the subpackage {module} at module level"
        else:
            assert root in stdlib or root in THIRD_PARTY_CORE or root == "__future__", (
                f"{name}.py imports {module}, which is not in the core's dependencies")


@pytest.mark.parametrize("name", CORE)
def test_core_never_imports_the_book(name):
    for module, level in _imports(PKG / f"{name}.py", top_level_only=False):
        assert not (level and module.split(".")[0] == "book"), f"{name}.py imports searchgrade.book"
        assert not module.startswith("searchgrade.book"), f"{name}.py imports searchgrade.book"


@pytest.mark.parametrize("sub", ["collections", "retrieval"])
def test_collections_and_retrieval_do_not_import_the_book(sub):
    for path in (PKG / sub).glob("*.py"):
        for module, level in _imports(path, top_level_only=False):
            assert not (level == 2 and module.split(".")[0] == "book"), f"{path.name} imports searchgrade.book"


def test_collections_do_not_import_retrieval():
    for path in (PKG / "collections").glob("*.py"):
        for module, level in _imports(path, top_level_only=False):
            assert not (level == 2 and module.startswith("retrieval")), f"{path.name} imports searchgrade.retrieval"


def test_importing_the_core_loads_no_extra():
    code = ("import sys, searchgrade, searchgrade.stats, searchgrade.rag, searchgrade.judges, searchgrade.trec_eval, "
            "searchgrade.collections, searchgrade.retrieval; "
            "print(' '.join(sorted(m for m in ('matplotlib', 'tqdm', 'torch', 'sentence_transformers', 'kiwipiepy', "
            "'mecab', 'snowballstemmer', 'IPython', 'myst_nb', 'pytrec_eval', 'searchgrade.book') "
            "if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_core_dependencies_are_numpy_pandas_scipy():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in project["dependencies"]}
    assert names == THIRD_PARTY_CORE
    extras = project["optional-dependencies"]
    assert {"collections", "retrieval", "book", "test", "bench"} <= set(extras)
    oracles = {"pytrec-eval-terrier", "ir-measures", "cwl-eval", "ranx"}
    for extra in ("collections", "retrieval"):
        assert not oracles & {d.split(">")[0].split("=")[0] for d in extras[extra]}


def test_py_typed_and_version():
    assert (PKG / "py.typed").is_file()
    out = subprocess.run([sys.executable, "-m", "searchgrade", "--version"], capture_output=True, text=True, check=True)
    import searchgrade

    assert out.stdout.strip() == f"searchgrade {searchgrade.__version__}"


def test_package_folders_are_the_architecture():
    modules = {p.stem for p in PKG.glob("*.py") if not p.stem.startswith("_") or p.stem.startswith("__")}
    assert modules == set(PUBLIC_CORE)
    for sub in SUBPACKAGES:
        assert (PKG / sub / "__init__.py").is_file()
