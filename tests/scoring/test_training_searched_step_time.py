"""A training ranking hands its estimates what its searches worked out, so nothing is worked out twice: each slot's
searched step time (count_search.TimedCount.step_s) and its kept layout's memory (LayoutSearch.layout_memory), read as
a fresh estimate's, terms included; and whether other settings fit where nothing does (LayoutSearch.fits_with), read
as fits_at says it."""

import pytest

from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import fits_at
from app.scoring.training.layouts.frugal_settings import FRUGAL_SETTINGS, settings_that_fit
from app.scoring.training.ranking.count_search import best_estimate
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.workload import TrainingWorkload
from benchmarks.bench_data import bench_snapshot

SNAPSHOT = bench_snapshot(1)
WORKLOADS = [
    TrainingWorkload(),
    TrainingWorkload(model="llama-3.1-70b", method="full_ft", max_gpus=64),
    TrainingWorkload(model="llama-3.1-70b", method="qlora", framework="hf", seq_len=16384),
    TrainingWorkload(model="mixtral-8x7b", method="full_ft", framework="megatron", max_gpus=64),
    TrainingWorkload(model="llama-3.1-8b", method="full_ft", framework="torchtitan", seq_len=65536, max_gpus=32),
    TrainingWorkload(model="deepseek-v3", method="lora", max_gpus=256),
]


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: f"{w.model}-{w.method}-{w.framework}-{w.seq_len}")
def test_searched_step_time_and_memory_are_the_layouts_own(w):
    """Each GPU's kept layout and count as a fresh estimate has them; the memory read from one search that every GPU
    shares (LayoutSearch.layout_memory), as a ranking's machines share it."""
    model, search = SNAPSHOT.models[w.model], LayoutSearch(SNAPSHOT.models[w.model], w)
    for gpu_id in ("H100-SXM", "H200", "A100-SXM-80GB", "B200"):
        gpu = SNAPSHOT.gpus[gpu_id]
        searched = best_estimate(gpu, search, {})
        if searched.layout is not None:
            _same_estimate(searched, estimate_training(gpu, searched.gpu_count, model, w, layout=searched.layout))


def _same_estimate(searched, fresh):
    assert (searched.memory_per_gpu_gb, searched.memory_breakdown_gb, searched.memory_at_peak_gb) == (
        fresh.memory_per_gpu_gb,
        fresh.memory_breakdown_gb,
        fresh.memory_at_peak_gb,
    )
    assert (searched.fits, searched.reason) == (fresh.fits, fresh.reason)
    assert searched.step_time_s == fresh.step_time_s
    assert (searched.tokens_per_s_per_gpu, searched.mfu, searched.band) == (
        fresh.tokens_per_s_per_gpu,
        fresh.mfu,
        fresh.band,
    )
    assert list(searched.terms) == list(fresh.terms)


NO_FIT = [  # the first four fit with 8-bit Adam, host offload, or 8-bit Adam and a fused loss; the rest with nothing
    ("H100-SXM", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft")),
    ("L40S", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft")),
    ("B200", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=65536)),
    ("A100-SXM-80GB", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=8192)),
    ("T4", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft")),
    ("L4", 1, TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=8192)),
    ("RTX-4090", 1, TrainingWorkload(model="llama-3.1-8b", method="lora", seq_len=32768)),
    ("A10G", 4, TrainingWorkload(model="llama-3.1-70b", method="lora", framework="hf")),
    ("L40S", 2, TrainingWorkload(model="mixtral-8x7b", method="full_ft", framework="megatron")),
    ("H100-SXM", 1, TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework="pytorch")),
]


@pytest.mark.parametrize(("gpu_id", "count", "w"), NO_FIT, ids=lambda v: getattr(v, "model", v))
def test_a_rankings_advice_on_settings_is_fits_at_s(gpu_id, count, w):
    """A no-fit reason's advice (settings_that_fit) read from the ranking's memoised searches (LayoutSearch.fits_with)
    says what fits_at of each changed workload says."""
    gpu, model = SNAPSHOT.gpus[gpu_id], SNAPSHOT.models[w.model]
    search = LayoutSearch(model, w)
    e = search.e
    for update, _ in FRUGAL_SETTINGS:
        assert search.fits_with(gpu, count, update) == fits_at(gpu, count, model, w.model_copy(update=update), e)
    memoised = settings_that_fit(gpu, count, model, w, e, lambda update: search.fits_with(gpu, count, update))
    assert memoised == settings_that_fit(gpu, count, model, w, e)
