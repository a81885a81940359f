"""The rules behind per-token price comparisons (app/scoring/pricing/token_prices.py), the seed that carries the
reference's flags (scripts/build_seed_prices.py) and the migration that stores them. The reviewer's reproductions are in
tests/test_token_price_trust.py."""

from __future__ import annotations

import csv
import importlib
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from app.catalog import snapshot
from app.catalog.spec_files import load_model_specs
from app.scoring import specs
from app.scoring.pricing import token_prices as trust
from app.scoring.serving.plans.plan import serving_plan_from
from app.scoring.serving.serverless.quotes import cheapest_comparable, serverless_quotes
from app.scoring.serving.traffic.week import Traffic
from tests.conftest import SEED_DIR
from tests.migration_checks import upgrade_then_seed

KNOWN = load_model_specs()
REFERENCE = SEED_DIR.parent.parent / "shared" / "reference"


def _price(provider: str, model: str, price: float, **kw: object) -> specs.TokenPrice:
    values: dict = {"provider_name": provider.title(), "as_of": date(2026, 12, 1), "as_of_basis": "on_or_before"}
    values.update(kw)
    return specs.TokenPrice(provider, model_id=model, input_usd_per_mtok=price, output_usd_per_mtok=price, **values)


def test_dates_read_as_the_reference_gives_them():
    assert trust.as_of_label(date(2026, 12, 1), "on_or_before") == "≤2026-12-01"
    assert trust.as_of_label(date(2025, 6, 1), "approximate") == "~2025"
    assert trust.as_of_label(date(2026, 11, 5), "exact") == trust.as_of_label(date(2026, 11, 5), "") == "2026-11-05"
    assert trust.as_of_label(None, "") == "undated"


def test_only_current_verified_prices_are_comparable():
    assert trust.comparable(False, False, False)
    assert not trust.comparable(True, False, False, include_stale=True)
    assert not trust.comparable(False, True, False, include_stale=True)
    assert not trust.comparable(False, False, True) and trust.comparable(False, False, True, include_stale=True)
    assert trust.flags(True, True, True) == ("unverified", "deprecated", "stale")


def test_one_entry_per_provider_and_model_unless_the_terms_differ():
    old = _price("p", "m", 1.0, provider_model_id="m-old", as_of=date(2026, 11, 29))
    new = _price("p", "m", 1.0, provider_model_id="m-new", cached_input_usd_per_mtok=0.5)
    basic = _price("p", "m", 0.5, provider_model_id="m-basic")
    other_cache = _price("p", "m", 1.0, provider_model_id="m-cache", cached_input_usd_per_mtok=0.2)
    lora = _price("p", "m", 1.0, provider_model_id="m-lora", lora_serving="yes")
    elsewhere = _price("q", "m", 1.0, provider_model_id="m-old")
    unlisted = [_price("p", "", 1.0, provider_model_id=name) for name in ("x", "y")]
    kept = trust.one_per_provider_model([old, new, basic, other_cache, elsewhere, *unlisted])
    assert kept == [new, basic, other_cache, elsewhere, *unlisted]  # the older twin of `new` goes, order stays
    assert trust.one_per_provider_model([old, lora]) == [lora]  # "unknown" LoRA serving is no different term
    no_lora = _price("p", "m", 1.0, provider_model_id="m-no-lora", lora_serving="no")
    assert trust.one_per_provider_model([no_lora, lora]) == [no_lora, lora]  # "no" and "yes" are


def test_quotes_compare_current_verified_prices_first_and_the_plan_stands_on_them():
    model = KNOWN["llama-3.1-70b"]
    prices = (
        _price("placeholder", model.id, 0.1, unverified=True, status_note="looks like a placeholder"),
        _price("retired", model.id, 0.2, deprecated=True),
        _price("old", model.id, 0.3, stale=True),
        _price("listed", model.id, 0.4),
    )
    quotes = serverless_quotes(model, prices, KNOWN, 1000, 100, 100)
    assert [q.provider for q in quotes] == ["listed", "placeholder", "retired", "old"]
    assert cheapest_comparable(quotes).provider == "listed"
    opted = serverless_quotes(model, prices, KNOWN, 1000, 100, 100, include_stale=True)
    assert [q.provider for q in opted if q.comparable] == ["old", "listed"]
    plan = serving_plan_from(model.id, [], quotes, Traffic(requests_per_day=1000), 100)
    assert plan.cheapest_serverless.provider == "listed" and plan.break_even.serverless.startswith("Listed")
    assert "Placeholder $0.10/$0.10" in plan.notes[0] and "looks like a placeholder" in plan.notes[0]
    nothing = serverless_quotes(model, prices[:3], KNOWN, 1000, 100, 100)
    assert cheapest_comparable(nothing) is None
    assert serving_plan_from(model.id, [], nothing, Traffic(requests_per_day=1000), 100).cheapest_serverless is None


def test_a_per_token_price_turning_stale_reloads_the_snapshot():
    fresh = specs.TokenPrice("p", "P", "m", 1.0, 1.0, as_of=date(2026, 11, 1))
    catalog = specs.CatalogSnapshot(gpus={}, models={}, offers=(), token_prices=(fresh,), version="v")
    assert snapshot.next_stale_day(catalog, 180) == snapshot.stale_since(date(2026, 11, 1), 180)


# --- The seed carries the reference's flags, and the database keeps them -----------------------------------------


def _seed_rows() -> list[dict[str, str]]:
    with open(SEED_DIR / "token_prices.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_seed_carries_the_references_flags_and_lists_each_model_once_per_terms():
    rows = _seed_rows()
    hyperbolic = [r for r in rows if r["provider_id"] == "hyperbolic"]
    assert hyperbolic and all(r["unverified"] == "true" and "UNVERIFIED" in r["status_note"] for r in hyperbolic)
    groq = {r["provider_model_id"]: r["deprecated"] for r in rows if r["provider_id"] == "groq"}
    assert groq == {
        "llama-3.1-8b-instant": "true",
        "llama-3.3-70b-versatile": "true",
        "mixtral-8x7b-32768": "true",
        "openai/gpt-oss-120b": "false",  # its note speaks of the retired Llama entries, not of itself
        "openai/gpt-oss-20b": "false",
    }
    assert {r["as_of_basis"] for r in rows} == {"exact", "on_or_before", "approximate", ""}
    assert all((r["as_of_basis"] == "") == (r["as_of"] == "") for r in rows)

    class Row:
        def __init__(self, r: dict[str, str]) -> None:
            self.provider_id, self.model_id, self.provider_model_id = (
                r["provider_id"],
                r["model_id"],
                r["provider_model_id"],
            )
            self.input_usd_per_mtok, self.output_usd_per_mtok = (
                float(r["input_usd_per_mtok"]),
                float(r["output_usd_per_mtok"]),
            )
            cached = r["cached_input_usd_per_mtok"]
            self.cached_input_usd_per_mtok = float(cached) if cached else None
            self.lora_serving = r["lora_serving"]
            self.as_of = date.fromisoformat(r["as_of"]) if r["as_of"] else None

    listed = [Row(r) for r in rows]
    assert len(trust.one_per_provider_model(listed)) == len(listed)  # the app's rule drops nothing more


@pytest.mark.skipif(not (REFERENCE / "token_prices.csv").exists(), reason="the shared reference is not checked out")
def test_committed_token_prices_are_the_builders_output(monkeypatch: pytest.MonkeyPatch):
    builder = importlib.import_module("scripts.build_seed_prices")
    monkeypatch.setattr(builder, "REFERENCE", REFERENCE)
    built = builder.build_token_prices(defaultdict(list))
    assert [{k: r[k] for k in builder.TOKEN_FIELDS} for r in built] == _seed_rows()
    basis = {(r["provider_id"], r["provider_model_id"]): r["as_of_basis"] for r in built}
    assert basis[("hyperbolic", "meta-llama/Meta-Llama-3.1-70B-Instruct")] == "on_or_before"  # "<=2026-12-01 (…)"
    assert basis[("crusoe", "gpt-oss-120b")] == "exact"  # "2026-09-20"
    assert basis[("groq", "mixtral-8x7b-32768")] == "approximate"  # "~2025 (…)"
    assert basis[("gmi-cloud", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8")] == ""  # "UNKNOWN (undated)"


@pytest.mark.db
def test_0007_adds_the_flags_and_the_next_seed_fills_existing_rows(tmp_path: Path) -> None:
    query = (
        "SELECT as_of_basis, unverified, deprecated FROM token_price "
        "WHERE provider_id = 'hyperbolic' AND provider_model_id = 'meta-llama/Meta-Llama-3.1-70B-Instruct'"
    )
    upgraded, seeded, reports = upgrade_then_seed(tmp_path, "0006", "token_price", "unverified", query, [{}])
    assert upgraded == [("", False, False)] and seeded == [("on_or_before", True, False)]
    flagged = [r for r in _seed_rows() if r["as_of_basis"] or "true" in (r["unverified"], r["deprecated"])]
    assert reports["token_prices.csv"].updated == len(flagged) and not reports["token_prices.csv"].errors
