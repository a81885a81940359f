"""Build seed_data/providers.csv, offers.csv and token_prices.csv from ../shared/reference.

Run by hand when the reference changes (`python scripts/build_seed_prices.py`); the output is
committed and is what the app loads. The output is deterministic: rows are sorted on their natural
key, numbers are written from decimals (no float noise), and nothing depends on the clock.

Normalisation (see also the summary printed at the end):
- `price_type` is reduced to app.scoring.specs.PRICE_TYPES (on_demand | spot | reserved | marketplace |
  capacity_block); the variant text of the reference goes into `price_note` ("list price", "managed
  deployment"...). "'as low as'" prices are discounted/committed floors, so they become `reserved`, not
  on_demand. Per-second serverless GPUs (Modal, Replicate) and managed deployments (Fireworks) are
  pay-as-you-go with no commitment, so they are `on_demand`, and the note says what kind of machine it is.
- Reserved and capacity-block rows get `min_term_hours` where a term is stated (TERMS below); else empty.
- Topology columns (gpus_per_node, intra_node_link, inter_node_fabric, inter_node_gbps_per_gpu,
  max_nodes, topology_source) are copied; empty stays empty (unknown, never "none"). `scaleup_domain_gpus` is
  read from topology_source where it says the NVLink domain spans more GPUs than a node (an NVL72 rack).
- `usd_per_gpu_hour` = `usd_per_hour` / `gpu_count`, checked against the reference's per-GPU column.
- `as_of` is an ISO date or empty (date unknown); anything that was not a plain date keeps its
  original text in `notes`, and approximate dates say so.
- Rows are dropped only for a stated reason (printed): a price superseded by a newer one for the same
  offer (its value goes into the newer row's notes), or an estimate the source says not to use.

Per-token prices (token_prices.csv) also carry what the reference says about trusting them:
- `as_of_basis`: how the date reads. `exact` (a day the price was read), `on_or_before` ("<=2026-12-01": a
  maintained table read that day, the entry's own date unknown), `approximate` ("~2025"); empty = undated.
- The reference's doubts (scripts/token_trust.py reads them from its words): `unverified` (true/false: the reference
  marks the figure UNVERIFIED, Hyperbolic's 0.12/0.30 for 8B..405B "looks like a placeholder"), `deprecated` (the
  provider deprecated or retired the model: Groq's HISTORICAL Llama/Mixtral rows), `disputed_input_usd_per_mtok` and
  `disputed_output_usd_per_mtok` (another source's figures: a CONFLICT note, or two readings that disagree),
  `availability_unconfirmed` (Cerebras' Llama rows: "verify"), `weak_source` (Vertex's 405B row: "weak provenance").
  `status_note` keeps the reference's words. The app lists unverified and deprecated prices, labelled, and never
  compares against them; the other doubts are compared and labelled (app/scoring/pricing/token_prices.py says how).
- One entry per provider and model: entries of one model on the same terms (one price under two of the
  provider's model names) keep the latest (app.scoring.pricing.token_prices.same_terms, the rule the app applies too);
  the other is cited in its notes. Entries that differ in terms (a fast and a basic tier) all stay.
"""

from __future__ import annotations

import csv
import re
import sys
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "seed_data"

sys.path.insert(0, str(ROOT))
from scripts.reference_arg import DEFAULT_REFERENCE, reference_dir  # noqa: E402

REFERENCE = DEFAULT_REFERENCE  # or the command line's first argument (reference_arg)
from app.scoring.pricing.token_prices import same_terms  # noqa: E402  (the app's rule for entries on the same terms)
from app.scoring.specs import PRICE_TYPES, UNSOLD_ON_THESE_TERMS  # noqa: E402  (the app's vocabulary and words)
from scripts.offer_notes import (  # noqa: E402  (caveats and readings of offers, worded once)
    CLUSTER_SALE,
    COMMUNITY_HOSTED,
    CONSUMER_CARD,
    GMI_ARTICLE,
    GMI_ARTICLE_TITLE,
    HISTORICAL,
    Statement,
    consumer_gpus,
    gmi_statement,
    mark_superseded,
    merge_repeated_readings,
)
from scripts.token_trust import readings_disagree, trust_flags  # noqa: E402  (the reference's doubts, read)

Report = dict[str, list[str]]  # what the build did, by kind: dropped, renamed, added, mismatch, flagged, ...

# Reference provider name -> (id, name, kind, url). The id is the slug of the brand name. RunPod's Secure and Community
# clouds are two providers, as in the reference: Community Cloud is hosted by third parties (a marketplace, gpus.csv row
# RTX-4090), and as one provider its cheaper rows hid Secure Cloud's from every ranking (one row per provider). `runpod`
# stays Secure Cloud, so a link naming providers=runpod ranks RunPod's own datacenters. Nebius AI Studio (token API,
# now "Token Factory") is kept apart from Nebius' GPU cloud.
PROVIDERS = {
    "AWS": ("aws", "AWS", "hyperscaler", "https://aws.amazon.com/"),
    "Azure": ("azure", "Microsoft Azure", "hyperscaler", "https://azure.microsoft.com/"),
    "GCP": ("gcp", "Google Cloud", "hyperscaler", "https://cloud.google.com/"),
    "Lambda": ("lambda", "Lambda", "neocloud", "https://lambda.ai/"),
    "Nebius": ("nebius", "Nebius", "neocloud", "https://nebius.com/"),
    "CoreWeave": ("coreweave", "CoreWeave", "neocloud", "https://www.coreweave.com/"),
    "Crusoe": ("crusoe", "Crusoe", "neocloud", "https://www.crusoe.ai/"),
    "RunPod (Secure)": ("runpod", "RunPod Secure Cloud", "neocloud", "https://www.runpod.io/"),
    "RunPod (Community)": ("runpod-community", "RunPod Community Cloud", "marketplace", "https://www.runpod.io/"),
    "Hyperstack": ("hyperstack", "Hyperstack", "neocloud", "https://www.hyperstack.cloud/"),
    "Together AI": ("together-ai", "Together AI", "neocloud", "https://www.together.ai/"),
    "GMI Cloud": ("gmi-cloud", "GMI Cloud", "neocloud", "https://www.gmicloud.ai/"),
    "Verda (DataCrunch)": ("verda", "Verda (DataCrunch)", "neocloud", "https://verda.com/"),
    "Paperspace": ("paperspace", "Paperspace", "neocloud", "https://www.paperspace.com/"),
    "OpenRelay": ("openrelay", "OpenRelay", "neocloud", "https://openrelay.inc/"),
    "Oracle OCI": ("oracle-oci", "Oracle Cloud (OCI)", "hyperscaler", "https://www.oracle.com/cloud/"),
    "Jarvislabs": ("jarvislabs", "Jarvislabs", "neocloud", "https://jarvislabs.ai/"),
    "TensorWave": ("tensorwave", "TensorWave", "neocloud", "https://tensorwave.com/"),
    "Vultr": ("vultr", "Vultr", "neocloud", "https://www.vultr.com/"),
    "Hyperbolic": ("hyperbolic", "Hyperbolic", "marketplace", "https://hyperbolic.xyz/"),
    "Novita AI": ("novita-ai", "Novita AI", "serverless", "https://novita.ai/"),
    "Amazon Bedrock": ("amazon-bedrock", "Amazon Bedrock", "serverless", "https://aws.amazon.com/bedrock/"),
    "Google Vertex AI (MaaS)": (
        "google-vertex-ai",
        "Google Vertex AI (MaaS)",
        "serverless",
        "https://cloud.google.com/vertex-ai",
    ),
    "Azure AI Foundry": ("azure-ai-foundry", "Azure AI Foundry", "serverless", "https://ai.azure.com/"),
    "Vast.ai": ("vast-ai", "Vast.ai", "marketplace", "https://vast.ai/"),
    "Akash Network": ("akash-network", "Akash Network", "marketplace", "https://akash.network/"),
    "Modal": ("modal", "Modal", "serverless", "https://modal.com/"),
    "Replicate": ("replicate", "Replicate", "serverless", "https://replicate.com/"),
    "fal.ai": ("fal-ai", "fal.ai", "serverless", "https://fal.ai/"),
    "Fireworks AI": ("fireworks-ai", "Fireworks AI", "serverless", "https://fireworks.ai/"),
    "DeepInfra": ("deepinfra", "DeepInfra", "serverless", "https://deepinfra.com/"),
    "Groq": ("groq", "Groq", "serverless", "https://groq.com/"),
    "Cerebras": ("cerebras", "Cerebras", "serverless", "https://www.cerebras.ai/"),
    "SambaNova": ("sambanova", "SambaNova", "serverless", "https://sambanova.ai/"),
    "Nebius AI Studio": (
        "nebius-ai-studio",
        "Nebius AI Studio",
        "serverless",
        "https://nebius.com/ai-studio",
    ),
}
# The reference names Nebius' token API both ways; one provider.
PROVIDERS["Nebius AI Studio / Token Factory"] = PROVIDERS["Nebius AI Studio"]

# Reference price_type -> (normalised type, price_note).
PRICE_TYPE_MAP = {
    "on_demand": ("on_demand", ""),
    "spot": ("spot", ""),
    "reserved": ("reserved", ""),
    "capacity_block": ("capacity_block", ""),
    "marketplace_on_demand": ("marketplace", "marketplace on-demand"),
    "serverless_per_second": ("on_demand", "serverless container billed per second, no commitment"),
    "on_demand (managed deployment)": ("on_demand", "managed deployment (inference endpoint), not a bare VM"),
    "on_demand (list)": ("on_demand", "list price"),
    "on_demand ('as low as')": (
        "reserved",
        "'as low as' price (discounted/committed floor), listed next to the on-demand list price",
    ),
}

# Minimum paid term of committed prices, in hours, where a source states it: (provider, price type) ->
# (hours, source). AWS EC2 Capacity Blocks are sold in 1-day increments, so a block is at least 24 h
# (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html; not in shared/reference).
# Hyperstack's reserved rows say "contract term" with no length and fal.ai's "as low as" floors name no
# term: their min_term_hours stays empty (unknown) and the note says so.
TERMS = {
    ("AWS", "capacity_block"): (24.0, "AWS Capacity Blocks: reserved in 1-day increments (EC2 user guide)"),
}
TOPOLOGY_FIELDS = [
    "gpus_per_node",
    "intra_node_link",
    "inter_node_fabric",
    "inter_node_gbps_per_gpu",
    "max_nodes",
    "topology_source",
]


HYPERSCALERS = {key for key, value in PROVIDERS.items() if value[2] == "hyperscaler"}
OFFER_KEY = ("provider_id", "gpu_id", "gpu_count", "price_type", "instance_type", "region")
OFFER_FIELDS = [
    "provider_id",
    "gpu_id",
    "gpu_count",
    "instance_type",
    "region",
    "price_type",
    "price_note",
    "usd_per_hour",
    "usd_per_gpu_hour",
    "as_of",
    "source_url",
    "retrieved_via",
    "verification",
    "notes",
    "min_term_hours",
    *TOPOLOGY_FIELDS,
    "scaleup_domain_gpus",
]
TOKEN_FIELDS = [
    "provider_id",
    "model_id",
    "provider_model_id",
    "model_name",
    "input_usd_per_mtok",
    "output_usd_per_mtok",
    "cached_input_usd_per_mtok",
    "lora_serving",
    "lora_source",
    "as_of",
    "as_of_basis",
    "unverified",
    "deprecated",
    "disputed_input_usd_per_mtok",
    "disputed_output_usd_per_mtok",
    "availability_unconfirmed",
    "weak_source",
    "status_note",
    "source_url",
    "retrieved_via",
    "verification",
    "notes",
]

DOUBT_FIELDS = ("unverified", "deprecated", "availability_unconfirmed", "weak_source")  # true/false columns
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def fmt(value: Decimal) -> str:
    """A decimal as plain text with at most 6 places and no trailing zeros ('53.52', '4.5', '50')."""
    text = f"{value.quantize(Decimal('0.000001'))}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def source_caveat(verification: str) -> str:
    """A buyer-facing caveat for a price not read from a price list: a provider's own article or blog, a third-party
    blog or research note, or a statistic of several marketplace offers (Vast.ai's medians and averages); '' for price
    pages and catalogs, whose rows say their source."""
    text = verification.lower()
    if text.startswith("secondary") and ("blog" in text or "research note" in text):
        return "price read from a third-party write-up, not the provider's price list"
    if ("article" in text or "blog" in text) and ("first-party" in text or "vendor" in text):
        return "price from the provider's own article, not its price list"
    if re.search(r"\b(median|average) of\b", text) or "host median" in text:
        return "a median or average of observed marketplace offers, not one offer's price (they move daily)"
    return ""


def join(*parts: str) -> str:
    return "; ".join(p.strip() for p in parts if p and p.strip())


def parse_as_of(text: str, retrieved_via: str = "") -> tuple[str, str]:
    """Return (ISO date or '', note). The note keeps the original text whenever it was not a plain date."""
    text = text.strip()
    if ISO.match(text):
        return text, ""
    original = f"as_of in reference: '{text}'"
    if text.upper().startswith("UNKNOWN") or text.lower().startswith("undated"):
        return "", join(original, "date unknown, as_of left empty")
    if match := re.match(r"^<=\s*(\d{4}-\d{2}-\d{2})", text):
        return match.group(1), join(original, "upper bound: price seen no later than this date")
    if match := re.match(r"^effective (\d{4}-\d{2}-\d{2})", text):
        read = re.search(r"read (\d{4}-\d{2}-\d{2})", retrieved_via)
        if read:
            return read.group(1), join(original, f"as_of = date the source was read; price effective {match.group(1)}")
        return match.group(1), original
    if match := re.match(r"^(\d{4}-\d{2}-\d{2}) \(", text):
        return match.group(1), original
    if match := re.match(r"^(\d{4}-\d{2})$", text):
        return f"{match.group(1)}-01", join(original, "month only: first of the month used")
    if match := re.match(r"^late (\d{4})", text):
        # AWS Capacity Blocks copy: "page said next update 2025-01-01", so current in December.
        return f"{match.group(1)}-12-01", join(
            original, "approximate: first of December used (price current late in the year)"
        )
    if match := re.match(r"^~(\d{4})\b", text):
        year = match.group(1)
        if "mid" in retrieved_via.lower() or "mid" in text.lower():
            return f"{year}-06-01", join(original, "approximate: mid-year, first of June used")
        return f"{year}-01-01", join(original, "approximate: year only, first of January used")
    raise ValueError(f"unparseable as_of {text!r}")


def as_of_basis(text: str) -> str:
    """How a token price's as_of reads: exact | on_or_before | approximate, or '' where it is undated."""
    text = text.strip()
    if text.startswith("<="):
        return "on_or_before"
    if text.startswith("~") or text.lower().startswith("late ") or re.match(r"^\d{4}-\d{2}$", text):
        return "approximate"
    if ISO.match(text[:10]):
        return "exact"
    return ""


def read(name: str) -> list[dict[str, str]]:
    with open(REFERENCE / name, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def seed_rows(name: str) -> list[dict[str, str]]:
    with open(SEED / name, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def ids(name: str) -> set[str]:
    return {row["id"] for row in seed_rows(name)}


def min_term_hours(provider: str, price_type: str) -> tuple[str, str]:
    """(hours or '', note) for committed prices; on-demand, spot and marketplace have no term."""
    if price_type not in ("reserved", "capacity_block"):
        return "", ""
    if (provider, price_type) in TERMS:
        hours, source = TERMS[(provider, price_type)]
        return fmt(Decimal(str(hours))), f"minimum {hours:g} h ({source})"
    return "", "term length not stated by the source"


def topology(ref: dict[str, str]) -> dict[str, str]:
    """The machine columns as published; numbers normalised, words lower-cased, empty = unknown."""
    row = {name: ref[name].strip() for name in TOPOLOGY_FIELDS}
    for name in ("intra_node_link", "inter_node_fabric"):
        row[name] = row[name].lower()
    for name in ("gpus_per_node", "inter_node_gbps_per_gpu", "max_nodes"):
        row[name] = fmt(Decimal(row[name])) if row[name] else ""
    row["scaleup_domain_gpus"] = scaleup_domain(row["topology_source"], row["gpus_per_node"])
    return row


# The topology source stating an NVLink domain wider than the node ("GB200 NVL72 rack: NVLink domain spans 72 GPUs").
DOMAIN_SPANS = re.compile(r"NVLink domain spans (\d+) GPUs", re.IGNORECASE)


def scaleup_domain(topology_source: str, gpus_per_node: str) -> str:
    """GPUs the offer's NVLink domain spans where its topology source says it is wider than the node; else empty."""
    match = DOMAIN_SPANS.search(topology_source)
    if not match or not gpus_per_node or int(match.group(1)) <= int(Decimal(gpus_per_node)):
        return ""
    return match.group(1)


def restate(ref: dict[str, str], as_of: str, per_gpu: Decimal, statement: Statement, where: str, report: Report) -> str:
    """A GMI Cloud row against its article's rate: the mismatch reported; an older reading of the same rate dated by
    the article's (newer) reading, with that reading's page and words, the first reading kept in the notes (ref is
    changed in place). Returns the note to add."""
    rate = statement.rates[ref["gpu_id"]]
    if per_gpu != rate:
        report["mismatch"].append(f"{where}: GMI Cloud {per_gpu} differs from the article rate {rate}")
        return ""
    if GMI_ARTICLE_TITLE in ref["retrieved_via"] or as_of >= statement.as_of:
        return ""
    first = f"first read {as_of or 'undated'} from {ref['source_url']} ({ref['retrieved_via']}; {ref['verification']})"
    ref.update(
        as_of=statement.as_of,
        source_url=statement.source_url,
        retrieved_via=statement.retrieved_via,
        verification=statement.verification,
    )
    report["redated"].append(f"{where}: ${fmt(rate)}/GPU-h dated {statement.as_of} by {GMI_ARTICLE}, {first}")
    restated = f"the same ${fmt(rate)}/GPU-h re-stated in {GMI_ARTICLE}, read {statement.as_of}"
    return f"{restated}: dated by that reading; {first}"


# A reference row's notes saying its shape is not sold on demand: its on-demand price is a list price nobody can rent
# at (GCP's a3-highgpu-1g/2g/4g: "Spot/Flex-start only; on-demand-equivalent list price"). The row stays (a database
# seeded before keeps its id and history) and its note says so: the app never ranks it (specs.Offer.unsold).
NOT_SOLD_ON_DEMAND = re.compile(r"spot/flex-start only|on-demand-equivalent", re.IGNORECASE)


def price_note_of(ref: dict[str, str], price_note: str, as_of: str, consumer: set[str]) -> str:
    """The type's note, then every caveat the reference's words give (app PRICE_CAVEATS reads them back)."""
    context = f"{ref['notes']} {ref['verification']}".lower()
    if "historical" in ref["notes"].lower() or not as_of:
        price_note = join(price_note, HISTORICAL)
    if "'from' price" in context or "'starting at'" in context:
        price_note = join(price_note, "'from'/'starting at' price")
    if "where available" in ref["notes"].lower():
        price_note = join(price_note, "where available (capacity not guaranteed)")
    price_note = join(price_note, source_caveat(ref["verification"]))
    if ref["provider"] in HYPERSCALERS and ref["instance_type"] != "per chip":
        price_note = join(price_note, "instance price includes host CPU/RAM")
    if ref["gpu_id"] in consumer:
        price_note = join(price_note, CONSUMER_CARD)
    if "cluster" in ref["instance_type"].lower() and not ref["gpus_per_node"]:
        price_note = join(price_note, CLUSTER_SALE)
    if ref["price_type"] == "on_demand" and NOT_SOLD_ON_DEMAND.search(ref["notes"]):
        price_note = join(price_note, f"{UNSOLD_ON_THESE_TERMS}: {ref['notes'].strip()}")
    return price_note


def build_offers(report: Report) -> list[dict[str, str]]:
    gpu_ids = ids("gpus.csv")
    consumer = consumer_gpus(seed_rows("gpus.csv"))
    refs = read("prices.csv")
    statement = gmi_statement(refs)
    rows: list[dict[str, str]] = []
    superseded: list[dict[str, str]] = []
    for line, ref in enumerate(refs, start=2):
        what = f"{ref['provider']} {ref['gpu_id']} x{ref['gpu_count']} {ref['price_type']}"
        where = f"prices.csv line {line} ({what})"
        if ref["provider"] not in PROVIDERS:
            raise SystemExit(f"{where}: unknown provider, add it to PROVIDERS")
        if ref["gpu_id"] not in gpu_ids:
            raise SystemExit(f"{where}: gpu_id not in seed_data/gpus.csv")
        if ref["currency"] != "USD":
            raise SystemExit(f"{where}: currency {ref['currency']}")
        if ref["verification"].upper().startswith("UNVERIFIED") and "do not use" in ref["notes"].lower():
            report["dropped"].append(
                f"{where}: ${ref['price_per_hour_total']}/h is an estimate the source "
                f"says not to use ({ref['verification']})"
            )
            continue
        ref = dict(ref)  # restate() may date it by a newer reading
        price_type, price_note = PRICE_TYPE_MAP[ref["price_type"]]
        if ref["provider"] in COMMUNITY_HOSTED:
            price_type, price_note = "marketplace", join(COMMUNITY_HOSTED[ref["provider"]], price_note)
        count = int(ref["gpu_count"])
        total = Decimal(ref["price_per_hour_total"])
        per_gpu = total / count
        ref_per_gpu = Decimal(ref["price_per_gpu_hour"])
        notes = [ref["notes"]]
        if abs(per_gpu - ref_per_gpu) > Decimal("0.00006"):
            report["mismatch"].append(f"{where}: {fmt(total)}/{count} = {fmt(per_gpu)} vs reference {ref_per_gpu}")
            notes.append(f"reference per-GPU column says {ref_per_gpu}")
        as_of, as_of_note = parse_as_of(ref["as_of"], ref["retrieved_via"])
        notes.append(as_of_note)
        if ref["provider"] == "GMI Cloud" and ref["gpu_id"] in statement.rates:
            notes.append(restate(ref, as_of, per_gpu, statement, where, report))
            as_of = parse_as_of(ref["as_of"], ref["retrieved_via"])[0]
            if ref["gpu_id"] == "H100-SXM":
                notes.append(f"reference GPU '{ref['gpu']}' = HGX H100 SXM5 80GB HBM3, hence H100-SXM")
        region = ref["region"].strip()
        region = {"(not stated)": "", "NA": "North America"}.get(region, region)
        price_note = price_note_of(ref, price_note, as_of, consumer)
        min_term, term_note = min_term_hours(ref["provider"], price_type)
        price_note = join(price_note, term_note)
        row = {
            "provider_id": PROVIDERS[ref["provider"]][0],
            "gpu_id": ref["gpu_id"],
            "gpu_count": str(count),
            "instance_type": ref["instance_type"].strip(),
            "region": region,
            "price_type": price_type,
            "price_note": price_note,
            "usd_per_hour": fmt(total),
            "usd_per_gpu_hour": fmt(per_gpu),
            "as_of": as_of,
            "source_url": ref["source_url"],
            "retrieved_via": ref["retrieved_via"],
            "verification": ref["verification"],
            "notes": join(*notes),
            "min_term_hours": min_term,
            **topology(ref),
            "_label": ref["gpu"],
            "_where": where,
            "_as_of": ref["as_of"],
        }
        (superseded if "price before" in ref["as_of"] else rows).append(row)

    rows.extend(stated_rows(rows, statement, report))
    rows = fold_previous_prices(rows, superseded, report)
    rows = merge_repeated_readings(rows, report)
    name_products_apart(rows, report)
    mark_superseded(rows, {pid: name for pid, name, _, _ in PROVIDERS.values()}, report)
    duplicates = [k for k, n in Counter(offer_key(r) for r in rows).items() if n > 1]
    if duplicates:
        raise SystemExit(f"duplicate offer keys left: {duplicates}")
    for row in rows:
        del row["_label"], row["_where"], row["_as_of"]
    rows.sort(
        key=lambda r: (
            r["provider_id"],
            r["gpu_id"],
            int(r["gpu_count"]),
            r["price_type"],
            r["instance_type"],
            r["region"],
        )
    )
    return rows


def offer_key(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(row[k] for k in OFFER_KEY)


def stated_rows(rows: list[dict[str, str]], statement: Statement, report: Report) -> list[dict[str, str]]:
    """GMI Cloud on-demand rows from its article for the GPUs prices.csv has no GMI Cloud on-demand row for."""
    added = []
    for gpu_id, rate in statement.rates.items():
        gmi = (r for r in rows if r["provider_id"] == "gmi-cloud" and r["price_type"] == "on_demand")
        if any(r["gpu_id"] == gpu_id for r in gmi):
            continue
        report["added"].append(f"GMI Cloud {gpu_id} on_demand ${rate}/GPU-h from {GMI_ARTICLE}")
        added.append(
            {
                "provider_id": "gmi-cloud",
                "gpu_id": gpu_id,
                "gpu_count": "1",
                "instance_type": "",
                "region": "",
                "price_type": "on_demand",
                "price_note": source_caveat(statement.verification),
                "usd_per_hour": fmt(rate),
                "usd_per_gpu_hour": fmt(rate),
                "as_of": statement.as_of,
                "source_url": statement.source_url,
                "retrieved_via": statement.retrieved_via,
                "verification": statement.verification,
                "notes": "",
                "min_term_hours": "",
                **dict.fromkeys([*TOPOLOGY_FIELDS, "scaleup_domain_gpus"], ""),
                "_label": gpu_id,
                "_where": "added",
                "_as_of": "",
            }
        )
    return added


def fold_previous_prices(
    rows: list[dict[str, str]], superseded: list[dict[str, str]], report: Report
) -> list[dict[str, str]]:
    """A superseded price is the same offer read before a price change: fold it into the current row."""
    current = {offer_key(r): r for r in rows}
    for old in superseded:
        new = current.get(offer_key(old))
        if new is None:
            rows.append(old)
            continue
        new["notes"] = join(
            new["notes"], f"previous price ${old['usd_per_hour']}/h (reference as_of '{old['_as_of']}')"
        )
        report["dropped"].append(
            f"{old['_where']}: ${old['usd_per_hour']}/h superseded by ${new['usd_per_hour']}/h "
            f"for the same offer; kept in that row's notes as the previous price"
        )
    return rows


def name_products_apart(rows: list[dict[str, str]], report: Report) -> None:
    """Offers that still collide but are different products (different GPU label): name them apart."""
    groups: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[offer_key(row)].append(row)
    for group in groups.values():
        if len(group) > 1 and len({r["_label"] for r in group}) == len(group) and not group[0]["instance_type"]:
            for row in group:
                row["instance_type"] = row["_label"]
            report["renamed"].append(" / ".join(f"{r['_where']} -> instance_type '{r['_label']}'" for r in group))


def build_token_prices(report: dict[str, list[str]]) -> list[dict[str, str]]:
    model_ids = ids("models.csv")
    rows = []
    for line, ref in enumerate(read("token_prices.csv"), start=2):
        where = f"token_prices.csv line {line} ({ref['provider']} {ref['provider_model_id']})"
        if ref["provider"] not in PROVIDERS:
            raise SystemExit(f"{where}: unknown provider, add it to PROVIDERS")
        if ref["model_id"] and ref["model_id"] not in model_ids:
            raise SystemExit(f"{where}: model_id {ref['model_id']} not in seed_data/models.csv")
        as_of, as_of_note = parse_as_of(ref["as_of"], ref["retrieved_via"])
        url, _, url_rest = ref["source_url"].strip().partition(" ")
        cached = ref["cached_input_usd_per_mtok"].strip()
        trust = trust_flags(ref)
        if trust.labels:
            report["flagged"].append(f"{where}: {', '.join(trust.labels)} ({trust.status_note})")
        rows.append(
            {
                "provider_id": PROVIDERS[ref["provider"]][0],
                "model_id": ref["model_id"],
                "provider_model_id": ref["provider_model_id"],
                "model_name": ref["model"],
                "input_usd_per_mtok": fmt(Decimal(ref["input_usd_per_mtok"])),
                "output_usd_per_mtok": fmt(Decimal(ref["output_usd_per_mtok"])),
                "cached_input_usd_per_mtok": fmt(Decimal(cached)) if cached else "",
                "lora_serving": ref["lora_serving"].strip().lower() or "unknown",
                "lora_source": ref["lora_source"].strip(),
                "as_of": as_of,
                "as_of_basis": as_of_basis(ref["as_of"]) if as_of else "",
                "unverified": "true" if trust.unverified else "false",
                "deprecated": "true" if trust.deprecated else "false",
                "disputed_input_usd_per_mtok": fmt(trust.disputed[0]) if trust.disputed else "",
                "disputed_output_usd_per_mtok": fmt(trust.disputed[1]) if trust.disputed else "",
                "availability_unconfirmed": "true" if trust.availability_unconfirmed else "false",
                "weak_source": "true" if trust.weak_source else "false",
                "status_note": trust.status_note,
                "source_url": url,
                "retrieved_via": ref["retrieved_via"],
                "verification": ref["verification"],
                "notes": join(ref["notes"], as_of_note, f"source: {url_rest.strip()}" if url_rest.strip() else ""),
                "_where": where,
                "_dated": "" if ref["as_of"].strip().startswith("<=") else as_of,
            }
        )
    rows = merge_token_duplicates(rows, report)
    rows = merge_same_terms(rows, report)
    for row in rows:
        del row["_where"], row["_dated"]
    rows.sort(key=lambda r: (r["provider_id"], r["provider_model_id"]))
    return rows


def merge_token_duplicates(rows: list[dict[str, str]], report: dict[str, list[str]]) -> list[dict[str, str]]:
    """One row per (provider, provider model): the reference read some prices twice. Keep the one with a
    plain date (a reading of the provider's page) over an upper bound ("<=": a maintained table), then
    the newer; the other's price goes into the notes and its LoRA/cache facts fill what the kept lacks.
    Two readings at two prices that no exact dates order dispute each other (token_trust.readings_disagree): the
    kept row is disputed by the other's figures, unless a CONFLICT note already names the other source."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[(row["provider_id"], row["provider_model_id"])].append(row)
    kept = []
    for group in groups.values():
        group.sort(key=lambda r: (r["_dated"] != "", r["_dated"], r["as_of"]), reverse=True)
        best = group[0]
        for other in group[1:]:
            for name in ("cached_input_usd_per_mtok", "lora_source"):
                best[name] = best[name] or other[name]
            if best["lora_serving"] == "unknown":
                best["lora_serving"] = other["lora_serving"]
            price = f"${other['input_usd_per_mtok']}/${other['output_usd_per_mtok']}"
            seen = f"also read as {price} per Mtok ({other['source_url']}, {other['as_of']})"
            best["notes"] = join(best["notes"], seen)
            doubted = [n for n in DOUBT_FIELDS if other[n] == "true" and best[n] != "true"]
            if doubted:
                raise SystemExit(f"{other['_where']}: a duplicate reading is {doubted} and the kept one is not: decide")
            if readings_disagree(best, other) and not best["disputed_input_usd_per_mtok"]:
                best["disputed_input_usd_per_mtok"] = other["input_usd_per_mtok"]
                best["disputed_output_usd_per_mtok"] = other["output_usd_per_mtok"]
                best["status_note"] = join(best["status_note"], seen)
                report["flagged"].append(f"{best['_where']}: disputed ({seen})")
            report["dropped"].append(f"{other['_where']}: duplicate of {best['_where']}, kept in its notes")
        kept.append(best)
    return kept


class _Terms:
    """A token_prices.csv row as app.scoring.pricing.token_prices.same_terms reads it."""

    def __init__(self, row: dict[str, str]) -> None:
        self.input_usd_per_mtok = Decimal(row["input_usd_per_mtok"])
        self.output_usd_per_mtok = Decimal(row["output_usd_per_mtok"])
        cached = row["cached_input_usd_per_mtok"]
        self.cached_input_usd_per_mtok = Decimal(cached) if cached else None
        self.lora_serving = row["lora_serving"]


def merge_same_terms(rows: list[dict[str, str]], report: dict[str, list[str]]) -> list[dict[str, str]]:
    """One entry per provider and catalog model on the same terms: the latest (then the one publishing a cached
    price) is kept; the other's model name and date go into its notes. Entries that differ in terms all stay."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        if row["model_id"]:
            groups[(row["provider_id"], row["model_id"])].append(row)
    dropped: set[int] = set()
    for group in groups.values():
        group.sort(key=lambda r: (r["as_of"], r["cached_input_usd_per_mtok"] != ""), reverse=True)
        kept: list[dict[str, str]] = []
        for row in group:
            twin = next((k for k in kept if same_terms(_Terms(k), _Terms(row))), None)  # type: ignore[arg-type]
            if twin is None:
                kept.append(row)
                continue
            twin["notes"] = join(
                twin["notes"],
                f"also listed as {row['provider_model_id']} at the same price (as_of {row['as_of'] or 'undated'})",
            )
            dropped.add(id(row))
            report["dropped"].append(
                f"{row['_where']}: same model and terms as {twin['_where']} (newer), kept in its notes"
            )
    return [row for row in rows if id(row) not in dropped]


def build_providers(offers: list[dict[str, str]], tokens: list[dict[str, str]]) -> list[dict[str, str]]:
    used = {r["provider_id"] for r in offers} | {r["provider_id"] for r in tokens}
    by_id = {pid: {"id": pid, "name": name, "kind": kind, "url": url} for pid, name, kind, url in PROVIDERS.values()}
    return [by_id[pid] for pid in sorted(used)]


def write(path: Path, rows: list[dict[str, str]], fieldnames: list[str]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def summary(
    providers: list[dict[str, str]],
    offers: list[dict[str, str]],
    tokens: list[dict[str, str]],
    report: dict[str, list[str]],
) -> str:
    lines = [
        f"providers.csv {len(providers)} rows, offers.csv {len(offers)} rows, token_prices.csv {len(tokens)} rows",
        "providers per kind: "
        + ", ".join(f"{k} {n}" for k, n in sorted(Counter(p["kind"] for p in providers).items())),
        "offers per price_type: "
        + ", ".join(f"{t} {Counter(o['price_type'] for o in offers)[t]}" for t in PRICE_TYPES),
        "offers without as_of: " + str(sum(1 for o in offers if not o["as_of"])),
        "token prices without model_id: " + str(sum(1 for t in tokens if not t["model_id"])),
        "usd_per_gpu_hour by GPU (offers, min, max):",
    ]
    by_gpu: dict[str, list[Decimal]] = defaultdict(list)
    for offer in offers:
        by_gpu[offer["gpu_id"]].append(Decimal(offer["usd_per_gpu_hour"]))
    for gpu, prices in sorted(by_gpu.items()):
        lines.append(f"  {gpu:<16} {len(prices):>3}  {fmt(min(prices)):>8}  {fmt(max(prices)):>8}")
    for title in ("dropped", "renamed", "added", "redated", "superseded", "mismatch", "flagged"):
        lines.append(f"{title}: {len(report[title])}")
        lines.extend(f"  - {item}" for item in report[title])
    return "\n".join(lines)


if __name__ == "__main__":
    REFERENCE = reference_dir(sys.argv, "build_seed_prices.py", "seed_data/providers.csv, offers.csv, token_prices.csv")
    found: dict[str, list[str]] = defaultdict(list)
    offer_rows = build_offers(found)
    token_rows = build_token_prices(found)
    provider_rows = build_providers(offer_rows, token_rows)
    assert all(o["price_type"] in PRICE_TYPES for o in offer_rows)
    write(SEED / "providers.csv", provider_rows, ["id", "name", "kind", "url"])
    write(SEED / "offers.csv", offer_rows, OFFER_FIELDS)
    write(SEED / "token_prices.csv", token_rows, TOKEN_FIELDS)
    print("wrote seed_data/providers.csv, seed_data/offers.csv and seed_data/token_prices.csv")
    print(summary(provider_rows, offer_rows, token_rows, found))
