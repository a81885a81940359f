"""JSON read strictly: what json.loads would silently decide for the sender is an error at its path instead.

json.loads keeps the last value of a key given twice (`{"model": "a", "model": "b"}` asked about b), reads
NaN, Infinity and -Infinity (not JSON, RFC 8259 §6) and turns 1e400 into inf. Here each is a problem named
by its path, like ("workload", "model"); text that cannot be read at all is one problem at the empty path.
A valid document parses to exactly what json.loads returns; json.JSONDecodeError still means malformed text.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from typing import Any

from app.scoring.input_checks.messages import NOT_FINITE

Path = tuple[str | int, ...]
REPEATED_KEY = "given more than once in the same object; send it once"
MAX_PROBLEMS = 20  # a 1 MB body can repeat keys thousands of times: the first ones say enough


class UnreadableJson(ValueError):
    """Valid-looking JSON that would lose or change data; `problems` holds (path, message), document order."""

    def __init__(self, problems: list[tuple[Path, str]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, path))}: {m}" if path else m for path, m in problems))
        self.problems = problems


class _RepeatedKeys(dict[str, Any]):
    """An object that gave some keys more than once (dict keeps their last value, as json.loads does)."""

    repeated: list[str]


class _NotFinite:
    """Where a NaN, an Infinity or an overflowing number like 1e400 stood."""


class _Reader:
    """Hooks for one json.loads call. They only mark what is wrong: the walk that finds its paths runs only then."""

    def __init__(self) -> None:
        self.suspect = False

    def object_from(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.suspect = True
        marked = _RepeatedKeys(obj)
        counts = Counter(key for key, _ in pairs)
        marked.repeated = [key for key in obj if counts[key] > 1]
        return marked

    def constant(self, _text: str) -> _NotFinite:
        self.suspect = True
        return _NotFinite()

    def number(self, text: str) -> float | _NotFinite:
        value = float(text)
        if math.isinf(value):
            self.suspect = True
            return _NotFinite()
        return value


def loads(text: bytes | str) -> Any:
    """json.loads, refusing repeated keys and non-finite numbers (UnreadableJson naming each) and turning the
    errors json.loads raises for text it cannot read past its grammar into UnreadableJson at the empty path."""
    reader = _Reader()
    try:
        value = json.loads(
            text, object_pairs_hook=reader.object_from, parse_constant=reader.constant, parse_float=reader.number
        )
    except json.JSONDecodeError:
        raise
    except UnicodeDecodeError as exc:
        raise UnreadableJson([((), f"byte {exc.start} is not {exc.encoding} text")]) from None
    except RecursionError:
        raise UnreadableJson([((), "nested too deeply")]) from None
    except ValueError:  # int() past sys.get_int_max_str_digits: the only other error json.loads raises
        raise UnreadableJson([((), f"a number longer than {sys.get_int_max_str_digits()} digits")]) from None
    if reader.suspect:
        raise UnreadableJson(_problems(value)[:MAX_PROBLEMS])
    return value


def _problems(document: Any) -> list[tuple[Path, str]]:
    """Every marked place, in document order; a loop, not recursion, so any depth json.loads read is walked."""
    found: list[tuple[Path, str]] = []
    stack: list[tuple[Path, Any]] = [((), document)]
    while stack and len(found) < MAX_PROBLEMS:
        path, value = stack.pop()
        if isinstance(value, _NotFinite):
            found.append((path, NOT_FINITE))
        elif isinstance(value, dict):
            found += [((*path, key), REPEATED_KEY) for key in getattr(value, "repeated", ())]
            stack += [((*path, key), item) for key, item in reversed(value.items())]
        elif isinstance(value, list):
            stack += [((*path, index), item) for index, item in reversed(list(enumerate(value)))]
    return found
