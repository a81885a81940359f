"""An explained estimate writes its memory at the batch when first read, as a refusal writes its footprint: a ranking
explains every (GPU, machine) slot's layout and a results page shows the memory of few. What is read is what explain
wrote eagerly before, on latency-bound, open-loop, closed-loop, fixed-batch and batch-job estimates, dense and MoE."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.explain import WrittenOnce
from app.scoring.inference.estimates.estimate import solve_inference
from app.scoring.inference.estimates.results import Solution
from app.scoring.inference.explanation.explain_estimate import explain
from app.scoring.inference.step.memory import memory_at_batch_gb, request_kv_tokens
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
QUESTIONS = (
    {"model": "llama-3.1-8b", "input_len": 1_013},
    {"model": "llama-3.1-70b", "weight_dtype": "fp8", "scenario": "request_rate", "requests_per_s": 2.0},
    {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "attention_parallel": "dp"},
    {"model": "qwen3-30b-a3b", "scenario": "concurrency", "concurrency": 300, "kv_dtype": "fp8"},
    {"model": "llama-3.1-8b", "scenario": "fixed_batch", "batch": 16, "beam_width": 2},
    {"model": "gpt-oss-120b", "weight_dtype": "fp4", "scenario": "max_throughput", "job_requests": 50_000},
)


def _memory_as_written_eagerly(s: Solution) -> dict[str, float]:
    """explain's memory_footprint_gb as it was written for every explained estimate (before it was deferred)."""
    w = s.workload
    kv_tokens = request_kv_tokens(w.input_len, w.output_len, w.beam_width)
    return memory_at_batch_gb(
        s.gpu,
        s.model,
        w.weight_dtype,
        w.kv_dtype_effective,
        kv_tokens,
        s.batch,
        s.tensor_parallel,
        s.pipeline_parallel,
        s.ctx.attention_dp,
        w.engine,
    )


def test_an_explained_estimate_reads_the_memory_it_always_wrote() -> None:
    checked, below_max = 0, 0
    for question, gpu_id, (count, pp) in itertools.product(
        QUESTIONS, ("H100-SXM", "H200", "L40S", "MI300X"), ((1, 1), (2, 1), (8, 1), (8, 2))
    ):
        workload = InferenceWorkload.model_validate(question)
        solved = solve_inference(GPUS[gpu_id], count, MODELS[workload.model], workload, pipeline_parallel=pp)
        if not isinstance(solved, Solution):
            continue
        est = explain(solved)
        assert isinstance(est.memory_footprint_gb, WrittenOnce)
        assert repr(est.memory_gb) == repr(_memory_as_written_eagerly(solved)), (question, gpu_id, count, pp)
        assert est.memory_gb is est.memory_gb  # written once, then kept
        checked += 1
        below_max += solved.batch < solved.max_batch  # the memory at the batch run, not the most that fits
    assert checked > 30 and below_max > 10
