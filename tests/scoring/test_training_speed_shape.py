"""Shape of the training ranking's work: bounded candidate grids and evaluations, per-offer work kept
out of the search, and the pruned layout search giving exactly the full search's answers. No timings."""

import pytest

from app.scoring.training.layouts.choice import fits_at
from app.scoring.training.ranking.count_search import best_estimate, candidate_counts, min_fitting_count
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.training.ranking.rank import rank_training
from app.scoring.workload import TrainingWorkload
from benchmarks.bench_data import bench_snapshot
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates

SNAPSHOT = bench_snapshot(1)
FULL_70B = dict(model="llama-3.1-70b", method="full_ft")


def test_bench_snapshot_multiplies_offers():
    one, three = SNAPSHOT, bench_snapshot(3)
    assert len(one.offers) >= 100 and all(o.as_of for o in one.offers)
    assert len(three.offers) == 3 * len(one.offers)
    assert len({(o.provider_id, o.gpu_id, o.price_type) for o in three.offers}) == 3 * len(
        {(o.provider_id, o.gpu_id, o.price_type) for o in one.offers}
    )


@pytest.mark.parametrize("node", [1, 2, 8, 16, 72])
def test_candidate_grid_is_geometric_and_small(node):
    counts = candidate_counts(1, 65_536, node)
    assert len(counts) <= 60
    assert all(2**k in counts for k in range(17))
    step = max(node, 8)
    assert all(k * step in counts for k in range(1, 9))  # every multiple up to 8 nodes, as before
    big = [c for c in counts if c >= 8 * step]
    assert all(b / a <= 1.26 for a, b in zip(big, big[1:], strict=False))  # then at most 25 % apart


@pytest.mark.parametrize("framework", ["auto", "megatron"])
def test_huge_max_gpus_stays_bounded(framework):
    w = TrainingWorkload(max_gpus=65_536, framework=framework, **FULL_70B)
    ranking = rank_training(w, SNAPSHOT, SNAPSHOT.models[w.model])
    gpu_types = len({o.gpu_id for o in SNAPSHOT.offers})
    assert ranking.configurations_evaluated <= 12 * gpu_types
    search = LayoutSearch(SNAPSHOT.models[w.model], w)
    for gpu_id in sorted({o.gpu_id for o in SNAPSHOT.offers}):
        best_estimate(SNAPSHOT.gpus[gpu_id], search, {})
    # memory evaluations, shared by all GPU types: partial recompute's bisection takes ~7,300 on Megatron and auto
    # (3,400 on auto before it recomputed some layers)
    assert search.layouts_sized <= 8_000


def test_more_offers_same_search():
    w = TrainingWorkload(max_gpus=256, **FULL_70B)
    model = SNAPSHOT.models[w.model]
    small, big = rank_training(w, SNAPSHOT, model), rank_training(w, bench_snapshot(100), model)
    assert len(big.options) == 100 * len(small.options)
    assert big.configurations_evaluated == small.configurations_evaluated
    chosen = {(o.gpu_id, o.gpu_count, o.layout, o.step_time_s) for o in small.options}
    assert {(o.gpu_id, o.gpu_count, o.layout, o.step_time_s) for o in big.options} == chosen


WORKLOADS = [
    TrainingWorkload(),
    TrainingWorkload(max_gpus=256, **FULL_70B),
    TrainingWorkload(model="llama-3.1-70b", method="qlora", seq_len=16_384),
    TrainingWorkload(model="mixtral-8x7b", method="pretrain", precision="fp8", framework="megatron"),
]


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: f"{w.model}-{w.method}")
def test_pruned_search_matches_full_search(w):
    model = SNAPSHOT.models[w.model]
    gpus = [SNAPSHOT.gpus[g] for g in ("H100-SXM", "A100-SXM-40GB", "L40S", "RTX-4090", "MI300X", "GB200", "T4")]
    assert_sweep_matches_single_estimates(model, w, gpus, (1, 2, 4, 8, 16, 24, 64, 72, 96, 256))


def _linear_min_count(gpu, model, w):
    """The count the pre-grid ranking found: every power of two and node multiple, in order."""
    node = max(gpu.scaleup_domain_gpus, 8)
    powers = {2**k for k in range(17) if 2**k <= w.max_gpus}
    counts = sorted(powers | set(range(node, w.max_gpus + 1, node)))
    return next((n for n in counts if fits_at(gpu, n, model, w)), None)


@pytest.mark.parametrize(
    "w",
    [
        TrainingWorkload(max_gpus=512, **FULL_70B),
        TrainingWorkload(model="llama-3.1-405b", method="full_ft", max_gpus=1024),
    ],
    ids=["70b", "405b"],
)
def test_fewest_gpus_same_as_linear_walk(w):
    model = SNAPSHOT.models[w.model]
    search = LayoutSearch(model, w)
    for gpu_id in ("H100-SXM", "A100-SXM-40GB", "L40S", "MI300X", "GB200", "TPU-V5E"):
        gpu = SNAPSHOT.gpus[gpu_id]
        assert min_fitting_count(gpu, search) == _linear_min_count(gpu, model, w), gpu_id
