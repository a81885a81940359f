"""Run the physics grid (app/calibration/validation/physics_grid.py) over every GPU of seed_data/gpus.csv.

    python scripts/physics_grid.py [--share 0.05] [--seed 0] [--kind inference|training|both] [--out FILE.jsonl]

Prints the rows, the covered share and the violations by kind with one example each; --out writes every violation
as a JSON line. Exit status 1 when any violation is found.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's app, not the installed one

from app.calibration.validation import physics_grid as grid  # noqa: E402
from app.catalog.spec_files import load_gpu_specs, load_model_specs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, default=1.0, help="random share of the grid to run (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=("inference", "training", "both"), default="both")
    parser.add_argument("--out", help="write every violation here as JSON lines")
    args = parser.parse_args()
    gpus, models = load_gpu_specs(), load_model_specs()
    rows: list[Iterable[dict]] = []  # streamed: the whole inference grid is 4M rows
    if args.kind in ("inference", "both"):
        rows.append(grid.inference_rows(gpus, models, share=args.share, seed=args.seed))
    if args.kind in ("training", "both"):
        rows.append(grid.training_rows(gpus, share=args.share, seed=args.seed))
    kinds: Counter[str] = Counter()
    examples: dict[str, grid.Violation] = {}
    covered = 0
    start = time.monotonic()
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115 - closed below
    i = 0
    for i, row in enumerate(itertools.chain(*rows), 1):
        is_covered, violation = grid.check_row(row, gpus, models)
        covered += is_covered
        if violation is not None:
            kinds[violation.kind] += 1
            examples.setdefault(violation.kind, violation)
            if out:
                record = {"kind": violation.kind, "predicted": violation.predicted, "bound": violation.bound}
                out.write(json.dumps(record | {"detail": violation.detail, "row": violation.row}) + "\n")
                out.flush()
        if i % 20000 == 0:
            print(f"{i} rows, {time.monotonic() - start:.0f} s, {sum(kinds.values())} violations", file=sys.stderr)
    if out:
        out.close()
    print(f"{i} rows, {covered} covered, {sum(kinds.values())} violations")
    for kind, count in kinds.most_common():
        v = examples[kind]
        print(f"  {kind}: {count}, e.g. {v.row['case_id']} predicted {v.predicted} bound {v.bound} {v.detail[:200]}")
    return 1 if kinds else 0


if __name__ == "__main__":
    raise SystemExit(main())
