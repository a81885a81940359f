"""Saved links are stored by the catalog package and replayed by the service layer; the routes only parse, call
and render (app/web/share/routes.py held the encoding, slugs, storage and replay)."""

from __future__ import annotations

import ast
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path

import orjson

from app.catalog.saved_links import SavedLink, offers_from_json, offers_to_json, slug_for
from app.scoring.specs import CatalogSnapshot, GpuSpec, Offer
from app.service.catalog_ids import unknown_id_errors
from app.service.saved_links import Replay, replay

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


H100 = GpuSpec(
    id="H100-SXM",
    vendor="nvidia",
    name="H100 SXM",
    architecture="hopper",
    memory_gb=80,
    memory_bandwidth_tbs=3.35,
    bf16_tflops=989,
)
A100 = replace(H100, id="A100-SXM-80GB", name="A100 SXM 80GB")
SAVED_AT = datetime(2026, 11, 2, 9, 30)


def _replay_without_h100(query: str) -> Replay:
    link = SavedLink("s3", "/", query, date(2026, 11, 1), SAVED_AT, (OFFER, replace(OFFER, gpu_id=A100.id)))
    current = CatalogSnapshot(gpus={A100.id: A100}, models={"llama-3.1-8b": object()})  # type: ignore[dict-item]
    return replay(link, current)


def test_a_link_asking_only_for_a_gpu_removed_since_is_a_422_naming_it_and_the_save_date() -> None:
    """Its GPU filter was refused as an unknown id, as if the user had mistyped it (found by leftovers17)."""
    replayed = _replay_without_h100("phase=inference&model=llama-3.1-8b&weight_dtype=bf16&gpus=H100-SXM")
    assert replayed.parsed.workload is None
    assert replayed.parsed.errors["gpus"].startswith(
        "GPU 'H100-SXM' left the catalog since this link was saved 2026-11-02, prices of 2026-11-01"
    )


def test_a_link_whose_gpu_filter_keeps_a_gpu_ranks_it_and_notes_the_removed_one() -> None:
    replayed = _replay_without_h100("phase=inference&model=llama-3.1-8b&weight_dtype=bf16&gpus=H100-SXM,A100-SXM-80GB")
    assert replayed.parsed.workload is not None and replayed.parsed.workload.gpus == ["A100-SXM-80GB"]
    assert unknown_id_errors(replayed.parsed.workload, replayed.snapshot) == {}
    assert replayed.saved["gpus_removed_since"] == ["H100-SXM"]
    assert "H100-SXM has left the catalog since: the link stored 1 saved offer of it" in replayed.saved["removed_note"]
    assert "gpus=H100-SXM" in replayed.saved["current_url"]  # today's page is the question as saved


def test_a_link_whose_model_left_the_catalog_is_a_422_naming_the_model() -> None:
    link = SavedLink("s4", "/", "phase=inference&model=old-model&weight_dtype=bf16", date(2026, 11, 1), SAVED_AT, ())
    current = CatalogSnapshot(gpus={H100.id: H100}, models={"llama-3.1-8b": object()})  # type: ignore[dict-item]
    replayed = replay(link, current)
    assert replayed.parsed.workload is None
    assert replayed.parsed.errors["model"].startswith(
        "model 'old-model' has left the catalog since this link was saved 2026-11-02"
    )


def test_a_replay_names_the_ranked_offers_whose_price_moved_with_both_prices() -> None:
    """qa43: a link whose #1 (Lambda's 2×B200) went from $6.89 to $9.89/GPU-h said "1 offer changed since", naming
    none. An offer the question does not rank (here spot, not asked for) is counted but not named."""
    spot = replace(OFFER, price_type="spot", usd_per_gpu_hour=1.5)
    query = "phase=inference&model=llama-3.1-8b&weight_dtype=bf16"
    link = SavedLink("s5", "/", query, date(2026, 11, 1), SAVED_AT, (OFFER, spot))
    today = replace(OFFER, usd_per_gpu_hour=3.99, as_of=date(2026, 12, 7))
    current = CatalogSnapshot(gpus={H100.id: H100}, offers=(today, replace(spot, usd_per_gpu_hour=1.9)))
    saved = replay(link, current).saved
    assert saved["offers_changed_since"] == 2
    assert [(m["provider"], m["saved_usd_per_gpu_hour"], m["usd_per_gpu_hour"]) for m in saved["price_moves"]] == [
        ("lambda", 2.99, 3.99)
    ]
    assert saved["price_moves_note"] == (
        "The one this question ranks: Lambda's 8×H100-SXM on demand, saved at $2.99/GPU-h, $3.99 today (2026-12-07)."
    )
    spot_only = replay(link, CatalogSnapshot(gpus={H100.id: H100}, offers=(OFFER, replace(spot, usd_per_gpu_hour=2))))
    assert spot_only.saved["price_moves"] == []
    assert spot_only.saved["price_moves_note"] == "None of them is an offer this question ranks."
