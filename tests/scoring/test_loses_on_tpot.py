"""estimate.loses_on_tpot_unsearched reads a layout as _solve does before its search (found by speed23): where it says
the layout loses on its p99 TPOT floor against a bar, or is refused first, the whole solve skips or refuses it; where
it does not (attention solved both ways aside: no bar there), the solve neither skips nor refuses it before the
search, on every single-node layout of the seeded
machines, at request rates one copy and several copies share, and at bars around each layout's own p99 TPOT."""

from app.scoring.hardware.machines import machine_gpu, machine_of
from app.scoring.inference.estimates import configurations, estimate
from app.scoring.inference.estimates.results import InferenceEstimate, Solution
from app.scoring.inference.explanation.terms import p99_latencies_ms
from app.scoring.inference.step.memory import kv_replicated_under_tp
from app.scoring.workload import InferenceWorkload
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
RATES = [
    {"model": "llama-3.1-8b", "scenario": "request_rate", "requests_per_s": 0.0625, "input_len": 2_003},
    {"model": "llama-3.1-70b", "scenario": "request_rate", "requests_per_s": 2.5, "weight_dtype": "fp8"},
    {"model": "qwen3-30b-a3b", "scenario": "request_rate", "requests_per_s": 3.0},
    {"model": "deepseek-r1", "scenario": "request_rate", "requests_per_s": 0.05, "weight_dtype": "fp8"},
]


def test_loses_on_tpot_says_what_the_solve_does() -> None:
    lost_seen, kept_seen = 0, 0
    for question in RATES:
        workload = InferenceWorkload.model_validate(question)
        model, reads = SNAPSHOT.models[workload.model], estimate.workload_reads(workload)
        for offer in SNAPSHOT.offers[::4]:
            gpu = SNAPSHOT.gpus[offer.gpu_id]
            machine = machine_of(offer, gpu)
            wired = machine_gpu(gpu, machine)
            for count, tp, pp in configurations.single_node_layouts(machine, workload.max_gpus, model.layers):
                whole = estimate.solve_unless_outclassed(wired, count, model, workload, tp, pp)
                tpot = p99_latencies_ms(whole.point, whole.efficiency, None)[1] if isinstance(whole, Solution) else 20.0
                for bar in (tpot * 0.5, tpot * 0.999, tpot * 1.001, tpot * 3):
                    lost = estimate.loses_on_tpot_unsearched(wired, count, model, workload, tp, pp, 0.0, bar, reads)
                    solved = estimate.solve_unless_outclassed(
                        wired, count, model, workload, tp, pp, tpot_p99_bar_ms=bar
                    )
                    refused_first = isinstance(solved, InferenceEstimate) and solved.keeps_up_with_per_s is None
                    where = (question["model"], offer.provider_id, count, tp, pp, bar)
                    if lost:
                        lost_seen += 1
                        assert solved is None or refused_first, where
                    elif not (reads.tries_dp and kv_replicated_under_tp(model, tp)):  # both ways: no bar, no claim
                        kept_seen += 1
                        assert solved is not None and not refused_first, where
    assert lost_seen > 50 and kept_seen > 50
