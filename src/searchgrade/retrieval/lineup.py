"""Line-up files: the retrievers to run, described in TOML and checked before anything is computed.

A line-up file is read with the standard library's ``tomllib``. An optional ``[lineup]`` table
holds settings shared by every run; one ``[[retriever]]`` table per retriever follows, in the
order the reports list them::

    [lineup]
    name = "my-rag"                # optional
    depth = 100                    # documents per query in every run (default 100)
    collection = "path/to/beir"    # optional default for `searchgrade runs --collection`

    [[retriever]]
    name = "bm25-kiwi"             # a file name: no whitespace, no / or \\
    kind = "bm25"
    tokeniser = "ko-kiwi"

    [[retriever]]
    name = "dense-e5"
    kind = "dense"
    model = "intfloat/multilingual-e5-small"   # a sentence-transformers name or folder
    query_prefix = "query: "
    document_prefix = "passage: "
    device = "cuda"

    [[retriever]]
    name = "rrf"
    kind = "rrf"
    inputs = ["bm25-kiwi", "dense-e5"]

Every table has ``name`` and ``kind`` and may have ``family`` (default BM25, dense or hybrid by
kind) and ``description``. The other keys, per kind (defaults in brackets):

``bm25``
    ``tokeniser`` (``ko-ws``, ``ko-bigram``, ``ko-kiwi``, ``ko-mecab`` or an analyser of
    :mod:`.sparse`: ``words``, ``stems``, ...), ``k1`` [1.5], ``b`` [0.75], ``epsilon``
    [0.25] (rank_bm25's BM25Okapi), ``fields`` [title, text].
``dense``
    ``model``: an encoder of :mod:`.dense` (``e5``, ``use``, ``minilm``: their prefixes are
    fixed, so they take no other key) or a sentence-transformers model name or folder,
    which also takes ``query_prefix`` / ``document_prefix`` [""], ``device`` [cpu],
    ``batch_size`` [32], ``max_seq_length``, ``trust_remote_code`` [false]; ``fields``.
``rrf``
    ``inputs`` (two or more retrievers of the file), ``k`` [60], ``weights`` [1 each].
``convex``
    ``inputs``, ``weights`` (non-negative, summing to 1) over ``min-max-one``-normalised scores.
``combsum``, ``combmnz``, ``combmax``
    ``inputs``, ``normalisation`` (a normalisation of :mod:`searchgrade.fusion` by its name:
    ``min-max-one``, ``min-max``, ``zmuv``, ``rank``, ...; not ``borda``; or ``none``),
    ``weights`` [1 each], ``depth`` (each input's top ``depth`` documents are fused and
    the fused list keeps as many) [the run depth].
``rerank``
    ``inputs`` (exactly one first stage), ``depth`` (candidates re-scored, e.g. 30),
    ``scorer`` [``cross-encoder``] or ``bi-encoder``, ``model`` (a cross-encoder name or
    folder, or an encoder as for ``dense``), ``device``, ``batch_size``, ``fields``; a
    cross-encoder also ``max_length``, a bi-encoder the prefixes and ``max_seq_length``.

The fusion kinds are methods of :mod:`searchgrade.fusion` (``rrf``; ``convex`` is ``wsum`` of
``min-max-one`` scores; the comb kinds are ``sum``, ``mnz`` and ``max``): :data:`.kinds.FUSION_KINDS`
maps the kinds onto them, and a normalisation has the name it has there.

Unknown tables or keys, unknown kinds, a key of the wrong type, an input that is not in the file (or
a cycle of inputs) are refused with a :class:`LineupError` naming the file, the line, the retriever
and the key. :func:`check_available` then checks what can be checked without computing anything:
the tokenisers' packages are installed, every model is on disk (a folder holding a model, or a hub
name in the local Hugging Face cache unless ``HF_HUB_OFFLINE=0``), a CUDA device exists.

Overrides for running a file elsewhere (``searchgrade runs --model-map NAME=PATH --device cpu``):
``model_map`` replaces model names by folders (every entry must be used) and ``device`` replaces
every retriever's device; both are recorded in the settings, so the runs' cache keys follow them.

This module is the user-facing line-up format. What each kind accepts, computes and needs is one
row of :mod:`.kinds` (a new kind is a new row); the value types are those of :mod:`.schema` and
the checks before running are in :mod:`.available`. :mod:`.runs` computes and caches the runs, and
:mod:`searchgrade.book.korean_runs` reads the book's own file, ``lineups/book.toml``, with it.
"""
from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..io import FormatError
from ..io.errors import did_you_mean
from . import available
from .kinds import KINDS, Table
from .schema import COMMON, DEFAULT_DEPTH, DEFAULT_FIELDS, DEVICE, INT, NUM, REQUIRED, STR, STRS, type_ok

__all__ = [
    "Retriever",
    "Lineup",
    "LineupError",
    "read_lineup",
    "parse_lineup",
    "retriever",
    "check_available",
    "parse_model_map",
]

_LINEUP_KEYS = {"name": (STR, ""), "description": (STR, ""), "depth": (INT, DEFAULT_DEPTH),
                "collection": (STR, None), "fields": (STRS, None)}



class LineupError(FormatError):
    """A line-up that cannot be used: ``str()`` is ``"{file}:{line}: retriever '{name}', key '{key}': {problem}"``."""

    def __init__(self, path, line: int | None, problem: str, retriever: str | None = None, key: str | None = None):
        self.retriever, self.key = retriever, key
        where = "".join([f"retriever {retriever!r}" if retriever else "",
                         ", " if retriever and key else "", f"key {key!r}" if key else ""])
        super().__init__(str(path), line, f"{where}: {problem}" if where else problem)

    def __reduce__(self):
        return (_rebuild_error, (self.path, self.line, self.problem, self.retriever, self.key))


def _rebuild_error(path, line, problem, retriever, key):
    """Unpickle a LineupError (its message is rebuilt from the parts)."""
    err = LineupError.__new__(LineupError)
    FormatError.__init__(err, path, line, problem)
    err.retriever, err.key = retriever, key
    return err


@dataclass
class Retriever:
    """One retriever: a stable name, a family, a kind, its normalised settings and the retrievers it reads.

    ``origin`` says where it was defined (``file:line``) for messages and ``overrides`` what a model map
    or a device option changed in it; neither is part of its settings (the changed values are).
    """

    name: str
    family: str
    kind: str
    description: str
    params: dict = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    origin: str = ""
    overrides: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"retriever {self.name}: kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if not self.name or any(ch.isspace() for ch in self.name):
            raise ValueError(f"retriever name {self.name!r} must be non-empty and without whitespace")
        self.inputs = tuple(self.inputs)


@dataclass
class Lineup:
    """A parsed line-up file: retrievers in file order, the run depth, and where each key was written."""

    retrievers: dict[str, Retriever]
    depth: int = DEFAULT_DEPTH
    name: str = ""
    description: str = ""
    collection: str | None = None
    path: str = "<string>"
    model_map: dict[str, str] = field(default_factory=dict)
    lines: dict[tuple[str, str], int] = field(default_factory=dict)
    device: str | None = None
    """The ``--device`` override, if any; ``fixed_device`` names the retrievers it could not set."""
    fixed_device: list[str] = field(default_factory=list)

    def line(self, retriever: str, key: str = "") -> int | None:
        """The file line of a retriever's key (of its [[retriever]] header for key ""), if known."""
        return self.lines.get((retriever, key)) or self.lines.get((retriever, ""))

    def error(self, retriever: str, key: str, problem: str) -> LineupError:
        """A LineupError about one key of one retriever of this file."""
        return LineupError(self.path, self.line(retriever, key), problem, retriever, key)


# --------------------------------------------------------------------------- where keys are written


class _Lines:
    """Line numbers of the [[retriever]] headers and their keys in a file's text (a plain scan, for messages)."""

    _HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?")
    _KEY = re.compile(r"^\s*[\"']?([A-Za-z0-9_-]+)[\"']?\s*=")

    def __init__(self, text: str):
        self.tables: list[tuple[str, int, dict[str, int]]] = []   # (table name, header line, {key: line})
        current: dict[str, int] = {}
        for number, line in enumerate(text.splitlines(), 1):
            header = self._HEADER.match(line)
            if header:
                current = {}
                self.tables.append((header.group(1).strip("\"' "), number, current))
                continue
            key = self._KEY.match(line)
            if key and self.tables:
                current.setdefault(key.group(1), number)

    def retriever(self, index: int) -> tuple[int | None, dict[str, int]]:
        """(header line, {key: line}) of the index-th [[retriever]] table."""
        found = [(line, keys) for name, line, keys in self.tables if name == "retriever"]
        return found[index] if index < len(found) else (None, {})

    def table(self, name: str) -> tuple[int | None, dict[str, int]]:
        """(header line, {key: line}) of a named table such as [lineup]."""
        return next(((line, keys) for n, line, keys in self.tables if n == name), (None, {}))


# --------------------------------------------------------------------------- reading


def read_lineup(path: str | os.PathLike, model_map: Mapping[str, str] | None = None,
                device: str | None = None) -> Lineup:
    """Read and check a line-up file (see the module docstring); ``model_map``/``device`` override it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such line-up file") from None
    except UnicodeDecodeError as err:
        raise LineupError(path, None, f"not valid UTF-8 ({err.reason})") from None
    return parse_lineup(text, path, model_map, device)


def parse_lineup(text: str, path: str | os.PathLike = "<string>", model_map: Mapping[str, str] | None = None,
                 device: str | None = None) -> Lineup:
    """Parse and check the text of a line-up file; errors name ``path``."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        at = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        problem = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        raise LineupError(path, int(at.group(1)) if at else None,
                          f"not valid TOML: {problem}" + (f" (column {at.group(2)})" if at else "")) from None
    lines = _Lines(text)
    for key in doc:
        if key not in ("lineup", "retriever"):
            line = lines.table(key)[0]
            raise LineupError(path, line, f"unknown table or key {key!r}: a line-up file holds an optional "
                                          "[lineup] table and [[retriever]] tables")
    settings = _lineup_settings(doc.get("lineup", {}), path, lines)
    tables = doc.get("retriever")
    if tables is None:
        raise LineupError(path, None, "no [[retriever]] tables: a line-up needs at least one retriever")
    if not isinstance(tables, list):
        raise LineupError(path, lines.table("retriever")[0],
                          "write each retriever as a [[retriever]] table (double brackets), not [retriever]")
    if model_map:
        _check_model_map(tables, model_map, path)
    fields = settings.pop("fields") or list(DEFAULT_FIELDS)
    if device is not None and not DEVICE.fullmatch(device):
        raise ValueError(f"--device must be cpu, cuda, cuda:N or mps, not {device!r}")
    lineup = Lineup({}, path=str(path), model_map=dict(model_map or {}), device=device, **settings)
    for index, table in enumerate(tables):
        spec = _retriever(table, index, lineup, lines, fields, model_map or {}, device)
        where = _table_lines(lines, index)
        if spec.name in lineup.retrievers:
            raise LineupError(path, where.get("name", where.get("")), f"the name is used twice (first at line "
                              f"{lineup.line(spec.name)}); every retriever needs its own", spec.name, "name")
        lineup.retrievers[spec.name] = spec
        if device is not None and "device" in KINDS[spec.kind].keys and "device" not in spec.params:
            lineup.fixed_device.append(spec.name)
        lineup.lines.update({(spec.name, k): v for k, v in where.items()})
    _check_inputs(lineup)
    return lineup


def _table_lines(lines: _Lines, index: int) -> dict[str, int]:
    """{key: line} of the index-th retriever table, with "" for its header."""
    header, keys = lines.retriever(index)
    return {"": header, **keys} if header else dict(keys)


def _lineup_settings(table, path, lines: _Lines) -> dict:
    """The [lineup] table's settings, checked."""
    line, keys = lines.table("lineup")
    if not isinstance(table, dict):
        raise LineupError(path, line, "[lineup] must be a table")
    out = {}
    for key, value in table.items():
        if key not in _LINEUP_KEYS:
            raise LineupError(path, keys.get(key, line), f"unknown key {key!r} in [lineup]; known: "
                                                         f"{', '.join(_LINEUP_KEYS)}")
        if not type_ok(value, _LINEUP_KEYS[key][0]):
            raise LineupError(path, keys.get(key, line), f"[lineup] {key} must be {_LINEUP_KEYS[key][0]}, "
                                                         f"not {value!r}")
        out[key] = value
    for key, (_, default) in _LINEUP_KEYS.items():
        out.setdefault(key, default)
    if out["depth"] < 1:
        raise LineupError(path, keys.get("depth", line), f"[lineup] depth must be positive, got {out['depth']}")
    return out


def _check_model_map(tables: list, model_map: Mapping[str, str], path) -> None:
    """Every model-map entry must name a model some retriever of the file uses."""
    used = {t.get("model") for t in tables if isinstance(t, dict)}
    unused = [name for name in model_map if name not in used]
    if unused:
        raise LineupError(path, None, f"--model-map names models no retriever uses: {', '.join(unused)} "
                                      f"(the file's models: {', '.join(sorted(m for m in used if m)) or 'none'})")


def retriever(**table) -> Retriever:
    """A Retriever from the keys of one [[retriever]] table, checked and normalised as in a file."""
    return _retriever(table, 0, Lineup({}, path="<python>"), _Lines(""), list(DEFAULT_FIELDS), {}, None)


def _retriever(table, index: int, lineup: Lineup, lines: _Lines, fields: list[str],
               model_map: Mapping[str, str], device: str | None) -> Retriever:
    """One [[retriever]] table as a Retriever: keys checked against the schema, defaults filled in."""
    header, key_lines = lines.retriever(index)
    name = table.get("name") if isinstance(table, dict) else None

    def fail(key, problem):
        return LineupError(lineup.path, key_lines.get(key, header) if key else header, problem,
                           name if isinstance(name, str) else f"#{index + 1}", key)

    if not isinstance(table, dict):
        raise fail(None, "a [[retriever]] entry must be a table")
    values = _checked_keys(table, fail)
    kind, name = values.pop("kind"), values.pop("name")
    if re.search(r"[\s/\\]", name) or name.startswith("."):
        raise fail("name", "a name becomes a file name: no whitespace, no / or \\, not starting with '.'")
    overrides = {}
    if "model" in values and values["model"] in model_map:
        overrides["model"] = {"from": values["model"], "to": str(model_map[values["model"]])}
        values["model"] = str(model_map[values["model"]])
    if device is not None and "device" in KINDS[kind].keys:
        overrides["device"] = {"from": values["device"], "to": device}
        values["device"] = device
    family = values.pop("family") or KINDS[kind].family
    description = values.pop("description")
    inputs = tuple(values.pop("inputs", ()))
    params = _params(kind, values, table, inputs, lineup, fields, fail)
    if "device" not in params:
        overrides.pop("device", None)
    return Retriever(name, family, kind, description, params, inputs,
                     origin=f"{lineup.path}:{header}" if header else str(lineup.path), overrides=overrides)


def _checked_keys(table: dict, fail) -> dict:
    """The table's keys with their types checked; kind and name required and known."""
    for key in ("name", "kind"):
        if key not in table:
            raise fail(None, f"missing the key {key!r}")
        if not isinstance(table[key], str) or not table[key]:
            raise fail(key, f"{key} must be a non-empty string, not {table[key]!r}")
    kind = table["kind"]
    if kind not in KINDS:
        raise fail("kind", f"unknown kind {kind!r}; known: {', '.join(KINDS)}{did_you_mean(kind, KINDS)}")
    schema = {**COMMON, **KINDS[kind].keys}
    unknown = [k for k in table if k not in schema]
    if unknown:
        raise fail(unknown[0], f"unknown key for kind {kind!r}; its keys: {', '.join(schema)}"
                               f"{did_you_mean(unknown[0], schema)}")
    out = {}
    for key, (kind_of_value, default) in schema.items():
        if key not in table:
            if default is REQUIRED:
                raise fail(None, f"missing the key {key!r} (required for kind {kind!r})")
            out[key] = default
            continue
        if not type_ok(table[key], kind_of_value):
            raise fail(key, f"must be {kind_of_value}, not {table[key]!r}")
        out[key] = float(table[key]) if kind_of_value == NUM else table[key]
    if out.get("weights") is not None:
        out["weights"] = [float(w) for w in out["weights"]]
    return out


def _params(kind: str, values: dict, table: dict, inputs: tuple, lineup: Lineup, fields: list[str], fail) -> dict:
    """The normalised settings of one retriever (every default written out, so the cache key covers it)."""
    if "fields" in values:
        values["fields"] = list(values["fields"] or fields)
        if not values["fields"] or len(set(values["fields"])) < len(values["fields"]):
            raise fail("fields", "fields must name each document field once, e.g. [\"title\", \"text\"]")
    for key in ("batch_size", "max_seq_length", "max_length", "depth"):
        if values.get(key) is not None and values[key] < 1:
            raise fail(key, f"must be positive, got {values[key]}")
    if values.get("depth") is not None and values["depth"] > lineup.depth:
        raise fail("depth", f"{values['depth']} documents per input, but every run holds only the line-up's depth "
                            f"of {lineup.depth} documents per query")
    check = KINDS[kind].check
    return check(Table(kind, values, table, inputs, fail)) if check else values


def _check_inputs(lineup: Lineup) -> None:
    """Every input names a retriever of the file, and inputs form no cycle."""
    specs = lineup.retrievers
    for spec in specs.values():
        for name in spec.inputs:
            if name not in specs:
                raise lineup.error(spec.name, "inputs", f"unknown input {name!r}: no retriever of that name in the "
                                                        f"file (known: {', '.join(specs)})")
            if name == spec.name:
                raise lineup.error(spec.name, "inputs", "a retriever cannot be its own input")
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise lineup.error(name, "inputs", f"the inputs form a cycle: {' -> '.join(path + [name])}")
        state[name] = 1
        for i in specs[name].inputs:
            visit(i, path + [name])
        state[name] = 2

    for name in specs:
        visit(name, [])


def parse_model_map(items: Sequence[str]) -> dict[str, str]:
    """``["NAME=PATH", ...]`` (the ``--model-map`` options) as a dict; a malformed or repeated entry is refused."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, target = item.partition("=")
        if not sep or not name.strip() or not target.strip():
            raise ValueError(f"--model-map {item!r}: expected NAME=PATH, e.g. BAAI/bge-m3=/models/bge-m3")
        if name.strip() in out:
            raise ValueError(f"--model-map maps {name.strip()!r} twice")
        out[name.strip()] = target.strip()
    return out


def check_available(lineup: Lineup, names: Sequence[str] | None = None) -> None:
    """Refuse (LineupError) what stops a retriever here: a tokeniser's package missing, a model not on disk, no CUDA."""
    for spec in (lineup.retrievers[n] for n in (names or lineup.retrievers)):
        usable = KINDS[spec.kind].available
        problem = usable(spec.params) if usable else None
        if problem:
            raise lineup.error(spec.name, *problem)
    if (lineup.device or "").startswith("cuda") and not available.cuda_available():
        raise LineupError(lineup.path, None, f"--device {lineup.device}: no CUDA device here "
                                             "(torch.cuda.is_available() is False); use --device cpu")
