"""expert_parallel is two things: inference's places a served MoE's experts (tp | ep, an input), a training layout's
is its expert-parallel degree (an int the layout search picks, an answer only). Each side given the other's kind of
value said pydantic's words ("Input should be 'tp' or 'ep'", "Extra inputs are not permitted", /plan's "did you mean
expert_parallel?" for train_expert_parallel); now each error names the field, what it takes and why."""

from __future__ import annotations

import pytest

from app.cli.main import main

MOE = "mixtral-8x7b"
TRAINING_API = (
    ("/api/v1/rank/training?limit=1&terms=false", {"model": MOE}),
    ("/api/v1/estimate/training", {"model": MOE, "gpu": "H100-SXM"}),
)
INFERENCE_API = (
    ("/api/v1/rank/inference?limit=1&terms=false", {"model": MOE}),
    ("/api/v1/estimate/inference", {"model": MOE, "gpu": "H100-SXM"}),
)


def _only(response) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, response.text
    (error,) = response.json()["detail"]
    return error


@pytest.mark.parametrize("value", [8, "8"])
def test_inference_refuses_a_degree_naming_tp_and_ep(client, value) -> None:  # type: ignore[no-untyped-def]
    for path, body in INFERENCE_API:
        error = _only(client.post(path, json={**body, "expert_parallel": value}))
        assert error["field"] == "expert_parallel"
        assert error["message"].startswith("tp or ep only") and "not a degree such as 8" in error["message"], path
    for page in ("/rank.json", "/plan.json", "/disagg.json"):
        error = _only(client.get(f"{page}?model={MOE}&expert_parallel={value}"))
        assert error["field"] == "expert_parallel" and "tp or ep only" in error["message"], page


@pytest.mark.parametrize("value", ["ep", "tp", 4])
def test_training_says_it_takes_no_expert_parallel(client, value) -> None:  # type: ignore[no-untyped-def]
    for path, body in TRAINING_API:
        error = _only(client.post(path, json={**body, "expert_parallel": value}))
        assert error["field"] == "expert_parallel"
        message = error["message"]
        assert message.startswith("not a training input") and "layout_detail.expert_parallel" in message
    error = _only(client.get(f"/rank.json?phase=training&model={MOE}&expert_parallel={value}"))
    assert error["field"] == "expert_parallel" and "not a training input" in error["message"]


def test_plan_run_says_it_takes_no_expert_parallel_not_did_you_mean(client) -> None:  # type: ignore[no-untyped-def]
    error = _only(client.get(f"/plan.json?model={MOE}&months=6&train_expert_parallel=ep"))
    assert error["field"] == "train_expert_parallel"
    assert "not a training input" in error["message"] and "did you mean" not in error["message"]


def test_each_side_still_takes_its_own(client) -> None:  # type: ignore[no-untyped-def]
    """Meaning and default unchanged: old links with tp or ep load; tp is the default."""
    for value in ("tp", "ep"):
        assert client.get(f"/rank.json?model={MOE}&expert_parallel={value}").status_code == 200
    options = client.get(f"/rank.json?model={MOE}").json()["options"]
    assert options[0]["expert_parallel"] == "tp"  # the default placement


def test_the_openapi_descriptions_say_which_kind(client) -> None:  # type: ignore[no-untyped-def]
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    placement = schemas["InferenceWorkload"]["properties"]["expert_parallel"]
    assert placement["enum"] == ["tp", "ep"] and "not a degree" in placement["description"]
    assert "never an input" in schemas["LayoutOut"]["properties"]["expert_parallel"]["description"]
    assert "expert_parallel" not in schemas["TrainingWorkload"]["properties"]


def test_cli_inference_refuses_a_degree(database, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rank", "inference", "--model", MOE, "--expert-parallel", "8"]) != 0
    assert "tp or ep only" in capsys.readouterr().err
