"""How a training run's bill follows from its offer's terms, in the words a row shows: the hours billed against the
hours used (a billing unit, a minimum term, stated or assumed) and, on spot, the hours lost to interruptions."""

from __future__ import annotations

from app.scoring.explain import Term, figure, fixed
from app.scoring.pricing.price_terms import HOURS_PER_MONTH, RESTART_HOURS, STARTUP_DETAIL
from app.scoring.training.run.limit_words import days_text
from app.scoring.training.run.offer_terms import RunTerms
from app.scoring.workload import TrainingWorkload

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


def _use_text(use: float, billed: float) -> str:
    """The hours used, with a second decimal where one would make them look equal to the hours billed."""
    return f"{fixed(use, 2)}" if use != billed and f"{fixed(use, 1)}" == f"{fixed(billed, 1)}" else hours_text(use)


def minimum_text(hours: float) -> str:
    """A minimum term in the words it is sold in: `1-month minimum`, `24 h minimum`."""
    months = hours / HOURS_PER_MONTH
    if months >= 1 and months == round(months):
        return f"{round(months)}-month minimum"
    return f"{hours_text(hours)} h minimum"


def use_text(t: RunTerms) -> str:
    """The hours used: `0.25 h start-up + 29.8 h of run`, or `29.8 h of use` where the terms count no start-up."""
    if not t.startup_hours:
        return f"{_use_text(t.wall_hours, t.billed_hours)} h of use"
    if t.run_hours < SHORT_RUN_HOURS:  # '0.00050 h of run' read as nothing: `1.8 s of run`, `4.5 min of run`
        return f"{hours_text(t.startup_hours)} h start-up + {days_text(t.run_hours / 24)} of run"
    run = _use_text(t.run_hours, t.billed_hours - t.startup_hours)
    return f"{hours_text(t.startup_hours)} h start-up + {run} h of run"


def billed_formula(t: RunTerms) -> str:
    """How the billed hours follow from the use: `max(0.25 h start-up + 29.8 h of run, 1-month minimum, assumed: the
    source states no term)`, `(0.25 h start-up + 348.99 h of run) in whole hours`, `0.25 h start-up + 29.8 h of run`
    (nothing to add)."""
    use = use_text(t)
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


def steps_term(t: RunTerms, w: TrainingWorkload, step_time_s: float) -> Term:
    """The optimizer steps the token budget takes and the hours they run: the link from a step's terms to the run's
    (found by qa44: the bill's '45.8 h of run' followed from no line a reader could check)."""
    tokens_per_step = w.global_batch_seqs * w.seq_len
    steps = w.total_tokens / tokens_per_step
    detail = (
        f"{w.total_tokens:,.0f} tokens ÷ {tokens_per_step:,} tokens a step ({w.global_batch_seqs:,} sequences × "
        f"{w.seq_len:,} tokens); × {figure(step_time_s)} s a step = {hours_text(t.work_hours)} h of run"
    )
    return Term("steps", steps, "steps", detail + (", before interruptions" if t.interruptions else ""))


def run_terms_explained(
    t: RunTerms,
    gpu_count: int,
    usd_per_gpu_hour: float,
    total_usd: float,
    w: TrainingWorkload,
    step_time_s: float | None = None,
) -> list[Term]:
    """The explanation's lines for the run's bill: its steps and their hours (given the step's time), the wall time on
    spot, the hours billed and the total."""
    terms = [] if step_time_s is None else [steps_term(t, w, step_time_s)]
    if t.interruptions:
        checkpoint, restart = hours_text(w.checkpoint_interval_hours), hours_text(RESTART_HOURS)
        detail = (
            f"{hours_text(t.work_hours)} h of work {lost_text(t)}, each losing half the {checkpoint} h checkpoint "
            f"interval and a {restart} h restart"
        )
        # the run after its start-up: 'wall time' read as the row's total hours, which add the start-up
        terms.append(Term("run time with interruptions", t.run_hours, "h", detail + "; the start-up comes before it"))
    if t.startup_hours:
        terms.append(Term("start-up", t.startup_hours, "h", STARTUP_DETAIL))
    billed = billed_formula(t) + (f"; {t.unit_source}" if t.unit_source and not t.min_term_hours else "")
    terms.append(Term("billed hours", t.billed_hours, "h", billed))
    gpus = f"{gpu_count:,} GPU{'s' if gpu_count != 1 else ''}"
    detail = f"{gpus} × {price_text(usd_per_gpu_hour)} USD/GPU-h × {hours_text(t.billed_hours)} h billed"
    terms.append(Term("run total", total_usd, "USD", detail))
    return terms
