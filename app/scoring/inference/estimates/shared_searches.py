"""One search per configuration a ranking meets, however many GPUs wire it alike.

A ranking solves each (GPU as its machine wires it, layout) once (configurations.solve_on), yet machines that wire a
GPU differently often give equal contexts (the same card, count and links in another node size or product): the
seeded catalog's 70B ranking ran 153 latency-bound searches over 119 distinct (context, limits) pairs. The searches
are pure functions of their arguments, so an answer found for one context value serves every equal one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar, cast

from app.scoring.efficiency.inference import InferenceEfficiency
from app.scoring.inference.step.context import InferenceContext

P = ParamSpec("P")
R = TypeVar("R")

# Answers by (search, context value, efficiency identity, the search's other arguments): the efficiency is keyed by
# id (hashing it walks every constant; calibration makes many) and kept beside the answer so that an id is never
# reused while its entry lives, as pass_rates' memo does. Cleared when full; the workload's lengths and limits are in
# every key, so one ranking's answers never serve another's workload.
_SEARCHES: dict[tuple[object, ...], tuple[InferenceEfficiency, object]] = {}
_SEARCHES_LIMIT = 4096


def shared_search(
    search: Callable[Concatenate[InferenceContext, InferenceEfficiency, P], R],
    ctx: InferenceContext,
    eff: InferenceEfficiency,
    *args: P.args,
    **kwargs: P.kwargs,
) -> R:
    """search(ctx, eff, *args), answered once per equal context (and the same efficiency object and arguments).
    Positional arguments only: a keyword argument would be keyed apart from the same value given by position."""
    if kwargs:
        raise TypeError("shared_search takes the search's arguments by position")
    key = (search, ctx, id(eff), args)
    hit = _SEARCHES.get(key)
    if hit is not None and hit[0] is eff:
        return cast(R, hit[1])
    answer = search(ctx, eff, *args, **kwargs)
    if len(_SEARCHES) >= _SEARCHES_LIMIT:
        _SEARCHES.clear()
    _SEARCHES[key] = (eff, answer)
    return answer
