"""An offer filter naming an id twice filters as naming it once, on every face: `/compare?…&gpus=H100-SXM,H100-SXM`
kept both in its canonical link and its answer's workload, one view state under two URLs (found by qa37)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.scoring.workload import InferenceWorkload, TrainingWorkload


def test_a_repeated_id_is_kept_once_in_its_first_spelling_and_place() -> None:
    workload = InferenceWorkload(gpus=["H100-SXM", "B200", "h100-sxm"], providers=["lambda", "lambda"])
    assert workload.gpus == ["H100-SXM", "B200"] and workload.providers == ["lambda"]
    assert TrainingWorkload(price_types=["spot", "on_demand", "spot"]).price_types == ["spot", "on_demand"]


def test_the_page_moves_to_the_link_that_names_each_gpu_once(client: TestClient) -> None:
    asked = client.get(
        "/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,B200,H100-SXM", follow_redirects=False
    )
    assert asked.status_code == 303
    assert asked.headers["location"] == "/compare?phase=inference&model=llama-3.1-8b&gpus=H100-SXM,B200"
    body = client.post("/api/v1/rank/inference?limit=1", json={"model": "llama-3.1-8b", "gpus": ["B200", "B200"]})
    assert body.json()["workload"]["gpus"] == ["B200"] and body.json()["share_url"].endswith("&gpus=B200")
