"""A refused form refills its model and GPU selects as typed: catalog ids match in any case, so a case variant of a
catalog id stays that id's option, and an unknown id shows as typed, not lower-cased (found by qa20)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def _selected(page: str, field: str) -> list[str]:
    select = re.search(f'<select id="f-{field}".*?</select>', page, re.S)
    assert select, field
    return re.findall(r'<option value="([^"]*)" selected>([^<]*)', select[0])


def test_an_unknown_model_is_refilled_in_the_case_typed(client: TestClient) -> None:
    # `NaN` came back as "nan (not an option)" beside "unknown model 'NaN'"
    page = client.get("/?model=NaN").text
    assert _selected(page, "model") == [("NaN", "NaN (not an option)")]


def test_a_case_variant_gpu_stays_its_catalog_option_when_another_field_is_refused(client: TestClient) -> None:
    # `h100-sxm` answers as H100-SXM, but with pue refused the form said "h100-sxm (not an option)"
    page = client.get("/own?gpu=h100-sxm&pue=99")
    assert page.status_code == 422 and 'id="err-pue"' in page.text
    assert _selected(page.text, "gpu") == [("H100-SXM", "H100-SXM")]
