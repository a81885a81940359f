"""Property tests for the classes of input issue 11 found by hand: huge and non-finite numbers in a
pasted config.json (API body and page query), oversized bodies, repeated query keys.

Each property holds for every generated example: a 4xx naming the problem (or a 200 for inputs
within bounds), never a 5xx, and each request answers within a bounded time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from fastapi.testclient import TestClient
from httpx import Response
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.scoring.hf_config.keys import _CAPPED_LIKE
from app.service.query.values import LIST_FIELDS

LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
WORST_CASE_S = 5.0  # one bounded request on a shared 2-core CI box; the 3e7-layer config took 4.2 s before
CONFIG_KEYS = st.sampled_from(sorted({*LLAMA_8B, *_CAPPED_LIKE} - {"architectures"}))
HUGE_OR_NON_FINITE = st.one_of(
    st.integers(min_value=10**6, max_value=10**400),
    st.integers(max_value=-1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e20, 1e300, float("inf"), float("-inf"), float("nan"), 3e7, 10**19, 2**64]),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=5),
)
NO_5XX = {200, 413, 422}


def _timed(send: Callable[[], Response]) -> tuple[int, float]:
    """Status and seconds of a request; one over WORST_CASE_S is timed once more and the faster kept. An input
    that makes ranking slow is slow both times; a stall of the loaded CI box (a 6 s first call seen once, where
    the same request took ~15 ms after) is not."""
    began = time.perf_counter()
    response = send()
    took_s = time.perf_counter() - began
    if took_s >= WORST_CASE_S:
        began = time.perf_counter()
        response = send()
        took_s = min(took_s, time.perf_counter() - began)
    return response.status_code, took_s


def _post_raw(client: TestClient, path: str, body: object) -> tuple[int, float]:
    # json.dumps writes NaN/Infinity and 400-digit integers, as a hostile client would
    content = json.dumps(body)
    return _timed(lambda: client.post(path, content=content, headers={"content-type": "application/json"}))


@PROPERTY
@given(key=CONFIG_KEYS, value=HUGE_OR_NON_FINITE)
def test_hf_config_numbers_in_the_api_body_never_5xx(client: TestClient, key: str, value: object) -> None:
    body = {"model": None, "hf_config": {**LLAMA_8B, key: value}}
    status, took_s = _post_raw(client, "/api/v1/rank/inference?limit=1&terms=false", body)
    assert status in NO_5XX and took_s < WORST_CASE_S


@PROPERTY
@given(key=CONFIG_KEYS, value=HUGE_OR_NON_FINITE)
def test_hf_config_numbers_in_a_mix_body_never_5xx(client: TestClient, key: str, value: object) -> None:
    """/api/v1/mix reads a config.json as the ranking does, for every bucket, and writes it into its share link."""
    body = {"hf_config": {**LLAMA_8B, key: value}, "mix": "chat:1"}
    status, took_s = _post_raw(client, "/api/v1/mix", body)
    assert status in NO_5XX and took_s < WORST_CASE_S


@PROPERTY
@given(key=CONFIG_KEYS, value=HUGE_OR_NON_FINITE)
def test_hf_config_numbers_in_the_page_query_never_5xx(client: TestClient, key: str, value: object) -> None:
    text = json.dumps({**LLAMA_8B, key: value})
    status, took_s = _timed(lambda: client.get("/rank.json", params={"phase": "inference", "hf_config_json": text}))
    assert status in NO_5XX and took_s < WORST_CASE_S


@PROPERTY
@given(
    path=st.sampled_from(["/api/v1/rank/inference", "/api/v1/estimate/training", "/api/v1/plan/serving", "/share"]),
    extra=st.integers(min_value=1, max_value=2_000_000),
)
def test_oversized_bodies_are_413(client: TestClient, path: str, extra: int) -> None:
    size = client.app.state.settings.max_body_bytes + extra
    response = client.post(path, content=b"{" + b" " * (size - 1), headers={"content-type": "application/json"})
    assert response.status_code == 413


SINGLE_KEYS = st.sampled_from(["phase", "model", "input_len", "output_len", "weight_dtype", "engine", "max_gpus"])


@PROPERTY
@given(
    key=SINGLE_KEYS, times=st.integers(min_value=2, max_value=300), path=st.sampled_from(["/rank.json", "/plan.json"])
)
def test_repeated_single_value_keys_are_422_naming_the_key(client: TestClient, key: str, times: int, path: str) -> None:
    if path == "/plan.json" and key == "phase":
        path = "/rank.json"  # /plan ignores phase (a plan is always inference); the rank twin reads it
    value = {"phase": "inference", "model": "llama-3.1-8b", "weight_dtype": "bf16", "engine": "vllm"}.get(key, "8")
    query = "&".join([f"{key}={value}"] * times)
    response = client.get(f"{path}?{query}")
    assert response.status_code == 422
    assert any(e["field"] == key for e in response.json()["detail"])


@PROPERTY
@given(key=st.sampled_from(LIST_FIELDS), times=st.integers(min_value=2, max_value=20))
def test_repeated_list_keys_are_gathered_not_refused(client: TestClient, key: str, times: int) -> None:
    response = client.get("/rank.json?phase=inference&model=llama-3.1-8b&" + "&".join([f"{key}=H100-SXM"] * times))
    assert response.status_code in (200, 422)
    assert all(e["field"] != key or "more than once" not in e["message"] for e in response.json().get("detail", []))
