"""A bad input is a 422 at the field the user typed, saying what is wrong with it: unknown catalog ids, an unknown
phase, a repeated mix bucket, checks across fields, form conveniences, non-finite numbers, bodies that are not
JSON, and every field's error at once. The pages, their twins, the JSON API and the CLI alike."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from app.cli.main import main

M = "model=llama-3.1-8b"


def detail(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text[:300]
    return {e["field"]: e["message"] for e in response.json()["detail"]}


def invalid_fields(html: str) -> set[str]:
    """The form controls a page marks invalid."""
    return set(re.findall(r'aria-invalid="true" aria-describedby="(?:hint-[a-z_]+ )?err-([a-z_]+)"', html))


# 1. Unknown catalog ids --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        f"/compare.json?{M}&gpus=NOPE,FAKE",
        f"/rank.json?{M}&gpus=NOPE,FAKE",
        f"/mix.json?{M}&gpus=NOPE,FAKE",
        f"/plan.json?{M}&gpus=NOPE,FAKE",
        f"/disagg.json?{M}&gpus=NOPE,FAKE",
        f"/precision.json?{M}&gpus=NOPE,FAKE",
    ],
)
def test_unknown_gpu_ids_are_named_on_every_twin(client: TestClient, path: str) -> None:
    message = detail(client.get(path))["gpus"]
    assert "'NOPE', 'FAKE'" in message and "/api/v1/gpus" in message


def test_every_unknown_filter_is_named_at_once_with_the_nearest_known_ids(client: TestClient) -> None:
    errors = detail(client.get("/rank.json?model=nope&gpus=H100SXM&providers=zzz&vendors=nvidia,intle"))
    assert set(errors) == {"model", "gpus", "providers", "vendors"}
    assert "did you mean H100-SXM" in errors["gpus"]
    assert "'intle'" in errors["vendors"] and "known: " in errors["vendors"] and "Intel" in errors["vendors"]
    assert "'nvidia'" not in errors["vendors"]  # ids match without regard to case, as the filter applies them


def test_known_ids_in_any_case_still_rank(client: TestClient) -> None:
    response = client.get(f"/rank.json?{M}&gpus=h200&vendors=nvidia&providers=AWS")
    assert response.status_code == 200 and response.json()["total_options"] > 0


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/v1/rank/inference", {"gpus": ["NOPE"]}, "gpus"),
        ("/api/v1/rank/training", {"providers": ["nobody"]}, "providers"),
        ("/api/v1/estimate/inference", {"gpu": "H100-SXM", "vendors": ["nope"]}, "vendors"),
        ("/api/v1/precision", {"gpus": ["NOPE"]}, "gpus"),
        ("/api/v1/mix", {"gpus": ["NOPE"]}, "gpus"),
        ("/api/v1/disagg", {"workload": {"gpus": ["NOPE"]}}, "workload.gpus"),
        ("/api/v1/plan/serving", {"workload": {"gpus": ["NOPE"]}}, "workload.gpus"),
    ],
)
def test_unknown_ids_in_an_api_body_are_422(client: TestClient, path: str, body: dict, field: str) -> None:
    assert "unknown" in detail(client.post(path, json=body))[field]


def test_a_lifecycle_names_both_workloads_unknown_ids(client: TestClient) -> None:
    body = {"training": {"gpus": ["NOPE"]}, "inference": {"vendors": ["nope"]}}
    assert set(detail(client.post("/api/v1/plan/lifecycle", json=body))) == {"training.gpus", "inference.vendors"}


def test_the_page_shows_an_unknown_id_at_its_field_and_keeps_it_ticked(client: TestClient) -> None:
    page = client.get(f"/?phase=inference&{M}&gpus=NOPE,H200")
    assert page.status_code == 422 and invalid_fields(page.text) == {"gpus"}
    assert 'value="NOPE" checked> NOPE (not an option)' in page.text
    assert 'value="H200" checked' in page.text


def test_plan_training_filters_are_lists_named_with_their_prefix(client: TestClient) -> None:
    errors = detail(client.get(f"/plan.json?{M}&months=12&train_gpus=NOPE,H200"))
    assert list(errors) == ["train_gpus"] and "'NOPE'" in errors["train_gpus"]
    ok = client.get(f"/plan.json?{M}&months=12&train_gpus=H200,H100-SXM")
    assert ok.status_code == 200 and "train_gpus=H200,H100-SXM" in ok.json()["share_url"]


def test_a_link_naming_unknown_ids_is_not_saved(client: TestClient) -> None:
    response = client.post(
        "/share", data={"path": "/", "query": f"{M}&gpus=NOPE"}, headers={"accept": "application/json"}
    )
    assert "gpus" in detail(response)


@pytest.mark.parametrize(
    ("path", "body", "field", "nearest"),
    [
        ("/api/v1/rank/inference", {"model": "llama-3.1-8x"}, "model", "llama-3.1-8b"),
        ("/api/v1/precision", {"model": "llama-3.1-8x"}, "model", "llama-3.1-8b"),
        ("/api/v1/estimate/inference", {"gpu": "h100-sx"}, "gpu", "H100-SXM"),  # h100-sxm is H100-SXM
        ("/api/v1/own", {"gpu": "H100"}, "gpu", "H100-NVL, H100-PCIE, H100-SXM"),
    ],
)
def test_an_unknown_model_or_gpu_gets_the_nearest_ids_as_a_filter_does(
    client: TestClient, path: str, body: dict[str, str], field: str, nearest: str
) -> None:
    """The filters and /token-prices named the nearest ids ('did you mean H100-SXM?'); the rank, precision, estimate
    and own APIs said only "unknown GPU 'h100-sxm'; GET /api/v1/gpus lists the catalog's GPUs"."""
    message = detail(client.post(path, json=body))[field]
    assert f"'; did you mean {nearest}" in message and "? GET /api/v1/" in message


def test_the_cli_names_unknown_ids_and_exits_2(database, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--gpus", "NOPE"]) == 2
    assert capsys.readouterr().err.startswith("--gpus: unknown GPU id 'NOPE'")
    assert main(["mix", "--gpus", "NOPE", "--vendors", "amd"]) == 2  # amd is AMD
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("--gpus: unknown GPU id 'NOPE'")


# 2. Phase ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["phase=TRAINING&" + M, "phase=trainin&method=full_ft", "phase=serve"])
def test_an_unknown_phase_is_the_only_error(client: TestClient, query: str) -> None:
    errors = detail(client.get(f"/rank.json?{query}"))
    assert list(errors) == ["phase"] and "inference or training" in errors["phase"]
    page = client.get(f"/?{query}")
    assert page.status_code == 422 and "inference or training" in page.text


def test_a_phase_alone_is_still_a_blank_form(client: TestClient) -> None:
    for query in ("phase=training", "phase=inference", "phase="):
        assert client.get(f"/?{query}", follow_redirects=False).status_code == 200
    assert client.get("/?phase=bogus", follow_redirects=False).status_code == 422


# 3. Mix buckets ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mix", ["chat:0.5,chat:0.5", "chat:1,70x215:1", "1000x200:1,rag:1,1000x200:2"])
def test_a_repeated_mix_bucket_is_an_error_on_mix(client: TestClient, mix: str) -> None:
    assert "repeats bucket" in detail(client.get(f"/mix.json?{M}&mix={mix}"))["mix"]
    assert "repeats bucket" in detail(client.post("/api/v1/mix", json={"mix": mix}))["mix"]


# 4a. Checks across fields name the field to change -------------------------------------------------------------


def test_a_request_rate_without_a_rate_is_an_error_on_requests_per_s(client: TestClient) -> None:
    errors = detail(client.get(f"/rank.json?{M}&scenario=request_rate"))
    assert list(errors) == ["requests_per_s"] and errors["requests_per_s"].startswith("required")
    page = client.get(f"/?phase=inference&{M}&scenario=request_rate")
    assert invalid_fields(page.text) == {"requests_per_s"}
    body = detail(client.post("/api/v1/rank/inference", json={"scenario": "request_rate"}))
    assert list(body) == ["requests_per_s"]


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("/api/v1/disagg", {"workload": {"model": None}}, "workload.model"),
        ("/api/v1/plan/serving", {"workload": {"model": None}}, "workload.model"),
        ("/api/v1/plan/lifecycle", {"training": {"model": None}, "inference": {}}, "training.model"),
        (
            "/api/v1/plan/serving",
            {"workload": {"max_num_batched_tokens": 4096, "engine": "sglang"}},
            "workload.max_num_batched_tokens",
        ),
        ("/api/v1/precision", {"model": None}, "model"),
    ],
)
def test_a_check_across_a_nested_workloads_fields_names_the_field(
    client: TestClient, path: str, body: dict, field: str
) -> None:
    """/disagg's and /plan's workload is nested in the body: its checks across fields answered field 'workload' with
    'model: give a catalog model id, …' as the message, where /precision's said field 'model' (found by qa30)."""
    errors = detail(client.post(path, json=body))
    assert field in errors and not errors[field].startswith(field.rsplit(".", 1)[-1] + ":"), errors


def test_both_traffic_rates_is_an_error_on_the_peak_rate(client: TestClient) -> None:
    errors = detail(client.get(f"/plan.json?{M}&requests_per_day=5&peak_requests_per_s=5"))
    assert list(errors) == ["peak_requests_per_s"]


def test_a_custom_architecture_check_names_its_field(client: TestClient) -> None:
    arch = {"params_b": 1, "layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 1}
    for extra, field in [
        ({"num_experts": 2, "experts_per_token": 4}, "experts_per_token"),
        ({"num_kv_heads": 8}, "num_kv_heads"),
        ({"attention": "mla"}, "kv_lora_rank"),
    ]:
        body = detail(client.post("/api/v1/rank/inference", json={"custom_model": {**arch, **extra}}))
        assert list(body) == [f"custom_model.{field}"]
        query = "&".join(f"arch_{k}={v}" for k, v in {**arch, **extra}.items())
        assert list(detail(client.get(f"/rank.json?model=custom&{query}"))) == [f"arch_{field}"]


def test_the_cli_names_the_flag_of_a_check_across_fields(database, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rank", "inference", "--scenario", "request_rate"]) == 2
    assert capsys.readouterr().err.startswith("--requests-per-s: required")
    assert main(["plan", "serving", "--requests-per-day", "5", "--peak-requests-per-s", "5"]) == 2
    assert capsys.readouterr().err.startswith("--peak-requests-per-s: give requests_per_day or")


# 4b. Form conveniences ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, field, says",
    [
        ("tokens_per_s_per_user=-5", "tokens_per_s_per_user", "greater than 0"),
        ("tokens_per_s_per_user=nan", "tokens_per_s_per_user", "finite"),
        ("tokens_per_s_per_user=abc", "tokens_per_s_per_user", "a number"),
        ("tokens_per_s_per_user=0.001", "tokens_per_s_per_user", "tpot_ms = 1000 ÷ tokens_per_s_per_user = 1,000,000"),
        ("phase=training&steps=-10", "steps", "whole number of optimizer steps (at least 1)"),
        ("phase=training&steps=1.5", "steps", "whole number"),
        ("phase=training&steps=1e30", "steps", "total_tokens = steps × global_batch_seqs × seq_len"),
        ("phase=training&steps=10&global_batch_seqs=abc", "global_batch_seqs", "whole number of sequences, e.g. 64"),
    ],
)
def test_a_convenience_field_error_is_at_the_field_typed(client: TestClient, query: str, field: str, says: str) -> None:
    errors = detail(client.get(f"/rank.json?{M}&{query}"))
    assert list(errors) == [field] and says in errors[field]
    page = client.get(f"/?{M}&{query}")
    assert page.status_code == 422 and invalid_fields(page.text) == {field}  # not tpot_ms or total_tokens


def test_a_convenience_on_the_plan_page_is_at_the_field_typed(client: TestClient) -> None:
    assert list(detail(client.get(f"/plan.json?{M}&tokens_per_s_per_user=0.001"))) == ["tokens_per_s_per_user"]


def test_a_typed_field_keeps_its_own_error_beside_a_bad_convenience(client: TestClient) -> None:
    errors = detail(client.get(f"/rank.json?{M}&tokens_per_s_per_user=-1&tpot_ms=abc"))
    assert set(errors) == {"tokens_per_s_per_user", "tpot_ms"}


# 4c. Non-finite numbers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, field",
    [
        (f"/rank.json?{M}&tpot_ms=nan", "tpot_ms"),
        (f"/rank.json?{M}&ttft_ms=inf", "ttft_ms"),
        (f"/rank.json?{M}&tpot_ms=1e400", "tpot_ms"),
        (f"/mix.json?{M}&mix=chat:nan", "mix"),
        ("/api/v1/offers?max_usd_per_gpu_hour=nan", "max_usd_per_gpu_hour"),
        ("/own.json?utilisation_pct=-inf", "utilisation_pct"),
    ],
)
def test_a_non_finite_number_says_so(client: TestClient, path: str, field: str) -> None:
    assert detail(client.get(path))[field].endswith("must be a finite number")


def test_a_non_finite_number_in_a_body_says_so(client: TestClient) -> None:
    response = client.post(
        "/api/v1/rank/inference", content=b'{"tpot_ms": NaN}', headers={"content-type": "application/json"}
    )
    assert detail(response) == {"tpot_ms": "must be a finite number"}


# 4d, 4f. A pasted config.json ---------------------------------------------------------------------------------------


def test_an_unreadable_pasted_config_is_the_only_error(client: TestClient) -> None:
    for path in ("/rank.json", "/plan.json"):
        errors = detail(client.get(path, params={"model": "custom", "hf_config_json": "this is not json"}))
        assert list(errors) == ["hf_config_json"]


LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
}
SNAPSHOT = "/home/me/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B/snapshots/" + "0e9e39f249a16976918f" * 2


def test_a_long_local_path_is_shortened_alike_in_the_form_and_the_api(client: TestClient) -> None:
    config = {**LLAMA, "_name_or_path": SNAPSHOT}
    api = client.post("/api/v1/rank/inference", json={"hf_config": config}, params={"limit": 1})
    assert api.status_code == 200 and api.json()["model"]["name"] == "meta-llama/Llama-3.1-8B"
    twin = client.get("/rank.json", params={"hf_config_json": json.dumps(config)})
    assert twin.status_code == 200 and twin.json()["model"]["name"] == "meta-llama/Llama-3.1-8B"
    long_name = {**LLAMA, "_name_or_path": "x" * 4000}
    api = client.post("/api/v1/rank/inference", json={"hf_config": long_name}, params={"limit": 1})
    twin = client.get("/rank.json", params={"hf_config_json": json.dumps(long_name)})
    assert api.json()["model"]["name"] == twin.json()["model"]["name"] == "x" * 79 + "…"


def test_display_name_keeps_a_hub_id_and_shortens_paths() -> None:
    from app.scoring.hf_config.model_spec import display_name

    assert display_name("meta-llama/Llama-3.1-8B", "custom") == "meta-llama/Llama-3.1-8B"
    assert display_name("./checkpoints/my-run", "custom") == "my-run"
    assert display_name("C:\\models\\llama", "custom") == "llama"
    assert display_name(None, "custom") == display_name("   ", "custom") == "custom"


# 4e. Bodies --------------------------------------------------------------------------------------------------------


def test_body_errors_name_the_body_or_the_real_field(client: TestClient) -> None:
    headers = {"content-type": "application/json"}
    broken = detail(client.post("/api/v1/rank/inference", content=b'{"model": "x",', headers=headers))
    assert list(broken) == ["body"] and broken["body"].startswith("not valid JSON") and "at character" in broken["body"]
    assert list(detail(client.post("/api/v1/rank/inference", json=[1]))) == ["body"]
    assert list(detail(client.post("/api/v1/rank/inference", json={"model": None}))) == ["model"]


def test_share_errors_name_path_and_query_once_each(client: TestClient) -> None:
    accept = {"accept": "application/json"}
    response = client.post("/share", json={"query": M}, headers=accept)
    assert response.status_code == 422 and response.json()["detail"] == [{"field": "path", "message": "Field required"}]
    response = client.post("/share", data={}, headers=accept)
    assert response.status_code == 422 and response.json()["detail"] == [
        {"field": "path", "message": "Field required"},
        {"field": "query", "message": "Field required"},
    ]
    assert list(detail(client.post("/share", data={"path": "/"}, headers=accept))) == ["query"]
    assert list(detail(client.post("/share", data={"path": "/", "query": "a" * 4001}, headers=accept))) == ["query"]


# 5, 6. Twins of error pages --------------------------------------------------------------------------------------


def test_an_error_page_links_the_twin_that_answers_the_same_422(client: TestClient) -> None:
    page = client.get(f"/?{M}&tpot_ms=abc")
    assert page.status_code == 422
    twin = re.search(r'<link rel="alternate" type="application/json" href="([^"]+)"', page.text)
    assert twin is not None and twin.group(1).replace("&amp;", "&") == f"/rank.json?{M}&tpot_ms=abc"
    assert page.headers["link"].startswith(f"</rank.json?{M}&tpot_ms=abc>")
    assert "tpot_ms" in detail(client.get(twin.group(1).replace("&amp;", "&")))
    compare = client.get(f"/compare?{M}&tpot_ms=abc")
    assert compare.headers["link"].startswith(f"</compare.json?{M}&tpot_ms=abc>")


def test_index_json_with_a_question_is_the_rankings_twin(client: TestClient) -> None:
    moved = client.get(f"/index.json?{M}&tpot_ms=abc", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == f"/rank.json?{M}&tpot_ms=abc"
    assert "tpot_ms" in detail(client.get(f"/index.json?{M}&tpot_ms=abc"))
    assert "defaults" in client.get("/index.json").json()  # the blank form's twin is unchanged


def test_a_csv_twin_answers_errors_as_json(client: TestClient) -> None:
    missing = client.get("/s/nope.csv")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("application/json")
    assert missing.json() == {"detail": [{"field": "slug", "message": "no saved link with id 'nope'"}]}


# 7. Every field's error at once ---------------------------------------------------------------------------------------


def test_the_plan_reports_every_field_error_at_once(client: TestClient) -> None:
    errors = detail(client.get("/plan.json?model=llama-3.1-70b&months=abc&train_method=bogus&tpot_ms=0"))
    assert set(errors) == {"months", "train_method", "tpot_ms"}
    page = client.get("/plan?model=llama-3.1-70b&months=abc&train_method=bogus")
    assert page.status_code == 422 and "Please correct the 2 fields" in page.text


# 8. Repeated keys -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, key",
    [
        ("/own.json?gpu=H200&gpu=H100-SXM", "gpu"),
        ("/api/v1/offers?gpu=H200&gpu=H100-SXM", "gpu"),
        ("/api/v1/gpus?sort=name&sort=memory", "sort"),
        ("/gpus.json?vendor=AMD&vendor=NVIDIA", "vendor"),
    ],
)
def test_a_key_given_twice_is_422_everywhere(client: TestClient, path: str, key: str) -> None:
    assert detail(client.get(path))[key] == f"given more than once; {key} takes one value"


def test_the_own_page_refuses_a_repeated_key_instead_of_redirecting(client: TestClient) -> None:
    page = client.get("/own?gpu=H200&gpu=H100-SXM", follow_redirects=False)
    assert page.status_code == 422 and "given more than once" in page.text


def test_a_repeated_key_in_a_post_apis_query_is_422(client: TestClient) -> None:
    assert "limit" in detail(client.post("/api/v1/rank/inference?limit=1&limit=2", json={}))
