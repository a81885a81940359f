"""Serving options: each ranked inference option priced for a traffic, how it is named, and which may stand alone.

An option's rented units (an instance holding several copies of the layout, or one copy on whole instances) scale
hour by hour with the traffic (traffic/week.py). A plan (plan.py) lists them cheapest first and stands its
break-even and train-then-serve totals on the dependable ones: feasible, serving tokens, not spot unless the
traffic allows spot alone, and within the latency limits where any is. Pure: no web or database imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.scoring.inference.ranking.options import InferenceOption
from app.scoring.pricing.price_terms import COMMITTED, terms_text
from app.scoring.serving.spare_gpus import peak_spread_words, spare_gpus_words
from app.scoring.serving.traffic.week import ServingCost, Traffic, replicas_needed, serving_cost


@dataclass(frozen=True, slots=True)
class ServingOption:
    """A ranked option priced for a traffic. The cost scales rented units (an instance holding several copies of
    the layout, or one copy on whole instances); the fleet at the peak is said in replicas and in instances."""

    option: InferenceOption
    cost: ServingCost
    replicas_at_peak: int  # copies of the layout the peak hour needs

    @property
    def instances_at_peak(self) -> int:
        """Rented instances at the peak hour: one per unit holding copies, else each replica's whole instances."""
        o = self.option
        if o.copies_per_instance > 1:
            return self.cost.units_at_peak
        return self.cost.units_at_peak * (o.rented_gpus // max(o.instance_gpus, 1))

    @property
    def units_at_peak(self) -> int:
        """What the autoscaler adds or removes at the peak: instances where copies share one, else replicas."""
        return self.cost.units_at_peak

    @property
    def idle_gpus_at_peak(self) -> int:
        """GPUs the peak hour's rented units bill beyond the copies the peak needs (replicas_at_peak, each timed at
        the ranking's load): a low traffic's one copy on a whole 8-GPU instance leaves 7 spare, billed (units ×
        rented_gpus GPUs) whether or not a copy is loaded on them."""
        o = self.option
        return max(0, self.units_at_peak * o.rented_gpus - self.replicas_at_peak * o.gpu_count)


def fleet_spare_words(s: ServingOption) -> str:
    """The peak fleet's copies and spare GPUs: 'one copy serves the peak; 7 more GPUs of its rented 8-GPU instance
    are billed, spare at peak', or where the spare GPUs would run copies 'one copy serves the peak; run 8 copies on
    the 8 billed GPUs and the peak's p99 TTFT falls to 62 ms, TPOT to 9.1 ms' ('' where every billed GPU runs a copy
    the peak needs)."""
    o, spread = s.option, peak_spread_at(s)
    if spread is not None and s.idle_gpus_at_peak:
        billed = s.instances_at_peak * o.instance_gpus
        return peak_spread_words(s.replicas_at_peak, spread[0], o.gpu_count, billed, spread[1:])
    return spare_gpus_words(s.idle_gpus_at_peak, s.instances_at_peak, o.instance_gpus, s.replicas_at_peak)


def peak_spread_at(s: ServingOption) -> tuple[int, float, float] | None:
    """The ranked row's peak spread over every copy its billed instances hold (copies, p99 TTFT and TPOT ms), where
    this fleet rents the same instances and needs fewer copies than they hold (found by spread2); else None."""
    o = s.option
    copies, ttft, tpot = o.copies_at_peak_if_spread, o.spread_ttft_p99_ms, o.spread_tpot_p99_ms
    if copies is None or ttft is None or tpot is None:
        return None
    if s.instances_at_peak != o.instances or copies <= s.replicas_at_peak:
        return None
    return copies, ttft, tpot


def request_seconds(ttft_ms: float | None, tpot_ms: float | None, output_len: int) -> float:
    """One request's time on a replica: its first token, then a step per further token (mean latencies)."""
    return ((ttft_ms or 0.0) + max(0, output_len - 1) * (tpot_ms or 0.0)) / 1000


def sustained_tokens_per_s(requests_per_s: float, output_len: int) -> float:
    """Output tokens/s a replica serves to traffic: the requests/s it sustains (Little's law, the option's
    requests_per_s) x tokens a request; its batch / step tokens/s would size the fleet too small."""
    return requests_per_s * output_len


def priced_option(o: InferenceOption, rates: Sequence[float], traffic: Traffic, output_len: int) -> ServingOption:
    """One option priced for the traffic's hourly `rates`: its rented units (serving every copy they hold) scale
    hour by hour."""
    cost = serving_cost(
        rates,
        output_len,
        sustained_tokens_per_s(o.rented_requests_per_s, output_len),
        o.rented_gpus,
        o.usd_per_gpu_hour,
        traffic.min_replicas,
        traffic.cold_start_s,
        committed=committed(o),
        request_s=request_seconds(o.ttft_ms, o.tpot_ms, output_len),
        idle_timeout_s=traffic.idle_timeout(),
    )
    replicas = replicas_needed(
        max(rates, default=0.0), output_len, sustained_tokens_per_s(o.requests_per_s or 0.0, output_len)
    )
    return ServingOption(o, cost, replicas if o.copies_per_instance > 1 else cost.units_at_peak)


def option_label(o: InferenceOption) -> str:
    """`1×B200 at GMI Cloud (on demand; provider's article, not its price list)`: the caveats go where it goes."""
    return (
        f"{rented_text(o)} at {o.provider_name} ({terms_text(o.price_type, o.price_caveats, o.interruptible, o.stale)})"
    )


def fleet_label(s: ServingOption) -> str:
    """The option's label with its peak fleet's spare GPUs where the peak needs fewer copies than its instances hold:
    `8×B200 (8 copies of 1 GPU; one copy serves the peak; 7 more GPUs of its rented 8-GPU instance are billed, spare
    at peak) at CoreWeave (on demand)`."""
    o, idle = s.option, fleet_spare_words(s)
    if not idle:
        return option_label(o)
    rented = rented_text(o)
    rented = f"{rented[:-1]}; {idle})" if rented.endswith(")") else f"{rented} ({idle})"
    return f"{rented} at {o.provider_name} ({terms_text(o.price_type, o.price_caveats, o.interruptible, o.stale)})"


def rented_text(o: InferenceOption) -> str:
    """What one rented unit is: `2×H100-SXM`, or `8×B200 (4 copies of TP2)` where an instance holds several."""
    if o.copies_per_instance <= 1:
        return f"{o.gpu_count}×{o.gpu_id}"
    return f"{o.rented_gpus}×{o.gpu_id} ({o.copies_per_instance} copies of {layout_text(o)})"


def layout_text(o: InferenceOption) -> str:
    if o.pipeline_parallel > 1:
        return f"TP{o.tensor_parallel}×PP{o.pipeline_parallel}"
    return f"TP{o.tensor_parallel}" if o.tensor_parallel > 1 else "1 GPU"


def committed(o: InferenceOption) -> bool:
    return o.price_type in COMMITTED


def may_stand_alone(o: InferenceOption, traffic: Traffic) -> bool:
    """Spot capacity is the whole deployment only when the traffic says so (spot_only)."""
    return traffic.spot_only or not o.interruptible


def price_options(options: Sequence[InferenceOption], traffic: Traffic, output_len: int) -> list[ServingOption]:
    """Feasible options priced for the traffic, cheapest autoscaled first; options over the latency limits at a
    live-traffic load after those that meet them, and spot options that may not stand alone after every other."""
    rates = traffic.hourly_requests_per_s()
    serving = [o for o in options if o.feasible and (o.output_tokens_per_s or 0.0) > 0]
    priced = [priced_option(o, rates, traffic, output_len) for o in serving]
    return sorted(
        priced,
        key=lambda s: (
            not may_stand_alone(s.option, traffic),
            bool(s.option.over_limits),
            s.cost.monthly_usd_autoscaled,
            s.option.provider,
            s.option.gpu_id,
        ),
    )


def dependable(options: Sequence[InferenceOption], traffic: Traffic) -> list[InferenceOption]:
    """The options a plan may stand on (its break-even, the train-then-serve totals): feasible, serving tokens,
    not spot unless the traffic allows spot alone; and of those the ones within the latency limits where any is."""
    standing = [o for o in options if o.feasible and (o.output_tokens_per_s or 0.0) > 0 and may_stand_alone(o, traffic)]
    within = [o for o in standing if not o.over_limits]
    return within or standing
