"""The one-line summary a results page folds its form under (app/web/forms/form_summary.py) names what was asked: the
model, precision, lengths, limits and load of an inference question; the method, run shape, budget and limits of a
training run."""

from __future__ import annotations

from app.scoring.serving.mix.question import MixQuestion
from app.scoring.serving.ownership.question import OwnershipQuestion
from app.scoring.serving.traffic.week import Traffic
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from app.web.forms import form_summary as fs

NAME = "Llama 3.1 70B"


def test_inference_summary_names_model_precision_lengths_limits_and_peak() -> None:
    workload = InferenceWorkload(
        model="llama-3.1-70b", weight_dtype="fp8", input_len=2048, output_len=256, ttft_ms=1000, tpot_ms=50,
        peak_requests_per_s=4,
    )  # fmt: skip
    assert fs.inference_summary(workload, NAME) == (
        "Llama 3.1 70B · FP8 · 2,048 → 256 tokens · TTFT ≤ 1,000 ms · TPOT ≤ 50 ms · 4 req/s peak"
    )


def test_inference_summary_says_each_scenarios_load() -> None:
    loads = {
        "latency bound": {},
        "16 clients": {"scenario": "concurrency", "concurrency": 16},
        "2.5 req/s": {"scenario": "request_rate", "requests_per_s": 2.5},
        "batch 8": {"scenario": "fixed_batch", "batch": 8},
        "one stream": {"scenario": "single_stream"},
        "a job of 200,000 requests in 4 h": {"scenario": "max_throughput", "job_requests": 200_000,
                                             "job_deadline_hours": 4},
        "1,000 clients at peak": {"peak_concurrency": 1000},
    }  # fmt: skip
    for words, fields in loads.items():
        line = fs.inference_summary(InferenceWorkload(**fields), "M")  # type: ignore[arg-type]
        assert line.endswith(f" · {words}"), (fields, line)


def test_precision_summary_leaves_the_precision_out_and_takes_a_pages_own_load() -> None:
    line = fs.inference_summary(InferenceWorkload(weight_dtype="fp8"), "M", load="9 requests/day", dtype=False)
    assert line == "M · 2,000 → 400 tokens · TTFT ≤ 1,000 ms · TPOT ≤ 50 ms · 9 requests/day"


def test_training_summary_names_method_precision_run_shape_budget_and_limits() -> None:
    workload = TrainingWorkload(
        model="llama-3.1-70b", method="full_ft", precision="fp8", seq_len=8192, global_batch_seqs=512,
        total_tokens=1e10, max_days=14, max_gpus=256, budget_usd=250_000,
    )  # fmt: skip
    assert fs.training_summary(workload, NAME) == (
        "Llama 3.1 70B · full fine-tune · FP8 · 8,192-token sequences × 512 per step · 10 billion tokens"
        " · ≤ 14 days · ≤ 256 GPUs · ≤ $250,000"
    )
    slow_end = fs.training_summary(workload.model_copy(update={"limits_at": "band_high"}), NAME)
    assert slow_end.endswith(" · ≤ $250,000 · even at the band's slow end")


def test_training_summary_gives_an_adapters_rank() -> None:
    line = fs.training_summary(TrainingWorkload(method="qlora", lora_rank=64), "M")
    assert line.startswith("M · QLoRA r64 · BF16 · 4,096-token sequences × 64 per step · 2 billion tokens")


def test_question_summary_picks_the_phase_and_the_catalog_or_custom_name() -> None:
    snapshot = CatalogSnapshot()  # an empty catalog: the id stands in for the name
    assert fs.question_summary(TrainingWorkload(model="llama-3.1-8b"), snapshot).startswith("llama-3.1-8b · LoRA")
    custom = ModelArchitecture(
        name="my-model", params_b=7, layers=32, hidden_size=4096, num_attention_heads=32, intermediate_size=11008
    )
    line = fs.question_summary(InferenceWorkload(model=None, custom_model=custom), snapshot)
    assert line.startswith("my-model · BF16 · 2,000 → 400 tokens")


def test_traffic_plan_mix_and_own_summaries() -> None:
    assert fs.traffic_summary(Traffic(requests_per_day=500_000)) == "500,000 requests/day"
    assert fs.traffic_summary(Traffic(peak_requests_per_s=2.5)) == "2.5 req/s peak"
    line = fs.traffic_question_summary(InferenceWorkload(), Traffic(requests_per_day=1000), CatalogSnapshot(), 12)
    assert line.endswith("TPOT ≤ 50 ms · 1,000 requests/day · trained, then served 12 months")
    mix = MixQuestion(mix="chat:7,1000x200:3", requests_per_day=200_000)  # type: ignore[arg-type]
    assert fs.mix_summary(mix, "M") == (
        "M · BF16 · TTFT ≤ 1,000 ms · TPOT ≤ 50 ms · 200,000 requests/day · lengths chat 70%, 1000x200 30%"
    )
    own = OwnershipQuestion(gpu="H200", gpu_count=16, utilisation_pct=72.5)
    assert fs.own_summary(own) == "16 × H200 · 8 per server · 72.5% utilisation"
    own = OwnershipQuestion(gpu="H200", pue=1.3, usd_per_kwh=0.2, rental_usd_per_gpu_hour=None, resale_pct=0)
    assert fs.own_summary(own).endswith("60% utilisation · 2 costs of yours")


def test_a_summary_says_where_the_limits_were_met() -> None:
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", limits_at="band_high")
    assert " · TPOT ≤ 50 ms · even at the bands' slow end · " in fs.inference_summary(workload, NAME)
    assert "slow end" not in fs.inference_summary(InferenceWorkload(limits_at="estimate"), NAME)


def test_a_plan_of_one_month_says_month_not_months() -> None:
    line = fs.traffic_question_summary(InferenceWorkload(), Traffic(requests_per_day=10), CatalogSnapshot(), 1)
    assert line.endswith(" · 10 requests/day · trained, then served 1 month"), line
