"""The waits in front of a request's first token under continuous batching, and a request's life.

A new request waits for the running steps (`running_steps_wait_ms`: the residual of the step in flight, and the step
that carries its prompt) and for the prompts ahead of it in the M/D/1 prefill queue (`md1_wait_ms`, its median
`md1_median_wait_ms`), whose utilisation is the share of each mixed step the prompts take (`prefill_utilisation`);
above one prompt a step on an MoE model, for the other prompts sharing its prefill pass (`batched_pass_ms`).
`loaded_ttft_ms` adds them to the request's own prefill; `request_life_ms` is its first token plus its decode steps.
"""

from __future__ import annotations

import math

from app.scoring.efficiency.inference import PREFILL_FIRST_ENGINES, PREFILL_FIRST_WAIT_STEPS, InferenceEfficiency


def request_life_ms(first_token_ms: float, step_ms: float, output_len: float) -> float:
    """One request's life: its first token, then one decode step for each further output token."""
    steps = output_len - 1  # max(steps, 0) written out, as operating_point does (a search's hot path)
    return first_token_ms + (0 if steps < 0 else steps) * step_ms


def sustained_requests_per_s(
    in_flight: float, ttft_ms: float, tpot_ms: float, output_len: float, output_tokens_per_s: float
) -> float:
    """Requests a second one replica completes: Little's law, its requests in flight over one request's life
    (request_life_ms), and never more than its output tokens/s carry. A running batch over one step
    (latency_bound, max_throughput) counts tokens only: a request holds its slot through its first token too, so
    batch / step overstates the requests served (found by qa11: /plan sized too few replicas)."""
    life_ms = request_life_ms(ttft_ms, tpot_ms, output_len)
    carried = output_tokens_per_s / max(output_len, 1.0)
    return min(in_flight * 1e3 / life_ms, carried) if life_ms > 0 else carried


MAX_UTILISATION = 0.95  # project assumption: keeps the M/D/1 wait finite when the offered prefill load reaches capacity


def loaded_ttft_ms(prefill_ms: float, queue_ms: float, wait_ms: float, batched_ms: float = 0.0) -> float:
    """TTFT under continuous batching: own prefill + M/D/1 prefill queue (`queue_ms`, md1_wait_ms) + waiting for
    running steps (`wait_ms`, running_steps_wait_ms) + above one prompt a step on an MoE model the other prompts'
    work in its batched prefill pass (`batched_ms`, batched_pass_ms); operating_point works the waits out once and
    keeps them.

    `prefill_ms` is the request's own prompt as its first token waits for it (through every pipeline stage in
    turn); the queue's service time is the time a prompt holds the prefill server (the same without PP; one stage's
    share with it).

    A new request waits for the iteration in flight (mean residual half a step) and its prefill then
    runs inside an iteration that also decodes the batch (`ttft_wait_steps` ~ 1.5 steps in all); an engine that
    prefills waiting prompts in a batch of their own (SGLang: PREFILL_FIRST_ENGINES) leaves only the residual.
    The prefill queue's utilisation rho is the share of each mixed step spent on the other requests'
    prefills (prefill_utilisation, from the step with and without them): in iteration-level batching a queued
    prompt shares the weight read with the decode batch, so a memory-bound stand-alone prefill (MoE, short
    prompts) does not occupy the GPU for its whole stand-alone time. The M/D/1 queue then adds
    rho / (2(1 - rho)) x the stand-alone prefill (research §7.2 item 2).

    Above one prompt a step, where an MoE step pays its prefill host time once, the prompts share a pass (bulk
    service, batched_pass_ms): an added prompt lengthens the pass rather than queueing behind it, so the M/D/1 wait
    stays at its utilisation where the step carries one prompt, and the pass grows by the others' work.
    """
    return prefill_ms + queue_ms + wait_ms + batched_ms


def running_steps_wait_ms(step_ms: float, batch: float, eff: InferenceEfficiency, engine: str = "") -> float:
    """The running steps a new request waits for (wait_steps of them), where `batch` other requests run; a request
    alone (closed loop of one) finds none, a trickle of them a share."""
    busy = 1.0 if batch > 1.0 else batch  # min(batch, 1.0) written out (operating_point's hot path)
    return wait_steps(engine, eff) * step_ms * busy


def wait_steps(engine: str, eff: InferenceEfficiency) -> float:
    """Decode steps a new request waits for under load: the residual of the step in flight, plus the step that
    carries its prompt where the engine mixes prompts into decode steps (ttft_wait_steps)."""
    return PREFILL_FIRST_WAIT_STEPS if engine in PREFILL_FIRST_ENGINES else eff.ttft_wait_steps


def md1_wait_ms(service_ms: float, rho: float) -> float:
    """Mean M/D/1 queueing delay: rho / (2(1 - rho)) x service, rho held in [0, MAX_UTILISATION]."""
    rho = 0.0 if rho < 0.0 else rho  # min(max(rho, 0.0), MAX_UTILISATION) written out (operating_point's hot path)
    rho = MAX_UTILISATION if rho > MAX_UTILISATION else rho
    return service_ms * rho / (2.0 * (1.0 - rho))


def md1_wait_cdf(wait_services: float, rho: float) -> float:
    """P(W <= t) in the M/D/1 queue, t in service times (Erlang 1909; Crommelin 1932):
    (1 - rho) x sum over k = 0..floor(t) of (rho (k - t))^k / k! x e^(-rho (k - t)). Exact; the alternating
    sum stays well conditioned for the waits of rho <= MAX_UTILISATION (a few tens of service times)."""
    total = 0.0
    for k in range(int(math.floor(wait_services)) + 1):
        x = rho * (k - wait_services)
        total += x**k / math.factorial(k) * math.exp(-x)
    return (1.0 - rho) * total


def md1_median_wait_ms(service_ms: float, rho: float) -> float:
    """Median M/D/1 queueing delay. A Poisson arrival finds the queue busy with probability rho (PASTA), so
    while rho <= 0.5 at least half the requests wait not at all; beyond, the exact waiting-time distribution
    is solved for its median by bisection (below the mean: the wait is skewed right)."""
    rho = min(max(rho, 0.0), MAX_UTILISATION)
    if rho <= 0.5 or service_ms <= 0:
        return 0.0
    low, high = 0.0, rho / (2.0 * (1.0 - rho))  # the mean wait, in service times: P(W <= mean) > 1/2
    for _ in range(4):  # a guard: never needed for M/D/1, whose P(W <= mean) is ~0.63
        if md1_wait_cdf(high, rho) >= 0.5:
            break
        high *= 2.0
    for _ in range(40):
        mid = (low + high) / 2.0
        low, high = (mid, high) if md1_wait_cdf(mid, rho) < 0.5 else (low, mid)
    return high * service_ms


def batched_pass_ms(prefill_part_ms: float, host_ms: float, prompts: float) -> float:
    """Above one prompt a step, where an MoE step pays its eager prefill host time once (steps.mixed_step_parts'
    cap): the other prompts' work in the prefill pass a prompt rides in. `prefill_part_ms` is the step's time on its
    prompts (the step less its decodes alone), `host_ms` that host time in it, `prompts` the prompts it carries.

    The engines batch the prompts waiting into one prefill pass (SGLang's scheduler takes the waiting queue into
    the next prefill batch up to its token budget, PrefillAdder; vLLM schedules every waiting prompt into the step
    up to max_num_batched_tokens), so beyond one a step the prompts arriving during a pass are served together by
    the next one: a bulk-service queue (Bailey 1954, "On queueing processes with bulk service", JRSS B 16(1)),
    whose pass lengthens with the prompts it carries, the host time paid once. A prompt's pass then carries
    prompts - 1 others' per-token work beside its own: (prompts - 1) / prompts x (prefill part - host time), 0 at
    one prompt a step, so continuous where the cap starts to bind."""
    if prompts <= 1.0:
        return 0.0
    return (prompts - 1.0) / prompts * max(prefill_part_ms - host_ms, 0.0)


def prefill_share_of_step(mixed_ms: float, decode_only_ms: float) -> float:
    """Share of a mixed step's time (`mixed_ms`) spent on the prefills it carries (the step without them:
    `decode_only_ms`)."""
    return max(mixed_ms - decode_only_ms, 0.0) / max(mixed_ms, 1e-9)


def prefill_utilisation(
    mixed_ms: float, decode_only_ms: float, batch: float, service_ms: float, first_ms: float, output_len: float
) -> float:
    """The M/D/1 prefill queue's utilisation: the share of each mixed step its prompts take, at most the share of
    time the arrivals' stand-alone prefills would take (batch x service / a request's life, Little's law). A prompt
    riding in decode steps shares their weight read, so it holds the GPUs no longer than alone; the step average
    can claim more where spreading a prompt over every step reads more weights than one pass (a MoE model's
    experts: 5 prompt tokens a step touch experts the 2,000 of one pass read once), which is not queueing."""
    alone = batch * service_ms / max(request_life_ms(first_ms, decode_only_ms, output_len), 1e-9)
    return min(prefill_share_of_step(mixed_ms, decode_only_ms), alone)
