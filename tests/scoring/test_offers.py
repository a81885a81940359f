"""The offer join shared by both rankings: per-snapshot memos, lazy options, a lazy k-way merge."""

from datetime import date

from app.scoring.offers import LazyOptions, MergedOrder, hostable_count, offers_by_gpu, snapshot_offers
from app.scoring.specs import CatalogSnapshot, GpuSpec, Offer
from app.scoring.workload import Filters

GPU = {g: GpuSpec(g, "NVIDIA", g, "x", 80, 3.0) for g in ("A", "B")}


def _offer(gpu: str, price: float, provider: str, count: int = 1) -> Offer:
    return Offer(provider, provider.title(), gpu, count, "on_demand", price, date(2026, 11, 1))


def _snapshot() -> CatalogSnapshot:
    offers = (_offer("A", 3.0, "z"), _offer("B", 1.0, "y", 8), _offer("A", 2.0, "x", 2), _offer("A", 2.0, "w", 4))
    return CatalogSnapshot(gpus=GPU, offers=offers)


def test_lazy_options_build_only_what_is_read() -> None:
    built: list[int] = []
    options = LazyOptions(1000, lambda i: built.append(i) or i * 2)
    assert len(options) == 1000 and options[3] == 6 and options[-1] == 1998 and options[3] == 6
    assert built == [3, 999] and options[:2] == [0, 2]


def test_merged_order_reads_sorted_runs_lazily() -> None:
    consumed: list[int] = []

    def run(values: list[int]):  # type: ignore[no-untyped-def]
        for v in values:
            consumed.append(v)
            yield v

    order = MergedOrder([run([1, 4, 9]), run([2, 3, 10])], total=6)
    assert order[0] == 1 and len(consumed) <= 3
    assert list(order) == [1, 2, 3, 4, 9, 10]


def test_offers_grouped_by_gpu_cheapest_first_then_provider() -> None:
    snapshot = _snapshot()
    offers = snapshot_offers(snapshot, Filters())
    groups = offers_by_gpu(snapshot, Filters())
    assert [offers[i].provider_id for i in groups["A"]] == ["w", "x", "z"]  # price ties broken by provider
    assert offers_by_gpu(snapshot, Filters()) is groups  # memoised on the snapshot


def test_hostable_count_counts_big_enough_or_single_gpu_offers() -> None:
    snapshot = _snapshot()
    assert hostable_count(snapshot, Filters(), "A", 1) == 3
    assert hostable_count(snapshot, Filters(), "A", 4) == 2  # the 4-GPU instance and the single-GPU offer
    assert hostable_count(snapshot, Filters(), "B", 16) == 0


def test_rankings_report_how_many_options_are_feasible() -> None:
    from app.scoring.inference.rank import rank_inference
    from app.scoring.training.rank import rank_training
    from app.scoring.workload import InferenceWorkload, TrainingWorkload
    from benchmarks.bench_data import bench_snapshot

    snapshot = bench_snapshot(1)
    inference = rank_inference(InferenceWorkload(model="llama-3.1-70b"), snapshot, snapshot.models["llama-3.1-70b"])
    training = rank_training(TrainingWorkload(), snapshot, snapshot.models["llama-3.1-8b"])
    for ranking in (inference, training):
        flags = [o.feasible for o in ranking.options]
        assert flags == [True] * ranking.feasible_count + [False] * (len(flags) - ranking.feasible_count)
