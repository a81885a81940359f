"""`--hf-config PATH` on every command that takes a model (rank, mix, plan, precision, disagg): a config.json on disk
answered as the API's hf_config, and a file that cannot be read named with the flag, never a traceback."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from tests.test_fuzz_edges import LLAMA_8B

FP8_RELEASE = {**LLAMA_8B, "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8"}}
# Each command's words, the API it answers as, that API's body for a config and its query (--limit 3 is the API's
# limit=3; each option's terms included on both, the API's default).
AS_THE_API = {
    "plan serving": (
        ["plan", "serving", "--limit", "3"],
        "/api/v1/plan/serving",
        lambda config: {"workload": {"hf_config": config}},
        {"limit": 3},
    ),
    "plan lifecycle": (  # both halves: it trains the model it serves
        ["plan", "lifecycle"],
        "/api/v1/plan/lifecycle",
        lambda config: {"training": {"hf_config": config}, "inference": {"hf_config": config}},
        {},
    ),
    "precision": (["precision"], "/api/v1/precision", lambda config: {"hf_config": config}, {}),
    "disagg": (["disagg"], "/api/v1/disagg", lambda config: {"workload": {"hf_config": config}}, {}),
}
EVERY_COMMAND = [["rank", "inference"], ["rank", "training"], ["mix"], *(argv for argv, *_ in AS_THE_API.values())]


@pytest.fixture
def config_path(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(FP8_RELEASE), encoding="utf-8")
    return str(path)


def test_rank_reads_the_config_file_as_the_api_reads_hf_config(database, config_path, capsys):
    assert main(["rank", "inference", "--hf-config", config_path, "--limit", "3", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["model"]["id"] == "custom"
    assert body["weights"]["weight_dtype"] == "fp8" and body["weights"]["from_release"]  # its release precision
    assert body["options"] and body["options"][0]["feasible"]
    assert "model=custom" in body["share_url"] and "arch_hidden_size=4096" in body["share_url"]
    assert main(["rank", "training", "--hf-config", config_path, "--method", "lora", "--limit", "2"]) == 0
    assert "custom:" in capsys.readouterr().out


def test_mix_reads_the_config_file(database, config_path, capsys):
    assert main(["mix", "--hf-config", config_path, "--mix", "chat:1", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["model"]["id"] == "custom" and body["mix"]["usd_per_month"] > 0
    assert "model=custom" in body["share_url"]


@pytest.mark.parametrize("command", AS_THE_API)
def test_the_config_file_gets_the_apis_answer_for_its_hf_config(database, client, config_path, capsys, command):
    argv, url, body_of, params = AS_THE_API[command]
    assert main([*argv, "--hf-config", config_path, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert "model=custom" in body["share_url"] and "arch_release_precision=fp8" in body["share_url"]  # its release
    api = client.post(url, json=body_of(FP8_RELEASE), params=params)
    assert api.status_code == 200 and body == api.json()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "could not read"),
        ("[1, 2]", "holds a JSON list, not a config.json object"),
        ('{"hidden_size": NaN}', "is not a readable config.json"),
        ("{not json", "is not a readable config.json"),
    ],
)
def test_a_file_that_is_no_config_is_named_with_the_flag(database, tmp_path, capsys, content, said):
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    for argv in EVERY_COMMAND:
        assert main([*argv, "--hf-config", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("--hf-config: ") and said in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [argv for argv, *_ in AS_THE_API.values()], ids=list(AS_THE_API))
def test_a_config_of_no_model_is_named_with_the_flag_once(database, tmp_path, capsys, argv):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}), encoding="utf-8")
    assert main([*argv, "--hf-config", str(path)]) == 2
    err = capsys.readouterr().err  # plan lifecycle trains and serves it: one line, not one per half
    assert err.count("\n") == 1 and err.startswith("--hf-config: could not read this config.json: ")
    assert "missing 'hidden_size'" in err


def test_a_config_file_and_a_catalog_model_are_one_too_many(database, config_path, capsys):
    for argv in EVERY_COMMAND:
        assert main([*argv, "--model", "llama-3.1-8b", "--hf-config", config_path]) == 2
        assert "not both" in capsys.readouterr().err
