"""Hand-computed memory formulas."""

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import KV_SHARE_OF_FREE
from app.scoring.inference.estimates.estimate import estimate_inference
from app.scoring.inference.step.memory import (
    kv_bytes_per_sequence_per_gpu,
    kv_bytes_per_token,
    kv_bytes_per_token_per_gpu,
    kv_room_for_weights_gb,
    kv_room_gb,
    max_sequences,
    memory_breakdown_gb,
    request_kv_tokens,
    usable_gb,
    weight_bytes,
    weight_bytes_per_gpu,
)
from app.scoring.inference.step.routed_experts import expert_coverage
from app.scoring.specs import card_gb
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_llama_31_70b_bf16_kv_is_327680_bytes_per_token():
    assert kv_bytes_per_token(MODELS["llama-3.1-70b"], "bf16") == 327_680  # 2 x 80 x 8 x 128 x 2


def test_kv_per_gpu_splits_heads_then_replicates():
    model = MODELS["llama-3.1-70b"]
    assert kv_bytes_per_token_per_gpu(model, "bf16", 4) == 327_680 / 4
    assert kv_bytes_per_token_per_gpu(model, "bf16", 16) == 327_680 / 8  # 8 KV heads: replicated past TP8


def test_mla_kv_uses_latent_rank_plus_rope_key():
    model = MODELS["deepseek-v3"]
    assert kv_bytes_per_token(model, "bf16") == 61 * (512 + 64) * 2


def test_weight_bytes_by_dtype():
    model = MODELS["llama-3.1-8b"]
    assert abs(weight_bytes(model, "bf16") - 16.06e9) < 1
    assert abs(weight_bytes(model, "fp8") - 8.03e9) < 1
    assert abs(weight_bytes(model, "int4") - 8.03e9 * 0.5625) < 1  # Q4_0: 18 B per 32 weights


def test_moe_expert_coverage():
    assert expert_coverage(0.25, 1) == 0.25
    assert abs(expert_coverage(0.25, 2) - (1 - 0.75**2)) < 1e-12
    assert expert_coverage(0.25, 1000) > 0.999
    assert expert_coverage(0.0, 10) == 0.0


@given(st.integers(100, 100_000), st.integers(1, 100_000))
def test_fewer_sequences_fit_as_context_grows(short, extra):
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    longer = max_sequences(gpu, model, "bf16", "bf16", short + extra, 1)
    assert longer <= max_sequences(gpu, model, "bf16", "bf16", short, 1)


def test_weights_that_do_not_fit_leave_no_sequences():
    assert max_sequences(GPUS["H100-SXM"], MODELS["llama-3.1-70b"], "bf16", "bf16", 1000, 1) == 0
    small = replace(GPUS["H100-SXM"], memory_gb=200.0)
    assert max_sequences(small, MODELS["llama-3.1-70b"], "bf16", "bf16", 1000, 1) > 0


def test_an_hbm_cards_datasheet_gb_are_binary_and_a_gddr_cards_are_not():
    """CUDA shows about 78 GiB of the H100's "80 GB" (83.75 x 10^9 bytes): the engine's share is of those bytes."""
    assert abs(card_gb(GPUS["H100-SXM"]) - 83.75) < 0.01
    assert abs(card_gb(GPUS["H200"]) - 141 * 78 * 2**30 / 80 / 1e9) < 1e-9
    assert card_gb(GPUS["L40S"]) == 48.0  # GDDR: ECC takes its share on a data-centre card


def test_tensorrt_llm_sizes_its_kv_cache_from_what_the_weights_leave():
    """vLLM fills 0.9 of the card (weights and KV); TensorRT-LLM loads the weights, then gives the KV cache 0.9 of
    what is left: Llama-3.1-70B FP8 (70.6 GB) fits one 80 GB H100 on both, TensorRT-LLM with more room for KV."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    card = card_gb(gpu)
    weights_gb = weight_bytes(model, "fp8") / 1e9
    assert usable_gb(gpu, 1, "vllm") == card * 0.9 - 2.0 > weights_gb
    assert usable_gb(gpu, 1, "trtllm") == card - 2.0 > weights_gb
    assert kv_room_gb(gpu, 1, weights_gb, "trtllm") == 0.9 * (card - 2.0 - weights_gb)
    vllm_room = (card * 0.9 - 2.0 - weights_gb) * 1e9
    assert max_sequences(gpu, model, "fp8", "fp8", 2048, 1, engine="vllm") == int(vllm_room // (163_840 * 2048)) == 8
    room = 0.9 * (card - 2.0 - weights_gb) * 1e9
    assert max_sequences(gpu, model, "fp8", "fp8", 2048, 1, engine="trtllm") == int(room // (163_840 * 2048))
    breakdown = memory_breakdown_gb(gpu, model, "fp8", "fp8", 2048, 0, 1, engine="trtllm")
    assert abs(breakdown["reserve"] - (2.0 + 0.1 * (card - 2.0 - weights_gb))) < 1e-3  # the 10 % TensorRT-LLM leaves
    small = MODELS["llama-3.1-8b"]  # where the weights are small, both engines hold about the same KV cache
    vllm_small = kv_room_gb(gpu, 1, weight_bytes(small, "bf16") / 1e9, "vllm")
    assert 0.95 < vllm_small / kv_room_gb(gpu, 1, weight_bytes(small, "bf16") / 1e9, "trtllm") < 1.0


def test_the_estimate_follows_the_engine_memory_rule():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    workload = InferenceWorkload(model="llama-3.1-70b", weight_dtype="fp8", input_len=1024, output_len=1024)
    tight = estimate_inference(gpu, 1, model, workload.model_copy(update={"engine": "vllm"}))
    served = estimate_inference(gpu, 1, model, workload.model_copy(update={"engine": "trtllm"}))
    assert tight.feasible and served.feasible and 0 < tight.max_batch < served.max_batch
    refused = estimate_inference(gpu, 1, model, workload.model_copy(update={"weight_dtype": "bf16"}))
    assert not refused.feasible and "needs 141 GB for bf16 weights" in refused.reason


def test_beams_share_the_prompts_kv_cache():
    # 4 beams of a 2,000-token prompt and 200 generated tokens hold the prompt once and 100 tokens each on average
    assert request_kv_tokens(2_000, 200, 4) == 2_400
    assert request_kv_tokens(2_000, 200) == 2_100
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    greedy = InferenceWorkload(model="llama-3.1-8b", input_len=2_000, output_len=200, scenario="max_throughput")
    beams = estimate_inference(gpu, 1, model, greedy.model_copy(update={"beam_width": 4}))
    assert beams.max_batch == max_sequences(gpu, model, "bf16", "bf16", 2_400, 1)
    # a copy of the prompt per beam would fit about a quarter of the greedy requests; shared, most of them fit
    assert beams.max_batch > 0.8 * estimate_inference(gpu, 1, model, greedy).max_batch
    shown = beams.memory_gb["kv_cache"]  # the KV of the running batch, every beam counted
    per_token = kv_bytes_per_token_per_gpu(model, "bf16", 1)
    assert abs(shown - per_token * 2_400 * beams.batch / 1e9) < 1e-2
    read = next(t for t in beams.terms if t.name == "decode KV read")
    assert read.detail.startswith(f"{beams.batch * 4:,} sequences × ")  # every beam reads its own KV
    assert "4 beams a request" in read.detail


def test_a_layouts_memory_sizing_is_keyed_by_all_it_reads():
    """usable_gb and kv_room_for_weights_gb are cached per configuration (speed11): asked in turn for layouts that
    differ in one field each (engine, weight dtype, TP, PP, data-parallel attention, the card), each answer is the
    uncached formula's, so a key that left a field out would hand one layout another's room and fail here."""
    gpu, model = GPUS["H100-SXM"], MODELS["deepseek-r1"]
    asks = [
        (gpu, model, "fp8", 8, 1, 1, "sglang"),
        (gpu, model, "fp8", 8, 1, 1, "trtllm"),  # sizes its KV from what the weights leave
        (gpu, model, "fp4", 8, 1, 1, "sglang"),
        (gpu, model, "fp8", 8, 2, 1, "sglang"),
        (gpu, model, "fp8", 8, 1, 8, "sglang"),  # a full copy of the attention weights on each rank
        (gpu, model, "fp8", 1, 1, 1, "sglang"),  # no TP reserve
        (replace(gpu, memory_gb=141.0), model, "fp8", 8, 1, 1, "sglang"),
        (gpu, MODELS["llama-3.1-70b"], "fp8", 8, 1, 1, "sglang"),
    ]
    rooms = []
    for card, m, dtype, tp, pp, dp, engine in asks * 2:  # the second pass reads every answer back from the cache
        usable = usable_gb.__wrapped__(card, tp, engine)  # the formula, uncached
        assert usable_gb(card, tp, engine) == usable
        left = usable - weight_bytes_per_gpu(m, dtype, tp, pp, dp) / 1e9
        expected = left * KV_SHARE_OF_FREE.get(engine, 1.0) if left > 0 else left
        rooms.append(kv_room_for_weights_gb(card, m, dtype, tp, pp, dp, engine))
        assert rooms[-1] == expected
    assert len(set(rooms[: len(asks)])) == len(asks)  # every field moved the answer


def test_a_requests_kv_per_gpu_is_keyed_by_all_it_reads():
    """kv_bytes_per_sequence_per_gpu is cached too: layouts differing in the KV dtype, the context, TP, PP or
    data-parallel attention each get the formula's own answer, on the first ask and from the cache."""
    model = MODELS["deepseek-r1"]
    asks = [("fp8", 2000.0, 8, 1, 1), ("bf16", 2000.0, 8, 1, 1), ("fp8", 2001.0, 8, 1, 1), ("fp8", 2000.0, 8, 2, 1)]
    asks += [("fp8", 2000.0, 8, 1, 8), ("fp8", 2000.0, 4, 1, 4)]
    answers = [kv_bytes_per_sequence_per_gpu(model, *ask) for ask in asks * 2]
    assert answers == [kv_bytes_per_sequence_per_gpu.__wrapped__(model, *ask) for ask in asks * 2]
    assert len(set(answers)) == len(asks)
