"""The vocabulary of line-up keys: value types, required keys, the key groups retriever kinds share.

A retriever kind (:mod:`.kinds`) lists its TOML keys as ``{key: (type, default)}``, where the type
is one of :data:`STR`, :data:`INT`, :data:`NUM`, :data:`BOOL`, :data:`STRS`, :data:`NUMS` (the
words are those of the error messages: "must be a string, not 3") and the default is a value,
``None`` (optional, no default) or :data:`REQUIRED`. :mod:`.lineup` checks a table against them.
"""
from __future__ import annotations

import re

__all__ = ["REQUIRED", "STR", "INT", "NUM", "BOOL", "STRS", "NUMS", "DEVICE", "DEFAULT_DEPTH", "DEFAULT_FIELDS",
           "COMMON", "FIELDS", "INPUTS", "ST_OPTIONS", "type_ok"]

REQUIRED = object()
"""The default of a key that every table of its kind must give."""
STR, INT, NUM, BOOL = "a string", "an integer", "a number", "true or false"
STRS, NUMS = "a list of strings", "a list of numbers"

DEVICE = re.compile(r"cpu|cuda(:\d+)?|mps")
"""What a ``device`` key (or ``--device``) may say."""
DEFAULT_DEPTH = 100
DEFAULT_FIELDS = ("title", "text")

COMMON = {"name": (STR, REQUIRED), "kind": (STR, REQUIRED), "family": (STR, None), "description": (STR, "")}
"""Keys of every [[retriever]] table."""
FIELDS = {"fields": (STRS, None)}
INPUTS = {"inputs": (STRS, REQUIRED)}
ST_OPTIONS = {"query_prefix": (STR, ""), "document_prefix": (STR, ""), "device": (STR, "cpu"),
              "batch_size": (INT, 32), "max_seq_length": (INT, None), "trust_remote_code": (BOOL, False)}
"""Settings of a sentence-transformers model."""


def type_ok(value, kind: str) -> bool:
    """Does a TOML value have the schema type ``kind``?"""
    if kind == STR:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    inner = STR if kind == STRS else NUM
    return isinstance(value, list) and all(type_ok(v, inner) for v in value)
