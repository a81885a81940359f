"""The training form's Optimizer offload hint says what `cpu` models as the API and the terms do: DeepSpeed
ZeRO-Offload's offload_optimizer, not FSDP's CPU offload, which moves the weights too and is not modelled (qamem). The
hint still read "(ZeRO-Offload, FSDP CPU offload)" beside terms saying FSDP's needs less GPU memory (found by qa36)."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def test_the_offload_hint_names_what_cpu_models_and_what_it_does_not(client: TestClient) -> None:
    for page in ("/?phase=training", "/plan?train=1"):
        text = client.get(page).text
        found = re.search(r'id="hint-(?:train_)?offload">([^<]*)<', text)
        assert found, page
        hint = unescape(found.group(1))
        assert "ZeRO-Offload's offload_optimizer" in hint and "FSDP's CPU offload" in hint and "not modelled" in hint
