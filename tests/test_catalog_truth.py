"""The catalog as the engine sees it: machines and terms on offers, memory type and peak status on GPUs,
staleness that follows the calendar, and a version that moves with any edit."""

from __future__ import annotations

import csv
import shutil
from datetime import date, timedelta
from pathlib import Path

from sqlmodel import Session, select

from app.catalog import snapshot
from app.catalog.setup import seed
from app.catalog.snapshot import SnapshotCache, load_snapshot
from app.db import make_engine
from app.models.hardware import Gpu
from app.scoring.specs import PRICE_TYPES, GpuSpec, is_gddr
from tests.conftest import SEED_DIR


def _snapshot(url: str, stale_after_days: int = 180, today: date | None = None):  # type: ignore[no-untyped-def]
    engine = make_engine(url)
    with Session(engine) as session:
        loaded = load_snapshot(session, stale_after_days, today or date(2026, 12, 1))
    engine.dispose()
    return loaded


def test_offers_carry_the_machine_and_terms(seeded_url: str) -> None:
    offers = _snapshot(seeded_url).offers
    assert {o.price_type for o in offers} <= set(PRICE_TYPES)
    p5 = next(o for o in offers if o.instance_type == "p5.48xlarge" and o.price_type == "on_demand")
    assert (p5.gpus_per_node, p5.intra_node_link, p5.inter_node_fabric) == (8, "nvlink", "efa")
    assert p5.inter_node_gbps_per_gpu == 400
    block = next(o for o in offers if o.instance_type == "p5.48xlarge" and o.price_type == "capacity_block")
    assert block.min_term_hours == 24 and "1-day" in block.price_note


def test_serverless_and_as_low_as_prices_keep_their_nuance_in_the_note(seeded_url: str) -> None:
    offers = _snapshot(seeded_url).offers
    modal = [o for o in offers if o.provider_id == "modal"]
    assert modal and all(o.price_type == "on_demand" and "per second" in o.price_note for o in modal)
    floors = [o for o in offers if o.provider_id == "fal-ai" and "as low as" in o.price_note]
    assert floors and all(o.price_type == "reserved" and o.min_term_hours is None for o in floors)


def test_stale_follows_the_configured_days(seeded_url: str) -> None:
    offers = _snapshot(seeded_url, stale_after_days=180, today=date(2026, 12, 1)).offers
    for offer in offers:
        undated = offer.as_of is None  # a price copied without its day is never current (OCI's price list)
        assert offer.stale == (undated or date(2026, 12, 1) - offer.as_of > timedelta(days=180))  # type: ignore[operator]
    assert any(o.stale for o in offers) and not all(o.stale for o in offers)
    assert any(o.as_of is None for o in offers)
    assert all(o.as_of is None for o in _snapshot(seeded_url, stale_after_days=3650).offers if o.stale)


def test_undated_offers_rank_only_when_stale_prices_are_asked_for_and_say_so(client) -> None:  # type: ignore[no-untyped-def]
    """Oracle's 8xMI300X and 8xMI355X are the catalog's only AMD training nodes, and their prices are undated: left
    out by default with a note saying why and how to include them, ranked labelled 'undated' when asked for."""
    url = "/rank.json?phase=training&model=llama-3.1-70b&method=full_ft&providers=oracle-oci"
    body = client.get(url).json()
    assert body["feasible_options"] == 0
    assert any("undated" in n and "include_stale" in n for n in body["notes"]), body["notes"]
    stale = client.get(url + "&vendors=amd&include_stale=true").json()
    rows = [o for o in stale["options"] if o["feasible"]]
    assert rows and all(o["stale"] and o["as_of"] is None for o in rows)
    html = client.get(url.replace("/rank.json", "/") + "&vendors=amd&include_stale=true").text
    assert ">undated</span>" in html


def test_version_changes_when_a_day_makes_offers_stale(seeded_url: str) -> None:
    newest = max(o.as_of for o in _snapshot(seeded_url).offers if o.as_of)
    before = _snapshot(seeded_url, 30, newest + timedelta(days=30))
    after = _snapshot(seeded_url, 30, newest + timedelta(days=31))
    assert sum(o.stale for o in after.offers) > sum(o.stale for o in before.offers)
    assert before.version != after.version


def test_cache_reloads_when_the_day_rolls_over(seeded_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    newest = max(o.as_of for o in _snapshot(seeded_url).offers if o.as_of)
    monkeypatch.setattr(snapshot, "today_utc", lambda: newest + timedelta(days=30))
    engine = make_engine(seeded_url)
    cache = SnapshotCache(engine, recheck_s=0, stale_after_days=30)
    first = cache.get()
    monkeypatch.setattr(snapshot, "today_utc", lambda: newest + timedelta(days=31))
    second = cache.get()
    engine.dispose()
    assert first is not second and first.version != second.version
    assert sum(o.stale for o in second.offers) > sum(o.stale for o in first.offers)


def test_memory_type_decides_gddr_not_the_name(seeded_url: str) -> None:
    gpus = _snapshot(seeded_url).gpus
    assert is_gddr(gpus["RTX-PRO-6000"])  # GDDR7, which the name rule called HBM
    assert not is_gddr(gpus["H100-PCIE"]) and is_gddr(gpus["L40S"])
    unnamed = GpuSpec(id="x", vendor="v", name="RTX thing", architecture="", memory_gb=24, memory_bandwidth_tbs=1)
    assert is_gddr(unnamed)  # no memory type: the name fallback still works


def test_peak_estimated_marks_derived_unverified_and_missing_peaks(seeded_url: str) -> None:
    gpus = _snapshot(seeded_url).gpus
    assert not gpus["H100-SXM"].peak_estimated and not gpus["RTX-4090"].peak_estimated
    assert gpus["RTX-PRO-6000"].peak_estimated  # "~504 (derived)", row says UNVERIFIED tensor values
    assert gpus["RTX-3080"].peak_estimated  # derived from the GeForce ratio
    assert gpus["A10G"].peak_estimated  # no tensor peak published: 2 x FP32 fallback
    assert gpus["RTX-A6000"].bf16_tflops == 154.8  # the fixed peak, no longer 2 x FP32


def test_token_prices_carry_cached_input_and_lora_serving(seeded_url: str) -> None:
    prices = _snapshot(seeded_url).token_prices
    assert any(t.cached_input_usd_per_mtok is not None for t in prices)
    assert {t.lora_serving for t in prices} <= {"yes", "no", "unknown"}
    assert any(t.lora_serving == "no" for t in prices)


def _copy_seed(tmp_path: Path) -> Path:
    target = tmp_path / "seed"
    shutil.copytree(SEED_DIR, target)
    return target


def test_a_non_price_edit_changes_the_catalog_version(fresh_url: str, tmp_path: Path) -> None:
    engine = make_engine(fresh_url)
    cache = SnapshotCache(engine, recheck_s=0)
    before = cache.get().version
    seed_dir = _copy_seed(tmp_path)
    path = seed_dir / "gpus.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["notes"] = "edited notes"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    [report] = [r for r in seed.seed(engine, seed_dir) if r.file == "gpus.csv"]
    assert report.updated == 1
    after = cache.get().version
    with Session(engine) as session:
        assert session.exec(select(Gpu).where(Gpu.notes == "edited notes")).first() is not None
    engine.dispose()
    assert before != after


def test_reseeding_unchanged_files_keeps_the_version(fresh_url: str) -> None:
    engine = make_engine(fresh_url)
    cache = SnapshotCache(engine, recheck_s=0)
    before = cache.get().version
    seed.seed(engine, SEED_DIR)
    assert cache.get().version == before
    engine.dispose()
