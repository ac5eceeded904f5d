"""Where searchgrade caches what it computes: ``$SEARCHGRADE_CACHE``, else ``data/cache`` or the user's cache folder.

The library (:func:`cache_root`) keeps ``data/cache`` beside the project's ``data/raw`` by default:
the book's ``make runs`` and its chapters use that folder. ``searchgrade runs`` and ``searchgrade
report`` run inside :func:`user_cache`, so a user's embeddings, token lists, converted collections
and web fonts go to ``$XDG_CACHE_HOME/searchgrade`` (default ``~/.cache/searchgrade``), never into an
installed package or a source checkout. Everything cached lives under :func:`cache_root`: embeddings
(:mod:`searchgrade.retrieval.encoders`), token lists (:mod:`searchgrade.retrieval.tokens`), converted
collections (:mod:`searchgrade.collections.resolve`) and the report's web font. Where a cache lives
does not change a run, so this module is in no run's cache key (:mod:`searchgrade.retrieval.runs`).
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["cache_root", "user_cache_root", "user_cache"]


def cache_root() -> Path:
    """The cache folder: ``$SEARCHGRADE_CACHE``, else ``data/cache`` beside the project's ``data/raw``."""
    env = os.environ.get("SEARCHGRADE_CACHE")
    if env:
        return Path(env)
    from ..collections.base import data_root

    return data_root().parent / "cache"


def user_cache_root() -> Path:
    """The commands' cache folder: ``$XDG_CACHE_HOME/searchgrade``, else ``~/.cache/searchgrade``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache") / "searchgrade"


@contextlib.contextmanager
def user_cache():
    """While it lasts, ``$SEARCHGRADE_CACHE`` is :func:`user_cache_root` unless it was set; yields the folder in use."""
    unset = not os.environ.get("SEARCHGRADE_CACHE")
    if unset:
        os.environ["SEARCHGRADE_CACHE"] = str(user_cache_root())
    try:
        yield cache_root()
    finally:
        if unset:
            os.environ.pop("SEARCHGRADE_CACHE", None)
