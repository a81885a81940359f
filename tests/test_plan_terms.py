"""Serving plans respect price terms (spot never alone, commitments never autoscaled) and train-then-serve
plans offer serverless only where it can serve the trained model."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date

from app.catalog.spec_files import load_model_specs
from app.scoring.pricing.price_terms import COMMITTED, HOURS_PER_MONTH, min_term_hours
from app.scoring.serving.plans.break_even import Replica, autoscaled_monthly_usd, pareto_replicas
from app.scoring.serving.plans.plan import trained_model_quotes
from app.scoring.serving.serverless.quotes import serverless_quotes
from app.scoring.serving.traffic.week import Traffic, week_profile
from app.scoring.specs import TokenPrice

MODELS = load_model_specs()

TRAFFIC = {"requests_per_day": 200000, "profile": "diurnal", "peak_factor": 3, "min_replicas": 1}
ALL_TERMS = ["on_demand", "spot", "reserved", "capacity_block", "marketplace"]


def serving(client, model: str = "llama-3.1-8b", **traffic) -> dict:
    body = {"workload": {"model": model, "price_types": ALL_TERMS}, "traffic": {**TRAFFIC, **traffic}}
    response = client.post("/api/v1/plan/serving", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_committed_offers_are_never_autoscaled_nor_below_their_committed_cost(client):
    options = [o for o in serving(client)["options"] if o["price_type"] in COMMITTED]
    assert options, "the seed has reserved / capacity-block offers that serve an 8B model"
    for o in options:
        committed_monthly = (
            o["replicas_at_peak"]
            * o["gpu_count"]
            * o["usd_per_gpu_hour"]
            * min(HOURS_PER_MONTH, min_term_hours(o["price_type"], o["min_term_hours"] or None))
        )
        assert o["committed"] and "never autoscaled" in o["billing_note"]
        assert o["monthly_usd_autoscaled"] == o["monthly_usd_always_on"] == o["monthly_usd_scale_to_zero"]
        assert o["monthly_usd_autoscaled"] >= committed_monthly - 1e-6


def test_spot_replicas_are_interruptible_and_never_the_only_capacity_unless_asked(client):
    plan = serving(client)
    kinds = [o["interruptible"] for o in plan["options"]]
    assert any(kinds) and not all(kinds)
    assert kinds == sorted(kinds), "spot options come after every option that can stand alone"
    assert any("Spot replicas" in note for note in plan["notes"])
    assert "interruptible" not in (plan["break_even"]["dedicated"] or "")
    asked = serving(client, spot_only=True)
    assert not any("Spot replicas" in note for note in asked["notes"])
    assert sorted(o["monthly_usd_autoscaled"] for o in asked["options"]) == [
        o["monthly_usd_autoscaled"] for o in asked["options"]
    ]


def lifecycle(client, method: str, model: str = "llama-3.1-8b") -> dict:
    body = {
        "training": {"model": model, "method": method, "total_tokens": 1e8},
        "inference": {"model": model},
        "traffic": TRAFFIC,
        "months": 6,
    }
    response = client.post("/api/v1/plan/lifecycle", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_pretrained_or_fully_fine_tuned_model_is_served_on_dedicated_gpus_only(client):
    for method, verb in (("pretrain", "pretrain"), ("full_ft", "fully fine-tune")):
        plan = lifecycle(client, method)
        assert plan["combinations"] and {c["serving_kind"] for c in plan["combinations"]} == {"dedicated"}
        assert plan["serving"]["serverless"] == [] and plan["serving"]["substitute_model"] is None
        assert any(f"A model you {verb}" in note for note in plan["notes"])


def test_lora_adapter_without_adapter_serving_api_is_planned_dedicated(client):
    plan = lifecycle(client, "lora")  # no provider lists lora_serving=yes for Llama 3.1 8B in the seed
    assert {c["serving_kind"] for c in plan["combinations"]} == {"dedicated"}
    assert any("LoRA adapters of llama-3.1-8b" in note for note in plan["notes"])


def _price(model_id: str, provider: str, lora: str) -> TokenPrice:
    return TokenPrice(
        provider_id=provider,
        provider_name=provider.title(),
        model_id=model_id,
        input_usd_per_mtok=0.1,
        output_usd_per_mtok=0.2,
        as_of=date(2026, 11, 1),
        lora_serving=lora,
        source_url="https://example.com/p",
    )


def test_lora_adapter_may_use_only_apis_that_serve_adapters_of_its_base():
    prices = (
        _price("llama-3.1-8b", "yes-api", "yes"),
        _price("llama-3.1-8b", "no-api", "no"),
        _price("llama-3.1-8b", "unknown-api", "unknown"),
    )
    quotes = serverless_quotes(MODELS["llama-3.1-8b"], prices, MODELS, 1000, 100, 100)
    usable, notes = trained_model_quotes("lora", "llama-3.1-8b", quotes)
    assert [q.provider for q in usable] == ["yes-api"] and notes == []
    usable, notes = trained_model_quotes("qlora", "llama-3.1-8b", [q for q in quotes if q.provider != "yes-api"])
    assert usable == [] and "planned on dedicated GPUs" in notes[0]


def test_lora_adapter_never_uses_a_substitute_models_api():
    substitute = serverless_quotes(MODELS["llama-2-7b"], (_price("llama-3.1-8b", "a", "yes"),), MODELS, 1000, 1, 1)
    assert substitute and substitute[0].substitute
    assert trained_model_quotes("lora", "llama-2-7b", substitute)[0] == []


def test_committed_replica_costs_the_peak_fleet_every_hour_in_the_break_even():
    mult = Counter(week_profile("diurnal", 3.0))
    flexible = Replica("f", 1, 2.0, 1000.0)
    reserved = Replica("r", 1, 2.0, 1000.0, committed=True)
    rpd = 500_000.0
    assert autoscaled_monthly_usd(reserved, rpd, mult, 300, 1) > autoscaled_monthly_usd(flexible, rpd, mult, 300, 1)
    peak = math.ceil(rpd / 86_400 * max(mult) * 300 / 1000)  # replicas at the busiest hour
    assert autoscaled_monthly_usd(reserved, rpd, mult, 300, 1) >= peak * 2.0 * HOURS_PER_MONTH - 1e-6
    # a committed replica does not push a cheaper-per-hour pay-as-you-go one off the front
    assert {r.label for r in pareto_replicas([Replica("r", 1, 1.0, 2000.0, committed=True), flexible])} == {"r", "f"}
    assert Traffic().spot_only is False


def test_plan_page_offers_price_terms_and_spot_only_and_keeps_them_in_the_link(client):
    page = client.get("/plan")
    assert 'name="price_types" value="spot"' in page.text and 'name="spot_only"' in page.text
    asked = client.get(
        "/plan", params={"model": "llama-3.1-8b", "price_types": "spot", "spot_only": "true"}, follow_redirects=False
    )
    assert asked.status_code == 303
    link = asked.headers["location"]
    assert "price_types=spot" in link and "spot_only=true" in link
    shown = client.get(link)
    assert shown.status_code == 200 and "interruptible" in shown.text
