"""The estimator's kernel terms beside kernels timed on a GPU (docs/measurements, app/calibration/device_check.py)."""

import json

import pytest

from app.calibration import device_check
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.cli.main import main
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, MAX_MBU

GPUS, MODELS = load_gpu_specs(), load_model_specs()
CHECKED_KINDS = {"gemm", "attention_decode", "moe", "moe_served", "decode", "prefill"}


@pytest.fixture(scope="module")
def recorded() -> list[tuple[dict, dict]]:
    files = device_check.measurement_files()
    assert files, "docs/measurements holds the recorded GPU runs"
    return [(data, device_check.check_measurements(data, GPUS, MODELS)) for data in map(device_check.load, files)]


def test_every_timed_row_is_set_beside_an_estimate(recorded: list[tuple[dict, dict]]) -> None:
    kinds: set[str] = set()
    for data, result in recorded:
        timed = [r for r in data["rows"] if r["kind"] in CHECKED_KINDS and "error" not in r]
        timed += [r for r in data["rows"] if r["kind"] == "moe_layer" and r["host_ms"] >= device_check.MIN_HOST_MS]
        assert len(result["checks"]) == len(timed) > 0
        assert all(c.measured_ms > 0 and c.estimated_ms > 0 for c in result["checks"])
        kinds |= set(result["summary"])
    assert kinds >= {"gemm", "decode", "prefill", "moe", "attention_decode"}
    assert kinds >= {"attention_decode_cudnn", "prefill_cudnn", "moe_cublas_per_expert"}
    assert kinds >= {"moe_served_bf16_grouped_mm", "moe_served_fp8_grouped_mm", "moe_served_fp8_per_expert"}
    assert "moe_layer" in kinds
    models = {c.label.split(",")[0] for _, r in recorded for c in r["checks"] if c.kind == "moe"}
    assert models == {"Mixtral 8x7B", "Qwen3-30B-A3B", "DeepSeek-R1", "gpt-oss-120b"}


def test_a_gemm_estimate_is_the_soft_roofline_by_hand() -> None:
    eff = DEFAULT_EFFICIENCY
    m, n, k = 64, 28672, 4096
    row = {"kind": "gemm", "layer": "up", "dtype": "bf16", "m": m, "n": n, "k": k, "ms": 0.06}
    data = {"env": {"gpu": "NVIDIA H200"}, "rows": [row]}
    (check,) = device_check.check_measurements(data, GPUS, MODELS)["checks"]
    h200 = GPUS["H200"]
    memory = n * k * 2 / (h200.memory_bandwidth_tbs * 1e12 * min(eff.decode_mbu, MAX_MBU)) * 1e3
    compute = 2 * m * n * k / (h200.bf16_tflops * 1e12 * eff.mfu_max) * 1e3
    high, low = max(memory, compute), min(memory, compute)
    expected = high * (1 + (low / high) ** eff.overlap_power) ** (1 / eff.overlap_power)
    assert check.estimated_ms == pytest.approx(expected, rel=1e-9)
    assert check.ratio == pytest.approx(expected / 0.06)


def test_the_committed_constants_stay_inside_what_the_kernels_measured(recorded: list[tuple[dict, dict]]) -> None:
    """A refit that drifts the streaming or matmul efficiencies away from what cuBLAS does on the GPU fails here:
    every dense GEMM, bf16 and FP8, within 0.6-1.35x of its timed kernel, and bf16 prefill of 512-4,096 tokens,
    which is matmuls almost entirely, within 20 %."""
    runs = [result for _, result in recorded if "gemm" in result["summary"]]
    assert runs
    for result in runs:
        gemms = [c for c in result["checks"] if c.kind == "gemm"]
        assert gemms and all(0.6 <= c.ratio <= 1.35 for c in gemms), [(c.label, c.ratio) for c in gemms]
        prefill = [
            c
            for c in result["checks"]
            if c.kind == "prefill" and any(f" {n} tokens" in c.label for n in (512, 1024, 2048, 4096))
        ]
        assert prefill and all(0.8 <= c.ratio <= 1.2 for c in prefill), [(c.label, c.ratio) for c in prefill]


def test_the_streaming_constants_match_the_fastest_kernel_timed(recorded: list[tuple[dict, dict]]) -> None:
    """KV-cache and routed-expert streaming: the fit puts both at the dense rate (kv_mbu_factor and moe_mbu_factor at
    1.0). PyTorch's FlashAttention-2 and the CUTLASS grouped GEMM run well below it; cuDNN's decode attention from
    batch 32 and one cuBLAS GEMM pair per Mixtral expert reach it, within 25 %. A refit that drifts either constant
    far from what those kernels do fails here."""
    runs = [result for _, result in recorded if "attention_decode_cudnn" in result["summary"]]
    assert runs
    for result in runs:
        checks = result["checks"]
        cudnn = [c for c in checks if c.kind == "attention_decode_cudnn" and int(c.label.split()[1]) >= 32]
        experts = [c for c in checks if c.kind == "moe_cublas_per_expert" and c.label.startswith("Mixtral")]
        for group in (cudnn, experts):
            assert group and all(0.75 <= c.ratio <= 1.25 for c in group), [(c.label, c.ratio) for c in group]


def test_fp8_behind_the_scripts_own_quantisation_is_kept_apart() -> None:
    assert device_check.kind_of({"kind": "decode", "weights": "fp8"}) == "decode_unfused_fp8"
    assert device_check.kind_of({"kind": "gemm", "dtype": "fp8+quant"}) == "gemm_unfused_fp8"
    assert device_check.kind_of({"kind": "gemm", "dtype": "fp8"}) == "gemm"
    assert device_check.kind_of({"kind": "decode", "weights": "bf16"}) == "decode"
    assert device_check.kind_of({"kind": "attention_decode", "backend": "CUDNN_ATTENTION (enable_gqa)"}) == (
        "attention_decode_cudnn"
    )
    assert device_check.kind_of({"kind": "moe", "impl": "cublas_per_expert"}) == "moe_cublas_per_expert"
    assert device_check.kind_of({"kind": "moe", "impl": "grouped_mm"}) == "moe"


def test_a_served_expert_shard_is_priced_by_hand() -> None:
    """DeepSeek-R1's experts split over TP8 at one token: the 8 touched experts' eighth-shards, FP8, streamed at
    the dense rate (the roofline's compute side is negligible at one token)."""
    row = {"kind": "moe_served", "impl": "fp8_grouped_mm", "model": "deepseek-r1/tp8", "tokens": 1}
    row |= {"experts_touched": 8, "ms": 0.1}
    (check,) = device_check.check_measurements({"env": {"gpu": "NVIDIA H200"}, "rows": [row]}, GPUS, MODELS)["checks"]
    r1, h200 = MODELS["deepseek-r1"], GPUS["H200"]
    shard_bytes = 8 * 3 * r1.hidden_size * r1.moe_intermediate_size / 8
    streaming_ms = shard_bytes / (h200.memory_bandwidth_tbs * 1e12 * min(DEFAULT_EFFICIENCY.decode_mbu, MAX_MBU)) * 1e3
    assert check.kind == "moe_served_fp8_grouped_mm"
    assert check.estimated_ms == pytest.approx(streaming_ms, rel=0.01)
    assert device_check.served_split("deepseek-r1/ep8") == ("deepseek-r1", (1, 8))


def test_an_eager_moe_layer_sets_its_host_time_beside_the_prefill_constant() -> None:
    """Eager minus graphed time of one MoE layer is the host's exposed share, set beside moe_prefill_layer_ms; a
    difference inside run-to-run noise (the GPU work hid the host's) is left out rather than shown as a ratio."""
    layer = {"kind": "moe_layer", "model": "qwen3-30b-a3b/tp1", "tokens": 128, "eager_ms": 0.6, "graph_ms": 0.5}
    rows = [layer | {"host_ms": 0.1}, layer | {"tokens": 4096, "host_ms": 0.001}]
    (check,) = device_check.check_measurements({"env": {"gpu": "NVIDIA H200"}, "rows": rows}, GPUS, MODELS)["checks"]
    assert (check.kind, check.measured_ms) == ("moe_layer", 0.1)
    assert check.estimated_ms == DEFAULT_EFFICIENCY.moe_prefill_layer_ms


def test_an_unknown_gpu_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="not in the catalog"):
        device_check.check_measurements({"env": {"gpu": "Imaginary X1"}, "rows": []}, GPUS, MODELS)


def test_the_command_reports_and_refuses_unreadable_files(tmp_path, capsys) -> None:
    assert main(["device-check", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload[0]["gpu"] == "H200" and payload[0]["checks"][0]["ratio"] > 0
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["device-check", str(bad)]) == 2
    assert "cannot read the measurements" in capsys.readouterr().err
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"env": {"gpu": "NVIDIA H200"}, "rows": [{"kind": "gemm", "ms": 1.0}]}))
    assert main(["device-check", str(wrong)]) == 2
