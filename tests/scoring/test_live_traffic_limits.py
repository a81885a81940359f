"""Live traffic at a fixed load (a client count, a request rate, one stream): a configuration over the latency
limits is labelled and ranked after every one that meets them; a fixed batch or max throughput only says so."""

from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import default_machine
from app.scoring.inference.estimates.configurations import estimate_on
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
MODEL = MODELS["llama-3.1-8b"]
# 64 clients on an 8B at a 25 ms p99 TPOT: one RTX 4090 is the cheapest per token and misses both limits; one H100
# misses the TPOT limit, two (TP2) meet it; an H200 meets it alone.
CLIENTS = InferenceWorkload(model="llama-3.1-8b", scenario="concurrency", concurrency=64, tpot_ms=25)


def _offer(gpu_id: str, price: float, provider: str = "p", count: int = 8) -> Offer:
    return Offer(provider, provider.upper(), gpu_id, count, "on_demand", price, date(2026, 11, 1))


OFFERS = (_offer("RTX-4090", 0.29, "cheap", count=1), _offer("H100-SXM", 2.0), _offer("H200", 3.5, "q"))


def _ranking(workload: InferenceWorkload, offers: tuple[Offer, ...] = OFFERS):
    return rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), MODEL)


def test_a_cheaper_row_over_the_limits_ranks_after_every_row_that_meets_them():
    ranking = _ranking(CLIENTS)
    feasible = list(ranking.options[: ranking.feasible_count])
    over = [o for o in feasible if o.over_limits]
    within = [o for o in feasible if not o.over_limits]
    assert [o.gpu_id for o in over] == ["RTX-4090"] and {o.gpu_id for o in within} == {"H100-SXM", "H200"}
    assert feasible == within + over  # the tier first, then cost
    assert over[0].usd_per_million_output_tokens < min(o.usd_per_million_output_tokens for o in within)
    assert "TTFT p99" in over[0].over_limits and "TPOT p99" in over[0].over_limits
    assert not over[0].close_call  # a row over the limits is no rival to a winner that meets them
    assert [o.gpu_id for o in ranking.leaders()][-1] == "RTX-4090"
    assert any("ranked after every configuration that meets them" in a for a in over[0].assumptions)


def test_a_machine_serves_with_the_layout_that_meets_the_limits_though_another_has_more_tokens_per_gpu():
    machine = default_machine(GPUS["H100-SXM"])
    one = estimate_on(GPUS["H100-SXM"], machine, 1, 1, 1, MODEL, CLIENTS)
    two = estimate_on(GPUS["H100-SXM"], machine, 2, 2, 1, MODEL, CLIENTS)
    assert one.over_limits.startswith("TPOT p99") and not two.over_limits
    assert one.output_tokens_per_s_per_gpu > two.output_tokens_per_s_per_gpu
    h100 = next(o for o in _ranking(CLIENTS).options if o.gpu_id == "H100-SXM")
    # never one TP1 copy over the limits; its rented 8-GPU instance, billed whole at a fixed load, spreads the clients
    # over the copies it holds (spread_load.py): 4 TP2 copies of 16 clients each serve more tokens per billed GPU
    # than one TP8 copy of 64 or 8 TP1 copies of 8 (configurations.billed_gpus), and leave no GPU idle
    assert (h100.instance_gpus, h100.gpu_count, h100.tensor_parallel, h100.over_limits) == (8, 2, 2, "")
    assert (h100.copies_sharing_load, h100.replicas, h100.idle_gpus) == (4, 4, 0)
    assert h100.spread_note.startswith("4 copies share this load (16 clients each), one on each 2 GPUs")


def test_when_no_row_meets_the_limits_the_cheapest_leads_labelled_and_close_calls_still_count():
    ranking = _ranking(CLIENTS.model_copy(update={"tpot_ms": 5}))
    feasible = list(ranking.options[: ranking.feasible_count])
    assert feasible and all(o.over_limits for o in feasible)
    costs = [o.usd_per_million_output_tokens for o in feasible]
    assert costs == sorted(costs)
    winner = feasible[0]
    for option in feasible[1:]:
        assert option.close_call == (option.band.overlaps(winner.band) and option.gpu_id != winner.gpu_id)


@pytest.mark.parametrize("update", [{"scenario": "fixed_batch", "batch": 12}, {"scenario": "max_throughput"}])
def test_a_fixed_batch_or_max_throughput_orders_by_cost_alone_and_says_where_it_misses(update: dict):
    ranking = _ranking(CLIENTS.model_copy(update=update))
    feasible = list(ranking.options[: ranking.feasible_count])
    assert feasible and not any(o.over_limits for o in feasible)
    costs = [o.usd_per_million_output_tokens for o in feasible]
    assert costs == sorted(costs)
    assert any("reported, not applied" in a for o in feasible for a in o.assumptions)


def test_latency_bound_is_never_over_the_limits():
    ranking = _ranking(CLIENTS.model_copy(update={"scenario": "latency_bound"}))
    assert ranking.feasible_count and not any(o.over_limits for o in ranking.options)


def test_a_request_rate_and_one_stream_are_live_traffic_too():
    rate = _ranking(CLIENTS.model_copy(update={"scenario": "request_rate", "requests_per_s": 0.5, "ttft_ms": 300}))
    one = _ranking(CLIENTS.model_copy(update={"scenario": "single_stream", "tpot_ms": 8}))
    for ranking in (rate, one):
        feasible = list(ranking.options[: ranking.feasible_count])
        tiers = [bool(o.over_limits) for o in feasible]
        assert True in tiers and tiers == sorted(tiers)


def test_at_a_request_rate_equal_throughput_goes_to_the_layout_with_the_lowest_latency():
    """Every 8-GPU layout that keeps up with 2 requests/s serves the same tokens/s; the one chosen is the fastest
    (TP8), not the first enumerated (TP1 x PP8, 90 ms p99 TPOT) nor the first to meet the limits (TP4 x PP2)."""
    from app.scoring.inference.estimates.configurations import best_on_machine

    gpu, r1 = GPUS["B200"], MODELS["deepseek-r1"]
    w = InferenceWorkload(model="deepseek-r1", scenario="request_rate", requests_per_s=2, weight_dtype="fp8")
    machine = default_machine(gpu)
    layouts = [estimate_on(gpu, machine, 8, tp, 8 // tp, r1, w) for tp in (1, 2, 4, 8)]
    assert len({round(e.output_tokens_per_s, 6) for e in layouts}) == 1
    best = best_on_machine(gpu, machine, r1, w)
    assert (best.tensor_parallel, best.pipeline_parallel) == (8, 1)
    assert best.tpot_p99_ms == min(e.tpot_p99_ms for e in layouts)
