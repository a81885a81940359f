"""Real answers of the rank, estimate and plan APIs (and the rank pages' JSON twin) validate against the response
schemas /openapi.json publishes, every object closed: a field an answer sends that /docs does not describe, one
/docs requires that an answer lacks, or a null where /docs says a number, fails here."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

ALL_TERMS = "include_stale=true&price_types=on_demand,spot,reserved,marketplace,capacity_block"
LLAMA_70B_FP8 = {"model": "llama-3.1-70b", "weight_dtype": "fp8"}

# (method, path, body, response schema): each question reaches some part of the answer the others do not
CASES: dict[str, tuple[str, str, dict[str, Any] | None, str]] = {
    "infeasible rows": (
        "GET",
        f"/rank.json?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&{ALL_TERMS}",
        None,
        "InferenceRankResponse",
    ),
    "sorted, lean": (
        "POST",
        "/api/v1/rank/inference?limit=5&terms=false&sort=-tok_s",
        {"model": "llama-3.1-8b"},
        "InferenceRankResponse",
    ),
    "fleet at a peak": (
        "POST",
        "/api/v1/rank/inference?limit=40",
        {"model": "llama-3.1-8b", "peak_requests_per_s": 20},
        "InferenceRankResponse",
    ),
    "batch job": (
        "GET",
        "/rank.json?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=100000"
        "&job_deadline_hours=2",
        None,
        "InferenceRankResponse",
    ),
    "every option over the limits": (
        "GET",
        "/rank.json?phase=inference&model=llama-3.1-8b&tpot_ms=5&scenario=concurrency&concurrency=64",
        None,
        "InferenceRankResponse",
    ),
    "training, mixed terms": (
        "GET",
        "/rank.json?phase=training&model=llama-3.1-8b&method=lora&total_tokens=1e9&price_types=on_demand,reserved,spot",
        None,
        "TrainingRankResponse",
    ),
    "training that does not fit": (
        "POST",
        "/api/v1/rank/training",
        {"model": "llama-3.1-70b", "method": "full_ft", "max_gpus": 16, "include_stale": True},
        "TrainingRankResponse",
    ),
    "training past Max GPUs": (
        "GET",
        "/rank.json?phase=training&model=llama-3.1-70b&method=pretrain&total_tokens=2000000000000&max_days=90",
        None,
        "TrainingRankResponse",
    ),
    "compare's cards": (
        "GET",
        "/compare.json?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&gpus=H100-SXM,H200,B200,RTX-5090",
        None,
        "InferenceRankResponse",
    ),
    "compare's training cards": (
        "GET",
        "/compare.json?phase=training&model=llama-3.1-8b&method=lora&gpus=TPU-V5E,H100-SXM,RTX-5090",
        None,
        "TrainingRankResponse",
    ),
    "inference estimate": (
        "POST",
        "/api/v1/estimate/inference",
        {**LLAMA_70B_FP8, "gpu": "H100-SXM", "gpu_count": 2},
        "InferenceEstimateOut",
    ),
    "infeasible inference estimate": (
        "POST",
        "/api/v1/estimate/inference",
        {"model": "llama-3.1-70b", "gpu": "H100-SXM", "gpu_count": 3},
        "InferenceEstimateOut",
    ),
    "training estimate": (
        "POST",
        "/api/v1/estimate/training",
        {"model": "llama-3.1-8b", "method": "lora", "gpu": "A100-SXM-80GB", "gpu_count": 1},
        "TrainingEstimateOut",
    ),
    "training estimate that does not fit": (
        "POST",
        "/api/v1/estimate/training",
        {"model": "llama-3.1-70b", "method": "full_ft", "gpu": "H100-SXM", "gpu_count": 1},
        "TrainingEstimateOut",
    ),
    "training estimate beyond the machine": (
        "POST",
        "/api/v1/estimate/training",
        {"model": "llama-3.1-8b", "method": "lora", "gpu": "H100-SXM", "gpu_count": 16},
        "TrainingEstimateOut",
    ),
    "lifecycle": (
        "POST",
        "/api/v1/plan/lifecycle",
        {
            "training": {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 1e9},
            "inference": {"model": "llama-3.1-8b"},
            "months": 6,
        },
        "LifecycleResponse",
    ),
    "serving plan": (
        "POST",
        "/api/v1/plan/serving?limit=10",
        {"workload": {"model": "llama-3.1-70b"}, "traffic": {"requests_per_day": 500000}},
        "ServingResponse",
    ),
}


def closed(node: Any) -> Any:
    """Every object schema that lists its properties allows no others (where it does not say otherwise)."""
    if isinstance(node, dict):
        if "properties" in node:
            node.setdefault("additionalProperties", False)
        for value in node.values():
            closed(value)
    elif isinstance(node, list):
        for value in node:
            closed(value)
    return node


@pytest.fixture(scope="module")
def components(client: TestClient) -> dict[str, Any]:
    return closed(copy.deepcopy(client.get("/openapi.json").json()["components"]))


def errors_against(components: dict[str, Any], name: str, body: Any) -> list[str]:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": f"#/components/schemas/{name}"}
    validator = jsonschema_rs.validator_for({**schema, "components": components})
    return [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(body)][:10]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_real_answer_matches_its_documented_schema(client: TestClient, components: dict[str, Any], case: str) -> None:
    method, path, body, name = CASES[case]
    response = client.request(method, path, json=body)
    assert response.status_code == 200, response.text
    assert errors_against(components, name, response.json()) == []


def test_the_cases_reach_every_optional_part_of_the_rank_answers(client: TestClient) -> None:
    """The fields present only for some questions: each is in some case's answer, so the test above checks it."""
    seen: set[str] = set()
    for method, path, body, _ in CASES.values():
        answer = client.request(method, path, json=body).json()
        seen.update(k for k, v in answer.items() if v)
        seen.update(f"option {k}" for o in answer.get("options", []) for k, v in o.items() if v is None)
    optional = {"sort", "lowest_p99", "serverless_job", "deadline_max_gpus", "frontier", "global_batch"}
    assert optional <= seen
    assert {"option ttft_p99_ms", "option step_time_s", "option band", "option job_hours"} <= seen  # nulls too


def test_a_field_the_schema_does_not_describe_fails_the_check(client: TestClient, components: dict[str, Any]) -> None:
    method, path, body, name = CASES["sorted, lean"]
    answer = client.request(method, path, json=body).json()
    answer["options"][0]["undocumented_ms"] = 1.0
    assert any("undocumented_ms" in e for e in errors_against(components, name, answer))
    del answer["options"][0]["undocumented_ms"], answer["options"][0]["band_metric"]
    assert any("band_metric" in e for e in errors_against(components, name, answer))


def test_the_rank_endpoints_document_their_own_answers(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]

    def schema(path: str) -> str:
        return paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]

    assert schema("/api/v1/rank/inference").endswith("/InferenceRankResponse")
    assert schema("/api/v1/rank/training").endswith("/TrainingRankResponse")
    assert schema("/api/v1/estimate/inference").endswith("/InferenceEstimateOut")
    assert schema("/api/v1/estimate/training").endswith("/TrainingEstimateOut")
    assert schema("/api/v1/plan/lifecycle").endswith("/LifecycleResponse")


def test_each_latency_says_its_statistic_and_the_old_names_of_the_means_are_deprecated(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("InferenceOptionOut", "InferenceEstimateOut", "ServingOptionOut"):
        fields = schemas[name]["properties"]
        for which in ("ttft", "tpot"):
            assert fields[f"{which}_ms"].get("deprecated") is True, name
            assert f"deprecated name of {which}_mean_ms" in fields[f"{which}_ms"]["description"]
            assert fields[f"{which}_mean_ms"]["description"].startswith("mean ")
            assert f"the request's {which}_ms limit is checked against" in fields[f"{which}_p99_ms"]["description"]


def test_the_feature_pages_name_their_means_as_the_rank_api_does(client: TestClient) -> None:
    """/disagg, /mix and /precision report mean latencies: named ttft_mean_ms and tpot_mean_ms, the old names
    kept as deprecated aliases of the same values (a request's ttft_ms limits a p99)."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("DisaggregatedOut", "AggregatedOut", "BucketFitOut", "BestOption"):
        fields = schemas[name]["properties"]
        for which in ("ttft", "tpot"):
            assert fields[f"{which}_ms"].get("deprecated") is True, name
            assert fields[f"{which}_mean_ms"]["description"].startswith("mean "), name
    workload = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "input_len": 8000, "output_len": 500, "tpot_ms": 40}
    disagg = client.post("/api/v1/disagg", json={"workload": workload, "traffic": {}}).json()
    mix = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.3"}).json()
    precision = client.post("/api/v1/precision", json={"model": "llama-3.1-8b"}).json()
    rows = [disagg["aggregated"], *disagg["disaggregated"]]
    rows += [f for r in mix["replica_types"] for f in r["fits"] if f["requests_per_s"] > 0]
    rows += [r["best"] for r in precision["rows"] if r["best"]]
    assert len(rows) > 5
    for row in rows:
        assert row["ttft_mean_ms"] == row["ttft_ms"] > 0 and row["tpot_mean_ms"] == row["tpot_ms"] > 0


def test_the_mix_is_documented_as_its_text_form_or_buckets(client: TestClient) -> None:
    mix = client.get("/openapi.json").json()["components"]["schemas"]["MixQuestion"]["properties"]["mix"]
    kinds = {branch.get("type") for branch in mix["anyOf"]}
    assert kinds == {"string", "array"}
    response = client.post("/api/v1/mix", json={"model": "llama-3.1-8b", "mix": "chat:0.7,rag:0.3"})
    assert response.status_code == 200, response.text


def test_the_documented_hf_config_depth_is_the_one_enforced(client: TestClient) -> None:
    described = client.get("/openapi.json").json()["components"]["schemas"]["InferenceWorkload"]["properties"]
    assert "(at most 200 keys, depth 6, 64 KB)" in described["hf_config"]["description"]
    too_deep: dict[str, Any] = {"quantization_config": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}
    answer = client.post("/api/v1/rank/inference?limit=1", json={"model": None, "hf_config": too_deep})
    assert answer.json()["detail"] == [{"field": "hf_config", "message": "nested deeper than 6 levels"}]
