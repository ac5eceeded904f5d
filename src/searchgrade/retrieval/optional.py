"""Optional dependencies of the retrievers: imported when first needed, with how to install them if missing."""
from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, needed_by: str, install: str) -> ModuleType:
    """``module`` imported, or an ImportError saying that ``needed_by`` needs ``install``."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f"{needed_by} needs {install}") from err
