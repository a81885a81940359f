"""A training row's terms went from a step's time to the bill's "45.8 h of run" with no line between (found by qa44):
the tokens a step takes, the steps the token budget needs and the hours they run were nowhere a reader could add
up. The `hours of work` term (terms43's, which qa44's `steps` term folded into) says them, and they add up to the
row's hours."""

from __future__ import annotations

QUESTION = {"model": "llama-2-7b", "method": "pretrain", "total_tokens": 1e11, "max_days": 3}


def test_each_training_rows_hours_of_work_term_adds_up_to_its_run_hours(client) -> None:  # type: ignore[no-untyped-def]
    options = client.post("/api/v1/rank/training?limit=10", json=QUESTION).json()["options"]
    feasible = [o for o in options if o["feasible"]]
    assert feasible
    for o in feasible:
        terms = {t["name"]: t for t in o["terms"]}
        work = terms["hours of work"]
        steps = 1e11 / (64 * 4096)  # 381,469.7: 64 sequences of 4,096 tokens a step
        assert "381,470 steps of 262,144 tokens" in work["detail"]
        run_hours = o["total_hours"] - terms["start-up"]["value"]
        assert abs(steps * o["step_time_s"] / 3600 - run_hours) <= 1e-4 * run_hours
        assert abs(work["value"] - run_hours) <= 1e-4 * run_hours
    names = [t["name"] for t in feasible[0]["terms"]]
    assert names.index("step time") < names.index("hours of work") < names.index("billed hours")
