"""A batch job's billed hours are worked out once per (price type, stated term, billing_terms_key) and configuration:
every offer sharing the key must bill the very float billed_job_hours gives it, and offers that bill apart never
share a key (found by speed8)."""

import itertools
from dataclasses import replace
from datetime import date

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import Machine, nodes_for
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.ranking import offer_order
from app.scoring.inference.ranking.pricing import ConfigurationPricing
from app.scoring.pricing.billed_terms import billing_terms_key
from app.scoring.pricing.price_terms import billed_job_hours
from app.scoring.specs import Offer
from app.scoring.workload import InferenceWorkload

PROVIDERS = ("aws", "AWS", "gcp", "vultr", "scaleway", "runpod", "neo", "aws-x3")
PRICE_TYPES = ("on_demand", "spot", "reserved", "capacity_block", "marketplace")
STATED_TERMS = (None, 24.0, 730.0)
HOURS = (0.02, 0.7, 3.3, 29.0, 800.0)


def test_offers_with_one_key_bill_one_float_and_offers_billing_apart_have_two_keys() -> None:
    for hours, life_hours, nodes in itertools.product(HOURS, (0.0, 0.01), (1, 2)):
        billed: dict[tuple[object, ...], float] = {}
        for provider, price_type, term in itertools.product(PROVIDERS, PRICE_TYPES, STATED_TERMS):
            key = (price_type, term, billing_terms_key(price_type, provider))
            hours_billed = billed_job_hours(hours, price_type, term, provider, (nodes, life_hours))
            assert billed.setdefault(key, hours_billed) == hours_billed, (provider, price_type, term)
    assert billing_terms_key("capacity_block", "aws") != billing_terms_key("capacity_block", "gcp")  # AWS bills days
    assert billing_terms_key("on_demand", "vultr") != billing_terms_key("on_demand", "runpod")  # Vultr bills hours
    assert billing_terms_key("spot", "aws") != billing_terms_key("spot", "neo")  # a hyperscaler's interruption rate


def _offer(provider: str, price_type: str, term: float | None) -> Offer:
    return Offer(provider, provider, "H100-SXM", 8, price_type, 2.0, date(2026, 1, 1), min_term_hours=term)


def test_a_configuration_bills_each_offer_as_billed_job_hours_does_whichever_offer_came_first() -> None:
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=200_000)
    est = estimate_inference(load_gpu_specs()["H100-SXM"], 1, load_model_specs()["llama-3.1-8b"], workload)
    pricing = ConfigurationPricing.of(est, Machine(gpus_per_node=8, link="nvlink"), workload)
    offers = [_offer(p, t, s) for p, t, s in itertools.product(PROVIDERS, PRICE_TYPES, STATED_TERMS)]
    spot = (nodes_for(pricing.machine, pricing.est.gpu_count), pricing.request_life_hours)
    assert pricing.job_hours
    for offer in offers + offers[::-1]:  # the second pass reads every key from the memo
        expected = billed_job_hours(pricing.job_hours, offer.price_type, offer.min_term_hours, offer.provider_id, spot)
        assert pricing.job_billed_hours(offer) == expected
        assert pricing.billed_price(offer) == offer.usd_per_gpu_hour * expected / pricing.job_hours
    assert len(pricing.billed_by_terms) < len(offers)  # providers of one billing share a key


def test_a_slots_billed_run_orders_its_offers_by_each_offers_own_billed_price() -> None:
    # billed_run reads a job's billed hours once per billing terms of the slot, from the first offer with them: the
    # order is the one each offer's own billed_price gives (then provider id, offer order), whichever offer came first
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=200_009)
    est = estimate_inference(load_gpu_specs()["H100-SXM"], 1, load_model_specs()["llama-3.1-8b"], workload)
    combos = list(itertools.product(PROVIDERS, PRICE_TYPES, STATED_TERMS))
    for order in (combos, combos[::-1]):
        offers = [replace(_offer(p, t, s), usd_per_gpu_hour=1.5 + (n % 7) / 4) for n, (p, t, s) in enumerate(order)]
        by_price = sorted(range(len(offers)), key=lambda i: (offers[i].usd_per_gpu_hour, offers[i].provider_id, i))
        billing, first = offer_order._billing_numbers(offers)
        runs = offer_order.SlotRuns([by_price], [list(range(len(offers)))], [], [], billing, first, [])
        pricing = ConfigurationPricing.of(est, Machine(gpus_per_node=8, link="nvlink"), workload)
        own = sorted(by_price, key=lambda i: (pricing.billed_price(offers[i]), offers[i].provider_id, i))
        fresh = ConfigurationPricing.of(est, Machine(gpus_per_node=8, link="nvlink"), workload)
        assert offer_order.billed_run(offers, runs, 0, fresh) == own != by_price
        assert len(set(billing)) < len(offers)  # offers share billing terms
