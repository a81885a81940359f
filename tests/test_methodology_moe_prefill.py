"""/methodology said "TensorRT-LLM's compiled engine does not pay it" of the MoE prefill host time, while every
TensorRT-LLM answer pays it (since 1.0 its default PyTorch backend prefills eagerly; only llama.cpp is compiled):
DeepSeek-R1 on 8×H200 with engine=trtllm lists 58 MoE layers × 2.43 ms a prefill pass (found by qa40). The page now
names the engines from the estimator's own list."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.scoring.efficiency.inference import COMPILED_ENGINES
from app.scoring.hardware.engine_support import ENGINE_NAMES


def _moe_prefill_item(client: TestClient) -> str:
    page = client.get("/methodology").text
    found = re.search(r"<li><strong>MoE prefill in [^<]*</strong>.*?</li>", page, re.S)
    assert found, "the methodology's MoE prefill item"
    return found.group(0)


def test_the_methodology_names_the_engines_that_pay_the_moe_prefill_host_time(client: TestClient) -> None:
    item = _moe_prefill_item(client)
    paying = re.search(r"</strong> \(([^;]*);", item)
    assert paying is not None, item
    assert paying.group(1).split(", ") == [n for e, n in ENGINE_NAMES.items() if e not in COMPILED_ENGINES]
    assert "TensorRT-LLM" in paying.group(1) and "compiled engine does not pay it" not in item


def test_a_tensorrt_llm_answer_pays_it_as_the_page_says(client: TestClient) -> None:
    query = "phase=inference&model=deepseek-r1&gpus=H200&engine=trtllm"
    option = client.get(f"/rank.json?{query}").json()["options"][0]
    host = next(t for t in option["terms"] if t["name"] == "prefill MoE host time")
    assert host["value"] > 0 and "MoE layers" in host["detail"]
