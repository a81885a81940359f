"""What a dedicated-vs-serverless comparison tells the buyer about the per-token prices it used and left out.

Pure: reads ServerlessQuote lists (cheapest comparable first, as quotes.serverless_quotes returns them). The rules
of which prices are compared, and at what figures, are in app/scoring/pricing/token_prices.py; these notes make sure a
plan never points at a doubtful price without saying so.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.scoring.explain import fixed, usd_per_mtok
from app.scoring.serving.serverless.quotes import ServerlessQuote, cheapest_comparable


def flag_text(quote: ServerlessQuote) -> str:
    """`unverified`, `deprecated, stale`, `availability unconfirmed`: a listed price's labels, as pages write them."""
    return ", ".join(f.replace("_", " ") for f in quote.flags)


def _month(usd: float) -> str:
    return f"${fixed(usd, 0)}"


def _pair(input_usd_per_mtok: float | None, output_usd_per_mtok: float | None) -> str:
    return f"{usd_per_mtok(input_usd_per_mtok or 0.0)}/{usd_per_mtok(output_usd_per_mtok or 0.0)}"


def label_tags(quote: ServerlessQuote) -> str:
    """`, disputed: at the higher figure $0.74/$0.90`, `, availability unconfirmed`, `, stale`: appended to a compared
    price's label (the break-even's, a train-then-serve row's), so the label names what is doubtful about it."""
    tags = []
    for doubt in quote.doubts:
        if doubt == "disputed":
            tags.append(f"disputed: at the higher figure {_pair(quote.input_usd_per_mtok, quote.output_usd_per_mtok)}")
        else:
            tags.append(doubt.replace("_", " "))
    if quote.stale:
        tags.append("stale")
    return "".join(f", {tag}" for tag in tags)


def left_out_note(quotes: Sequence[ServerlessQuote], include_stale: bool = False) -> str | None:
    """What a comparison left out and why, where it matters: listed prices below the cheapest comparable one
    (or any listed price, when none is comparable). None when nothing cheaper was left out."""
    best = cheapest_comparable(quotes)
    cheaper = [q for q in quotes if not q.comparable and (best is None or q.usd_per_request < best.usd_per_request)]
    if not cheaper:
        return None
    named = "; ".join(
        f"{q.provider_name} {_pair(q.input_usd_per_mtok, q.output_usd_per_mtok)} per M tokens in/out "
        f"({flag_text(q)}{': ' + q.status_note if q.status_note else ''})"
        for q in cheaper
    )
    rule = "unverified or deprecated prices, and stale ones unless stale prices are included"
    if include_stale:
        rule = "unverified or deprecated prices"
    if best is None:
        return (
            f"No current, verified per-token price is listed for this model, so nothing serverless is compared "
            f"(listed, labelled: {named}). The comparison leaves out {rule}."
        )
    return (
        f"Cheaper listed per-token prices are left out of the cheapest serverless price and the break-even: "
        f"{named}. The comparison leaves out {rule}; the cheapest it uses is {best.provider_name}."
    )


def _doubts_said(quote: ServerlessQuote) -> str:
    said = []
    if quote.disputed:
        said.append(
            f"disputed: the catalog lists {_pair(quote.listed_input_usd_per_mtok, quote.listed_output_usd_per_mtok)} "
            f"per M tokens in/out and another source "
            f"{_pair(quote.disputed_input_usd_per_mtok, quote.disputed_output_usd_per_mtok)}, so it is compared at "
            f"the higher, {_pair(quote.input_usd_per_mtok, quote.output_usd_per_mtok)}"
        )
    if quote.availability_unconfirmed:
        said.append("availability unconfirmed: the provider may no longer serve this model")
    if quote.weak_source:
        said.append("from a weak source: the page the figure was read from does not back it")
    return "; ".join(said)


def chosen_doubt_note(quotes: Sequence[ServerlessQuote], dedicated_monthly_usd: float | None) -> str | None:
    """Where the cheapest compared price carries a doubt (token_prices.DOUBTS): what the reference says, and, for a
    price whose endpoint or source is in doubt, the cheapest compared price without a doubt and whether the answer
    at this traffic (`dedicated_monthly_usd`: the cheapest dedicated option's month) turns on it. A disputed price
    needs no stand-in: compared at its higher figure, it is the cheapest at either."""
    best = cheapest_comparable(quotes)
    if best is None or not best.doubts:
        return None
    text = (
        f"The cheapest serverless price compared with, {best.provider_name}'s ({_month(best.monthly_usd)}/month at "
        f"this traffic), is {_doubts_said(best)} (the reference: {best.status_note})."
    )
    if not (best.availability_unconfirmed or best.weak_source):
        return text
    sure = next((q for q in quotes if q.comparable and not q.doubts and not q.stale), None)
    if sure is None:
        text += " No compared per-token price is free of such a doubt: check this one before you rely on it."
    else:
        text += f" The cheapest compared price without a doubt is {sure.provider_name}'s, "
        text += f"{_month(sure.monthly_usd)}/month."
    if dedicated_monthly_usd is not None and best.monthly_usd < dedicated_monthly_usd:
        if sure is None:
            text += " Serverless is cheaper than dedicated at this traffic only at a doubtful price."
        elif sure.monthly_usd >= dedicated_monthly_usd:
            text += (
                f" The answer at this traffic turns on it: serverless is cheaper at {best.provider_name}'s price, "
                f"dedicated ({_month(dedicated_monthly_usd)}/month) at {sure.provider_name}'s."
            )
    return text


def lower_figure_note(quotes: Sequence[ServerlessQuote]) -> str | None:
    """Disputed prices that, at the lower of their two figures, would cost less than the cheapest compared price:
    compared at the higher, they are not chosen, and the buyer is told the lower may be worth checking."""
    best = cheapest_comparable(quotes)
    if best is None:
        return None
    cheaper = [
        q
        for q in quotes
        if q.comparable
        and q is not best
        and q.usd_per_request_lower is not None
        and q.usd_per_request_lower < best.usd_per_request
    ]
    if not cheaper:
        return None
    named = "; ".join(
        f"{q.provider_name} at {_lower_pair(q)} per M tokens in/out (compared at "
        f"{_pair(q.input_usd_per_mtok, q.output_usd_per_mtok)}; the reference: {q.status_note})"
        for q in cheaper
    )
    return (
        f"At the lower of two disputed figures, a price would cost less than {best.provider_name}'s, the cheapest "
        f"compared with: {named}. A disputed price is compared at the higher figure; check the provider's own price "
        "before counting on the lower."
    )


def _lower_pair(quote: ServerlessQuote) -> str:
    listed = (quote.listed_input_usd_per_mtok or 0.0, quote.listed_output_usd_per_mtok or 0.0)
    other = (quote.disputed_input_usd_per_mtok or 0.0, quote.disputed_output_usd_per_mtok or 0.0)
    return _pair(min(listed[0], other[0]), min(listed[1], other[1]))
