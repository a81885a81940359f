"""Random page queries: the form fields of every page, values from a pool of edge cases, never a 5xx and never
a non-finite number in a JSON twin. The API fuzzing (test_fuzz_api.py) covers /api/v1 bodies; the pages parse
query strings through their own forms (arch_ fields, hf_config_json, tokens_per_s_per_user, steps, mix text).

CI runs a fixed seed; `make fuzz` sets GPUMATCH_FUZZ_EXAMPLES (and a random seed) for a long run.
"""

from __future__ import annotations

import json
import os
import random

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.scoring.serving.traffic.week import Traffic
from app.scoring.workload import InferenceWorkload, ModelArchitecture, TrainingWorkload
from tests.conftest import settings_for

pytestmark = [pytest.mark.slow, pytest.mark.db]

PAGES = ["/", "/compare", "/precision", "/plan", "/disagg", "/mix", "/own"]
TWINS = ["/rank.json", "/compare.json", "/precision.json", "/plan.json", "/disagg.json", "/mix.json", "/own.json"]
FORM_ONLY = {
    "tokens_per_s_per_user",
    "steps",
    "hf_config_json",
    "months",
    "train_method",
    "train_total_tokens",
    "train_steps",
    "mix",
}
OWN = {"gpu", "gpus", "gpus_per_server", "utilisation_pct", "purchase_usd", "rental_usd_per_gpu_hour"}
FIELDS = sorted(
    (set(InferenceWorkload.model_fields) | set(TrainingWorkload.model_fields) | set(Traffic.model_fields))
    - {"custom_model", "hf_config"}
    | {"arch_" + name for name in ModelArchitecture.model_fields}
    | FORM_ONLY
    | OWN
    | {"sort", "show", "page"}
)
VALUES = [
    *("0", "-1", "1", "2", "7", "8", "64", "4096", "131072", "1e9", "1e300", "5e-324", "-0", "0.0001", "1.5"),
    *("nan", "inf", "-inf", "abc", "", " ", "999999999999999999999999", "true", "false", "all", "{}", "[1]"),
    *("custom", "llama-3.1-8b", "deepseek-r1", "gpt-oss-120b", "mixtral-8x7b", "qwen3-30b-a3b"),
    *("fp8", "fp4", "int4", "bf16", "vllm", "sglang", "trtllm", "hf", "llamacpp"),
    *("max_throughput", "latency_bound", "fixed_batch", "single_stream", "concurrency", "request_rate"),
    *("lora", "qlora", "full_ft", "pretrain", "mla", "mha", "gqa", "ep", "dp", "tp", "auto"),
    *("H100-SXM", "B200", "MI300X", "spot", "reserved", "flat", "diurnal", "chat:1,rag:2", "chat:0"),
    *("ttft", "-tok_s", "mfu", "-rank", "--cost", "gpu_hour", "job_cost"),  # sort columns, some of another phase
]
MODELS = ["llama-3.1-8b", "llama-3.1-70b", "deepseek-r1", "mixtral-8x7b", "gpt-oss-20b", "qwen3-30b-a3b", "custom"]
CUSTOM = {"arch_params_b": "7", "arch_layers": "32", "arch_hidden_size": "4096", "arch_num_attention_heads": "32"}
QUERIES = int(os.environ.get("GPUMATCH_FUZZ_EXAMPLES", "0")) or 300
SEED = int(os.environ.get("GPUMATCH_FUZZ_SEED", "20261205"))


def random_query(rng: random.Random) -> tuple[str, dict[str, str]]:
    path = rng.choice(PAGES + TWINS)
    params: dict[str, str] = (
        {"phase": rng.choice(["inference", "training"])}
        if path in ("/", "/compare", "/rank.json", "/compare.json")
        else {}
    )
    params["model"] = rng.choice(MODELS)
    if params["model"] == "custom":
        params.update({**CUSTOM, "arch_intermediate_size": rng.choice(["1", "11008"])})
    for _ in range(rng.randint(0, 4)):
        params[rng.choice(FIELDS)] = rng.choice(VALUES)
    return path, params


def test_random_page_queries_never_5xx(seeded_url: str) -> None:
    client = TestClient(create_app(settings_for(seeded_url)), raise_server_exceptions=False)
    rng = random.Random(SEED)
    answered = 0
    for _ in range(QUERIES):
        path, params = random_query(rng)
        response = client.get(path, params=params, follow_redirects=True)
        assert response.status_code < 500, (path, params)
        if response.status_code == 200:
            answered += 1
            if path.endswith(".json"):
                constants: list[str] = []
                json.loads(response.text, parse_constant=constants.append)  # NaN, Infinity, -Infinity
                assert not constants, (path, params, constants)
    assert answered >= QUERIES // 10  # the pool reaches real answers, not only refusals
