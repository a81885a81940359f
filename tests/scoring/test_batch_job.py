"""A batch job (job_requests): its length on one replica, its drain, what it is billed, and where it is refused."""

from dataclasses import dataclass
from datetime import date

import pytest
from pydantic import ValidationError

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.inference.batching import batch_job
from app.scoring.inference.batching.finite_run import replay_run
from app.scoring.inference.estimates.estimate import estimate_inference, solve_inference
from app.scoring.inference.ranking.rank import rank_inference
from app.scoring.pricing.price_terms import STARTUP_HOURS, billed_job_hours, interruptions_per_node_month, spot_run
from app.scoring.specs import CatalogSnapshot, Offer
from app.scoring.workload import InferenceWorkload

GPUS, MODELS = load_gpu_specs(), load_model_specs()
H100, L4 = GPUS["H100-SXM"], GPUS["L4"]
LLAMA_8B = MODELS["llama-3.1-8b"]


def _job(requests, gpu=H100, **fields):
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=requests, **fields)
    return estimate_inference(gpu, 1, LLAMA_8B, workload)


def _steady(gpu=H100):
    return estimate_inference(gpu, 1, LLAMA_8B, InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput"))


def _term(est):
    return next(t for t in est.terms if t.name == "batch job")


def test_a_job_no_bigger_than_the_batch_runs_as_one_batch_of_its_size():
    steady = _steady()
    small = _job(40)
    assert small.batch == 40 < steady.batch
    # one batch: the steady state at that batch (its prompts, then its decode steps), no drain
    assert small.job_hours * 3600 == pytest.approx(40 * 400 / small.output_tokens_per_s)
    assert "one batch of 40, no drain" in _term(small).detail
    assert small.output_tokens_per_s < steady.output_tokens_per_s  # a smaller batch uses the GPU less well


def test_a_long_job_converges_on_the_steady_state_and_a_short_one_pays_for_its_drain():
    steady = _steady(L4)
    long_job, short_job = _job(1_000_000, L4), _job(100, L4)
    assert long_job.batch == short_job.batch == steady.batch
    assert long_job.output_tokens_per_s == pytest.approx(steady.output_tokens_per_s, rel=1e-3)
    work_s = 100 * 400 / steady.output_tokens_per_s
    drain_s = short_job.job_hours * 3600 - work_s
    life_s = steady.batch * 400 / steady.output_tokens_per_s
    assert 0 < drain_s < life_s / 2  # the drain costs something, less than the half life an empty batch would
    assert "drain" in _term(short_job).detail and short_job.output_tokens_per_s < steady.output_tokens_per_s


def test_the_job_length_grows_with_its_requests_without_a_jump_at_the_batch():
    batch = _steady(L4).batch
    hours = [_job(n, L4).job_hours for n in (batch - 1, batch, batch + 1, 2 * batch, 2 * batch + 1, 3 * batch)]
    assert hours == sorted(hours)
    per_request = hours[1] / batch
    assert hours[2] - hours[1] < 3 * per_request  # one more request adds about one request's work, no drain step
    assert hours[4] - hours[3] < 3 * per_request


@dataclass
class _Step:
    total_ms: float


def test_the_drain_is_half_a_life_of_the_fixed_part_of_an_affine_step(monkeypatch):
    """Steps of a + c x batch: the drain runs output_len steps at a mean of a + c B / 2 where the steady state
    counted half a life at a + c B, so it adds output_len x a / 2 (the module's docstring)."""
    fixed_ms, per_seq_ms = 8.0, 0.05
    monkeypatch.setattr(batch_job, "decode_parts", lambda ctx, eff, seqs, context: _Step(fixed_ms + per_seq_ms * seqs))
    solved = solve_inference(H100, 1, LLAMA_8B, InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput"))
    running, output_len = 100, 400
    drain_s = batch_job.full_drain_s(solved.ctx, solved.efficiency, running, 2_000, output_len)
    assert drain_s == pytest.approx(output_len * fixed_ms / 2 / 1e3)
    full = batch_job.job_time(10_000, running, 2_000.0, output_len, drain_s)
    assert full.steady_s == pytest.approx(10_000 * output_len / 2_000.0) and full.drain_s == drain_s
    half = batch_job.job_time(150, running, 2_000.0, output_len, drain_s)
    assert half.drain_s == pytest.approx(drain_s / 2)  # from B to 2B requests the drain grows linearly
    assert batch_job.job_time(running, running, 2_000.0, output_len, drain_s).drain_s == 0.0


def test_a_job_is_refused_outside_max_throughput_naming_the_field():
    with pytest.raises(ValidationError) as raised:
        InferenceWorkload(model="llama-3.1-8b", job_requests=1000)
    error = raised.value.errors()[0]
    assert error["loc"] == ("job_requests",) and "max_throughput" in error["msg"]
    with pytest.raises(ValidationError):
        InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=0)
    with pytest.raises(ValidationError) as raised:  # peak traffic sizes a service's replicas, not a job's
        InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", peak_requests_per_s=5, job_requests=10)
    assert raised.value.errors()[0]["loc"] == ("job_requests",) and "deadline" in raised.value.errors()[0]["msg"]


def _offer(provider, price, price_type="on_demand", min_term_hours=None, instance_gpus=1):
    return Offer(
        provider,
        provider.upper(),
        "H100-SXM",
        instance_gpus,
        price_type,
        price,
        date(2026, 11, 1),
        min_term_hours=min_term_hours,
    )


# 20,000 requests at full throughput on one GPU per replica, on-demand and reserved offers both allowed
JOB_20K = InferenceWorkload(
    model="llama-3.1-8b",
    scenario="max_throughput",
    job_requests=20_000,
    max_gpus=1,
    price_types=["on_demand", "reserved"],
)


def test_a_job_is_billed_its_hours_and_a_committed_term_whole():
    workload = JOB_20K
    offers = (_offer("r", 1.0, "reserved", min_term_hours=730.0), _offer("o", 3.0))
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), LLAMA_8B)
    first, second = ranking.options[0], ranking.options[1]
    assert first.provider == "o" and second.provider == "r"  # the cheaper hourly price loses: its month is paid
    assert first.job_hours == second.job_hours and first.job_hours < 10
    assert first.job_usd == pytest.approx(3.0 * first.gpu_count * first.job_hours)
    assert second.job_usd == pytest.approx(1.0 * second.gpu_count * 730.0) and second.job_billed_hours == 730.0
    # the ranked metric is the job's as billed: job $ over the job's tokens
    for option in (first, second):
        assert option.usd_per_million_output_tokens == pytest.approx(option.job_usd / (20_000 * 400) * 1e6)
    # without a job the reservation's hourly price wins, as it does for a service that runs all month
    service = rank_inference(
        workload.model_copy(update={"job_requests": None}), CatalogSnapshot(gpus=GPUS, offers=offers), LLAMA_8B
    )
    assert service.options[0].provider == "r" and service.options[0].job_usd is None


def test_a_job_is_billed_whole_units_where_the_provider_bills_by_the_hour():
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_requests=2_000, max_gpus=1)
    offers = (_offer("vultr", 2.0), _offer("o", 2.5))  # terms.csv: Vultr bills Cloud GPU by the hour
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), LLAMA_8B)
    first, second = ranking.options[0], ranking.options[1]
    assert first.job_hours < 0.5  # a short job: a whole hour at Vultr costs more than the minutes elsewhere
    assert first.provider == "o" and first.job_billed_hours == pytest.approx(first.job_hours)
    assert second.provider == "vultr" and second.job_billed_hours == 1.0
    assert second.job_usd == pytest.approx(2.0 * second.gpu_count * 1.0)
    # billed from the start-up: with it a job of 45 minutes fills a whole hour, not rounded up again
    assert billed_job_hours(1.0 - STARTUP_HOURS, "on_demand", None, "vultr") == 1.0
    assert billed_job_hours(1.0, "on_demand", None, "vultr") == 2.0
    assert billed_job_hours(0.51 - STARTUP_HOURS, "on_demand", None, "scaleway") == pytest.approx(31 / 60)


def test_a_job_on_a_capacity_block_is_billed_whole_days():
    """AWS Capacity Blocks are booked by the day (price_terms.TERM_UNIT_HOURS): past the 24 h minimum, another day."""
    assert billed_job_hours(31.1 - STARTUP_HOURS, "capacity_block", 24.0, "aws") == 48.0
    assert billed_job_hours(3.0, "capacity_block", 24.0, "aws") == 24.0


def test_a_deadline_splits_the_job_over_the_fewest_replicas_that_finish_it():
    alone = _job(20_000, L4)
    deadline = alone.job_hours / 3.5
    split = _job(20_000, L4, job_deadline_hours=deadline)
    assert split.job_replicas == 4 and split.job_hours <= deadline  # 3 replicas are not enough, 4 are
    three = _job(5_000 * 4 // 3 + 1, L4)  # the busiest share on three replicas
    assert three.job_hours > deadline
    assert split.output_tokens_per_s == pytest.approx(20_000 * 400 / (4 * split.job_hours * 3600))
    assert "on each of 4 replicas" in _term(split).detail


def test_a_deadline_counts_the_start_up_and_the_bill_starts_with_it():
    """1,000,000 requests by a 2 h deadline on 1xH100: 18 replicas took 1.97 h each, on time only if the machines
    started in no time; with the 15-minute start-up (as a training run's) the job gets 1.75 h, and 21 replicas."""
    est = _job(1_000_000, H100, job_deadline_hours=2.0)
    assert est.job_hours <= 2.0 - STARTUP_HOURS
    one_fewer = _job(-(-1_000_000 // (est.job_replicas - 1)), H100)  # the busiest share on one replica fewer
    assert STARTUP_HOURS + one_fewer.job_hours > 2.0
    assert next(t for t in est.terms if t.name == "start-up").value == STARTUP_HOURS
    workload = InferenceWorkload(
        model="llama-3.1-8b", scenario="max_throughput", job_requests=1_000_000, job_deadline_hours=2.0, max_gpus=1
    )
    row = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(_offer("o", 2.0),)), LLAMA_8B).options[0]
    assert row.replicas == est.job_replicas and row.job_hours == pytest.approx(STARTUP_HOURS + est.job_hours)
    assert row.job_billed_hours == pytest.approx(row.job_hours)  # billed as used, the start-up among them
    assert row.job_usd == pytest.approx(2.0 * row.replicas * row.job_hours)


def test_a_share_smaller_than_the_batch_runs_at_its_own_batch():
    batch = _steady(H100).batch
    whole = _job(4 * batch, H100)
    split = _job(4 * batch, H100, job_deadline_hours=STARTUP_HOURS + whole.job_hours / 8)
    assert split.job_replicas > 4 and split.batch < batch
    assert split.batch == -(-4 * batch // split.job_replicas)


def test_a_deadline_no_replicas_can_meet_is_infeasible_with_the_reason():
    est = _job(1_000, H100, job_deadline_hours=STARTUP_HOURS + 1e-4)
    assert not est.feasible and "one request alone would finish in 15.1 min (15 min start-up + " in est.reason
    assert est.reason.endswith("of job), after the job's 15 min deadline")
    early = _job(1_000, H100, job_deadline_hours=0.2)
    assert (
        not early.feasible
        and early.reason == "the 15 min start-up alone fills the job's 12 min deadline: a later deadline"
    )
    with pytest.raises(ValidationError) as raised:
        InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", job_deadline_hours=2)
    assert raised.value.errors()[0]["loc"] == ("job_deadline_hours",)


def test_a_job_on_a_whole_instance_runs_a_copy_on_every_gpu_it_rents():
    """An 8-GPU VM rented for a 1-GPU layout: the job spreads over all 8 copies, so it takes an eighth of one copy's
    time, and what it is billed is the whole instance for that time (or a reserved term for all 8 GPUs)."""
    workload = JOB_20K
    one = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(_offer("o", 3.0),)), LLAMA_8B).options[0]
    offers = (_offer("o", 3.0, instance_gpus=8), _offer("r", 1.0, "reserved", 730.0, instance_gpus=8))
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=offers), LLAMA_8B)
    vm, reserved = ranking.options[0], ranking.options[1]
    assert vm.provider == "o" and vm.replicas == 8 and vm.instances == 1 and vm.copies_per_instance == 8
    assert vm.job_hours - STARTUP_HOURS == pytest.approx((one.job_hours - STARTUP_HOURS) / 8)
    # the same GPU-hours of work, and each of the eight GPUs billed the start-up
    assert vm.job_usd == pytest.approx(3.0 * 8 * vm.job_hours) == pytest.approx(one.job_usd + 3.0 * 7 * STARTUP_HOURS)
    assert reserved.job_usd == pytest.approx(1.0 * 8 * 730.0)  # the term of all eight GPUs


def test_a_job_over_replicas_is_billed_for_every_replica():
    workload = InferenceWorkload(
        model="llama-3.1-8b", scenario="max_throughput", job_requests=200_000, job_deadline_hours=0.5, max_gpus=1
    )
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(_offer("o", 3.0),)), LLAMA_8B)
    best = ranking.options[0]
    assert best.replicas > 1 and best.job_hours <= 0.5
    assert best.job_usd == pytest.approx(best.replicas * best.gpu_count * 3.0 * best.job_hours)


def test_a_job_on_spot_is_billed_its_expected_wall_time_with_interruptions():
    workload = InferenceWorkload(
        model="llama-3.1-8b", scenario="max_throughput", job_requests=2_000_000, max_gpus=1, price_types=["spot"]
    )
    ranking = rank_inference(workload, CatalogSnapshot(gpus=GPUS, offers=(_offer("neo", 1.0, "spot"),)), LLAMA_8B)
    row = ranking.options[0]
    life_hours = (row.ttft_ms + 400 * row.tpot_ms) / 3.6e6
    # each interruption (1 per node-month off the hyperscalers) loses the requests in flight and a restart
    work = row.job_hours - STARTUP_HOURS  # after the start-up, which no interruption repeats here
    expected = STARTUP_HOURS + spot_run(work, 1, interruptions_per_node_month("neo"), life_hours).wall_hours
    assert row.interruptible and row.job_billed_hours == pytest.approx(expected) and expected > row.job_hours
    assert row.job_usd == pytest.approx(1.0 * row.gpu_count * expected)


@pytest.mark.parametrize(("engine", "gpu", "requests"), [("trtllm", "H100-SXM", 2_000), ("vllm", "L4", 500)])
def test_the_job_length_agrees_with_a_step_by_step_replay_of_the_burst(engine, gpu, requests):
    """The validator's replay (finite_run.py) prefills the burst a step budget at a time and runs every request at
    the mean lengths: for the engines that fill a token budget each step, the job model's fluid drain lands within
    10 % of it (TensorRT-LLM on an H100: -3 %; vLLM on an L4: -7 %). SGLang is not compared: with every length the
    same, the replay's requests finish together and its prefill batches run full, which a job of varied lengths does
    not see (DeepSeek-R1 on 8xH200: the job model 1.2x the replay)."""
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", engine=engine, job_requests=requests)
    solved = solve_inference(GPUS[gpu], 1, LLAMA_8B, workload)
    replay = replay_run(solved.ctx, solved.efficiency, requests, None, solved.batch, 2_000, 400)
    assert replay is not None and requests > 2 * solved.batch
    job_s = solved.job.time.seconds
    assert job_s == pytest.approx(replay.makespan_ms / 1e3, rel=0.10)


def test_a_job_on_a_static_batching_engine_runs_in_waves():
    """HF generate prefills a batch and decodes it to its end before the next: 150 requests at batch 64 are two
    full waves and one of 22, each timed as the fixed batch it is."""
    workload = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", engine="hf", job_requests=150)
    est = estimate_inference(H100, 1, LLAMA_8B, workload)
    assert est.batch == 64 and "3 waves of up to 64" in _term(est).detail

    def wave_s(size: int) -> float:
        fixed = workload.model_copy(update={"scenario": "fixed_batch", "batch": size, "job_requests": None})
        return size * 400 / estimate_inference(H100, 1, LLAMA_8B, fixed).output_tokens_per_s

    assert est.job_hours * 3600 == pytest.approx(2 * wave_s(64) + wave_s(22))


def test_a_static_batching_engine_at_max_throughput_runs_full_batches():
    """Without a job too: HF generate's throughput is its full batch's, prefilled then decoded (no prompts of newer
    requests ride its decode steps, as they do under continuous batching)."""
    peak = InferenceWorkload(model="llama-3.1-8b", scenario="max_throughput", engine="hf")
    est = estimate_inference(H100, 1, LLAMA_8B, peak)
    fixed = peak.model_copy(update={"scenario": "fixed_batch", "batch": est.batch})
    same = estimate_inference(H100, 1, LLAMA_8B, fixed)
    assert est.output_tokens_per_s == pytest.approx(same.output_tokens_per_s) and est.ttft_ms == same.ttft_ms


def test_a_short_job_on_a_whole_instance_takes_at_least_one_requests_life():
    """13 requests on an 8-GPU VM of 1-GPU copies: two a copy at most, each still decodes its 400 tokens one step at
    a time, so the job takes one request's life (not an eighth of one copy's time), and what it bills per token
    says so."""
    workload = JOB_20K.model_copy(update={"job_requests": 13, "price_types": ["on_demand"]})
    vm = rank_inference(
        workload, CatalogSnapshot(gpus=GPUS, offers=(_offer("o", 3.0, instance_gpus=8),)), LLAMA_8B
    ).options[0]
    life_hours = (vm.ttft_ms + 400 * vm.tpot_ms) / 3.6e6
    assert vm.replicas == 8 and vm.job_hours == pytest.approx(STARTUP_HOURS + life_hours)
    assert vm.job_usd == pytest.approx(3.0 * 8 * vm.job_hours)
    assert vm.usd_per_million_output_tokens == pytest.approx(vm.job_usd / (13 * 400) * 1e6)
