"""The training form's Optimizer offload hint says what `cpu` models as the API and the terms do: DeepSpeed
ZeRO-Offload's offload_optimizer, and `cpu_weights` FSDP's CPU offload, which moves the weights too (trainmem; qamem
said it was not modelled). The hint read "(ZeRO-Offload, FSDP CPU offload)" for cpu alone (found by qa36)."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def test_the_offload_hint_names_what_cpu_and_cpu_weights_model(client: TestClient) -> None:
    for page in ("/?phase=training", "/plan?train=1"):
        text = client.get(page).text
        found = re.search(r'id="hint-(?:train_)?offload">([^<]*)<', text)
        assert found, page
        hint = unescape(found.group(1))
        assert "cpu = " in hint and "ZeRO-Offload's offload_optimizer" in hint
        assert "cpu weights = the FSDP-sharded weights too (FSDP's CPU offload)" in hint
