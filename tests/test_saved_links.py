"""Saved links are stored by the catalog package and replayed by the service layer; the routes only parse, call
and render (app/web/share/routes.py held the encoding, slugs, storage and replay)."""

from __future__ import annotations

import ast
from dataclasses import replace
from datetime import date
from pathlib import Path

import orjson

from app.catalog.saved_links import SavedLink, offers_from_json, offers_to_json, slug_for
from app.scoring.specs import CatalogSnapshot, Offer
from app.service.catalog_ids import unknown_id_errors
from app.service.saved_links import replay

ROOT = Path(__file__).resolve().parent.parent
OFFER = Offer(
    "lambda", "Lambda", "H100-SXM", 8, "on_demand", 2.99, date(2026, 11, 1), "gpu_8x_h100", "us-east", "u", 7, 8
)


def test_offers_round_trip_through_their_json_with_every_field() -> None:
    assert offers_from_json(offers_to_json((OFFER,))) == (OFFER,)


def test_a_link_saved_before_offers_had_machines_reads_its_list_rows() -> None:
    legacy = orjson.dumps([["lambda", "Lambda", "H100-SXM", 8, "on_demand", 2.99, "2026-11-01", "", "", "", 7]])
    (offer,) = offers_from_json(legacy.decode())
    assert (offer.provider_id, offer.usd_per_gpu_hour, offer.as_of, offer.gpus_per_node) == (
        "lambda", 2.99, date(2026, 11, 1), None,
    )  # fmt: skip


def test_the_same_question_at_the_same_prices_is_the_same_slug() -> None:
    assert slug_for("/", "model=x", "abc") == slug_for("/", "model=x", "abc") != slug_for("/", "model=x", "abd")


def test_a_replay_ranks_today_s_catalog_at_the_saved_prices_and_counts_what_changed() -> None:
    link = SavedLink("s1", "/", "phase=inference&model=llama-3.1-8b", date(2026, 11, 1), None, (OFFER,))  # type: ignore[arg-type]
    current = CatalogSnapshot(gpus={}, offers=(replace(OFFER, usd_per_gpu_hour=1.99),))
    replayed = replay(link, current)
    assert replayed.snapshot.offers == (OFFER,) and replayed.snapshot.version == "saved-s1"
    assert replayed.parsed.workload is not None and replayed.parsed.workload.model == "llama-3.1-8b"
    # saved before release precisions: a link without weight_dtype meant BF16, and its live twin says so
    assert replayed.saved["current_url"] == "/?phase=inference&model=llama-3.1-8b&weight_dtype=bf16"
    assert replayed.saved["offers_changed_since"] == 1  # repriced since


def test_the_saved_links_routes_hold_no_storage_or_replay() -> None:
    tree = ast.parse((ROOT / "app" / "web" / "share" / "routes.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    }
    assert not imported & {"hashlib", "orjson", "sqlalchemy.exc", "sqlmodel", "app.models", "app.service.moved_offers"}
    assert not [name for name in imported if name.startswith("app.models.")]  # the tables live in a package


def test_a_link_naming_a_provider_removed_since_replays_its_saved_prices_with_a_note() -> None:
    """A saved link's `providers=lambda` was refused as an unknown id once Lambda left the catalog, though the link
    stored Lambda's prices."""
    query = "phase=inference&model=llama-3.1-8b&weight_dtype=bf16&providers=lambda"
    link = SavedLink("s2", "/", query, date(2026, 11, 1), None, (OFFER,))  # type: ignore[arg-type]
    current = CatalogSnapshot(gpus={}, offers=(), providers={"vultr": "Vultr"})
    replayed = replay(link, current)
    assert replayed.parsed.workload is not None
    assert unknown_id_errors(replayed.parsed.workload, replayed.snapshot) == {}
    assert replayed.saved["providers_removed_since"] == ["lambda"]
    assert replayed.saved["removed_note"].startswith("Lambda (lambda) has left the catalog since: its saved prices")
    kept = replay(link, CatalogSnapshot(gpus={}, offers=(), providers={"lambda": "Lambda"}))
    assert kept.saved["providers_removed_since"] == [] and kept.saved["removed_note"] == ""
