"""A parameter a page's question does not take is a 422 naming it, on the page and its JSON twin, the same way on
every feature page (app.service.query.fields): /plan, /disagg and /precision said pydantic's "Extra inputs are not
permitted" and linked to a form field that does not exist, /mix and /own "not a field of this form"."""

from __future__ import annotations

import pytest

PAGES = {
    "/plan": "model=llama-3.1-8b",
    "/disagg": "model=llama-3.1-8b",
    "/mix": "model=llama-3.1-8b",
    "/precision": "model=llama-3.1-8b",
    "/own": "gpu=H100-SXM",
}


@pytest.mark.parametrize("path", sorted(PAGES))
def test_an_unknown_parameter_is_422_naming_it_on_every_page(client, path: str) -> None:  # type: ignore[no-untyped-def]
    query = f"{PAGES[path]}&colour=blue"
    twin = client.get(f"{path}.json?{query}")
    assert twin.status_code == 422
    assert twin.json()["detail"] == [{"field": "colour", "message": "not a field of this form"}]
    page = client.get(f"{path}?{query}")
    assert page.status_code == 422
    assert '<li id="err-colour">colour: not a field of this form</li>' in page.text


@pytest.mark.parametrize(
    ("path", "setting"),
    [
        ("/precision", "requests_per_day=50000"),  # a plan's traffic: a precision comparison ranks a workload
        ("/precision", "months=12"),
        ("/mix", "scenario=max_throughput"),
        ("/mix", "peak_requests_per_s=2"),
        ("/plan", "rank_by=output_tokens"),  # a plan orders its options by their monthly cost
        ("/disagg", "job_requests=1000"),
        ("/plan", "train_arch_layers=4"),  # the run trains the served model
    ],
)
def test_another_pages_setting_is_not_read_silently(client, path: str, setting: str) -> None:  # type: ignore[no-untyped-def]
    name = setting.partition("=")[0]
    body = client.get(f"{path}.json?{PAGES[path]}&{setting}").json()
    assert [e["field"] for e in body["detail"]] == [name]
    assert body["detail"][0]["message"].startswith("not a field of this form")


@pytest.mark.parametrize("path", ["/methodology", "/methodology.json"])
def test_the_methodology_page_refuses_parameters_as_the_catalog_pages_do(client, path: str) -> None:  # type: ignore[no-untyped-def]
    """/methodology?colour=blue answered 200 where /models?colour=blue and /gpus/H100-SXM?colour=blue are 422s."""
    response = client.get(f"{path}?colour=blue")
    assert response.status_code == 422 and "colour" in response.text
    assert client.get(path).status_code == 200


def test_the_rank_page_and_its_twins_say_it_as_the_other_pages_do(client) -> None:  # type: ignore[no-untyped-def]
    """The ranking said pydantic's "Extra inputs are not permitted" and linked the summary to a field that does not
    exist (#f-colour), where every other page says "not a field of this form"; a near miss names the field."""
    query = "phase=inference&model=llama-3.1-8b&colour=blue"
    for twin in ("/rank.json", "/rank.csv"):
        response = client.get(f"{twin}?{query}")
        assert response.status_code == 422
        assert response.json()["detail"] == [{"field": "colour", "message": "not a field of this form"}]
    page = client.get(f"/?{query}")
    assert page.status_code == 422 and '<li id="err-colour">colour: not a field of this form</li>' in page.text
    typo = client.get("/rank.json?phase=inference&model=llama-3.1-8b&tpot=40").json()
    assert typo["detail"] == [{"field": "tpot", "message": "not a field of this form (did you mean tpot_ms?)"}]
    plan = client.get("/plan.json?model=llama-3.1-8b&request_per_day=5").json()
    assert plan["detail"][0]["message"] == "not a field of this form (did you mean requests_per_day?)"
