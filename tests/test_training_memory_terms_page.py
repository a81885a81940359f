"""The results page's "Why" rows show each training memory line's working, as the JSON twin gives it (memterms: the
live params, activations, logits and reserve rows had an empty "How" cell)."""

from __future__ import annotations

from markupsafe import escape

QUERY = "phase=training&model=llama-3.1-8b&method=full_ft&seq_len=4096&global_batch_seqs=256&max_gpus=8"
LINES = ("memory: live params", "memory: activations", "memory: logits", "memory: runtime reserve")


def test_the_why_rows_show_every_memory_lines_arithmetic(client) -> None:  # type: ignore[no-untyped-def]
    option = client.get(f"/rank.json?{QUERY}").json()["options"][0]
    terms = {t["name"]: t for t in option["terms"]}
    page = client.get(f"/?{QUERY}").text
    for name in LINES:
        detail = terms[name]["detail"]
        assert detail and "; " in detail, (name, detail)
        assert f'<td class="muted" role="cell">{escape(detail)}</td>' in page, name
