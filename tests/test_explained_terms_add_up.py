"""Every number explains itself, through the service layer: over a grid of answers (inference dense and MoE, expert
parallel and DP attention, open and closed loop, a batch job, disaggregated serving and its aggregated rival, serving
plans, training by method and layout), each term's first clause reproduces its value in the figures it shows, each
total is made of terms the answer shows, each headline field is a term's value, the cost formulas hold on the fields,
and every constant a term names is on /methodology (terms43: disaggregated terms said 'prefill_parts: 1 × 2,000
prompt tokens' and 'pass + queue + KV transfer', a run total '2 GPUs × 6.89 USD/GPU-h × 4.5 h' made $62.01 of $62.34,
and no term stated an inference row's $ per million output tokens nor a training row's $ per step)."""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

import pytest

from app.scoring.efficiency import inference as inference_efficiency
from app.scoring.efficiency import training as training_efficiency
from app.scoring.explain import figure
from app.scoring.pricing.price_terms import HOURS_PER_MONTH
from app.scoring.serving.traffic.week import Traffic
from app.scoring.workload import InferenceWorkload, TrainingWorkload
from app.service.disagg import disagg_payload
from app.service.plan import serving_payload
from app.service.rank.ranking import rank_payload
from app.web.methodology.constant_catalog import dataclass_fields, fixed_constants
from app.web.methodology.pages import terms_constants
from benchmarks.bench_data import bench_snapshot
from tests.scoring.term_arithmetic import expression_of, stated_value

SNAPSHOT = bench_snapshot(1)
LIMIT = 4  # each answer's #1 and the three below it

INFERENCE = {
    "dense 70B FP8": {"model": "llama-3.1-70b", "weight_dtype": "fp8"},
    "dense 8B BF16": {"model": "llama-3.1-8b", "weight_dtype": "bf16"},
    "dense 70B BF16, TP8": {"model": "llama-3.1-70b", "weight_dtype": "bf16", "gpus": ["H100-SXM"], "tpot_ms": 30},
    "dense 405B FP8, TP4 PP2": {
        "model": "llama-3.1-405b",
        "weight_dtype": "fp8",
        "gpus": ["H100-SXM"],
        "ttft_ms": 10000,
        "tpot_ms": 200,
    },
    "DeepSeek-R1": {"model": "deepseek-r1", "weight_dtype": "fp8", "tpot_ms": 100, "ttft_ms": 3000},
    "DeepSeek-R1, EP and DP attention": {
        "model": "deepseek-r1",
        "weight_dtype": "fp8",
        "tpot_ms": 100,
        "ttft_ms": 3000,
        "engine": "sglang",
        "expert_parallel": "ep",
        "attention_parallel": "dp",
    },
    "gpt-oss-120b": {"model": "gpt-oss-120b"},
    "Mixtral": {"model": "mixtral-8x7b"},
    "Qwen3 MoE, EP": {"model": "qwen3-235b-a22b", "expert_parallel": "ep"},
    "open loop": {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 20},
    "closed loop": {"model": "llama-3.1-70b", "weight_dtype": "fp8", "scenario": "concurrency", "concurrency": 64},
    "fixed batch": {"model": "llama-3.1-8b", "scenario": "fixed_batch", "batch": 64},
    "batch job": {"model": "llama-3.1-8b", "scenario": "max_throughput", "job_requests": 100000},
}
TRAINING = {
    "pretrain, PP and ZeRO-1": {
        "model": "llama-3.1-8b",
        "method": "pretrain",
        "total_tokens": 5e10,
        "max_days": 6,
        "max_gpus": 256,
    },
    "full FT, TP8 and FSDP": {"model": "llama-3.1-70b", "method": "full_ft", "total_tokens": 1e9},
    "LoRA": {"model": "llama-3.1-70b", "method": "lora", "total_tokens": 1e8},
    "QLoRA, billed in whole hours": {"model": "llama-3.1-70b", "method": "qlora", "total_tokens": 1e8},
    "MoE full FT": {"model": "mixtral-8x7b", "method": "full_ft", "total_tokens": 1e9},
    "spot": {"model": "llama-3.1-8b", "method": "full_ft", "total_tokens": 5e9, "price_types": ["spot"]},
}
SERVING = ("dense 70B FP8", "dense 8B BF16", "DeepSeek-R1")
TRAFFIC = {"requests_per_day": 200000, "profile": "diurnal", "peak_factor": 3}

# Terms whose value a source states (a datasheet, a reference file) rather than arithmetic of other figures
STATED = {"dense peak", "start-up"}
# A total's parts: each figure with a unit in its first clause is the value of a term the answer shows
TOTALS = {"TTFT", "TPOT", "step time", "memory: step peak", "TTFT at peak", "total"}
# Identifiers in the terms' words that are no constant: the fitting command, a source file or function, a method
NOT_CONSTANTS = {
    "calibrate_inference": "the command that fits the constants",
    "price_terms": "the module, as in price_terms.STARTUP_HOURS",
    "training_estimators": "shared/research/training_estimators.md",
    "theoretical_memory_usage": "Megatron-LM's function the memory terms follow",
    "stage3_max_live_parameters": "DeepSpeed's setting",
    "dequantize_4bit": "bitsandbytes' kernel",
    "matmul_4bit": "bitsandbytes' kernel",
    "repeat_kv": "transformers' function",
    "eager_activations": "a measured case",
    "outside_allocator_gb": "a field of a measurement file",
    "full_ft": "a training method",
}
IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def _rank(phase: str, query: dict[str, Any]) -> dict[str, Any]:
    model = InferenceWorkload if phase == "inference" else TrainingWorkload
    return rank_payload(phase, model.model_validate(query), SNAPSHOT, "/s", limit=LIMIT)


@cache
def answers() -> dict[str, dict[str, Any]]:
    traffic = Traffic.model_validate(TRAFFIC)
    found = {f"inference: {k}": _rank("inference", q) for k, q in INFERENCE.items()}
    found |= {f"training: {k}": _rank("training", q) for k, q in TRAINING.items()}
    for k in SERVING:
        workload = InferenceWorkload.model_validate(INFERENCE[k])
        found[f"disagg: {k}"] = disagg_payload(workload, traffic, SNAPSHOT, "/s", charts=False)
        found[f"plan: {k}"] = serving_payload(workload, traffic, SNAPSHOT, "/s", limit=LIMIT, charts=False)
    return found


def explained(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Every object of an answer that carries terms: ranked rows, disaggregated plans, the aggregated rival."""
    rows = [o for o in answer.get("options", []) if o.get("terms")]
    rows += [p for p in answer.get("disaggregated", []) if p.get("terms")]
    aggregated = answer.get("aggregated")
    return rows + ([aggregated] if aggregated and aggregated.get("terms") else [])


def by_name(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in row["terms"]}


def first_clause(detail: str) -> str:
    return detail.split(";", 1)[0]


def close(shown: float, value: float) -> bool:
    """Equal within the rounding of figures shown to four significant digits (a few of them, each within 0.05 %)."""
    return math.isclose(shown, value, rel_tol=5e-3, abs_tol=5e-4)


def _billed_hours_hold(term: dict[str, Any]) -> bool:
    """Billed hours are the hours used, rounded up to the billing unit, at least a minimum term."""
    clause = first_clause(term["detail"])
    used = sum(float(h) for h in re.findall(r"([\d.]+) h (?:start-up|of run|of use|of work)", clause))
    if " in whole " in clause or " in blocks of " in clause or clause.startswith("max("):
        return term["value"] >= used * (1 - 5e-3)
    return close(used, term["value"])


def _shown_arithmetic(term: dict[str, Any]) -> float:
    clause = first_clause(term["detail"])
    value = stated_value(re.sub(r"(\d)B(?![A-Za-z])", r"\1 × 10^9", clause))  # 8.03B params: 8.03e9
    if term["unit"] == "FLOP" and "GFLOP" in clause:
        return value * 1e9
    return value / 1e9 if term["unit"].startswith("GB") and "B params" in clause else value  # bytes read as GB


ANSWERS = [*(f"inference: {k}" for k in INFERENCE), *(f"training: {k}" for k in TRAINING)]
ANSWERS += [f"{face}: {k}" for k in SERVING for face in ("disagg", "plan")]


def test_the_grid_reaches_every_path():
    rows = {key: explained(answers()[key]) for key in ANSWERS}
    assert all(rows[k] for k in ANSWERS if not k.startswith("plan")), [k for k in ANSWERS if not rows[k]]
    every = [r for k in ANSWERS for r in rows[k]]
    assert {r.get("expert_parallel") for r in every} >= {"ep", "tp"} and "dp" in {
        r.get("attention_parallel") for r in every
    }
    assert any(r.get("pipeline_parallel", 1) > 1 for r in every) and any(r.get("job_hours") for r in every)
    layouts = " ".join(r.get("layout", "") for r in every)
    assert all(word in layouts for word in ("TP8", "FSDP", "PP", "ZeRO-1", "one GPU"))
    assert any(r.get("price_type") == "spot" and r.get("expected_interruptions") for r in every)


@pytest.mark.parametrize("key", ANSWERS)
def test_every_term_shows_the_arithmetic_of_its_value(key: str) -> None:
    for row in explained(answers()[key]):
        for term in row["terms"]:
            clause = first_clause(term["detail"])
            if term["name"] in STATED:
                assert not expression_of(clause) or close(stated_value(clause), term["value"]), term
            elif term["name"] == "billed hours":
                assert _billed_hours_hold(term), term
            else:
                assert expression_of(clause), f"{key}: {term['name']} shows no figures: {term['detail']!r}"
                assert close(_shown_arithmetic(term), term["value"]), (key, term, expression_of(clause))


@pytest.mark.parametrize("key", ANSWERS)
def test_each_total_is_made_of_terms_the_answer_shows(key: str) -> None:
    """A part of a total with no term of its own (or a term dropped) leaves a figure no term has."""
    for row in explained(answers()[key]):
        terms = by_name(row)
        if key.startswith("disagg") and "ratio" not in row:
            continue  # the aggregated rival quotes the ranking's TTFT and TPOT, whose parts its ranked row shows
        for name in TOTALS & terms.keys():
            clause = first_clause(terms[name]["detail"])
            parts = re.findall(r"(\d[\d,]*(?:\.\d+)?) (?:ms|s|GB|USD)(?![\w/-])", clause)
            assert parts, (key, name, clause)
            for part in parts:
                shown = float(part.replace(",", ""))
                places = len(part.split(".")[1]) if "." in part else 0
                owners = [t for t in row["terms"] if t["name"] != name and abs(t["value"] - shown) <= 0.6 * 10**-places]
                assert owners, f"{key}: {name}'s {part} is no term's value: {clause!r}"


# field of the row: the term whose value it is
INFERENCE_FIELDS = {
    "ttft_ms": "TTFT",
    "tpot_ms": "TPOT",
    "ttft_p99_ms": "TTFT p99",
    "tpot_p99_ms": "TPOT p99",
    "output_tokens_per_s": "output tokens/s",
    "usd_per_million_output_tokens": "$ per million output tokens",
}
TRAINING_FIELDS = {
    "step_time_s": "step time",
    "usd_per_step": "$ per step",
    "mfu": "MFU",
    "billed_hours": "billed hours",
    "total_usd": "run total",
}
DISAGG_FIELDS = {
    "ttft_ms": "TTFT at peak",
    "tpot_ms": "decode step",
    "kv_transfer_ms": "KV transfer",
    "monthly_usd": "total",
    "usd_per_million_output_tokens_at_traffic": "$ per million output tokens",
}
AGGREGATED_FIELDS = {
    "ttft_ms": "TTFT",
    "tpot_ms": "TPOT",
    "monthly_usd": "monthly",
    "replicas_at_peak": "replicas at peak",
}


def _fields_of(key: str, row: dict[str, Any]) -> dict[str, str]:
    if key.startswith("training"):
        return TRAINING_FIELDS
    if key.startswith("disagg"):
        return DISAGG_FIELDS if "ratio" in row else AGGREGATED_FIELDS
    fields = {f: t for f, t in INFERENCE_FIELDS.items() if row.get(f) is not None}
    if row.get("job_hours"):  # a batch job's tokens/s is in its time's arithmetic
        fields["output_tokens_per_s"] = "batch job"
    return fields


@pytest.mark.parametrize("key", ANSWERS)
def test_each_headline_field_is_a_terms_value(key: str) -> None:
    for row in explained(answers()[key]):
        terms = by_name(row)
        for field, name in _fields_of(key, row).items():
            assert name in terms, f"{key}: no term states {field}: {sorted(terms)}"
            if name == "batch job":
                assert f" / {figure(row[field])} tokens/s / " in terms[name]["detail"], terms[name]
                continue
            assert terms[name]["value"] == pytest.approx(row[field], rel=1e-6, abs=1e-6), (key, field)
        if "ratio" in row:  # each pool's cost and instances too
            for role in ("prefill", "decode"):
                assert terms[f"{role} pool"]["value"] == pytest.approx(row[role]["monthly_usd"], rel=1e-6)
                assert terms[f"{role} instances at peak"]["value"] == row[role]["replicas_at_peak"]


def _rows(prefix: str) -> list[tuple[str, dict[str, Any]]]:
    found = [(k, o) for k in ANSWERS if k.startswith(prefix) for o in answers()[k].get("options", [])]
    return [(k, o) for k, o in found if o["feasible"]]


def test_inference_costs_follow_from_price_gpus_and_tokens_per_s():
    """$/Mtok = $/GPU-h × GPUs / (output tokens/s × 3,600) × 10^6; every token: × output / (input + output)."""
    for key, o in _rows("inference") + _rows("plan"):
        workload = answers()[key]["workload"]
        per_million = o["usd_per_gpu_hour"] * o["gpu_count"] / (o["output_tokens_per_s"] * 3600) * 1e6
        spread = 1.0 if not o.get("job_hours") else o["usd_per_million_output_tokens"] / per_million  # a job's floor
        assert o["usd_per_million_output_tokens"] == pytest.approx(per_million * spread, rel=1e-5, abs=1e-6), key
        assert spread >= 1 - 1e-6
        share = workload["output_len"] / (workload["input_len"] + workload["output_len"])
        assert o["usd_per_million_tokens"] == pytest.approx(o["usd_per_million_output_tokens"] * share, abs=2e-6)


def test_serving_plans_monthly_costs_are_gpu_hours_times_price():
    for key, o in _rows("plan"):
        assert o["monthly_usd_autoscaled"] == pytest.approx(o["gpu_hours_autoscaled"] * o["usd_per_gpu_hour"], rel=1e-5)
        rented = o["instances_at_peak"] * o["instance_gpus"]
        always_on = rented * o["usd_per_gpu_hour"] * HOURS_PER_MONTH
        assert o["monthly_usd_always_on"] == pytest.approx(always_on, rel=1e-5), key
        assert o["usd_per_month_at_peak"] == pytest.approx(always_on, rel=1e-5), key


def test_training_costs_follow_from_step_time_gpus_and_price():
    """$/step = step s × GPUs × $/GPU-h / 3,600; the run = GPUs × $/GPU-h × billed hours."""
    for key, o in _rows("training"):
        gpus_usd = o["gpu_count"] * o["usd_per_gpu_hour"]
        assert o["usd_per_step"] == pytest.approx(o["step_time_s"] * gpus_usd / 3600, rel=1e-5, abs=1e-6), key
        assert o["total_usd"] == pytest.approx(gpus_usd * o["billed_hours"], rel=1e-5, abs=1e-6), key
        terms = by_name(o)
        run = terms["hours of work"]["value"] + terms.get("start-up", {"value": 0.0})["value"]
        if "run time with interruptions" in terms:
            run += terms["run time with interruptions"]["value"] - terms["hours of work"]["value"]
        assert o["total_hours"] == pytest.approx(run, rel=1e-5), key


def test_disaggregated_totals_add_up_pool_by_pool():
    for key in (k for k in ANSWERS if k.startswith("disagg")):
        body = answers()[key]
        for plan in body["disaggregated"]:
            pools = plan["prefill"]["monthly_usd"] + plan["decode"]["monthly_usd"]
            assert plan["monthly_usd"] == pytest.approx(pools, rel=1e-6), key
            terms = by_name(plan)
            tokens = body["traffic"]["requests_per_day"] * 7 * HOURS_PER_MONTH / 168 * body["workload"]["output_len"]
            per_million = plan["monthly_usd"] / tokens * 1e6
            assert terms["$ per million output tokens"]["value"] == pytest.approx(per_million, rel=1e-4), key


@cache
def methodology_names() -> frozenset[str]:
    """The constants /methodology lists: the fitted efficiencies, the fixed ones and the price terms'."""
    names = {row["name"] for row in fixed_constants()}
    names |= {row["name"] for row in dataclass_fields(inference_efficiency, "InferenceEfficiency")}
    names |= {row["name"] for row in dataclass_fields(training_efficiency, "TrainingEfficiency")}
    return frozenset(names | {key.upper() for key in terms_constants()})


@pytest.mark.parametrize("key", ANSWERS)
def test_every_constant_a_term_names_is_on_the_methodology_page(key: str) -> None:
    """A code name in a term is a constant /methodology lists with its source, or a named source; a function's name
    leaking into the words (the disaggregated terms' 'prefill_parts', 'loaded_ttft_ms') fails."""
    for row in explained(answers()[key]):
        for term in row["terms"]:
            for name in IDENTIFIER.findall(term["detail"]):
                assert name in methodology_names() or name in NOT_CONSTANTS, (key, term["name"], name)
