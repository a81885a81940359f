"""The fits' incremental loss: a trial move recomputes only the cases that read the moved constant, and its loss
is the float a full recompute gives (so the fits' paths and constants do not change)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from app.calibration.incremental import CaseErrors, derive
from app.calibration.inference import calibrate_inference
from app.calibration.training import calibrate_training
from app.calibration.validation.case_files import read_cases
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import training as training_eff
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, FITTED

SHARED_VALIDATION = Path(__file__).resolve().parents[2].parent / "shared" / "validation"
on_public_files = pytest.mark.skipif(not SHARED_VALIDATION.exists(), reason="../shared/validation is not present")


@dataclass(frozen=True, slots=True)
class Knobs:
    x: float = 1.0
    y: float = 2.0
    switch: float = 0.0

    def doubled_x(self) -> dict[str, float]:
        return {"y": 2 * self.x}

    @property
    def total(self) -> float:
        return self.x + self.y + self.switch


def _branching(case: tuple[str, float], k: Knobs) -> float:
    """Case 'a' reads x; case 'b' reads switch, then x or y on either side of it."""
    name, measured = case
    if name == "a":
        return abs(k.x - measured)
    return abs((k.x if k.switch > 0.5 else k.y) - measured)


def _full(cases, error, source, point) -> float:
    per_source: dict[str, list[float]] = {}
    for case in cases:
        per_source.setdefault(source(case), []).append(error(case, point))
    return sum(sum(v) / len(v) for v in per_source.values()) / len(per_source)


def test_a_fit_of_no_cases_tries_a_move_without_raising():
    # LOSO of a case file with one source fits the others: none (gpumatch validate raised AttributeError)
    errors = CaseErrors([], _branching, lambda case: case[0], Knobs())
    assert errors.trial(Knobs(x=2.0), "x") == (0.0, {})


def test_only_the_cases_that_read_the_moved_constant_are_recomputed():
    calls: list[str] = []

    def error(case, k):
        calls.append(case[0])
        return _branching(case, k)

    cases = [("a", 1.0), ("b", 3.0)]
    errors = CaseErrors(cases, error, lambda c: c[0], Knobs())
    calls.clear()
    loss, changed = errors.trial(Knobs(y=2.5), "y")
    assert calls == ["b"] and set(changed) == {1}
    assert loss == _full(cases, _branching, lambda c: c[0], Knobs(y=2.5))
    calls.clear()
    errors.trial(Knobs(x=1.5), "x")
    assert calls == ["a"]  # b reads y while the switch is off


def test_a_case_that_takes_another_branch_is_followed_there():
    cases = [("a", 1.0), ("b", 3.0)]
    errors = CaseErrors(cases, _branching, lambda c: c[0], Knobs())
    _, changed = errors.trial(Knobs(switch=1.0), "switch")
    errors.accept(changed)  # b now reads x, no longer y
    point = Knobs(x=4.0, switch=1.0)
    loss, changed = errors.trial(point, "x")
    assert set(changed) == {0, 1}
    assert loss == _full(cases, _branching, lambda c: c[0], point)
    assert errors.trial(Knobs(y=9.0, switch=1.0), "y") == (errors.mean(), {})


def test_a_method_reads_through_the_stand_in_and_a_derived_field_counts_as_what_it_was_computed_from():
    def via_method(case, k):
        return derive(k, k.doubled_x()).y

    errors = CaseErrors([("a", 0.0)], via_method, lambda c: c[0], Knobs())
    assert errors.trial(Knobs(y=5.0), "y")[1] == {}  # y is replaced before it is read
    loss, changed = errors.trial(Knobs(x=3.0), "x")
    assert loss == 6.0 and set(changed) == {0}
    assert derive(Knobs(), {"y": 7.0}) == Knobs(y=7.0)


def test_any_other_attribute_counts_as_reading_every_field():
    errors = CaseErrors([("a", 0.0)], lambda case, k: k.total, lambda c: c[0], Knobs())
    for name, point in (("x", Knobs(x=2.0)), ("y", Knobs(y=3.0)), ("switch", Knobs(switch=1.0))):
        loss, changed = errors.trial(point, name)
        assert set(changed) == {0} and loss == point.total


def _accept_and_compare(cases, error, source, start, moves) -> None:
    errors = CaseErrors(cases, error, source, start)
    point = start
    for step, name in enumerate(moves):
        trial = replace(point, **{name: getattr(point, name) * (1.3 if step % 2 else 0.8)})
        loss, changed = errors.trial(trial, name)
        assert loss == _full(cases, error, source, trial), name  # the same float, not merely close
        if step % 3 != 2:
            errors.accept(changed)
            point = trial
    assert errors.mean() == _full(cases, error, source, point)


@on_public_files
def test_inference_trial_losses_equal_full_recomputes_on_the_public_cases():
    setups = calibrate_inference.load_setups(
        str(SHARED_VALIDATION / "inference_cases.csv"), load_gpu_specs(), load_model_specs()
    )
    cases = setups[::15]  # every publication, a sixth of a second per full pass
    assert len({row["source"] for row, _ in cases}) > 10
    _accept_and_compare(cases, calibrate_inference.case_error, calibrate_inference._source, DEFAULT_EFFICIENCY, FITTED)


@on_public_files
@pytest.mark.parametrize("start", ["committed", "research"])
def test_training_trial_losses_equal_full_recomputes_on_the_public_cases(start):
    rows = read_cases(SHARED_VALIDATION / "training_cases.csv")
    cases = calibrate_training.fit_cases(rows, load_gpu_specs(), load_model_specs())
    assert any(case[-1] for case in cases)  # runs priced with FlashAttention-2 (derived attention efficiency)
    point = training_eff.DEFAULT_TRAINING_EFFICIENCY
    if start == "research":
        point = replace(point, **calibrate_training.START)
    _accept_and_compare(cases, calibrate_training.case_error, calibrate_training._source, point, training_eff.FITTED)
    assert math.isfinite(calibrate_training.loss(point, cases))
