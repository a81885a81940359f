"""A training row's terms name its sharding as its layout column does. Found by qa22: the column read "TP2 CP4 FSDP
×4" and the same row's terms "ZeRO-3 over 4" and "adamw: 16 B per trained parameter ..., ZeRO-3", two names for one
split side by side."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

LORA_NEMO_20K = "/?phase=training&model=llama-3.1-70b&seq_len=20000&framework=nemo&gpus=H100-SXM"


def test_the_terms_call_fsdp_what_the_layout_column_calls_fsdp(client: TestClient) -> None:
    text = client.get(LORA_NEMO_20K).text
    fsdp = re.findall(r"FSDP ×(\d+)", text)
    assert fsdp, "no FSDP layout on the page"
    for dp in set(fsdp):
        assert f"FSDP (ZeRO-3) over {dp}:" in text
    assert "ZeRO-3 over" not in text
    assert not re.search(r"per trained parameter \([^)]*\), ZeRO-3", text)
