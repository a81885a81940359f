"""The ROCm matmul factor was fitted on MI300X rows only: other AMD generations scale it by their measured MAMF."""

import pytest

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.efficiency.mamf import MAMF_SHARE_OF_PEAK, rocm_matmul_scale
from app.scoring.inference.step.context import build_context
from app.scoring.inference.step.efficiency_factors import mbu_factors, mfu, mfu_factors

GPUS, MODELS = load_gpu_specs(), load_model_specs()


def _context(gpu_id: str):
    return build_context(GPUS[gpu_id], MODELS["llama-3.1-70b"], "fp8", "fp8", "vllm", 1)


@pytest.mark.parametrize(("gpu_id", "measured"), [("MI325X", "MI325X"), ("MI355X", "MI355X"), ("MI350X", "MI355X")])
def test_a_later_amd_gpu_runs_its_matmuls_at_its_mamf_over_mi300xs(gpu_id: str, measured: str) -> None:
    ratio = MAMF_SHARE_OF_PEAK[measured] / MAMF_SHARE_OF_PEAK["MI300X"]
    assert mfu(_context(gpu_id), DEFAULT_EFFICIENCY) == pytest.approx(
        mfu(_context("MI300X"), DEFAULT_EFFICIENCY) * ratio
    )
    labels = [name for name, _ in mfu_factors(_context(gpu_id), DEFAULT_EFFICIENCY)]
    assert f"{measured} matmuls vs MI300X (MAMF" in labels[-1] and labels[-2] == "ROCm"
    assert not any("MAMF" in name for name, _ in mbu_factors(_context(gpu_id), DEFAULT_EFFICIENCY))  # matmuls only


@pytest.mark.parametrize("gpu_id", ["MI300X", "MI250X", "H100-SXM", "B200"])
def test_the_fitted_gpu_an_unmeasured_one_and_nvidia_keep_the_fit_as_it_is(gpu_id: str) -> None:
    assert rocm_matmul_scale(GPUS[gpu_id]) == (1.0, None)
    assert not any("MAMF" in name for name, _ in mfu_factors(_context(gpu_id), DEFAULT_EFFICIENCY))
