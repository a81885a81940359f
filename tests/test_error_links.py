"""Every link in a page's error summary lands on an element of that page. The summary links `#f-<field>`; the
pasted config.json's textarea was `id="f-hf"`, so "Hugging Face config.json" in the summary of /, /plan, /disagg
and /precision went nowhere."""

from __future__ import annotations

import re

import pytest

from tests.form_submit import form_field_names, form_items

FORM_PAGES = ("/?phase=inference", "/?phase=training", "/plan", "/disagg", "/mix", "/precision", "/own")
# a word for a number or a choice, a negative count, a broken config.json, a text over its 80 or 120 characters
BAD_VALUES = ("zzz", "-1", "{", "x" * 121)
NO_FIELD_ERROR = {"phase"}  # any phase other than inference or training is answered by the inference form
CUSTOM_ONLY = ("arch_", "hf_config_json")  # read only when the model is "custom"


def _summary_targets(html: str) -> list[str]:
    if 'class="error-box"' not in html:
        return []
    box = html.split('class="error-box"', 1)[1].split("</div>", 1)[0]
    return re.findall(r'href="#([^"]*)"', box)


def _with_bad_value(base: list[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    items = [(key, given) for key, given in base if key != name] + [(name, value)]
    if name.startswith(CUSTOM_ONLY):
        items = [(key, given) for key, given in items if key != "model"] + [("model", "custom")]
    return items


@pytest.mark.parametrize("page", FORM_PAGES)
def test_every_error_summary_link_points_to_an_element_of_the_page(client, page: str) -> None:  # type: ignore[no-untyped-def]
    blank = client.get(page).text
    base, names = form_items(blank), sorted(form_field_names(blank))
    linked: set[str] = set()
    for name in names:
        for value in BAD_VALUES:
            html = client.get(page.split("?")[0], params=_with_bad_value(base, name, value), follow_redirects=True).text
            targets = _summary_targets(html)
            ids = set(re.findall(r'\bid="([^"]*)"', html))
            nowhere = [target for target in targets if target not in ids]
            assert not nowhere, f"{page} with {name}={value!r}: the summary links {nowhere}, not on the page"
            linked.update(targets)
            if f"f-{name}" in targets:
                break
    never_failed = {name for name in names if f"f-{name}" not in linked} - NO_FIELD_ERROR
    assert not never_failed, f"{page}: no bad value made these fields fail, so their links went unchecked"


def test_a_broken_config_json_links_to_its_textarea(client) -> None:  # type: ignore[no-untyped-def]
    html = client.get("/disagg", params={"model": "custom", "hf_config_json": "{"}).text
    assert _summary_targets(html) == ["f-hf_config_json"]
    assert '<textarea id="f-hf_config_json" name="hf_config_json"' in html
