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
