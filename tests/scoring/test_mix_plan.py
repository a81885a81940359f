"""The mix plan on a small synthetic catalog: candidates, capacities, and the mix against one type alone."""

from __future__ import annotations

from datetime import date

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.serving.mix.plan import plan_mix
from app.scoring.serving.mix.question import MixQuestion
from app.scoring.specs import CatalogSnapshot, Offer

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _offer(gpu_id: str, price: float, provider: str = "p", offer_id: int = 0) -> Offer:
    return Offer(provider, provider.upper(), gpu_id, 1, "on_demand", price, date(2026, 11, 1), offer_id=offer_id)


CATALOG = CatalogSnapshot(
    gpus=GPUS,
    offers=(
        _offer("RTX-4090", 0.29, offer_id=1),
        _offer("H100-SXM", 2.0, offer_id=2),
        _offer("H100-SXM", 2.5, provider="q", offer_id=3),  # dearer twin: never a candidate
    ),
)
QUESTION = MixQuestion(model="llama-3.1-8b", requests_per_day=900_000, mix="chat:0.9,rag:0.1")
BUSY_HOUR = 3.0  # the busiest hour carries 3x the daily mean (mix/question.py)


@pytest.fixture(scope="module")
def plan():  # type: ignore[no-untyped-def]
    """Chat-heavy traffic sized on the H100's own RAG capacity: RAG needs 0.85 of one H100 and chat would spill onto
    a second, so the mix serves chat on 4090s instead. Replicas are whole; sizing on the estimate keeps the test on
    the same side of that boundary whatever the fitted constants are."""
    probe = plan_mix(QUESTION, CATALOG, MODELS["llama-3.1-8b"])
    h100 = next(t for t in probe.replica_types if t.gpu_id == "H100-SXM")
    rag_per_s = 0.85 * h100.fits[1].requests_per_s
    question = QUESTION.model_copy(update={"requests_per_day": rag_per_s / 0.1 / BUSY_HOUR * 86_400})
    return plan_mix(question, CATALOG, MODELS["llama-3.1-8b"])


def test_candidates_are_the_cheapest_offer_of_each_gpu_type_per_bucket(plan) -> None:  # type: ignore[no-untyped-def]
    assert {(t.gpu_id, t.provider) for t in plan.replica_types} == {("RTX-4090", "p"), ("H100-SXM", "p")}
    h100 = next(t for t in plan.replica_types if t.gpu_id == "H100-SXM")
    assert h100.usd_per_replica_month == pytest.approx(2.0 * 730)
    assert set(h100.cheapest_for) == {"chat", "rag"}
    chat, rag = h100.fits
    assert chat.requests_per_s > rag.requests_per_s > 0  # long prompts cost a replica more per request
    life_ms = chat.ttft_ms + 214 * chat.tpot_ms  # Little's law: in flight over a request's life, not tok/s / 215
    assert chat.requests_per_s == pytest.approx(chat.batch / life_ms * 1e3)
    assert chat.requests_per_s < chat.output_tokens_per_s / 215
    assert chat.ttft_ms <= QUESTION.ttft_ms and chat.tpot_ms <= QUESTION.tpot_ms


def test_the_mix_puts_chat_on_the_small_card_and_costs_less_than_either_alone(plan) -> None:  # type: ignore[no-untyped-def]
    assert plan.mix is not None and set(plan.mix.gpu_types) == {"RTX-4090", "H100-SXM"}
    small = next(r for r in plan.mix.rows if r.replica.gpu_id == "RTX-4090")
    assert small.shares[1] == 0.0 and small.shares[0] > 0  # the 24 GB card serves chat, not 7.6k-token prompts
    assert [s.label for s in plan.singles] == ["H100-SXM only"]  # the 4090 alone cannot serve RAG
    assert plan.mix.usd_per_month < plan.singles[0].usd_per_month
    assert plan.saving_usd_per_month == pytest.approx(plan.singles[0].usd_per_month - plan.mix.usd_per_month)
    for row in plan.mix.rows:
        assert row.replicas >= row.load_replicas - 1e-6
        assert row.usd_per_month == pytest.approx(row.replicas * row.replica.usd_per_replica_month)
    total = {t.name: t.value for t in plan.terms}
    assert total["saving"] == pytest.approx(plan.saving_usd_per_month)
    assert total["busiest-hour request rate"] == pytest.approx(plan.requests_per_day / 86_400 * BUSY_HOUR)


def test_a_mix_no_cheaper_than_one_type_is_shown_as_that_type() -> None:
    catalog = CatalogSnapshot(gpus=GPUS, offers=(_offer("H100-SXM", 2.0, offer_id=2),))
    plan = plan_mix(QUESTION, catalog, MODELS["llama-3.1-8b"])
    assert plan.mix is not None and plan.mix.rows == plan.singles[0].rows and plan.saving_usd_per_month == 0
    assert any("one GPU type (H100-SXM)" in n for n in plan.notes)


def test_a_bucket_no_offer_serves_leaves_no_mix_and_says_which() -> None:
    catalog = CatalogSnapshot(gpus=GPUS, offers=(_offer("RTX-4090", 0.29, offer_id=1),))
    plan = plan_mix(QUESTION, catalog, MODELS["llama-3.1-8b"])
    assert plan.mix is None and plan.singles == [] and plan.saving_usd_per_month is None
    assert any(n.startswith("No offer serves rag") for n in plan.notes)
