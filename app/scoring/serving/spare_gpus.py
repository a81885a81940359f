"""Words for a traffic's fleet that bills more GPUs than its peak needs, as /plan, /mix and /disagg's aggregated option
price and time it: the copies the peak hour needs, each timed at the load the ranking sized it for, on whole rented
instances whose other GPUs are billed and spare. "Idle" stays what it says elsewhere, GPUs no copy runs on (a fixed
load's one replica on the ranking, a /disagg pool's rentals, whose every copy serves a share of the peak): the two
read alike before ('one copy on a rented 8-GPU instance, 7 GPUs idle at peak' beside a pool's '8 copies … share the
peak hour's requests'), found by small2."""

from __future__ import annotations

from app.scoring.explain import significant


def spare_gpus_words(spare_gpus: int, instances: int | None, instance_gpus: int, copies_needed: int) -> str:
    """'one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are billed, spare at peak' ('' with none
    spare): `copies_needed` copies serve the peak hour, `spare_gpus` more of the `instances` rented are billed."""
    if not spare_gpus:
        return ""
    one = copies_needed == 1
    copies = "one copy serves" if one else f"{copies_needed if copies_needed else 'no'} copies serve"
    whose = "its" if one else "their"
    rented = "rented" if (instances or 1) == 1 else f"{instances} rented"
    plural = "" if (instances or 1) == 1 else "s"
    gpus = f"{spare_gpus} more GPU{'s' if spare_gpus != 1 else ''}"
    billed = "is" if spare_gpus == 1 else "are"
    instance = f"{whose} {rented} {instance_gpus}-GPU instance{plural}"
    return f"{copies} the peak; {gpus} of {instance} {billed} billed, spare at peak"


def peak_row_spare_words(replicas: int | None, gpu_count: int, instances: int | None, instance_gpus: int) -> str:
    """A ranked row at a peak (peak_requests_per_s or peak_concurrency): its `replicas` copies on `instances` whole
    rented instances, the GPUs no needed copy runs on said as /plan says them ('' with none): the 8B at 3 req/s on
    CoreWeave's 8-GPU L40S instance, 2 copies, billed for 8 GPUs (found by qa31)."""
    if not replicas or not instances:
        return ""
    return spare_gpus_words(instances * instance_gpus - replicas * gpu_count, instances, instance_gpus, replicas)


def peak_spread_words(
    replicas: int, copies: int, gpu_count: int, billed_gpus: int, spread_p99_ms: tuple[float, ...]
) -> str:
    """A peak row whose spare GPUs would run copies too (found by spread2): 'one copy serves the peak; run 8 copies on
    the 8 billed GPUs and the peak's p99 TTFT falls to 62 ms, TPOT to 9.1 ms' (the bill the same)."""
    one = replicas == 1
    serve = "one copy serves" if one else f"{replicas} copies serve"
    used = copies * gpu_count
    gpus = f"the {billed_gpus} billed GPUs" if used == billed_gpus else f"{used} of the {billed_gpus} billed GPUs"
    ttft, tpot = significant(spread_p99_ms[0], 3), significant(spread_p99_ms[1], 3)
    falls = f"the peak's p99 TTFT falls to {ttft} ms, TPOT to {tpot} ms"
    return f"{serve} the peak; run {copies} copies on {gpus} and {falls}"
