"""Refused offers come in offer order, the first of each (GPU, provider, price type, reason): infeasible_order keys
them in one pass and keeps each key's first offer through a dict; this checks it against the walk it replaced, on a
catalog with every offer three times over and on a model most machines refuse (found by speed8)."""

import pytest

from app.scoring.explain import WrittenOnce
from app.scoring.inference.ranking.offer_order import infeasible_order, slot_runs
from app.scoring.inference.ranking.pricing import ConfigurationPricing
from app.scoring.inference.ranking.rank import cached_configuration
from app.scoring.pricing.offers import offer_slots, snapshot_offers
from app.scoring.records import replaced
from app.scoring.workload import InferenceWorkload
from benchmarks.bench_data import bench_snapshot


def _walk(offers, slot_of, by_slot, runs):  # type: ignore[no-untyped-def]
    """The order as a walk over the refused slots' offers in offer order, with a set of the keys seen."""
    unfit = [s for s, p in enumerate(by_slot) if not p.est.feasible]
    seen, kept = set(), []
    for index in sorted(i for s in unfit for i in runs.in_order[s]):
        offer = offers[index]
        same = (offer.gpu_id, offer.provider_id, offer.price_type, by_slot[slot_of[index]].est.reason)
        if same not in seen:
            seen.add(same)
            kept.append(index)
    return kept


@pytest.mark.parametrize(
    "fields",
    [
        {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang"},
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "ttft_ms": 300, "tpot_ms": 15},
    ],
)
def test_refused_offers_are_the_first_of_each_key_in_offer_order(fields):
    snapshot = bench_snapshot(3)
    workload = InferenceWorkload.model_validate(fields)
    model = snapshot.models[workload.model]
    offers = snapshot_offers(snapshot, workload)
    slot_of, slots = offer_slots(snapshot, workload)
    key = workload.model_dump_json()
    by_slot = [
        ConfigurationPricing.of(
            cached_configuration(snapshot.gpus[gpu], machine, model, workload, key, {}, {}), machine, workload
        )
        for gpu, machine in slots
    ]
    runs = slot_runs(snapshot, workload)
    expected = _walk(offers, slot_of, by_slot, runs)
    assert len(expected) > 100 and len({by_slot[slot_of[i]].est.reason for i in expected}) > 3
    refused = sum(len(runs.in_order[s]) for s, p in enumerate(by_slot) if not p.est.feasible)
    assert refused > len(expected)  # some offers repeat a key kept before them
    assert infeasible_order(offers, slot_of, by_slot, runs) == expected


def _reading(est, slot, read):  # type: ignore[no-untyped-def]
    """`est` with its reason written when read, noting `slot` in `read` then."""

    def write() -> str:
        read.add(slot)
        return est.reason

    return replaced(est, reason_words=WrittenOnce(write))


def test_reasons_read_only_where_refused_slots_share_terms():
    """A refused slot's reason is read only where another refused slot has offers of one of its (GPU, provider, price
    type): elsewhere it tells no rows apart, and an answer that shows no refused row never writes it (a latency-limit
    refusal's words time a search). The order is the walk's either way (found by speed28)."""
    snapshot = bench_snapshot(1)
    workload = InferenceWorkload.model_validate({"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 2000})
    model = snapshot.models[workload.model]
    offers = snapshot_offers(snapshot, workload)
    slot_of, slots = offer_slots(snapshot, workload)
    key = workload.model_dump_json()
    read: set[int] = set()
    by_slot = []
    for slot, (gpu, machine) in enumerate(slots):
        est = cached_configuration(snapshot.gpus[gpu], machine, model, workload, key, {}, {})
        by_slot.append(ConfigurationPricing.of(_reading(est, slot, read), machine, workload))
    runs = slot_runs(snapshot, workload)
    terms_of = [{terms for terms, _ in pairs} for pairs in runs.first_by_terms]
    for slot, others in enumerate(runs.terms_shared_with):
        assert others == {o for o in range(len(slots)) if o != slot and terms_of[o] & terms_of[slot]}
    refused = {s for s, p in enumerate(by_slot) if not p.est.feasible}
    sharing = {s for s in refused if refused & runs.terms_shared_with[s]}
    order = infeasible_order(offers, slot_of, by_slot, runs)
    assert read == sharing and sharing and refused - sharing
    assert order == _walk(offers, slot_of, by_slot, runs)
