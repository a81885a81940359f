"""One answer names every wrong field it can know, the checks that need the model or the GPUs among them (errs2): a
length beyond the model's context, ep on a dense model, an engine on GPUs it does not run on, a pasted config.json that
cannot be read, beside a bad value, a malformed id and an unknown one. Before, `tpot_ms=-1&expert_parallel=ep` named
tpot_ms alone, and the dense model's ep only once it was fixed; and a valid question answered its unknown GPU first,
its ep after."""

from __future__ import annotations

DENSE = "model=llama-3.1-8b"


def test_a_valid_question_names_its_unknown_id_and_its_model_check_together(client):
    detail = client.get(f"/rank.json?{DENSE}&expert_parallel=ep&gpus=NOPE").json()["detail"]
    assert sorted(e["field"] for e in detail) == ["expert_parallel", "gpus"]
    body = client.post("/api/v1/estimate/inference", json={"gpu": "NOPE", "model": "NOPE"}).json()["detail"]
    assert sorted(e["field"] for e in body) == ["gpu", "model"]
    mix = client.get("/mix.json?engine=trtllm&vendors=AMD&mix=120000x20000:1").json()["detail"]
    assert sorted(e["field"] for e in mix) == ["engine", "mix"]
