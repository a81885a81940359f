"""The committed constants are what the calibration script fits on the public file."""

from dataclasses import asdict
from pathlib import Path

import pytest

from app.calibration.calibrate_inference import fitted_values
from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY, FITTED

CASES = Path(__file__).resolve().parents[2] / ".." / "shared" / "validation" / "inference_cases.csv"


@pytest.mark.slow
@pytest.mark.skipif(not CASES.exists(), reason="shared/validation not present beside the repo")
@pytest.mark.xfail(
    strict=True,
    reason="the 2026-12 case file (vLLM/SGLang, MoE, FP4, AMD publications) pulls the fit to decode_mbu at its "
    "0.95 bound, pooled (18.8 % vs 16.6 % median on output tokens/s) and publication-weighted alike (18.9 %, TTFT "
    "68 % vs 21 %); the committed constants stay those fitted on the 2026-11 file until regime-level constants "
    "(engine x vendor maturity, MoE decode) give the fit something better to move (issue 10, item 3)",
)
def test_committed_constants_are_reproduced_by_the_fit():
    fitted = fitted_values(str(CASES))
    committed = asdict(DEFAULT_EFFICIENCY)
    for name in FITTED:
        assert fitted[name] == pytest.approx(committed[name], rel=1e-3), name


def test_parameter_count_is_small():
    assert 10 <= len(FITTED) <= 20
