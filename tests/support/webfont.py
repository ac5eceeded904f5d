"""The test session's Korean web font: converted (TTF to woff2, some 20 CPU-seconds) once, not once per test.

A report embeds NanumGothic as woff2, converted into ``<cache>/webfont/<key>/`` (:mod:`searchgrade.report.webfont`;
the key hashes the TTF and fontTools' version), and many tests give the report a cache of their own. For the
session, tests/conftest.py replaces the report's conversion with :func:`convert_once`: the woff2 of that key
is copied from the first of FOLDERS that holds it, and converted (by the real function) only where none
does; it is then kept in every folder of FOLDERS, so the commands that the tests start as programs (which
use the session's cache, ``$SEARCHGRADE_CACHE`` or ``data/cache``) find it too. FONT_CACHE, in the system's
temporary folder, keeps it between sessions and clones on one machine.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

FONT_CACHE = Path(tempfile.gettempdir()) / "searchgrade-test-webfont"


def converter(folders: list[Path], real):
    """A drop-in for ``searchgrade.report.webfont.convert(source, target)`` that converts a font at most once
    for ``folders`` (caches laid out as ``cached_woff2`` lays them out); ``real`` converts."""
    from searchgrade.report import webfont

    def convert_once(source, target):
        name = Path(webfont.cache_key(Path(source))) / Path(target).name
        have = [folder / name for folder in folders if (folder / name).is_file()]
        if not have:
            real(source, folders[0] / name)
            have = [folders[0] / name]
        for path in [folder / name for folder in folders] + [Path(target)]:
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(have[0], path)

    return convert_once


def seed(folders: list[Path]) -> None:
    """Copy the report's fonts already converted in one of ``folders`` into the others (nothing is converted)."""
    from searchgrade.report import webfont

    for face in webfont.FACES:
        source = webfont.source_dir() / face.source
        if not source.is_file():
            continue
        name = Path(webfont.cache_key(source)) / face.woff2
        have = [folder / name for folder in folders if (folder / name).is_file()]
        for path in [folder / name for folder in folders] if have else []:
            if not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(have[0], path)
