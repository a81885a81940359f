"""/plan's train-then-serve run without months: a user who fills train_* fields and leaves months empty kept them in
the form but lost them on the saved link (canonical_plan_query dropped them) without a word. Now the link keeps
them, the form refills from them, and the page, its htmx fragment and the JSON twin say why no run is priced."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

MODEL = {"model": "llama-3.1-8b", "requests_per_day": "20000"}
RUN = {"train_method": "qlora", "train_max_gpus": "16"}
FACES = ({}, {"HX-Request": "true"})  # the page and the fragment an htmx submit swaps in


def _kept(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def test_saved_link_keeps_train_fields_without_months(client):
    page = client.get("/plan", params={**MODEL, **RUN, "months": ""})
    assert page.status_code == 200
    kept = _kept(str(page.url))
    assert (kept.get("train_method"), kept.get("train_max_gpus")) == ("qlora", "16")
    assert "months" not in kept
    assert '<option value="qlora" selected' in page.text  # the form refills from the link opened cold


def test_json_says_why_the_train_fields_price_nothing(client):
    body = client.get("/plan.json", params={**MODEL, **RUN}).json()
    assert body["lifecycle"] is None
    assert _kept(body["share_url"])["train_method"] == "qlora"
    note = body["lifecycle_skipped"]
    assert "train_method" in note and "train_max_gpus" in note and "months" in note


def test_json_says_nothing_without_train_fields_or_with_months(client):
    assert client.get("/plan.json", params=MODEL).json()["lifecycle_skipped"] is None
    body = client.get("/plan.json", params={**MODEL, **RUN, "months": "6"}).json()
    assert body["lifecycle"] is not None and body["lifecycle_skipped"] is None


def test_page_and_fragment_say_why(client):
    query = {**MODEL, **RUN}
    canonical = client.get("/plan", params=query).url
    for headers in FACES:
        page = client.get(str(canonical), headers=headers).text
        assert 'class="muted lifecycle-skipped"' in page, headers
        assert "train_method, train_max_gpus" in page, headers
