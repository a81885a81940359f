"""The training ranking's GPU count per machine: the cheapest per step on the whole grid up to Max GPUs, even where
cost per step falls again at a larger count (room for a pipeline or ZeRO-1 layout a smaller count cannot hold)."""

import pytest

from app.scoring.training.ranking.count_search import best_estimate, count_grid, min_fitting_count
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.workload import TrainingWorkload
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
DEEPSEEK_FT = dict(model="deepseek-v3", method="full_ft", seq_len=4096, global_batch_seqs=64, total_tokens=1e9)


def _cheapest_grid_cost(gpu_id: str, w: TrainingWorkload) -> float:
    """Step seconds × GPUs at every count of the grid from the fewest that fit: the least, by brute force."""
    gpu, search = SNAPSHOT.gpus[gpu_id], LayoutSearch(SNAPSHOT.models[w.model], w)
    timer, first = GpuTimer(search, gpu), min_fitting_count(gpu, search)
    assert first is not None
    costs = []
    for n in (c for c in count_grid(w.max_gpus, gpu.scaleup_domain_gpus) if c >= first):
        layout, seconds = timer.best_layout(n)
        if layout is not None:
            costs.append(seconds * n)
    return min(costs)


@pytest.mark.parametrize(
    ("gpu_id", "w"),
    [
        ("B200", TrainingWorkload(max_gpus=512, **DEEPSEEK_FT)),
        ("H100-SXM", TrainingWorkload(max_gpus=512, **DEEPSEEK_FT)),
        ("A100-SXM-80GB", TrainingWorkload(max_gpus=512, **DEEPSEEK_FT)),
        ("H200", TrainingWorkload(model="llama-3.1-405b", method="full_ft", max_gpus=512)),
        ("A100-SXM-80GB", TrainingWorkload(model="mixtral-8x7b", method="pretrain", total_tokens=1e11)),
        ("H100-SXM", TrainingWorkload(model="llama-3.1-70b", method="pretrain", total_tokens=1e12, max_gpus=2048)),
    ],
    ids=lambda v: v if isinstance(v, str) else f"{v.model}-{v.method}-{v.max_gpus}",
)
def test_best_estimate_is_the_cheapest_count_on_the_grid(gpu_id, w):
    est = best_estimate(SNAPSHOT.gpus[gpu_id], LayoutSearch(SNAPSHOT.models[w.model], w), {})
    assert est.feasible
    # no count is cheaper by more than the 0.1 % a larger count must save to replace a smaller one
    assert est.step_time_s * est.gpu_count <= _cheapest_grid_cost(gpu_id, w) / 0.999
