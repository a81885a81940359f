"""The offer join shared by both rankings: lazy options, a lazy k-way merge."""

from app.scoring.pricing.offers import LazyOptions, MergedOrder


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


def test_rankings_report_how_many_options_are_feasible() -> None:
    from app.scoring.inference.ranking.rank import rank_inference
    from app.scoring.training.ranking.rank import rank_training
    from app.scoring.workload import InferenceWorkload, TrainingWorkload
    from benchmarks.bench_data import bench_snapshot

    snapshot = bench_snapshot(1)
    inference = rank_inference(InferenceWorkload(model="llama-3.1-70b"), snapshot, snapshot.models["llama-3.1-70b"])
    training = rank_training(TrainingWorkload(), snapshot, snapshot.models["llama-3.1-8b"])
    for ranking in (inference, training):
        flags = [o.feasible for o in ranking.options]
        assert flags == [True] * ranking.feasible_count + [False] * (len(flags) - ranking.feasible_count)
