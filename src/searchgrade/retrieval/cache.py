"""Where the commands cache what they compute: the user's cache folder (XDG) unless ``$SEARCHGRADE_CACHE`` says.

``searchgrade runs`` and ``searchgrade report`` run inside :func:`user_cache`, so a user's embeddings,
token lists, converted collections and web fonts go to ``$XDG_CACHE_HOME/searchgrade`` (default
``~/.cache/searchgrade``), never into an installed package or a source checkout. The library itself
(:func:`cache_root`) keeps ``data/cache`` by default: the book's ``make runs`` and its chapters
use that folder. Embeddings (:mod:`.encoders`), token lists (:mod:`.tokens`) and converted
collections (:mod:`.sources`) all go under :func:`cache_root`. This module is not part of any run's cache key
(:mod:`.runs`): where a cache lives does not change a run.
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
