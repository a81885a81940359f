"""A pasted config.json's quantization_config is the custom model's release precision, on the page and in the API, as
a catalog model's is: the weights ranked when the question names none, and the answer says where it was read."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from tests.form_submit import form_items
from tests.scoring.test_hf_config import GPT_OSS_120B, LLAMA_31_8B
from tests.scoring.test_hf_quantization import BITSANDBYTES, GPT_OSS_MXFP4, _compressed

LLAMA_FP8 = {**LLAMA_31_8B, "quantization_config": _compressed(8, "float", "float-quantized", strategy="channel")}
READ_FP8 = "config.json quantization_config: quant_method compressed-tensors, weights 8-bit float"


def test_a_pasted_fp8_config_ranks_fp8_and_its_link_and_form_keep_it(client) -> None:  # type: ignore[no-untyped-def]
    pasted = {"phase": "inference", "model": "custom", "hf_config_json": json.dumps(LLAMA_FP8)}
    page = client.get("/", params=pasted, follow_redirects=True)
    assert page.status_code == 200
    query = parse_qs(urlsplit(str(page.url)).query)
    assert query["arch_release_precision"] == ["fp8"] and "weight_dtype" not in query
    assert f"Weights as released: FP8 ({READ_FP8})" in page.text
    again = client.get("/", params=form_items(page.text), follow_redirects=True)  # the form resubmitted unchanged
    assert again.url == page.url


def test_the_api_ranks_gpt_oss_pasted_as_its_mxfp4_release(client) -> None:  # type: ignore[no-untyped-def]
    config = {**GPT_OSS_120B, "quantization_config": GPT_OSS_MXFP4}
    body = client.post("/api/v1/rank/inference", json={"hf_config": config}, params={"limit": 1}).json()
    assert body["workload"]["weight_dtype"] == "int4" and body["weights"]["release_precision"] == "mxfp4"
    assert body["weights"]["release_source"] == "config.json quantization_config: quant_method mxfp4"
    plain = client.post("/api/v1/rank/inference", json={"hf_config": GPT_OSS_120B}, params={"limit": 1}).json()
    assert plain["workload"]["weight_dtype"] == "bf16" and plain["weights"]["release_assumed"]


def test_a_quant_method_not_read_is_said_and_bf16_ranked(client) -> None:  # type: ignore[no-untyped-def]
    config = {**LLAMA_31_8B, "quantization_config": BITSANDBYTES}
    body = client.post("/api/v1/rank/inference", json={"hf_config": config}, params={"limit": 1}).json()
    assert body["workload"]["weight_dtype"] == "bf16" and body["weights"]["release_assumed"]
    assert "quant_method bitsandbytes is a format not read" in body["notes"][-1]


def test_precision_page_takes_the_pasted_release_as_its_reference_row(client) -> None:  # type: ignore[no-untyped-def]
    pasted = {"model": "custom", "hf_config_json": json.dumps(LLAMA_FP8)}
    page = client.get("/precision", params=pasted, follow_redirects=True)
    assert page.status_code == 200 and "(the release)" in page.text and "an upcast of the FP8 release" in page.text
