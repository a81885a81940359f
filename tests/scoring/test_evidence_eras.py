"""What era of software each fitted constant rests on (issue 10 item 2: "ROCm builds of 2024 are not those of 2026"):
the dates of the rows a probe of it moves, and the engine builds their notes name. Before, the evidence said only how
many rows and publications, so a buyer could not tell the ROCm factors rest on 2024 builds."""

import csv
from dataclasses import dataclass
from pathlib import Path

from app.calibration.evidence import constant_evidence, software_versions
from app.scoring.efficiency.constant_evidence import SOFTWARE_ERA
from app.scoring.efficiency.inference import SOFTWARE_CONSTANTS


def test_a_rows_builds_are_its_own_engines_and_its_rocm() -> None:
    mlperf_amd = {"engine": "vllm", "notes": "software: vLLM 0.4.3+rocm614, PyTorch 2.3.0, ROCm 6.1.2"}
    assert software_versions(mlperf_amd) == ("vLLM 0.4.3", "ROCm 6.1.2")
    sglang = {"engine": "sglang", "notes": "SGLang v0.3.0 (--enable-torch-compile), vLLM v0.6.0 (compared)"}
    assert software_versions(sglang) == ("SGLang 0.3.0",), "the engine it was compared with is not its build"
    trtllm = {"engine": "trtllm", "notes": "synthetic ISL/OSL; doc date approximate (~2025-02 (v0.17)); gpu H200"}
    assert software_versions(trtllm) == ("TensorRT-LLM 0.17",)
    assert software_versions({"engine": "vllm", "notes": "vLLM ~v0.19.1; BF16 weights"}) == ("vLLM 0.19.1",)
    assert software_versions({"engine": "vllm", "notes": "offline run"}) == ()


@dataclass(frozen=True)
class Knobs:
    amd: float = 0.5


def test_a_constants_dates_span_the_rows_that_move_it_and_each_publication_keeps_its_builds() -> None:
    sources = ["argonne", "mlperf", "other"]
    sensitivity = [frozenset({"amd"}), frozenset({"amd"}), frozenset()]
    eras = [("2024-11", ("vLLM 0.6.1",)), ("2024-08", ("vLLM 0.4.3", "ROCm 6.1.2")), ("2026-04", ("vLLM 0.19.1",))]
    (item,) = constant_evidence(sources, sensitivity, Knobs(), ("amd",), {}, eras)
    assert (item["first_date"], item["last_date"]) == ("2024-08", "2024-11"), "a 2026 row it does not move is no date"
    assert item["publication_eras"] == [
        ["argonne", "2024-11", "2024-11", ["vLLM 0.6.1"]],
        ["mlperf", "2024-08", "2024-08", ["vLLM 0.4.3", "ROCm 6.1.2"]],
    ]


def test_the_rocm_factors_era_is_the_amd_rows_of_the_validation_file(shared_validation: Path) -> None:
    """The committed table against the file it was derived from: every AMD row's publication and date, and no other."""
    with (shared_validation / "inference_cases.csv").open(encoding="utf-8") as file:
        amd = {(row["source"], row["date"]) for row in csv.DictReader(file) if row["gpu"].startswith("MI")}
    for name in ("amd_mbu_factor", "amd_mfu_factor"):
        assert {(source, last) for source, _, last, _ in SOFTWARE_ERA[name]} == amd
        assert max(last for _, _, last, _ in SOFTWARE_ERA[name]) < "2025", "no 2025-26 AMD measurement exists"
    assert set(SOFTWARE_ERA) == set(SOFTWARE_CONSTANTS)
