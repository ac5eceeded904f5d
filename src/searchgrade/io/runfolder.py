"""A folder of runs: its file names, and reading it back in line-up order, each run checked against its record.

``searchgrade report`` reads what ``searchgrade runs`` wrote (:mod:`searchgrade.retrieval.runs`):
every ``*.run`` of the folder, in the order of :data:`MANIFEST` (others after it, by name), each with
its ``.json`` record. A run whose file no longer matches the checksum in its record, or whose record
holds another collection hash than the caller's (:func:`searchgrade.collections.collection_hash`), is
refused; a plain TREC file without a record is read as it is (its record is None).
:data:`QUERIES_RECORD` names the queries file a folder's runs were made on, when it is not the collection's.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..checksums import sha256 as _checksum
from .readers import read_run
from .errors import FormatError
from .types import Run

__all__ = ["MANIFEST", "QUERIES_RECORD", "RunFolder", "read_runs", "others", "remove_others", "refresh_records"]

MANIFEST = "lineup.json"
"""The record ``searchgrade runs`` leaves in its output folder: the line-up's order, origin and collection."""
QUERIES_RECORD = "queries.json"
"""The record ``searchgrade runs --queries`` leaves in its output folder: which queries file replaced the collection's."""


@dataclass
class RunFolder:
    """The runs of one folder in line-up order, each one's sidecar record (None for a plain TREC file), the manifest."""

    folder: Path
    runs: dict[str, Run]
    infos: dict[str, dict | None]
    manifest: dict | None


def _read_json(path: Path):
    """The folder's ``lineup.json`` (a JSON object), or a ValueError naming the file if it is corrupt."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason}); delete the file or rerun `searchgrade runs`") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}:{err.lineno}: not valid JSON ({err.msg}); delete the file or rerun "
                         "`searchgrade runs`") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a line-up record (a JSON object); delete the file or rerun `searchgrade runs`")
    return record


def read_runs(folder: str | os.PathLike, collection_hash: str | None = None,
              retrievers: Sequence[str] | None = None, *, collection_name: str | None = None) -> RunFolder:
    """Every ``*.run`` of a folder (or the named ones), each checked against its record's checksum and, given
    ``collection_hash`` (the collection's :func:`searchgrade.collections.collection_hash`, named in errors by
    ``collection_name``), against the collection hash its record holds."""
    if collection_hash is not None and not isinstance(collection_hash, str):
        raise TypeError(f"collection_hash must be a str (searchgrade.collections.collection_hash of the collection), "
                        f"not {type(collection_hash).__name__}")
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of runs")
    manifest_path = folder / MANIFEST
    manifest = _read_json(manifest_path) if manifest_path.is_file() else None
    present = sorted(p.stem for p in folder.glob("*.run"))
    if not present:
        raise FileNotFoundError(f"{folder}: no .run files here (make them with `searchgrade runs`)")
    order = [n for n in (manifest or {}).get("retrievers", []) if n in present]
    names = order + [n for n in present if n not in order]
    if retrievers:
        missing = [n for n in retrievers if n not in present]
        if missing:
            raise FileNotFoundError(f"{folder}: no run for {', '.join(missing)} (have: {', '.join(names)})")
        names = list(retrievers)
    expected = None if collection_hash is None else (collection_hash, collection_name)
    runs, infos = {}, {}
    for name in names:
        infos[name] = _checked_info(folder, name, expected)
        runs[name] = read_run(folder / f"{name}.run")
    return RunFolder(folder, runs, infos, manifest)


def _checked_info(folder: Path, name: str, expected: tuple[str, str | None] | None) -> dict | None:
    """A run's record, refused if the file changed since it was written or its collection hash is not
    ``expected`` (hash, name of the collection)."""
    path = folder / f"{name}.json"
    if not path.is_file():
        return None
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise FormatError(str(path), None, f"not a readable run record ({err})") from None
    if info.get("sha256") != _checksum(folder / f"{name}.run"):
        raise FormatError(str(folder / f"{name}.run"), None, f"the file differs from the checksum in {path.name}: "
                                                             "it changed after it was written; make it again")
    if expected is not None and info.get("collection_hash") != expected[0]:
        given = "the given collection" if expected[1] is None else repr(expected[1])
        raise ValueError(f"{folder / (name + '.run')} was made on the collection {info.get('collection')!r} "
                         f"(hash {str(info.get('collection_hash'))[:12]}), not on {given} "
                         f"(hash {expected[0][:12]}): its documents or queries differ")
    return info


def others(folder: str | os.PathLike, keep: Sequence[str]) -> tuple[list[str], list[str]]:
    """The runs of a folder not named in ``keep``: (made by ``searchgrade runs``, i.e. with a record; without one)."""
    folder = Path(folder)
    if not folder.is_dir():
        return [], []
    extra = sorted(p.stem for p in folder.glob("*.run") if p.stem not in set(keep))
    made = [n for n in extra if _is_record(folder / f"{n}.json")]
    return made, [n for n in extra if n not in made]


def _is_record(path: Path) -> bool:
    """Is this a record that ``searchgrade runs`` wrote (a JSON object with a cache key)?"""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(info, dict) and "key" in info and "sha256" in info


def remove_others(folder: str | os.PathLike, keep: Sequence[str]) -> list[str]:
    """Delete the runs (``.run`` and record) that ``searchgrade runs`` made for retrievers not in ``keep``; their names.

    A ``.run`` without a record was not made by ``searchgrade runs`` and is never deleted here: the
    command refuses such a folder instead (:func:`others` finds them).
    """
    made, _ = others(folder, keep)
    for name in made:
        for suffix in (".run", ".json"):
            (Path(folder) / f"{name}{suffix}").unlink(missing_ok=True)
    return made


_DESCRIBING = ("description", "family", "origin", "overrides")
"""What a record says about a run without being part of its cache key."""


def refresh_records(folder: str | os.PathLike, retrievers) -> list[str]:
    """Rewrite the records whose describing fields (description, family, origin, overrides) changed; their names.

    A cached run is found by its key, which leaves these out (a new description computes nothing), so
    ``searchgrade runs`` brings them up to date here: the report then shows the line-up's words. This
    lives outside the engine (:mod:`searchgrade.retrieval.runs`), whose code is part of every run's key.
    """
    changed = []
    for spec in retrievers.values():
        path = Path(folder) / f"{spec.name}.json"
        if not _is_record(path):
            continue
        info = json.loads(path.read_text(encoding="utf-8"))
        fresh = {k: getattr(spec, k) for k in _DESCRIBING}
        if all(info.get(k) == v for k, v in fresh.items()):
            continue
        info.update(fresh)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(info, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, path)
        changed.append(spec.name)
    return changed
