"""A display name or a Hugging Face repo typed where a catalog id belongs is refused as what it is, with the id it
likely means, not in pydantic's words (a regular expression: "String should match pattern '^[A-Za-z0-9._\\-]+$'")
on the pages, their twins and the JSON API (qa38)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

NOT_AN_ID = "is not a {} id (an id has only letters, digits, '.', '_' and '-')"


def _errors(answer: object) -> dict[str, str]:
    return {e["field"]: e["message"] for e in answer.json()["detail"]}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("Llama 3.1 70B", "llama-3.1-70b"),
        ("meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
    ],
)
def test_a_model_name_or_repo_is_refused_with_the_id_it_means(client: TestClient, typed: str, meant: str) -> None:
    answer = client.get("/rank.json", params={"phase": "inference", "model": typed})
    assert answer.status_code == 422
    message = _errors(answer)["model"]
    assert f"{typed!r} {NOT_AN_ID.format('model')}" in message and f"did you mean {meant}?" in message
    assert "pattern" not in message


def test_every_page_twin_and_the_api_say_it_of_each_field(client: TestClient) -> None:
    for url in ("/plan.json?requests_per_day=1000&", "/precision.json?", "/disagg.json?"):
        message = _errors(client.get(f"{url}model=Llama 3.1 8B"))["model"]
        assert "did you mean llama-3.1-8b?" in message, url
    own = _errors(client.get("/own.json?gpu=NVIDIA H200"))["gpu"]
    assert NOT_AN_ID.format("GPU") in own and "did you mean H200?" in own
    listed = _errors(client.get("/rank.json?phase=inference&model=llama-3.1-8b&gpus=H100 SXM,B200"))
    assert "'H100 SXM'" in listed["gpus"] and "did you mean H100-SXM?" in listed["gpus"]
    page = client.get("/?phase=inference&model=Llama 3.1 70B")
    assert page.status_code == 422 and "did you mean llama-3.1-70b?" in page.text
    body = client.post("/api/v1/rank/inference", json={"model": "Llama 3.1 70B", "gpus": ["H100 SXM"]})
    said = _errors(body)
    assert set(said) == {"model", "gpus.0"}  # in the shape error's place, once each
    assert "did you mean llama-3.1-70b?" in said["model"] and "did you mean H100-SXM?" in said["gpus.0"]


def test_an_id_of_the_right_shape_and_a_value_too_long_keep_their_messages(client: TestClient) -> None:
    unknown = _errors(client.get("/rank.json?phase=inference&model=llama-9"))["model"]
    assert unknown.startswith("unknown model 'llama-9'")
    long = _errors(client.get("/rank.json", params={"phase": "inference", "model": "x " * 40}))["model"]
    assert "64 characters" in long


def test_the_cli_says_it_once_in_the_flags_place(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli.main import main

    assert main(["rank", "inference", "--model", "Llama 3.1 70B", "--gpus", "H100 SXM"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in lines] == ["--gpus", "--model"] and "pattern" not in "".join(lines)
    assert "did you mean llama-3.1-70b?" in lines[1] and "did you mean H100-SXM?" in lines[0]


@pytest.mark.parametrize(
    ("url", "field", "said"),
    [
        ("/api/v1/offers?gpu=H100 SXM", "gpu", "did you mean H100-SXM?"),
        ("/api/v1/offers?provider=Lambda Labs", "provider", "did you mean lambda?"),
        ("/api/v1/gpus/H100-SXM?provider=Lambda Labs", "provider", "did you mean lambda?"),
        ("/api/v1/token-prices?model=meta-llama/Llama-3.1-70B-Instruct", "model", "did you mean llama-3.1-70b?"),
        ("/api/v1/offers?gpu=a%2Fb", "gpu", "'a/b' is not a GPU id"),
    ],
)
def test_a_catalog_lists_id_filter_says_it_too(client: TestClient, url: str, field: str, said: str) -> None:
    """GET /api/v1/offers?gpu=H100 SXM answered pydantic's regular expression, where the rank body's gpus say what
    was typed and the id it likely means (found by qa41)."""
    answer = client.get(url)
    assert answer.status_code == 422
    message = _errors(answer)[field]
    assert said in message and "pattern" not in message


@pytest.mark.parametrize(
    ("url", "field", "said"),
    [
        ("/api/v1/gpus/H100", "gpu_id", "no GPU with id 'H100'; did you mean H100-NVL, H100-PCIE, H100-SXM?"),
        ("/api/v1/gpus/NVIDIA H100 SXM", "gpu_id", "did you mean H100-SXM?"),
        ("/api/v1/models/Llama 3.1 70B", "model_id", "did you mean llama-3.1-70b?"),
        ("/api/v1/providers/lambdalabs", "provider_id", "did you mean lambda?"),
        ("/providers/lambda-labs.json", "provider_id", "did you mean lambda?"),
        ("/gpus/H100.json", "gpu_id", "did you mean H100-NVL"),
        ("/models/deepseek.json", "model_id", "did you mean deepseek-r1"),
    ],
)
def test_an_id_in_a_path_the_catalog_lacks_is_answered_with_the_ids_it_may_mean(
    client: TestClient, url: str, field: str, said: str
) -> None:
    """/api/v1/gpus/H100 answered "no GPU with id 'H100'" alone, where ?gpu=H100 on the rank API names the H100s
    (found by qa41)."""
    answer = client.get(url)
    assert answer.status_code == 404
    assert said in _errors(answer)[field]
