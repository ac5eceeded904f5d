"""The golden oracles in ``../shared`` (trec_eval's and ndeval's recorded outputs): where they are and their cases."""
from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def golden_folder(env: str, name: str) -> Path:
    """``$env`` if set, else ``../shared/<name>`` beside this repository."""
    return Path(os.environ.get(env) or ROOT.parent / "shared" / name)


def load_cases(folder: Path) -> list[dict]:
    """The lines of ``folder/cases.jsonl``, or [] when the folder is missing (a test then fails naming it)."""
    path = folder / "cases.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def missing_message(program: str, folder: Path, env: str) -> str:
    """What a missing golden folder is reported as: the path looked for and how to name another."""
    return (f"{program}'s golden files are missing: no {folder / 'cases.jsonl'} (the folder ../shared/"
            f"{folder.name} next to this repository; {env} names another folder)")
