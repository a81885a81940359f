"""Do the inference answers move smoothly with the user's inputs? (issue 10: "answer smoothly and plausibly")

Varies one input at a time on a fine grid for a fixed set of questions, estimates each point the way the estimate
API does (estimate_on: the GPU count asked for, TP over all of it, on the machine a single estimate assumes) and
the way a ranking does (best_on_machine, up to that many GPUs: the layout it chooses), and flags

- a jump: tokens/s per GPU, $ per million output tokens, mean TTFT, mean TPOT or the running batch moving by more
  than JUMP between neighbouring grid points, a change of layout, or an answer turning feasible or refused;
- a wrong way: more latency room (TPOT, TTFT limit) or a larger batch cap giving fewer tokens/s, a longer prompt
  giving more tokens/s at the same batch, more load (concurrency, request rate) giving a lower latency.

Each jump is then bisected toward where it moves most (refine): one that stays over JUMP at the finest interval is
a discontinuity, one that shrinks a steep but continuous curve; `cause` names the kind (a whole request more in the
batch, a layout switch, clients queueing beyond the KV-memory batch, light load, a refusal's edge). The summary
counts flags by axis and cause and lists the wrong ways and unexplained discontinuities in full.

$ per million output tokens is priced at a nominal $1 per GPU-hour: at one price it is 1e6 / (3,600 x tokens/s per
GPU), so it jumps exactly where tokens/s per GPU does; the sweep shows it so the ratio is read in the product's unit.

Not imported by the app. Run: python -m benchmarks.smoothness_sweep [--out FILE.json] [--only LABEL-SUBSTRING]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.hardware.machines import estimate_machine
from app.scoring.inference.estimates.configurations import best_on_machine, estimate_on
from app.scoring.inference.estimates.results import InferenceEstimate
from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.workload import InferenceWorkload

JUMP = 1.3  # the brief's threshold: neighbouring grid points differing by more than 1.3x are flagged
REFINE_STEPS = 14  # halvings of a flagged interval: 2 ms of TPOT limit to about 0.1 µs
SLACK = 1.001  # a wrong-way move smaller than 0.1 % is rounding, not a direction
BASE = {"input_len": 1_000, "output_len": 1_000, "ttft_ms": 3_000.0, "tpot_ms": 50.0}  # InferenceX 1k/1k, 3 s TTFT


@dataclass(frozen=True)
class Question:
    label: str
    gpu_id: str
    gpu_count: int
    model_id: str
    weight_dtype: str
    engine: str


QUESTIONS = (
    Question("DeepSeek-R1 FP8 SGLang 8xH200", "H200", 8, "deepseek-r1", "fp8", "sglang"),
    Question("DeepSeek-R1 FP8 SGLang 8xB200", "B200", 8, "deepseek-r1", "fp8", "sglang"),
    Question("gpt-oss-120b vLLM 1xH100", "H100-SXM", 1, "gpt-oss-120b", "fp4", "vllm"),
    Question("Qwen3-30B-A3B vLLM 1xH100", "H100-SXM", 1, "qwen3-30b-a3b", "bf16", "vllm"),
    Question("Mixtral 8x7B vLLM 2xH100", "H100-SXM", 2, "mixtral-8x7b", "bf16", "vllm"),
    Question("Llama 3.1 70B FP8 TRT-LLM 4xH100", "H100-SXM", 4, "llama-3.1-70b", "fp8", "trtllm"),
    Question("Llama 3.1 8B vLLM 1xL40S", "L40S", 1, "llama-3.1-8b", "bf16", "vllm"),
)


def geometric(low: float, high: float, steps_per_doubling: int = 8, integer: bool = True) -> list[float]:
    """low .. high at 2^(1/steps_per_doubling) apart (about 9 % for 8), integers made distinct."""
    count = round(math.log2(high / low) * steps_per_doubling)
    points = [low * 2 ** (i / steps_per_doubling) for i in range(count + 1)]
    return sorted({round(p) for p in points}) if integer else points


@dataclass(frozen=True)
class Axis:
    name: str  # the workload field varied
    grid: list[float]
    fixed: dict[str, Any]  # the other fields this axis sets (its scenario)
    room: bool  # a larger value is more room: tokens/s must not fall
    load: bool = False  # a larger value is more load: latencies must not fall


AXES = (
    Axis("tpot_ms", [float(v) for v in range(20, 201, 2)], {}, room=True),
    Axis("ttft_ms", geometric(200, 10_000, 32, integer=False), {}, room=True),
    Axis("input_len", geometric(128, 32_768), {}, room=False),
    Axis("output_len", geometric(64, 8_192), {}, room=False),
    Axis("concurrency", geometric(1, 512), {"scenario": "concurrency"}, room=False, load=True),
    Axis("requests_per_s", geometric(0.05, 200, integer=False), {"scenario": "request_rate"}, room=False, load=True),
    Axis("max_num_seqs", geometric(1, 1_024), {}, room=True),
)


@dataclass(frozen=True)
class Point:
    value: float
    feasible: bool
    tokens_per_s_per_gpu: float
    usd_per_m_tokens: float
    ttft_ms: float
    tpot_ms: float
    batch: int
    layout: str
    reason: str  # a refusal's reason, or what holds a feasible answer's batch (memory, an engine cap, a limit)
    light_load: bool  # meets the limits only below one request in flight (requests_in_flight)


def _point(value: float, est: InferenceEstimate) -> Point:
    rate = est.output_tokens_per_s_per_gpu if est.feasible else 0.0
    layout = (
        f"{est.gpu_count} GPU TP{est.tensor_parallel} PP{est.pipeline_parallel} "
        f"attn-{est.attention_parallel} experts-{est.expert_parallel}"
    )
    return Point(
        value,
        est.feasible,
        rate,
        1e6 / (3_600 * rate) if rate > 0 else math.inf,
        est.ttft_ms,
        est.tpot_ms,
        est.batch,
        layout,
        est.reason.partition("; ")[2] if est.feasible else est.reason[:160],
        est.requests_in_flight is not None,
    )


Estimator = Callable[[GpuSpec, int, ModelSpec, InferenceWorkload], InferenceEstimate]


def as_the_api(gpu: GpuSpec, count: int, model: ModelSpec, workload: InferenceWorkload) -> InferenceEstimate:
    return estimate_on(gpu, estimate_machine(gpu, count), count, count, 1, model, workload)


def as_a_ranking(gpu: GpuSpec, count: int, model: ModelSpec, workload: InferenceWorkload) -> InferenceEstimate:
    return best_on_machine(gpu, estimate_machine(gpu, count), model, workload.model_copy(update={"max_gpus": count}))


def point_at(q: Question, axis: Axis, estimator: Estimator, value: float, gpus: dict, models: dict) -> Point:
    fields = {**BASE, **axis.fixed, axis.name: int(value) if axis.name in _INTEGER_FIELDS else value}
    workload = InferenceWorkload(model=q.model_id, weight_dtype=q.weight_dtype, engine=q.engine, **fields)
    return _point(value, estimator(gpus[q.gpu_id], q.gpu_count, models[q.model_id], workload))


def sweep(q: Question, axis: Axis, estimator: Estimator, gpus: dict, models: dict) -> list[Point]:
    return [point_at(q, axis, estimator, value, gpus, models) for value in axis.grid]


def refine(
    q: Question, axis: Axis, estimator: Estimator, flag: dict[str, Any], gpus: dict, models: dict
) -> dict[str, Any]:
    """Bisect a jump's interval toward where the measure moves most (REFINE_STEPS halvings, or adjacent integers):
    a step that stays above JUMP there is a discontinuity (a threshold, a layout or a cap switching); one that
    shrinks with the interval is a steep but continuous curve."""
    measure, integer = flag["what"], axis.name in _INTEGER_FIELDS
    low = point_at(q, axis, estimator, flag["from"], gpus, models)
    high = point_at(q, axis, estimator, flag["to"], gpus, models)
    for _ in range(REFINE_STEPS):
        if integer and high.value - low.value <= 1:
            break
        middle = (low.value + high.value) / 2
        mid = point_at(q, axis, estimator, round(middle) if integer else middle, gpus, models)
        if not mid.feasible:
            break
        left = _ratio(getattr(low, measure), getattr(mid, measure))
        right = _ratio(getattr(mid, measure), getattr(high, measure))
        low, high = (low, mid) if left >= right else (mid, high)
    ratio = _ratio(getattr(low, measure), getattr(high, measure))
    return {
        "finest": [low.value, high.value],
        "ratio_there": ratio,
        "discontinuous": ratio > JUMP,
        "batches_there": [low.batch, high.batch],
        "layout_there": low.layout if low.layout == high.layout else f"{low.layout} -> {high.layout}",
    }


def cause(axis: Axis, flag: dict[str, Any], a: Point, b: Point) -> str:
    """What moved, in the sweep's own terms: the report reads the code behind each kind."""
    kind = flag["kind"]
    if kind == "wrong way":
        switch = " at a layout switch" if a.layout != b.layout else ""
        return f"wrong way{switch}: {flag['what']}"
    if kind in ("feasibility", "layout"):
        return kind
    if a.layout != b.layout or "->" in flag.get("layout_there", ""):
        return "at a layout switch"
    if a.light_load or b.light_load:
        return "light load (under one request in flight)"
    if "discontinuous" not in flag:  # $/M: where tokens/s per GPU jumps
        return "$/M follows tokens/s"
    if not flag["discontinuous"]:
        return "steep but continuous"
    low_batch, high_batch = flag["batches_there"]
    if abs(high_batch - low_batch) == 1:
        return "one whole request more or less in the batch"
    if axis.name == "concurrency" and "memory" in a.reason + b.reason:
        return "clients queue for a slot beyond the KV-memory batch"
    return "DISCONTINUITY, unexplained"


_INTEGER_FIELDS = ("input_len", "output_len", "concurrency", "max_num_seqs")
_MEASURES = ("tokens_per_s_per_gpu", "usd_per_m_tokens", "ttft_ms", "tpot_ms", "batch")


def _ratio(a: float, b: float) -> float:
    return max(a, b) / min(a, b) if min(a, b) > 0 else 1.0


def flags(axis: Axis, points: list[Point]) -> Iterator[dict[str, Any]]:
    for a, b in zip(points, points[1:], strict=False):
        where = {"from": a.value, "to": b.value}
        if a.feasible != b.feasible:
            yield {
                **where,
                "kind": "feasibility",
                "what": f"{a.feasible} -> {b.feasible}",
                "reason": a.reason or b.reason,
            }
            continue
        if not a.feasible:
            continue
        for measure in _MEASURES:
            x, y = getattr(a, measure), getattr(b, measure)
            if measure == "batch" and max(x, y) < 4:
                continue  # 1 -> 2 -> 3 requests are whole steps, not a jump
            if _ratio(x, y) > JUMP:
                yield {**where, "kind": "jump", "what": measure, "before": x, "after": y, "ratio": _ratio(x, y)}
        if a.layout != b.layout:
            yield {**where, "kind": "layout", "what": f"{a.layout} -> {b.layout}"}
        yield from _wrong_way(axis, a, b, where)


def _wrong_way(axis: Axis, a: Point, b: Point, where: dict[str, Any]) -> Iterator[dict[str, Any]]:
    rate_a, rate_b = a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu
    if axis.room and rate_b * SLACK < rate_a:
        yield {**where, "kind": "wrong way", "what": "more room, fewer tokens/s", "before": rate_a, "after": rate_b}
    if axis.name == "input_len" and a.batch == b.batch and rate_b > rate_a * SLACK:
        yield {**where, "kind": "wrong way", "what": "longer prompt, more tokens/s at the same batch", "batch": a.batch}
    if axis.load:
        for measure in ("ttft_ms", "tpot_ms"):
            x, y = getattr(a, measure), getattr(b, measure)
            if y * SLACK < x:
                yield {**where, "kind": "wrong way", "what": f"more load, lower {measure}", "before": x, "after": y}


def run(only: str | None = None) -> dict[str, Any]:
    gpus, models = load_gpu_specs(), load_model_specs()
    report: dict[str, Any] = {"points": 0, "questions": []}
    for q in QUESTIONS:
        if only and only.lower() not in q.label.lower():
            continue
        for mode, estimator in (("api", as_the_api), ("ranked", as_a_ranking)):
            for axis in AXES:
                points = sweep(q, axis, estimator, gpus, models)
                report["points"] += len(points)
                found = list(flags(axis, points))
                at = {p.value: p for p in points}
                for f in found:
                    if f["kind"] == "jump" and f["what"] != "usd_per_m_tokens":  # $/M jumps where tokens/s does
                        f.update(refine(q, axis, estimator, f, gpus, models))
                    f["cause"] = cause(axis, f, at[f["from"]], at[f["to"]])
                report["questions"].append(
                    {
                        "question": q.label,
                        "mode": mode,
                        "axis": axis.name,
                        "flags": found,
                        "points": [asdict(p) for p in points],
                    }
                )
    return report


def summary(report: dict[str, Any]) -> str:
    """Flags counted by axis and cause, then each one that is not a known kind of step (wrong ways, unexplained
    discontinuities) in full."""
    counts: Counter[tuple[str, str]] = Counter()
    lines = []
    for entry in report["questions"]:
        for f in entry["flags"]:
            counts[(entry["axis"], f["cause"])] += 1
            if f["cause"].startswith(("wrong way:", "DISCONTINUITY")):
                detail = {
                    k: round(v, 3) if isinstance(v, float) else v for k, v in f.items() if k not in ("from", "to")
                }
                lines.append(
                    f"{entry['question']} [{entry['mode']}] {entry['axis']} {f['from']:g}->{f['to']:g}: {detail}"
                )
    head = [f"{report['points']} points, {sum(counts.values())} flags"]
    head += [f"{n:5d}  {axis}: {what}" for (axis, what), n in sorted(counts.items())]
    return "\n".join(head + lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write every point and flag as JSON here")
    parser.add_argument("--only", help="questions whose label contains this")
    args = parser.parse_args()
    report = run(args.only)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1, default=str)
    print(summary(report))


if __name__ == "__main__":
    main()
