"""Retriever kinds: one row per kind, everything a line-up and the run engine need to know about it.

A :class:`Kind` row says what a ``kind = "..."`` of a line-up file (:mod:`.lineup`) accepts and
what :mod:`.runs` does with it:

=================  =====================================================================
field              what it holds
=================  =====================================================================
``name``           the ``kind`` value in a line-up file
``description``    one line saying what it computes (:func:`describe`)
``keys``           its TOML keys beyond name/kind/family/description: ``{key: (type,
                   default)}`` in the vocabulary of :mod:`.schema` (``REQUIRED``: must
                   be given; ``None``: optional)
``run``            ``run(workspace, retriever, depth, inputs) -> {qid: {docid: score}}``
``check``          ``check(table) -> params``: further checks of a :class:`Table`
                   (types, defaults and positive counts are checked before it)
``models``         ``models(params) -> {name: settings}``: the models it loads, whose
                   settings (versions, fingerprints) enter the run's cache key
``available``      ``available(params) -> (key, problem) | None``: what stops it here
``modules``        modules (dotted names) whose code decides its runs: an edit of one
                   recomputes exactly the runs of the kinds that name it
``family``         the default ``family`` (BM25, dense, hybrid)
``second_stage``   True for a stage that reorders the top ``depth`` candidates of its one
                   input: its runs' records say so, and ``searchgrade report`` shows what
                   the reordering could change and did (the second-stage section)
=================  =====================================================================

A new kind is one :func:`register_kind` call with its row plus the module that computes it; the
parser, the engine, ``check_available`` and the cache keys read the row. :data:`KINDS` holds the
built-in kinds: ``bm25``, ``dense``, ``rrf``, ``convex``, ``combsum``, ``combmnz``, ``combmax``
and ``rerank`` (their keys are described in :mod:`.lineup`).

The fusion kinds are methods of :mod:`searchgrade.fusion` under the line-up's names
(:data:`FUSION_KINDS`): ``rrf`` is its ``rrf``, ``convex`` its ``wsum`` of ``min-max-one`` scores,
``combsum``, ``combmnz`` and ``combmax`` its ``sum``, ``mnz`` and ``max`` of each input's top
``depth`` normalised by one of its normalisations (:data:`NORMALISATIONS`). ``rerank`` is
:func:`.rerank.rerank`.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .. import fusion
from ..fusion.api import fuse_runs, method_row, norm_row
from ..io import trec_order
from ..io.errors import did_you_mean
from ..io.types import Run
from . import available, models, rerank
from .schema import BOOL, COMMON, DEVICE, FIELDS, INPUTS, INT, NUM, NUMS, REQUIRED, ST_OPTIONS, STR, STRS
from .workspace import Workspace

__all__ = ["Kind", "Table", "KINDS", "FUSION_KINDS", "NORMALISATIONS", "SCORERS", "register_kind", "describe"]

NORMALISATIONS = (*(n for n in fusion.NORMALISATIONS if n != "borda"), "none")
"""What ``normalisation`` of a ``combsum``/``combmnz``/``combmax`` may be: searchgrade.fusion's names (each input is
normalised on its own, so ``borda``, which reads every input's candidates, is not among them), or ``none``."""
SCORERS = ("cross-encoder", "bi-encoder")
_TYPES = (STR, INT, NUM, BOOL, STRS, NUMS)


@dataclass
class Table:
    """One [[retriever]] table being checked: its kind, values (defaults filled in), the keys written, inputs, fail."""

    kind: str
    values: dict
    written: Mapping
    inputs: tuple
    fail: Callable[[str | None, str], Exception]
    """``fail(key, problem)``: the LineupError naming the file, line, retriever and key (raise it)."""


@dataclass(frozen=True, repr=False)
class Kind:
    """One retriever kind: its keys, how its run is computed, checked, keyed and found usable (see the module)."""

    name: str
    description: str
    keys: Mapping[str, tuple[str, object]]
    run: Callable[[Workspace, object, int, list[Run]], Run]
    check: Callable[[Table], dict] | None = None
    models: Callable[[Mapping], dict] | None = None
    available: Callable[[Mapping], tuple[str, str] | None] | None = None
    modules: tuple[str, ...] = ()
    family: str = "hybrid"
    second_stage: bool = False

    def __post_init__(self):
        if not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"a kind's name must be non-empty and without whitespace, not {self.name!r}")
        clash = [k for k in self.keys if k in COMMON]
        if clash:
            raise ValueError(f"kind {self.name!r}: the keys {', '.join(clash)} belong to every retriever")
        bad = [k for k, (kind, _) in self.keys.items() if kind not in _TYPES]
        if bad:
            raise ValueError(f"kind {self.name!r}: key {bad[0]!r} has no type of searchgrade.retrieval.schema")

    def __repr__(self) -> str:
        """The kind's name and description (its functions' reprs would name memory addresses)."""
        return f"<kind {self.name}: {self.description}>"


KINDS: dict[str, Kind] = {}
"""The kinds a line-up may hold, by name, in registration order."""


def register_kind(kind: Kind, replace: bool = False) -> Kind:
    """Add a kind to :data:`KINDS` (``replace`` to change one); returns it."""
    if kind.name in KINDS and not replace:
        raise ValueError(f"a retriever kind named {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind


def describe() -> str:
    """One line per kind: its name, description and keys (required ones marked with ``*``)."""
    def key(k, default):
        return f"{k}*" if default is REQUIRED else k
    return "\n".join(f"{k.name:8s} {k.description} (keys: {', '.join(key(n, d) for n, (_, d) in k.keys.items())})"
                     for k in KINDS.values())


# --------------------------------------------------------------------------- BM25


def _bm25_run(ws: Workspace, spec, depth: int, inputs: list[Run]) -> Run:
    """BM25 (rank_bm25's Okapi variant) over a tokeniser."""
    from .sparse import BM25Okapi

    p = spec.params
    tok = models.tokeniser(p["tokeniser"])
    bm25 = BM25Okapi(ws.doc_tokens(tok, p["fields"]), k1=p["k1"], b=p["b"], epsilon=p["epsilon"])
    queries = ws.collection.queries
    qtokens = tok.batch(list(queries.values()), progress=ws.progress, desc=f"{tok.name} queries")
    run: Run = {}
    for qid, (idx, scores) in zip(queries, bm25.batch_top_k(qtokens, depth, progress=ws.progress)):
        run[qid] = {ws.docids[i]: float(s) for i, s in zip(idx, scores)}
    return run


def _bm25_check(t: Table) -> dict:
    """A known tokeniser; k1, b and epsilon finite and non-negative."""
    from . import korean, sparse

    name = t.values["tokeniser"]
    if name not in korean.TOKENISERS and name not in sparse.ANALYSERS:
        known = list(korean.TOKENISERS) + sorted(sparse.ANALYSERS)
        raise t.fail("tokeniser", f"unknown tokeniser {name!r}; known: {', '.join(known)}{did_you_mean(name, known)}")
    for key in ("k1", "b", "epsilon"):
        if not math.isfinite(t.values[key]) or t.values[key] < 0:
            raise t.fail(key, f"must be a finite non-negative number, got {t.values[key]}")
    return t.values


def _bm25_available(p: Mapping) -> tuple[str, str] | None:
    """The tokeniser's package must be installed."""
    problem = available.tokeniser_problem(p["tokeniser"])
    return ("tokeniser", problem) if problem else None


# --------------------------------------------------------------------------- dense and second stages


def _dense_run(ws: Workspace, spec, depth: int, inputs: list[Run]) -> Run:
    """Cosine similarity of the encoder's query and document embeddings."""
    p = spec.params
    return ws.dense_index(models.encoder(p), p["fields"]).search(ws.collection.queries, depth)


def _seeded_load(scorer) -> None:
    """Load a cross-encoder with torch seeded, so weights it lacks (a new classification head) are always the same."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        scorer.model  # noqa: B018  (loads it)


def _rerank_run(ws: Workspace, spec, depth: int, inputs: list[Run]) -> Run:
    """A second stage: the first stage's top ``depth`` candidates re-scored by a bi- or cross-encoder."""
    p, coll = spec.params, ws.collection
    if models.bi_encoder_scorer(p):
        scorer = ws.dense_index(models.encoder(p), p["fields"]).scorer(coll.queries)
    else:
        cross = models.cross_encoder(p)
        _seeded_load(cross)
        scorer = cross.scorer(coll.queries, coll.corpus, p["fields"])
    return rerank.rerank(inputs[0], scorer, n=min(p["depth"], depth), progress=ws.progress)


_BI_ONLY = ("query_prefix", "document_prefix", "max_seq_length", "trust_remote_code")  # rerank keys of one scorer
_CROSS_ONLY = ("max_length",)


def _rerank_scorer_check(t: Table) -> None:
    """A rerank stage: exactly one input, a known scorer, and only that scorer's keys."""
    if len(t.inputs) != 1:
        raise t.fail("inputs", f"a rerank stage reads exactly one first stage, got {len(t.inputs)}")
    if t.values["scorer"] not in SCORERS:
        raise t.fail("scorer", f"must be one of {', '.join(SCORERS)}, not {t.values['scorer']!r}")
    wrong = _BI_ONLY if t.values["scorer"] == "cross-encoder" else _CROSS_ONLY
    given = [k for k in wrong if k in t.written]
    if given:
        raise t.fail(given[0], f"not a setting of a {t.values['scorer']} scorer")
    for key in wrong:
        t.values.pop(key)


def _model_check(t: Table) -> dict:
    """Settings of a dense retriever or a second stage: a registered encoder, a sentence-transformers model or a cross-encoder."""
    from . import encoders

    values = t.values
    if t.kind == "rerank":
        _rerank_scorer_check(t)
    if not DEVICE.fullmatch(values["device"]):
        raise t.fail("device", f"must be cpu, cuda, cuda:N or mps, not {values['device']!r}")
    registered = values["model"] in encoders.ENCODERS
    if registered and values.get("scorer") == "cross-encoder":
        raise t.fail("model", f"{values['model']!r} is one of the bi-encoders of searchgrade.retrieval.dense, not a "
                              "cross-encoder: set scorer = \"bi-encoder\" or name a cross-encoder model")
    if registered:
        fixed = [k for k in ("query_prefix", "document_prefix", "device", "batch_size", "max_seq_length",
                             "trust_remote_code") if k in t.written]
        if fixed:
            raise t.fail(fixed[0], f"the encoder {values['model']!r} of searchgrade.retrieval.dense has fixed "
                                   "settings; give a sentence-transformers model name or folder to choose them")
        keep = ("model", "fields", "depth", "scorer")
        return {k: v for k, v in values.items() if k in keep}
    return values


def _model_available(p: Mapping) -> tuple[str, str] | None:
    """The model can be loaded here (offline) and a CUDA device exists if asked for."""
    problem = available.model_problem(p["model"], p.get("scorer") == "cross-encoder")
    if problem:
        return "model", problem
    if p.get("device", "cpu").startswith("cuda") and not available.cuda_available():
        return "device", "no CUDA device here: set device = \"cpu\" (or pass --device cpu)"
    return None


def _dense_models(p: Mapping) -> dict:
    """The encoder's settings."""
    return {"encoder": models.encoder(p).settings()}


def _rerank_models(p: Mapping) -> dict:
    """The scorer's settings (a bi-encoder or a cross-encoder)."""
    scorer = models.encoder(p) if models.bi_encoder_scorer(p) else models.cross_encoder(p)
    return {"scorer": scorer.settings()}


# --------------------------------------------------------------------------- fusion


def _fusion_run(ws: Workspace, spec, depth: int, inputs: list[Run]) -> Run:
    """The inputs fused by the kind's method of :mod:`searchgrade.fusion` (:data:`FUSION_KINDS`)."""
    p, (method, norm) = spec.params, FUSION_KINDS[spec.kind]
    weights = [float(w) for w in p.get("weights") or [1.0] * len(inputs)]
    if spec.kind not in ("rrf", "convex"):
        return _comb_run(spec, inputs, weights, p.get("depth") or depth, method)
    params = {"k": p.get("k", 60), "weights": weights} if spec.kind == "rrf" else {"weights": weights}
    return fuse_runs(inputs, list(spec.inputs), method_row(method), norm_row(norm), params, depth=depth, warn=False)


def _comb_run(spec, inputs: list[Run], weights: list[float], depth: int, method: str) -> Run:
    """CombSUM/MNZ/MAX: each input's top ``depth`` per query, normalised on its own and weighted, then combined."""
    norm = spec.params["normalisation"]
    _warn_cut(spec.inputs, inputs, depth)
    weighted = []
    for run, weight in zip(inputs, weights):
        top = {q: {d: docs[d] for d in trec_order(docs)[:depth]} for q, docs in run.items()}
        normed = fusion.normalize(top, norm) if norm != "none" else top
        weighted.append({q: {d: weight * s for d, s in docs.items()} for q, docs in normed.items()})
    return fuse_runs(weighted, list(spec.inputs), method_row(method), None, {}, depth=depth, warn=False)


def _warn_cut(names, inputs: list[Run], depth: int) -> None:
    """One UserWarning per input whose list for some query is longer than ``depth`` (its tail is not fused)."""
    for name, run in zip(names, inputs):
        long = [q for q, docs in run.items() if len(docs) > depth]
        if long:
            few = ", ".join(map(repr, long[:3])) + (", ..." if len(long) > 3 else "")
            warnings.warn(f"fusion input {name!r} has more than depth={depth} documents for {len(long)} of its "
                          f"{len(run)} queries ({few}): documents below rank {depth} were not fused", UserWarning,
                          stacklevel=2)


def _fusion_check(t: Table) -> dict:
    """Two or more different inputs; weights one per input, finite, non-negative (convex: summing to 1)."""
    values, inputs, kind = t.values, t.inputs, t.kind
    if len(inputs) < 2 or len(set(inputs)) < len(inputs):
        raise t.fail("inputs", f"{kind} fuses two or more different retrievers, got {list(inputs)}")
    weights = values.get("weights")
    if weights is not None:
        if len(weights) != len(inputs):
            raise t.fail("weights", f"{len(weights)} weights for {len(inputs)} inputs")
        if any(w < 0 or not math.isfinite(w) for w in weights):
            raise t.fail("weights", f"weights must be finite and non-negative, got {weights}")
    if kind == "convex" and not math.isclose(sum(weights), 1.0, rel_tol=0, abs_tol=1e-9):
        raise t.fail("weights", f"convex weights must sum to 1, got {sum(weights)!r}")
    if kind == "rrf" and (values["k"] < 0 or not math.isfinite(values["k"])):
        raise t.fail("k", f"must be a finite non-negative number, got {values['k']}")
    if "normalisation" in values and values["normalisation"] not in NORMALISATIONS:
        name = values["normalisation"]
        raise t.fail("normalisation", f"must be one of {', '.join(NORMALISATIONS)} (searchgrade.fusion's names), not "
                                      f"{name!r}{did_you_mean(name, NORMALISATIONS)}{_HINTS.get(name, '')}")
    return values


# what the error says of a name that is not among NORMALISATIONS for a reason, or once was (an old file's names)
_HINTS = {"borda": " (borda scores a document by every input's candidates; a comb kind normalises each input alone)",
          "minmax": " (the former 'minmax' is 'min-max-one')", "zscore": " (the former 'zscore' is 'zmuv')"}


# --------------------------------------------------------------------------- the built-in rows

def _package_modules(package: str) -> tuple[str, ...]:
    """A package and each module in it (dotted names), so that an edit of any of them invalidates its runs."""
    import importlib
    import pkgutil

    path = importlib.import_module(package).__path__
    return (package, *sorted(f"{package}.{m.name}" for m in pkgutil.iter_modules(path)))


_SPARSE = ("searchgrade.retrieval.sparse", "searchgrade.retrieval.korean")
_DENSE = ("searchgrade.retrieval.dense", "searchgrade.retrieval.encoders")
_FUSION = _package_modules("searchgrade.fusion")
_COMB = {**INPUTS, "normalisation": (STR, REQUIRED), "weights": (NUMS, None), "depth": (INT, None)}
_FUSED = {"rrf": ("reciprocal rank fusion of two or more runs", {**INPUTS, "k": (NUM, 60.0), "weights": (NUMS, None)}),
          "convex": ("convex combination of min-max-normalised scores", {**INPUTS, "weights": (NUMS, REQUIRED)}),
          "combsum": ("CombSUM: the sum of normalised scores", _COMB),
          "combmnz": ("CombMNZ: CombSUM times the number of runs holding the document", _COMB),
          "combmax": ("CombMAX: the largest normalised score", _COMB)}
FUSION_KINDS = {"rrf": ("rrf", None), "convex": ("wsum", "min-max-one"), "combsum": ("sum", None),
                "combmnz": ("mnz", None), "combmax": ("max", None)}
"""The kinds that fuse two or more input runs: each is a method of :mod:`searchgrade.fusion` (the method, and the
normalisation it fixes; a comb kind takes its ``normalisation`` from the line-up, with each input's top ``depth``
normalised on its own and weighted before the method combines them)."""

register_kind(Kind("bm25", "BM25 (rank_bm25's Okapi variant) over a Korean tokeniser or an analyser",
                   {"tokeniser": (STR, REQUIRED), "k1": (NUM, 1.5), "b": (NUM, 0.75), "epsilon": (NUM, 0.25), **FIELDS},
                   _bm25_run, _bm25_check, lambda p: {"tokeniser": models.tokeniser(p["tokeniser"]).settings()},
                   _bm25_available, _SPARSE, "BM25"))
register_kind(Kind("dense", "cosine similarity of a bi-encoder's query and document embeddings",
                   {"model": (STR, REQUIRED), **ST_OPTIONS, **FIELDS},
                   _dense_run, _model_check, _dense_models, _model_available, _DENSE, "dense"))
for _name, (_description, _keys) in _FUSED.items():
    register_kind(Kind(_name, _description, _keys, _fusion_run, _fusion_check, modules=_FUSION))
register_kind(Kind("rerank", "a second stage: one run's top candidates re-scored by a cross- or bi-encoder",
                   {**INPUTS, "depth": (INT, REQUIRED), "scorer": (STR, "cross-encoder"), "model": (STR, REQUIRED),
                    **ST_OPTIONS, "max_length": (INT, None), **FIELDS},
                   _rerank_run, _model_check, _rerank_models, _model_available, ("searchgrade.retrieval.rerank", *_DENSE),
                   second_stage=True))
