"""records.replaced is dataclasses.replace for a hot record (found by speed23): the same new record, the original
untouched; an unknown field raises; a class it cannot copy by position (one with __post_init__) goes to replace."""

import dataclasses
import math

import pytest

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import Band
from app.scoring.inference.batching.operating_points import OperatingPoint
from app.scoring.inference.batching.queueing import md1_wait_ms, request_life_ms, running_steps_wait_ms
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.inference.step.steps import StepParts
from app.scoring.records import hot_record, replaced


def _estimate() -> InferenceEstimate:
    return InferenceEstimate(True, "fits", "h100-sxm", 8, 8, 1, {"weights": 16.0}, 64, 12, 80.0, 9.5, band=Band(1, 2))


def _point() -> OperatingPoint:
    step = StepParts(1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.5, 1)
    return OperatingPoint(2.5, 120.0, 9.0, 277.0, step, step, prefill_utilisation=0.2)


@pytest.mark.parametrize(
    ("record", "changes"),
    [
        (_estimate(), {"copies_sharing_load": 8, "spread_words": "8 copies", "terms": ["t"]}),
        (_estimate(), {}),
        (_point(), {"tokens_per_s": 1.0, "poisson_arrivals": True}),
    ],
)
def test_replaced_equals_dataclasses_replace(record: object, changes: dict[str, object]) -> None:
    before = dataclasses.astuple(record)  # type: ignore[call-overload]
    new = replaced(record, **changes)
    assert new == dataclasses.replace(record, **changes)  # type: ignore[type-var]
    assert new is not record and type(new) is type(record)
    for name, value in changes.items():
        assert getattr(new, name) is value
    assert dataclasses.astuple(record) == before  # type: ignore[call-overload]


def test_replaced_refuses_an_unknown_field() -> None:
    with pytest.raises(AttributeError):
        replaced(_point(), no_such_field=1.0)


@hot_record
class _Derived:
    value: float
    twice: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "twice", self.value * 2)


def test_replaced_leaves_a_post_init_class_to_replace() -> None:
    assert replaced(_Derived(1.0), value=5.0).twice == 10.0


@pytest.mark.parametrize("x", [-2.0, -0.0, 0.0, 0.5, 1, 1.0, 3.0, math.inf, math.nan])
def test_written_out_min_max_equal_the_builtins(x: float) -> None:
    """The hot path's `b if a < b else a` for max(a, b) (and min's) returns what the builtin does, ties and NaN too."""
    cases = [
        (request_life_ms(10.0, 2.0, x), 10.0 + max(x - 1, 0) * 2.0),
        (md1_wait_ms(4.0, x), 4.0 * min(max(x, 0.0), 0.95) / (2.0 * (1.0 - min(max(x, 0.0), 0.95)))),
        (running_steps_wait_ms(3.0, x, DEFAULT_EFFICIENCY), DEFAULT_EFFICIENCY.ttft_wait_steps * 3.0 * min(x, 1.0)),
    ]
    for got, want in cases:
        assert repr(got) == repr(want)
