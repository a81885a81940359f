"""Error messages as a page says them: the services name the JSON API's lists ("GET /api/v1/models lists the
catalog's models"), right for a program but not for a person at a form, who gets a link to the page instead."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

PAGES = {"models": "Models", "gpus": "GPUs", "providers": "Providers"}
# "GET /api/v1/models lists", "/gpus and GET /api/v1/gpus list", "GET /api/v1/gpus gives" (app.service.catalog_ids)
API_POINTER = re.compile(r"(?:/(?:models|gpus|providers) and )?GET /api/v1/(models|gpus|providers) (lists?|gives)\b")


def page_wording(message: str) -> Markup:
    """`message`, escaped, each pointer to an API list a link to its page ('the <a>Models page</a> lists …')."""
    parts, at = [], 0
    for found in API_POINTER.finditer(message):
        name, verb = found.group(1), "gives" if found.group(2) == "gives" else "lists"
        link = Markup('the <a href="/{}">{} page</a> {}').format(name, PAGES[name], verb)
        parts += [escape(message[at : found.start()]), link]
        at = found.end()
    return Markup("").join([*parts, escape(message[at:])])
