"""How a training run's bill follows from its offer's terms, in the words a row shows: the hours billed against the
hours used (a billing unit, a minimum term, stated or assumed) and, on spot, the hours lost to interruptions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.scoring.explain import Term, figure, fixed, significant
from app.scoring.pricing.price_terms import HOURS_PER_MONTH, RESTART_HOURS, STARTUP_DETAIL
from app.scoring.training.run.limit_words import days_text
from app.scoring.training.run.offer_terms import RunTerms
from app.scoring.workload import TrainingWorkload

if TYPE_CHECKING:
    from app.scoring.training.estimate import TrainingEstimate

UNIT_WORDS = {24.0: "whole days", 1.0: "whole hours", 1 / 60: "whole minutes"}
# Expected interruptions from which a row's note says what they cost (below it the hours lost are minutes; the
# explanation's wall-time line still says them): one chance in ten, a presentation choice.
NOTED_INTERRUPTIONS = 0.1
# A run shorter than this is said in minutes or seconds beside its start-up (the pages' run_hours macro's 0.1 h).
SHORT_RUN_HOURS = 0.1


def hours_text(hours: float) -> str:
    """`730`, `29.8`, `0.25`: whole hours bare, one decimal from 10 h, else two significant figures."""
    if hours == round(hours):
        return f"{round(hours):,}"
    return f"{fixed(hours, 1)}" if hours >= 10 else figure(hours, 2)


def count_text(count: float) -> str:
    """Expected interruptions: `0.48` reads 0.5 and 0.04 reads 0.04 (never 0), one decimal to 10, whole above."""
    if count < 1:
        return figure(count, 1)
    return f"{fixed(count, 1)}" if count < 10 else f"{fixed(count, 0)}"


def price_text(usd: float) -> str:
    """A $/GPU-hour as its price list gives it (`5.98`, `4.00`), with up to four decimals, else four figures."""
    for decimals in (2, 3, 4):
        if abs(round(usd, decimals) - usd) <= 1e-9 * max(usd, 1.0):
            return f"{usd:,.{decimals}f}"
    return figure(usd)


def _use_text(use: float, billed: float, exact: bool = False) -> str:
    """The hours used, with a second decimal where one would make them look equal to the hours billed; `exact`: to four
    significant figures, what an explanation's arithmetic is checked with."""
    if exact:
        return term_hours(use)
    return f"{fixed(use, 2)}" if use != billed and f"{fixed(use, 1)}" == f"{fixed(billed, 1)}" else hours_text(use)


def term_hours(hours: float) -> str:
    """Hours as a term's arithmetic shows them: four significant figures (`4.274`, `0.25`), so that the figures a
    line shows reproduce its value (a run total of '2 GPUs × 6.89 USD/GPU-h × 4.5 h' read $62.01 for $62.34)."""
    return significant(hours, 4)


def minimum_text(hours: float) -> str:
    """A minimum term in the words it is sold in: `1-month minimum`, `24 h minimum`."""
    months = hours / HOURS_PER_MONTH
    if months >= 1 and months == round(months):
        return f"{round(months)}-month minimum"
    return f"{hours_text(hours)} h minimum"


def use_text(t: RunTerms, exact: bool = False) -> str:
    """The hours used: `0.25 h start-up + 29.8 h of run`, or `29.8 h of use` where the terms count no start-up;
    `exact`: in a term's figures (term_hours), a short run in hours too."""
    if not t.startup_hours:
        return f"{_use_text(t.wall_hours, t.billed_hours, exact)} h of use"
    if t.run_hours < SHORT_RUN_HOURS and not exact:  # '0.00050 h of run' read as nothing: `1.8 s of run`
        return f"{hours_text(t.startup_hours)} h start-up + {days_text(t.run_hours / 24)} of run"
    run = _use_text(t.run_hours, t.billed_hours - t.startup_hours, exact)
    return f"{hours_text(t.startup_hours)} h start-up + {run} h of run"


def billed_formula(t: RunTerms, exact: bool = False) -> str:
    """How the billed hours follow from the use: `max(0.25 h start-up + 29.8 h of run, 1-month minimum, assumed: the
    source states no term)`, `(0.25 h start-up + 348.99 h of run) in whole hours`, `0.25 h start-up + 29.8 h of run`
    (nothing to add)."""
    use = use_text(t, exact)
    if t.unit_hours:
        use = f"({use})" if t.startup_hours else use
        use += f" in {UNIT_WORDS.get(t.unit_hours, f'blocks of {hours_text(t.unit_hours)} h')}"
    if not t.min_term_hours:
        return use
    assumed = ", assumed: the source states no term" if t.min_term_assumed else ""
    return f"max({use}, {minimum_text(t.min_term_hours)}{assumed})"


def lost_text(t: RunTerms) -> str:
    """Spot: `+0.6 h lost to 0.5 interruptions` ("" where none is expected)."""
    if not t.interruptions:
        return ""
    plural = "" if count_text(t.interruptions) in ("1", "1.0") else "s"
    return f"+{hours_text(t.run_hours - t.work_hours)} h lost to {count_text(t.interruptions)} interruption{plural}"


def billing_note(t: RunTerms) -> str:
    """What a row's total rests on beyond GPUs × price × hours used ("" where nothing): the billed hours where they
    exceed the use, and spot's lost hours."""
    parts = []
    if t.billed_hours > t.wall_hours:
        parts.append(f"billed {hours_text(t.billed_hours)} h = {billed_formula(t)}")
    if t.interruptions >= NOTED_INTERRUPTIONS:
        parts.append(f"{hours_text(t.work_hours)} h of work {lost_text(t)}")
    return "; ".join(parts)


def step_cost_terms(est: TrainingEstimate, usd_per_gpu_hour: float, w: TrainingWorkload) -> list[Term]:
    """The explanation's lines from the step to the run: $ per step, and the hours of work the tokens take."""
    gpu_count, step_s = est.gpu_count, est.step_time_s
    gpus, price = gpus_text(gpu_count), price_text(usd_per_gpu_hour)
    steps = w.total_tokens / (w.global_batch_seqs * w.seq_len)
    return [
        Term(
            "$ per step",
            step_s * gpu_count * usd_per_gpu_hour / 3600,
            "USD",
            f"{figure(step_s)} s step × {gpus} × {price} USD/GPU-h / 3,600 s/h",
        ),
        Term(
            "hours of work",
            w.total_tokens / (gpu_count * est.tokens_per_s_per_gpu) / 3600,
            "h",
            f"{significant(w.total_tokens)} tokens / ({gpus} × {figure(est.tokens_per_s_per_gpu)} tokens/s per GPU) / "
            f"3,600 s/h; {figure(steps)} steps of {significant(w.global_batch_seqs * w.seq_len)} tokens, "
            f"{figure(step_s)} s each",
        ),
    ]


def gpus_text(gpu_count: int) -> str:
    return f"{gpu_count:,} GPU{'s' if gpu_count != 1 else ''}"


def run_terms_explained(
    t: RunTerms, gpu_count: int, usd_per_gpu_hour: float, total_usd: float, w: TrainingWorkload
) -> list[Term]:
    """The explanation's lines for the run's bill: the wall time on spot, the hours billed and the total, each in
    figures that reproduce it (term_hours)."""
    terms = []
    if t.interruptions:
        checkpoint, restart = hours_text(w.checkpoint_interval_hours), hours_text(RESTART_HOURS)
        detail = (
            f"{term_hours(t.work_hours)} h of work + {term_hours(t.run_hours - t.work_hours)} h lost to "
            f"interruptions; {count_text(t.interruptions)} expected, each losing half the {checkpoint} h checkpoint "
            f"interval and a {restart} h restart"
        )
        # the run after its start-up: 'wall time' read as the row's total hours, which add the start-up
        terms.append(Term("run time with interruptions", t.run_hours, "h", detail + "; the start-up comes before it"))
    if t.startup_hours:
        terms.append(Term("start-up", t.startup_hours, "h", STARTUP_DETAIL))
    billed = billed_formula(t, exact=True) + (f"; {t.unit_source}" if t.unit_source and not t.min_term_hours else "")
    terms.append(Term("billed hours", t.billed_hours, "h", billed))
    detail = (
        f"{gpus_text(gpu_count)} × {price_text(usd_per_gpu_hour)} USD/GPU-h × {term_hours(t.billed_hours)} h billed"
    )
    terms.append(Term("run total", total_usd, "USD", detail))
    return terms
