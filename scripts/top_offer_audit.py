"""Audit the top of default-form rankings: is the #1 (and the top 3) an offer a buyer can act on today?

Run: `python scripts/top_offer_audit.py [--today YYYY-MM-DD] [--top N] [--verbose]` from the repository root. It
seeds a throwaway SQLite database from seed_data/ (as the app does), ranks each question of QUESTIONS through
app.service.rank.ranking.rank, and checks each top row against the offer's own record and ../shared/reference's
prices.csv and terms.csv:

- exists as ranked: a layout over several nodes uses an offer with a stated inter-node fabric, within its node limit,
  and names an unstated node count (cluster_caveat); never single-GPU rentals stitched into one job;
- default terms: on demand, no minimum term, nothing interruptible or committed in its words; marketplace and
  community hosts labelled;
- the offer's latest price: not an undated snapshot the same provider now prices with a date for the GPU on the same
  terms, nor one its price note calls superseded (stale prices asked for or not);
- dated within the app's stale rule (app.catalog.snapshot.stale_since), a source URL, USD in the reference;
- its price is the reference's (per GPU and per instance), billed by whole instances, and the row's total agrees;
  a run's or batch job's billed hours are whole units where terms.csv gives the provider's billing unit (Vultr: 1 h);
- every risk the offer's words carry is in the row's labels (price_caveats, interruptible, stale, cluster_caveat).

Prints one line per question (its #1) and one per violation; exits 1 if any. Deliberately independent of the app's
own label code: the reference's words are read here, so a label the app drops is caught.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlmodel import Session  # noqa: E402

from app.catalog.setup import migrate, seed  # noqa: E402
from app.catalog.snapshot import DEFAULT_STALE_AFTER_DAYS, load_snapshot, stale_since  # noqa: E402
from app.db import make_engine  # noqa: E402
from app.scoring.inference.ranking.pricing import one_replica_load  # noqa: E402
from app.scoring.specs import CatalogSnapshot, Offer  # noqa: E402
from app.scoring.workload import InferenceWorkload  # noqa: E402
from app.service.query.question import parse  # noqa: E402
from app.service.rank.plain import plain_row  # noqa: E402
from app.service.rank.ranking import rank  # noqa: E402
from scripts.build_seed_prices import PRICE_TYPE_MAP, PROVIDERS  # noqa: E402

REFERENCE = ROOT.parent / "shared" / "reference"

I8, I70, I405 = "model=llama-3.1-8b", "model=llama-3.1-70b", "model=llama-3.1-405b"
INF = "phase=inference&"
TRN = "phase=training&"
CHAT = "&scenario=concurrency&concurrency=32"
RATE = "&scenario=request_rate&requests_per_s=2"
JOB = "&scenario=max_throughput&job_requests=1000000"
QUESTIONS: list[str] = [
    *(f"{INF}{m}" for m in (I8, I70, I405)),
    *(f"{INF}{m}&weight_dtype={d}" for m in (I8, I70, I405) for d in ("fp8", "fp4")),
    f"{INF}model=deepseek-r1",
    f"{INF}model=deepseek-r1&weight_dtype=fp4",
    f"{INF}model=gpt-oss-120b",
    f"{INF}model=mixtral-8x7b",
    f"{INF}model=mixtral-8x22b&weight_dtype=fp8",
    *(f"{INF}{m}{CHAT}" for m in (I8, I70, I405, "model=deepseek-r1")),
    *(f"{INF}{m}{RATE}" for m in (I8, I70, "model=gpt-oss-120b")),
    *(f"{INF}{m}{JOB}" for m in (I8, I70, I405, "model=deepseek-r1")),
    f"{INF}{I70}{JOB}&job_deadline_hours=2",
    f"{INF}{I70}&ttft_ms=200&tpot_ms=15",
    *(f"{TRN}{m}&method={k}" for m in (I8, I70, I405) for k in ("lora", "qlora", "full_ft")),
    *(f"{TRN}{m}&method=pretrain&total_tokens=2e10" for m in (I8, I70)),
    f"{TRN}{I405}&method=pretrain&total_tokens=1e11&max_gpus=512",
    f"{TRN}{I70}&method=full_ft&max_days=1",
    f"{TRN}{I70}&method=full_ft&total_tokens=2e10&max_days=3",
    f"{TRN}{I8}&method=full_ft&budget_usd=200",
    f"{TRN}{I70}&method=lora&budget_usd=500&max_days=2",
    f"{TRN}{I405}&method=full_ft&max_days=7&max_gpus=256",
    f"{TRN}{I8}&method=pretrain&total_tokens=1e11&max_days=5&max_gpus=128",
    f"{TRN}model=deepseek-r1&method=lora",
    f"{TRN}model=mixtral-8x7b&method=full_ft",
    # filters a buyer sets: a GPU, a vendor, a provider
    *(f"{INF}{I70}&gpus={g}" for g in ("H100-SXM", "A100-SXM-80GB", "H200", "L40S", "MI300X")),
    f"{INF}{I8}&vendors=AMD",
    f"{INF}{I405}&weight_dtype=fp8&providers=aws",
    *(f"{TRN}{I70}&method=full_ft&gpus={g}" for g in ("H100-SXM", "A100-SXM-80GB", "MI300X")),
    f"{TRN}{I405}&method=full_ft&providers=aws,azure,gcp",
    # other price terms asked for: each row must still say what its terms are
    f"{INF}{I70}&price_types=on_demand,spot",
    f"{INF}{I8}&price_types=on_demand,marketplace",
    f"{INF}{I70}&price_types=on_demand,reserved,capacity_block",
    f"{TRN}{I70}&method=full_ft&price_types=on_demand,spot",
    f"{TRN}{I405}&method=full_ft&price_types=on_demand,spot,reserved,capacity_block,marketplace",
    f"{TRN}{I8}&method=lora&price_types=on_demand,marketplace",
    f"{INF}{I70}&include_stale=true",
    # Vultr bills by the hour (terms.csv); its one offer is stale, so asked for
    f"{TRN}{I8}&method=lora&providers=vultr&include_stale=true",
    f"{INF}{I8}&scenario=max_throughput&job_requests=10000&providers=vultr&include_stale=true",
    f"{TRN}{I70}&method=full_ft&include_stale=true",
]

# Words in an offer's price note or the reference's row that make a price riskier than on-demand at a price list.
COMMITTED_WORDS = ("reserv", "commit", "contract", "1-year", "3-year", "1 year", "3 year", "contact sales", "minimum")
INTERRUPTIBLE_WORDS = ("spot", "preempt", "interrupt")
HOSTED_LABELS = ("community", "marketplace", "host", "consumer")  # words of the app's labels that say so
ANOTHER_PRICE = re.compile(r"\s*(spot|on-demand|on demand|reserved|spotprice)\b\s*[:$\d]", re.IGNORECASE)
OTHER_GPUS = re.compile(r"\s*([A-Z][\w-]*(?:/[A-Z][\w-]*)*):")
HOSTED_WORDS = ("community", "marketplace", "peer", "unverified host", "third-party host")


@dataclass
class Finding:
    question: str
    position: int  # 1 = the #1 row
    row: str
    problem: str


def seeded_snapshot(today: date) -> CatalogSnapshot:
    folder = Path(tempfile.mkdtemp(prefix="gpumatch-audit-"))
    url = f"sqlite:///{folder / 'audit.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    seed.seed(engine, ROOT / "seed_data")
    with Session(engine) as session:
        return load_snapshot(session, DEFAULT_STALE_AFTER_DAYS, today)


def reference_rows() -> dict[tuple[str, str, int], list[dict[str, str]]]:
    """prices.csv by (provider id, GPU id, GPU count); reference_for picks an offer's among them."""
    found: dict[tuple[str, str, int], list[dict[str, str]]] = {}
    with (REFERENCE / "prices.csv").open() as handle:
        for ref in csv.DictReader(handle):
            if ref["provider"] in PROVIDERS and ref["price_type"] in PRICE_TYPE_MAP:
                found.setdefault((PROVIDERS[ref["provider"]][0], ref["gpu_id"], int(ref["gpu_count"])), []).append(ref)
    return found


def reference_for(offer: Offer, found: dict[tuple[str, str, int], list[dict[str, str]]]) -> list[dict[str, str]]:
    """The reference rows of the offer: same provider, GPU, count, price type as seeded and instance, the instance as
    the seed names it (the reference's, else its GPU name where two products of one GPU share a provider). RunPod's
    Community Cloud is the reference's on-demand rows the seed makes marketplace (scripts/offer_notes.py)."""
    rows = found.get((offer.provider_id, offer.gpu_id, offer.gpu_count), [])
    same_instance = [r for r in rows if offer.instance_type in ("", r["instance_type"], r["gpu"])]
    typed = [r for r in same_instance if PRICE_TYPE_MAP[r["price_type"]][0] == offer.price_type]
    if not typed and offer.provider_id == "runpod-community":
        return same_instance
    return typed


def billing_unit_hours(provider_id: str) -> float | None:
    """terms.csv's on-demand billing unit for the provider (Vultr: 1 hour), in hours; None where it states none."""
    names = [name for name, row in PROVIDERS.items() if row[0] == provider_id]
    units = {"hour": 1.0, "minute": 1 / 60}
    with (REFERENCE / "terms.csv").open() as handle:
        for term in csv.DictReader(handle):
            unit = "billing" in term["term"] and term["price_type"] == "on_demand" and units.get(term["unit"])
            if term["provider"] in names and unit:
                return float(term["value"]) * unit
    return None


def asked_types(query: str) -> set[str]:
    given = dict(parse_qsl(query)).get("price_types")
    return set(given.split(",")) if given else {"on_demand"}


def describe(row: dict[str, Any]) -> str:
    return (
        f"{row.get('replicas') or 1}x{row['gpu_count']}x{row['gpu_id']} at {row['provider']} {row['price_type']} "
        f"${row['usd_per_gpu_hour']}/GPU-h ({row.get('instance_type') or 'per GPU'}, nodes {row.get('nodes')})"
    )


def labels(row: dict[str, Any]) -> str:
    """What the row says of its risks, as the JSON gives it."""
    said = [*row["price_caveats"], row.get("cluster_caveat") or "", row["machine"]]
    said += ["stale" if row["stale"] else "", "interruptible" if row["interruptible"] else ""]
    return "; ".join(s for s in said if s)


def topology_problems(row: dict[str, Any], offer: Offer) -> list[str]:
    """A layout the offer cannot supply as one job, or one whose risk goes unsaid."""
    problems = []
    per_node = offer.gpus_per_node or offer.gpu_count
    nodes = row.get("nodes") or 1
    rack = offer.scaleup_domain_gpus or 0
    if rack > per_node and row["gpu_count"] <= rack:  # one rack-scale NVLink domain: labelled below, no fabric needed
        nodes = 1
    if row["gpu_count"] > max(per_node, rack) or nodes > 1:
        if not offer.inter_node_fabric:
            problems.append(f"{row['gpu_count']} GPUs over {nodes} nodes of {per_node}, and the offer states no fabric")
        if offer.gpu_count == 1 and not offer.gpus_per_node:
            problems.append("a multi-node job stitched from single-GPU rentals")
        if offer.max_nodes is not None and nodes > offer.max_nodes:
            problems.append(f"{nodes} nodes over the offer's limit of {offer.max_nodes}")
        if offer.max_nodes is None and not row.get("cluster_caveat"):
            problems.append("several nodes of an offer that states no node count, without a cluster_caveat")
    spans_instances = rack > per_node and row["gpu_count"] > offer.gpu_count
    if spans_instances and not any("share one" in c for c in row["price_caveats"]):
        problems.append("a rack-scale layout over several instances without the shared-rack caveat")
    return problems


def own_words(ref: dict[str, str], gpu_id: str) -> str:
    """The reference row's price type and the clauses of its notes about this price: not those about another price
    of the same machine ("spot $9.65 total", "on-demand: contact sales") or other GPUs ("B200/GB200: contact sales")."""
    kept = []
    for clause in ref["notes"].split(";"):
        if ANOTHER_PRICE.match(clause):
            continue
        named = OTHER_GPUS.match(clause)
        if named and gpu_id not in named.group(1).split("/"):
            continue
        kept.append(clause)
    return " ".join([ref["price_type"], *kept])


def term_problems(row: dict[str, Any], offer: Offer, asked: set[str], refs: list[dict[str, str]]) -> list[str]:
    problems = []
    if row["price_type"] not in asked:
        problems.append(f"price type {row['price_type']} not asked for")
    if offer.min_term_hours and "reserved" not in asked and "capacity_block" not in asked:
        problems.append(f"a minimum term of {offer.min_term_hours} h")
    words = " ".join([offer.price_note, *(own_words(r, offer.gpu_id) for r in refs)]).lower()
    caveats = " ".join(row["price_caveats"]).lower()
    if any(w in words for w in COMMITTED_WORDS) and not (offer.min_term_hours or caveats):
        problems.append(f"committed terms in its words, unlabelled: {offer.price_note!r}")
    typed = " ".join([offer.price_note, *(r["price_type"] for r in refs)]).lower()
    if any(w in typed for w in INTERRUPTIBLE_WORDS) and not row["interruptible"]:
        problems.append(f"interruptible in its words, not labelled interruptible: {offer.price_note!r}")
    if row["interruptible"] and "spot" not in asked:
        problems.append("interruptible, and spot was not asked for")
    hosted = any(w in words for w in HOSTED_WORDS) or offer.price_type == "marketplace"
    said = row["price_type"] == "marketplace" or any(w in caveats for w in HOSTED_LABELS)
    if hosted and not said:
        problems.append("community or marketplace hosts, unlabelled")
    return problems


def superseded_problems(offer: Offer, offers: list[Offer]) -> list[str]:
    """A price that a newer one of the same offer replaced: an undated snapshot of a provider's GPU that the provider
    now prices with a date on the same terms (read from the offers' dates, not the app's label), or a price note
    saying so."""
    newer = [
        o
        for o in offers
        if o.as_of is not None
        and (o.provider_id, o.gpu_id, o.price_type) == (offer.provider_id, offer.gpu_id, offer.price_type)
    ]
    if offer.as_of is None and newer:
        latest = max(newer, key=lambda o: o.as_of or date.min)
        now = f"{offer.provider_id}'s ${latest.usd_per_gpu_hour}/GPU-h of {latest.as_of}"
        return [f"an undated price superseded by {now}"]
    if "superseded" in offer.price_note.lower():
        return [f"a superseded price: {offer.price_note!r}"]
    return []


def date_problems(
    row: dict[str, Any], offer: Offer, today: date, refs: list[dict[str, str]], stale_asked: bool
) -> list[str]:
    problems = []
    if offer.as_of is None:
        if not row["stale"]:
            problems.append("undated price, not labelled stale")
    elif stale_since(offer.as_of, DEFAULT_STALE_AFTER_DAYS) <= today and not row["stale"]:
        problems.append(f"dated {offer.as_of}, stale by the app's rule, not marked stale")
    elif stale_since(offer.as_of, DEFAULT_STALE_AFTER_DAYS) > today and row["stale"]:
        problems.append(f"dated {offer.as_of}, fresh by the app's rule, marked stale")
    if row["stale"] and not stale_asked:
        problems.append("a stale price ranked, and include_stale was not asked for")
    if not row.get("price_source_url"):
        problems.append("no source URL")
    for ref in refs:
        if ref["currency"] != "USD" and "rate" not in ref["notes"].lower():
            problems.append(f"currency {ref['currency']} without a stated rate")
    return problems


def price_problems(
    row: dict[str, Any], offer: Offer, refs: list[dict[str, str]], phase: str, fixed_load: bool = False
) -> list[str]:
    problems = []
    if not refs:
        return [f"no prices.csv row for {offer.provider_id} {offer.gpu_id} x{offer.gpu_count} {offer.price_type}"]
    per_gpu = {round(float(r["price_per_gpu_hour"]), 4) for r in refs if r["price_per_gpu_hour"]}
    totals = {round(float(r["price_per_hour_total"]), 4) for r in refs if r["price_per_hour_total"]}
    if not any(math.isclose(row["usd_per_gpu_hour"], p, rel_tol=2e-3, abs_tol=0.006) for p in per_gpu):
        problems.append(f"${row['usd_per_gpu_hour']}/GPU-h, the reference says {sorted(per_gpu)}")
    instance_usd = row["usd_per_gpu_hour"] * offer.gpu_count
    if totals and not any(math.isclose(instance_usd, t, rel_tol=2e-3, abs_tol=0.01) for t in totals):
        problems.append(
            f"${instance_usd:.2f}/h per {offer.gpu_count}-GPU instance, the reference says {sorted(totals)}"
        )
    instance = max(offer.gpu_count, 1)
    if phase == "training":
        billed_gpus = -(-row["gpu_count"] // instance) * instance
        expected = row["billed_hours"] * billed_gpus * row["usd_per_gpu_hour"]
        if not math.isclose(row["total_usd"], expected, rel_tol=5e-3):
            problems.append(f"total ${row['total_usd']:.2f}, {billed_gpus} billed GPUs say ${expected:.2f}")
        if row["gpu_count"] % instance and "instances" not in row["machine"]:
            problems.append(f"{row['gpu_count']} GPUs on {instance}-GPU instances, whole-instance billing unsaid")
    else:
        problems += serving_billing_problems(row, instance, fixed_load)
    billed = row.get("billed_hours") or row.get("job_billed_hours")
    unit = billing_unit_hours(offer.provider_id)
    if billed and unit and offer.price_type == "on_demand" and abs(billed / unit - round(billed / unit)) > 1e-6:
        problems.append(f"billed {billed:.3f} h, not whole {unit:g} h units as terms.csv says the provider bills")
    return problems


def serving_billing_problems(row: dict[str, Any], instance: int, fixed_load: bool = False) -> list[str]:
    """A serving row bills whole instances: its copies share one, and its $ per token is the instance's over them;
    at a fixed load one copy takes it all, so its $ per token is the whole instance's, its idle GPUs said."""
    problems = []
    if row["instance_gpus"] != instance:
        problems.append(f"instance_gpus {row['instance_gpus']}, the offer rents {instance}")
    if row["instances"] * row["instance_gpus"] < (row["replicas"] or 1) * row["gpu_count"]:
        problems.append(f"{row['instances']} instances of {row['instance_gpus']} hold fewer than its GPUs")
    idle = row["gpu_count"] < instance and row["copies_per_instance"] * row["gpu_count"] < instance
    if idle and f"{instance}-GPU instance" not in row["machine"] + str(row.get("assumptions")):
        problems.append(f"{row['gpu_count']} GPUs billed as a {instance}-GPU instance, unsaid")
    if fixed_load and row["gpu_count"] % instance and "idle at this load" not in row["machine"]:
        problems.append(f"{row['gpu_count']} GPUs billed as whole {instance}-GPU instances at a fixed load, unsaid")
    tokens_per_s = row["output_tokens_per_s"]
    if tokens_per_s and row["usd_per_million_output_tokens"] and row.get("job_usd") is None:
        usd_per_hour = row["usd_per_gpu_hour"] * instance / row["copies_per_instance"]
        if row["gpu_count"] > instance or fixed_load:
            usd_per_hour = row["usd_per_gpu_hour"] * -(-row["gpu_count"] // instance) * instance
        expected = usd_per_hour / (tokens_per_s * 3600) * 1e6
        if not math.isclose(row["usd_per_million_output_tokens"], expected, rel_tol=0.02):
            problems.append(
                f"${row['usd_per_million_output_tokens']:.4f}/M output tokens, its billed GPUs say ${expected:.4f}"
            )
    if row.get("job_usd") is not None:
        expected = row["job_billed_hours"] * row["instances"] * row["instance_gpus"] * row["usd_per_gpu_hour"]
        if not math.isclose(row["job_usd"], expected, rel_tol=5e-3):
            problems.append(f"a batch job of ${row['job_usd']:.2f}, its whole instances say ${expected:.2f}")
    return problems


def audit(today: date, top: int, verbose: bool = False) -> tuple[list[str], list[Finding]]:
    snapshot = seeded_snapshot(today)
    offers = {o.offer_id: o for o in snapshot.offers}
    every_offer = list(snapshot.offers)
    refs = reference_rows()
    lines: list[str] = []
    findings: list[Finding] = []
    for query in QUESTIONS:
        parsed = parse(parse_qsl(query))
        assert parsed.workload is not None, f"{query}: {parsed.errors}"
        ranking = rank(parsed.phase, parsed.workload, snapshot).ranking
        rows = [plain_row(o, True, {}) for o in ranking.options[:top] if o.feasible]
        fixed = isinstance(parsed.workload, InferenceWorkload) and one_replica_load(parsed.workload)
        lines.append(f"{query}\n    #1 {describe(rows[0]) if rows else 'nothing feasible'}")
        for position, row in enumerate(rows, 1):
            if verbose:
                lines.append(f"    #{position} {describe(row)} | {labels(row)}")
            offer = offers[row["offer_id"]]
            matched = reference_for(offer, refs)
            problems = [
                *topology_problems(row, offer),
                *term_problems(row, offer, asked_types(query), matched),
                *superseded_problems(offer, every_offer),
                *date_problems(row, offer, today, matched, parsed.workload.include_stale),
                *price_problems(row, offer, matched, parsed.phase, fixed),
            ]
            findings.extend(Finding(query, position, describe(row), p) for p in problems)
    return lines, findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--today", type=date.fromisoformat, default=date.today(), help="the day prices age to")
    parser.add_argument("--top", type=int, default=3, help="rows checked per question")
    parser.add_argument("--verbose", action="store_true", help="every checked row with its labels")
    args = parser.parse_args()
    lines, findings = audit(args.today, args.top, args.verbose)
    print("\n".join(lines))
    print(f"\n{len(QUESTIONS)} questions, top {args.top} rows each, priced on {args.today}")
    for f in findings:
        print(f"VIOLATION #{f.position} {f.row}\n    {f.question}\n    {f.problem}")
    print(f"{len(findings)} violations")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
