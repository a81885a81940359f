"""Maximum achievable matmul FLOPs (MAMF) as a share of the dense peak, per GPU, and what it implies for the AMD
generations the ROCm matmul factor was not fitted on.

Source: stas00/ml-engineering's MAMF finder results, as collected in shared/research/catalogs.md ("Peak versus
achievable"): the best BF16 GEMM each GPU reached over a sweep of shapes, on its vendor's BLAS.

The inference fit's ROCm matmul factor (`amd_mfu_factor`) rests on MI300X rows only (argonne, MLPerf v4.1 AMD), and
its prior is MI300X's MAMF against H100's. Applied as it is to an MI325X or MI355X it would carry MI300X's GEMM
efficiency to GPUs whose own BLAS reaches more of their peak, so those take it scaled by their MAMF over MI300X's:
a sourced prior, with no validation row to confirm it (every AMD inference row is an MI300X), said in the terms.
"""

from __future__ import annotations

from app.scoring.explain import percent
from app.scoring.specs import GpuSpec

# stas00/ml-engineering's MAMF finder (shared/research/catalogs.md, "Peak versus achievable"): best BF16 GEMM / peak
MAMF_SHARE_OF_PEAK: dict[str, float] = {
    "A100-SXM-80GB": 0.87,
    "H100-SXM": 0.80,
    "B200": 0.78,
    "GB200": 0.73,
    "MI355X": 0.68,
    "MI325X": 0.60,
    "MI300X": 0.51,
    "GAUDI2": 0.97,
    "GAUDI3": 0.74,
}
ROCM_FITTED_ON = "MI300X"  # the AMD GPU of every AMD inference validation row


# A GPU without a MAMF of its own that shares a measured one's die (gpus.csv: both CDNA 4, the MI350X at lower clocks).
SAME_DIE: dict[str, str] = {"MI350X": "MI355X"}


def rocm_matmul_scale(gpu: GpuSpec) -> tuple[float, str | None]:
    """An AMD GPU's matmul efficiency against MI300X's, by their MAMF, and the term's label (1, None: no change;
    MI250X and any AMD GPU not measured keep MI300X's)."""
    measured = SAME_DIE.get(gpu.id, gpu.id)
    share = MAMF_SHARE_OF_PEAK.get(measured)
    if gpu.vendor.upper() != "AMD" or share is None or measured == ROCM_FITTED_ON:
        return 1.0, None
    base = MAMF_SHARE_OF_PEAK[ROCM_FITTED_ON]
    return share / base, f"{measured} matmuls vs {ROCM_FITTED_ON} (MAMF {percent(share)} / {percent(base)} of peak)"
