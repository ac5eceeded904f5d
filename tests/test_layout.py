"""The package's architecture: a light evaluation core, three subpackages with their own extras, no cycles."""
import ast
import functools
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "searchgrade"
PUBLIC_CORE = ["__init__", "__main__", "metrics", "curves", "trec_eval", "ndeval", "comparison",
               "checksums", "places"]
# core packages: the measures (registry, names, ranking, kinds), reading and writing (io) and the analyses;
# each file is core, named pkg/module (a nested package pkg/sub/module)
CORE_PACKAGES = ["io", "measures", "measures/kinds", "measures/names", "judges", "rag", "stats", "cli", "cli/trec_eval", "cli/ndeval",
                 "cli/runs", "cli/report", "fusion",
                 "retrievers"]
CORE = PUBLIC_CORE + sorted(f"{pkg}/{p.stem}" for pkg in CORE_PACKAGES for p in (PKG / pkg).glob("*.py"))
SUBPACKAGES = {"collections", "retrieval", "report", "book", "spark"}
THIRD_PARTY_CORE = {"numpy", "pandas", "scipy"}


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once (the rules below walk the same files many times; none changes a tree)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, top_level_only: bool) -> list[tuple[str, int]]:
    """(absolute module name, level) of each import; relative imports keep their dots as a level."""
    tree = _tree(path)
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
    depth = name.count("/")  # a core package's file reaches the package root with one more dot
    for module, level in _imports(PKG / f"{name}.py", top_level_only=True):
        root = module.split(".")[0]
        if level:  # within searchgrade: from the package root (level > depth), a subpackage is not core
            assert level <= depth or root not in SUBPACKAGES, f"{name}.py imports the subpackage {module} at module level"
        else:
            assert root in stdlib or root in THIRD_PARTY_CORE or root == "__future__", (
                f"{name}.py imports {module}, which is not in the core's dependencies")


def _subpackages_imported(name: str) -> set[str]:
    """The searchgrade subpackages (first names) that the module ``name`` imports, at any level, relatively
    from the package root or by its absolute name."""
    depth = name.count("/")
    found = set()
    for module, level in _imports(PKG / f"{name}.py", top_level_only=False):
        if level > depth:
            found.add(module.split(".")[0])
        elif module.startswith("searchgrade."):
            found.add(module.split(".")[1])
    return found


@pytest.mark.parametrize("name", CORE)
def test_core_never_imports_the_book(name):
    assert "book" not in _subpackages_imported(name), f"{name}.py imports searchgrade.book"


@pytest.mark.parametrize("name", CORE)
def test_core_never_imports_spark(name):
    """searchgrade.spark (the spark extra, pyspark) is an extra subpackage: no core module imports it, at any level."""
    assert "spark" not in _subpackages_imported(name), f"{name}.py imports searchgrade.spark"
    assert all(module.split(".")[0] != "pyspark" for module, _ in _imports(PKG / f"{name}.py", top_level_only=False)), \
        f"{name}.py imports pyspark"


@pytest.mark.parametrize("sub", ["collections", "retrieval", "report", "spark"])
def test_collections_and_retrieval_do_not_import_the_book(sub):
    for path in (PKG / sub).glob("*.py"):
        for module, level in _imports(path, top_level_only=False):
            assert not (level == 2 and module.split(".")[0] == "book"), f"{path.name} imports searchgrade.book"


def test_report_never_imports_matplotlib():
    for path in (PKG / "report").glob("*.py"):
        for module, _ in _imports(path, top_level_only=False):
            assert module.split(".")[0] != "matplotlib", f"report/{path.name} imports matplotlib"


def test_collections_do_not_import_retrieval():
    for path in (PKG / "collections").glob("*.py"):
        for module, level in _imports(path, top_level_only=False):
            assert not (level == 2 and module.startswith("retrieval")), f"{path.name} imports searchgrade.retrieval"


def test_importing_the_core_loads_no_extra():
    code = ("import sys, searchgrade, searchgrade.stats, searchgrade.rag, searchgrade.judges, searchgrade.trec_eval, "
            "searchgrade.collections, searchgrade.retrieval, searchgrade.retrievers, "
            "searchgrade.retrievers.text_relevance; "
            "print(' '.join(sorted(m for m in ('matplotlib', 'tqdm', 'torch', 'sentence_transformers', 'kiwipiepy', "
            "'mecab', 'snowballstemmer', 'IPython', 'myst_nb', 'pytrec_eval', 'searchgrade.book', 'langchain_core', "
            "'llama_index', 'nuggetizer', 'ranx_k', 'openai', 'pyspark', 'searchgrade.spark') "
            "if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_core_dependencies_are_numpy_pandas_scipy():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in project["dependencies"]}
    assert names == THIRD_PARTY_CORE
    extras = project["optional-dependencies"]
    assert {"collections", "retrieval", "book", "test", "bench", "spark"} <= set(extras)
    assert any(d.startswith("pyspark>=4") for d in extras["spark"])
    oracles = {"pytrec-eval-terrier", "ir-measures", "cwl-eval", "ranx"}
    for extra in ("collections", "retrieval"):
        assert not oracles & {d.split(">")[0].split("=")[0] for d in extras[extra]}


def test_py_typed_and_version():
    assert (PKG / "py.typed").is_file()
    out = subprocess.run([sys.executable, "-m", "searchgrade", "--version"], capture_output=True, text=True, check=True)
    import searchgrade

    assert out.stdout.strip() == f"searchgrade {searchgrade.__version__}"


def test_package_folders_are_the_architecture():
    modules = {p.stem for p in PKG.glob("*.py")}
    assert modules == set(PUBLIC_CORE), "no flat private modules: helpers live in a package named for what they hold"
    folders = {p.relative_to(PKG).as_posix() for p in PKG.rglob("*") if p.is_dir() and p.name != "__pycache__"}
    assert SUBPACKAGES | set(CORE_PACKAGES) <= folders
    assert {f for f in folders if "/" not in f} == SUBPACKAGES | {p for p in CORE_PACKAGES if "/" not in p}
    for sub in SUBPACKAGES | set(CORE_PACKAGES):
        assert (PKG / sub / "__init__.py").is_file()


# ---------------------------------------------------------------------------
# The import graph: every import, at module level or inside a function, is an edge


def _module_name(path: Path) -> str:
    """searchgrade.x.y of a source file (a package's __init__.py is the package)."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    """True when ``name`` (searchgrade....) is a module or a package of this source tree."""
    rel = Path(*name.split("."))
    return (PKG.parent / rel).with_suffix(".py").is_file() or (PKG.parent / rel / "__init__.py").is_file()


def _targets(path: Path, node: ast.AST) -> list[str]:
    """The modules of this package that one import statement loads (``from p import m`` counts m when m is a module).

    The parent packages Python initialises on the way are left out: they are already being
    imported when a module inside them runs, so they add no edge a reader would call a cycle.
    """
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.level:
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = f"{base}.{node.module}" if node.module else base
        names = [f"{base}.{alias.name}" for alias in node.names] + [base]
    else:
        names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
    found = [n for n in names if n.split(".")[0] == "searchgrade" and _is_module(n)]
    # ``from p import m`` needs p only for a name that is not a module of p
    if isinstance(node, ast.ImportFrom) and len(found) > 1 and all(
            _is_module(n) for n in names[:-1]):
        found = found[:-1]
    return [n for n in found if n != here]


def import_graph() -> dict[str, set[str]]:
    """``{module: modules it imports}`` over every file of src/searchgrade, imports inside functions included."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        edges = graph.setdefault(_module_name(path), set())
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(_targets(path, node))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or None (depth-first search, colours white/grey/black)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_cycle_finder_finds_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_graph_counts_imports_inside_functions():
    graph = import_graph()
    assert "searchgrade.retrieval.dense" in graph["searchgrade.judges.embedding"]  # imported inside a method
    assert "searchgrade.measures.registry" in graph["searchgrade.measures.subtopics"]  # imported inside a function


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# ---------------------------------------------------------------------------
# The command lines use the core as a user would

# private names cli/ may import, each with the reason (none: it uses the core as a user would)
CLI_PRIVATE_ALLOWED: set[tuple[str, str]] = set()


def _private_imports(path: Path, text: str | None = None, skip_cli: bool = True) -> list[tuple[str, str]]:
    """(module, name) of every ``_private`` name a file (or ``text`` as that file) imports (from outside cli/
    unless ``skip_cli`` is false)."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = []
    for node in ast.walk(_tree(path) if text is None else ast.parse(text)):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            root = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = f"{root}.{base}" if base else root
        if not base.startswith("searchgrade") or (skip_cli and base.startswith("searchgrade.cli")):
            continue
        parts = base.split(".")
        found += [(base, alias.name) for alias in node.names
                  if alias.name.startswith("_") and not alias.name.startswith("__")]
        found += [(base, p) for p in parts if p.startswith("_") and not p.startswith("__")]
    return found


def test_cli_imports_only_public_names_of_the_core():
    """cli/ (the trec_eval command, the searchgrade command) calls the core's public API: no ``_private``
    module or name of another package, so that the CLI and the API cannot grow two engines again."""
    bad = {}
    for path in sorted((PKG / "cli").rglob("*.py")):
        names = [pair for pair in _private_imports(path) if pair not in CLI_PRIVATE_ALLOWED]
        if names:
            bad[path.relative_to(PKG).as_posix()] = names
    assert not bad, f"cli/ imports private names of the core: {bad}"


def test_private_import_finder_sees_private_names():
    text = ("from ...io import _read_block, read_run\nfrom ...measures import _hidden\n"
            "def f():\n    from searchgrade.measures.kinds.base import _dense_rank\n"
            "from . import args\nfrom ... import __version__\n")
    found = _private_imports(PKG / "cli" / "trec_eval" / "plan.py", text)
    assert found == [("searchgrade.io", "_read_block"), ("searchgrade.measures", "_hidden"),
                     ("searchgrade.measures.kinds.base", "_dense_rank")]


# ---------------------------------------------------------------------------
# Function length

MAX_FUNCTION_LINES = 60
# Functions still over the limit in modules other sessions are reworking; the lead empties this list.
# (module path relative to src/searchgrade, function name): lines when listed
KNOWN_LONG = {
}


def long_functions() -> dict[tuple[str, str], int]:
    """Every function or method (nested ones too) longer than MAX_FUNCTION_LINES, from ``def`` to its last line."""
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found[(path.relative_to(PKG).as_posix(), node.name)] = lines
    return found


def test_no_function_is_longer_than_60_lines():
    found = long_functions()
    new = {key: n for key, n in found.items() if key not in KNOWN_LONG}
    assert not new, "functions over 60 lines: " + ", ".join(f"{p}:{f} ({n})" for (p, f), n in sorted(new.items()))


def test_known_long_functions_are_still_long():
    """An entry of KNOWN_LONG that is fixed must leave the list (it would hide a regression)."""
    found = long_functions()
    fixed = sorted(key for key in KNOWN_LONG if key not in found)
    assert not fixed, f"no longer over 60 lines, remove from KNOWN_LONG: {fixed}"


# ---------------------------------------------------------------------------
# Where things live: the engine in one room, every command line in cli/, no private name across packages

# the engine's names, each defined once, in its module of measures/ (summary.py: the means, in trec_eval's order)
ENGINE_HOMES = {"Evaluator": "measures/engine.py", "Scores": "measures/engine.py",
                "summary_order": "measures/summary.py", "aggregate": "measures/summary.py"}
# modules outside cli/ that read command-line arguments, each with the reason: steps of `make`, not user commands
ARGPARSE_OUTSIDE_CLI = {
    "book/pdf.py": "the book's PDF build step (make pdf)",
    "book/korean_runs.py": "the book's run step (make runs)",
}


def _top_level_names(path: Path) -> set[str]:
    """Classes, functions and assigned names a module defines at its top level (imports excluded)."""
    names = set()
    for node in _tree(path).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_the_engine_lives_in_measures():
    """Evaluator, Scores and the summaries are defined once, in measures/ (engine.py, summary.py); metrics.py
    re-exports them, and the old dispatch module is gone: the API and the CLI enter one engine."""
    for name, home in ENGINE_HOMES.items():
        defined_in = sorted(path.relative_to(PKG).as_posix() for path in PKG.rglob("*.py")
                            if name in _top_level_names(path))
        assert defined_in == [home], (name, defined_in)
    assert not (PKG / "measures" / "dispatch.py").exists()
    import searchgrade
    from searchgrade.measures import engine

    assert searchgrade.Evaluator is engine.Evaluator


# ---------------------------------------------------------------------------
# A measure in one file: every family's row is written in the module of its kernel, one module per kind

KINDS = PKG / "measures" / "kinds"
# the modules of measures/kinds/ that hold no rows: helpers shared by several kinds
SHARED_KIND_HELPERS = {"__init__", "base", "gains", "ideal", "user_model"}


def misplaced_rows(kinds) -> list[tuple[str, str, str]]:
    """(family, what, where it is defined) for each row of ``kinds`` (modules with ROWS) whose kernel or user
    model is defined in another module than the row."""
    found = []
    for kind in kinds:
        for row in kind.ROWS:
            parts = [("kernel", row.kernel)] + ([("user model", row.curve.c)] if row.curve is not None else [])
            found += [(row.name, what, fn.__module__) for what, fn in parts if fn.__module__ != kind.__name__]
    return found


def _builds_rows(path: Path) -> bool:
    """Whether a module calls ``Family(...)`` (builds a row) or assigns ``ROWS``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "Family"
                for n in ast.walk(tree))
    return calls or "ROWS" in _top_level_names(path)


def test_each_measure_kind_is_one_file():
    """Each module of measures/kinds/ (but the shared helpers) holds its families' rows beside their kernels and
    user models, and is registered in KINDS; no other module builds a row, the registry included."""
    from searchgrade.measures import registry

    kinds = {p.stem for p in KINDS.glob("*.py")} - SHARED_KIND_HELPERS
    assert {k.__name__.rpartition(".")[2] for k in registry.KINDS} == kinds
    assert misplaced_rows(registry.KINDS) == []
    assert [row.name for kind in registry.KINDS for row in kind.ROWS] == list(registry.FAMILIES)
    builders = sorted(p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py") if _builds_rows(p))
    assert builders == sorted(f"measures/kinds/{k}.py" for k in kinds), builders
    assert not _builds_rows(PKG / "measures" / "registry.py")


def test_the_kind_rule_finds_a_row_away_from_its_kernel():
    from types import SimpleNamespace

    from searchgrade.measures.kinds import precision, sets

    moved = SimpleNamespace(__name__=sets.__name__, ROWS=[precision.ROWS[0], sets.ROWS[0]])
    assert misplaced_rows([moved]) == [("P", "kernel", precision.__name__), ("P", "user model", precision.__name__)]
    assert _builds_rows(KINDS / "sets.py") and not _builds_rows(KINDS / "base.py")


def test_every_command_line_lives_in_cli():
    """A module that parses command-line arguments is in cli/ (or is a build step of the Makefile, named above);
    the ``python -m searchgrade.trec_eval`` / ``.ndeval`` modules only hand over to cli/."""
    readers = {path.relative_to(PKG).as_posix() for path in PKG.rglob("*.py")
               if any(target == "argparse" for target in _imported_names(path))}
    outside = {p for p in readers if not p.startswith("cli/")}
    assert outside == set(ARGPARSE_OUTSIDE_CLI), outside
    for wrapper in ("trec_eval.py", "ndeval.py"):
        functions = {n for n in _top_level_names(PKG / wrapper) if not n.isupper() and not n.startswith("__")}
        assert functions == {"main"}, (wrapper, functions)


def _imported_names(path: Path) -> list[str]:
    """The top-level module of every import statement in a file (``import a.b`` and ``from a.b import c`` give a)."""
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append(node.module.split(".")[0])
    return found


def _area(module: str) -> str:
    """The package a module belongs to for the private-name rule: searchgrade.<area>... (a top-level module is its own)."""
    return module.split(".")[1] if "." in module else ""


def cross_package_private_imports() -> dict[str, list[tuple[str, str]]]:
    """``{file: [(module, name)]}``: every ``_private`` name or module imported from another package."""
    bad = {}
    for path in sorted(PKG.rglob("*.py")):
        here = _area(_module_name(path))
        names = [(module, name) for module, name in _private_imports(path, skip_cli=False)
                 if _area(module) != here]
        if names:
            bad[path.relative_to(PKG).as_posix()] = names
    return bad


def test_no_private_name_crosses_a_package():
    """A package uses another through its public names only (book/ through report's, curves through the
    kernels'), so that each package's private helpers can change without breaking another."""
    assert cross_package_private_imports() == {}


def test_private_names_across_packages_are_found():
    text = "from ..report.viewer import _cells, page\nfrom .tables import _local\n"
    found = [(m, n) for m, n in _private_imports(PKG / "book" / "widgets.py", text, skip_cli=False)
             if _area(m) != "book"]
    assert found == [("searchgrade.report.viewer", "_cells")]


# The ground floor: modules that import nothing from searchgrade, so that every package may stand on them
GROUND_FLOOR = {"searchgrade.places", "searchgrade.checksums"}


def test_the_ground_floor_imports_nothing_from_searchgrade():
    graph = import_graph()
    assert {m: sorted(graph[m]) for m in GROUND_FLOOR if graph[m]} == {}


def _above_io(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """``{io module: modules above io it imports}``: anything of searchgrade but io itself and the ground floor."""
    def in_io(name: str) -> bool:
        return name == "searchgrade.io" or name.startswith("searchgrade.io.")

    bad = {m: sorted(t for t in targets if not in_io(t) and t not in GROUND_FLOOR)
           for m, targets in graph.items() if in_io(m)}
    return {m: t for m, t in bad.items() if t}


def test_io_imports_nothing_above_it():
    """io/ reads and writes files: it imports only io/ and the ground floor (no collections, retrieval, report,
    book, measures, ...), at any level: deferred imports and imports for type checking count too."""
    assert _above_io(import_graph()) == {}


def test_the_io_floor_rule_sees_a_deferred_import():
    graph = {"searchgrade.io.runfolder": {"searchgrade.io", "searchgrade.checksums", "searchgrade.collections"},
             "searchgrade.io": {"searchgrade.io.text"}, "searchgrade.report.page": {"searchgrade.collections"}}
    assert _above_io(graph) == {"searchgrade.io.runfolder": ["searchgrade.collections"]}


def test_report_does_not_import_retrieval():
    """The report reads plain run files and collections: it imports nothing from retrieval/, at any level."""
    graph = import_graph()
    bad = {m: sorted(t for t in targets if t.startswith("searchgrade.retrieval"))
           for m, targets in graph.items() if m.startswith("searchgrade.report")}
    assert not {m: t for m, t in bad.items() if t}, bad


# --------------------------------------------------------------------------- names live where they are defined

# modules that re-export another package's names in their __all__ (a package's own __init__ and the top-level
# public modules may: they are the doors), each with the reason; the rest import a name from where it is defined
REEXPORTS_ALLOWED = {
    "book/diagnostics.py": "the chapters read chapter 5's line-up tables here (report.analyses); not yet moved",
    "book/korean_runs.py": "the book's line-up names the engine's Retriever, RunRecord and collection_hash; not yet moved",
}


def _reexports(path: Path, text: str | None = None) -> list[tuple[str, str]]:
    """(name, defining package) of each name of a module's ``__all__`` that it imports from another package."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    here = path.relative_to(PKG).parts
    origins, listed = {}, []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            parts = ([*here[:len(here) - node.level]] if node.level else [])
            parts += (node.module or "").split(".") if node.level else (node.module or "").split(".")[1:]
            source = parts[0] if node.level or (node.module or "").startswith("searchgrade") else "<outside>"
            origins.update({alias.asname or alias.name: source for alias in node.names})
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            listed = [e.value for e in node.value.elts]
    return [(name, origins[name]) for name in listed if name in origins and origins[name] != here[0]]


def test_no_module_re_exports_another_packages_names():
    """A module lists in ``__all__`` what it defines (or what its own package defines); a name of another package is
    imported from that package, so that every name has one home and one import path (issue 42: no shims)."""
    found = {path.relative_to(PKG).as_posix(): names for path in sorted(PKG.glob("*/**/*.py"))
             if path.name != "__init__.py" and (names := _reexports(path))}
    assert set(found) == set(REEXPORTS_ALLOWED), {k: v for k, v in found.items() if k not in REEXPORTS_ALLOWED}


def test_the_re_export_finder_sees_one():
    text = "from ..report.widget import quantise\nfrom .tables import show\n__all__ = ['quantise', 'show', 'f']\n"
    assert _reexports(PKG / "book" / "widgets.py", text) == [("quantise", "report")]


def test_one_loader_reads_the_files_shipped_beside_the_code():
    """Only report/widget.py reads package data (``importlib.resources`` or an ``assets`` path): :func:`asset`."""
    readers = set()
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        body = [n for n in ast.walk(tree) if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        names = {a.name for n in body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        modules = {n.module for n in body if isinstance(n, ast.ImportFrom)}
        constants = {n.value for n in body if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if "importlib.resources" in names | modules or "resources" in names or "assets" in constants:
            readers.add(path.relative_to(PKG).as_posix())
    assert readers == {"report/widget.py"}, readers


# --------------------------------------------------------------------------- package docstrings



@pytest.mark.parametrize("package", sorted(p.parent.name for p in PKG.glob("*/__init__.py")))
def test_every_package_docstring_says_what_it_holds_and_how_to_add_its_thing(package):
    doc = ast.get_docstring(ast.parse((PKG / package / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert doc and len(doc.splitlines()[0]) > 20, f"{package}: no first line saying what it holds"
    assert "to add" in doc.lower(), f"{package}: the docstring does not say how to add its thing ('To add ...')"


def test_the_cli_docstring_names_every_command():
    from searchgrade.cli import main

    doc = ast.get_docstring(ast.parse((PKG / "cli" / "__init__.py").read_text(encoding="utf-8")))
    commands = set(main._SUBCOMMANDS) | {p.parent.name for p in (PKG / "cli").glob("*/__init__.py")}
    assert commands == {"trec_eval", "ndeval", "runs", "report"}
    assert all(f"``{c}`` (:mod:`.{c}`)" in doc for c in commands), doc
# ---------------------------------------------------------------------------
# The tests: tests/ mirrors src/searchgrade/, and no test module imports another

TESTS = ROOT / "tests"
# folders of tests/ that are not packages of searchgrade: helpers, data, and the suites with their own make target
TEST_FOLDERS_ELSEWHERE = {"support", "fixtures", "browser", "lab", "pdf"}
# (file relative to tests/, imported test module): imports of one test module by another, left where a make
# target other than `make test` runs them and their files are not this rule's to move; the list only shrinks
KNOWN_TEST_IMPORTS = {("browser/test_report.py", "test_web_font")}


def _test_module_imports(path: Path, text: str | None = None) -> list[str]:
    """The modules a file under tests/ imports (at any level) that are test modules or conftest: a name whose
    last part starts with ``test_`` or is ``conftest``, or any ``tests.*`` module outside ``tests.support``."""
    tree = _tree(path) if text is None else ast.parse(text)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names = [base] if node.module else [f"{base}{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            last = name.rsplit(".", 1)[-1]
            in_tests = name == "tests" or name.startswith("tests.")
            if last.startswith("test_") or last == "conftest" or (in_tests and not name.startswith("tests.support")):
                found.append(name.lstrip("."))
    return found


def test_no_test_module_imports_another():
    """A test module imports helpers from tests/support/ and takes fixtures from conftest.py; importing
    another test module would run its tests twice and tie two files together."""
    found = {(path.relative_to(TESTS).as_posix(), name) for path in sorted(TESTS.rglob("*.py"))
             for name in _test_module_imports(path)}
    assert not found - KNOWN_TEST_IMPORTS, f"test modules imported by other files: {sorted(found - KNOWN_TEST_IMPORTS)}"
    assert not KNOWN_TEST_IMPORTS - found, f"no longer imported, remove from KNOWN_TEST_IMPORTS: {KNOWN_TEST_IMPORTS - found}"


def test_shared_test_helpers_live_only_in_tests_support():
    """A helper shared by test modules is a module of tests/support/, whatever folder its tests are in."""
    allowed = {"conftest.py", "__init__.py"}
    strays = sorted(path.relative_to(TESTS).as_posix() for path in TESTS.rglob("*.py")
                    if "__pycache__" not in path.parts and path.parent.name != "support"
                    and not path.name.startswith("test_") and path.name not in allowed)
    assert not strays, f"helpers outside tests/support/: {strays}"


def test_the_test_import_finder_sees_test_modules():
    text = ("from tests.support.golden import ROOT\nimport test_io\nfrom tests.io.test_io import RUN_BAD\n"
            "from tests.io import test_bulk\nfrom . import test_cwl\n"
            "def f():\n    from test_web_font import check_page\n    import conftest\n")
    assert _test_module_imports(TESTS / "x.py", text) == ["test_io", "tests.io.test_io", "tests.io", "test_cwl",
                                                          "test_web_font", "conftest"]


def test_tests_mirror_the_package():
    """Every folder of tests is a package of src/searchgrade (tests/<pkg>/test_<module>.py; see conftest.py) with
    an __init__.py, so that modules of the same basename in two folders do not collide."""
    folders = {p.relative_to(TESTS).as_posix() for p in TESTS.rglob("*") if p.is_dir() and p.name != "__pycache__"
               and not p.name.startswith(".")}
    ours = {f for f in folders if f.split("/")[0] not in TEST_FOLDERS_ELSEWHERE}
    stray = sorted(f for f in ours if not (PKG / f).is_dir())
    assert not stray, f"test folders that mirror no package of src/searchgrade: {stray}"
    bare = sorted(f for f in ours | {"support"} if not (TESTS / f / "__init__.py").is_file())
    assert not bare, f"test folders without __init__.py: {bare}"
    assert (TESTS / "__init__.py").is_file()


TEST_PATH = re.compile(r"tests/[A-Za-z0-9_/]*\.py")


def git_files(*places: str) -> list[Path]:
    """The files git tracks under these places (files or folders of the repository root)."""
    out = subprocess.run(["git", "ls-files", "--", *places], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return [ROOT / line for line in out.splitlines() if (ROOT / line).is_file()]


def named_test_paths(text: str) -> set[str]:
    """The test files a text names by path (``tests/.../test_x.py``)."""
    return set(TEST_PATH.findall(text))


def test_every_test_file_named_in_the_code_and_the_docs_exists():
    """Docstrings, READMEs and chapters point readers at test files: a moved test leaves no dangling path."""
    files = git_files("src", "data", "chapters", "benchmarks", "tests", "README.md", "Makefile", ".ci")
    dangling = sorted(f"{path}: {name}" for path in files if path.suffix in {".py", ".md", ""}
                      for name in named_test_paths(path.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / name).is_file())
    assert not dangling, "\n".join(dangling)


def test_the_test_path_finder_sees_a_path():
    gone = "tests/" + "gone.py"  # built here, so that this file names no missing test
    assert named_test_paths(f"see ``tests/io/test_bulk.py`` and {gone}.") == {"tests/io/test_bulk.py", gone}
