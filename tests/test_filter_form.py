"""A link's offer filters show on every form whose question takes them, and a resubmit of the form unchanged keeps
them. /plan, /disagg, /mix and /precision honoured a ranking link's providers, GPUs and vendors, but their forms
did not show them: submitting the form unchanged dropped them and answered for every seller and GPU. /plan's
train-then-serve run (train_* filters) and its spot_only, /disagg's spot_only, were dropped the same way."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.rank import form_options
from tests.conftest import settings_for
from tests.form_submit import form_items

SERVING = {
    "providers": "lambda",
    "gpus": "H100-SXM,B200",
    "vendors": "NVIDIA",
    "price_types": "on_demand,reserved",
    "include_stale": "true",
}
TRAINING = {
    "train_providers": "runpod",
    "train_gpus": "H100-PCIE,A100-SXM-80GB",
    "train_vendors": "NVIDIA",
    "train_price_types": "on_demand,spot",
    "train_include_stale": "true",
}
MODEL = {"model": "llama-3.1-8b"}
PAGES = [  # path, the question beside the filters, its filters, and how many filter boxes its form has
    ("/", {"phase": "inference", **MODEL}, SERVING, 1),
    ("/compare", {"phase": "inference", **MODEL}, SERVING, 1),
    ("/plan", {**MODEL, "months": "12", "spot_only": "true"}, {**SERVING, **TRAINING}, 2),
    ("/disagg", {**MODEL, "spot_only": "true"}, SERVING, 1),
    ("/mix", MODEL, SERVING, 1),
    ("/precision", MODEL, SERVING, 1),
]
TWINS = {"/": "/rank.json"}
SPOKEN = re.compile(r"×(?P<gpu_id>\S+) at (?P<provider_name>.+) \(")  # "1×H100-PCIE at RunPod (on demand)"


def _served_offers(path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The offers an answer rests on, each with gpu_id, provider_name and price_type."""
    if path == "/disagg":
        pools = [d[role] for d in body["disaggregated"] for role in ("prefill", "decode")]
        return [body["aggregated"], *pools] if body["aggregated"] else pools
    if path == "/mix":
        return [row for fleet in (body["mix"], body["best_single"]) if fleet for row in fleet["rows"]]
    if path == "/precision":
        return [row["best"] for row in body["rows"] if row["best"]]
    return body["options"]


def _kept(query: str) -> dict[str, set[str]]:
    return {name: set(value.split(",")) for name, value in parse_qsl(query)}


def _resubmit(client: TestClient, path: str, question: dict[str, str], filters: dict[str, str]) -> Any:
    page = client.get(path, params={**question, **filters}, follow_redirects=True)
    assert page.status_code == 200
    items = form_items(page.text)
    again = client.get(path, params=items, follow_redirects=True)  # the form submitted unchanged
    assert again.status_code == 200, again.text[:2000]
    return page, items, again


@pytest.mark.parametrize(("path", "question", "filters", "boxes"), PAGES)
def test_a_links_offer_filters_show_and_survive_a_resubmit(  # type: ignore[no-untyped-def]
    client, path: str, question: dict[str, str], filters: dict[str, str], boxes: int
) -> None:
    page, items, again = _resubmit(client, path, question, filters)
    ticked = {name: {v for n, v in items if n == name} for name in filters}
    assert ticked == {name: set(value.split(",")) for name, value in filters.items()}  # shown, ticked
    assert page.text.count('class="group filters-box" open') == boxes  # a set filter opens its box
    asked = {name: set(value.split(",")) for name, value in {**question, **filters}.items()}
    kept = _kept(urlsplit(str(again.url)).query)
    assert {name: kept.get(name) for name in asked} == asked
    body = client.get(f"{TWINS.get(path, path + '.json')}?{urlsplit(str(again.url)).query}").json()
    offers = _served_offers(path, body)
    assert offers, "the filters leave offers to answer with"
    for offer in offers:
        assert (offer["provider_name"], offer["gpu_id"] in {"H100-SXM", "B200"}) == ("Lambda", True), offer
        assert offer["price_type"] in {"on_demand", "reserved"}, offer


def test_plans_training_run_keeps_its_own_filters_on_a_resubmit(client) -> None:  # type: ignore[no-untyped-def]
    """The run's train_* filters are its own: it trains at RunPod while the plan serves at Lambda."""
    _, _, again = _resubmit(client, "/plan", {**MODEL, "months": "12"}, {**SERVING, **TRAINING})
    body = client.get(f"/plan.json?{urlsplit(str(again.url)).query}").json()
    combinations = body["lifecycle"]["combinations"]
    assert combinations
    for combination in combinations:
        trained = SPOKEN.search(combination["training"])
        assert trained is not None and trained["provider_name"] == "RunPod", combination["training"]
        assert trained["gpu_id"] in {"H100-PCIE", "A100-SXM-80GB"}, combination["training"]


def test_provider_ids_typed_in_a_list_survive_a_resubmit(seeded_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Past provider_checkboxes_max sellers the provider filter is a text field of ids, for either run on /plan."""
    monkeypatch.setattr(form_options, "PROVIDER_CHECKBOXES_MAX", 1)
    filters = {"providers": "lambda,runpod", "train_providers": "runpod"}
    with TestClient(create_app(settings_for(seeded_url))) as client:
        page, items, again = _resubmit(client, "/plan", {**MODEL, "months": "12"}, filters)
    assert 'type="checkbox" name="providers"' not in page.text
    assert {name: value for name, value in items if name in filters} == filters
    kept = _kept(urlsplit(str(again.url)).query)
    assert kept["providers"] == {"lambda", "runpod"} and kept["train_providers"] == {"runpod"}


def test_an_error_in_a_filter_opens_its_box(client) -> None:  # type: ignore[no-untyped-def]
    """A bad flag holds no value that would open the box: the error beside it does, so it is not hidden."""
    page = client.get("/plan", params={**MODEL, "months": "12", "train_include_stale": "maybe"})
    assert page.status_code == 422 and 'id="err-train_include_stale"' in page.text
    boxes = re.findall(r'<details class="group filters-box"( open)?>.*?</details>', page.text, flags=re.S)
    assert boxes == ["", " open"]  # serving's box stays shut; the training run's opens on its error


# Every setting a page's question takes, set away from its default: whatever the canonical link keeps, the form shows.
EVERY_SETTING = {
    "/plan": {**MODEL, "months": "6", "min_replicas": "2", "cold_start_s": "90", "peak_factor": "3", **SERVING},
    "/disagg": {**MODEL, "min_replicas": "2", "cold_start_s": "90", "peak_factor": "3", "max_gpus": "16", **SERVING},
    "/mix": {**MODEL, "peak_factor": "3", **SERVING},
    "/precision": {**MODEL, "tpot_ms": "40", "max_gpus": "4", **SERVING},
    # the serving techniques: a link with them answered, but the rank form had no field for them (nor for their errors)
    "/": {"phase": "inference", **MODEL, "prefix_cache_hit": "0.5", "spec_acceptance": "0.7", "spec_draft_tokens": "3"},
}


@pytest.mark.parametrize("path", sorted(EVERY_SETTING))
def test_every_setting_a_link_keeps_is_a_field_of_the_form(client, path: str) -> None:  # type: ignore[no-untyped-def]
    """A setting the canonical link keeps but the form lacks is dropped by a resubmit (/disagg's cold start was)."""
    page = client.get(path, params=EVERY_SETTING[path], follow_redirects=True)
    assert page.status_code == 200
    kept = {name for name, _ in parse_qsl(urlsplit(str(page.url)).query)}
    fields = {name for name, _ in form_items(page.text)}
    assert kept - fields == set(), f"kept by the link, not in the form: {sorted(kept - fields)}"
