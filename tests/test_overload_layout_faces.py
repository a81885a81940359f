"""An overloaded open loop's refusal names the capacity of the attention layout that keeps up with more
(estimate.solve_inference); the ranking's row says that layout too. Before, the row read attention_parallel 'tp'
beside data-parallel attention's capacity (DeepSeek-R1 FP8 on 8xH200, SGLang, at 20 requests/s)."""

from __future__ import annotations

import re

from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.workload import InferenceWorkload
from benchmarks.bench_data import bench_snapshot


def test_an_overloaded_rows_layout_is_the_one_its_capacity_is() -> None:
    snapshot = bench_snapshot(1)
    workload = InferenceWorkload.model_validate(
        {
            "model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "input_len": 1000, "output_len": 1000,
            "ttft_ms": 3000, "tpot_ms": 150, "scenario": "request_rate", "requests_per_s": 20, "gpus": ["H200"],
            "max_gpus": 8,
        }
    )  # fmt: skip
    ranking = rank_inference(workload, snapshot, snapshot.models["deepseek-r1"])
    overloaded = [o for o in ranking.options if o.reason.startswith("overloaded") and o.gpu_count == 8]
    assert overloaded, [o.reason for o in ranking.options]
    for option in overloaded:
        at_most = re.search(r"keeps up with ([\d.]+) requests/s at most", option.reason)
        assert at_most and 7.5 <= float(at_most.group(1)) < 8 and option.attention_parallel == "dp", option
