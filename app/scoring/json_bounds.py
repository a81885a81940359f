"""Bounds for free-form JSON objects taken from users (a pasted config.json), checked before any parsing."""

from __future__ import annotations

import json
from typing import Any

MAX_KEYS = 200  # a real config.json has ~30-80 keys, nested ones included
MAX_DEPTH = 4  # rope_scaling / quantization_config nest one or two levels
MAX_SERIALIZED_BYTES = 64 * 1024
MAX_STRING_CHARS = 4_096


def _walk(value: Any, depth: int, counts: list[int]) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        counts[0] += len(value)
        if counts[0] > MAX_KEYS:
            raise ValueError(f"more than {MAX_KEYS} keys")
        for item in value.values():
            _walk(item, depth + 1, counts)
    elif isinstance(value, list):
        for item in value:
            _walk(item, depth + 1, counts)
    elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        raise ValueError(f"a string longer than {MAX_STRING_CHARS} characters")


def check_bounded_object(value: dict[str, Any]) -> dict[str, Any]:
    """Raise ValueError when the object is too big, too deep or has too many keys (all keys counted)."""
    _walk(value, 1, [0])
    size = len(json.dumps(value, default=str).encode())
    if size > MAX_SERIALIZED_BYTES:
        raise ValueError(f"larger than {MAX_SERIALIZED_BYTES // 1024} KB serialized")
    return value
