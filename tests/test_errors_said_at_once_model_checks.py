"""One answer names every wrong field it can know, the checks that need the model or the GPUs among them (errs2): a
length beyond the model's context, ep on a dense model, an engine on GPUs it does not run on, a pasted config.json that
cannot be read, beside a bad value, a malformed id and an unknown one. Before, `tpot_ms=-1&expert_parallel=ep` named
tpot_ms alone, and the dense model's ep only once it was fixed; and a valid question answered its unknown GPU first,
its ep after."""

from __future__ import annotations

import json
import re

import pytest

from app.cli.main import main
from tests.test_fuzz_edges import LLAMA_8B

BEYOND = "input_len=120000&output_len=20000"  # 140,000 tokens: over Llama 3.1 8B's 131,072
DENSE = "model=llama-3.1-8b"
UNREADABLE_CONFIG = {**LLAMA_8B, "num_attention_heads": 0}

# (page, query, {field: words its message holds}): a bad value, an id malformed or unknown, and a model/GPU check
PAGES = [
    ("/", f"{DENSE}&{BEYOND}&tpot_ms=-1&gpus=NOPE", {"tpot_ms": "must be ", "gpus": "NOPE", "output_len": "context"}),
    (
        "/",
        f"{DENSE}&expert_parallel=ep&gpus=bad%20id!&tpot_ms=-1",
        {"gpus": "not a GPU id", "expert_parallel": "dense"},
    ),
    ("/", "engine=llamacpp&weight_dtype=int8_w8a8&ttft_ms=0", {"ttft_ms": "must be ", "weight_dtype": "W8A8"}),
    ("/compare", "engine=trtllm&vendors=AMD&tpot_ms=-1&providers=NOPE", {"providers": "NOPE", "engine": "NVIDIA"}),
    (
        "/plan",
        f"{DENSE}&{BEYOND}&requests_per_day=-1&gpus=NOPE",
        {"requests_per_day": "must be ", "output_len": "context"},
    ),
    ("/disagg", f"{DENSE}&expert_parallel=ep&requests_per_day=-1&providers=NOPE", {"expert_parallel": "dense"}),
    ("/mix", "engine=trtllm&vendors=AMD&tpot_ms=-1&providers=NOPE", {"tpot_ms": "must be ", "engine": "NVIDIA"}),
    ("/precision", f"{DENSE}&{BEYOND}&tpot_ms=-1&providers=NOPE", {"providers": "NOPE", "output_len": "context"}),
    # an owned GPU's empty inputs without a sourced default (MI355X: no server price, power or fresh offer)
    ("/own", "gpu=MI355X&gpu_count=0", {"gpu_count": "must be ", "purchase_usd_per_server": "the catalog has no"}),
]


OWN_GAPS = {"purchase_usd_per_server", "power_kw_per_server", "provisioned_kw_per_server", "rental_usd_per_gpu_hour"}


def _twin(path: str) -> str:
    return "/rank.json" if path == "/" else f"{path}.json"


@pytest.mark.parametrize(("path", "query", "said"), PAGES)
def test_json_twin_names_every_wrong_field_at_once(client, path, query, said):
    response = client.get(f"{_twin(path)}?{query}")
    assert response.status_code == 422
    named = {e["field"]: e["message"] for e in response.json()["detail"]}
    for field, words in said.items():
        assert words in named.get(field, ""), (field, named)


@pytest.mark.parametrize(("path", "query", "said"), PAGES)
def test_page_shows_every_wrong_field_beside_its_input(client, path, query, said):
    response = client.get(f"{path}?{query}")
    assert response.status_code == 422
    for field in said:
        if path == "/own" and field in OWN_GAPS:  # a cost the catalog lacks is asked for apart, not as a mistake
            assert f'id="gap-{field}"' in response.text and f'id="err-{field}"' not in response.text, field
            continue
        assert f'id="err-{field}"' in response.text, field
        assert re.search(rf'aria-describedby="[^"]*\berr-{field}\b', response.text), field


def test_a_check_reading_a_wrong_field_says_nothing(client):
    """ep is not judged on a model refused on its shape; the context not on a length that is itself wrong."""
    detail = client.get("/rank.json?model=bad%20id!&expert_parallel=ep&input_len=-1&output_len=200000").json()
    fields = [e["field"] for e in detail["detail"]]
    assert sorted(fields) == ["input_len", "model"]


def test_an_owned_gpu_refused_on_its_shape_hears_no_default_check(client):
    """Whether an input has a sourced default depends on the GPU and its server size: wrong, neither is judged."""
    detail = client.get("/own.json?gpu=MI355X&gpus_per_server=0").json()["detail"]
    assert [e["field"] for e in detail] == ["gpus_per_server"]
    given = client.get("/own.json?gpu=MI355X&gpu_count=0&purchase_usd_per_server=-5").json()["detail"]
    assert "the catalog has no" not in {e["field"]: e["message"] for e in given}["purchase_usd_per_server"]


def test_a_training_question_hears_no_inference_check(client):
    detail = client.get("/rank.json?phase=training&model=bad%20id!&gpus=NOPE&seq_len=-1").json()["detail"]
    assert sorted(e["field"] for e in detail) == ["gpus", "model", "seq_len"]


def test_a_valid_question_names_its_unknown_id_and_its_model_check_together(client):
    detail = client.get(f"/rank.json?{DENSE}&expert_parallel=ep&gpus=NOPE").json()["detail"]
    assert sorted(e["field"] for e in detail) == ["expert_parallel", "gpus"]
    body = client.post("/api/v1/estimate/inference", json={"gpu": "NOPE", "model": "NOPE"}).json()["detail"]
    assert sorted(e["field"] for e in body) == ["gpu", "model"]
    mix = client.get("/mix.json?engine=trtllm&vendors=AMD&mix=120000x20000:1").json()["detail"]
    assert sorted(e["field"] for e in mix) == ["engine", "mix"]


BODIES = [
    (
        "/api/v1/rank/inference",
        {"model": "llama-3.1-8b", "expert_parallel": "ep", "tpot_ms": -1, "gpus": ["NOPE"]},
        {"tpot_ms": "must be ", "gpus": "NOPE", "expert_parallel": "dense"},
    ),
    (
        "/api/v1/rank/training",
        {"model": None, "hf_config": UNREADABLE_CONFIG, "seq_len": -1, "vendors": ["NOPE"]},
        {"seq_len": "must be ", "vendors": "NOPE", "hf_config": "could not read"},
    ),
    (
        "/api/v1/estimate/inference",
        {"model": "llama-3.1-8b", "gpu": "NOPE", "expert_parallel": "ep", "ttft_ms": -1},
        {"ttft_ms": "must be ", "gpu": "NOPE", "expert_parallel": "dense"},
    ),
    (
        "/api/v1/estimate/inference",
        {"model": "NOPE", "gpu": "MI300X", "engine": "trtllm", "ttft_ms": -1},
        {"ttft_ms": "must be ", "model": "NOPE", "engine": "MI300X"},
    ),
    (
        "/api/v1/plan/serving",
        {"workload": {"model": "llama-3.1-8b", "input_len": 120000, "output_len": 20000, "gpus": ["bad id!"]}},
        {"workload.gpus.0": "not a GPU id", "workload.output_len": "context"},
    ),
    (
        "/api/v1/plan/serving",
        {"workload": {"model": "NOPE", "scenario": "max_throughput"}, "traffic": {"requests_per_day": -1}},
        {"traffic.requests_per_day": "must be ", "workload.model": "NOPE", "workload.scenario": "latency limits"},
    ),
    (
        "/api/v1/plan/lifecycle",
        {"training": {"seq_len": -1}, "inference": {"peak_concurrency": 8}, "months": 3},
        {"training.seq_len": "must be ", "inference.peak_concurrency": "traffic sets the peak"},
    ),
    (
        "/api/v1/disagg",
        {"workload": {"model": "llama-3.1-8b", "expert_parallel": "ep"}, "traffic": {"requests_per_day": -1}},
        {"traffic.requests_per_day": "must be ", "workload.expert_parallel": "dense"},
    ),
    (
        "/api/v1/precision",
        {"hf_config": UNREADABLE_CONFIG, "tpot_ms": -1, "providers": ["NOPE"]},
        {"tpot_ms": "must be ", "providers": "NOPE", "hf_config": "could not read"},
    ),
    (
        "/api/v1/own",
        {"gpu": "MI355X", "gpu_count": 0, "pue": 0.5},
        {"gpu_count": "must be ", "pue": "must be ", "rental_usd_per_gpu_hour": "enter a rental price"},
    ),
    (
        "/api/v1/mix",
        {"model": "NOPE", "engine": "trtllm", "vendors": ["AMD"], "requests_per_day": -1},
        {"requests_per_day": "must be ", "model": "NOPE", "engine": "NVIDIA"},
    ),
]


@pytest.mark.parametrize(("path", "body", "said"), BODIES)
def test_api_body_names_every_wrong_field_in_one_422(client, path, body, said):
    response = client.post(path, json=body)
    assert response.status_code == 422
    named = {e["field"]: e["message"] for e in response.json()["detail"]}
    for field, words in said.items():
        assert words in named.get(field, ""), (field, named)


CLI = [
    (
        [
            "rank",
            "inference",
            "--model",
            "llama-3.1-8b",
            "--expert-parallel",
            "ep",
            "--tpot-ms",
            "-1",
            "--gpus",
            "NOPE",
        ],
        ("--tpot-ms", "--gpus", "--expert-parallel"),
    ),
    (
        ["plan", "serving", "--input-len", "120000", "--output-len", "20000", "--requests-per-day", "-1"],
        ("--requests-per-day", "--output-len"),
    ),
    (
        ["disagg", "--expert-parallel", "ep", "--requests-per-day", "-1", "--providers", "NOPE"],
        ("--requests-per-day", "--providers", "--expert-parallel"),
    ),
    (
        ["precision", "--engine", "trtllm", "--vendors", "AMD", "--tpot-ms", "-1", "--providers", "NOPE"],
        ("--tpot-ms", "--providers", "--engine"),
    ),
    (
        ["mix", "--engine", "trtllm", "--vendors", "AMD", "--requests-per-day", "-1", "--model", "NOPE"],
        ("--requests-per-day", "--model", "--engine"),
    ),
    (["own", "--gpu", "MI355X", "--gpu-count", "0"], ("--gpu-count", "--purchase-usd-per-server")),
]


@pytest.mark.parametrize(("argv", "flags"), CLI)
def test_cli_names_every_wrong_flag_in_one_run(database, capsys, argv, flags):
    assert main(argv) == 2
    err = capsys.readouterr().err
    for flag in flags:
        assert re.search(rf"^{flag}: ", err, re.M), (flag, err)


def test_cli_training_names_an_unreadable_config_beside_a_bad_flag(database, capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(UNREADABLE_CONFIG), encoding="utf-8")
    assert main(["rank", "training", "--hf-config", str(path), "--seq-len", "-1"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"^--seq-len: ", err, re.M) and re.search(r"^--hf-config: could not read", err, re.M), err


def test_plan_apis_name_the_plan_refusals_beside_the_models(client):
    """A plan's own refusals (another scenario, a one-token output, training another model) were said first, alone."""
    disagg = {"workload": {"model": "NOPE", "output_len": 1, "scenario": "max_throughput"}}
    detail = client.post("/api/v1/disagg", json=disagg).json()["detail"]
    assert sorted(e["field"] for e in detail) == ["workload.model", "workload.output_len", "workload.scenario"]
    lifecycle = {
        "training": {"model": "llama-3.1-70b"},
        "inference": {"model": "llama-3.1-8b", "expert_parallel": "ep", "gpus": ["NOPE"]},
        "months": 3,
    }
    detail = client.post("/api/v1/plan/lifecycle", json=lifecycle).json()["detail"]
    fields = sorted(e["field"] for e in detail)
    assert fields == ["inference.expert_parallel", "inference.gpus", "training.model"]
    serving = {"workload": {"model": "NOPE", "scenario": "max_throughput"}}
    detail = client.post("/api/v1/plan/serving", json=serving).json()["detail"]
    assert sorted(e["field"] for e in detail) == ["workload.model", "workload.scenario"]


@pytest.mark.parametrize(
    ("argv", "flags"),
    [
        (
            ["rank", "inference", "--sort", "bogus", "--input-len", "-1", "--gpus", "NOPE"],
            ("--sort", "--input-len", "--gpus"),
        ),
        (["rank", "inference", "--hf-config", "MISSING.json", "--tpot-ms", "-1"], ("--hf-config", "--tpot-ms")),
        (["precision", "--hf-config", "MISSING.json", "--providers", "NOPE"], ("--hf-config", "--providers")),
        (["disagg", "--hf-config", "MISSING.json", "--expert-parallel", "ep"], ("--hf-config",)),
        (
            ["plan", "lifecycle", "--months", "0", "--expert-parallel", "ep", "--input-len", "-1"],
            ("--months", "--input-len", "--expert-parallel"),
        ),
    ],
)
def test_cli_a_flag_refused_before_the_question_is_read_is_said_with_the_rest(database, capsys, argv, flags):
    """--sort, --months and an --hf-config file that cannot be read were refused alone, the question's errors unread;
    ep is not judged beside a config.json that was not read (its model is unknown)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    for flag in flags:
        assert re.search(rf"^{flag}: ", err, re.M), (flag, err)
    if "--hf-config" in argv:
        assert "--expert-parallel" not in err
