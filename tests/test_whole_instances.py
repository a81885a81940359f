"""An offer priced as an 8-GPU instance is rented whole: a layout on fewer GPUs runs as copies inside it (inference),
and training uses whole instances; neither is billed for part of one (the seeded catalog)."""

from __future__ import annotations

import math

from app.scoring.machines import Machine
from app.scoring.serving.traffic import HOURS_PER_MONTH

PLAN = "/plan.json?model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=18&requests_per_day=50000&providers=coreweave"


def test_machine_copies_and_billed_gpus():
    eight = Machine(gpus_per_node=8, link="nvlink", instance_gpus=8)
    assert (eight.copies(2), eight.billed_gpus(2)) == (4, 2)
    assert (eight.copies(8), eight.billed_gpus(8)) == (1, 8)
    assert (eight.rented_gpus(2), eight.rented_gpus(8), eight.rented_gpus(16)) == (8, 8, 16)
    three = Machine(gpus_per_node=3, link="nvlink", instance_gpus=3)
    assert (three.copies(2), three.billed_gpus(2)) == (1, 3)  # the third GPU idles and is paid for
    single = Machine(gpus_per_node=8, link="nvlink")
    assert (single.copies(2), single.billed_gpus(2)) == (1, 2)  # GPUs rented one by one


def test_plan_bills_whole_instances(client):
    """CoreWeave rents B200 as 8-GPU nodes: one 4-GPU replica costs the node ($50,224 a month always on, not half),
    so its 4-GPU GB200 instance, cheaper than a whole B200 node, is the cheapest dedicated option."""
    body = client.get(PLAN).json()
    options = body["plan"]["options"] if "plan" in body else body["options"]
    by_gpu = {o["gpu_id"]: o for o in options if o["price_type"] == "on_demand"}
    b200 = by_gpu["B200"]
    assert b200["instance_gpus"] == 8 and b200["copies_per_instance"] == 8 // b200["gpu_count"]
    assert b200["monthly_usd_always_on"] == math.ceil(b200["replicas_at_peak"]) * 8 * 8.6 * HOURS_PER_MONTH
    assert options[0]["gpu_id"] == "GB200"


def test_ranked_row_says_how_many_copies_an_instance_holds(client):
    body = client.get("/rank.json?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40&show=all").json()
    lambda_8 = [o for o in body["options"] if o["feasible"] and o["provider"] == "lambda" and o["instance_gpus"] == 8]
    assert lambda_8
    for o in lambda_8:
        assert o["copies_per_instance"] * o["gpu_count"] == 8
    page = client.get("/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40&show=all").text
    assert "copies per 8-GPU instance" in page


def test_training_uses_whole_instances(client):
    response = client.post(
        "/api/v1/rank/training?limit=200&terms=false",
        json={"model": "llama-3.1-70b", "method": "qlora", "total_tokens": 2e8},
    )
    options = [o for o in response.json()["options"] if o["feasible"]]
    assert options
    for o in options:
        if o["provider"] == "lambda" and o["usd_per_gpu_hour"] == 6.69:  # Lambda's 8×B200 instance
            assert o["gpu_count"] % 8 == 0
