"""What each fitted constant rests on: the rows and publications whose prediction a probe of it moves."""

from dataclasses import dataclass

from app.calibration.evidence import bounded_clip, constant_evidence, probe_points, probe_sensitivity


@dataclass(frozen=True)
class Knobs:
    speed: float = 1.0
    amd: float = 0.5
    ceiling: float = 2.0  # at its upper bound: probed downwards


BOUNDS = {"speed": (0.1, 3.0), "amd": (0.1, 1.0), "ceiling": (0.5, 2.0)}
NAMES = ("speed", "amd", "ceiling")


def respond(case: tuple[str, bool], knobs: Knobs) -> float:
    """A toy prediction: every case reads `speed`, AMD cases `amd` too, and none moves with `ceiling` below 3."""
    _, amd = case
    return knobs.speed * (knobs.amd if amd else 1.0) * min(knobs.ceiling, 3.0) / min(knobs.ceiling, 3.0)


def test_a_probe_moves_one_constant_by_a_quarter_inside_its_bounds():
    points = dict(probe_points(Knobs(), NAMES, bounded_clip(BOUNDS)))
    assert points["speed"] == Knobs(speed=1.25)
    assert points["ceiling"] == Knobs(ceiling=1.6)  # 2.5 would leave the bounds: down instead


def test_each_case_responds_to_what_its_prediction_reads_and_uncovered_cases_to_nothing():
    cases = [("argonne", True), ("mlperf", False), None, ("mlperf", True)]
    sensitivity = probe_sensitivity(cases, respond, Knobs(), NAMES, bounded_clip(BOUNDS))
    assert sensitivity == [
        frozenset({"speed", "amd"}),
        frozenset({"speed"}),
        frozenset(),
        frozenset({"speed", "amd"}),
    ]
    evidence = {
        e["name"]: e
        for e in constant_evidence(["argonne", "mlperf", "nim", "mlperf"], sensitivity, Knobs(), NAMES, {"amd": 0.64})
    }
    assert (evidence["speed"]["rows"], evidence["speed"]["publications"]) == (3, 2)
    assert (evidence["amd"]["rows"], evidence["amd"]["publications"], evidence["amd"]["prior"]) == (2, 2, 0.64)
    assert evidence["ceiling"]["rows"] == 0 and evidence["ceiling"]["thin"] and evidence["ceiling"]["prior"] is None
    assert evidence["amd"]["thin"] and evidence["amd"]["value"] == 0.5
