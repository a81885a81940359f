"""The "Why" terms reconcile with their totals: each term's first clause, in the figures it shows, gives its value, and
the parts of TTFT and of a training step add up to the totals shown (a reviewer found prefill terms of half a PP stage,
a TTFT of 'prefill + queue + 1.5 steps' without numbers, and training parts with no arithmetic)."""

from __future__ import annotations

import re

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
from app.scoring.explain import Term
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.training.estimate import estimate_training
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from tests.scoring.term_arithmetic import stated_value

GPUS, MODELS = load_gpu_specs(), load_model_specs()

# id: (GPU, count, TP, PP, fabric GB/s per GPU, workload fields)
INFERENCE = {
    "dense TP4": ("H100-SXM", 4, 4, 1, 0.0, {"model": "llama-3.1-70b", "tpot_ms": 40}),
    "dense on one GPU (the page's row 1)": ("B200", 1, 1, 1, 0.0, {"model": "llama-3.1-70b", "weight_dtype": "fp8"}),
    "MoE": ("B200", 8, 8, 1, 0.0, {"model": "deepseek-r1", "weight_dtype": "fp8", "tpot_ms": 50}),
    "PP, a long prompt (the reviewer's)": (
        "H100-SXM",
        4,
        2,
        2,
        0.0,
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 16000, "ttft_ms": 20000},
    ),
    "MoE PP across nodes": (
        "H200",
        16,
        8,
        2,
        50.0,
        {"model": "deepseek-r1", "weight_dtype": "fp8", "input_len": 1000, "ttft_ms": 5000, "tpot_ms": 200},
    ),
    "TP across nodes": (
        "H100-SXM",
        16,
        16,
        1,
        50.0,
        {"model": "llama-3.1-405b", "weight_dtype": "fp8", "tpot_ms": 100, "ttft_ms": 5000},
    ),
    "static batch through PP": (
        "L40S",
        4,
        2,
        2,
        0.0,
        {"model": "llama-3.1-70b", "weight_dtype": "fp8", "scenario": "fixed_batch", "batch": 8},
    ),
    "closed loop past the batch (slot wait)": (
        "H100-SXM",
        2,
        2,
        1,
        0.0,
        {"model": "llama-3.1-8b", "scenario": "concurrency", "concurrency": 2000},
    ),
    "SGLang prefills first": ("H200", 2, 2, 1, 0.0, {"model": "llama-3.1-70b", "engine": "sglang", "tpot_ms": 60}),
    "single stream": ("H100-SXM", 1, 1, 1, 0.0, {"model": "llama-3.1-8b", "scenario": "single_stream"}),
    "MoE open loop, prompts sharing a prefill pass": (
        "H200",
        8,
        8,
        1,
        0.0,
        {"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "scenario": "request_rate"}
        | {"requests_per_s": 6.0, "input_len": 1000, "output_len": 1000},
    ),
}
# The terms of the prompt's path, each with its arithmetic first (the queue's slot wait gives its count in words).
ARITHMETIC = (
    "prefill compute time",
    "prefill weight read",
    "prefill pass",
    "prefill stage pass",
    "prefill through the pipeline",
    "prefill MoE host time",
    "TTFT: prefill queue",
    "TTFT: running steps' wait",
    "TTFT: shared prefill pass",
    "TTFT",
    "TTFT median",
    "TTFT p99",
)

# the TP term's title names what runs (found by qa29)
ULYSSES = "Ulysses sequence parallelism (SP) all-to-all"  # the term of DeepSpeed-Ulysses' all-to-alls
TP_TERM = (
    "exposed TP communication: all-reduce, or all-gather/reduce-scatter under Megatron sequence parallelism (within TP)"
)


def _inference(case: str) -> tuple[dict[str, Term], InferenceWorkload, int]:
    gpu, count, tp, pp, fabric, fields = INFERENCE[case]
    workload = InferenceWorkload(**{"scenario": "latency_bound", **fields})
    est = estimate_inference(GPUS[gpu], count, MODELS[workload.model], workload, tp, pp, fabric_gbs=fabric)
    assert est.feasible, est.reason
    return {t.name: t for t in est.terms}, workload, pp


@pytest.mark.parametrize("case", list(INFERENCE))
def test_each_prefill_and_ttft_term_shows_the_arithmetic_of_its_value(case: str) -> None:
    terms, _, _ = _inference(case)
    shown = [terms[name] for name in ARITHMETIC if name in terms]
    assert {"prefill compute time", "TTFT", "TTFT median"} <= {t.name for t in shown}
    for term in shown:
        assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4), (term.name, term.detail)


@pytest.mark.parametrize("case", list(INFERENCE))
def test_ttft_is_the_sum_of_its_shown_parts(case: str) -> None:
    terms, _, pp = _inference(case)
    prefill = terms["prefill through the pipeline" if pp > 1 else "prefill pass"].value
    waits = ("TTFT: prefill queue", "TTFT: running steps' wait", "TTFT: shared prefill pass", "queue wait for a slot")
    assert prefill + sum(terms[name].value for name in waits if name in terms) == pytest.approx(
        terms["TTFT"].value, rel=1e-9
    )


@pytest.mark.parametrize("case", [c for c in INFERENCE if INFERENCE[c][3] > 1])
def test_a_pipelines_prefill_terms_time_one_stage_over_the_whole_prompt(case: str) -> None:
    """The reviewer's rows showed 8,000 prompt tokens for a 16,000-token prompt (and 500 for DeepSeek's 1,000): the
    throughput view's half of the prompt, while the pipeline total runs each stage over all of it."""
    terms, workload, pp = _inference(case)
    compute, stage = terms["prefill compute time"], terms["prefill stage pass"]
    prompts = workload.batch / min(workload.batch, pp) if workload.scenario == "fixed_batch" else 1
    assert f"{workload.input_len * prompts:,.0f} prompt tokens" in compute.detail
    assert "decod" not in compute.detail.split("; MFU")[0].replace("decoding nothing", "")
    passes = (min(workload.batch, pp) if workload.scenario == "fixed_batch" else 1) + pp - 1
    assert terms["prefill through the pipeline"].value == pytest.approx(passes * stage.value, rel=1e-9)
    assert compute.value < stage.value  # the compute is a part of the stage's pass


@pytest.mark.parametrize("case", list(INFERENCE))
def test_inference_terms_multiply_with_the_times_sign(case: str) -> None:
    """The inference details read "2 stage passes x 61 ms" and "40 ms mean x 1.41" beside training's "6 × params"
    (found by leftovers9); ids such as "8xH200" and "x16" are no multiplication and stay."""
    terms, _, _ = _inference(case)
    for term in terms.values():
        assert not re.search(r"[\w)] x [\w({]", term.detail), (term.name, term.detail)


# id: (GPU, count, workload fields)
TRAINING = {
    "TP and PP": ("L40S", 32, {"model": "llama-3.1-70b", "method": "full_ft"}),
    "TP4 FSDP": ("H100-SXM", 64, {"model": "llama-3.1-70b", "method": "full_ft"}),
    "Ulysses SP": ("H100-SXM", 8, {"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 131072, "framework": "hf"}),
    "QLoRA": ("A100-SXM-80GB", 2, {"model": "llama-3.1-70b", "method": "qlora", "global_batch_seqs": 16}),
    "MoE": ("H200", 32, {"model": "mixtral-8x7b", "method": "full_ft", "seq_len": 32768}),
    "ring CP": (
        "H100-SXM",
        8,
        {"model": "llama-3.1-8b", "method": "full_ft", "seq_len": 131072, "framework": "megatron"},
    ),
    "TP and CP": (
        "H100-SXM",
        32,
        {"model": "llama-3.1-70b", "method": "full_ft", "seq_len": 32768, "framework": "nemo"},
    ),
    # TP8 PP2 EP128: the MoE layers pay their attention's TP pair alone, the all-to-all its own term
    "TP and EP": ("B200", 512, {"model": "qwen3-235b-a22b", "method": "full_ft", "global_batch_seqs": 64}),
    # activation offloading's PCIe copies beyond the compute they overlap: a term of the step's sum
    "activations offloaded": (
        "RTX-4090",
        1,
        {"model": "llama-3.2-1b", "method": "lora", "framework": "pytorch", "activation_offload": True},
    ),
}


def _training(case: str) -> tuple[dict[str, Term], float, str]:
    gpu, count, fields = TRAINING[case]
    workload = TrainingWorkload(**{"seq_len": 4096, "global_batch_seqs": 256, **fields})
    est = estimate_training(GPUS[gpu], count, MODELS[workload.model], workload)
    assert est.feasible, est.reason
    # a layout without PP or TP names those parts for what they are: the per-layer latency, the SP all-to-all
    names = {
        "per-step latency": "pipeline bubble",
        "exposed layer-split traffic": TP_TERM,
        f"exposed {ULYSSES}": TP_TERM,
        "exposed CP ring": TP_TERM,
    }
    named = {names.get(t.name, t.name.removesuffix(f" + {ULYSSES}").removesuffix(" + CP ring")): t for t in est.terms}
    return named, est.step_time_s, est.layout_text


@pytest.mark.parametrize("case", list(TRAINING))
def test_each_step_part_shows_its_arithmetic_and_the_step_is_their_sum(case: str) -> None:
    terms, step_s, _ = _training(case)
    parts = ["compute", "pipeline bubble", TP_TERM, "exposed DP/FSDP traffic"]
    offloads = ("optimizer offloaded to CPU", "host memory copies", "exposed expert all-to-all")
    parts += [name for name in offloads if name in terms]
    for name in ("compute", "pipeline bubble", TP_TERM, "exposed DP/FSDP traffic", "step time"):
        term = terms[name]
        assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4), (name, term.detail)
    assert terms["step time"].value == step_s
    assert sum(terms[name].value for name in parts) == pytest.approx(step_s, rel=1e-9)


@pytest.mark.parametrize("case", list(TRAINING))
def test_training_terms_multiply_with_the_times_sign(case: str) -> None:
    """The step parts' details read "80 layers x 0.01 s" beside "6 × params" (found by leftovers8)."""
    terms, _, _ = _training(case)
    for term in terms.values():
        assert not re.search(r"[\w)] x [\w({]", term.detail), (term.name, term.detail)


def test_the_bubble_counts_the_layers_one_gpu_runs():
    """The reviewer's row said 'the fixed per-step latency of 80 layers' where each GPU of PP2 runs 40."""
    terms, _, layout = _training("TP and PP")  # 32 L40S: TP8 PP4 with partial recompute (TP2 PP16 before it)
    found = re.match(r"TP(\d+) PP(\d+)", layout)
    assert found, layout
    tp, pp = int(found[1]), int(found[2])
    per_layer = DEFAULT_TRAINING_EFFICIENCY.step_latency_s_per_layer
    assert pp > 1 and terms["pipeline bubble"].detail.startswith(f"{80 // pp} layers × {per_layer:.6f} s + ")
    assert f" × {tp} TP ranks × " in terms[TP_TERM].detail


def test_exposed_data_parallel_traffic_shows_the_bytes_the_bandwidth_and_what_compute_hides():
    """FSDP over 64 H100s across nodes for an 8B model at one sequence a GPU: the traffic outlasts the compute, and
    the term had said only 'ZeRO-3 over 64, at 45 GB/s per GPU'. On a 50 Gb/s-a-GPU fabric: its ring's 8 NICs a node
    give 45 GB/s a GPU (communication.dp_bandwidth_gbs); at 400 Gb/s the compute hides it."""
    from dataclasses import replace

    from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY
    from app.scoring.training.layouts.memory import Layout

    workload = TrainingWorkload(model="llama-3.1-8b", method="full_ft", global_batch_seqs=64)
    layout = Layout(zero_stage=3, tensor_parallel=1, pipeline_parallel=1, recompute="none", micro_batch_seqs=1)
    e = replace(DEFAULT_TRAINING_EFFICIENCY, scaleout_gbs_per_gpu=45.0 / 8)
    est = estimate_training(GPUS["H100-SXM"], 64, MODELS["llama-3.1-8b"], workload, layout=layout, e=e)
    term = {t.name: t for t in est.terms}["exposed DP/FSDP traffic"]
    assert term.value > 0 and " GB per GPU / " in term.detail and " - 1 × " in term.detail
    assert stated_value(term.detail) == pytest.approx(term.value, rel=5e-3, abs=5e-4)
