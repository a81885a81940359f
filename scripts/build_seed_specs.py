"""Build seed_data/gpus.csv and seed_data/models.csv from ../shared/reference.

Run once by hand when the reference changes (`python scripts/build_seed_specs.py`); the output is
committed and is what the app loads. Values marked UNVERIFIED become empty cells and the field name
goes into `unverified_fields`; derived values ("~504 (derived)") keep the number and are listed too.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "reference"

GPU_NUMERIC = {
    "fp32_tflops": "fp32_tflops",
    "tf32_tflops": "tf32_tflops_dense",
    "bf16_tflops": "bf16_tflops_dense",
    "fp16_tflops": "fp16_tflops_dense",
    "fp8_tflops": "fp8_tflops_dense",
    "int8_tops": "int8_tops_dense",
    "fp4_tflops": "fp4_tflops_dense",
}

# GPUs joined by the scale-up fabric, by id; the reference lists the link, not the domain size.
# HGX/OAM boards: 8 (NVIDIA HGX, AMD Instinct platform, Gaudi HLS); NVL72 racks: 72;
# bridged PCIe pairs: 2; H200 NVL: up to 4-way bridge; Trn2 instance: 16 chips (AWS Neuron docs).
SCALEUP_DOMAIN = {
    "A100-PCIE-40GB": 2,
    "A100-PCIE-80GB": 2,
    "H100-PCIE": 2,
    "H100-NVL": 2,
    "H200-NVL": 4,
    "RTX-3090": 2,
    "RTX-3090-TI": 2,
    "RTX-A6000": 2,
    "A100-SXM-80GB": 8,
    "A100-SXM-40GB": 8,
    "H100-SXM": 8,
    "H100-SXM-HBM2E-96GB": 8,
    "H200": 8,
    "B200": 8,
    "B300": 8,
    "MI250X": 8,
    "MI300X": 8,
    "MI325X": 8,
    "MI355X": 8,
    "MI350X": 8,
    "GAUDI2": 8,
    "GAUDI3": 8,
    "TPU-V5E": 8,
    "TPU-V5P": 4,
    "TPU-V6E": 8,
    "TRN2": 16,
    "GB200": 72,
    "GB300": 72,
}


def number(cell: str) -> tuple[str, str]:
    """Return (clean number or '', status) where status is '', 'unverified', 'derived' or 'n/a'."""
    text = cell.strip()
    if not text:
        return "", ""
    if text.lower() == "n/a":
        return "", "n/a"
    if text.upper().startswith("UNVERIFIED"):
        return "", "unverified"
    match = re.search(r"[\d.]+", text)
    if not match:
        return "", "unverified"
    if "UNVERIFIED" in text.upper():
        return match.group(0).rstrip("."), "unverified"
    derived = text.startswith("~") or "derived" in text.lower() or "CONFLICT" in text.upper()
    return match.group(0).rstrip("."), "derived" if derived else ""


def build_gpus() -> list[dict[str, str]]:
    rows = []
    with open(REFERENCE / "gpus.csv", encoding="utf-8") as handle:
        references = list(csv.DictReader(handle))
    for ref in references:
        flagged = []
        row = {
            "id": ref["id"],
            "vendor": ref["vendor"],
            "name": ref["name"],
            "architecture": ref["architecture"],
            "memory_type": ref["memory_type"],
        }
        for field, column in [
            ("memory_gb", "memory_gb"),
            ("memory_bandwidth_tbs", "memory_bandwidth_tbs"),
            *GPU_NUMERIC.items(),
            ("interconnect_gbs", "interconnect_gbs_bidir"),
            ("pcie_gen", "pcie_gen"),
            ("tdp_w", "tdp_w"),
            ("release_year", "release_year"),
        ]:
            value, status = number(ref[column])
            row[field] = value
            if status in ("unverified", "derived"):
                flagged.append(f"{field}:{status}")
        row["interconnect"] = ref["interconnect"]
        row["scaleup_domain_gpus"] = str(SCALEUP_DOMAIN.get(ref["id"], 1))
        row["form_factor"] = ref["form_factor"]
        row["unverified_fields"] = ";".join(flagged)
        row["verification"] = ref["verification"]
        row["source_url"] = ref["source_url"]
        row["notes"] = "; ".join(x for x in (ref["dense_derivation"], ref["notes"]) if x)
        rows.append(row)
    return rows


def build_models() -> list[dict[str, str]]:
    with open(REFERENCE / "models.csv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write(path: Path, rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    write(ROOT / "seed_data" / "gpus.csv", build_gpus())
    write(ROOT / "seed_data" / "models.csv", build_models())
    print("wrote seed_data/gpus.csv and seed_data/models.csv")
