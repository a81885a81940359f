"""A training run's settings show on every form that rebuilds one (the ranking, /compare, /plan's train-then-serve
run) and survive a resubmit: /plan showed only the method and token budget, so its form dropped a link's optimizer,
offload, precision and sequence length when a user changed the traffic and planned again."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.test_dashboard import _form_fields

RUN = {"optimizer": "adamw_8bit", "offload": "cpu", "precision": "fp8", "seq_len": "2048"}
PAGES = [
    ("/", "", {"phase": "training"}),
    ("/compare", "", {"phase": "training"}),
    ("/plan", "train_", {"months": "12"}),  # /plan's train-then-serve run: train_ names
]


@pytest.mark.parametrize(("path", "prefix", "base"), PAGES)
def test_a_training_runs_settings_show_and_survive_a_resubmit(client, path: str, prefix: str, base: dict) -> None:  # type: ignore[no-untyped-def]
    run = {prefix + name: value for name, value in RUN.items()}
    page = client.get(path, params={"model": "llama-3.1-8b", **base, **run}, follow_redirects=True)
    assert page.status_code == 200
    fields = _form_fields(page.text)
    assert {name: fields.get(name) for name in run} == run  # shown, chosen
    again = client.get(path, params=fields, follow_redirects=True)  # resubmitted unchanged
    assert again.status_code == 200
    kept = dict(parse_qsl(urlsplit(str(again.url)).query))
    assert {name: kept.get(name) for name in run} == run
    assert {name: _form_fields(again.text).get(name) for name in run} == run


def test_plans_training_run_answers_for_the_settings_its_form_shows(client) -> None:  # type: ignore[no-untyped-def]
    """The plan's JSON twin trains with the optimizer and offload the form shows."""
    body = client.get("/plan.json?model=llama-3.1-8b&months=12&train_optimizer=adamw_8bit&train_offload=cpu").json()
    assert body["lifecycle"]["training"]["optimizer"] == "adamw_8bit"
    assert body["lifecycle"]["training"]["offload"] == "cpu"


def test_plans_optimizer_steps_set_its_token_budget_as_the_rank_forms_do(client) -> None:  # type: ignore[no-untyped-def]
    """The shared training fields include "or optimizer steps": on /plan it is train_steps, read as the rank form
    reads steps (steps × global batch × sequence length), not refused as an unknown field."""
    query = "model=llama-3.1-8b&months=12&train_steps=100"  # the form shows the budget empty at its default
    page = client.get(f"/plan?{query}", follow_redirects=False)
    assert page.status_code == 303
    location = dict(parse_qsl(urlsplit(page.headers["location"]).query))
    assert "train_steps" not in location and float(location["train_total_tokens"]) == 100 * 64 * 4096
    bad = client.get("/plan?model=llama-3.1-8b&months=12&train_steps=0")
    assert bad.status_code == 422 and 'id="err-train_steps"' in bad.text


@pytest.mark.parametrize(("path", "prefix", "base"), PAGES)
def test_the_memory_options_show_checked_and_survive_a_resubmit(client, path: str, prefix: str, base: dict) -> None:  # type: ignore[no-untyped-def]
    """trainmem: activation offloading and the optimizer step in the backward are checkboxes of every training form."""
    run = {
        prefix + "framework": "pytorch",
        prefix + "activation_offload": "true",
        prefix + "optimizer_in_backward": "true",
    }
    page = client.get(path, params={"model": "llama-3.1-8b", **base, **run}, follow_redirects=True)
    assert page.status_code == 200
    for name in ("activation_offload", "optimizer_in_backward"):
        assert re.search(
            rf'id="f-{prefix}{name}" type="checkbox" name="{prefix}{name}" value="true"[^>]* checked', page.text
        )
    kept = dict(parse_qsl(urlsplit(str(page.url)).query))
    assert {name: kept.get(name) for name in run} == run


def test_the_memory_options_reach_the_json_and_a_bad_value_is_refused(client) -> None:  # type: ignore[no-untyped-def]
    run = {"model": "llama-3.1-8b", "framework": "pytorch", "activation_offload": True, "optimizer_in_backward": True}
    body = client.post("/api/v1/rank/training?limit=1", json=run).json()
    assert body["workload"]["activation_offload"] is True and body["workload"]["optimizer_in_backward"] is True
    refused = client.post("/api/v1/rank/training?limit=1", json={**run, "framework": "megatron"})
    assert refused.status_code == 422 and "optimizer_in_backward" in refused.text
    typo = client.post("/api/v1/rank/training?limit=1", json={**run, "activation_offload": "maybe"})
    assert typo.status_code == 422 and "activation_offload" in typo.text
