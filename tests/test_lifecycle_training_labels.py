"""/plan's train-then-serve named its best training run without the labels its ranking row carries (found by qa44):
a 7B pretrain due in 3 days ranks 32×B200 at CoreWeave first, "node count unstated" (4 nodes of an offer that states
no node count) and "deadline at risk" (3.03 days at its band's slow end), yet the plan said only "(on demand)"."""

from __future__ import annotations

import dataclasses
from datetime import date

from app.scoring.serving.plans.lifecycle import ServingCandidate, combine
from app.scoring.training.ranking.results import TrainingOption

QUESTION = "model=llama-2-7b&requests_per_day=100000&months=12&train_method=pretrain&train_total_tokens=100000000000"
PLAN = f"/plan?{QUESTION}&train_max_days=3"
RANK = "/rank.json?phase=training&model=llama-2-7b&method=pretrain&total_tokens=100000000000&max_days=3"


def _run(**labels: str) -> TrainingOption:
    run = TrainingOption(
        "B200", 32, "pp2", "coreweave", "CoreWeave", "on_demand", 8.6, date(2026, 9, 20), True, "", False, [], 1.0,
        1.0, 1.0, 0.4, 46.0, 12680.0, 37.0, None,
    )  # fmt: skip
    return dataclasses.replace(run, **labels)


def test_a_combination_keeps_its_training_runs_cluster_caveat_and_deadline_risk() -> None:
    serving = ServingCandidate("1×L4 at X (on demand)", "dedicated", 500.0)
    caveat, risk = "4 nodes of 8 GPUs: the offer states no node count", "finishes in 3.03 days at its band's slow end"
    (row,) = combine([_run(cluster_caveat=caveat, deadline_at_risk=risk)], [serving], 12)
    assert row.training == "32×B200 at CoreWeave (on demand; node count unstated)"
    assert row.training_price_caveats == ("node count unstated",)
    assert (row.training_cluster_caveat, row.training_deadline_at_risk) == (caveat, risk)
    (plain,) = combine([_run()], [serving], 12)
    assert plain.training == "32×B200 at CoreWeave (on demand)"
    assert plain.training_price_caveats == ()
    assert (plain.training_cluster_caveat, plain.training_deadline_at_risk) == ("", "")


def test_the_plan_says_what_the_ranking_says_of_its_best_training_run(client) -> None:  # type: ignore[no-untyped-def]
    ranked = client.get(RANK).json()["options"][0]
    assert ranked["cluster_caveat"] and ranked["deadline_at_risk"]  # the question still exercises both labels
    top = client.get(PLAN.replace("/plan?", "/plan.json?")).json()["lifecycle"]["combinations"][0]
    assert top["training"].startswith(f"{ranked['gpu_count']}×{ranked['gpu_id']} at {ranked['provider_name']} (")
    assert "node count unstated" in top["training"] and "node count unstated" in top["training_price_caveats"]
    assert top["training_cluster_caveat"] == ranked["cluster_caveat"]
    assert top["training_deadline_at_risk"] == ranked["deadline_at_risk"]
    best = client.get(PLAN).text.split("Best: train on", 1)[1].split("</p>", 1)[0]
    assert "node count unstated</span> Training: " in best and ranked["cluster_caveat"] in best
    assert "deadline at risk</span>" in best and ranked["deadline_at_risk"].replace("'", "&#39;") in best
