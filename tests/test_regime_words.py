"""A band's evidence names its regime in words on every face, not the table's key (found by qa36: the JSON, the page
and the CLI quoted `ttft_ms@traffic|trtllm|nvidia|fp8|dense`)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.scoring.efficiency.band_table import BAND_TABLE
from app.scoring.efficiency.regime_words import regime_words

RAW_KEY = re.compile(r"\w+@(traffic|fixed)|\|(nvidia|amd|vllm|trtllm|sglang)\b")


def test_a_regime_key_reads_in_words() -> None:
    assert (
        regime_words("ttft_ms@traffic|trtllm|nvidia|fp8|dense")
        == "TTFT under traffic, TensorRT-LLM on NVIDIA, FP8, dense"
    )
    assert regime_words("tokens_s_per_gpu|torchtitan|nvidia|16bit|pretrain") == (
        "training tokens/s per GPU, torchtitan on NVIDIA, 16-bit, pretraining"
    )
    assert regime_words("ttft_ms|multinode") == "TTFT, tensor parallel across nodes"
    assert len({regime_words(key) for key in BAND_TABLE}) == len(BAND_TABLE)  # no two regimes read alike


def test_the_json_and_the_page_name_the_band_regime_in_words(client: TestClient) -> None:
    body = {"model": "llama-3.1-8b", "engine": "trtllm", "scenario": "request_rate", "requests_per_s": 2.0}
    answer = client.post("/api/v1/rank/inference?limit=1", json=body)
    assert answer.status_code == 200, answer.text
    assert "under traffic, TensorRT-LLM on NVIDIA" in answer.text and not RAW_KEY.search(answer.text)
    page = client.get("/?phase=inference&model=llama-3.1-8b&engine=trtllm&scenario=request_rate&requests_per_s=2")
    assert page.status_code == 200 and not RAW_KEY.search(page.text)
