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
    from app.cli.tables.ranking import ranking_table

    option = {"feasible": True, "close_call": True, "gpu_count": 8, "gpu_id": "H100-SXM", "provider_name": "P"}
    option |= {"price_type": "on_demand", "usd_per_gpu_hour": 2.0, "usd_per_step": 1.0, "step_time_s": 1.0}
    option |= {"tokens_per_s_per_gpu": 1.0, "total_hours": 1.0, "total_usd": 1.0, "layout": "FSDP ×8"}
    payload = {"phase": "training", "workload": {}, "options": [option, {**option, "gpu_id": "B200"}]}
    lines = ranking_table(payload, 2).splitlines()
    assert "close" not in next(line for line in lines if "H100-SXM" in line)
    assert "close" in next(line for line in lines if "B200" in line)


# (phase, workload): each phase with a contested win and an uncontested one
PHASE_CASES = [
    ("training", {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e9}),
    ("training", {"model": "llama-3.1-8b", "method": "lora", "total_tokens": 2e8, "price_types": ["reserved"]}),
    ("inference", {"model": "llama-3.1-8b"}),
    ("inference", {"model": "llama-3.1-70b", "weight_dtype": "fp8", "tpot_ms": 40}),
    ("inference", {"model": "llama-3.1-8b", "scenario": "max_throughput", "job_requests": 20000}),
    # one configuration at many prices: its rows err together, so the prices order them with certainty
    ("inference", {"model": "llama-3.1-8b", "gpus": ["H100-SXM"], "max_gpus": 1}),
]


def test_the_best_rows_flag_says_whether_any_runner_up_is_a_close_call_in_both_phases(client: TestClient):
    """README: rank 1's close_call is true exactly when some other row's is, the same way in training and inference
    (a reviewer read a training rank 1's true beside an inference rank 1's false as the phases disagreeing)."""
    seen = set()
    for phase, workload in PHASE_CASES:
        response = client.post(f"/api/v1/rank/{phase}?limit=1000&terms=false", json=workload)
        options = response.json()["options"]
        assert len(options) < 1000  # every row read
        first, others = options[0]["close_call"], any(o["close_call"] for o in options[1:])
        assert first == others, (phase, workload)
        seen.add((phase, first))
    assert seen == {("training", True), ("training", False), ("inference", True), ("inference", False)}


def test_a_page_of_runs_inside_their_reservations_shows_fixed_costs_and_no_close_calls(client: TestClient):
    page = client.get(TRAIN.replace("2000000000", "200000000") + "&price_types=reserved").text
    assert "(band <span" in page and ">fixed</span>)" in page  # the headline: the bill does not move with the speed
    cells = re.findall(r'class="muted band">\((.*?)\)</span>', page)
    assert cells and all(cell.endswith(">fixed</span>") for cell in cells)
    assert 'title="bands overlap the best option"' not in page and "close call" not in page
