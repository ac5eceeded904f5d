"""The one JSON Lines reader: ``(line number, value)`` per non-blank line; a bad line names ``file:line``."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import FormatError


def read_jsonl(path: str | os.PathLike, error: type[FormatError] = FormatError, *,
               required: tuple[str, ...] | None = None,
               problems: list[tuple[int, str]] | None = None) -> list[tuple[int, Any]]:
    """``[(line number, value)]`` for each non-blank line of a UTF-8 JSON Lines file.

    ``required=None`` accepts any JSON value; a tuple of keys (possibly empty) requires a JSON
    object holding them. A bad line (not UTF-8, invalid JSON, not an object, a missing key)
    raises ``error(path, line, problem)``; when ``problems`` is a list it is appended there as
    ``(line, problem)`` instead, and reading goes on.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    rows: list[tuple[int, Any]] = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                value = _parse_line(raw, required)
            except _BadLine as bad:
                if problems is None:
                    raise error(path, lineno, str(bad)) from None
                problems.append((lineno, str(bad)))
                continue
            if value is not _BLANK:
                rows.append((lineno, value))
    return rows


class _BadLine(Exception):
    """What is wrong with one line (turned into the caller's error with the file and line)."""


_BLANK = object()


def _parse_line(raw: bytes, required: tuple[str, ...] | None) -> Any:
    """The JSON value of one line, ``_BLANK`` for a blank line; raises _BadLine."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _BadLine(f"not valid UTF-8 ({err.reason})") from None
    if not line.strip():
        return _BLANK
    try:
        value = json.loads(line.rstrip("\r\n"))  # without the terminator, a column past the line's end is named
    except json.JSONDecodeError as err:
        raise _BadLine(f"invalid JSON: {err.msg} (column {err.colno})") from None
    if required is None:
        return value
    if not isinstance(value, dict):
        raise _BadLine(f"expected a JSON object, got {type(value).__name__}")
    for key in required:
        if key not in value:
            raise _BadLine(f"missing key {key!r}")
    return value
