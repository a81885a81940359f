"""A fixed load spread over every copy of a layout the rented instances hold (found by spread).

At a fixed load (limits.one_replica_load) a row bills every GPU of the instances its layout rents. An operator who pays
for an 8-GPU instance runs a copy on each share of it behind a load balancer, each copy at its share of the load, at
the same bill: a row is timed that way. A request rate splits evenly (Poisson arrivals sent to copies at random are
Poisson at the rate's share); clients are whole, so the busiest copy serves the rate's ceiling share and fewer clients
than copies leave the other copies idle; one request at a time runs on one copy, whatever the instance holds.
"""

from __future__ import annotations

import math

from app.scoring.explain import Term, significant
from app.scoring.hardware.machines import Machine
from app.scoring.inference.bands.limits import one_replica_load
from app.scoring.workload import InferenceWorkload


def spread_copies(machine: Machine, workload: InferenceWorkload, gpu_count: int) -> int:
    """Copies of a `gpu_count`-GPU layout a fixed load runs on: every copy its rented instance holds (Machine.copies),
    as many as there are clients at most; 1 for one stream, and for a question that is not a fixed load."""
    if not one_replica_load(workload):
        return 1
    return load_copies(workload, machine.copies(gpu_count))


def load_copies(workload: InferenceWorkload, instance_copies: int) -> int:
    """spread_copies of a fixed load (one_replica_load) from the copies the rented instance holds (Machine.copies):
    those, as many as there are clients at most; 1 for one stream. A tier plan holds each layout's instance copies
    (configurations._tier_plan), so a ranking's ~180 layouts ask no machine (found by speed23)."""
    if workload.scenario == "single_stream":
        return 1
    if workload.scenario == "concurrency":
        return min(instance_copies, workload.concurrency or 1)
    return instance_copies


# Per-copy workloads by (id of the workload asked, copies), the workload kept beside its copy so that an id is never
# reused while its entry lives (as shared_searches does): a ranking's machines ask the same few shares of its one
# workload ~90 times (found by speed21: a pydantic copy each). Cleared when full; a workload holds no catalog data.
_PER_COPY: dict[tuple[int, int], tuple[InferenceWorkload, InferenceWorkload]] = {}
_PER_COPY_LIMIT = 256


def per_copy_workload(workload: InferenceWorkload, copies: int) -> InferenceWorkload:
    """The workload one of `copies` copies serves: the rate's share, or the busiest copy's clients (the ceiling)."""
    if copies == 1:
        return workload
    key = (id(workload), copies)
    hit = _PER_COPY.get(key)
    if hit is not None and hit[0] is workload:
        return hit[1]
    if workload.scenario == "concurrency":
        share = workload.model_copy(update={"concurrency": math.ceil((workload.concurrency or 1) / copies)})
    else:
        share = workload.model_copy(update={"requests_per_s": (workload.requests_per_s or 0.0) / copies})
    if len(_PER_COPY) >= _PER_COPY_LIMIT:
        _PER_COPY.clear()
    _PER_COPY[key] = (workload, share)
    return share


def copy_share(workload: InferenceWorkload, copies: int) -> float | None:
    """One copy's share of the load, the one field per_copy_workload sets (solutions at equal shares are equal): the
    busiest copy's clients, or the rate's share (16 clients on 4 or 5 copies: 4 on the busiest); the load itself for
    one copy, None where the question sets neither."""
    if workload.scenario == "concurrency":
        return math.ceil((workload.concurrency or 1) / copies)
    if workload.requests_per_s is None:
        return None
    return workload.requests_per_s / copies


def served_share(workload: InferenceWorkload, copies: int) -> float:
    """The load the copies serve together over `copies` times the busiest copy's (what each is estimated at): 1 at a
    request rate; 10 clients on 8 copies run 2 on the busiest, so the copies serve 10 / 16 of 8 busiest copies."""
    if copies == 1 or workload.scenario != "concurrency":
        return 1.0
    clients = workload.concurrency or 1
    return clients / (copies * math.ceil(clients / copies))


def load_words(workload: InferenceWorkload, copies: int = 1) -> str:
    """The fixed load, or with `copies` one copy's share of it: '20 requests/s', '2.5 requests/s each', '2 clients on
    the busiest'."""
    if workload.scenario == "concurrency":
        clients = workload.concurrency or 1
        if copies == 1:
            return f"{clients:,} client{'s' if clients != 1 else ''}"
        busiest = math.ceil(clients / copies)
        each = "each" if clients % copies == 0 else "on the busiest"
        return f"{busiest:,} client{'s' if busiest != 1 else ''} {each}"
    rate = workload.requests_per_s or 0.0
    if copies == 1:
        return f"{significant(rate)} requests/s"
    return f"{significant(rate / copies, 3)} requests/s each"


def spread_words(
    workload: InferenceWorkload,
    machine: Machine,
    gpu_count: int,
    copies: int,
    one_copy_p99_ms: tuple[float, ...] | None,
) -> str:
    """What a row spread over `copies` copies says: '8 copies share this load (2.5 requests/s each), one on each GPU of
    the rented 8-GPU instance; one copy would serve it at p99 TTFT 510 ms, TPOT 38.6 ms' ('' for one copy)."""
    if copies == 1:
        return ""
    share = "each GPU" if gpu_count == 1 else f"each {gpu_count} GPUs"
    idle = machine.instances(gpu_count, copies) * machine.instance_gpus - copies * gpu_count
    idle_words = f", {idle} GPU{'s' if idle != 1 else ''} idle at this load" if idle else ""
    instance = f"the rented {machine.instance_gpus}-GPU instance{idle_words}"
    one = (
        f"one copy would serve it at p99 TTFT {significant(one_copy_p99_ms[0], 3)} ms, TPOT "
        f"{significant(one_copy_p99_ms[1], 3)} ms"
        if one_copy_p99_ms is not None
        else "one copy alone would not keep up with it"
    )
    return f"{copies} copies share this load ({load_words(workload, copies)}), one on {share} of {instance}; {one}"


def spread_term(workload: InferenceWorkload, copies: int, words: str) -> Term:
    """The explanation's first line where a fixed load is spread: the TTFT and TPOT after it are one copy's."""
    detail = (
        f"{copies}; {load_words(workload)} over {copies} copies: the TTFT and TPOT below are one copy's at its share; "
        f"{words}"
    )
    return Term("copies sharing the load", copies, "copies", detail)


def peak_as_fixed_load(workload: InferenceWorkload) -> InferenceWorkload:
    """A peak as the fixed load it is (found by spread2): its requests/s at scenario request_rate, or its clients at
    concurrency, no peak left to size replicas by: what every copy a peak row's billed instances hold could share."""
    if workload.peak_requests_per_s:
        rate = {"scenario": "request_rate", "requests_per_s": workload.peak_requests_per_s, "peak_requests_per_s": None}
        return workload.model_copy(update=rate)
    clients = workload.peak_concurrency or 1
    return workload.model_copy(update={"scenario": "concurrency", "concurrency": clients, "peak_concurrency": None})


def peak_copies_if_spread(machine: Machine, workload: InferenceWorkload, gpu_count: int, instances: int) -> int:
    """Copies of a `gpu_count`-GPU layout a peak row's `instances` billed instances hold, as many as the peak's clients
    at most (a client runs on one copy)."""
    if gpu_count < machine.instance_gpus:
        copies = instances * machine.copies(gpu_count)
    else:  # a copy takes whole instances
        copies = instances // -(-gpu_count // machine.instance_gpus)
    return min(copies, workload.peak_concurrency) if workload.peak_concurrency else copies
