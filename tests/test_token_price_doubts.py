"""Doubts the reference states about a per-token price that leave it comparable, labelled: another source's figures
(CONFLICT: compared at the higher of each), an endpoint to verify (availability unconfirmed), a source that does not
back the figure (weak source). Read by scripts/token_trust.py, stored by migration 0008, applied by
app/scoring/token_prices.py and app/scoring/serving (economics, serverless_notes). The pages, the API and the CLI are
checked in tests/test_token_price_trust.py."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from app.catalog import migrate, seed
from app.db import make_engine
from app.models import TokenPrice
from scripts import build_seed_prices as builder
from scripts.token_trust import readings_disagree, trust_flags
from tests.conftest import SEED_DIR, make_database

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
def test_0008_adds_the_doubts_and_the_next_seed_fills_existing_rows(tmp_path: Path) -> None:
    url = make_database(tmp_path, seeded=True)
    migrate.downgrade(url, "0007")
    engine = make_engine(url)
    assert "weak_source" not in {c["name"] for c in inspect(engine).get_columns("token_price")}
    engine.dispose()

    migrate.upgrade(url)  # an already-seeded database: existing rows get the server defaults
    engine = make_engine(url)
    query = text(
        "SELECT disputed_input_usd_per_mtok, disputed_output_usd_per_mtok, availability_unconfirmed FROM token_price "
        "WHERE provider_id = :provider AND provider_model_id = :model"
    )
    gmi = {"provider": "gmi-cloud", "model": "deepseek-ai/DeepSeek-R1-0528"}
    cerebras = {"provider": "cerebras", "model": "llama3.1-8b"}
    with engine.connect() as connection:
        assert tuple(connection.execute(query, gmi).one()) == (None, None, False)
    reports = {r.file: r for r in seed.seed(engine, SEED_DIR)}  # what setup_database runs after upgrading
    with engine.connect() as connection:
        assert tuple(connection.execute(query, gmi).one()) == (0.8, 2.3, False)
        assert tuple(connection.execute(query, cerebras).one()) == (None, None, True)
    engine.dispose()
    assert reports["token_prices.csv"].updated == 6 and not reports["token_prices.csv"].errors  # 3 + 2 + 1 doubted
