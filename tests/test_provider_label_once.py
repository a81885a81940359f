"""A provider cell says the end of the provider's name once: RunPod's seeded offers name their region "Secure Cloud"
(and "Community Cloud"), the end of "RunPod Secure Cloud", and the cell read "RunPod Secure Cloud Secure Cloud"."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient

from app.scoring.pricing.offer_labels import label_beyond_name


def _provider_cells(client: TestClient, query: str) -> list[str]:
    page = client.get(f"/?{query}")
    assert page.status_code == 200
    cells = re.findall(r'data-label="Provider" role="cell">(.*?)</td>', page.text, re.S)
    return [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", c))).strip() for c in cells]


def test_runpods_seeded_offers_name_their_cloud_once(client: TestClient) -> None:
    for offers, name in (
        ("providers=runpod", "RunPod Secure Cloud"),
        ("providers=runpod-community&price_types=marketplace", "RunPod Community Cloud"),
    ):
        cells = _provider_cells(client, f"phase=inference&model=llama-3.1-8b&{offers}")
        assert cells and set(cells) == {name}  # read "RunPod Secure Cloud Secure Cloud"


def test_an_instance_label_beyond_the_name_is_kept(client: TestClient) -> None:
    cells = _provider_cells(client, "phase=inference&model=llama-3.1-8b&providers=lambda")
    assert cells and all(re.fullmatch(r"Lambda \S+.*", c) for c in cells)  # "Lambda gpu_1x_h100_sxm5"


def test_only_whole_words_the_name_ends_with_are_dropped() -> None:
    assert label_beyond_name("RunPod Secure Cloud", "Secure Cloud") == ""
    assert label_beyond_name("RunPod Secure Cloud", "secure  cloud") == ""
    assert label_beyond_name("RunPod Secure Cloud", "Secure Cloud US") == "Secure Cloud US"
    assert label_beyond_name("RunPod Secure Cloud", "ure Cloud") == "ure Cloud"
    assert label_beyond_name("Lambda", "gpu_8x_h100_sxm5") == "gpu_8x_h100_sxm5"
    assert label_beyond_name("Nebius", "") == ""
