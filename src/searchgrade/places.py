"""Where searchgrade finds its data and keeps its caches, and whether it may reach the model hub.

The ground floor: this module reads only environment variables and the file system, and imports
nothing from searchgrade, so that any package may ask it. Raw data: :func:`data_root`
(``$SEARCHGRADE_DATA``, else the project's ``data/raw``). Caches: :func:`cache_root`
(``$SEARCHGRADE_CACHE``, else ``data/cache`` beside ``data/raw``), where the book's ``make runs`` and
its chapters keep embeddings (:mod:`searchgrade.retrieval.encoders`), token lists
(:mod:`searchgrade.retrieval.tokens`), converted collections (:mod:`searchgrade.collections.resolve`)
and the report's web font; ``searchgrade runs`` and ``searchgrade report`` run inside
:func:`user_cache`, so a user's caches go to ``$XDG_CACHE_HOME/searchgrade`` (default
``~/.cache/searchgrade``), never into an installed package or a source checkout. The model hub:
:func:`hub_offline` says whether Hugging Face libraries keep to local files (``HF_HUB_OFFLINE``,
offline unless it is ``0``), and :func:`set_hub_offline_by_default` sets that default before they load.
Where data and caches live does not change a run, so this module is in no run's cache key
(:mod:`searchgrade.retrieval.runs`).
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["data_root", "cache_root", "user_cache_root", "user_cache", "hub_offline", "set_hub_offline_by_default"]


def data_root(data_dir: str | os.PathLike | None = None) -> Path:
    """The raw-data folder: ``data_dir``, else ``$SEARCHGRADE_DATA``, else ``<repo>/data/raw``."""
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("SEARCHGRADE_DATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "data" / "raw"
        if candidate.is_dir():
            return candidate
    return Path.cwd() / "data" / "raw"


def cache_root() -> Path:
    """The cache folder: ``$SEARCHGRADE_CACHE``, else ``data/cache`` beside the project's ``data/raw``."""
    env = os.environ.get("SEARCHGRADE_CACHE")
    if env:
        return Path(env)
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


def hub_offline() -> bool:
    """True unless ``HF_HUB_OFFLINE`` asks for the model hub (``0``, ``false``, ``no`` or empty): local files only."""
    return os.environ.get("HF_HUB_OFFLINE", "1").strip().lower() not in ("0", "false", "no", "")


def set_hub_offline_by_default() -> None:
    """Set ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` where they are not set, before a Hugging Face
    library loads (a caller who set them keeps their values)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
