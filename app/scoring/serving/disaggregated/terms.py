"""Every number of a disaggregated plan, and of the aggregated option it is compared with, as a term.

The terms behind the answer's figures, pool by pool: the prefill pass and its queue, the KV cache's size and its
transfer, the decode step and batch, each pool's instances and cost at the traffic (reasons.py says which layout
wins, lines.py says each plan in words). Pure: no web or database imports.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import Term, figure, fixed, significant
from app.scoring.inference.batching.queueing import MAX_UTILISATION
from app.scoring.inference.step.memory import GB, kv_bytes_per_sequence
from app.scoring.serving.disaggregated.lines import aggregated_load, kv_path, prefill_tokens_per_step
from app.scoring.serving.disaggregated.pairing import Pairing
from app.scoring.serving.disaggregated.plan import Comparison
from app.scoring.serving.disaggregated.pools import PrefillLoad
from app.scoring.serving.disaggregated.pricing import AT_TRAFFIC, DisaggregatedPlan, PoolCost
from app.scoring.serving.plans.options import ServingOption
from app.scoring.serving.traffic.week import WEEKS_PER_MONTH
from app.scoring.specs import ModelSpec
from app.scoring.workload import InferenceWorkload


def _pipeline_pass_terms(load: PrefillLoad) -> list[Term]:
    if load.first_token_ms <= load.pass_ms:
        return []
    return [
        Term(
            "prefill pass through the pipeline",
            load.first_token_ms,
            "ms",
            f"{figure(load.first_token_ms)} ms; to the pass's last first token: its prompts run the pipeline stages in "
            "turn (a request sits in one micro-batch at a time), while the instance takes the next pass's first "
            "micro-batch after one stage",
        )
    ]


def _utilisation_term(load: PrefillLoad, transfer_ms: float, workload: InferenceWorkload) -> Term:
    """The largest prefill utilisation ρ whose M/D/1 wait fits the budget: pools.max_utilisation's arithmetic."""
    first = f"{figure(load.first_token_ms)} ms first tokens" + (
        f" × {figure(load.own_scale)} (prompt spread)" if load.own_scale != 1.0 else ""
    )
    room = (load.budget_ms - load.first_token_ms * load.own_scale) / load.pass_ms
    ratio = DEFAULT_EFFICIENCY.p99_ttft_over_mean
    on_estimate = workload.ttft_ms / ratio - transfer_ms
    slow_end = on_estimate / load.budget_ms if load.budget_ms > 0 else 1.0
    budget = (
        f"r = ({figure(load.budget_ms)} ms budget − {first}) / {figure(load.pass_ms)} ms pass; the largest ρ whose "
        "first tokens + pass × ρ / (2(1 − ρ)) fit the budget (M/D/1); budget = "
        f"({significant(workload.ttft_ms)} ms TTFT limit / {significant(ratio)} p99_ttft_over_mean − "
        f"{figure(transfer_ms)} ms KV transfer)"
        + (
            f" / {figure(slow_end)}, the TTFT band's high ratio (limits_at band_high)"
            if abs(slow_end - 1) > 1e-9
            else ""
        )
    )
    if load.utilisation >= MAX_UTILISATION:
        return Term("prefill utilisation limit", load.utilisation, "", f"{MAX_UTILISATION}; MAX_UTILISATION; {budget}")
    return Term(
        "prefill utilisation limit", load.utilisation, "", f"2 × {figure(room)} / (1 + 2 × {figure(room)}); {budget}"
    )


def _monthly_words(pool: PoolCost, plan: DisaggregatedPlan) -> str:
    """A pool's monthly cost as GPU-hours × price, and, on the node path, its share of the nodes' cost."""
    usd = pool.offer.offer.usd_per_gpu_hour
    words = (
        f"{figure(pool.monthly_usd / usd)} GPU-h × {significant(usd)} USD/GPU-h; autoscaled hour by hour over the "
        "traffic's week (each hour the instances it needs, at least the floor) × "
        f"{figure(WEEKS_PER_MONTH)} weeks a month"
    )
    x = plan.pairing
    if x.path != "node":
        return words
    gpus_p, gpus_d = x.prefill_per_unit * x.prefill.instance.gpu_count, x.decode_per_unit * x.decode.instance.gpu_count
    mine = gpus_p if pool.role == "prefill" else gpus_d
    return f"{words}: the nodes' cost split by the GPUs each role uses, {mine} of {gpus_p + gpus_d}"


def _instances_term(pool: PoolCost, plan: DisaggregatedPlan, capacity_rps: float) -> Term:
    x, peak_rps = plan.pairing, pool.utilisation_at_peak * pool.replicas_at_peak * capacity_rps
    per_unit = x.prefill_per_unit if pool.role == "prefill" else x.decode_per_unit
    if x.path == "node":
        count = f"{plan.units_at_peak} node{'s' if plan.units_at_peak != 1 else ''} × {per_unit} per node"
    elif pool.copies_per_rental > 1 and pool.rentals_at_peak is not None:
        count = f"{pool.replicas_at_peak // pool.copies_per_rental} rentals × {pool.copies_per_rental} copies each"
    else:
        count = f"{pool.replicas_at_peak}"
    detail = (
        f"{count}; {_gpus(pool.gpus_at_peak)}, for {figure(peak_rps)} requests/s at the peak hour at "
        f"{figure(capacity_rps)} requests/s an instance (the fewest that serve it, whole nodes or rentals)"
    )
    return Term(f"{pool.role} instances at peak", pool.replicas_at_peak, "", detail)


def plan_terms(plan: DisaggregatedPlan, model: ModelSpec, workload: InferenceWorkload) -> list[Term]:
    """Every number of a disaggregated plan as a term, each with the arithmetic of its figures first."""
    x, load, decoder, p, d = plan.pairing, plan.pairing.load, plan.pairing.decode_instance, plan.prefill, plan.decode
    kv_bytes = kv_bytes_per_sequence(model, workload.kv_dtype_effective, workload.input_len)
    rho = p.utilisation_at_peak * load.utilisation
    queue_ms = plan.ttft_ms - load.first_token_ms - x.transfer_ms
    prompts = f"{load.prompts} prompt{'s' if load.prompts != 1 else ''}"
    alpha = "FABRIC_ALPHA_MS" if x.path == "fabric" else _node_alpha_name(x)
    output_tokens = plan.requests_per_month * workload.output_len
    return [
        Term(
            "prefill pass",
            load.pass_ms,
            "ms",
            f"{figure(load.pass_ms)} ms; {prompts} of {fixed(workload.input_len, 0)} tokens in one pass, timed as the "
            "ranking's prefill pass (dense GEMMs, attention, communication and overheads)",
        ),
        *_pipeline_pass_terms(load),
        _utilisation_term(load, x.transfer_ms, workload),
        Term(
            "prefill queue at peak",
            queue_ms,
            "ms",
            f"{figure(load.pass_ms)} ms × {figure(rho)} / (2 × (1 - {figure(rho)})); M/D/1: pass × ρ / (2(1 − ρ)) at "
            f"the peak hour's ρ, the instances' {figure(p.utilisation_at_peak)} of their capacity × the ρ limit",
        ),
        Term(
            "KV per request",
            kv_bytes / GB,
            "GB",
            f"{workload.input_len:,} tokens × {figure(kv_bytes / workload.input_len / 1e3)} kB / 10^6 kB per GB",
        ),
        Term(
            "KV transfer",
            x.transfer_ms,
            "ms",
            f"{model.layers} layers × {significant(x.transfer_alpha_ms)} ms + {figure(kv_bytes / GB)} GB / "
            f"{figure(x.transfer_gbs)} GB/s × 1,000 ms/s; α per layer ({alpha}) + bytes / bandwidth, over {kv_path(x)}",
        ),
        Term(
            "TTFT at peak",
            plan.ttft_ms,
            "ms",
            f"{figure(load.first_token_ms)} ms prefill + {figure(queue_ms)} ms queue + {figure(x.transfer_ms)} ms KV "
            f"transfer; mean, the queue at ρ {fixed(rho, 2)}, the peak hour's (p99 limit "
            f"{significant(workload.ttft_ms)} ms = {significant(DEFAULT_EFFICIENCY.p99_ttft_over_mean)} × mean "
            "at most: p99_ttft_over_mean)",
        ),
        Term(
            "prefill capacity",
            load.capacity_rps,
            "requests/s",
            f"{figure(load.utilisation)} utilisation limit × {prompts} / {figure(load.pass_ms)} ms × 1,000 ms/s; "
            "per instance",
        ),
        Term(
            "decode step",
            decoder.step_ms,
            "ms",
            f"{figure(decoder.step_ms)} ms; batch {decoder.batch} with no prefill tokens, timed as the ranking's "
            f"decode step: the largest batch within the mean TPOT target of {fixed(decoder.tpot_target_ms)} ms",
        ),
        Term(
            "decode capacity",
            decoder.capacity_rps,
            "requests/s",
            f"{decoder.batch} sequences / ({workload.output_len:,} tokens × {figure(decoder.step_ms)} ms) × "
            "1,000 ms/s; per instance",
        ),
        _instances_term(p, plan, load.capacity_rps),
        _instances_term(d, plan, decoder.capacity_rps),
        *(
            [
                Term(
                    "idle GPUs at peak",
                    plan.idle_gpus_at_peak,
                    "",
                    f"{plan.idle_gpus_at_peak}; rented with whole instances, used by neither role",
                )
            ]
            if plan.idle_gpus_at_peak
            else []
        ),
        Term("prefill pool", p.monthly_usd, "$/month", _monthly_words(p, plan)),
        Term("decode pool", d.monthly_usd, "$/month", _monthly_words(d, plan)),
        Term(
            "total",
            plan.monthly_usd,
            "$/month",
            f"{figure(p.monthly_usd)} USD prefill pool + {figure(d.monthly_usd)} USD decode pool",
        ),
        Term(
            "$ per million output tokens",
            plan.usd_per_million_output_tokens_at_traffic,
            "$/Mtok",
            f"{figure(plan.monthly_usd)} USD/month / {figure(output_tokens)} output tokens a month × 10^6; "
            f"{AT_TRAFFIC}: {figure(plan.requests_per_month)} requests a month × {workload.output_len:,} tokens, "
            "idle capacity included",
        ),
    ]


def _node_alpha_name(x: Pairing) -> str:
    return "allreduce_alpha_nvlink_ms" if x.prefill.instance.nvlink else "allreduce_alpha_pcie_ms"


def _batch_term(s: ServingOption) -> Term:
    """The aggregated replica's batch, or its mean requests in flight where the limits hold only below one."""
    if s.option.requests_in_flight is None:
        return Term(
            "batch",
            s.option.batch or 0,
            "sequences",
            f"{s.option.batch or 0} sequences; latency-bound: largest batch whose mixed step meets TPOT and TTFT",
        )
    return Term(
        "requests in flight",
        aggregated_load(s),
        "requests",
        f"{figure(aggregated_load(s))}; mean, below one: one request always in flight misses TPOT or TTFT; the largest "
        "load under one that meets them",
    )


def aggregated_terms(c: Comparison, workload: InferenceWorkload) -> list[Term]:
    s = c.aggregated
    if s is None:
        return []
    o, cost = s.option, s.cost
    load = aggregated_load(s)
    copies = f": {o.copies_per_instance} copies on one rented instance" if o.copies_per_instance > 1 else ""
    return [
        _batch_term(s),
        Term(
            "prefill tokens per step",
            prefill_tokens_per_step(s, workload),
            "tokens",
            f"{figure(load)} × {workload.input_len:,} tokens / {workload.output_len:,} tokens; batch × input / output",
        ),
        Term(
            "TPOT",
            o.tpot_ms or 0.0,
            "ms",
            f"{figure(o.tpot_ms or 0.0)} ms; mixed step: decode of the batch plus its share of prompts (the ranking's "
            "TPOT terms)",
        ),
        Term(
            "TTFT",
            o.ttft_ms or 0.0,
            "ms",
            f"{figure(o.ttft_ms or 0.0)} ms; own prefill + M/D/1 queue + waiting steps (the ranking's TTFT terms)",
        ),
        Term(
            "throughput",
            o.rented_tokens_per_s,
            "tokens/s",
            f"{figure(o.rented_tokens_per_s)} tokens/s; output tokens per replica{copies}",
        ),
        Term(
            "replicas at peak",
            s.replicas_at_peak,
            "",
            f"{s.replicas_at_peak}; {s.instances_at_peak} instance{'s' if s.instances_at_peak != 1 else ''}, "
            + _gpus(s.units_at_peak * o.rented_gpus),
        ),
        Term(
            "monthly",
            cost.monthly_usd_autoscaled,
            "$/month",
            f"{figure(cost.gpu_hours_autoscaled)} GPU-h × {significant(o.usd_per_gpu_hour)} USD/GPU-h; autoscaled hour "
            "by hour over the traffic's week (each hour the replicas it needs, at least the floor)",
        ),
    ]


def _gpus(count: int) -> str:
    """A count of GPUs in words: "1 GPU", "8 GPUs"."""
    return f"{count} GPU{'' if count == 1 else 's'}"
