"""Every number of a disaggregated plan, and of the aggregated option it is compared with, as a term.

The terms behind the answer's figures, pool by pool: the prefill pass and its queue, the KV cache's size and its
transfer, the decode step and batch, each pool's instances and cost at the traffic (reasons.py says which layout
wins, lines.py says each plan in words). Pure: no web or database imports.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import Term, fixed, significant
from app.scoring.inference.step.memory import GB, kv_bytes_per_sequence
from app.scoring.serving.disaggregated.lines import aggregated_load, kv_path, prefill_tokens_per_step
from app.scoring.serving.disaggregated.plan import Comparison
from app.scoring.serving.disaggregated.pools import PrefillLoad
from app.scoring.serving.disaggregated.pricing import AT_TRAFFIC, DisaggregatedPlan
from app.scoring.serving.plans.options import ServingOption
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
            "to the pass's last first token: its prompts run the pipeline stages in turn (a request sits in one "
            "micro-batch at a time), while the instance takes the next pass's first micro-batch after one stage",
        )
    ]


def plan_terms(plan: DisaggregatedPlan, model: ModelSpec, workload: InferenceWorkload) -> list[Term]:
    """Every number of a disaggregated plan as a term."""
    x, load, decoder, p, d = plan.pairing, plan.pairing.load, plan.pairing.decode_instance, plan.prefill, plan.decode
    kv_bytes = kv_bytes_per_sequence(model, workload.kv_dtype_effective, workload.input_len)
    return [
        Term(
            "prefill pass",
            load.pass_ms,
            "ms",
            f"prefill_parts: {load.prompts} × {fixed(workload.input_len, 0)} prompt tokens",
        ),
        *_pipeline_pass_terms(load),
        Term(
            "prefill utilisation limit",
            load.utilisation,
            "",
            "largest ρ with the pass's first tokens (the pass itself, or its run through the pipeline stages) "
            "+ pass × ρ / (2(1 − ρ)) + KV transfer ≤ TTFT limit (M/D/1)",
        ),
        Term(
            "prefill queue at peak",
            plan.ttft_ms - load.first_token_ms - x.transfer_ms,
            "ms",
            "M/D/1: pass × ρ / (2(1 − ρ)) at the peak hour's ρ",
        ),
        Term(
            "KV per request",
            kv_bytes / GB,
            "GB",
            f"{workload.input_len:,} tokens × {fixed(kv_bytes / workload.input_len / 1e3, 1)} kB",
        ),
        Term(
            "KV transfer",
            x.transfer_ms,
            "ms",
            f"{model.layers} layers × α + bytes / {fixed(x.transfer_gbs, 0)} GB/s over {kv_path(x)}",
        ),
        Term(
            "TTFT at peak",
            plan.ttft_ms,
            "ms",
            f"pass + queue at ρ {fixed(p.utilisation_at_peak * load.utilisation, 2)} + KV transfer "
            f"(mean; p99 limit {significant(workload.ttft_ms)} ms = "
            f"{significant(DEFAULT_EFFICIENCY.p99_ttft_over_mean)} × mean at most)",
        ),
        Term(
            "prefill capacity", load.capacity_rps, "requests/s", "ρ limit × prompts per pass / pass time, per instance"
        ),
        Term(
            "decode step",
            decoder.step_ms,
            "ms",
            f"decode_parts: batch {decoder.batch}, no prefill tokens (target {fixed(decoder.tpot_target_ms)} ms)",
        ),
        Term(
            "decode capacity",
            decoder.capacity_rps,
            "requests/s",
            f"batch / (output_len {workload.output_len:,} × step), per instance",
        ),
        Term("prefill instances at peak", p.replicas_at_peak, "", _gpus(p.gpus_at_peak)),
        Term("decode instances at peak", d.replicas_at_peak, "", _gpus(d.gpus_at_peak)),
        *(
            [Term("idle GPUs at peak", plan.idle_gpus_at_peak, "", "rented with whole instances, used by neither role")]
            if plan.idle_gpus_at_peak
            else []
        ),
        Term(
            "prefill pool",
            p.monthly_usd,
            "$/month",
            f"autoscaled hourly at ${fixed(p.offer.offer.usd_per_gpu_hour, 2)}/GPU-h",
        ),
        Term(
            "decode pool",
            d.monthly_usd,
            "$/month",
            f"autoscaled hourly at ${fixed(d.offer.offer.usd_per_gpu_hour, 2)}/GPU-h",
        ),
        Term(
            "total",
            plan.monthly_usd,
            "$/month",
            f"${fixed(plan.usd_per_million_output_tokens_at_traffic, 2)} per million output tokens {AT_TRAFFIC}",
        ),
    ]


def _batch_term(s: ServingOption) -> Term:
    """The aggregated replica's batch, or its mean requests in flight where the limits hold only below one."""
    if s.option.requests_in_flight is None:
        return Term(
            "batch",
            s.option.batch or 0,
            "sequences",
            "latency-bound: largest batch whose mixed step meets TPOT and TTFT",
        )
    return Term(
        "requests in flight",
        aggregated_load(s),
        "requests",
        "mean, below one: one request always in flight misses TPOT or TTFT; the largest load under one that meets them",
    )


def aggregated_terms(c: Comparison, workload: InferenceWorkload) -> list[Term]:
    s = c.aggregated
    if s is None:
        return []
    o = s.option
    return [
        _batch_term(s),
        Term("prefill tokens per step", prefill_tokens_per_step(s, workload), "tokens", "batch × input / output"),
        Term("TPOT", o.tpot_ms or 0.0, "ms", "mixed step: decode of the batch plus its share of prompts"),
        Term("TTFT", o.ttft_ms or 0.0, "ms", "own prefill + M/D/1 queue + waiting steps (loaded_ttft_ms)"),
        Term(
            "throughput",
            o.rented_tokens_per_s,
            "tokens/s",
            "output tokens per replica"
            + (f": {o.copies_per_instance} copies on one rented instance" if o.copies_per_instance > 1 else ""),
        ),
        Term(
            "replicas at peak",
            s.replicas_at_peak,
            "",
            f"{s.instances_at_peak} instance{'s' if s.instances_at_peak != 1 else ''}, "
            + _gpus(s.units_at_peak * o.rented_gpus),
        ),
        Term(
            "monthly",
            s.cost.monthly_usd_autoscaled,
            "$/month",
            f"autoscaled hourly at ${fixed(o.usd_per_gpu_hour, 2)}/GPU-h",
        ),
    ]


def _gpus(count: int) -> str:
    """A count of GPUs in words: "1 GPU", "8 GPUs"."""
    return f"{count} GPU{'' if count == 1 else 's'}"
