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
from tests.form_submit import form_field_names, form_items

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
SPOKEN = re.compile(r"×(?P<gpu_id>\S+) at (?P<provider_name>.+) \(")  # "1×H100-PCIE at RunPod Secure Cloud (on demand)"


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
        assert trained is not None and trained["provider_name"] == "RunPod Secure Cloud", combination["training"]
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
# /plan took a DeepSeek-R1 ranking's engine=sglang and peak_requests_per_s=2 but its form had neither field (and showed
# 100,000 requests a day where 57,600 were planned): a resubmit planned vLLM at 100k a day.
ENGINE = {
    "engine": "trtllm",
    "max_gpus": "4",
    "attention_parallel": "tp",  # expert_parallel=ep is a 422 on a dense model
    "max_num_seqs": "128",
    "max_num_batched_tokens": "4096",
}
SERVED = {
    **MODEL,
    "weight_dtype": "fp8",
    "kv_dtype": "fp8",
    "input_len": "1500",
    "output_len": "300",
    "ttft_ms": "800",
    "tpot_ms": "40",
    **ENGINE,
    "prefix_cache_hit": "0.3",
    "spec_acceptance": "0.6",
    "spec_draft_tokens": "2",
}
TRAFFIC = {"profile": "flat", "min_replicas": "2", "cold_start_s": "90", "spot_only": "true"}
TRAIN_RUN = {
    "months": "6",
    "train_method": "qlora",
    "train_seq_len": "2048",
    "train_global_batch_seqs": "32",
    "train_lora_rank": "8",
    "train_max_gpus": "16",
    "train_max_days": "10",
    "train_budget_usd": "5000",
    "train_checkpoint_interval_hours": "2",
    "train_interruptions_per_node_month": "3",
}
EVERY_SETTING = {
    "/plan": {**SERVED, **TRAFFIC, "peak_requests_per_s": "2", **TRAIN_RUN, **SERVING, **TRAINING},
    "/disagg": {**SERVED, **TRAFFIC, "peak_factor": "2.5", "requests_per_day": "50000", **SERVING},
    "/mix": {
        **MODEL,
        "weight_dtype": "fp8",
        "kv_dtype": "fp8",
        "ttft_ms": "800",
        "tpot_ms": "40",
        "engine": "sglang",
        "max_gpus": "4",
        "requests_per_day": "50000",
        "profile": "flat",
        "mix": "chat:3,1000x200:1",
        **SERVING,
    },
    "/precision": {
        **{k: v for k, v in SERVED.items() if k not in ("weight_dtype", "kv_dtype")},  # each row sets its own
        "scenario": "concurrency",
        "concurrency": "16",
        "peak_requests_per_s": "2",
        "rank_by": "output_tokens",
        **SERVING,
    },
}
# The other operating points /precision takes (each scenario's own load), /disagg at a peak rate, the ranking.
MORE_SETTINGS = [
    ("/precision", {**MODEL, "scenario": "max_throughput", "job_requests": "100000", "job_deadline_hours": "2"}),
    ("/precision", {**MODEL, "scenario": "fixed_batch", "batch": "8"}),
    ("/precision", {**MODEL, "scenario": "request_rate", "requests_per_s": "1.5"}),
    ("/precision", {**MODEL, "peak_concurrency": "40"}),
    ("/disagg", {**MODEL, "peak_requests_per_s": "2", "profile": "business_hours"}),
    ("/plan", {**MODEL, "requests_per_day": "20000", "peak_factor": "2.5"}),
    ("/", {"phase": "inference", **SERVED}),  # the ranking form whose settings the feature pages' forms share
    # beams, which speculative drafts (in SERVED) do not run beside
    *((path, {**MODEL, "beam_width": "2"}) for path in ("/plan", "/disagg", "/precision")),
    ("/", {"phase": "inference", **MODEL, "beam_width": "2"}),
]
SETTINGS = [*EVERY_SETTING.items(), *MORE_SETTINGS]


@pytest.mark.parametrize(("path", "settings"), SETTINGS)
def test_every_setting_a_link_keeps_is_a_field_of_the_form(client, path: str, settings: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """A setting the canonical link keeps but the form lacks is dropped by a resubmit (/disagg's cold start was)."""
    page = client.get(path, params=settings, follow_redirects=True)
    assert page.status_code == 200, page.text[:2000]
    kept = {name for name, _ in parse_qsl(urlsplit(str(page.url)).query)}
    assert set(settings) - kept <= {"spot_only"} - set(settings), "every setting is one the question keeps"
    fields = {name for name, _ in form_items(page.text)}
    assert kept - fields == set(), f"kept by the link, not in the form: {sorted(kept - fields)}"


@pytest.mark.parametrize(("path", "settings"), SETTINGS)
def test_a_resubmitted_form_asks_the_links_question(client, path: str, settings: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """The form submitted unchanged lands on the same canonical link: its fields hold the values the answer used, not
    a default beside them (100,000 requests a day beside a link's peak rate)."""
    page = client.get(path, params=settings, follow_redirects=True)
    again = client.get(path, params=form_items(page.text), follow_redirects=True)
    assert again.status_code == 200, again.text[:2000]
    assert _kept(urlsplit(str(again.url)).query) == _kept(urlsplit(str(page.url)).query)  # lists in any order


def _takes(path: str) -> set[str]:
    from app.service import disagg, mix, precision
    from app.service.query.plan import PLAN_FIELDS

    fields = {
        "/plan": PLAN_FIELDS,
        "/disagg": disagg.DISAGG_FIELDS,
        "/mix": mix.MIX_FIELDS,
        "/precision": precision.PRECISION_FIELDS,
    }[path]
    read_and_unused = set(precision.IGNORED) if path == "/precision" else {"phase"}  # each row sets its own dtypes
    checked_only = {"train_model"}  # must name the served model (trains_another_model): the form's model is it
    return set(fields.names) - read_and_unused - checked_only


@pytest.mark.parametrize("path", sorted(EVERY_SETTING))
def test_every_parameter_a_page_takes_is_a_field_of_its_form(client, path: str) -> None:  # type: ignore[no-untyped-def]
    """Not only the settings listed above: a workload field added later and taken by a page's question shows on its
    form, or this fails."""
    assert _takes(path) - form_field_names(client.get(path).text) == set()


def test_a_links_peak_rate_shows_as_the_daily_count_it_planned(client) -> None:  # type: ignore[no-untyped-def]
    """The peak is kept as the link gave it; the daily count, derived from it, shows what was planned and says so."""
    page = client.get(
        "/plan", params={"model": "deepseek-r1", "weight_dtype": "fp8", "engine": "sglang", "peak_requests_per_s": "2"}
    )
    assert page.status_code == 200
    items = dict(form_items(page.text))
    assert (items["engine"], items["peak_requests_per_s"], items["requests_per_day"]) == ("sglang", "2", "")
    daily = re.search(r'<label for="f-requests_per_day">(.*?)</div>', page.text, re.S)
    assert daily is not None and 'placeholder="57,600"' in daily.group(1)
    assert "from the peak: 57,600 a day planned" in daily.group(1)
    assert "served with sglang" in page.text
