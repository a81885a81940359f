"""Forms speak to people: hints carry no internal field names, and the model's name fits its select."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

INTERNAL = ("max_num_seqs", "request_rate", "max_throughput", "closed loop", "open loop", "slo_tpot_utilisation")


def test_the_rank_form_hints_use_no_internal_names(client: TestClient):
    hints = " ".join(re.findall(r'<span class="hint">(.*?)</span>', client.get("/").text))
    assert "clients in flight" in hints  # the hints are there, reworded
    assert not [name for name in INTERNAL if name in hints]


@pytest.mark.parametrize("path", ["/", "/plan", "/precision", "/disagg", "/mix"])
def test_the_model_select_spans_two_columns_so_its_name_is_not_cut(client: TestClient, path: str):
    assert '<label for="f-model" class="wide">' in client.get(path).text
