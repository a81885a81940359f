"""A ranked inference row's operating curve: its solution solved again on the row's own offer and layout."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.scoring.hardware.machines import default_machine, machine_of
from app.scoring.inference.batching.curves import CurvePoint, TpotLine, operating_curve, tpot_line
from app.scoring.inference.estimates.configurations import solve_on
from app.scoring.inference.estimates.results import Solution
from app.scoring.specs import CatalogSnapshot, ModelSpec
from app.scoring.workload import InferenceWorkload


@dataclass(frozen=True, slots=True)
class RowCurve:
    """One ranked row's timing at each swept batch, and the point its answer chose."""

    option: dict[str, Any]
    points: list[CurvePoint]
    chosen: CurvePoint


def row_curves(
    rows: Sequence[dict[str, Any]], workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> tuple[list[RowCurve], TpotLine | None]:
    """Each priced row's operating curve, solved as its ranking solved it (the row's offer_id picks the machine,
    its tensor_parallel and pipeline_parallel the layout), and the TPOT line its answer is held to."""
    curves, tpot = [], None
    for row in rows:
        solved = solve_row(row, workload, snapshot, model)
        if solved is None or not row.get("usd_per_million_output_tokens"):
            continue
        points = operating_curve(solved)
        chosen = next(p for p in points if p.batch == solved.point.batch)
        curves.append(RowCurve(row, points, chosen))
        tpot = tpot_line(workload, solved.efficiency)
    return curves, tpot


def solve_row(
    row: dict[str, Any], workload: InferenceWorkload, snapshot: CatalogSnapshot, model: ModelSpec
) -> Solution | None:
    """A ranked row's solution: its GPU on its offer's machine (one node of the GPU without an offer) at its
    layout, through the function the ranking used."""
    gpu = snapshot.gpus[row["gpu_id"]]
    offer = next((o for o in snapshot.offers if o.offer_id is not None and o.offer_id == row.get("offer_id")), None)
    machine = machine_of(offer, gpu) if offer else default_machine(gpu)
    count, tp, pp = row["gpu_count"], row["tensor_parallel"], row.get("pipeline_parallel", 1)
    solved = solve_on(gpu, machine, count, tp, pp, model, workload)
    return solved if isinstance(solved, Solution) else None
