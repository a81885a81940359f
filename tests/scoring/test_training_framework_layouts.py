"""A layout search ranks only the layouts a stack can run: LLM Foundry, plain PyTorch/torchtune and HF Trainer split a
job by DDP, ZeRO and FSDP alone; torchtitan, Megatron-LM and NeMo may add tensor and pipeline parallelism."""

import pytest

from app.calibration.training.validate_training import read_row
from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.training.estimate import estimate_training
from app.scoring.training.layouts.search_space import layout_families
from app.scoring.workload import TrainingWorkload

GPUS = load_gpu_specs()
MODELS = load_model_specs()


@pytest.mark.parametrize("framework", ["llm-foundry", "pytorch", "hf"])
def test_stacks_without_tensor_or_pipeline_parallelism_get_no_such_layout(framework):
    """LLM Foundry's 13B on 64 H100s was timed as TP2 PP2, a split Composer's FSDP cannot run."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    assert layout_families(gpu, 64, model, framework, "full_ft") == [(1, 1)]
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", framework=framework, global_batch_seqs=256)
    est = estimate_training(gpu, 64, model, w)
    assert est.layout is not None and est.layout.tensor_parallel == est.layout.pipeline_parallel == 1
    assert "TP" not in est.layout_text and "PP" not in est.layout_text


@pytest.mark.parametrize("framework", ["torchtitan", "megatron", "nemo", "auto"])
def test_stacks_with_tensor_and_pipeline_parallelism_keep_them(framework):
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    assert (4, 2) in layout_families(gpu, 64, model, framework, "full_ft")


def test_an_mlperf_row_run_in_nvidias_container_reads_as_its_reference_stack():
    """Oracle's and Fujitsu's MLPerf rows carry the column pytorch but ran NVIDIA's NeMo reference code (TP/PP)."""
    notes = "dedup: no NVIDIA submission; framework: MXNet NVIDIA Release 24.04 or PyTorch NVIDIA Release 24.04"
    row = {"source": "mlperf-train-v4.1", "framework": "pytorch", "model": "llama-2-70b", "method": "lora"}
    row |= {"precision": "fp8", "seq_len": "8192", "global_batch_seqs": "16", "gpu_count": "128", "notes": notes}
    assert read_row(row)[0].framework == "nemo"
    assert read_row(row | {"notes": "framework: torchtune"})[0].framework == "pytorch"
    assert read_row(row | {"source": "torchtune-readme"})[0].framework == "pytorch"


@pytest.mark.parametrize("framework", ["llm-foundry", "pytorch"])
def test_a_run_too_big_for_fsdp_alone_names_the_stack_it_would_fit_on(framework):
    """70B LoRA at 32k tokens on 8 H100s: FSDP x8 needs 100 GB a GPU, and the reason blamed only 144 GB of model
    states, which FSDP shards to 18; TP (Megatron, NeMo) or Ulysses SP (HF) fit it on the same machine."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(model="llama-3.1-70b", method="lora", seq_len=32768, global_batch_seqs=8, framework=framework)
    est = estimate_training(gpu, 8, model, w)
    assert not est.fits
    assert f"{framework} runs no tensor or pipeline parallelism" in est.reason
    assert est.reason.endswith("it fits with framework megatron or nemo (tensor, pipeline and context parallelism)")
    for other in ("megatron", "hf"):
        assert estimate_training(gpu, 8, model, w.model_copy(update={"framework": other})).fits


def test_a_stack_with_tensor_parallelism_gets_no_stack_advice():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-405b"]
    est = estimate_training(gpu, 8, model, TrainingWorkload(model="llama-3.1-405b", method="full_ft"))
    assert not est.fits and "tensor or pipeline parallelism" not in est.reason


@pytest.mark.parametrize("framework", ["llm-foundry", "pytorch", "hf"])
def test_a_stack_without_tp_or_pp_reads_neither_in_its_terms(framework):
    """Its terms read 'pipeline bubble ... (80 over PP1: ...)' and 'exposed TP communication ...: 0'."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(model="llama-3.1-70b", method="lora", seq_len=4096, global_batch_seqs=8, framework=framework)
    est = estimate_training(gpu, 8, model, w)
    text = " ".join(f"{t.name} {t.detail}" for t in est.terms)
    assert est.fits and "PP1" not in text and "TP1" not in text and "pipeline bubble" not in text
    assert "exposed TP" not in text and "per-step latency" in text


def test_a_long_sequence_on_auto_splits_by_context_parallelism():
    """Llama 3.1 70B full fine-tuning at 256K tokens on 64 H100s: the default stack (auto, TP and PP) needed 121 GB a
    GPU at TP8 PP8 and named Megatron's CP as the fix (qa15); auto now runs CP itself (found by train4's brief)."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=262_144, global_batch_seqs=16)
    est = estimate_training(gpu, 64, model, w)
    assert est.fits and est.layout is not None and est.layout.sequence_parallel > 1
    assert "CP" in est.layout_text and "context parallelism" not in est.reason


@pytest.mark.parametrize("framework", ["pytorch"])
def test_a_long_qlora_run_on_a_stack_without_a_sequence_split_names_ulysses(framework):
    """QLoRA runs data parallel only (no TP, PP or CP over NF4 weights): 70B at 128K tokens on 16 H100s needs 319 GB
    a GPU as FSDP x16, while HF's DeepSpeed-Ulysses SP8 fits it; the reason said nothing (found by qa15). auto runs
    QLoRA as hf does (test_training_qlora); megatron and torchtitan refuse QLoRA (test_training_recipes), and are
    never the stack named for it."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(
        model="llama-3.1-70b", method="qlora", seq_len=131_072, global_batch_seqs=16, framework=framework
    )
    est = estimate_training(gpu, 16, model, w)
    assert not est.fits
    assert "qlora runs data parallel only (no tensor, pipeline or context parallelism over NF4 weights)" in est.reason
    assert est.reason.endswith("it fits with framework hf (DeepSpeed-Ulysses: Ulysses sequence parallelism, SP)")
    assert estimate_training(gpu, 16, model, w.model_copy(update={"framework": "hf"})).fits


def test_a_ring_context_parallel_stack_that_fits_nowhere_gets_no_stack_advice():
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-70b"]
    w = TrainingWorkload(model="llama-3.1-70b", method="full_ft", seq_len=262_144, framework="megatron")
    est = estimate_training(gpu, 8, model, w)
    assert not est.fits and "it fits with framework" not in est.reason


@pytest.mark.parametrize("framework", ["auto", "hf"])
def test_a_run_that_a_fused_loss_alone_would_fit_gets_no_split_advice(framework):
    """8B LoRA at 32K tokens on one H100 fits on Megatron by its fused loss, not by any split (one GPU splits
    nothing): the reason said 'runs no context parallelism' / 'no tensor or pipeline parallelism' (found by qa15)."""
    gpu, model = GPUS["H100-SXM"], MODELS["llama-3.1-8b"]
    w = TrainingWorkload(model="llama-3.1-8b", method="lora", seq_len=32_768, global_batch_seqs=8, framework=framework)
    est = estimate_training(gpu, 1, model, w)
    assert not est.fits
    assert "parallelism:" not in est.reason and "it fits with framework megatron" not in est.reason
