"""The split and the micro-batch a training case's notes state, read as they state them."""

from app.calibration.training.training_notes import layout_from_notes
from app.scoring.training.layouts.memory import Layout

SEARCHED = Layout(zero_stage=1, tensor_parallel=8, pipeline_parallel=2)  # what a layout search might pick


def test_torchtitans_3d_names_read_every_axis():
    layout = layout_from_notes("framework: torchtitan 3D FSDP8xTP8xPP8 interleaved 1F1B; full AC", 512, None)
    assert layout is not None
    assert (layout.tensor_parallel, layout.pipeline_parallel, layout.pipeline_interleave) == (8, 8, 2)


def test_a_batch_stated_per_device_is_the_micro_batch():
    for notes, micro in (
        ("framework: torchtitan 2D FSDP16xTP8; full AC, local bs 2", 2),
        ("framework: torchtune; batch size 2 without grad accumulation, dataset packed to 2048", 2),
        ("FSDP, micro-batch 4, activation checkpointing false", 4),
    ):
        layout = layout_from_notes(notes, 128, SEARCHED)
        assert layout is not None and layout.micro_batch_seqs == micro, notes
    # a batch alone states no split: a run that fits nowhere stays unfitted
    assert layout_from_notes("batch size 2 without grad accumulation", 1, None) is None


def test_a_2d_name_whose_axes_cover_the_gpus_states_no_pipeline():
    """'FSDP32xTP8' on 256 GPUs names every axis: PP1, whatever PP a layout search picked."""
    layout = layout_from_notes("framework: torchtitan FSDP32xTP8 + compile + asyncTP; full AC", 256, SEARCHED)
    assert layout is not None
    assert (layout.tensor_parallel, layout.pipeline_parallel, layout.zero_stage) == (8, 1, 3)
    # FSDP2 is the API's name, not a degree: 2 x 8 is not 64, so the searched PP stays
    layout = layout_from_notes("framework: torchtitan FSDP2 TP8; full AC", 64, SEARCHED)
    assert layout is not None and layout.pipeline_parallel == 2


def test_async_tp_stated_hides_the_tp_all_reduces():
    from app.calibration.training.training_notes import async_tp_changes

    assert async_tp_changes({"notes": "torchtitan FSDP32xTP8 + compile + asyncTP; full AC"}) == {"tp_comm_exposed": 0.0}
    assert async_tp_changes({"notes": "torchtitan 2D FSDP16xTP8; full AC"}) == {}


def test_a_layout_naming_its_pipeline_expert_and_data_axes_has_no_tensor_parallelism():
    """DeepSeek-V3's "DualPipe PP16, EP64, ZeRO-1 DP" on 2,048 GPUs: PP16 x DP128, experts split 64 ways, no TP,
    whatever TP a layout search picked; DualPipe hides the expert all-to-alls."""
    from app.calibration.training.training_notes import stated_overlap_changes

    notes = "HAI-LLM framework, FP8 mixed precision, DualPipe PP16, EP64, ZeRO-1 DP; cluster of 2048 H800"
    layout = layout_from_notes(notes, 2048, SEARCHED)
    assert layout is not None
    assert (layout.tensor_parallel, layout.pipeline_parallel, layout.expert_parallel, layout.zero_stage) == (
        1,
        16,
        64,
        1,
    )
    assert stated_overlap_changes({"notes": notes}) == {"ep_a2a_exposed": 0.0}
    # an EP beside a stated TP keeps the TP; without DualPipe the all-to-alls stay exposed
    layout = layout_from_notes("Megatron-Core TP2 PP4 EP8", 64, SEARCHED)
    assert layout is not None and (layout.tensor_parallel, layout.expert_parallel) == (2, 8)
    assert stated_overlap_changes({"notes": "Megatron-Core TP2 PP4 EP8"}) == {}


DATA_PARALLEL = Layout(zero_stage=0, tensor_parallel=1, pipeline_parallel=1, recompute="full")  # a single-GPU search


def test_a_bare_per_device_batch_is_the_micro_batch_where_it_makes_up_the_global_batch():
    """torchtune's "batch 2" on one GPU and a global batch of 2, MaxText's "per-device batch 7" on 64 data-parallel
    GPUs and 448 sequences: no accumulation, so the micro-batch is the stated batch."""
    ladder = "framework: torchtune single device; Optimization-flags table; batch 2, max seq 4096, bf16"
    layout = layout_from_notes(ladder, 1, DATA_PARALLEL, global_batch_seqs=2)
    assert layout is not None and layout.micro_batch_seqs == 2
    maxtext = "MaxText (JAX), remat full; per-device batch 7; synthetic data"
    layout = layout_from_notes(maxtext, 64, Layout(zero_stage=3, tensor_parallel=1), global_batch_seqs=448)
    assert layout is not None and layout.micro_batch_seqs == 7


def test_a_bare_batch_is_not_read_where_steps_accumulate_or_gpus_share_a_replica():
    ladder = "framework: torchtune single device; batch 2, max seq 4096"
    # 2 x 1 GPU is not the global batch of 8: the step accumulates (or the batch is something else)
    layout = layout_from_notes(ladder, 1, DATA_PARALLEL, global_batch_seqs=8)
    assert layout is not None and layout.micro_batch_seqs == 1
    # TP2 PP16: 32 GPUs share each replica, so a per-device batch is not a replica's micro-batch
    searched = Layout(zero_stage=1, tensor_parallel=2, pipeline_parallel=16, recompute="full")
    maxtext = "MaxText (JAX), FSDP=8, remat full; per-device batch 4"
    assert layout_from_notes(maxtext, 64, searched, global_batch_seqs=256) == searched
    # nor a global batch, nor a micro-batch already stated with its accumulation
    assert layout_from_notes("global batch 8", 8, DATA_PARALLEL, global_batch_seqs=64) == DATA_PARALLEL
    layout = layout_from_notes("micro-batch 1 x grad-accum 2", 2, DATA_PARALLEL, global_batch_seqs=2)
    assert layout is not None and layout.micro_batch_seqs == 1


def test_fsdp_stated_alone_is_data_parallel_fsdp_over_every_gpu():
    """ "FSDP2" (PyTorch's API), "FSDP", "FSDP=64" on 64 GPUs: every weight sharded over all GPUs, no TP or PP,
    whatever split a layout search picked."""
    for notes, gpus in (
        ("framework: torchtitan + torchao, 8x B200, FSDP2, torch.compile, per-op SAC, local bs 1", 8),
        ("framework: torchtitan FSDP+compile+Float8; Trainy on WhiteFiber", 32),
        ("LLM Foundry/Composer FSDP FULL_SHARD; micro-batch 4", 16),
        ("MaxText (JAX), FSDP=64, remat full", 64),
    ):
        layout = layout_from_notes(notes, gpus, SEARCHED)
        assert layout is not None, notes
        assert (layout.tensor_parallel, layout.pipeline_parallel, layout.zero_stage) == (1, 1, 3), notes


def test_fsdp_beside_another_axis_or_over_fewer_gpus_keeps_the_searched_split():
    for notes, gpus in (
        ("FSDP + Megatron-LM tensor parallelism (metaseq), FP16 weights", 992),  # TP named without a degree
        ("MaxText (JAX), 8 nodes x 8 MI355X, FSDP=8 (as published), remat full", 64),  # the other 8 unstated
        ("Megatron, FSDP, CP2", 128),
    ):
        layout = layout_from_notes(notes, gpus, SEARCHED)
        assert layout is not None, notes
        assert (layout.tensor_parallel, layout.pipeline_parallel) == (8, 2), notes


def test_a_cumulative_tables_rows_above_activation_checkpointing_ran_without_it():
    above = "Optimization-flags table, cumulative technique '+ Compile'; techniques above it in the cumulative table: "
    layout = layout_from_notes(above + "Baseline, + Packed Dataset", 1, DATA_PARALLEL)
    assert layout is not None and layout.recompute == "none"
    below = above.replace("+ Compile", "+ 8-bit AdamW") + "Baseline, + Compile, + Activation Checkpointing"
    layout = layout_from_notes(below, 1, Layout(zero_stage=0))
    assert layout is not None and layout.recompute == "full"
    # a row outside a cumulative table that names no checkpointing states nothing about it
    assert layout_from_notes("framework: torchtune; dataset packed", 1, DATA_PARALLEL) == DATA_PARALLEL
    # and a run that fits nowhere is not given a layout by it
    assert layout_from_notes(above + "Baseline", 1, None) is None
