"""Close calls are runners-up whose band overlaps the best's: the best is never one to itself."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

TRAIN = "/?phase=training&model=llama-3.1-8b&method=lora&total_tokens=2000000000"


def test_the_best_row_has_no_close_badge_and_the_headline_counts_only_runners_up(client: TestClient):
    rows = client.get(TRAIN.replace("/?", "/rank.json?")).json()["options"][:25]
    assert rows[0]["close_call"]  # the JSON's flag on the best: its win is contested (a runner-up overlaps it)
    runners_up = sum(1 for o in rows[1:] if o["feasible"] and o["close_call"])
    page = client.get(TRAIN).text
    best_row = re.search(r'<tr class="row best".*?</tr>', page, re.S)
    assert best_row and 'title="bands overlap the best option"' not in best_row.group(0)
    counted = re.search(r"(\d+) close calls?</span>", page)
    assert (int(counted.group(1)) if counted else 0) == runners_up


def test_the_cli_table_flags_no_close_call_on_the_best():
    from app.cli.reports import ranking_table

    option = {"feasible": True, "close_call": True, "gpu_count": 8, "gpu_id": "H100-SXM", "provider_name": "P"}
    option |= {"price_type": "on_demand", "usd_per_gpu_hour": 2.0, "usd_per_step": 1.0, "step_time_s": 1.0}
    option |= {"tokens_per_s_per_gpu": 1.0, "total_hours": 1.0, "total_usd": 1.0, "layout": "FSDP ×8"}
    payload = {"phase": "training", "workload": {}, "options": [option, {**option, "gpu_id": "B200"}]}
    lines = ranking_table(payload, 2).splitlines()
    assert "close" not in next(line for line in lines if "H100-SXM" in line)
    assert "close" in next(line for line in lines if "B200" in line)
