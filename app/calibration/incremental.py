"""A fit's loss, recomputed only for the cases a moved constant can change.

Coordinate descent moves one constant at a time, and most cases never read most constants (the ROCm factors
only AMD rows, the llama.cpp factors only llama.cpp rows). A case's error is a deterministic function of the
constants it reads: move one it did not read and every read returns the same value, the same branches run,
and the error is the same float. So a trial move recomputes only the cases that read the moved constant at
the current point, and the loss comes out as the very float a full recompute gives (the same per-case errors,
summed in the same order): the fit's path, and so its constants, do not change.

What a case reads is recorded each time it is computed, through a stand-in for the constants that notes each
field asked of it (a new branch may read other constants; the accepted point's reads are the ones that count).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, replace
from types import FunctionType, MethodType
from typing import Any, Generic, TypeVar

Case = TypeVar("Case")


class _Reads:
    """Base of the stand-in types (one per type of constants): the real constants, their values (changed ones
    included, `derived`), and the names of the fields read so far."""

    __slots__ = ("point", "values", "names", "derived")
    point: Any
    values: dict[str, Any]
    names: set[str]
    derived: frozenset[str]


def _reads_type(point_type: type) -> type:
    """A stand-in type for `point_type`'s constants: a property per field notes the field's name, then answers
    its value (a property costs a small share of a plain read). A method runs on the stand-in, so its reads
    are noted too; any other attribute could read any field unseen, so it notes them all."""
    names = tuple(f.name for f in fields(point_type))

    def reader(name: str) -> property:
        def read(self: Any) -> Any:
            if name not in self.derived:
                self.names.add(name)
            return self.values[name]

        return property(read)

    def other(self: Any, name: str) -> Any:
        attribute = getattr(point_type, name, None)
        if isinstance(attribute, FunctionType):
            return MethodType(attribute, self)
        self.names.update(names)
        return getattr(replace(self.point, **{n: self.values[n] for n in self.derived}), name)

    namespace: dict[str, Any] = {"__slots__": (), "__getattr__": other}
    namespace.update({name: reader(name) for name in names})
    return type(f"{point_type.__name__}Reads", (_Reads,), namespace)


_READS_TYPES: dict[type, type] = {}


def _cached_reads_type(point_type: type) -> type:
    if point_type not in _READS_TYPES:
        _READS_TYPES[point_type] = _reads_type(point_type)
    return _READS_TYPES[point_type]


def _new_view(point: Any, values: dict[str, Any], names: set[str], derived: frozenset[str]) -> Any:
    view = _cached_reads_type(type(point))()
    view.point, view.values, view.names, view.derived = point, values, names, derived
    return view


def derive(point: Any, changes: dict[str, Any]) -> Any:
    """`dataclasses.replace(point, **changes)`, for the constants and for a case's stand-in alike. On a stand-in
    the changed fields' reads are not noted: their values were computed from reads already noted."""
    if isinstance(point, _Reads):
        return _new_view(point.point, {**point.values, **changes}, point.names, point.derived | frozenset(changes))
    return replace(point, **changes)


def _values(point: Any) -> dict[str, Any]:
    return {f.name: getattr(point, f.name) for f in fields(point)}


class CaseErrors(Generic[Case]):
    """Per-case errors at the accepted point, with the constants each case read there.

    `error(case, point)` is a case's error at `point`; the loss is the mean over sources (first-appearance
    order) of each source's mean error, as the fits' full losses compute it.
    """

    def __init__(
        self, cases: Sequence[Case], error: Callable[[Case, Any], float], source: Callable[[Case], str], point: Any
    ) -> None:
        self._cases, self._error = cases, error
        groups: dict[str, list[int]] = {}
        for index, case in enumerate(cases):
            groups.setdefault(source(case), []).append(index)
        self._groups = list(groups.values())
        self._errors: list[float] = [0.0] * len(cases)
        self._reads: list[frozenset[str]] = [frozenset()] * len(cases)
        self._readers: dict[str, list[int]] = {}  # no case yet (a fit of none: LOSO of a file with one source)
        self.accept(self._evaluate(point, range(len(cases))))

    def _evaluate(self, point: Any, indices: Iterable[int]) -> dict[int, tuple[float, frozenset[str]]]:
        """Each indexed case's error at `point`, with the names of the constants it read."""
        values, out = _values(point), {}
        for index in indices:
            view = _new_view(point, values, set(), frozenset())
            out[index] = (self._error(self._cases[index], view), frozenset(view.names))
        return out

    def mean(self, errors: Sequence[float] | None = None) -> float:
        values = self._errors if errors is None else errors
        return sum(sum(values[i] for i in group) / len(group) for group in self._groups) / max(len(self._groups), 1)

    def trial(self, point: Any, moved: str) -> tuple[float, dict[int, tuple[float, frozenset[str]]]]:
        """The loss at `point`, which differs from the accepted point in the constant `moved` only, and the
        recomputed cases (hand them to `accept` if the move is taken)."""
        changed = self._evaluate(point, self._readers.get(moved, ()))
        if not changed:
            return self.mean(), changed
        errors = [changed[i][0] if i in changed else value for i, value in enumerate(self._errors)]
        return self.mean(errors), changed

    def accept(self, changed: dict[int, tuple[float, frozenset[str]]]) -> None:
        """Move to the trial's point: the recomputed cases take their errors and what they read there."""
        for index, (error, names) in changed.items():
            self._errors[index], self._reads[index] = error, names
        if changed:
            self._readers = {}
            for index, names in enumerate(self._reads):
                for name in names:
                    self._readers.setdefault(name, []).append(index)
