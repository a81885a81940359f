"""`gpumatch precision` and `gpumatch own`: tables, JSON and flag errors on a fresh seeded database."""

from __future__ import annotations

import json
import re

import pytest

from app.cli.main import main


def test_precision_command_prints_every_precision_and_its_quality_sources(database, capsys):
    assert main(["precision", "--model", "llama-3.1-70b", "--tpot-ms", "50"]) == 0
    out = capsys.readouterr().out
    for label in ("BF16", "FP8 W8A8", "INT4 weight-only", "INT8 weight-only (W8A16)", "INT8 W8A8", "FP8 KV cache"):
        assert label in out
    assert "quality source: https://" in out and "share: /precision?model=llama-3.1-70b" in out
    assert main(["precision", "--model", "llama-3.1-70b", "--json"]) == 0
    # bf16, fp8, fp8 + KV fp8, fp4, int4, int8 (W8A16), int8 W8A8, KV fp8
    assert len(json.loads(capsys.readouterr().out)["rows"]) == 8


def test_precision_command_says_where_each_price_and_quality_row_was_read(database, capsys):
    """The page links each best option's price to its source and dates each quality row; the CLI gave neither price
    sources nor which row a bare quality URL was for, nor its date (found by qa30)."""
    assert main(["precision", "--model", "llama-3.3-70b", "--gpus", "H100-SXM", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert main(["precision", "--model", "llama-3.3-70b", "--gpus", "H100-SXM"]) == 0
    out = capsys.readouterr().out
    for best in (r["best"] for r in body["rows"] if r["best"]):
        assert f"{best['provider_name']} H100-SXM ${best['usd_per_gpu_hour']:.2f}/GPU-h" in out
        assert f"{best['as_of']}, {best['price_source_url']}" in out
    w8a8 = next(r for r in body["rows"] if r["label"] == "INT8 W8A8")["quality"][0]
    assert f"quality source: {w8a8['source_url']} (INT8 W8A8; {w8a8['as_of']})" in out


def test_precision_command_names_a_bad_flag(database, capsys):
    assert main(["precision", "--model", "llama-3.1-70b", "--input-len", "0"]) == 2
    assert "--input-len" in capsys.readouterr().err


def test_own_command_prints_a_six_figure_input_in_full(database, capsys):
    argv = ["own", "--gpu", "H100-SXM", "--purchase-usd-per-server", "250000", "--usd-per-kwh", "0.1282"]
    assert main(argv) == 0
    rows = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines() if len(line.split()) > 1}
    assert rows["purchase_usd_per_server"] == "250,000" and rows["usd_per_kwh"] == "0.1282"


def test_own_command_prints_inputs_terms_and_the_break_even(database, capsys):
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--utilisation-pct", "60"]) == 0
    out = capsys.readouterr().out
    assert "break-even months at this utilisation:" in out and "never" not in out.split("break-even months")[1][:40]
    assert "colocation_usd_per_kw_month" in out and "share: /own?gpu=H100-SXM" in out
    assert main(["own", "--pue", "1.2", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert next(i for i in body["inputs"] if i["name"] == "pue")["overridden"]


def test_own_command_puts_each_source_in_a_footnote_not_a_350_character_row(database, capsys):
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--pue", "1.3"]) == 0
    out = capsys.readouterr().out
    inputs_table = out.split("\n\n")[0].splitlines()
    words = [line for line in inputs_table if not line.strip().startswith("https://")]  # a URL is printed whole
    assert max(len(line) for line in words) <= 100, max(words, key=len)
    rows = {line.split()[0]: line for line in inputs_table if line.strip()}
    mark = re.search(r" (\[\d+\]) ", rows["rental_usd_per_gpu_hour"])
    assert mark and "your value" in rows["pue"]
    assert any(line.startswith(f"{mark[1]} cheapest on-demand 8-GPU instance") for line in inputs_table)


def test_own_command_links_each_default_and_says_undated(database, capsys):
    """The inputs' footnotes gave a source's words but not where it was read, which the page links, and an undated
    source's 'as of' was blank (found by qa30)."""
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8"]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    rows = {line.split()[0]: line for line in lines if line.strip()}
    assert rows["power_kw_per_server"].endswith(" undated") and rows["resale_pct"].endswith(" –")
    mark = re.search(r" (\[\d+\]) ", rows["power_kw_per_server"])[1]
    note = next(n for n, line in enumerate(lines) if line.startswith(f"{mark} "))
    assert lines[note + 1] == "    https://www.supercluster.blog/p/6-ai-supercluster-nvidia-dgx-h100"


def test_own_command_names_the_input_without_a_sourced_default(database, capsys):
    assert main(["own", "--gpu", "B200"]) == 2
    assert "--purchase-usd-per-server" in capsys.readouterr().err


def test_mix_command_prints_the_mix_the_best_single_type_and_the_saving(database, capsys):
    argv = ["mix", "--model", "llama-3.1-70b", "--weight-dtype", "fp8", "--requests-per-day", "200000"]
    assert main([*argv, "--mix", "chat:0.7,rag:0.3"]) == 0
    out = capsys.readouterr().out
    assert "cheapest mix: $" in out and "best single GPU type: $" in out and "saving: $" in out
    assert "LMSYS-Chat-1M" in out and "Mooncake" in out
    assert "share: /mix?model=llama-3.1-70b&mix=chat:0.7,rag:0.3&requests_per_day=200000&weight_dtype=fp8" in out
    assert main([*argv, "--mix", "code:1,500x2000:1", "--price-types", "on_demand", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)  # nothing but the JSON on stdout
    assert [b["name"] for b in body["buckets"]] == ["code", "500x2000"]
    assert body["mix"]["usd_per_month"] <= body["best_single"]["usd_per_month"]


def test_mix_command_names_a_bad_distribution(database, capsys):
    assert main(["mix", "--mix", "chat:0,rag:0"]) == 2
    assert "--mix" in capsys.readouterr().err
    assert main(["mix", "--mix=-5x10:1"]) == 2
    assert "--mix: bucket 1, input_len" in capsys.readouterr().err


def test_validate_command_names_a_file_it_cannot_read(database, tmp_path, capsys):
    missing, binary = tmp_path / "missing.csv", tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00 not utf-8")
    for path in (missing, binary):
        assert main(["validate", str(path), "--in-sample-only"]) == 2
        err = capsys.readouterr().err
        assert f"cannot read {path}" in err and "Traceback" not in err


def test_rank_command_says_why_when_no_offer_can_run_the_workload(database, capsys):
    argv = ["rank", "inference", "--model", "llama-3.1-70b", "--scenario", "request_rate", "--requests-per-s", "500"]
    assert main([*argv, "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "0 feasible" in out and "No offer can run this workload" in out
    reasons = [line for line in out.splitlines() if ": overloaded: keeps up with" in line]
    assert len(reasons) == 2 and "more (--limit)" in out
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--limit", "2"]) == 0
    assert "No offer can run" not in capsys.readouterr().out


def test_rank_command_says_a_late_run_misses_the_limits_not_that_it_cannot_run(database, capsys):
    """Found by qa32: 70B pretraining on 1T tokens at Max GPUs 64 printed "No offer can run this workload." over
    rows that each run it, only after the 30-day deadline; the page says "within its limits", and so does the CLI."""
    argv = ["rank", "training", "--model", "llama-3.1-70b", "--method", "pretrain", "--total-tokens", "1e12"]
    assert main([*argv, "--global-batch-seqs", "1024", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "No offer can run this workload within its limits. Why, per configuration:" in out
    assert "after the 30-day deadline" in out


def test_rank_command_shows_a_batch_job_and_names_its_flag(database, capsys):
    argv = ["rank", "inference", "--model", "llama-3.1-8b", "--limit", "3"]
    assert main([*argv, "--scenario", "max_throughput", "--job-requests", "20000"]) == 0
    out = capsys.readouterr().out
    assert "job time" in out and "job $" in out and "job_requests=20000" in out
    assert "the same job through a per-token API (list prices):" in out
    assert main([*argv, "--job-requests", "20000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--job-requests: a batch job runs at scenario max_throughput") and "Value error" not in err


def test_rank_table_shows_prices_to_the_pages_digits(database, capsys):
    """$/GPU-h to the cent and $ per million tokens to a tenth of a cent, as the pages show them: the generic
    cell format printed 8.6 beside 6.305 and rounded $11.832 to 11.8."""
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--limit", "3", "--json"]) == 0
    options = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]][:3]
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for rank, option in enumerate(options, start=1):
        (line,) = [line for line in lines if line.startswith(f"{rank} ")]
        assert f"{option['usd_per_gpu_hour']:,.2f}" in line.split()
        assert f"{option['usd_per_million_output_tokens']:,.3f}" in line.split()


def test_rank_command_sorts_its_table_by_a_column_and_keeps_each_rank(database, capsys):
    assert main(["rank", "training", "--model", "llama-3.1-8b", "--json"]) == 0
    feasible = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]]
    assert main(["rank", "training", "--model", "llama-3.1-8b", "--limit", "5", "--sort=-mfu"]) == 0
    out = capsys.readouterr().out
    assert "sorted by MFU, highest first; # is the rank" in out
    ranks = [int(line.split()[0]) for line in out.splitlines() if line[:1].isdigit()]
    assert len(ranks) == 5 and ranks != [1, 2, 3, 4, 5]
    mfus = [feasible[r - 1]["mfu"] for r in ranks]
    assert mfus == sorted(mfus, reverse=True) and mfus[0] == max(o["mfu"] for o in feasible)
    assert main(["rank", "training", "--model", "llama-3.1-8b", "--sort", "ttft"]) == 2
    assert capsys.readouterr().err.startswith("--sort: ttft is not a column of the training ranking")


def test_rank_table_heads_and_prices_the_metric_it_is_ranked_by(database, capsys):
    assert (
        main(["rank", "inference", "--model", "llama-3.1-8b", "--rank-by", "requests", "--limit", "2", "--json"]) == 0
    )
    best = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]][0]
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--rank-by", "requests", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "$/1k req" in lines[1] and "$/M out tok" not in lines[1]
    (first,) = [line for line in lines if line.startswith("1 ")]
    assert f"{best['usd_per_thousand_requests']:,.3f}" in first.split()


def test_rank_help_gives_each_field_its_description_and_its_default(capsys):
    with pytest.raises(SystemExit):
        main(["rank", "inference", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--input-len INPUT_LEN mean prompt tokens (default 2000)" in text
    assert (
        "--engine ENGINE the serving engine: trtllm (TensorRT-LLM), vllm," in text and "batches) (default vllm)" in text
    )
    assert "rows over the limits ranked after those that meet them" in text and "(default latency_bound)" in text


@pytest.mark.parametrize("months", ["-5", "0", "100000"])
def test_plan_lifecycle_refuses_months_outside_the_apis_bounds(database, capsys, months):
    assert main(["plan", "lifecycle", "--model", "llama-3.1-70b", "--months", months]) == 2
    assert capsys.readouterr().err == f"--months: a whole number of months from 1 to 60, not {months}\n"


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["plan", "lifecycle", "--train-total-tokens", "-5"], "--train-total-tokens: must be more than 0 tokens\n"),
        (["plan", "lifecycle", "--train-method", "nope"], "--train-method: Input should be 'pretrain', "),
        (["rank", "inference", "--price-types", "spot,bogus"], "--price-types: Input should be 'on_demand', "),
    ],
)
def test_a_bad_flag_is_named_as_typed_not_as_its_field(database, capsys, argv, error):
    assert main([*argv, "--model", "llama-3.1-8b"]) == 2
    assert capsys.readouterr().err.startswith(error)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a,b\n1,2,3\n", "missing required columns: case_id, source, gpu"),
        ("a,b\n1,2\n", "missing required columns: case_id, source, gpu"),
        (
            "case_id,source,gpu,gpu_count,model,metric,value,input_len,output_len\nc1,s,H100-SXM,1\n",
            "line 2 has 4 cells, the header 9",
        ),
        (
            "case_id,source,gpu,gpu_count,model,metric,value,input_len,output_len\nc1,s,H100-SXM,1,m,x,1,2,3,4\n",
            "line 2 has 10 cells, the header 9",
        ),
    ],
)
def test_validate_command_names_what_is_wrong_with_a_malformed_case_file(database, tmp_path, capsys, text, problem):
    path = tmp_path / "cases.csv"
    path.write_text(text)
    assert main(["validate", str(path), "--in-sample-only"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gpumatch validate: cannot read {path}: {problem}") and err.count("\n") == 1


def test_validate_keeps_a_row_with_an_unreadable_value_uncovered(database, tmp_path, capsys):
    path = tmp_path / "cases.csv"
    header = "case_id,source,gpu,gpu_count,model,metric,value,input_len,output_len"
    path.write_text(f"{header}\nc1,s,H100-SXM,1,llama-3.1-8b,output_tokens_per_s,abc,100,100\n")
    assert main(["validate", str(path), "--in-sample-only", "--json"]) == 0
    [case] = json.loads(capsys.readouterr().out)["cases"]
    assert case["covered"] is False and case["reason"]


def test_rank_command_names_each_prices_caveats_in_its_terms(database, capsys):
    """A price read from the provider's article or offered 'where available' says so in the CLI's table too."""
    assert main(["rank", "inference", "--model", "llama-3.1-8b", "--providers", "gmi-cloud"]) == 0
    out = capsys.readouterr().out
    assert "on_demand (provider's article, not its price list)" in out
    assert "on_demand (capacity not guaranteed; provider's article, not its price list)" in out


def test_rank_tables_show_each_rows_layout_and_nodes(database, capsys):
    """A 64×GB200 row hides how it is split: the layout column says tensor and pipeline parallel and the nodes, as the
    page's count cell does."""
    assert main(["rank", "inference", "--model", "llama-3.1-405b", "--max-gpus", "16", "--json"]) == 0
    options = [o for o in json.loads(capsys.readouterr().out)["options"] if o["feasible"]]
    assert main(["rank", "inference", "--model", "llama-3.1-405b", "--max-gpus", "16", "--limit", "50"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "layout" in lines[1].split()
    spanning = next(o for o in options if o["nodes"] > 1)
    pp = f" PP{spanning['pipeline_parallel']}" if spanning["pipeline_parallel"] > 1 else ""
    cell = f"TP{spanning['tensor_parallel']}{pp}, {spanning['nodes']} nodes"
    assert any(cell in line and f"{spanning['gpu_count']}×{spanning['gpu_id']}" in line for line in lines)
    assert main(["rank", "training", "--model", "llama-3.1-70b", "--method", "full_ft", "--max-gpus", "128"]) == 0
    rows = capsys.readouterr().out.splitlines()[3:]
    assert any("FSDP" in line and "nodes" in line for line in rows)


def test_validate_table_shows_what_was_assumed_for_a_covered_row(database, tmp_path, capsys):
    """A covered row's assumptions (an unknown framework run as auto, an empty cell's default) were in --json only."""
    header = "case_id,source,framework,gpu,gpu_count,model,method,precision,seq_len,global_batch_seqs,metric,value"
    row = "c1,s,maxtext,H100-SXM,8,llama-3.1-8b,pretrain,bf16,4096,64,tokens_s_per_gpu,9000"
    path = tmp_path / "cases.csv"
    path.write_text(f"{header}\n{row}\n")
    assert main(["validate", str(path), "--in-sample-only"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("c1 ")]
    assert "framework maxtext: auto assumed" in line


def test_precision_command_asks_every_question_the_precision_page_takes(database, capsys):
    """The page and the API take the ranking's whole inference question (filters, scenario, load, ...); the command
    took eight flags, so `/precision?model=...&gpus=H100-SXM` could not be asked from it (found by qa14)."""
    from app.service.precision import IGNORED, PRECISION_FIELDS
    from app.service.query.custom_model import RAW_MODEL_FIELDS

    parser_flags = _flags_of("precision")
    asked = {name for name in PRECISION_FIELDS.names if name not in (*IGNORED, *RAW_MODEL_FIELDS, "hf_config_json")}
    asked -= {"tokens_per_s_per_user"}  # a form convenience: the page turns it into tpot_ms
    assert {f"--{name.replace('_', '-')}" for name in asked} <= parser_flags
    argv = ["precision", "--model", "llama-3.1-8b", "--gpus", "H100-SXM,L40S", "--scenario", "concurrency"]
    assert main([*argv, "--concurrency", "16", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["gpus"] == ["H100-SXM", "L40S"] and body["workload"]["concurrency"] == 16
    assert {r["best"]["gpu_id"] for r in body["rows"] if r["best"]} <= {"H100-SXM", "L40S"}
    assert body["share_url"].startswith("/precision?model=llama-3.1-8b&scenario=concurrency&concurrency=16")


def _flags_of(*command: str) -> set[str]:
    """The flags of `gpumatch COMMAND [SUBCOMMAND]`."""
    import argparse

    from app.cli.main import build_parser

    parser = build_parser()
    for word in command:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return {flag for action in parser._actions for flag in action.option_strings}


SERVING_COMMANDS = [(("disagg",), "DISAGG_FIELDS"), (("plan", "serving"), "PLAN_FIELDS")]


@pytest.mark.parametrize(("command", "fields_name"), SERVING_COMMANDS)
def test_serving_commands_ask_every_serving_field_their_page_takes(command, fields_name):
    """/disagg and /plan take the serving workload's engine settings, KV precision, limits_at and serving
    techniques; `gpumatch disagg` and `gpumatch plan serving` lacked them (plan: even --kv-dtype and --limits-at)
    (found by qa14)."""
    from app.scoring.workload import InferenceWorkload
    from app.service import disagg
    from app.service.query import plan

    page = (disagg if fields_name == "DISAGG_FIELDS" else plan).__dict__[fields_name]
    served = {name for name in InferenceWorkload.model_fields if page.takes(name)} - {"custom_model", "hf_config"}
    assert {"kv_dtype", "limits_at", "prefix_cache_hit", "spec_acceptance", "max_num_seqs"} <= served
    assert {f"--{name.replace('_', '-')}" for name in served} <= _flags_of(*command)


def test_plan_serving_command_ranks_at_the_kv_precision_and_limits_it_is_given(database, capsys):
    argv = ["plan", "serving", "--model", "llama-3.1-8b", "--kv-dtype", "fp8", "--limits-at", "band_high", "--json"]
    assert main(argv) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["workload"]["kv_dtype"] == "fp8" and body["workload"]["limits_at"] == "band_high"
    assert "kv_dtype=fp8" in body["share_url"] and "limits_at=band_high" in body["share_url"]


def test_plan_lifecycle_command_asks_every_training_field_the_plan_page_takes():
    """/plan's train_* fields (framework, GPUs, budget, deadline, optimizer, ...) each have a --train-* flag; the
    command had five (found by qa14)."""
    from app.scoring.workload import TrainingWorkload
    from app.service.query.plan import PLAN_FIELDS, TRAIN_PREFIX

    trained = {name for name in TrainingWorkload.model_fields if PLAN_FIELDS.takes(TRAIN_PREFIX + name)}
    trained -= {"model", "custom_model", "hf_config"}  # it trains the model it serves: --model, --hf-config
    assert {"framework", "gpus", "budget_usd", "max_days", "lora_rank"} <= trained
    assert {f"--train-{name.replace('_', '-')}" for name in trained} <= _flags_of("plan", "lifecycle")


def test_plan_lifecycle_names_the_training_flag_of_an_unknown_training_gpu(database, capsys):
    """An unknown --train-gpus id was reported as '--gpus: ...', the serving filter's flag (found by qa14)."""
    assert main(["plan", "lifecycle", "--model", "llama-3.1-8b", "--train-gpus", "NOPE"]) == 2
    assert capsys.readouterr().err.startswith("--train-gpus: unknown GPU id 'NOPE'")


def test_own_command_fits_its_terms_in_100_columns_with_the_working_as_footnotes(database, capsys):
    """The terms table's 'how' column ran it to ~135 characters (found by leftovers17)."""
    assert main(["own", "--gpu", "H100-SXM", "--gpu-count", "8", "--pue", "1.3"]) == 0
    out = capsys.readouterr().out
    words = [line for line in out.splitlines() if not line.strip().startswith("https://")]  # a URL is printed whole
    assert max(len(line) for line in words) <= 100, max(words, key=len)
    terms = out.split("\n\n")[1].splitlines()
    rows = {line.split("  ")[0].strip(): line for line in terms if re.search(r" \[\d+\]$", line)}
    mark = re.search(r"(\[\d+\])$", rows["renting"])
    assert mark and any(line.startswith(f"{mark[1]} 8 GPUs × $") for line in terms), terms
    assert int(re.search(r"\[(\d+)\]$", rows["purchase"])[1]) > 1  # numbered on from the inputs' footnotes
