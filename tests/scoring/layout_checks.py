"""A check both layout-search test modules use: the ranking's pruned sweep gives the single estimate's answers."""

from app.scoring.specs import GpuSpec, ModelSpec
from app.scoring.training.estimate import step_seconds
from app.scoring.training.layouts.choice import choose_layout, fits_at
from app.scoring.training.ranking.gpu_timer import GpuTimer
from app.scoring.training.ranking.layout_search import LayoutSearch
from app.scoring.workload import TrainingWorkload


def assert_sweep_matches_single_estimates(
    model: ModelSpec, w: TrainingWorkload, gpus: list[GpuSpec], counts: tuple[int, ...]
) -> None:
    """Per GPU and count: the same fit verdict, the same layout and bit-identical step seconds."""
    search = LayoutSearch(model, w)
    for gpu in gpus:
        timer = GpuTimer(search, gpu)
        for n in counts:
            assert search.fits(gpu, n) == fits_at(gpu, n, model, w), (gpu.id, n)
            layout, seconds = timer.best_layout(n)
            assert layout == choose_layout(gpu, n, model, w), (gpu.id, n)
            if layout is not None:
                assert seconds == step_seconds(gpu, n, model, w, layout), (gpu.id, n)  # bit-identical
