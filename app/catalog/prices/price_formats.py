"""Public GPU price catalogs read into offers.csv rows: SkyPilot's per-cloud catalog CSV and dstack gpuhunt's CSV.

Only translation lives here; validation and the all-or-nothing upsert are price_import's (the seed path).
GPU names are mapped with an explicit table; a name not in it is reported and skipped, never guessed.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from app.catalog.setup.seed import RowError, whole_row

Format = str  # skypilot | gpuhunt | gpumatch
FORMATS = ("skypilot", "gpuhunt", "gpumatch")

# Header columns that identify a format (a file must have all of them).
# SkyPilot: github.com/skypilot-org/skypilot-catalog, catalogs/v*/<cloud>/vms.csv.
# gpuhunt: github.com/dstackai/gpuhunt, the per-provider CSVs of its offline catalog.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "skypilot": ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice", "Region"),
    "gpuhunt": ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot"),
    "gpumatch": ("provider_id", "gpu_id", "gpu_count", "price_type", "usd_per_hour"),
}

SOURCE_URLS = {
    "skypilot": "https://github.com/skypilot-org/skypilot-catalog",
    "gpuhunt": "https://github.com/dstackai/gpuhunt",
}

# Accelerator names as these catalogs write them -> catalog GPU id. Where a name covers two form factors
# (SkyPilot's "A100" is the 40 GB SXM of AWS p4d / GCP a2-highgpu; "H100" the SXM of p5 / a3-highgpu,
# "H100-MEGA" GCP's a3-megagpu, also SXM), the cloud's own instance families set the choice; an
# instance name that says "pcie" picks the PCIe card (PCIE_IDS).
GPU_IDS: dict[str, str] = {
    "A100": "A100-SXM-40GB",
    "A100-80GB": "A100-SXM-80GB",
    "A100-80GB-SXM": "A100-SXM-80GB",
    "H100": "H100-SXM",
    "H100-SXM": "H100-SXM",
    "H100-MEGA": "H100-SXM",
    "H100-NVL": "H100-NVL",
    "H200": "H200",
    "B200": "B200",
    "GB200": "GB200",
    "GH200": "GH200",
    "L4": "L4",
    "L40": "L40",
    "L40S": "L40S",
    "A10G": "A10G",
    "A10": "A10",
    "A40": "A40",
    "T4": "T4",
    "A6000": "RTX-A6000",
    "RTXA6000": "RTX-A6000",
    "RTX6000ADA": "RTX-6000-ADA",
    "RTX6000-ADA": "RTX-6000-ADA",
    "RTX4090": "RTX-4090",
    "RTX5090": "RTX-5090",
    "MI300X": "MI300X",
    "MI325X": "MI325X",
}
# gpuhunt writes "A100" for both sizes and gives gpu_memory (GB): 80 GB is the 80 GB card.
BY_MEMORY_GB: dict[tuple[str, int], str] = {("A100", 80): "A100-SXM-80GB", ("A100", 40): "A100-SXM-40GB"}
PCIE_IDS = {"A100-SXM-40GB": "A100-PCIE-40GB", "A100-SXM-80GB": "A100-PCIE-80GB", "H100-SXM": "H100-PCIE"}
# Azure's NC families carry PCIe cards under the same accelerator names: NC A100 v4 the A100 80GB PCIe,
# NCads H100 v5 the H100 NVL (learn.microsoft.com, sizes/gpu-accelerated nc-a100-v4 and ncads-h100-v5).
AZURE_NC_PREFIX = "standard_nc"
AZURE_NC_IDS = {"A100-SXM-80GB": "A100-PCIE-80GB", "H100-SXM": "H100-NVL"}

# Cloud names these tools use -> provider ids in seed_data/providers.csv.
PROVIDER_IDS = {
    "lambdalabs": "lambda",
    "lambda": "lambda",
    "oci": "oracle-oci",
    "vast": "vast-ai",
    "vastai": "vast-ai",
    "datacrunch": "verda",
}


@dataclass
class Converted:
    """offers.csv-shaped rows (line numbers of the source file) and what was left out, with why."""

    format: Format
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def detect_format(header: list[str], file_name: str = "header") -> Format:
    """The format whose columns the header has; else a RowError naming the file and what the nearest format lacks."""
    missing = {name: [c for c in columns if c not in header] for name, columns in SIGNATURES.items()}
    for name, lacking in missing.items():
        if not lacking:
            return name
    nearest = min(missing, key=lambda name: len(missing[name]))
    lacks = f"a {nearest} file lacks {', '.join(missing[nearest])}"
    raise RowError(file_name, 1, "header", f"not a gpumatch, SkyPilot or gpuhunt price file ({lacks})")


def read_header(path: Path) -> list[str]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return next(csv.reader(handle), [])


def provider_id(name: str) -> str:
    key = name.strip().lower()
    return PROVIDER_IDS.get(key, key)


def gpu_id(name: str, memory_gb: float | None, instance: str) -> str | None:
    key = name.strip().upper().replace(" ", "")
    found = BY_MEMORY_GB.get((key, round(memory_gb))) if memory_gb else None
    found = found or GPU_IDS.get(key)
    if found and instance.lower().startswith(AZURE_NC_PREFIX):
        return AZURE_NC_IDS.get(found, found)
    if found and "pcie" in instance.lower():
        return PCIE_IDS.get(found, found)
    return found


def _number(raw: str, file: str, line: int, column: str) -> float | None:
    cell = (raw or "").strip()
    if cell == "":
        return None
    try:
        return float(cell)
    except ValueError:
        raise RowError(file, line, column, f"not a number: {cell[:40]!r}") from None


def _offer(
    *,
    provider: str,
    gpu: str,
    count: int,
    instance: str,
    region: str,
    spot: bool,
    usd_per_hour: float,
    meta: dict[str, str],
) -> dict[str, str]:
    return {
        "provider_id": provider,
        "gpu_id": gpu,
        "gpu_count": str(count),
        "instance_type": instance,
        "region": region,
        "price_type": "spot" if spot else "on_demand",
        "price_note": "spot (interruptible)" if spot else "on-demand",
        "usd_per_hour": repr(usd_per_hour),
        "usd_per_gpu_hour": repr(usd_per_hour / count),
        **meta,
    }


def _gpu_count(value: float | None, converted: Converted) -> int | None:
    if not value:
        converted.skip("no GPU (CPU-only instance)")
        return None
    if value != int(value):
        converted.skip("fractional GPU share")
        return None
    return int(value)


def convert_skypilot(path: Path, provider: str, meta: dict[str, str]) -> Converted:
    """One row per instance and zone; its Price is on-demand and its SpotPrice (if any) a spot offer.
    Zones of one region fold into one offer per region (the natural key has no zone)."""
    out, seen = Converted("skypilot"), set()
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, restval="")
        for row in reader:
            line = reader.line_num
            raw = whole_row(row, path.name, line)
            count = _gpu_count(_number(raw["AcceleratorCount"], path.name, line, "AcceleratorCount"), out)
            if count is None:
                continue
            name, instance = raw["AcceleratorName"].strip(), raw["InstanceType"].strip()
            gpu = gpu_id(name, None, instance)
            if gpu is None:
                out.skip(f"unknown GPU name {name!r}")
                continue
            for column, spot in (("Price", False), ("SpotPrice", True)):
                price = _number(raw[column], path.name, line, column)
                key = (instance, raw["Region"].strip(), spot)
                if price is None or key in seen:
                    if price is not None:
                        out.skip("another zone of the same region")
                    continue
                seen.add(key)
                out.rows.append(
                    (
                        line,
                        _offer(
                            provider=provider,
                            gpu=gpu,
                            count=count,
                            instance=instance,
                            region=key[1],
                            spot=spot,
                            usd_per_hour=price,
                            meta=meta,
                        ),
                    )
                )
    return out


def convert_gpuhunt(path: Path, provider: str, meta: dict[str, str]) -> Converted:
    """One offer per row; `spot` says which price it is, `location` is the region."""
    out = Converted("gpuhunt")
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, restval="")
        for row in reader:
            line = reader.line_num
            raw = whole_row(row, path.name, line)
            count = _gpu_count(_number(raw["gpu_count"], path.name, line, "gpu_count"), out)
            if count is None:
                continue
            memory = _number(raw.get("gpu_memory", ""), path.name, line, "gpu_memory")
            name, instance = raw["gpu_name"].strip(), raw["instance_name"].strip()
            gpu = gpu_id(name, memory, instance)
            if gpu is None:
                out.skip(f"unknown GPU name {name!r}")
                continue
            spot = raw["spot"].strip().lower()
            if spot not in ("true", "false"):
                raise RowError(path.name, line, "spot", f"not true/false: {spot[:20]!r}")
            price = _number(raw["price"], path.name, line, "price")
            if price is None:
                raise RowError(path.name, line, "price", "empty")
            row_provider = provider_id(raw["provider"]) if raw.get("provider") else provider
            out.rows.append(
                (
                    line,
                    _offer(
                        provider=row_provider,
                        gpu=gpu,
                        count=count,
                        instance=instance,
                        region=raw["location"].strip(),
                        spot=spot == "true",
                        usd_per_hour=price,
                        meta=meta,
                    ),
                )
            )
    return out


def offer_meta(fmt: Format, path: Path, as_of: date, source_url: str | None) -> dict[str, str]:
    tool = {"skypilot": "SkyPilot catalog", "gpuhunt": "dstack gpuhunt catalog"}[fmt]
    return {
        "as_of": as_of.isoformat(),
        "source_url": source_url or SOURCE_URLS[fmt],
        "retrieved_via": f"{tool} file {path.name}, imported with gpumatch prices import",
        "verification": "secondary: a third-party catalog, not checked against the provider's page",
    }


def convert(path: Path, fmt: Format, provider: str, as_of: date, source_url: str | None = None) -> Converted:
    meta = offer_meta(fmt, path, as_of, source_url)
    try:
        if fmt == "skypilot":
            return convert_skypilot(path, provider, meta)
        return convert_gpuhunt(path, provider, meta)
    except KeyError as missing:  # a row shorter than the header, or a signature column renamed
        raise RowError(path.name, 1, str(missing).strip("'"), "column missing") from None
