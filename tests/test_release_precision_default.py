"""An inference question without a weight_dtype ranks the model's release precision; saved links keep their meaning."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.main import create_app
from app.models.versions import ShareLink
from tests.conftest import settings_for

DEEPSEEK = "phase=inference&model=deepseek-v3&max_gpus=16"


def test_rank_without_weight_dtype_ranks_the_release_and_says_so(client) -> None:  # type: ignore[no-untyped-def]
    fp8 = client.post("/api/v1/rank/inference", json={"model": "deepseek-v3", "max_gpus": 16}, params={"limit": 1})
    body = fp8.json()
    assert body["workload"]["weight_dtype"] == "fp8"
    assert body["weights"]["from_release"] and body["weights"]["release_precision"] == "fp8"
    assert body["options"][0]["memory_gb"]["weights"] * body["options"][0]["gpu_count"] < 700  # 671 GB at FP8
    assert body["notes"][-1].startswith("Weights as released: FP8")
    asked = client.post(
        "/api/v1/rank/inference", json={"model": "deepseek-v3", "max_gpus": 16, "weight_dtype": "bf16"}
    ).json()
    assert asked["workload"]["weight_dtype"] == "bf16" and not asked["weights"]["from_release"]
    assert "the model is released in FP8" in asked["notes"][-1]


def test_gpt_oss_ranks_its_mxfp4_release_as_4_bit_weight_only(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/inference", json={"model": "gpt-oss-120b"}, params={"limit": 1}).json()
    assert body["workload"]["weight_dtype"] == "int4"  # /precision's mxfp4 row: W4A16
    assert body["options"][0]["memory_gb"]["weights"] * body["options"][0]["gpu_count"] < 70  # 116.83 B x 0.5625


def test_a_model_of_unknown_release_ranks_bf16_assumed(client) -> None:  # type: ignore[no-untyped-def]
    body = client.post("/api/v1/rank/inference", json={"model": "llama-3.1-8b"}, params={"limit": 1}).json()
    assert body["workload"]["weight_dtype"] == "bf16" and body["weights"]["release_assumed"]
    assert "BF16 is assumed" in body["notes"][-1]


def test_plan_disagg_and_mix_follow_the_release_default(client) -> None:  # type: ignore[no-untyped-def]
    traffic = {"requests_per_day": 500_000}
    plan = client.post("/api/v1/plan/serving", json={"workload": {"model": "deepseek-v3"}, "traffic": traffic}).json()
    assert plan["workload"]["weight_dtype"] == "fp8" and plan["weights"]["from_release"]
    disagg = client.post("/api/v1/disagg", json={"workload": {"model": "deepseek-v3"}, "traffic": traffic}).json()
    assert disagg["workload"]["weight_dtype"] == "fp8" and disagg["notes"][-1].startswith("Weights as released")
    mix = client.post("/api/v1/mix", json={"model": "gpt-oss-20b"}).json()
    assert mix["question"]["weight_dtype"] == "int4" and mix["weights"]["release_precision"] == "mxfp4"
    kept = client.post("/api/v1/mix", json={"model": "gpt-oss-20b", "weight_dtype": "bf16"}).json()
    assert kept["question"]["weight_dtype"] == "bf16"


def test_the_form_names_the_release_as_the_default_and_keeps_an_explicit_bf16(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get(f"/?{DEEPSEEK}")
    assert page.status_code == 200
    assert '<option value="">the release&#39;s (FP8)</option>' in page.text
    assert "Weights as released: FP8" in page.text
    explicit = client.get(f"/?{DEEPSEEK}&weight_dtype=bf16")
    assert "weight_dtype=bf16" in str(explicit.url)  # canonical: an explicit bf16 is another question than the release
    assert '<option value="bf16" selected>' in explicit.text


def test_a_link_saved_without_weight_dtype_replays_as_bf16_and_a_new_one_names_its_dtype(fresh_url: str) -> None:
    app = create_app(settings_for(fresh_url))
    with TestClient(app) as client:
        new = client.post("/share", data={"path": "/", "query": DEEPSEEK}, headers={"Accept": "application/json"})
        slug = new.json()["slug"]
        fresh = client.get(f"/s/{slug}.json").json()
        with Session(app.state.engine) as session:
            link = session.get(ShareLink, slug)
            assert link is not None and "weight_dtype=fp8" in link.query  # stored as ranked
            link.query = DEEPSEEK  # a link saved before release precisions: no weight_dtype, which meant bf16
            session.add(link)
            session.commit()
        old = client.get(f"/s/{slug}.json").json()
        page = client.get(f"/s/{slug}")
    assert old["workload"]["weight_dtype"] == "bf16" and not old["weights"]["from_release"]
    assert "weight_dtype=bf16" in old["saved"]["current_url"]  # today's prices for the same (bf16) question
    assert page.status_code == 200 and '<option value="bf16" selected>' in page.text
    assert fresh["workload"]["weight_dtype"] == "fp8"


def test_precision_reads_the_release_from_the_catalog_not_assumed(client) -> None:  # type: ignore[no-untyped-def]
    for model in ("deepseek-v3.1", "deepseek-v3.2", "kimi-k2", "minimax-m2"):
        release = client.get(f"/precision.json?model={model}").json()["release"]
        assert (release["precision"], release["assumed"]) == ("fp8", False), model
        assert release["source"].startswith("config.json quantization_config") and release["source_url"], model


def test_an_estimate_of_a_ranked_row_uses_the_ranking_s_dtype(client) -> None:  # type: ignore[no-untyped-def]
    question = {"model": "deepseek-v3", "gpu": "H200", "gpu_count": 8}
    body = client.post("/api/v1/estimate/inference", json=question).json()
    assert body["weights"]["weight_dtype"] == "fp8" and body["memory_gb"]["weights"] < 90  # 671 GB / 8 at FP8
