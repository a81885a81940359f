"""Engines run only on the vendors their docs name: TensorRT-LLM on an MI300X was ranked feasible (batch 187)."""

from datetime import date

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.engine_support import ENGINE_VENDORS, filter_reason, runs_on, unsupported_reason
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _offer(gpu_id: str, provider: str) -> Offer:
    return Offer(provider, provider.upper(), gpu_id, 8, "on_demand", 3.0, date(2025, 1, 1))


def _feasible(engine: str, *gpu_ids: str) -> dict[str, tuple[bool, str]]:
    snapshot = CatalogSnapshot(gpus=GPUS, offers=tuple(_offer(g, f"p{i}") for i, g in enumerate(gpu_ids)))
    workload = InferenceWorkload(model="llama-3.1-8b", engine=engine)
    ranking = rank_inference(workload, snapshot, MODELS["llama-3.1-8b"])
    return {o.gpu_id: (o.feasible, o.reason) for o in ranking.options}


def test_trtllm_on_an_amd_gpu_is_infeasible_naming_the_engine_and_vendor() -> None:
    rows = _feasible("trtllm", "MI300X", "H100-SXM")
    assert rows["H100-SXM"][0]
    feasible, reason = rows["MI300X"]
    assert not feasible and "engine trtllm" in reason and "AMD" in reason and "NVIDIA only" in reason
    assert "choose engine vllm" in reason


def test_vllm_still_serves_amd_and_the_table_keeps_every_catalog_vendor_served_by_some_engine() -> None:
    rows = _feasible("vllm", "MI300X", "H100-SXM")
    assert rows["MI300X"][0] and rows["H100-SXM"][0]
    for gpu in GPUS.values():  # no catalog GPU is left with no engine at all
        assert any(runs_on(engine, gpu.vendor) for engine in ENGINE_VENDORS), gpu.id


def test_sglang_and_llamacpp_do_not_run_on_tpus_or_gaudi() -> None:
    for engine in ("sglang", "llamacpp", "hf", "trtllm"):
        for gpu_id in ("TPU-V6E", "GAUDI3", "TRN2"):
            assert unsupported_reason(engine, GPUS[gpu_id]) is not None, (engine, gpu_id)
    assert unsupported_reason("vllm", GPUS["TPU-V6E"]) is None


def test_a_filter_refusal_needs_every_gpu_left_unsupported() -> None:
    assert filter_reason("trtllm", [GPUS["MI300X"], GPUS["H100-SXM"]]) is None
    assert filter_reason("trtllm", []) is None
    reason = filter_reason("trtllm", [GPUS["MI300X"], GPUS["MI325X"]])
    assert reason is not None and "leave only AMD" in reason and "vllm" in reason
