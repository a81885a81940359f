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

sys.path.insert(0, str(ROOT))
from scripts.reference_arg import DEFAULT_REFERENCE, reference_dir  # noqa: E402

REFERENCE = DEFAULT_REFERENCE  # or the command line's first argument (reference_arg)
from scripts.adapter_layout import SAME_ARCHITECTURE, fused_cells, mla_dims  # noqa: E402  (what LoRA adapts)
from scripts.release_precisions import read_quality, release_precision  # noqa: E402  (each model's release dtype)

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
    # Added with the 2026-12 reference: HGX boards of 8 (H800, H20 "HGX 8-GPU" per form_factor; V100
    # SXM2 in DGX-1/HGX-1), the A40's 2-way NVLink bridge, trn1.32xlarge's 16 chips (AWS Neuron docs).
    "H800": 8,
    "H20": 8,
    "V100-SXM2-32GB": 8,
    "A40": 2,
    "TRN1": 16,
}

# Why a reference GPU is left out of the seed (printed by the build); the app needs bandwidth and memory.
REQUIRED = ("memory_gb", "memory_bandwidth_tbs")

# Row-level verification wording that marks the tensor peaks as not read from a vendor table.
UNVERIFIED_PEAK_HINTS = ("unverified tensor",)
DERIVED_PEAK_HINTS = ("tensor values derived", "tensor figures derived", "compute copied", "compute assumed")
# A field note ("bf16_tflops_dense: derived: ...") that says the number was computed, not published.
DERIVED_NOTE_HINTS = ("derived", "computation", "assumed")


# A cell's figure is the number it opens with ("~504 (derived)", "6 (UNVERIFIED)"); a cell that opens with words
# ("CONFLICTING (... B300 table: 2 POPS ...)", "not published") or a range ("450-1000 (...)") has no one figure.
LEADING_FIGURE = re.compile(r"~?\s*(\d+(?:\.\d+)?)(.*)", re.DOTALL)
RANGE = re.compile(r"\s*[-–]\s*~?\d")
# Annotations that name the format of a published figure, not a doubt about it (Neuron docs: configurable FP8).
PLAIN_ANNOTATIONS = ("(cFP8)", "(maxtext; HF text_config 262208)", "(text, 3.2 revision)")
GIB_IN_GB = 2**30 / 1e9  # "192 (GiB)" in a GB column


def number(cell: str) -> tuple[str, str]:
    """Return (clean number or '', status) where status is '', 'unverified', 'derived' or 'n/a'.

    Only the figure a cell opens with is taken, never a number found inside its words; a range, a conflict or an
    annotation not known to be plain is flagged (a range or a cell without a leading figure gives no number)."""
    text = cell.strip()
    if not text:
        return "", ""
    if text.lower() == "n/a":
        return "", "n/a"
    match = LEADING_FIGURE.fullmatch(text)
    if match is None:
        return "", "unverified"
    figure, rest = match.group(1), match.group(2).strip()
    if RANGE.match(rest):
        return "", "unverified"
    if rest == "(GiB)":
        return f"{float(figure) * GIB_IN_GB:.1f}", "derived"
    if "UNVERIFIED" in text.upper() or "CONFLICT" in text.upper():
        return figure, "unverified"
    derived = text.startswith("~") or any(w in text.lower() for w in ("derived", "assumed"))
    if derived:
        return figure, "derived"
    return figure, "" if not rest or rest in PLAIN_ANNOTATIONS else "unverified"


def dropped_cell_remark(column: str, cell: str) -> str:
    """The reference's words for a cell with figures in it that gave no number or a doubted one (a range, a
    conflict), kept in the notes; a bare UNVERIFIED or 'not published' adds nothing."""
    value, status = number(cell)
    text = cell.strip()
    if status == "unverified" and re.search(r"\d", text) and text != value:
        return f"{column}: {text}"
    return ""


def field_note(notes: str, column: str) -> str:
    """The reference's per-field note ("bf16_tflops_dense: derived: ..."), lower-cased, or ''."""
    match = re.search(rf"{column}:([^|]*)", notes)
    return match.group(1).strip().lower() if match else ""


def peak_verification(ref: dict[str, str]) -> str:
    """Status of the 16-bit tensor peak the engine runs on (BF16, else FP16): verified | derived |
    unverified | missing (no figure: the engine falls back to 2 x FP32 and says so)."""
    for column in ("bf16_tflops_dense", "fp16_tflops_dense"):
        value, status = number(ref[column])
        if value:
            break
    else:
        return "missing"
    verification = ref["verification"].lower()
    if (
        status == "unverified"
        or verification.startswith("unverified")
        or any(hint in verification for hint in UNVERIFIED_PEAK_HINTS)
    ):
        return "unverified"
    note = field_note(ref["notes"], column)
    if (
        status == "derived"
        or any(hint in verification for hint in DERIVED_PEAK_HINTS)
        or any(note.startswith(hint) or f" {hint} " in f" {note} " for hint in DERIVED_NOTE_HINTS)
    ):
        return "derived"
    return "verified"


def build_gpus(dropped: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The seed's GPU rows; each reference row left out is appended to `dropped` with why (the build's record,
    written to seed_data/reference_left_out.csv and shown on /gpus)."""
    rows = []
    with open(REFERENCE / "gpus.csv", encoding="utf-8") as handle:
        references = list(csv.DictReader(handle))
    for ref in references:
        missing = [column for column in REQUIRED if not number(ref[column])[0]]
        if missing:
            if dropped is not None:
                dropped.append(
                    {
                        "reference_file": "gpus.csv",
                        "id": ref["id"],
                        "name": ref["name"],
                        "reason": f"{', '.join(missing)} not published in the reference (the estimator needs it)",
                    }
                )
            continue
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
        row["peak_verification"] = peak_verification(ref)
        row["verification"] = ref["verification"]
        row["source_url"] = ref["source_url"]
        remarks = [dropped_cell_remark(column, ref[column]) for column in (*GPU_NUMERIC.values(), "tdp_w")]
        row["notes"] = "; ".join(x for x in (ref["dense_derivation"], ref["notes"], *remarks) if x)
        rows.append(row)
    return rows


MODEL_TEXT = ("id", "name", "attention", "source_url", "notes")

# Rows whose notes say "Fill params from the base row": the base whose dimensions they copy (all six
# shape fields equal, checked below).
PARAMS_FROM_BASE = {
    "deepseek-r1-distill-qwen-7b": "qwen2.5-7b",
    "deepseek-r1-distill-qwen-14b": "qwen2.5-14b",
    "deepseek-r1-distill-qwen-32b": "qwen2.5-32b",
    "deepseek-r1-distill-llama-8b": "llama-3.1-8b",
    "deepseek-r1-distill-llama-70b": "llama-3.1-70b",
    "llama-3.1-nemotron-70b": "llama-3.1-70b",
}
SHAPE = ("layers", "hidden_size", "num_attention_heads", "num_kv_heads", "intermediate_size", "vocab_size")
# Parameter counts the reference left empty, each with where it comes from.
PARAMS_FILLED = {
    # config.json in the reference row: 40 x (attention 52.4M + MLP 220.2M) + untied embeddings 2 x 0.67B.
    ("mistral-nemo-12b", "params_b"): ("12.25", "derived from the config (card: ~12B)"),
    ("mistral-nemo-12b", "active_params_b"): ("12.25", "dense: active = total"),
    # The reference's own note: "Active params (32B per Moonshot card) not re-read here".
    ("kimi-k2", "active_params_b"): ("32", "Moonshot model card (32B activated), not re-read in the reference"),
}

# Sliding-window attention, by id: (window tokens, layers that use it), from the reference row's notes and
# its source config.json (sliding_window, layer_types / sliding_window_pattern). An explicit table rather
# than a parse of free-text notes, which word it four ways; tests/test_seed_specs.py checks that every
# reference row whose notes mention a sliding window is here, in SLIDING_WINDOW_LEFT_OUT or says it has
# none, and that the window matches the notes. Rows not here have no sliding window.
SLIDING_WINDOW = {
    # "Alternating full / sliding-window (128) attention" (config.json layer_types alternate): half of 36 / 24.
    "gpt-oss-120b": (128, 18),
    "gpt-oss-20b": (128, 12),
    # "Alternating local sliding-window (4096) / global attention layers": half of 42 / 46.
    "gemma-2-9b": (4096, 21),
    "gemma-2-27b": (4096, 23),
    # "sliding_window 1024 on 5 of every 6 layers ... global every 6th layer": layers - layers // 6.
    "gemma-3-4b": (1024, 34 - 34 // 6),
    "gemma-3-12b": (1024, 48 - 48 // 6),
    "gemma-3-27b": (1024, 62 - 62 // 6),
    # "chunked attention (8192) on 3 of 4 layers" (config.json attention_chunk_size 8192; every 4th layer global,
    # no RoPE): a chunked layer attends within its 8192-token chunk, so it caches at most 8192 tokens, as a window
    # of 8192 does (an upper bound: a chunk holds 1 to 8192 tokens, half on average). 48 - 48 // 4 layers.
    "llama-4-scout": (8192, 48 - 48 // 4),
    "llama-4-maverick": (8192, 48 - 48 // 4),
}
# Where a window's source is the config, not the reference row's notes: the words added to the row's notes.
WINDOW_FROM_CONFIG = {
    "llama-4-maverick": "chunked attention (8192) on 3 of 4 layers, as Llama 4 Scout (config.json text_config "
    "attention_chunk_size 8192, no_rope_layers: every 4th layer global)",
}
# Reference rows whose notes mention a window that the seed leaves out, and why.
SLIDING_WINDOW_LEFT_OUT = {
    # "v0.1 uses a 4096-token sliding window; the exact Mistral-7B revision used by the benchmark is not
    # stated (v0.3: ... no sliding window)". The 15 TensorRT-LLM perf-overview cases fall with context as
    # full attention predicts (H100 20000/2000: 1,373 tok/s/GPU published, 1,388 full, 3,848 windowed).
    "mistral-7b": "benchmarks of this row run without the window",
}

# MoE layers: a count the reference row's notes state ("58 MoE layers", "1 dense + 60 MoE layers", "89 MoE"), else
# the row named here whose count it shares (its notes say "Same architecture as DeepSeek-V3"), else every layer of a
# model with experts. The layers left over have a dense FFN of intermediate_size (config.json first_k_dense_replace,
# interleave_moe_layer_step); tests/test_seed_specs.py holds the counts to the notes.
STATED_MOE_LAYERS = re.compile(r"(?<![\w.])(\d+) MoE\b")
MOE_LAYERS_AS = SAME_ARCHITECTURE


def moe_layers(row: dict[str, str], by_id: dict[str, dict[str, str]]) -> str:
    """The row's MoE layer count as a cell: stated in its notes, shared with MOE_LAYERS_AS's row, or every layer
    when it has experts (0 for a dense model)."""
    if not row["num_experts"] or int(row["num_experts"]) == 0:
        return "0"
    source = by_id[MOE_LAYERS_AS[row["id"]]] if row["id"] in MOE_LAYERS_AS else row
    stated = {int(n) for n in STATED_MOE_LAYERS.findall(source["notes"])}
    assert len(stated) <= 1, f"{row['id']}: the notes state {sorted(stated)} MoE layers"
    count = stated.pop() if stated else int(row["layers"])
    assert 0 < count <= int(row["layers"]), f"{row['id']}: {count} MoE layers of {row['layers']}"
    return str(count)


def build_models() -> list[dict[str, str]]:
    """Numbers stay numbers: an annotated cell ("7.62 (derived)", "~1000 ("1T" per card)") keeps its
    number and the annotation moves to the notes, naming the field."""
    with open(REFERENCE / "models.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    quality = read_quality(REFERENCE)
    for row in rows:
        remarks = []
        for name in row:
            cell = row[name].strip()
            if name in MODEL_TEXT or not cell or re.fullmatch(r"\d+(\.\d+)?", cell):
                continue
            row[name], _ = number(cell)
            remarks.append(f"{name}: {cell}")
        by_id = {r["id"]: r for r in rows}
        for name in ("params_b", "active_params_b"):
            if row[name]:
                continue
            if row["id"] in PARAMS_FROM_BASE:
                base = by_id[PARAMS_FROM_BASE[row["id"]]]
                assert all(base[f] == row[f] for f in SHAPE), f"{row['id']} does not share {base['id']}'s shape"
                row[name] = base[name] or number(base[name])[0]
                remarks.append(f"{name}: from the {base['id']} row (same shape)")
            elif (row["id"], name) in PARAMS_FILLED:
                row[name], why = PARAMS_FILLED[(row["id"], name)]
                remarks.append(f"{name}: {why}")
        row["notes"] = "; ".join(x for x in (row["notes"], *remarks) if x)
        window, sliding = SLIDING_WINDOW.get(row["id"], (0, 0))
        assert sliding <= int(row["layers"]), f"{row['id']}: more sliding layers than layers"
        if row["id"] in WINDOW_FROM_CONFIG:
            row["notes"] = f"{row['notes']}; {WINDOW_FROM_CONFIG[row['id']]}"
        row["sliding_window"], row["sliding_layers"] = str(window), str(sliding)
        row["release_precision"], row["release_precision_source"] = release_precision(row, quality)
    references = {r["id"]: r for r in rows}
    for row in rows:
        row["moe_layers"] = moe_layers(row, references)
        row.update(mla_dims(row, references) | fused_cells(row))
    return rows


LEFT_OUT_FILE = "reference_left_out.csv"
LEFT_OUT_COLUMNS = ("reference_file", "id", "name", "reason")


def write_left_out(path: Path, rows: list[dict[str, str]]) -> None:
    """The reference rows the seed leaves out and why (a header alone when none is)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=LEFT_OUT_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write(path: Path, rows: list[dict[str, str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    REFERENCE = reference_dir(sys.argv, "build_seed_specs.py", "seed_data/gpus.csv, models.csv, reference_left_out.csv")
    left_out: list[dict[str, str]] = []
    gpu_rows = build_gpus(left_out)
    write(ROOT / "seed_data" / "gpus.csv", gpu_rows)
    write(ROOT / "seed_data" / "models.csv", build_models())
    write_left_out(ROOT / "seed_data" / LEFT_OUT_FILE, left_out)
    print(f"wrote seed_data/gpus.csv ({len(gpu_rows)} GPUs), seed_data/models.csv and seed_data/{LEFT_OUT_FILE}")
    for row in left_out:
        print(f"  left out {row['id']}: {row['reason']}")
    for status in ("verified", "derived", "unverified", "missing"):
        names = [r["id"] for r in gpu_rows if r["peak_verification"] == status]
        print(f"  16-bit peak {status}: {len(names)} {' '.join(names) if status != 'verified' else ''}")
