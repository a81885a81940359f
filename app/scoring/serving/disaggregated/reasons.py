"""The answer in words and terms: which serving layout is cheaper at the traffic, and why, pool by pool."""

from __future__ import annotations

from dataclasses import dataclass

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import Term
from app.scoring.inference.bands.limits import at_band_high
from app.scoring.inference.step.memory import GB, kv_bytes_per_sequence
from app.scoring.serving.disaggregated.bands import slow_end_line
from app.scoring.serving.disaggregated.pairing import Pairing, mean_ttft_budget_ms, own_prefill_scale
from app.scoring.serving.disaggregated.plan import Comparison
from app.scoring.serving.disaggregated.pools import PrefillLoad
from app.scoring.serving.disaggregated.pricing import AT_TRAFFIC, DisaggregatedPlan, PoolCost
from app.scoring.serving.plans.options import ServingOption
from app.scoring.specs import ModelSpec
from app.scoring.workload import InferenceWorkload

# The saving a disaggregated plan must clear to pay for a second pool and a KV path: a fixed margin, not the
# estimator's current error. It was set at the LOSO median absolute error of inference output tokens/s per GPU
# before the 2026-12 refits (15.5 %); the refits lowered that error (docs/ACCURACY.md: 10.7 % after the second
# 2026-12-05 refit) and the margin was kept above it, since no source prices running two pools. Scoring reads no LOSO
# summary, so a refit never moves it; change it here, with the README's sentence.
MIN_SAVING_SHARE = 0.155
SLOW_END_WORDS = " at its band's slow end"  # where a pool's limit is checked at limits_at band_high
# Where the node path keeps both roles, however the offer's scale-up unit is built (Machine.unit_name)
IN_ONE_UNIT = "one node or NVLink domain"


@dataclass(frozen=True, slots=True)
class Verdict:
    winner: str  # disaggregated | aggregated | close | disaggregated_only | neither
    headline: str
    saving_usd_per_month: float | None  # aggregated minus disaggregated (negative: aggregated is cheaper)
    saving_share: float | None
    why: list[str]


def _layout(tensor_parallel: int, pipeline_parallel: int, attention_dp: bool) -> str:
    return (
        f"TP{tensor_parallel}"
        + (f"×PP{pipeline_parallel}" if pipeline_parallel > 1 else "")
        + (" with data-parallel attention" if attention_dp else "")
    )


def kv_path(pairing: Pairing) -> str:
    """What the KV cache crosses: the fabric, a node's own link, or an NVLink domain whose instances may sit on
    different nodes of the rack."""
    if pairing.path == "fabric":
        return "the inter-node fabric"
    unit = pairing.prefill.machine.unit_name
    return "the node's own link" if unit == "node" else f"the {unit}"


def unit_words(pairing: Pairing) -> tuple[str, str]:
    """Node path: what one unit of instances is and the noun that counts them: the node or NVLink domain itself where
    a unit bills all its GPUs, else a group of whole instances inside one (an NVL72 rack's 4-GPU rentals: 12 GPUs of
    a 72-GPU domain, several groups to a domain)."""
    machine, billed = pairing.prefill.machine, pairing.node_gpus_billed
    if billed >= machine.gpus_per_node:
        return machine.unit_name, machine.unit_name
    return f"{billed}-GPU group in one {machine.unit_name}", "group"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def describe_pool(pool: PoolCost) -> str:
    i, o = pool.offer.instance, pool.offer.offer
    layout = _layout(i.tensor_parallel, i.pipeline_parallel, i.attention_dp > 1)
    return f"{i.gpu_count}×{o.gpu_id} ({layout}, {o.provider_name})"


def rentals_text(pool: PoolCost) -> str:
    """Where several instances of a role share one rented instance of the offer: on how many rentals they run."""
    if pool.copies_per_rental <= 1 or pool.rentals_at_peak is None:
        return ""
    n, size = pool.rentals_at_peak, pool.offer.machine.instance_gpus
    return f" on {n} rented {size}-GPU instance{'s' if n != 1 else ''} ({pool.copies_per_rental} each)"


def describe_aggregated(s: ServingOption) -> str:
    """The aggregated fleet at the peak: replicas of the layout, or the instances holding several copies each."""
    o = s.option
    layout = _layout(o.tensor_parallel, o.pipeline_parallel, o.attention_parallel == "dp")
    if o.copies_per_instance > 1:
        return (
            f"{s.instances_at_peak} × {o.rented_gpus}×{o.gpu_id} ({o.copies_per_instance} copies of {layout} each, "
            f"{s.replicas_at_peak} in all, {o.provider_name})"
        )
    return f"{s.replicas_at_peak} × {o.gpu_count}×{o.gpu_id} ({layout}, {o.provider_name})"


def prefill_tokens_per_step(s: ServingOption, workload: InferenceWorkload) -> float:
    """Prompt tokens an aggregated step carries on average: batch × input / output (mixed_step_parts' share)."""
    return (s.option.batch or 0) * workload.input_len / workload.output_len


def aggregated_line(c: Comparison, workload: InferenceWorkload) -> list[str]:
    s = c.aggregated
    if s is None:
        return ["Aggregated: no offer meets both limits with prefill in its decode steps."]
    o = s.option
    lines = [
        f"Aggregated: {describe_aggregated(s)} at the peak hour, batch {o.batch}; "
        "every step "
        f"also prefills batch × input / output = {prefill_tokens_per_step(s, workload):,.0f} prompt tokens; TPOT "
        f"{o.tpot_ms:.1f} ms, TTFT {o.ttft_ms:,.0f} ms; ${s.cost.monthly_usd_autoscaled:,.0f} a month, "
        f"${c.aggregated_usd_per_million_output_tokens_at_traffic or 0:,.2f} per million output tokens {AT_TRAFFIC}."
    ]
    alone = c.aggregated_decode_only
    if alone is not None:
        lost = 1 - (o.batch or 0) / alone.batch if alone.batch > (o.batch or 0) else 0.0
        lines.append(
            f"Prefill interference: the same {o.gpu_count}×{o.gpu_id} decoding alone would hold batch {alone.batch} at "
            f"{alone.step_ms:.1f} ms a step (target {alone.tpot_target_ms:.1f} ms) against {o.batch} with prompts in "
            f"its steps ({lost:.0%} of the batch lost)."
        )
    return lines


def plan_lines(plan: DisaggregatedPlan, model: ModelSpec, workload: InferenceWorkload) -> list[str]:
    x, load, decoder = plan.pairing, plan.pairing.load, plan.pairing.decode_instance
    p, d = plan.prefill, plan.decode
    kv_gb = kv_bytes_per_sequence(model, workload.kv_dtype_effective, workload.input_len) / GB
    queue_ms = plan.ttft_ms - load.first_token_ms - x.transfer_ms  # what plan.py adds: md1_wait_ms at the peak's rho
    rho_at_peak = p.utilisation_at_peak * load.utilisation
    label, noun = unit_words(x)
    unit = (
        f" ({x.prefill_per_unit}P + {x.decode_per_unit}D per {label}, {_count(plan.units_at_peak, noun)})"
        if x.path == "node"
        else ""
    )
    return [
        f"Prefill pool: {p.replicas_at_peak} × {describe_pool(p)}{rentals_text(p)} at the peak hour{unit}, "
        f"{load.prompts} prompt"
        f"{'s' if load.prompts != 1 else ''} per {load.pass_ms:,.0f} ms pass{_through_text(load)}; mean TTFT at the "
        f"peak = first token {load.first_token_ms:,.0f} ms + queue {queue_ms:,.0f} ms (M/D/1, "
        f"{rho_at_peak:.0%} busy) + KV transfer {x.transfer_ms:,.1f} ms ({kv_gb:.2f} GB over {kv_path(x)} at "
        f"{x.transfer_gbs:,.0f} GB/s) = {plan.ttft_ms:,.0f} ms (an instance may run {load.utilisation:.0%} busy "
        "before its queue breaks the "
        f"{workload.ttft_ms:g} ms p99 limit, a mean of {mean_ttft_budget_ms(workload, DEFAULT_EFFICIENCY):,.0f} ms"
        f"{SLOW_END_WORDS if at_band_high(workload) else ''}); "
        f"${p.monthly_usd:,.0f} a month, ${p.usd_per_million_tokens_at_traffic:,.3f} per "
        f"million prompt tokens {AT_TRAFFIC}.",
        f"Decode pool: {d.replicas_at_peak} × {describe_pool(d)}{rentals_text(d)}, batch {decoder.batch} "
        f"(of {decoder.max_batch} that fit) at "
        f"{decoder.step_ms:.1f} ms a step with no prefill in it (target {decoder.tpot_target_ms:.1f} ms), "
        f"{decoder.capacity_rps:,.2f} requests/s each; ${d.monthly_usd:,.0f} a month, "
        f"${d.usd_per_million_tokens_at_traffic:,.2f} per million output tokens {AT_TRAFFIC}.",
    ]


def no_plan_line(c: Comparison, workload: InferenceWorkload) -> str:
    """Why no disaggregated plan meets the limits: the first of its conditions that nothing passes."""
    found, budget = c.pools, mean_ttft_budget_ms(workload, DEFAULT_EFFICIENCY)
    if found is None or not found.prefill_instances or found.fastest_prefill_ms is None:
        return "Disaggregated: no offer allowed holds a prompt's KV cache in a prefill instance."
    if not found.decode_instances:
        divided = " ÷ its TPOT band's high ratio" if at_band_high(workload) else ""
        return (
            "Disaggregated: no offer allowed decodes even one sequence within the TPOT target "
            f"({DEFAULT_EFFICIENCY.slo_tpot_utilisation:.0%} of the {workload.tpot_ms:g} ms p99 limit{divided})."
        )
    fastest = (
        f"Disaggregated: the fastest prefill instance ({found.fastest_prefill}) takes "
        f"{found.fastest_prefill_ms:,.0f} ms to prefill one {workload.input_len:,}-token prompt"
    )
    limit = f"the mean TTFT budget of {budget:,.0f} ms (the {workload.ttft_ms:g} ms p99 limit ÷ "
    limit += f"{DEFAULT_EFFICIENCY.p99_ttft_over_mean:g})"
    scale, slow_end = own_prefill_scale(workload, DEFAULT_EFFICIENCY), found.fastest_prefill_ttft_multiple
    own_ms = found.fastest_prefill_ms * scale * slow_end
    if scale != 1.0 or slow_end != 1.0:
        why = [f"{scale:.3g}: the prompt spread given ÷ the fitted ratio"] if scale != 1.0 else []
        why += [f"{slow_end:.2f}: its TTFT band's high ratio"] if slow_end != 1.0 else []
        fastest += f", {own_ms:,.0f} ms against the budget (× {'; × '.join(why)})"
    if own_ms > budget:
        return f"{fastest}, over {limit} before any queue or KV transfer."
    left = budget - own_ms
    return (
        f"{fastest}, leaving {left:,.0f} ms of {limit} for its queue and for moving its KV cache to a decode "
        f"instance (over one provider's fabric, or inside {IN_ONE_UNIT}): no prefill and decode pair fits in that."
    )


def verdict(c: Comparison, model: ModelSpec, workload: InferenceWorkload) -> Verdict:
    best, agg = c.best, c.aggregated
    why = aggregated_line(c, workload) + (plan_lines(best, model, workload) if best else [no_plan_line(c, workload)])
    if best is not None and (slow_end := slow_end_line(best, workload)) is not None:
        why.append(slow_end)
    if best is None and agg is None:
        text = (
            "Neither layout meets both limits on the offers allowed: a longer TTFT or TPOT limit, or more offers, may."
        )
        return Verdict("neither", text, None, None, why)
    if best is None:
        text = (
            "Aggregated is as good or better: no disaggregated plan meets the limits here (the pools need one "
            f"provider's offers joined by a fabric, or {IN_ONE_UNIT} that holds both)."
        )
        return Verdict("aggregated", text, None, None, why)
    if agg is None:
        text = (
            f"Only disaggregated meets the limits: {best.ratio} for ${best.monthly_usd:,.0f} a month; with prompts in "
            "its steps no aggregated option keeps both TTFT and TPOT."
        )
        return Verdict("disaggregated_only", text, None, None, why)
    a, d = agg.cost.monthly_usd_autoscaled, best.monthly_usd
    saving = a - d
    share = saving / a if a else 0.0
    if share >= MIN_SAVING_SHARE:
        text = (
            f"Disaggregated is cheaper: {best.ratio} (prefill {describe_pool(best.prefill)}, decode "
            f"{describe_pool(best.decode)}) for ${d:,.0f} a month against ${a:,.0f} aggregated, {share:.0%} less, "
            f"because {_because(c, best)}."
        )
        return Verdict("disaggregated", text, saving, share, why)
    if share > 0:
        text = (
            f"Aggregated is as good or better: disaggregated saves only {share:.0%} (${saving:,.0f} a month), under "
            f"the {MIN_SAVING_SHARE:.1%} a second pool and a KV path must save to pay (a margin kept above the "
            "estimator's typical throughput error)."
        )
        return Verdict("close", text, saving, share, why)
    text = (
        f"Aggregated is as good or better: ${a:,.0f} a month against ${d:,.0f} for the cheapest disaggregated plan "
        f"({-share:.0%} more), because {_because_not(c, best)}."
    )
    return Verdict("aggregated", text, saving, share, why)


def _because(c: Comparison, best: DisaggregatedPlan) -> str:
    assert c.aggregated is not None
    o = c.aggregated.option
    decoder = best.pairing.decode_instance
    return (
        f"a decode GPU with no prompts in its steps carries {decoder.batch / decoder.gpu_count:.1f} sequences against "
        f"{(o.batch or 0) / o.gpu_count:.1f} per GPU in aggregated steps that also prefill, and prompts run on GPUs "
        f"sized for them"
    )


def _because_not(c: Comparison, best: DisaggregatedPlan) -> str:
    assert c.aggregated is not None
    o, alone = c.aggregated.option, c.aggregated_decode_only
    gpus = c.aggregated.units_at_peak * o.rented_gpus
    text = (
        f"aggregated needs {gpus} GPU{'s' if gpus != 1 else ''} at the peak hour against "
        f"{best.prefill.gpus_at_peak} prefill + {best.decode.gpus_at_peak} decode GPUs disaggregated"
        + (f" (+ {best.idle_gpus_at_peak} idle in whole instances)" if best.idle_gpus_at_peak else "")
    )
    if alone is not None and alone.batch <= (o.batch or 0) * (1 + MIN_SAVING_SHARE):
        held = (
            f"decode alone holds the same batch, {o.batch}"
            if alone.batch == o.batch
            else f"decode alone holds batch {alone.batch}, not {o.batch}"
        )
        text += f", and prompts barely interfere with decode (on the same hardware {held})"
    elif c.aggregated.units_at_peak <= 1:
        unit = "instance" if o.copies_per_instance > 1 else "replica"
        text += f": one aggregated {unit} already carries the peak, while each pool needs at least one instance"
    else:
        # alone is None where the aggregated layout spans nodes over a fabric: its decode-only batch is not estimated
        more = f"decode alone would batch more ({alone.batch} against {o.batch}), but " if alone else ""
        text += (
            f": {more}aggregated steps overlap the prompts' compute with the memory-bound decode reads, while a "
            f"prefill pool runs prompts alone and may be only {best.pairing.load.utilisation:.0%} busy to keep TTFT"
        )
    return text


def _through_text(load: PrefillLoad) -> str:
    if load.first_token_ms <= load.pass_ms:
        return ""
    return f" ({load.first_token_ms:,.0f} ms to its last first token through the pipeline stages)"


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
        Term("prefill pass", load.pass_ms, "ms", f"prefill_parts: {load.prompts} × {workload.input_len} prompt tokens"),
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
            f"{workload.input_len} tokens × {kv_bytes / workload.input_len / 1e3:,.1f} kB",
        ),
        Term(
            "KV transfer",
            x.transfer_ms,
            "ms",
            f"{model.layers} layers × α + bytes / {x.transfer_gbs:,.0f} GB/s over {kv_path(x)}",
        ),
        Term(
            "TTFT at peak",
            plan.ttft_ms,
            "ms",
            f"pass + queue at ρ {p.utilisation_at_peak * load.utilisation:.2f} + KV transfer "
            f"(mean; p99 limit {workload.ttft_ms:g} ms = {DEFAULT_EFFICIENCY.p99_ttft_over_mean:g} x mean at most)",
        ),
        Term(
            "prefill capacity", load.capacity_rps, "requests/s", "ρ limit × prompts per pass / pass time, per instance"
        ),
        Term(
            "decode step",
            decoder.step_ms,
            "ms",
            f"decode_parts: batch {decoder.batch}, no prefill tokens (target {decoder.tpot_target_ms:.1f} ms)",
        ),
        Term(
            "decode capacity",
            decoder.capacity_rps,
            "requests/s",
            f"batch / (output_len {workload.output_len} × step), per instance",
        ),
        Term("prefill instances at peak", p.replicas_at_peak, "", f"{p.gpus_at_peak} GPUs"),
        Term("decode instances at peak", d.replicas_at_peak, "", f"{d.gpus_at_peak} GPUs"),
        *(
            [Term("idle GPUs at peak", plan.idle_gpus_at_peak, "", "rented with whole instances, used by neither role")]
            if plan.idle_gpus_at_peak
            else []
        ),
        Term(
            "prefill pool",
            p.monthly_usd,
            "$/month",
            f"autoscaled hourly at ${p.offer.offer.usd_per_gpu_hour:,.2f}/GPU-h",
        ),
        Term(
            "decode pool",
            d.monthly_usd,
            "$/month",
            f"autoscaled hourly at ${d.offer.offer.usd_per_gpu_hour:,.2f}/GPU-h",
        ),
        Term(
            "total",
            plan.monthly_usd,
            "$/month",
            f"${plan.usd_per_million_output_tokens_at_traffic:,.2f} per million output tokens {AT_TRAFFIC}",
        ),
    ]


def aggregated_terms(c: Comparison, workload: InferenceWorkload) -> list[Term]:
    s = c.aggregated
    if s is None:
        return []
    o = s.option
    return [
        Term("batch", o.batch or 0, "sequences", "latency-bound: largest batch whose mixed step meets TPOT and TTFT"),
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
            f"{s.units_at_peak * o.rented_gpus} GPUs",
        ),
        Term(
            "monthly",
            s.cost.monthly_usd_autoscaled,
            "$/month",
            f"autoscaled hourly at ${o.usd_per_gpu_hour:,.2f}/GPU-h",
        ),
    ]
