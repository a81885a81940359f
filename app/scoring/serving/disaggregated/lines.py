"""Each plan in words: a disaggregated plan's pools, its KV path and its rentals, the aggregated option, or why no
plan came out.

The lines the answer lists under its verdict (reasons.py): what one instance of each pool is (layout, GPUs, the
prompts or batch it carries), what the KV cache crosses, the node or NVLink domain a node-path plan rents, and the
aggregated option's prefill tokens per step. Pure: no web or database imports.
"""

from __future__ import annotations

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.explain import fixed, in_flight_text, percent, significant, usd_shown
from app.scoring.inference.bands.limits import at_band_high
from app.scoring.inference.step.memory import GB, kv_bytes_per_sequence
from app.scoring.serving.disaggregated.pairing import Pairing, mean_ttft_budget_ms, own_prefill_scale
from app.scoring.serving.disaggregated.plan import Comparison
from app.scoring.serving.disaggregated.pools import PrefillLoad
from app.scoring.serving.disaggregated.pricing import AT_TRAFFIC, DisaggregatedPlan, PoolCost
from app.scoring.serving.plans.options import ServingOption, fleet_spare_words
from app.scoring.specs import ModelSpec
from app.scoring.workload import InferenceWorkload

SLOW_END_WORDS = " at its band's slow end"  # where a pool's limit is checked at limits_at band_high

# Where the node path keeps both roles, however the offer's scale-up unit is built (Machine.unit_name)
IN_ONE_UNIT = "one node or NVLink domain"


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
    """Where several instances of a role share one rented instance of the offer: on how many rentals they run; and
    on the fabric path, where the peak needs fewer copies than run or GPUs hold none, the pool's fleet_note."""
    note = pool.fleet_note  # '4 copies on a rented 8-GPU instance share the peak hour's requests (1 would serve them)'
    if pool.copies_per_rental <= 1 or pool.rentals_at_peak is None:
        return f" ({note})" if note else ""
    n, size = pool.rentals_at_peak, pool.offer.machine.instance_gpus
    note = f"; {note}" if note else ""
    return f" on {n} rented {size}-GPU instance{'s' if n != 1 else ''} ({pool.copies_per_rental} each{note})"


def describe_aggregated(s: ServingOption) -> str:
    """The aggregated fleet at the peak: replicas of the layout, or the instances holding several copies each."""
    o = s.option
    layout = _layout(o.tensor_parallel, o.pipeline_parallel, o.attention_parallel == "dp")
    spare = fleet_spare_words(s)  # a whole instance the peak leaves partly spare, in /plan's words
    idle = f"; {spare}" if spare else ""
    if o.copies_per_instance > 1:
        return (
            f"{s.instances_at_peak} × {o.rented_gpus}×{o.gpu_id} ({o.copies_per_instance} copies of {layout} each, "
            f"{s.replicas_at_peak} in all, {o.provider_name}{idle})"
        )
    return f"{s.replicas_at_peak} × {o.gpu_count}×{o.gpu_id} ({layout}, {o.provider_name}{idle})"


def aggregated_load(s: ServingOption) -> float:
    """Requests an aggregated replica runs on average: its batch, or where the limits hold only below one request in
    flight (the ranking's requests_in_flight), that mean under 1."""
    o = s.option
    return o.requests_in_flight if o.requests_in_flight is not None else float(o.batch or 0)


def aggregated_load_words(s: ServingOption) -> str:
    """The aggregated replica's load in words: "batch 36", or the mean in flight where it is below one."""
    o = s.option
    if o.requests_in_flight is None:
        return f"batch {o.batch}"
    in_flight = in_flight_text(o.requests_in_flight)
    return f"{in_flight} requests in flight on average (below one: one always in flight misses the limits)"


def prefill_tokens_per_step(s: ServingOption, workload: InferenceWorkload) -> float:
    """Prompt tokens an aggregated step carries on average: batch × input / output (mixed_step_parts' share), the
    batch the mean in flight where that is below one."""
    return aggregated_load(s) * workload.input_len / workload.output_len


def no_offer_words(c: Comparison) -> str | None:
    """Why no layout had an offer to try, where the filters (or spot's rule) left none: then the limits are not to
    blame (None where offers were tried)."""
    if c.offers_through_filters == 0:
        return "no offer passes the filters (providers, GPUs, vendors, price terms, stale prices)"
    if c.offers_standing_alone == 0:
        offers = f"{c.offers_through_filters} offer{'s' if c.offers_through_filters != 1 else ''}"
        return (
            f"the {offers} through the filters are all spot (interruptible), never the whole deployment unless "
            "spot_only is set (on the page: Spot may be the only capacity)"
        )
    return None


def aggregated_line(c: Comparison, workload: InferenceWorkload) -> list[str]:
    s = c.aggregated
    if s is None:
        words = no_offer_words(c)
        if words is not None:
            return [f"Aggregated: {words}."]
        return ["Aggregated: no offer meets both limits with prefill in its decode steps."]
    o = s.option
    assert o.tpot_ms is not None and o.ttft_ms is not None  # a ranked option's measures
    lines = [
        f"Aggregated: {describe_aggregated(s)} at the peak hour, {aggregated_load_words(s)}; every step also prefills "
        f"batch × input / output = {fixed(prefill_tokens_per_step(s, workload), 0)} prompt tokens; TPOT "
        f"{fixed(o.tpot_ms, 1)} ms, TTFT {fixed(o.ttft_ms, 0)} ms; ${fixed(s.cost.monthly_usd_autoscaled, 0)} a month, "
        f"${fixed(c.aggregated_usd_per_million_output_tokens_at_traffic or 0, 2)} per million output tokens "
        f"{AT_TRAFFIC}."
    ]
    alone = c.aggregated_decode_only
    if alone is not None:
        load = aggregated_load(s)
        lost = 1 - load / alone.batch if alone.batch > load else 0.0
        against = f"{o.batch}" if o.requests_in_flight is None else f"{in_flight_text(load)} in flight on average"
        lines.append(
            f"Prefill interference: the same {o.gpu_count}×{o.gpu_id} decoding alone would hold batch {alone.batch} at "
            f"{fixed(alone.step_ms, 1)} ms a step (target {fixed(alone.tpot_target_ms)} ms) against {against} with "
            f"prompts in its steps ({percent(lost)} of the batch lost)."
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
        f"{load.prompts} prompt{'s' if load.prompts != 1 else ''} per {fixed(load.pass_ms, 0)} ms "
        f"pass{_through_text(load)}; mean TTFT at the peak = first token {fixed(load.first_token_ms, 0)} ms + queue "
        f"{fixed(queue_ms, 0)} ms (M/D/1, {percent(rho_at_peak)} busy) + KV transfer {fixed(x.transfer_ms, 1)} ms "
        f"({fixed(kv_gb, 2)} GB over {kv_path(x)} at {fixed(x.transfer_gbs, 0)} GB/s) = {fixed(plan.ttft_ms, 0)} ms "
        f"(an instance may run {percent(load.utilisation)} busy before its queue breaks the "
        f"{significant(workload.ttft_ms)} ms p99 limit, a mean of "
        f"{fixed(mean_ttft_budget_ms(workload, DEFAULT_EFFICIENCY), 0)} "
        f"ms{SLOW_END_WORDS if at_band_high(workload) else ''}); ${fixed(p.monthly_usd, 0)} a month, "
        f"{usd_shown(p.usd_per_million_tokens_at_traffic, 3)} per "  # as the pool's row shows it
        f"million prompt tokens {AT_TRAFFIC}.",
        f"Decode pool: {d.replicas_at_peak} × {describe_pool(d)}{rentals_text(d)}, batch {decoder.batch} "
        f"(of {decoder.max_batch} that fit) at "
        f"{fixed(decoder.step_ms, 1)} ms a step with no prefill in it (target {fixed(decoder.tpot_target_ms)} ms), "
        f"{fixed(decoder.capacity_rps, 2)} requests/s each; ${fixed(d.monthly_usd, 0)} a month, "
        f"${fixed(d.usd_per_million_tokens_at_traffic, 2)} per million output tokens {AT_TRAFFIC}.",
    ]


def no_plan_line(c: Comparison, workload: InferenceWorkload) -> str:
    """Why no disaggregated plan meets the limits: the first of its conditions that nothing passes."""
    if (words := no_offer_words(c)) is not None:
        return f"Disaggregated: {words}."
    found, budget = c.pools, mean_ttft_budget_ms(workload, DEFAULT_EFFICIENCY)
    if found is None or not found.prefill_instances or found.fastest_prefill_ms is None:
        return "Disaggregated: no offer allowed holds a prompt's KV cache in a prefill instance."
    if not found.decode_instances:
        divided = " ÷ its TPOT band's high ratio" if at_band_high(workload) else ""
        return (
            "Disaggregated: no offer allowed decodes even one sequence within the TPOT target "
            f"({percent(DEFAULT_EFFICIENCY.slo_tpot_utilisation)} of the {significant(workload.tpot_ms)} ms p99 "
            f"limit{divided})."
        )
    fastest = (
        f"Disaggregated: the fastest prefill instance ({found.fastest_prefill}) takes "
        f"{fixed(found.fastest_prefill_ms, 0)} ms to prefill one {workload.input_len:,}-token prompt"
    )
    limit = f"the mean TTFT budget of {fixed(budget, 0)} ms (the {significant(workload.ttft_ms)} ms p99 limit ÷ "
    limit += f"{significant(DEFAULT_EFFICIENCY.p99_ttft_over_mean)})"
    scale, slow_end = own_prefill_scale(workload, DEFAULT_EFFICIENCY), found.fastest_prefill_ttft_multiple
    own_ms = found.fastest_prefill_ms * scale * slow_end
    if scale != 1.0 or slow_end != 1.0:
        why = [f"{significant(scale, 3)}: the prompt spread given ÷ the fitted ratio"] if scale != 1.0 else []
        why += [f"{fixed(slow_end, 2)}: its TTFT band's high ratio"] if slow_end != 1.0 else []
        fastest += f", {fixed(own_ms, 0)} ms against the budget (× {'; × '.join(why)})"
    if own_ms > budget:
        return f"{fastest}, over {limit} before any queue or KV transfer."
    left = budget - own_ms
    return (
        f"{fastest}, leaving {fixed(left, 0)} ms of {limit} for its queue and for moving its KV cache to a decode "
        f"instance (over one provider's fabric, or inside {IN_ONE_UNIT}): no prefill and decode pair fits in that."
    )


def _through_text(load: PrefillLoad) -> str:
    if load.first_token_ms <= load.pass_ms:
        return ""
    return f" ({fixed(load.first_token_ms, 0)} ms to its last first token through the pipeline stages)"
