"""Token lists cached by content hash: one helper for a line-up's corpus and for chunk pieces.

Tokenising a Korean corpus with Kiwi takes seconds to minutes, so the tokens of a list of texts
are kept twice: in this process (per tokeniser settings and text) and on disk, under
``tokens/`` in :func:`searchgrade.places.cache_root` (``$SEARCHGRADE_CACHE``, else ``data/cache``), one
JSON file per list named ``<tokeniser>-<key>.json``. The key is a SHA-256 over the tokeniser's
:meth:`~searchgrade.retrieval.korean.Tokeniser.settings` (its name and library versions) and
every text, so a changed text, a new Kiwi or another tokeniser never reuses stale tokens.
:mod:`.runs` (BM25's documents) and :mod:`.chunking` (the pieces of chunks) both call
:func:`tokenise`.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..places import cache_root

__all__ = ["tokenise", "cache_path", "clear_memo"]

# In-process memo of tokens per tokeniser (its settings as JSON) and text, shared by every caller of a session.
_MEMO: dict[str, dict[str, list[str]]] = {}


def _settings(tokeniser) -> str:
    """The tokeniser's settings as canonical JSON."""
    return json.dumps(tokeniser.settings(), sort_keys=True, ensure_ascii=False)


def cache_path(tokeniser, texts: Sequence[str]) -> Path:
    """Cache file of the tokens of ``texts``: SHA-256 over the tokeniser settings and every text."""
    h = hashlib.sha256(_settings(tokeniser).encode("utf-8"))
    for text in texts:
        b = text.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return cache_root() / "tokens" / f"{tokeniser.name}-{h.hexdigest()[:24]}.json"


def _read(path: Path, count: int) -> list[list[str]] | None:
    """The token lists stored at ``path`` if it holds ``count`` of them, else None (missing or damaged)."""
    if not path.is_file():
        return None
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    ok = isinstance(tokens, list) and len(tokens) == count and all(isinstance(t, list) for t in tokens)
    return tokens if ok else None


def _write(path: Path, tokens: list[list[str]]) -> None:
    """Store token lists atomically (a half-written file is never read)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(tokens, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def tokenise(tokeniser, texts: Sequence[str], cache: bool = True, progress: bool = True,
             desc: str | None = None) -> list[list[str]]:
    """Tokens of each text: from this session's memo, the disk cache, or ``tokeniser.batch`` (with a progress bar)."""
    texts = list(texts)
    memo = _MEMO.setdefault(_settings(tokeniser), {})
    if all(t in memo for t in texts):
        return [memo[t] for t in texts]
    path = cache_path(tokeniser, texts) if cache else None
    stored = _read(path, len(texts)) if path is not None else None
    if stored is not None:
        memo.update(zip(texts, stored))
        return stored
    todo = list(dict.fromkeys(t for t in texts if t not in memo))
    memo.update(zip(todo, tokeniser.batch(todo, progress=progress, desc=desc or f"{tokeniser.name} texts")))
    tokens = [memo[t] for t in texts]
    if path is not None:
        _write(path, tokens)
    return tokens


def clear_memo() -> None:
    """Forget this session's tokens (the disk cache stays): the next call reads the disk or tokenises."""
    _MEMO.clear()
