"""What load an inference workload may be given with: the scenario's own load field (and no other scenario's), one
peak (requests/s or clients, at latency_bound), a batch job at max_throughput with its deadline, and fleet ranking
only with a peak. InferenceWorkload runs these as field validators, each on the fields named where it is wired, so
`info.data` holds the fields declared before the one checked."""

from __future__ import annotations

from pydantic import ValidationInfo

from app.scoring.workload.field_types import SCENARIO_LOAD_UNITS, SCENARIO_OF_LOAD_FIELD


def fleet_needs_a_peak(value: str, info: ValidationInfo) -> str:
    if value == "fleet" and not (info.data.get("peak_requests_per_s") or info.data.get("peak_concurrency")):
        raise ValueError("fleet prices the replicas a peak needs: give peak_requests_per_s or peak_concurrency")
    return value


def load_of_the_scenario(value: float | None, info: ValidationInfo) -> float | None:
    """The scenario's own load field is required (a default of 1 was a question nobody asked); another
    scenario's is an error, as a batch job outside max_throughput: dropping it answered a question not asked."""
    name = str(info.field_name)
    scenario, owner = info.data.get("scenario"), SCENARIO_OF_LOAD_FIELD[name]
    if scenario is None:  # the scenario itself is invalid: its own error says so
        return value
    if scenario != owner and value is not None:
        raise ValueError(
            f"{name} ({SCENARIO_LOAD_UNITS[name]}) is read only under scenario {owner}, not {scenario}: "
            f"choose scenario {owner}, or leave {name} empty"
        )
    if scenario == owner and value is None:
        raise ValueError(f"required for scenario {owner} ({SCENARIO_LOAD_UNITS[name]})")
    return value


def one_peak(value: int | None, info: ValidationInfo) -> int | None:
    if value is not None and info.data.get("peak_requests_per_s"):
        raise ValueError("give the peak as requests/s (peak_requests_per_s) or as clients, not both")
    scenario = info.data.get("scenario")
    if value is not None and scenario is not None and scenario != "latency_bound":
        raise ValueError(
            "peak clients size replicas that meet the latency limits (scenario latency_bound), each serving as "
            f"many clients as its batch; scenario {scenario} fixes a replica's load itself"
        )
    return value


def job_at_max_throughput(value: int | None, info: ValidationInfo) -> int | None:
    scenario = info.data.get("scenario")
    if value is not None and scenario is not None and scenario != "max_throughput":
        raise ValueError(
            f"a batch job runs at scenario max_throughput (its requests are submitted at once), not {scenario}"
        )
    peak = next((name for name in ("peak_requests_per_s", "peak_concurrency") if info.data.get(name)), None)
    if value is not None and peak:
        raise ValueError(
            "a batch job's replicas come from its deadline (job_deadline_hours), not from peak traffic: "
            f"leave {peak} empty"
        )
    return value


def deadline_of_a_job(value: float | None, info: ValidationInfo) -> float | None:
    if value is not None and "job_requests" in info.data and info.data["job_requests"] is None:  # absent: invalid
        raise ValueError("a deadline needs a batch job: set job_requests (the requests to finish in time)")
    return value
