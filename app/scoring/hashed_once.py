"""`hashed_once`: a frozen dataclass that works out its hash on first use and keeps it.

A frozen dataclass hashes the tuple of all its fields on every call, and a ranking keys its memos (lru_caches,
shared searches, solved layouts) on a GPU, model, machine and serving context about two thousand times: a GpuSpec or
an InferenceContext of 20-45 fields took ~1 us each, about a tenth of an inference ranking (sampled, 2026-12-06).
The fields never change, so neither does the hash. It lives in the `_hash` slot of HashedOnce, outside the
dataclass's fields: fields(), eq, repr, replace() and pickling (slots dataclasses pickle their fields) never see it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T", bound="HashedOnce")


class HashedOnce:
    """Base of a frozen slots dataclass decorated with hashed_once: the slot its hash is kept in."""

    __slots__ = ("_hash",)


def hashed_once(cls: type[T]) -> type[T]:
    """Apply above @dataclass(frozen=True, slots=True) on a HashedOnce subclass: its generated __hash__, once."""
    fields_hash: Callable[[T], int] = cls.__hash__  # type: ignore[assignment]

    def __hash__(self: T) -> int:
        try:
            return self._hash  # type: ignore[attr-defined,no-any-return]
        except AttributeError:
            value = fields_hash(self)
            object.__setattr__(self, "_hash", value)  # frozen: the dataclass's own __setattr__ refuses
            return value

    cls.__hash__ = __hash__  # type: ignore[assignment,method-assign]
    return cls
