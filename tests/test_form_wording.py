"""Forms speak to people: hints carry no internal field names, and the model's name fits its select."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

INTERNAL = ("max_num_seqs", "request_rate", "max_throughput", "closed loop", "open loop", "slo_tpot_utilisation")


def test_the_rank_form_hints_use_no_internal_names(client: TestClient):
    hints = " ".join(re.findall(r'<span class="hint"[^>]*>(.*?)</span>', client.get("/").text))
    assert "clients in flight" in hints  # the hints are there, reworded
    assert not [name for name in INTERNAL if name in hints]


@pytest.mark.parametrize("path", ["/", "/plan", "/precision", "/disagg", "/mix"])
def test_the_model_select_spans_two_columns_so_its_name_is_not_cut(client: TestClient, path: str):
    assert '<div class="field wide"><label for="f-model">' in client.get(path).text


def test_the_kv_precision_default_says_what_it_is_for_every_weight_precision(client: TestClient):
    """The empty KV-cache choice said "same as weights", but int8, int4 and fp4 weights run a BF16 KV cache
    (InferenceWorkload.kv_dtype_effective): the label says both, as the API's description does."""
    from app.scoring.workload import InferenceWorkload

    # the blank choice reads "default" (a select cannot wrap: a long one was cut to "default: the engin"); its hint
    # says what the default is
    field = re.search(
        r'<label for="f-kv_dtype">KV-cache precision</label><span class="hint" id="hint-kv_dtype">(.*?)</span>\s*'
        r'<select id="f-kv_dtype"[^>]*>'
        r'\s*<option value="">(.*?)</option>',
        client.get("/").text,
    )
    assert field and field.group(2) == "default" and "same as weights" not in field.group(1)
    label = field.group(1).replace("&#39;", "'")
    for weights in ("int8", "int4", "fp4", "fp8"):
        assert InferenceWorkload(weight_dtype=weights).kv_dtype_effective == "bf16"
    assert InferenceWorkload(weight_dtype="fp8", engine="trtllm").kv_dtype_effective == "fp8"
    assert label == "default: the engine's (bf16; fp8 weights on TensorRT-LLM: fp8)"


@pytest.mark.parametrize("engine", ["vllm", "sglang", "llamacpp", "hf"])
def test_fp8_weights_keep_a_bf16_cache_on_engines_whose_auto_keeps_the_activation_dtype(engine: str):
    """vLLM and SGLang `--kv-cache-dtype auto` store the cache at the model's activation dtype even for an FP8
    checkpoint (DeepSeek-V3's block-FP8 release serves a BF16 cache unless `--kv-cache-dtype fp8` is given): the
    default KV cache of FP8 weights was FP8 on every engine, half the bytes those engines hold."""
    from app.scoring.workload import InferenceWorkload

    assert InferenceWorkload(weight_dtype="fp8", engine=engine).kv_dtype_effective == "bf16"
    assert InferenceWorkload(weight_dtype="fp8", engine=engine, kv_dtype="fp8").kv_dtype_effective == "fp8"


def test_an_answer_says_when_fp8_weights_run_the_engines_bf16_cache(client: TestClient):
    """The cache dtype is not in the question: where the engine's default made it BF16, each row says so."""
    query = "/rank.json?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM"
    notes = [a for o in client.get(query).json()["options"] if o["feasible"] for a in o["assumptions"]]
    assert notes and any(a.startswith("KV cache BF16: vLLM's default") for a in notes)
    for extra in ("&engine=trtllm", "&kv_dtype=fp8", "&kv_dtype=bf16"):
        notes = [a for o in client.get(query + extra).json()["options"] for a in o["assumptions"]]
        assert not any(a.startswith("KV cache BF16") for a in notes), extra
