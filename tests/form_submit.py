"""What a browser sends when a page's workload form is submitted unchanged, read from the page's HTML."""

from __future__ import annotations

from html.parser import HTMLParser


class _WorkloadForm(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[tuple[str, str]] = []
        self._inside = False
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._textarea: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and "workload" in (found.get("class") or "").split():
            self._inside = True
        if not self._inside or not found.get("name") and tag != "option":
            return
        if tag == "input" and (found.get("type") not in ("checkbox", "radio") or "checked" in found):
            self.items.append((found["name"] or "", found.get("value") or ""))
        elif tag == "select":
            self._select, self._options = found["name"], []
        elif tag == "option" and self._select is not None:
            self._options.append((found.get("value") or "", "selected" in found))
        elif tag == "textarea":
            self._textarea = [found["name"] or "", ""]

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._inside = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._options if selected] or [v for v, _ in self._options[:1]]
            self.items.append((self._select, chosen[0] if chosen else ""))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.items.append((self._textarea[0], self._textarea[1]))
            self._textarea = None


def form_items(html: str) -> list[tuple[str, str]]:
    """Every named field of the page's `<form class="workload">` as a submit sends it: text and hidden inputs (blank
    ones too), ticked checkboxes only, each select's chosen option (else its first), textareas."""
    reader = _WorkloadForm()
    reader.feed(html)
    assert reader.items, "no workload form on the page"
    return reader.items


class _FieldNames(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.names: set[str] = set()
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and "workload" in (found.get("class") or "").split():
            self._inside = True
        elif self._inside and tag in ("input", "select", "textarea") and found.get("name"):
            self.names.add(found["name"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._inside = False


def form_field_names(html: str) -> set[str]:
    """The name of every control of the page's `<form class="workload">`, unticked checkboxes too."""
    reader = _FieldNames()
    reader.feed(html)
    assert reader.names, "no workload form on the page"
    return reader.names
