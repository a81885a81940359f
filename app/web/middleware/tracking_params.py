"""Shared links carry tracking parameters that the pages' strict query parsing would answer 422 ("fbclid: Extra
inputs are not permitted"). On HTML pages they are dropped and the browser redirected to the URL without them;
the JSON API and the pages' .json/.csv twins stay strict, since a program sent every key it sent on purpose."""

from __future__ import annotations

from urllib.parse import unquote_plus

from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

# Added by the link's sharer or its click tracker, never by this app's forms:
# utm_*: Google Analytics campaign parameters (https://support.google.com/analytics/answer/10917952);
# gclid: Google Ads auto-tagging (https://support.google.com/google-ads/answer/9744275);
# fbclid: Facebook outbound links (https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/fbp-and-fbc);
# msclkid: Microsoft Advertising auto-tagging (https://learn.microsoft.com/advertising/guides/auto-tagging);
# mc_cid, mc_eid: Mailchimp campaign links (https://mailchimp.com/help/use-google-analytics-with-mailchimp/);
# ref: the referrer tag of Product Hunt, GitHub READMEs and newsletters (https://www.producthunt.com).
TRACKING_PREFIXES = ("utm_", "mc_")
TRACKING_NAMES = frozenset({"fbclid", "gclid", "msclkid", "ref"})
STRICT_PREFIXES = ("/api/", "/static/")
STRICT_SUFFIXES = (".json", ".csv")


def is_tracking(name: str) -> bool:
    return name in TRACKING_NAMES or name.startswith(TRACKING_PREFIXES)


def without_tracking(query: str) -> str:
    """The query string less its tracking pairs, the others exactly as sent (`a=1&utm_source=x&b=2` → `a=1&b=2`)."""
    pairs = [pair for pair in query.split("&") if pair]
    return "&".join(pair for pair in pairs if not is_tracking(unquote_plus(pair.split("=", 1)[0])))


def is_page(path: str) -> bool:
    return not path.startswith(STRICT_PREFIXES) and not path.endswith(STRICT_SUFFIXES)


class DropTrackingParams:
    """A GET of an HTML page with tracking parameters: a 303 to the same page without them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and is_page(scope["path"]):
            query = scope["query_string"].decode("latin-1")
            kept = without_tracking(query)
            if kept != query:
                path = scope.get("raw_path", scope["path"].encode()).decode("latin-1")
                response = RedirectResponse(f"{path}?{kept}" if kept else path, status_code=303)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
