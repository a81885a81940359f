"""An explained configuration's memory reads its layout's parts (weights, reserve, capacity) from the footprint kept
for the layout: whatever layout asked before, it equals memory_breakdown_gb worked out afresh, key order included."""

import itertools

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.step.memory import memory_at_batch_gb, memory_breakdown_gb

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_memory_at_a_batch_reads_as_the_breakdown_worked_out_afresh() -> None:
    checked = 0
    for gpu_id, model_id, (wdt, kvdt), engine, (tp, pp), dp in itertools.product(
        ("H100-SXM", "L4", "MI300X", "A100-PCIE-80GB"),
        ("llama-3.1-70b", "deepseek-r1", "gpt-oss-120b", "gemma-3-4b", "llama-3.1-8b"),
        (("fp8", "fp8"), ("bf16", "bf16"), ("int4", "fp8")),
        ("vllm", "sglang", "trtllm"),
        ((1, 1), (2, 1), (8, 1), (4, 2), (1, 8)),
        (1, 2, 8),
    ):
        gpu, model = GPUS[gpu_id], MODELS[model_id]
        for context, batch in itertools.product((0.0, 1.0, 2_031.5, 131_072.0), (0, 1, 37, 4_096)):
            args = (gpu, model, wdt, kvdt, context, batch, tp, pp, dp, engine)
            assert repr(memory_at_batch_gb(*args)) == repr(memory_breakdown_gb(*args)), args
            checked += 1
    assert checked > 20_000
