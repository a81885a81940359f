"""One place that decides page vs htmx fragment vs JSON, and sets the headers every view shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import orjson
from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import RedirectResponse, Response
from jinja2_fragments.fastapi import Jinja2Blocks
from markupsafe import Markup, escape
from pydantic import BaseModel

from app.config import PROJECT_ROOT
from app.scoring.explain import (
    duration_text,
    fixed,
    in_flight_text,
    money_places,
    range_places,
    signed,
    significant,
    usd_per_mtok,
    usd_places,
    usd_price,
)
from app.scoring.inference.ranking.options import idle_gpus_words
from app.scoring.input_checks.messages import FieldError
from app.scoring.pricing.offer_labels import label_beyond_name
from app.scoring.pricing.price_terms import price_caveats
from app.scoring.specs import CatalogSnapshot
from app.scoring.training.run.limit_words import days_text, interruptions_text
from app.service.query.catalog_spelling import respelled_query, typed_in_another_spelling
from app.service.query.phase import QuestionKind
from app.service.typed_model_checks import Groups, typed_question_errors
from app.web.errors.error_shape import field_errors_body
from app.web.forms.form_labels import field_label
from app.web.forms.page_wording import page_wording
from app.web.rendering.chart_tables import number_text


def _app_globals(request: Request) -> dict[str, Any]:
    return {"assets": request.app.state.assets}


templates = Jinja2Blocks(directory=str(PROJECT_ROOT / "templates"), context_processors=[_app_globals])


def wants_fragment(request: Request) -> bool:
    """htmx swaps get a block; history restores and plain navigations get the whole page."""
    headers = request.headers
    return (
        headers.get("HX-Request") == "true"
        and headers.get("HX-History-Restore-Request") != "true"
        and headers.get("HX-Request-Type", "partial") != "full"
    )


def split_json_suffix(identifier: str) -> tuple[str, bool]:
    """`/gpus/H100-SXM.json` is the JSON twin of `/gpus/H100-SXM`."""
    if identifier.endswith(".json"):
        return identifier[: -len(".json")], True
    return identifier, False


def split_twin_suffix(identifier: str) -> tuple[str, str | None]:
    """`/s/ab12.json` and `/s/ab12.csv` are the JSON and CSV twins of `/s/ab12`: ('ab12', 'json'), …"""
    for twin in ("json", "csv"):
        if identifier.endswith(f".{twin}"):
            return identifier[: -len(twin) - 1], twin
    return identifier, None


def json_twin_url(request: Request) -> str:
    query = f"?{request.url.query}" if request.url.query else ""
    path = request.url.path.removesuffix("/") or "/index"
    return f"{path}.json{query}"


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return jsonable_encoder(value)  # anything unusual: FastAPI's slower, general walk


def json_response(payload: Any, status_code: int = 200) -> Response:
    """orjson for JSON-ready dicts, dataclasses, dates and pydantic models (jsonable_encoder's recursive walk
    costs tens of ms on a full ranking)."""
    body = orjson.dumps(payload, default=_json_default, option=orjson.OPT_NON_STR_KEYS)
    return Response(body, status_code=status_code, media_type="application/json")


def page(
    request: Request, template: str, context: dict[str, Any], block: str | None = None, status_code: int = 200
) -> Response:
    """Render a full page, or only `block` for an htmx request; always with the JSON twin link."""
    alternate = context.get("json_url") or json_twin_url(request)
    context = {**context, "json_url": alternate}
    block_name = block if block and wants_fragment(request) else None
    response = templates.TemplateResponse(request, template, context, block_name=block_name, status_code=status_code)
    response.headers["Link"] = f'<{alternate}>; rel="alternate"; type="application/json"'
    response.headers["Vary"] = "HX-Request, HX-History-Restore-Request, HX-Request-Type"
    return response


class CanonicalQuery(Protocol):
    canonical: str
    errors: dict[str, str]
    values: dict[str, Any]  # as typed

    @property
    def kind(self) -> QuestionKind: ...  # what the question asks about: which checks its typed fields get


def name_every_wrong_field(query: CanonicalQuery | None, snapshot: CatalogSnapshot) -> None:
    """A question refused on its shape also names, in the same answer, the catalog ids it gets wrong and what its
    model and GPUs refuse (a length beyond the model's context, ep on a dense model), each from its fields as typed."""
    if query is not None and query.errors:
        groups: Groups = {} if "phase" in query.errors else {"": query.kind}  # a wrong phase: whose fields?
        query.errors.update(typed_question_errors(query.values, snapshot, query.errors, groups))


def canonical_page(
    request: Request,
    path: str,
    query: CanonicalQuery | None,
    build_context: Callable[[], dict[str, Any]],
    template: str,
    block: str,
    snapshot: CatalogSnapshot,
) -> Response:
    """One URL per question: another spelling redirects to the canonical one (before any work is done),
    errors answer 422 beside the form, and an htmx swap pushes the canonical URL into the history."""
    name_every_wrong_field(query, snapshot)
    # ids typed in another case (`model=Llama-3.1-70B`) move to the catalog's spelling too (found by canon2)
    canonical = respelled_query(query.canonical, snapshot) if query and not query.errors else ""
    if query and not query.errors and not wants_fragment(request) and canonical != request.url.query:
        return RedirectResponse(f"{path}?{canonical}", status_code=303)
    context = build_context()
    response = page(request, template, context, block=block, status_code=422 if context["errors"] else 200)
    if query and canonical and not context["errors"] and wants_fragment(request):
        response.headers["HX-Push-Url"] = f"{path}?{canonical}"
    return response


def answer_or_error(
    query: CanonicalQuery,
    build_payload: Callable[[], dict[str, Any]],
    field_error: type[FieldError],
    *,
    page_field: Callable[[str], str] | None = None,
) -> dict[str, Any] | None:
    """The service's payload, or None with each of its field errors recorded on the query (beside the form, or
    in the 422); `page_field` turns the service's field names into the page's (`workload.model` → `model`)."""
    try:
        return build_payload()
    except field_error as exc:
        for field, message in exc.errors.items():
            query.errors.setdefault(page_field(field) if page_field else field, message)
        return None


def canonical_json(
    request: Request,
    query: CanonicalQuery,
    build_payload: Callable[[], dict[str, Any]],
    field_error: type[FieldError],
    snapshot: CatalogSnapshot,
    *,
    page_field: Callable[[str], str] | None = None,
) -> Response:
    """A page's JSON twin: the payload, or 422 listing each field's problem. Ids typed in another spelling
    (`model=Llama-3.1-70B`) move to the twin of the catalog's (303), as the page does: one question, one link."""
    name_every_wrong_field(query, snapshot)
    if not query.errors:
        if typed_in_another_spelling(list(request.query_params.multi_items()), snapshot):
            return RedirectResponse(f"{request.url.path}?{respelled_query(query.canonical, snapshot)}", 303)
        payload = answer_or_error(query, build_payload, field_error, page_field=page_field)
        if payload is not None:
            return json_response(payload)
    return json_response(field_errors_body(query.errors), 422)


def _pairs(values: Any) -> list[tuple[str, str]]:
    """['on_demand', …] → [('on_demand', 'on demand'), …] for checkbox lists."""
    return [(str(v), str(v).replace("_", " ")) for v in values]


templates.env.filters["zip_self"] = _pairs


templates.env.tests["arch_error"] = lambda name: str(name).startswith("arch_")


def _tidy(value: Any) -> Any:
    """Form values as a person types them: None → '', 40.0 → 40."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


templates.env.filters["tidy"] = _tidy


def _parameters(billions: float) -> str:
    """A parameter count as model cards write it: 0.125 → '125M', 8.03 → '8.03B', 405 → '405B', 1000 → '1T'
    ('%.3g' wrote 1e+03B)."""
    if billions >= 1000:
        return f"{significant(billions / 1000, 3)}T"
    if billions < 1:
        return f"{significant(billions * 1000, 3)}M"
    return f"{significant(billions, 3)}B"


templates.env.filters["parameters"] = _parameters


def count_words(value: float) -> str:
    """A large count in words: 2e9 → '2 billion', 1.5e12 → '1.5 trillion', 40000 → '40,000'."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if value >= size:
            return f"{significant(value / size, 3)} {word}"
    return f"{fixed(value, 0)}"


templates.env.filters["count_words"] = count_words
templates.env.filters["fixed"] = fixed
templates.env.filters["significant"] = significant  # 1e6 → "1,000,000", never "1e+06"
templates.env.filters["signed"] = signed  # -0.04 at one place → "-0.04", never "-0.0"
templates.env.filters["money_places"] = money_places  # $19.952/M at 3 places → $19.95
templates.env.filters["beyond_name"] = label_beyond_name  # ("RunPod Secure Cloud", "Secure Cloud") → ""
templates.env.filters["usd_places"] = usd_places  # an amount: whole dollars from $10, cents below
templates.env.filters["usd_per_mtok"] = usd_per_mtok  # $0.90, $0.037
templates.env.filters["usd_price"] = usd_price  # a listed $/GPU-hour: $3.90, $2.195 (never $3.900 or $3.9)
templates.env.filters["idle_gpus_words"] = idle_gpus_words  # "one copy on a rented 8-GPU instance, 6 GPUs idle ..."
templates.env.filters["note_caveats"] = price_caveats  # a price note's caveat labels (price_terms.PRICE_CAVEATS)
templates.env.filters["in_flight"] = in_flight_text  # 0.996 → "just under 1", never "1.00 ... below one"
templates.env.filters["range_places"] = range_places
templates.env.filters["hours_text"] = lambda hours: duration_text(hours * 3600)  # 0.05 → "3.0 min"
templates.env.filters["days_text"] = days_text  # a run's length: 0.028 → "41 min", 67.6 → "67.6 days"
templates.env.filters["interruptions_text"] = interruptions_text  # spot interruptions: 0.004 → "<0.1", 0.42 → "0.4"


def _breakable(value: Any) -> Markup:
    """An identifier that may wrap after its underscores (output_tok_s_per_gpu in a narrow column), escaped."""
    return Markup("_<wbr>").join(escape(part) for part in str(value).split("_"))


templates.env.filters["breakable"] = _breakable


def _sentence_start(text: str) -> str:
    """A clause opening a sentence: its first letter upper-cased, the rest as written (Jinja's capitalize lowered
    the rest, so "the TTFT and TPOT limits (the per-token APIs …)" read "the ttft and tpot limits (… apis …)")."""
    return text[:1].upper() + text[1:]


templates.env.filters["sentence_start"] = _sentence_start


def _chart_title(caption: str) -> str:
    """A chart caption's naming clause: up to its first "; " outside brackets (the rest says how to read the marks,
    and /own's "(cash; with a cost of capital …)" holds one inside), for the line shown in its place without JS."""
    depth = 0
    for index, char in enumerate(caption):
        depth += (char == "(") - (char == ")")
        if char == ";" and depth == 0:
            return caption[:index]
    return caption


templates.env.filters["chart_title"] = _chart_title
templates.env.filters["chart_cell"] = number_text
templates.env.filters["field_label"] = field_label
templates.env.filters["page_wording"] = page_wording
