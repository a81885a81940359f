"""`gpumatch disagg`: the verdict with its numbers per pool, JSON and flag errors on a fresh seeded database."""

from __future__ import annotations

import json

from app.cli.main import main


def test_disagg_command_prints_the_verdict_pools_and_share_link(database, capsys):
    flags = ["--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "32000", "--output-len", "1000"]
    flags += ["--ttft-ms", "5000"]  # a 32k prompt: no one-node layout meets the 1 s default
    assert main(["disagg", *flags, "--tpot-ms", "40", "--requests-per-day", "100000"]) == 0
    out = capsys.readouterr().out
    assert "Prefill pool:" in out and "Decode pool:" in out and "aggregated" in out
    assert "P:" in out and "share: /disagg?model=llama-3.1-70b" in out and "input_len=32000" in out
    assert main(["disagg", *flags, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["disaggregated"] and body["verdict"]["winner"] in {"disaggregated", "close", "aggregated"}


def test_disagg_command_names_a_bad_flag(database, capsys):
    assert main(["disagg", "--model", "llama-3.1-70b", "--requests-per-day", "-1"]) == 2
    assert "--requests-per-day" in capsys.readouterr().err
    assert main(["disagg", "--model", "no-such-model"]) == 2
    assert "--model" in capsys.readouterr().err


def test_disagg_command_labels_the_kv_path_a_rack_uses(database, capsys):
    flags = ["--model", "llama-3.1-405b", "--weight-dtype", "fp8", "--kv-dtype", "fp8", "--input-len", "32000"]
    flags += ["--output-len", "1000"]
    assert main(["disagg", *flags, "--ttft-ms", "3000", "--tpot-ms", "30", "--max-gpus", "72"]) == 0
    out = capsys.readouterr().out
    assert "(KV inside NVLink domain)" in out and "(node)" not in out
    assert "decode alone would batch more (more" not in out


def test_disagg_and_plan_commands_filter_offers_as_rank_does(database, capsys):
    """--gpus, --providers, --price-types, --vendors and --include-stale reach /disagg's and /plan's workload, and
    their share links, as the pages' filters do."""
    flags = ["--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "32000", "--output-len", "1000"]
    flags += ["--ttft-ms", "3000", "--tpot-ms", "30", "--gpus", "GB200,B200", "--providers", "coreweave"]
    assert main(["disagg", *flags, "--vendors", "nvidia", "--include-stale", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["gpus"] == ["GB200", "B200"] and body["workload"]["include_stale"] is True
    pools = [p[role] for p in body["disaggregated"] for role in ("prefill", "decode")] + [body["aggregated"]]
    assert pools and {(p["provider"], p["gpu_id"] in ("GB200", "B200")) for p in pools} == {("coreweave", True)}
    assert "providers=coreweave" in body["share_url"] and "gpus=GB200,B200" in body["share_url"]
    serving = ["plan", "serving", "--model", "llama-3.1-70b", "--gpus", "GB200", "--price-types", "on_demand,spot"]
    assert main([*serving, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["options"] and {o["gpu_id"] for o in body["options"]} == {"GB200"}
    assert body["workload"]["price_types"] == ["on_demand", "spot"] and "gpus=GB200" in body["share_url"]
    assert main(["disagg", "--model", "llama-3.1-70b", "--gpus", "NO-SUCH-GPU"]) == 2
    assert "--gpus" in capsys.readouterr().err


def test_disagg_command_labels_its_cost_per_token_as_at_the_traffic(database, capsys):
    flags = ["--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--input-len", "8000"]
    assert main(["disagg", *flags]) == 0
    out = capsys.readouterr().out
    assert "$/M out at traffic" in out and "$/M out " not in out.replace("$/M out at traffic", "")
    assert "at full load" in out  # the note says how the ranking's figure differs
