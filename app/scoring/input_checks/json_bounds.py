"""Bounds for free-form JSON objects taken from users (a pasted config.json), checked before any parsing."""

from __future__ import annotations

import json
import math
from typing import Any

MAX_KEYS = 200  # a real config.json has ~30-80 keys, nested ones included
MAX_DEPTH = 6  # compressed-tensors nests quantization_config.config_groups.group_0.weights.num_bits: 6 levels
MAX_SERIALIZED_BYTES = 64 * 1024
MAX_STRING_CHARS = 4_096
# JSON's interoperable integer range (RFC 8259 §6): beyond it a number means nothing to a config,
# and the response writer (orjson, 64-bit) could not echo it back.
MAX_SAFE_INTEGER = 2**53 - 1


def _check_number(value: Any, key: str) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        raise ValueError(f"{key}: integer beyond ±2**53-1")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{key}: {value} is not a finite number")


def _walk(value: Any, depth: int, counts: list[int], key: str = "config") -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        counts[0] += len(value)
        if counts[0] > MAX_KEYS:
            raise ValueError(f"more than {MAX_KEYS} keys")
        for name, item in value.items():
            _walk(item, depth + 1, counts, str(name)[:64])
    elif isinstance(value, list):
        for item in value:
            _walk(item, depth + 1, counts, key)
    elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
        raise ValueError(f"a string longer than {MAX_STRING_CHARS} characters")
    else:
        _check_number(value, key)


def check_bounded_object(value: dict[str, Any]) -> dict[str, Any]:
    """Raise ValueError when the object is too big, too deep or has too many keys (all keys counted)."""
    _walk(value, 1, [0])
    size = len(json.dumps(value, default=str).encode())
    if size > MAX_SERIALIZED_BYTES:
        raise ValueError(f"larger than {MAX_SERIALIZED_BYTES // 1024} KB serialized")
    return value
