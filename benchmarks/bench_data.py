"""A catalog snapshot straight from seed_data/*.csv, for timing the rankings without a database.

`bench_snapshot(k)` keeps every dated offer and adds k - 1 synthetic copies of each (other provider
ids, prices spread by up to ±5 %), so the per-offer cost of a ranking can be measured apart from the
per-GPU estimate work.
"""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

from app.catalog.spec_files import SEED_DIR, load_gpu_specs, load_model_specs
from app.scoring.specs import CatalogSnapshot, Offer


def _seed_offers(seed_dir: Path) -> list[Offer]:
    with open(seed_dir / "providers.csv", encoding="utf-8") as handle:
        names = {row["id"]: row["name"] for row in csv.DictReader(handle)}
    with open(seed_dir / "offers.csv", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["as_of"].strip()]
    return [
        Offer(
            row["provider_id"],
            names.get(row["provider_id"], row["provider_id"]),
            row["gpu_id"],
            int(row["gpu_count"] or 1),
            row["price_type"],
            float(row["usd_per_gpu_hour"]),
            date.fromisoformat(row["as_of"].strip()),
            row.get("instance_type", ""),
            row.get("region", ""),
        )
        for row in rows
    ]


def bench_snapshot(offer_multiplier: int = 1, seed_dir: Path = SEED_DIR) -> CatalogSnapshot:
    """Seed GPUs, models and dated offers; each offer repeated `offer_multiplier` times in all."""
    base = _seed_offers(seed_dir)
    offers = list(base)
    for copy in range(1, offer_multiplier):
        factor = 1.0 + ((copy * 37) % 101 - 50) / 1000  # deterministic spread in [0.95, 1.05]
        offers.extend(
            Offer(
                f"{o.provider_id}-x{copy}",
                f"{o.provider_name} (copy {copy})",
                o.gpu_id,
                o.gpu_count,
                o.price_type,
                o.usd_per_gpu_hour * factor,
                o.as_of,
                o.instance_type,
                o.region,
            )
            for o in base
        )
    return CatalogSnapshot(gpus=load_gpu_specs(seed_dir), models=load_model_specs(seed_dir), offers=tuple(offers))
