"""A layout's setup (KV room, a token's KV, its context) is kept across rankings by the layout alone: whatever layout
and lengths asked before, the kept setup sizes and builds exactly what memory.max_sequences and build_context do."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.estimates.layout_setup import layout_setup
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.memory import max_sequences

GPUS, MODELS = load_gpu_specs(), load_model_specs()
# prompts of one token or none (held at least 1), short and long, a sliding-window model's beyond its window
CONTEXT_TOKENS = (0.0, 1.0, 1_000.0, 2_031.5, 131_072.0)


def test_a_kept_layout_setup_sizes_and_builds_as_the_functions_it_keeps() -> None:
    checked, sized = 0, 0
    for gpu_id, model_id, (wdt, kvdt), engine in itertools.product(
        ("H100-SXM", "L4", "MI300X", "A100-PCIE-80GB"),
        ("llama-3.1-70b", "deepseek-r1", "qwen3-30b-a3b", "gpt-oss-120b", "llama-3.1-8b"),
        (("fp8", "fp8"), ("bf16", "bf16"), ("int4", "fp8")),
        ("vllm", "sglang", "trtllm"),
    ):
        gpu, model = GPUS[gpu_id], MODELS[model_id]
        for (tp, pp), fabric in itertools.product(((1, 1), (2, 1), (4, 2), (8, 1), (1, 8), (8, 2)), (0.0, 50.0)):
            for dp, ep in itertools.product({1, tp}, {1, tp}):
                setup = layout_setup(gpu, model, wdt, kvdt, engine, tp, pp, fabric, dp, ep)
                assert setup.ctx == build_context(gpu, model, wdt, kvdt, engine, tp, pp, fabric, dp, ep)
                for tokens in CONTEXT_TOKENS:
                    expected = max_sequences(gpu, model, wdt, kvdt, tokens, tp, pp, dp, engine)
                    assert setup.max_sequences(model, tokens) == expected, (gpu_id, model_id, wdt, tp, pp, dp, tokens)
                    sized += expected > 0
                checked += 1
    assert checked > 1_000 and sized > 1_000
