"""An estimate whose engine or ROCm factors rest on old builds says so (issue 10 item 2: "ROCm builds of 2024 are not
those of 2026"). Before, a buyer asking in Dec 2026 about vLLM on MI300X got numbers fitted on 2024 ROCm builds
(argonne's vLLM 0.6.1, MLPerf v4.1's vLLM 0.4.3 / ROCm 6.1.2) with no word of their age; the numbers do not move."""

from __future__ import annotations

import csv
import io
from datetime import date

from fastapi.testclient import TestClient

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.explanation.software_era import (
    NEWEST_BUILD_DATE,
    STALE_AFTER_MONTHS,
    old_builds_words,
    stale_software_note,
)
from app.scoring.workload import InferenceWorkload

ROCM = ("amd_mbu_factor", "amd_mfu_factor")
VLLM_70B = "phase=inference&model=llama-3.1-70b&weight_dtype=fp8&engine=vllm&include_stale=true"


def test_a_price_a_year_after_the_newest_rocm_build_says_which_builds_and_what_the_band_is_not() -> None:
    assert stale_software_note(ROCM, date(2025, 11, 30)) == "", "12 months after 2024-11: not yet old"
    note = stale_software_note(("vllm_factor", *ROCM), date(2026, 12, 1))
    assert note.startswith("ROCm factors from mlperf-inf-v4.1 (2024-08: vLLM 0.4.3, ROCm 6.1.2) and ")
    assert "argonne-llm-inference-bench (2024-11: vLLM 0.6.1), the newest 25 months before" in note
    assert "the band's upper edge is not evidence of 2026 software" in note
    assert "vLLM's factor" not in note, "vLLM's own factor rests on a 2026 build"
    assert stale_software_note(ROCM, None) == "", "no price date: nothing to date the builds against"


def test_llama_cpp_factors_from_one_2023_publication_are_old_and_fresh_engine_factors_are_not() -> None:
    assert "llama.cpp factors from llamacpp-xiongjiedai-2023-12 (2023-12)" in old_builds_words(["llamacpp_mbu_factor"])
    assert old_builds_words(["vllm_factor", "sglang_factor", "decode_mbu"]) == ""
    assert STALE_AFTER_MONTHS == 12 and NEWEST_BUILD_DATE >= "2026"


def test_an_mi300x_estimates_terms_name_its_rocm_builds_and_an_h100s_do_not() -> None:
    gpus, models = load_gpu_specs(), load_model_specs()
    workload = InferenceWorkload(model="llama-3.1-70b", engine="vllm", weight_dtype="fp8", tpot_ms=50)
    amd = estimate_inference(gpus["MI300X"], 1, models["llama-3.1-70b"], workload, 1, 1)
    nvidia = estimate_inference(gpus["H100-SXM"], 2, models["llama-3.1-70b"], workload, 2, 1)
    assert amd.software_constants == ("vllm_factor", "amd_mbu_factor", "amd_mfu_factor")
    terms = {t.name: t.detail for t in amd.terms}
    for name in ("decode memory time", "decode compute time"):
        assert "argonne-llm-inference-bench (2024-11: vLLM 0.6.1)" in terms[name], name
        assert "newer builds are likely faster" in terms[name], name
    assert not any("newer builds" in t.detail for t in nvidia.terms)


def test_a_ranked_mi300x_row_dates_its_rocm_builds_against_its_price_in_json_csv_and_assumptions(
    client: TestClient,
) -> None:
    options = [o for o in client.get(f"/rank.json?{VLLM_70B}&gpus=MI300X,H100-SXM").json()["options"] if o["feasible"]]
    amd = [o for o in options if o["gpu_id"] == "MI300X" and o["as_of"]]
    nvidia = [o for o in options if o["gpu_id"] == "H100-SXM"]
    assert amd and nvidia
    for option in amd:
        price_date = date.fromisoformat(option["as_of"])
        assert option["software_era_note"] == stale_software_note(ROCM, price_date)
        if (price_date.year - 2024) * 12 + price_date.month - 11 > STALE_AFTER_MONTHS:
            assert "vLLM 0.6.1" in option["software_era_note"]
            assert option["software_era_note"] in option["assumptions"]
    assert all(o["software_era_note"] == "" for o in nvidia)
    assert any(o["software_era_note"] for o in amd), "the catalog's MI300X prices are of 2026"
    text = client.get(f"/rank.csv?{VLLM_70B}&gpus=MI300X,H100-SXM").text
    header = next(csv.reader(io.StringIO(text)))
    assert header[-1] == "software_era_note", "appended last: every earlier column keeps its position"
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["gpu_id"] == "MI300X" and r["feasible"] == "true"]
    assert any("argonne-llm-inference-bench (2024-11: vLLM 0.6.1)" in r["software_era_note"] for r in rows)


def test_methodology_shows_each_constants_evidence_dates(client: TestClient) -> None:
    body = client.get("/methodology.json").json()
    amd = next(c for c in body["inference_constants"] if c["name"] == "amd_mbu_factor")["evidence"]
    assert (amd["first_date"], amd["last_date"]) == ("2024-08", "2024-11")
    html = client.get("/methodology").text
    assert f'{amd["rows"]} rows, 2 publications <span class="evidence-dates">(2024-08 to 2024-11)</span>' in html
    trained = [c["evidence"] for c in body["training_constants"] if c["evidence"]]
    assert trained and all(e["last_date"] for e in trained), "training's constants are dated too"


def test_the_results_page_marks_rows_on_old_rocm_builds_and_says_why(client: TestClient) -> None:
    html = client.get(f"/?{VLLM_70B}&gpus=MI300X").text
    assert 'class="badge warn software-era"' in html and "argonne-llm-inference-bench (2024-11: vLLM 0.6.1)" in html
    nvidia = client.get(f"/?{VLLM_70B}&gpus=H100-SXM").text
    assert 'class="summary"' in nvidia and "software-era" not in nvidia
