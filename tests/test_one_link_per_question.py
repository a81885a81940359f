"""One question, one link (canon2): ids typed in another case move to the catalog's spelling on the results pages,
their twins and saved links, and the JSON API answers under the catalog's ids; an empty question saves no link; a
number typed as no number is refused in the field's terms."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import settings_for

TYPED = "phase=inference&model=Llama-3.1-70B&gpus=h100-sxm,h200"
CATALOG = "phase=inference&model=llama-3.1-70b&gpus=H100-SXM,H200"
JSON = {"accept": "application/json"}


def test_a_page_moves_ids_typed_in_another_case_to_the_catalogs_spelling(client: TestClient) -> None:
    for path in ("/", "/compare"):
        moved = client.get(f"{path}?{TYPED}", follow_redirects=False)
        assert moved.status_code == 303 and moved.headers["location"] == f"{path}?{CATALOG}"
        assert client.get(moved.headers["location"], follow_redirects=False).status_code == 200


def test_a_twin_moves_to_the_catalogs_spelling_and_answers_under_it(client: TestClient) -> None:
    for twin in ("/rank.json", "/rank.csv", "/compare.json"):
        moved = client.get(f"{twin}?{TYPED}&sort=-ttft", follow_redirects=False)
        assert moved.status_code == 303 and moved.headers["location"] == f"{twin}?{CATALOG}&sort=-ttft"
    answer = client.get(f"/rank.json?{TYPED}").json()
    assert answer["workload"]["model"] == "llama-3.1-70b" and answer["workload"]["gpus"] == ["H100-SXM", "H200"]
    assert answer["share_url"] == f"/?{CATALOG}"


def test_the_rank_api_answers_under_the_catalogs_ids(client: TestClient) -> None:
    body = {"model": "Llama-3.1-70B", "gpus": ["h100-sxm"], "providers": ["LAMBDA"]}
    answer = client.post("/api/v1/rank/inference?limit=1", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["workload"]["model"] == "llama-3.1-70b" and data["workload"]["gpus"] == ["H100-SXM"]
    assert data["workload"]["providers"] == ["lambda"]
    assert "model=llama-3.1-70b" in data["share_url"] and "gpus=H100-SXM" in data["share_url"]
    assert "providers=lambda" in data["share_url"]


def test_an_unknown_id_stays_as_typed_for_its_error(client: TestClient) -> None:
    moved = client.get("/?phase=inference&model=Llama-3.1-70B&gpus=h100-nope", follow_redirects=False)
    assert moved.headers["location"] == "/?phase=inference&model=llama-3.1-70b&gpus=h100-nope"
    refused = client.get(moved.headers["location"])
    assert refused.status_code == 422 and "unknown GPU id &#39;h100-nope&#39;" in refused.text


def test_a_saved_link_keeps_the_catalogs_spelling(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url))) as client:
        typed = client.post("/share", data={"path": "/", "query": TYPED}, headers=JSON).json()["slug"]
        spelled = client.post("/share", data={"path": "/", "query": CATALOG}, headers=JSON).json()["slug"]
        assert typed == spelled


def test_an_empty_question_saves_no_link(fresh_url: str) -> None:
    with TestClient(create_app(settings_for(fresh_url))) as client:
        for query in ("", "phase=training", "phase=inference"):
            refused = client.post("/share", data={"path": "/", "query": query}, headers=JSON)
            assert refused.status_code == 422, (query, refused.text)
            (error,) = refused.json()["detail"]
            assert error["field"] == "query" and "name a model" in error["message"]
        form = client.post("/share", data={"path": "/", "query": ""}, follow_redirects=False)
        assert form.status_code == 422 and "name a model" in form.text


def test_a_number_typed_as_no_number_is_refused_in_the_fields_terms(client: TestClient) -> None:
    query = "phase=training&model=llama-3.1-8b&seq_len=4k&max_days=soon&global_batch_seqs=1.5"
    page = client.get(f"/?{query}")
    assert page.status_code == 422 and "must be a whole number of tokens, e.g. 4096" in page.text
    assert "Input should be" not in page.text
    errors = {e["field"]: e["message"] for e in client.get(f"/rank.json?{query}").json()["detail"]}
    assert errors == {
        "seq_len": "must be a whole number of tokens, e.g. 4096",
        "max_days": "must be a number of days, e.g. 30",
        "global_batch_seqs": "must be a whole number of sequences, e.g. 64",
    }
    page = client.get("/?phase=inference&model=llama-3.1-8b&ttft_ms=fast&input_len=2k")
    assert "must be a number of ms, e.g. 1000" in page.text
    assert "must be a whole number of tokens, e.g. 2000" in page.text


def test_the_other_question_pages_move_ids_to_the_catalogs_spelling(client: TestClient) -> None:
    """/precision, /mix and /plan redirect a typed spelling as / does; their other pairs stay as written."""
    asked = {
        "/precision?model=Llama-3.1-70B": "/precision?model=llama-3.1-70b",
        "/mix?model=Llama-3.1-70B&mix=chat:0.5,rag:0.5&requests_per_day=100000": (
            "/mix?model=llama-3.1-70b&mix=chat:0.5,rag:0.5&requests_per_day=100000"
        ),
        "/plan?model=Llama-3.1-8B&requests_per_day=100000&train_gpus=h100-sxm": (
            "/plan?model=llama-3.1-8b&requests_per_day=100000&train_gpus=H100-SXM"
        ),
    }
    for typed, spelled in asked.items():
        moved = client.get(typed, follow_redirects=False)
        assert moved.status_code == 303 and moved.headers["location"] == spelled, typed
        assert client.get(spelled, follow_redirects=False).status_code == 200, spelled


def test_the_other_question_pages_twins_move_ids_to_the_catalogs_spelling(client: TestClient) -> None:
    """/precision.json, /mix.json, /plan.json, /own.json and /disagg.json redirect a typed spelling as their pages do
    (they answered under the typed ids, a second link for one question); a twin in the catalog's spelling answers."""
    asked = {
        "/precision.json?model=Llama-3.1-70B": "/precision.json?model=llama-3.1-70b",
        "/mix.json?model=Llama-3.1-70B&mix=chat:0.5,rag:0.5&requests_per_day=100000": (
            "/mix.json?model=llama-3.1-70b&mix=chat:0.5,rag:0.5&requests_per_day=100000"
        ),
        "/plan.json?model=Llama-3.1-8B&requests_per_day=100000&train_gpus=h100-sxm": (
            "/plan.json?model=llama-3.1-8b&requests_per_day=100000&train_gpus=H100-SXM"
        ),
        "/own.json?gpu=h100-sxm": "/own.json?gpu=H100-SXM&gpu_count=8&utilisation_pct=60",
        "/disagg.json?model=Llama-3.1-70B": "/disagg.json?model=llama-3.1-70b&requests_per_day=100000",
    }
    for typed, spelled in asked.items():
        moved = client.get(typed, follow_redirects=False)
        assert moved.status_code == 303 and moved.headers["location"] == spelled, (typed, moved.status_code)
        page = client.get(typed.replace(".json", "", 1), follow_redirects=False)
        assert page.headers["location"] == spelled.replace(".json", "", 1), typed  # the page's link, the twin's
        assert client.get(spelled, follow_redirects=False).status_code == 200, spelled
