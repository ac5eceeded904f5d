"""The shapes every module passes around, declared once: qrels and runs as nested dicts."""
from __future__ import annotations

from collections.abc import Mapping

Qrels = dict[str, dict[str, int]]  # {query id: {doc id: grade}}
Run = dict[str, dict[str, float]]  # {query id: {doc id: score}}
QrelsLike = Mapping[str, Mapping[str, int]]  # what a reader accepts: any read-only mapping of that shape
RunLike = Mapping[str, Mapping[str, float]]

__all__ = ["Qrels", "Run", "QrelsLike", "RunLike"]
