"""Doubts the reference states about a per-token price that leave it comparable, labelled: another source's figures
(CONFLICT: compared at the higher of each), an endpoint to verify (availability unconfirmed), a source that does not
back the figure (weak source). Read by scripts/token_trust.py, stored by migration 0009, applied by
app/scoring/pricing/token_prices.py and app/scoring/serving/serverless (quotes, notes). The pages, the API and the CLI
are checked in tests/test_token_price_trust.py."""

from __future__ import annotations

import csv
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from app.catalog.setup import seed
from app.catalog.spec_files import load_model_specs
from app.models.llm import TokenPrice
from app.scoring import specs
from app.scoring.serving.plans.plan import serving_plan_from
from app.scoring.serving.serverless.quotes import cheapest_comparable, serverless_quotes
from app.scoring.serving.traffic.week import Traffic
from scripts import build_seed_prices as builder
from scripts.token_trust import readings_disagree, trust_flags
from tests.conftest import SEED_DIR
from tests.migration_checks import upgrade_then_seed
from tests.test_economics import _option

KNOWN = load_model_specs()
MODEL = KNOWN["llama-3.1-70b"]
LITELLM = "secondary (LiteLLM maintained table)"
NO_CACHE = "no cached-input price in source (empty = not published there, not zero)"


def _ref(notes: str, verification: str = "secondary") -> dict[str, str]:
    return {"notes": notes, "verification": verification}


# --- The builder reads the reference's words ---------------------------------------------------------------------


def test_a_conflict_note_gives_the_other_sources_figures():
    gmi = trust_flags(_ref("Lava gateway docs list 0.80/2.30 - CONFLICT"))
    assert gmi.labels == ["disputed"] and gmi.disputed == (Decimal("0.80"), Decimal("2.30"))
    assert gmi.status_note == "Lava gateway docs list 0.80/2.30 - CONFLICT"
    deepinfra = trust_flags(_ref("litellm 1.110.2 says 0.40/0.40 - CONFLICT"))  # "1.110.2" is a version, not a price
    assert deepinfra.disputed == (Decimal("0.40"), Decimal("0.40"))
    assert not deepinfra.unverified and not deepinfra.deprecated


def test_a_verify_note_about_retired_endpoints_is_availability_not_retirement():
    cerebras = trust_flags(
        _ref(f"{NO_CACHE}; no source URL in LiteLLM; Cerebras has retired some Llama endpoints: verify", LITELLM)
    )
    assert cerebras.labels == ["availability_unconfirmed"]
    assert cerebras.status_note == "Cerebras has retired some Llama endpoints: verify"


def test_a_source_page_for_another_model_is_a_weak_source():
    vertex = trust_flags(
        _ref(f"LiteLLM source URL points at a Llama 3.2 90B model-garden page: weak provenance; {NO_CACHE}", LITELLM)
    )
    assert vertex.labels == ["weak_source"] and "Llama 3.2 90B" in vertex.status_note


@pytest.mark.parametrize(
    "notes,verification",
    [
        ("litellm 1.72.0 had 0.90/0.90", "secondary"),  # an older table's price under a dated reading: not a dispute
        ("Groq Llama/Mixtral entries absent from this LiteLLM version (retired)", LITELLM),  # about other models
        (
            "Bedrock us-east-1 / cross-region id as keyed in LiteLLM; regional prices differ (e.g. eu regions higher)",
            "",
        ),
        ("same in Lava gateway docs", "secondary"),  # a second source agreeing
        ("", "secondary; consistent across versions"),
    ],
)
def test_notes_that_only_sound_alike_carry_no_flag(notes, verification):
    assert trust_flags(_ref(notes, verification)).labels == []


def test_a_doubt_the_builder_cannot_read_stops_the_build():
    with pytest.raises(ValueError, match="CONFLICT note must give"):
        trust_flags(_ref("another gateway disagrees - CONFLICT"))
    with pytest.raises(ValueError, match="other than availability"):
        trust_flags(_ref("price changed last week: verify"))


def _reading(price: str, as_of: str, basis: str, **kw: str) -> dict[str, str]:
    row = {
        "provider_id": "p",
        "provider_model_id": "m",
        "input_usd_per_mtok": price,
        "output_usd_per_mtok": price,
        "cached_input_usd_per_mtok": "",
        "lora_serving": "unknown",
        "lora_source": "",
        "as_of": as_of,
        "as_of_basis": basis,
        "source_url": "https://example.com/pricing",
        "notes": "",
        "status_note": "",
        "disputed_input_usd_per_mtok": "",
        "disputed_output_usd_per_mtok": "",
        "_where": f"reading at {price}",
        "_dated": "" if basis == "on_or_before" else as_of,
        **dict.fromkeys(builder.DOUBT_FIELDS, "false"),
    }
    row.update(kw)
    return row


def test_two_readings_at_two_prices_dispute_each_other_unless_exact_dates_order_them():
    page = _reading("0.54", "2026-11-05", "exact")
    table = _reading("0.4", "2026-12-01", "on_or_before")
    assert readings_disagree(page, table)  # the table's entry may be older or newer than the page
    assert not readings_disagree(page, _reading("0.9", "2025-06-01", "exact"))  # a previous price
    assert not readings_disagree(page, _reading("0.54", "2026-12-01", "on_or_before"))  # the same price

    (kept,) = builder.merge_token_duplicates([page, table], {"dropped": [], "flagged": []})
    assert kept is page and (kept["disputed_input_usd_per_mtok"], kept["disputed_output_usd_per_mtok"]) == (
        "0.4",
        "0.4",
    )
    assert "also read as $0.4/$0.4" in kept["status_note"]
    named = _reading(
        "0.54", "2026-11-05", "exact", disputed_input_usd_per_mtok="0.45", disputed_output_usd_per_mtok="0.5"
    )
    (kept,) = builder.merge_token_duplicates([named, _reading("0.4", "2026-12-01", "on_or_before")], {"dropped": []})
    assert kept["disputed_input_usd_per_mtok"] == "0.45"  # the CONFLICT note's figures stand
    with pytest.raises(SystemExit, match="decide"):
        builder.merge_token_duplicates([page, _reading("0.5", "2026-12-01", "on_or_before", unverified="true")], {})


def _seed_rows() -> list[dict[str, str]]:
    with open(SEED_DIR / "token_prices.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_seed_marks_exactly_the_prices_the_reference_doubts():
    rows = _seed_rows()
    disputed = {
        (r["provider_id"], r["provider_model_id"]): (
            r["disputed_input_usd_per_mtok"],
            r["disputed_output_usd_per_mtok"],
        )
        for r in rows
        if r["disputed_input_usd_per_mtok"]
    }
    assert disputed == {
        ("deepinfra", "mistralai/Mixtral-8x7B-Instruct-v0.1"): ("0.4", "0.4"),
        ("gmi-cloud", "deepseek-ai/DeepSeek-R1-0528"): ("0.8", "2.3"),
        ("gmi-cloud", "deepseek-ai/DeepSeek-V3-0324"): ("0.74", "0.9"),
    }
    unconfirmed = {(r["provider_id"], r["model_id"]) for r in rows if r["availability_unconfirmed"] == "true"}
    assert unconfirmed == {("cerebras", "llama-3.1-8b"), ("cerebras", "llama-3.3-70b")}
    assert [(r["provider_id"], r["model_id"]) for r in rows if r["weak_source"] == "true"] == [
        ("google-vertex-ai", "llama-3.1-405b")
    ]
    flagged = [
        r
        for r in rows
        if r["disputed_input_usd_per_mtok"] or "true" in (r["availability_unconfirmed"], r["weak_source"])
    ]
    assert all(r["status_note"] for r in flagged)  # each label carries the reference's words


def test_a_disputed_price_needs_both_figures():
    good = {
        "provider_id": "p",
        "provider_model_id": "m",
        "input_usd_per_mtok": 1,
        "output_usd_per_mtok": 1,
        "source_url": "https://example.com",
    }
    assert seed.validate_row(
        TokenPrice, {**good, "disputed_input_usd_per_mtok": 2, "disputed_output_usd_per_mtok": 3}, "f", 2
    )
    with pytest.raises(seed.RowError, match="disputed_output_usd_per_mtok"):
        seed.validate_row(TokenPrice, {**good, "disputed_input_usd_per_mtok": 2}, "token_prices.csv", 2)


@pytest.mark.db
def test_0009_adds_the_doubts_and_the_next_seed_fills_existing_rows(tmp_path: Path) -> None:
    query = (
        "SELECT disputed_input_usd_per_mtok, disputed_output_usd_per_mtok, availability_unconfirmed FROM token_price "
        "WHERE provider_id = :provider AND provider_model_id = :model"
    )
    gmi = {"provider": "gmi-cloud", "model": "deepseek-ai/DeepSeek-R1-0528"}
    cerebras = {"provider": "cerebras", "model": "llama3.1-8b"}
    upgraded, seeded, reports = upgrade_then_seed(
        tmp_path, "0008", "token_price", "weak_source", query, [gmi, cerebras]
    )
    assert upgraded == [(None, None, False), (None, None, False)]
    assert seeded == [(0.8, 2.3, False), (None, None, True)]
    assert reports["token_prices.csv"].updated == 6 and not reports["token_prices.csv"].errors  # 3 + 2 + 1 doubted


# --- The comparison: a disputed price at its higher figures, every doubt said where it decides -------------------


def _price(provider: str, inp: float, out: float | None = None, **kw: object) -> specs.TokenPrice:
    values: dict = {"provider_name": provider.title(), "as_of": date(2026, 12, 1), "as_of_basis": "on_or_before"}
    values.update(kw)
    return specs.TokenPrice(
        provider, model_id=MODEL.id, input_usd_per_mtok=inp, output_usd_per_mtok=out or inp, **values
    )


def test_a_disputed_price_cheaper_at_its_listed_figure_is_compared_at_the_higher_and_not_chosen():
    prices = (
        _price(
            "disputed", 0.1, disputed_input_usd_per_mtok=0.5, disputed_output_usd_per_mtok=0.3, status_note="CONFLICT"
        ),
        _price("plain", 0.35),
    )
    quotes = serverless_quotes(MODEL, prices, KNOWN, 1000, 100, 100)
    assert [q.provider for q in quotes] == ["plain", "disputed"] and cheapest_comparable(quotes).provider == "plain"
    disputed = quotes[1]
    assert disputed.comparable and disputed.flags == ("disputed",) and disputed.disputed
    assert (disputed.input_usd_per_mtok, disputed.output_usd_per_mtok) == (0.5, 0.3)  # what it is priced at
    assert (disputed.listed_input_usd_per_mtok, disputed.listed_output_usd_per_mtok) == (0.1, 0.1)
    assert disputed.usd_per_request == pytest.approx((100 * 0.5 + 100 * 0.3) / 1e6)
    assert disputed.usd_per_request_lower == pytest.approx(200 * 0.1 / 1e6)
    assert disputed.usd_per_request_lower < quotes[0].usd_per_request
    plan = serving_plan_from(MODEL.id, [], quotes, Traffic(requests_per_day=1000), 100)
    assert plan.break_even.serverless.startswith("Plain serverless") and "disputed" not in plan.break_even.serverless
    (note,) = [n for n in plan.notes if "disputed" in n]
    assert "Disputed at $0.10/$0.10" in note and "compared at $0.50/$0.30" in note and "CONFLICT" in note


def test_the_higher_figure_is_taken_for_input_and_output_each():
    crossed = _price("crossed", 0.1, 0.6, disputed_input_usd_per_mtok=0.5, disputed_output_usd_per_mtok=0.3)
    (quote,) = serverless_quotes(MODEL, (crossed,), KNOWN, 1000, 100, 100)
    assert (quote.input_usd_per_mtok, quote.output_usd_per_mtok) == (0.5, 0.6)
    assert quote.usd_per_request_lower == pytest.approx((100 * 0.1 + 100 * 0.3) / 1e6)


def test_a_disputed_price_cheapest_at_its_higher_figure_is_chosen_and_the_break_even_says_so():
    prices = (
        _price(
            "disputed", 0.2, disputed_input_usd_per_mtok=0.25, disputed_output_usd_per_mtok=0.25, status_note="CONFLICT"
        ),
        _price("plain", 0.4),
    )
    quotes = serverless_quotes(MODEL, prices, KNOWN, 1000, 100, 100)
    plan = serving_plan_from(MODEL.id, [_option()], quotes, Traffic(requests_per_day=1000), 100)
    assert plan.cheapest_serverless.provider == "disputed"
    assert "disputed: at the higher figure $0.25/$0.25" in plan.break_even.serverless
    assert any(
        n.startswith("The cheapest serverless price compared with, Disputed's")
        and "the catalog lists $0.20/$0.20 per M tokens in/out and another source $0.25/$0.25" in n
        and "compared at the higher, $0.25/$0.25" in n
        for n in plan.notes
    )


def test_an_unconfirmed_endpoint_chosen_names_the_price_without_a_doubt_and_that_the_answer_turns_on_it():
    # 100,000 requests/day of 1,000 output tokens, flat: 2 replicas of 1,000 tokens/s at $2/h = $2,920/month.
    traffic = Traffic(requests_per_day=100_000, profile="flat")
    prices = (
        _price("unsure", 0.5, availability_unconfirmed=True, status_note="Unsure has retired some endpoints: verify"),
        _price("sure", 1.0),
    )
    quotes = serverless_quotes(MODEL, prices, KNOWN, 100_000, 0, 1000)
    assert quotes[0].flags == ("availability_unconfirmed",) and quotes[0].comparable
    plan = serving_plan_from(MODEL.id, [_option(price=2.0, tok_s=1000)], quotes, traffic, 1000)
    assert plan.cheapest_serverless.provider == "unsure"
    assert "availability unconfirmed" in plan.break_even.serverless
    (note,) = [n for n in plan.notes if "Unsure's" in n]
    assert "availability unconfirmed" in note and "retired some endpoints: verify" in note
    assert "The cheapest compared price without a doubt is Sure's, $3,042/month" in note
    assert "The answer at this traffic turns on it: serverless is cheaper at Unsure's price, dedicated ($2,920" in note
    # Where the doubt-free price also beats dedicated, the answer does not turn on it, and the note says no more.
    calm = serving_plan_from(MODEL.id, [_option(price=4.0, tok_s=1000)], quotes, traffic, 1000)
    assert not any("turns on it" in n for n in calm.notes) and any("without a doubt is Sure's" in n for n in calm.notes)


def test_a_weak_source_alone_says_no_doubt_free_price_is_compared():
    prices = (_price("weak", 0.5, weak_source=True, status_note="points at another model's page: weak provenance"),)
    quotes = serverless_quotes(MODEL, prices, KNOWN, 100_000, 0, 1000)
    plan = serving_plan_from(
        MODEL.id, [_option(price=2.0, tok_s=1000)], quotes, Traffic(requests_per_day=100_000, profile="flat"), 1000
    )
    (note,) = [n for n in plan.notes if "Weak's" in n]
    assert "from a weak source" in note and "No compared per-token price is free of such a doubt" in note
    assert "Serverless is cheaper than dedicated at this traffic only at a doubtful price" in note
