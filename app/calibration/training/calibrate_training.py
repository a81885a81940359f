"""Fit the training efficiency constants to a training_cases.csv file and print the summary.

Usage: python -m app.calibration.training.calibrate_training ../shared/validation/training_cases.csv

Deterministic coordinate descent on the mean absolute log error of tokens/s/GPU from the research
defaults (START); layouts are fixed from a first pass with the research defaults.
The committed constants in app/scoring/efficiency/training.py are what this prints.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections import defaultdict
from dataclasses import fields, replace

from app.calibration.incremental import CaseErrors, derive
from app.calibration.training.training_notes import (
    eager_changes,
    era_efficiency,
    execution_from_notes,
    ran_before_flash_attention_2,
    ran_eager,
    stated_overlap_changes,
)
from app.calibration.training.validate_training import predict_estimate, predict_training_case
from app.calibration.validation.case_files import read_cases
from app.calibration.validation.cases import measured_value
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency import training as eff
from app.scoring.training.layouts.lora_adapters import lora_adapter_params
from app.scoring.training.step.mfu import gpu_family, peak_tflops
from app.scoring.training.step.step_time import workload_step_time

# Research defaults (training_estimators.md §6.5) the fit starts from.
START = dict(
    mfu_ampere_16=0.50,
    mfu_hopper_16=0.40,
    mfu_blackwell_16=0.38,
    mfu_cdna_16=0.30,
    mfu_cdna4_16=0.33,
    fp8_speedup=1.35,
    fp8_speedup_torchao=1.25,
    # research §6.5 gives 0.85, back-tested with selective recompute at +0.2 N; torchtitan's op-level SAC adds
    # ~0.73 N (step_time.op_sac_recomputed_share), so the same rows read 0.85 × 60.5 / 56.2 ≈ 0.92 (Llama-3-8B, 8k)
    fw_torchtitan_16=0.92,
    fw_pytorch=1.0,
    fw_hf=0.70,
    width_half_hidden=256.0,
    width_exponent=1.0,
    attn_efficiency=0.8,
    attn_efficiency_hopper=0.7,  # FlashAttention-3: ~75 % of H100 peak forward, ~55 % backward vs GEMMs ~80 %
    tp_comm_exposed=0.5,
    dp_overlap=0.8,
    lora_factor=1.0,
    pp_interleave_default=2.0,
    step_latency_s_per_layer=0.001,
)
# Fitted constants stay inside these ranges; others fall back to _clip's defaults: MFU bases 0.05-0.7 (best
# published end-to-end MFU is ~0.55-0.6: Megatron A100 56 %, MPT/LLM Foundry ~0.6), factors 0.05-1.1.
BOUNDS = dict(
    width_exponent=(0.3, 4.0),
    attn_efficiency=(0.2, 1.0),
    attn_efficiency_hopper=(0.2, 1.0),
    tp_comm_exposed=(0.0, 1.0),
    dp_overlap=(0.0, 1.0),
    pp_interleave_default=(1.0, 8.0),
    width_half_hidden=(16.0, 4096.0),
    # FP8 over BF16 on the same run: TransformerEngine/NeMo publish 1.3-1.5×, torchao float8 1.2-1.5× (MXFP8 on
    # B200 1.2-1.3×); bounded to 1.05-1.7 so that a held-out generation inherits a published speedup.
    fp8_speedup=(1.05, 1.7),
    # ~10 µs per launch/sync × up to ~500 per layer per step (fwd + bwd + optimizer): 0-5 ms per layer.
    step_latency_s_per_layer=(0.0, 0.005),
    fp8_speedup_torchao=(1.05, 1.7),
)
STEPS = (0.3, 0.1, 0.03, 0.01, 0.003)


# Run conditions the estimator cannot price, stated in the notes: such rows are still predicted (and scored),
# but they do not move the constants (a GPU capped at an unstated power limit runs below its spec-sheet peaks,
# which would drag its whole generation's MFU down). Fitting torchao MXFP8's five power-limited B200 rows too takes
# mfu_blackwell_16 0.481 -> 0.286 and training LOSO 12.93 -> 14.03 % (accuracy_header.md, trainbase).
UNFITTED_CONDITIONS = ("power limit not stated",)


def unfitted_condition(row: dict[str, str]) -> str | None:
    lowered = (row.get("notes") or "").lower()
    return next((c for c in UNFITTED_CONDITIONS if c in lowered), None)


def fit_cases(rows, gpus, models, skipped: list[str] | None = None) -> list[tuple]:
    """Per tokens/s row: the fixed inputs of step_time; a row the estimator does not model is left out, and
    `skipped` (when given) gets "case_id: why" for it.

    Layouts are chosen with the research defaults the fit starts from, not with the committed constants:
    choosing them with the constants being fitted made the refit a two-cycle (layouts flip, constants follow).
    """
    start = replace(eff.DEFAULT_TRAINING_EFFICIENCY, **START)
    cases = []
    for row in rows:
        measured = measured_value(row.get("value"))
        if row["metric"] != "tokens_s_per_gpu" or unfitted_condition(row) or measured is None:
            continue
        result = predict_estimate(row, gpus, models, start)
        if isinstance(result, str):
            if skipped is not None:
                skipped.append(f"{row.get('case_id', '')}: {result}")
            continue
        est, gpu, model, w = result
        peak, pclass, _ = peak_tflops(gpu, w.precision)
        cases.append(
            (
                measured,
                gpu,
                est.gpu_count,
                model,
                w,
                est.layout,
                peak,
                pclass,
                lora_adapter_params(model, w.lora_rank),
                row.get("source", ""),
                execution_from_notes(row),
                era_efficiency(row, start) is not start,
                stated_overlap_changes(row),
                ran_eager(row),
                ran_before_flash_attention_2(row, gpu_family(gpu)),
            )
        )
    return cases


def case_error(case: tuple, e: eff.TrainingEfficiency) -> float:
    """|log(predicted / measured)| of one case's tokens/s."""
    measured, gpu, n, model, w, layout, peak, pclass, adapters, _, (span, capacity), fa2, stated, eager, pre_fa2 = case
    era = derive(e, {"attn_efficiency": e.attn_efficiency / e.attn_fa2_ampere_speedup}) if pre_fa2 else e
    era = derive(era, era.flash_attention_2_changes()) if fa2 else era
    era = derive(era, stated) if stated else era
    era = derive(era, eager_changes(era, w.framework)) if eager else era
    st = workload_step_time(era, gpu, n, model, w, layout, peak, pclass, adapters, span, capacity)
    tokens = w.global_batch_seqs * w.seq_len / st.total_s / n
    return abs(math.log(tokens / measured))


def _source(case: tuple) -> str:
    return case[9]


def loss(e: eff.TrainingEfficiency, cases) -> float:
    """Mean |log error| of tokens/s, each publication weighted equally (llm-foundry is 60 % of the rows)."""
    return CaseErrors(cases, case_error, _source, e).mean() + prior_penalty(e)


# Regime constants (GPU family, framework, FP8 speedup, LoRA) are shrunk toward their sourced research default
# (START) by a ridge on log(value / default): a regime seen by one publication moves only as far as that
# publication's evidence outweighs the prior (at this weight, one row of a 14-publication file moves a
# constant by roughly half its log error).
PRIOR_WEIGHT = 0.01
PRIOR_PREFIXES = ("mfu_", "fw_", "fp8_speedup", "lora_factor", "attn_efficiency_hopper")


def prior_penalty(e: eff.TrainingEfficiency) -> float:
    return PRIOR_WEIGHT * sum(
        math.log(getattr(e, name) / START[name]) ** 2 for name in START if name.startswith(PRIOR_PREFIXES)
    )


def _clip(name: str, value: float) -> float:
    low, high = BOUNDS.get(name, (0.05, 0.7 if name.startswith("mfu") else 1.1))
    return min(high, max(low, value))


def _descend(e: eff.TrainingEfficiency, cases, rounds: int) -> tuple[eff.TrainingEfficiency, float]:
    """Coordinate descent from `e`: each constant ×(1 ± step), steps shrinking, until no move improves. Each
    trial recomputes only the cases that read the moved constant (the same loss as a full recompute)."""
    errors = CaseErrors(cases, case_error, _source, e)
    best = errors.mean() + prior_penalty(e)
    for step in STEPS:
        for _ in range(rounds):
            improved = False
            for name in eff.FITTED:
                for sign in (1, -1):
                    value = _clip(name, getattr(e, name) * (1 + sign * step))
                    if value == getattr(e, name):  # clipped back to where it is: the same point, no better
                        continue
                    trial = replace(e, **{name: value})
                    data, changed = errors.trial(trial, name)
                    trial_loss = data + prior_penalty(trial)
                    if trial_loss < best - 1e-9:
                        errors.accept(changed)
                        e, best, improved = trial, trial_loss, True
            if not improved:
                break
    return e, best


# The loss is rugged (layouts, bounds, max() terms) and its near-optimal valleys lie close together. On the
# 2026-12-07 file, 250 descents from seeded starts around the defaults (each constant × e^U(-0.5, 0.5), seeds 0-4)
# never ended below the descent from the defaults (best 0.13003 against 0.13001). In the LOSO folds they found
# valleys up to 0.003 lower that moved the held-out headline with the seed (best of 7: 13.5-15.0 %, mean 14.1; of 50:
# 13.5-13.9 %) without improving it: 13.6 % from the defaults alone, within ±25 % 76.3 % against 75.4 % (7 restarts).
# So the fit is one descent from the sourced research defaults: deterministic, no seed, the same constants.
def fit(cases, rounds: int = 4) -> eff.TrainingEfficiency:
    e, _ = _descend(replace(eff.DEFAULT_TRAINING_EFFICIENCY, **START), cases, rounds)
    return replace(e, **{n: round(getattr(e, n), 4) for n in eff.FITTED})


def _summary(label: str, errors: list[float]) -> str:
    absolute = sorted(abs(x) for x in errors)
    if not absolute:
        return f"{label}: no covered cases"
    p90 = absolute[min(len(absolute) - 1, int(0.9 * len(absolute)))]
    within = sum(x <= 25 for x in absolute) / len(absolute)
    return (
        f"{label}: n={len(errors)} median|err|={statistics.median(absolute):.1f}% p90={p90:.1f}% "
        f"within±25%={within:.1%} signed median={statistics.median(errors):+.1f}%"
    )


def report(rows, gpus, models, e: eff.TrainingEfficiency) -> dict[str, list[float]]:
    preds = [predict_training_case(r, gpus, models, e) for r in rows]
    covered = [p for p in preds if p.covered]
    print(f"cases={len(preds)} covered={len(covered)}")
    groups: dict[str, list[float]] = defaultdict(list)
    for p in covered:
        error = p.pct_error
        assert error is not None  # covered predictions always carry their error
        groups[f"metric {p.metric}"].append(error)
        if p.metric == "tokens_s_per_gpu":
            groups[f"  source {p.source}"].append(error)
            groups[f"  gpu {p.gpu}"].append(error)
    for label in sorted(groups, key=lambda k: (k.startswith("  "), k)):
        print(_summary(label, groups[label]))
    for p in preds:
        if not p.covered:
            print(f"not covered {p.case_id}: {p.reason}")
    return groups


def band_quantiles(groups: dict[str, list[float]]) -> tuple[float, float]:
    """P10/P90 of measured/predicted over tokens/s rows (the calibrated band)."""
    ratios = sorted(1 / (1 + x / 100) for x in groups.get("metric tokens_s_per_gpu", []))
    if not ratios:
        return (1.0, 1.0)
    return ratios[int(0.1 * len(ratios))], ratios[int(0.9 * len(ratios)) - 1]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else "../shared/validation/training_cases.csv"
    rows, gpus, models = read_cases(path), load_gpu_specs(), load_model_specs()
    skipped: list[str] = []
    cases = fit_cases(rows, gpus, models, skipped)
    fitted = fit(cases)
    print(f"fitted on {len(cases)} tokens/s rows; mean |log error| {loss(fitted, cases):.4f}")
    for line in skipped:
        print(f"  left out of the fit: {line}")
    for f in fields(fitted):
        if f.name in eff.FITTED:
            print(f"  {f.name} = {getattr(fitted, f.name)}")
    groups = report(rows, gpus, models, fitted)
    low, high = band_quantiles(groups)
    print(
        f"in-sample band (P10, P90 of measured/predicted): ({low:.2f}, {high:.2f}); "
        "the product's bands are LOSO, per regime (python -m app.calibration.held_out.bands)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
