"""Which query parameters a page's question takes. Any other is a 422 naming it, on every page alike: a parameter
read and then ignored answers a different question than the link asks (/plan planned `scenario=max_throughput`,
/disagg answered latency-bound while its JSON echoed max_throughput)."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

NOT_A_FIELD = "not a field of this form"


@dataclass(frozen=True)
class QueryFields:
    """A page's parameters: `names` exactly, and any name starting with one of `prefixes` (arch_*: a custom
    architecture, whose own model says which are valid). `reasons` says why a parameter a ranking link may carry is
    not one of them."""

    names: frozenset[str]
    prefixes: tuple[str, ...] = ()
    reasons: Mapping[str, str] = field(default_factory=dict)

    def takes(self, name: str) -> bool:
        return name in self.names or name.startswith(self.prefixes)

    def errors(self, keys: Iterable[str]) -> dict[str, str]:
        """{parameter: why} for each key the question does not take, in the order first given."""
        return {key: self.reason(key) for key in dict.fromkeys(keys) if not self.takes(key)}

    def reason(self, name: str) -> str:
        why = self.reasons.get(name)
        return f"{NOT_A_FIELD}: {why}" if why else not_a_field(name, self.names)


def not_a_field(name: str, accepted: Collection[str]) -> str:
    """Every page's words for a parameter its question does not take, with the nearest one it does."""
    close = difflib.get_close_matches(name, sorted(accepted), n=1, cutoff=0.7)  # tpot: tpot_ms; bogus: not gpus
    return f"{NOT_A_FIELD} (did you mean {close[0]}?)" if close else NOT_A_FIELD


def query_fields(
    names: Collection[str], prefixes: tuple[str, ...] = (), reasons: Mapping[str, str] | None = None
) -> QueryFields:
    return QueryFields(frozenset(names), prefixes, dict(reasons or {}))


def unknown_key_errors(keys: Iterable[str], accepted: Collection[str], where: str) -> dict[str, str]:
    """{key: why} for each query key a route does not read (an API route's or a catalog page's), with the nearest
    name it does read: `?limt=1` and `?gpu_id=B200` were ignored, answering every option as if unfiltered."""
    names = sorted(accepted)
    takes = f"it takes {', '.join(names)}" if names else "it takes no query parameters"
    errors = {}
    for key in dict.fromkeys(keys):
        if key not in accepted:
            close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            errors[key] = f"not a query parameter of {where}{hint}; {takes}"
    return errors
