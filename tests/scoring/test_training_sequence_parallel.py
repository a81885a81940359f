"""DeepSpeed-Ulysses sequence parallelism in the product's layout search: HF-class (data-parallel-only) stacks
split a sequence beside their other splits (beyond the NVLink domain only when nothing else fits); the single
estimate and the ranking's sweep agree bit for bit."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.training import DEFAULT_TRAINING_EFFICIENCY as E
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.choice import choose_layout, min_gpus_to_fit
from app.scoring.training.layouts.fit_search import first_fit
from app.scoring.training.layouts.search_space import sequence_degrees
from app.scoring.training.ranking.count_search import min_fitting_count
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.workload import TrainingWorkload
from tests.scoring.layout_checks import assert_sweep_matches_single_estimates

GPUS = load_gpu_specs()
MODELS = load_model_specs()


def hf(model: str = "llama-3.1-8b", seq_len: int = 131_072, **kw) -> TrainingWorkload:
    return TrainingWorkload(model=model, method="full_ft", seq_len=seq_len, framework="hf", **kw)


LONG_8B = hf()  # 8B full fine-tune at 128K tokens: ZeRO-3 shards the states, not the activations
LONG_70B = hf("llama-3.1-70b", 32_768)


def test_long_context_hf_job_fits_only_by_splitting_the_sequence():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    assert first_fit(gpu, 8, model, LONG_8B, 1, 1, E) is None  # SP 1: no recompute/ZeRO level fits 80 GB
    est = estimate_training(gpu, 8, model, LONG_8B)
    assert est.feasible and est.layout is not None
    layout = est.layout
    assert (layout.tensor_parallel, layout.pipeline_parallel, layout.zero_stage) == (1, 1, 3)
    # the smallest degree that fits, and the fastest: at SP4 an unfused loss's logits alone (32K tokens x 128K
    # vocabulary x 12 B) take 50 GB of the 72 GB usable
    assert layout.sequence_parallel == 8
    assert first_fit(gpu, 8, model, LONG_8B, 1, 1, E, 4) is None
    assert est.layout_text == "SP8 FSDP ×8 (DP1 × SP8), full recompute"
    all_to_all = next(t for t in est.terms if "Ulysses sequence parallelism (SP) all-to-all" in t.name)
    assert all_to_all.value > 0 and "SP8" in all_to_all.detail
    assert 1_000 < est.tokens_per_s_per_gpu < 4_000


def test_70b_at_32k_on_32_a100s_fits_with_sequence_parallelism():
    gpu, model = GPUS["A100-SXM-80GB"], MODELS["llama-3.1-70b"]
    assert first_fit(gpu, 32, model, LONG_70B, 1, 1, E) is None
    est = estimate_training(gpu, 32, model, LONG_70B)
    assert est.feasible and est.layout is not None and est.layout.sequence_parallel == 4
    assert min_gpus_to_fit(gpu, model, LONG_70B) == 32


def test_fewest_gpus_for_a_long_context_hf_job_is_finite_and_consistent():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    assert min_gpus_to_fit(gpu, model, LONG_8B) == 8
    assert not estimate_training(gpu, 4, model, LONG_8B).feasible
    assert min_fitting_count(gpu, LayoutSearch(model, LONG_8B)) == 8  # the ranking finds the same count


def test_no_fit_reason_names_the_most_frugal_sequence_split_tried():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    est = estimate_training(gpu, 4, model, LONG_8B)
    assert not est.feasible and "4×H100-SXM with SP4 FSDP ×4 (DP1 × SP4), full recompute" in est.reason
    big = estimate_training(gpu, 8, MODELS["llama-3.1-405b"], hf("llama-3.1-405b", 4096))
    assert not big.feasible and "SP8 FSDP ×8" in big.reason


def test_sequence_split_leaves_the_scale_up_domain_only_when_nothing_fits_inside():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    assert sequence_degrees(gpu, 32, model, "hf") == ((2, 4, 8), (16, 32))
    w = hf(seq_len=524_288)
    assert first_fit(gpu, 32, model, w, 1, 1, E, 8) is None  # SP 8 inside one NVLink domain is not enough
    est = estimate_training(gpu, 32, model, w)
    assert est.feasible and est.layout is not None and est.layout.sequence_parallel > 8
    # at 128K, SP inside the domain fits: a wider split (slower all-to-alls over the NICs) is not offered
    assert estimate_training(gpu, 32, model, LONG_8B).layout.sequence_parallel <= 8


def test_degrees_divide_the_gpu_count_and_the_attention_heads():
    gpu = GPUS["H100-SXM"]
    assert MODELS["qwen2.5-7b"].num_attention_heads == 28
    assert sequence_degrees(gpu, 8, MODELS["qwen2.5-7b"], "hf") == ((2, 4), ())
    assert sequence_degrees(gpu, 24, MODELS["llama-3.1-8b"], "hf") == ((2, 4, 8), ())
    assert sequence_degrees(gpu, 1, MODELS["llama-3.1-8b"], "hf") == ((), ())
    assert sequence_degrees(GPUS["L40S"], 16, MODELS["llama-3.1-8b"], "hf") == ((2, 4, 8), (16,))  # 8-GPU servers


@pytest.mark.parametrize(
    ("w", "n"),
    [(hf(seq_len=4096), 8), (hf("llama-3.1-70b", 4096), 32), (TrainingWorkload(method="lora", framework="hf"), 8)],
    ids=["8b-4k", "70b-4k", "8b-lora"],
)
def test_a_job_that_fits_without_splitting_the_sequence_keeps_sp_1(w, n):
    """A short job whose SP1 fit is the fastest keeps SP 1 (8B at 4K on 16 L40S aside: below). 70B at 4K on 32
    A100s runs SP8 without recompute (27.9 s) over SP1 recomputing every layer (36.8 s): its FSDP gathers, 8 times
    the micro-batches, 4.5 TB a GPU, hide under the compute at 8 HDR NICs a node (communication.dp_bandwidth_gbs)."""
    model = MODELS[w.model]
    for gpu_id in ("H100-SXM", "A100-SXM-80GB", "L40S"):
        if gpu_id == "L40S" and w == hf(seq_len=4096):
            continue
        if gpu_id == "A100-SXM-80GB" and w.model == "llama-3.1-70b":
            continue
        est = estimate_training(GPUS[gpu_id], 2 * n if gpu_id == "L40S" else n, model, w)
        assert est.feasible and est.layout is not None and est.layout.sequence_parallel == 1, gpu_id
        assert not any("Ulysses sequence parallelism (SP) all-to-all" in t.name for t in est.terms)


def test_a_short_job_splits_its_sequence_where_that_is_faster_than_recomputing():
    """Ulysses competes with recompute on speed inside the scale-up domain (choice.choose_layout). 8B full fine-tune
    at 4K on 16 L40S (48 GB): HF's eager layer (peak2) no longer fits SP1 without recompute (the fused count did, so
    this job kept SP 1 before), and SP2 without recompute is timed faster than SP1 recomputing every layer (found by
    peak3)."""
    gpu, model, w = GPUS["L40S"], MODELS["llama-3.1-8b"], hf(seq_len=4096)
    sp1 = first_fit(gpu, 16, model, w, 1, 1, E)
    assert sp1 is not None and sp1.recompute == "full"
    est = estimate_training(gpu, 16, model, w)
    assert est.layout is not None and (est.layout.sequence_parallel, est.layout.recompute) == (2, "none")
    assert est.step_time_s < estimate_training(gpu, 16, model, w, layout=sp1).step_time_s


@pytest.mark.parametrize("framework", ["llm-foundry", "pytorch"])
def test_stacks_without_a_sequence_split_never_split_the_sequence(framework):
    """Neither Ulysses nor ring CP (Megatron-class, torchtitan, auto: test_training_context_parallel)."""
    model = MODELS["llama-3.1-8b"]
    w = TrainingWorkload(model="llama-3.1-8b", method="full_ft", seq_len=131_072, framework=framework)
    search = LayoutSearch(model, w)
    for gpu_id in ("H100-SXM", "A100-SXM-80GB", "L40S"):
        gpu, timer = GPUS[gpu_id], GpuTimer(search, GPUS[gpu_id])
        assert sequence_degrees(gpu, 64, model, framework) == ((), ())
        for n in (2, 4, 8, 16, 64):
            layout = choose_layout(gpu, n, model, w)
            assert layout is None or layout.sequence_parallel == 1, (gpu_id, n)
            assert timer.best_layout(n)[0] == layout


HF_JOBS = [
    LONG_8B,
    LONG_70B,
    hf(seq_len=524_288),
    hf(seq_len=4096),
    TrainingWorkload(model="llama-3.1-70b", method="qlora", seq_len=65_536, framework="hf"),
    TrainingWorkload(model="qwen2.5-7b", method="lora", seq_len=262_144, framework="hf"),
    TrainingWorkload(model="llama-3.1-70b", method="qlora", seq_len=131_072),  # auto runs QLoRA's Ulysses as hf
]


@pytest.mark.parametrize("w", HF_JOBS, ids=lambda w: f"{w.model}-{w.method}-{w.seq_len}")
def test_ranking_sweep_matches_the_single_estimate(w):
    model = MODELS[w.model]
    gpus = [GPUS[g] for g in ("H100-SXM", "A100-SXM-80GB", "L40S", "MI300X", "GB200")]
    assert_sweep_matches_single_estimates(model, w, gpus, (1, 2, 4, 8, 16, 24, 32, 64, 72, 128))
    est = estimate_training(GPUS["H100-SXM"], 8, model, w)
    layout, seconds = GpuTimer(LayoutSearch(model, w), GPUS["H100-SXM"]).best_layout(8)
    assert (layout, seconds) == ((est.layout, est.step_time_s) if est.feasible else (None, float("inf")))


def test_sweep_exercises_sequence_splits_inside_and_beyond_the_domain():
    """Guard for the agreement test above: its jobs do reach SP > 1, both inside and beyond the domain."""
    seen = set()
    for w in HF_JOBS:
        search = LayoutSearch(MODELS[w.model], w)
        timer = GpuTimer(search, GPUS["H100-SXM"])
        for n in (8, 32):
            layout = timer.best_layout(n)[0]
            if layout is not None:
                seen.add(layout.sequence_parallel)
    assert 1 in seen and any(1 < sp <= 8 for sp in seen) and any(sp > 8 for sp in seen)


def test_ranking_offers_long_context_hf_jobs_with_their_sequence_split():
    from app.scoring.specs import CatalogSnapshot, Offer
    from app.scoring.training.ranking.rank import rank_training

    offers = tuple(Offer("p", "P", gpu_id, 8, "on_demand", 2.0) for gpu_id in ("H100-SXM", "A100-SXM-80GB"))
    w = hf(max_gpus=64)
    ranking = rank_training(w, CatalogSnapshot(gpus=GPUS, models=MODELS, offers=offers), MODELS[w.model])
    feasible = [o for o in ranking.options if o.feasible]
    assert {o.gpu_id for o in feasible} == {"H100-SXM", "A100-SXM-80GB"}  # before SP: none fitted at any count
    for o in feasible:
        assert "SP" in o.layout
        est = estimate_training(GPUS[o.gpu_id], o.gpu_count, MODELS[w.model], w)
        assert (est.layout_text, est.step_time_s) == (o.layout, o.step_time_s)


def test_hf_splits_the_sequence_where_it_beats_recompute():
    """Ulysses was tried only when nothing else fit, so 8B full FT on 8xH100 ran seq 24,576 as FSDP with full
    recompute (4,384 tok/s per GPU) and the longer seq 32,768 faster, as SP4 without recompute (5,233): speed rose
    with length. SP degrees inside the NVLink domain now compete with the other splits."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    speeds = []
    for seq_len in (8192, 16_384, 24_576, 32_768, 65_536):
        est = estimate_training(gpu, 8, model, hf(seq_len=seq_len))
        assert est.feasible and est.layout is not None
        speeds.append(est.tokens_per_s_per_gpu)
        if seq_len == 24_576:
            assert est.layout.sequence_parallel > 1 and est.layout.recompute == "none"
    assert speeds == sorted(speeds, reverse=True)


@pytest.mark.parametrize("seq_len", [16_384, 24_576])
def test_sweep_matches_single_estimate_where_sp_competes(seq_len):
    w = hf(seq_len=seq_len)
    gpus = [GPUS[g] for g in ("H100-SXM", "A100-SXM-80GB", "L40S", "MI300X", "GB200")]
    assert_sweep_matches_single_estimates(MODELS[w.model], w, gpus, (1, 2, 4, 8, 16, 24, 32, 64, 72, 128))
