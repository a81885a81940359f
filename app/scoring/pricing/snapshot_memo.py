"""A catalog snapshot's memo: results that depend on the snapshot and a filter set but never on the workload (the
offers a filter set allows, their machines, their price runs, a form's catalog lists), worked out once per snapshot.

Each result is read back with its own type through the MemoKind it was stored under, so callers need no casts and
two kinds never share an entry (kinds compare by identity, whatever their names).

What invalidates it: nothing while its snapshot lives; the snapshot is immutable and an entry depends on nothing
else. A catalog change (an import, an admin edit, a price turning stale) makes app.catalog.snapshot.SnapshotCache
load a new snapshot, whose memo starts empty; this one goes with the old snapshot. It is also emptied whenever it
holds MEMO_LIMIT entries, so many distinct filter sets cannot grow it without bound.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, cast

T = TypeVar("T")

MEMO_LIMIT = 256  # entries (about one per kind and distinct filter set) kept per snapshot before it is emptied


class MemoKind(Generic[T]):
    """One kind of memoised result, of type T (`offers`: list[Offer]). Declared once, by the module that builds it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"MemoKind({self.name!r})"


class SnapshotMemo:
    """Results keyed by (kind, arguments): `arguments` is what the result was worked out from besides the snapshot
    (a filter key, a field name)."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[tuple[MemoKind[object], Hashable], object] = {}

    def get(self, kind: MemoKind[T], arguments: Hashable, build: Callable[[], T]) -> T:
        """The result of `kind` for `arguments`: remembered, or built now and remembered."""
        key = (cast(MemoKind[object], kind), arguments)
        if key in self._entries:
            return cast(T, self._entries[key])  # stored by this kind's own build: a T
        value = build()
        if len(self._entries) >= MEMO_LIMIT:
            self._entries.clear()
        self._entries[key] = value
        return value
