"""Errors on the pages speak the form's language: the summary names each field by its label ("Input tokens", not
`input_len`), a pointer to the JSON API's list ("GET /api/v1/models lists the catalog's models") is a link to the
page that lists them, and a name field gets a text keyboard, not a decimal one."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.web.forms.form_labels import FIELD_LABELS, field_label
from app.web.forms.page_wording import page_wording

FORMS = [
    "/?phase=inference",
    "/?phase=training",
    "/plan?model=llama-3.1-8b&months=12",
    "/disagg",
    "/mix",
    "/precision",
    "/own",
]


def _labels(html: str) -> dict[str, str]:
    """{field: its label as the form shows it}, from <label for="f-…"> and the checkbox groups' legends. A label
    holds its name only: its hint (read as its description) and its control sit beside it, not inside it."""
    found = re.findall(r'<label for="f-([^"]+)"[^>]*>(.*?)</label>', html, re.S)
    assert not [name for name, text in found if re.search(r"<(?:span|input|select|textarea)\b", text)], found
    found += re.findall(r'<fieldset class="checks" id="f-([^"]+)"[^>]*>\s*<legend>(.*?)(?:<span|</legend>)', html, re.S)
    return {name: unescape(re.sub(r"<[^>]+>", "", text)).strip() for name, text in found}


@pytest.mark.parametrize("path", FORMS)
def test_each_hint_describes_its_field_and_is_not_in_its_name(client: TestClient, path: str) -> None:
    """A hint inside the <label> was read as the field's name ("Max GPUs per replica 1–72; across nodes…"); now it
    sits beside the label and the control names it in aria-describedby, with the error's id where there is one
    (found by qa24)."""
    html = client.get(path).text
    hints = dict(re.findall(r'<span class="hint" id="hint-([^"]+)"[^>]*>(.*?)</span>', html, re.S))
    assert len(hints) >= 5, path
    for name in hints:
        control = re.search(rf'<(?:input|select|textarea|fieldset)\b[^>]*\bid="f-{re.escape(name)}"[^>]*>', html)
        assert control, name
        described = re.search(r'aria-describedby="([^"]*)"', control.group(0))
        assert described and f"hint-{name}" in described.group(1).split(), (name, control.group(0))


def test_a_field_with_an_error_is_described_by_its_hint_and_its_error(client: TestClient) -> None:
    page = client.get("/?phase=inference&model=llama-3.1-8b&max_gpus=abc").text
    control = re.search(r'<input id="f-max_gpus"[^>]*>', page)
    assert control and 'aria-invalid="true"' in control.group(0)
    assert 'aria-describedby="hint-max_gpus err-max_gpus"' in control.group(0)
    assert '<span class="field-error" id="err-max_gpus">' in page


def test_every_form_field_has_a_summary_label_its_form_shows(client: TestClient) -> None:
    shown: dict[str, set[str]] = {}
    for path in FORMS:
        for name, label in _labels(client.get(path).text).items():
            shown.setdefault(name, set()).add(label)
    shown.pop("hf", None)  # the config.json textarea's id; its field is hf_config_json
    missing = [n for n in shown if not n.startswith("train_") and n not in FIELD_LABELS]
    assert missing == []
    for name, label in FIELD_LABELS.items():
        if name in shown:
            assert label in shown[name], (name, label, shown[name])


def test_the_error_summary_names_fields_by_their_labels(client: TestClient) -> None:
    page = client.get("/?phase=inference&model=llama-3.1-8b&input_len=abc&peak_concurrency=0").text
    assert '<a href="#f-input_len">Input tokens</a>:' in page
    assert '<a href="#f-peak_concurrency">Peak clients</a>:' in page
    plan = client.get("/plan?model=llama-3.1-8b&months=12&train_method=bogus").text
    assert '<a href="#f-train_method">Training run: Method</a>:' in plan
    assert field_label("arch_layers") == "Custom architecture: Layers" and field_label("sort") == "sort"


def test_the_gpu_lists_sort_error_reads_as_its_field_sort_by(client: TestClient) -> None:
    """/gpus?sort=bogus: the summary said 'sort' where the form labels the field 'Sort by' (found by qa33); the
    rankings' sort, a column header's URL parameter with no field, still reads as its own name."""
    page = client.get("/gpus?sort=bogus")
    assert page.status_code == 422 and '<a href="#f-sort">Sort by</a>:' in page.text
    assert '<label for="f-sort">Sort by' in page.text  # the label the summary now uses
    assert field_label("sort", "gpus") == "Sort by" and field_label("sort", "inference") == "sort"


def test_a_training_forms_limits_at_error_reads_as_its_field_meet_the_deadline(client: TestClient) -> None:
    training = client.get("/?phase=training&model=llama-3.1-8b&limits_at=bogus").text
    assert '<a href="#f-limits_at">Meet the deadline</a>:' in training
    assert "Meet the deadline" in _labels(training)["limits_at"]
    inference = client.get("/?phase=inference&model=llama-3.1-8b&limits_at=bogus").text
    assert '<a href="#f-limits_at">Meet the limits</a>:' in inference
    plan = client.get("/plan?model=llama-3.1-8b&months=12&train_limits_at=bogus").text
    assert '<a href="#f-train_limits_at">Training run: Meet the deadline</a>:' in plan


@pytest.mark.parametrize("path", ["/?phase=inference&model=nope", "/precision?model=nope", "/plan?model=nope"])
def test_an_unknown_model_on_a_page_links_the_models_page(client: TestClient, path: str) -> None:
    page = client.get(path).text
    assert 'the <a href="/models">Models page</a> lists the catalog&#39;s models' in page
    assert "/api/v1/models" not in page.split("<footer")[0].split("</header>")[1]


def test_the_json_twin_keeps_the_api_wording(client: TestClient) -> None:
    twin = client.get("/rank.json?phase=inference&model=nope").json()
    assert twin["detail"][0]["message"].endswith("GET /api/v1/models lists the catalog's models")


def test_api_pointers_become_page_links_and_the_rest_stays_escaped() -> None:
    gpus = page_wording("unknown GPU id '<b>'; did you mean H100-SXM? /gpus and GET /api/v1/gpus list all 56")
    assert gpus == (
        'unknown GPU id &#39;&lt;b&gt;&#39;; did you mean H100-SXM? the <a href="/gpus">GPUs page</a> lists all 56'
    )
    vendors = page_wording("GET /api/v1/gpus gives each GPU's vendor (5)")
    assert vendors.startswith('the <a href="/gpus">GPUs page</a> gives')


def test_a_custom_architectures_name_is_text(client: TestClient) -> None:
    page = client.get("/?phase=inference&model=custom&arch_name=1,000").text
    field = re.search(r'<input id="f-arch_name"[^>]*>', page)
    assert field and 'inputmode="decimal"' not in field.group(0) and 'value="1,000"' in field.group(0)


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("/?phase=inference&model=llama-3.1-8b&max_gpus=abc", "Max GPUs per replica"),
        ("/?phase=training&model=llama-3.1-8b&max_gpus=abc", "Max GPUs"),
        ("/plan?model=llama-3.1-8b&months=12&max_gpus=abc", "Max GPUs per replica"),
        ("/plan?model=llama-3.1-8b&months=12&train_max_gpus=abc", "Training run: Max GPUs"),
        ("/disagg?model=llama-3.1-8b&max_gpus=abc", "Max GPUs per instance"),
    ],
)
def test_the_error_summary_names_max_gpus_as_the_form_on_the_page_does(client: TestClient, path: str, label: str):
    """The summary read "Max GPUs" where the inference form's field reads "Max GPUs per replica" (found by
    leftovers8)."""
    page = client.get(path).text
    key = "train_max_gpus" if "train_max_gpus" in path else "max_gpus"
    assert f'<a href="#f-{key}">{label}</a>:' in page
    assert label.removeprefix("Training run: ") in _labels(page)[key]
