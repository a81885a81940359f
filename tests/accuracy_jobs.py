"""The slow accuracy guards' computations, run in background processes while the rest of the suite runs.

Each job is exactly the computation its test used to run inline (a cold refit, a full validation with
leave-one-source-out refits); only where it runs changes. tests/conftest.py starts the jobs a collected test
asks for (`@pytest.mark.precompute("job")`) as soon as collection ends, at a lower CPU priority, moves those
tests to the end of the run, and hands each test its job's result (JSON round-trips floats exactly).

Run one by hand: python -m tests.accuracy_jobs inference_refit /tmp/out.json
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHARED_VALIDATION = Path(__file__).resolve().parents[1].parent / "shared" / "validation"


def inference_refit() -> dict[str, float]:
    """The cold refit from the research start (`make calibrate`'s inference fit), fitted constants by name."""
    from app.calibration.inference.calibrate_inference import fitted_values

    return fitted_values(str(SHARED_VALIDATION / "inference_cases.csv"))


# The stored cold fold the suite refits (the quickest: without argonne's 1,167 rows, ~80 s on one core).
CHECKED_FOLD = "argonne-llm-inference-bench"


def inference_fold() -> dict[str, float]:
    """One of `make calibrate`'s stored cold folds (app/calibration/held_out/folds.py) refitted: constants by name."""
    from app.calibration.held_out.folds import fit_folds, fitted_constants
    from app.calibration.inference.case_setup import case_setup
    from app.calibration.validation.case_files import read_cases
    from app.catalog.spec_files import load_gpu_specs, load_model_specs

    gpus, models = load_gpu_specs(), load_model_specs()
    rows = read_cases(SHARED_VALIDATION / "inference_cases.csv")
    setups = [case_setup(row, gpus, models) for row in rows]
    return fitted_constants(fit_folds(rows, setups, workers=1, sources=[CHECKED_FOLD])[CHECKED_FOLD])


def _validation_summary(name: str) -> dict[str, Any]:
    from app.calibration.validation.validate import validate_file
    from app.catalog.spec_files import load_gpu_specs, load_model_specs

    return validate_file(SHARED_VALIDATION / name, load_gpu_specs(), load_model_specs())["summary"]


def inference_validation() -> dict[str, Any]:
    """`gpumatch validate` on the public inference file: in-sample and leave-one-source-out summaries."""
    return _validation_summary("inference_cases.csv")


def training_validation() -> dict[str, Any]:
    """`gpumatch validate` on the public training file: in-sample and leave-one-source-out summaries."""
    return _validation_summary("training_cases.csv")


JOBS: dict[str, Callable[[], Any]] = {
    "inference_refit": inference_refit,
    "inference_fold": inference_fold,
    "inference_validation": inference_validation,
    "training_validation": training_validation,
}


def main(argv: list[str]) -> int:
    name, out = argv
    os.nice(5)  # the suite's own tests (browser timeouts, live servers) come first; this fills idle CPU
    result = JOBS[name]()
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
