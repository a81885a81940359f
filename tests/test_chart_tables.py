"""Every chart carries its numbers as a table in a <details> under it, the numbers its figure draws: without
JavaScript the note once said "the table holds the same numbers", but the batch sweep and memory charts' data
were in no table. The table is built with the chart's numbers (app.service.charts), not read back from the figure:
a test reads the figure here and finds the same numbers."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from app.service.charts.tables import ChartTable, Series, categories_table, points_table
from app.web.rendering.chart_tables import number_text

PAGES = [
    "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8",
    "/?phase=training&model=llama-3.1-8b",
    "/plan?model=llama-3.1-8b&requests_per_day=100000&months=12",
    "/disagg?model=llama-3.1-70b",
    "/precision?model=llama-3.1-70b",
    "/gpus/H100-SXM",
]
FIGURE = re.compile(
    r'data-chart="([^"]*)">(.*?)</script>.*?<details class="chart-data">(.*?)</details>\s*</figure>', re.S
)


def _charts(html: str) -> dict[str, tuple[dict, str]]:
    return {chart: (json.loads(figure), unescape(table)) for chart, figure, table in FIGURE.findall(html)}


@pytest.mark.parametrize("path", PAGES)
def test_every_chart_has_its_numbers_in_a_table(client: TestClient, path: str) -> None:
    html = client.get(path).text
    charts = _charts(html)
    assert charts and len(charts) == html.count('<figure class="chart">')
    for table in (t for _, t in charts.values()):
        assert table.count("<tr>") >= 2  # a header and at least one row of numbers
    assert "the table holds the same numbers" not in html


def test_batch_sweep_and_memory_numbers_are_in_their_tables(client: TestClient) -> None:
    charts = _charts(client.get(PAGES[0]).text)
    sweep, table = charts["throughput-batch"]
    first = sweep["data"][0]
    assert f'<th scope="row">{first["name"]}</th><td class="n">{first["x"][0]:.3g}</td>' in table
    memory, table = charts["memory"]
    for category in memory["data"][0]["y"]:
        assert f'<th scope="row">{category}</th>' in table
    assert '<th scope="col">capacity</th>' in table


def _figure_table(figure: dict) -> ChartTable:
    """The figure's traces read back as a table: bars on a category axis by category, curves and points by point."""
    traces = [t for t in figure["data"] if t.get("x") is not None and t.get("y") is not None]
    series = [Series(name=t.get("name") or "", x=t["x"], y=t["y"]) for t in traces]
    x_title, y_title = (figure["layout"].get(a, {}).get("title", {}).get("text", "") for a in ("xaxis", "yaxis"))
    if all(isinstance(v, str) for t in traces for v in t["y"] if v is not None):
        return categories_table(series, x_title)
    return points_table(series, x_title, y_title)


MORE = [
    "/?phase=inference&model=llama-3.1-8b&scenario=max_throughput&job_requests=20000",
    "/own?gpu=H100-SXM&gpu_count=8",
    "/mix?model=llama-3.1-8b",
]


@pytest.mark.parametrize("path", [*PAGES, *MORE])
def test_each_table_holds_the_numbers_its_figure_draws(client: TestClient, path: str) -> None:
    """The figure and the table are drawn from one object of app.service.charts: the figure's own traces, read back,
    give the JSON twin's table cell for cell (the page's table is the twin's: test_chart_twins)."""
    page = client.get(path)
    assert page.status_code == 200
    twin = client.get(re.search(r"<([^>]*)>", page.headers["Link"]).group(1)).json()  # type: ignore[union-attr]
    figures = {chart: json.loads(figure) for chart, figure, _ in FIGURE.findall(page.text)}
    assert figures and len(figures) == len(twin["charts"])
    for numbers in twin["charts"]:
        read = _figure_table(figures[numbers["chart_id"]])
        named = {"chart_id": numbers["chart_id"], "label": numbers["label"]}
        assert read.model_copy(update=named).model_dump() == numbers


def test_a_long_curve_is_thinned_to_evenly_spaced_points_and_says_so() -> None:
    curve = Series(name="dedicated", x=list(range(1, 162)), y=[2.0 * x for x in range(1, 162)])
    table = points_table([curve], "requests", "")
    assert table.columns == ["Series", "requests", "y"]
    assert len(table.rows) == 12 and table.rows[0][1] == 1 and table.rows[-1][1] == 161
    assert "12 of 161 points" in table.note


def test_bars_pivot_into_a_row_per_category() -> None:
    bars = [
        Series(name="prefill", y=["a", "b"], x=[None, 1500.4]),
        Series(name="decode", y=["a", "b"], x=[12.34, 0.01234]),
    ]
    table = categories_table(bars, "$ per month")
    assert table.columns == ["", "prefill", "decode"]
    assert table.rows == [["a", None, 12.34], ["b", 1500.4, 0.01234]]  # unrounded, as the JSON twin gives them
    assert [[r[0], *map(number_text, r[1:])] for r in table.rows] == [["a", "—", "12.3"], ["b", "1,500", "0.0123"]]
    assert table.note == "Values: $ per month."


def test_the_training_memory_chart_marks_the_share_of_the_card_the_fit_check_allows(client: TestClient) -> None:
    """A QLoRA 70B on 4×RTX-A6000 stacks 41.2 GB against the 48 GB card mark, a 6.8 GB margin to the eye; the fit
    check allows 92% of the card (44.2 GB: the allocator's share), so the margin is 3 GB (found by qa30)."""
    from app.scoring.efficiency.training import USABLE_HBM_SHARE

    query = "/?phase=training&model=llama-3.1-70b&method=qlora&total_tokens=50000000&gpus=RTX-A6000"
    memory, table = _charts(client.get(query).text)["memory"]
    markers = {t["name"]: t["x"] for t in memory["data"] if t["type"] == "scatter"}
    share = next(name for name in markers if name.startswith("allocator share"))
    assert markers["capacity"][0] == 48.0 and markers[share][0] == round(48.0 * USABLE_HBM_SHARE, 2)
    stacked = sum(t["x"][0] for t in memory["data"] if t["type"] == "bar")
    assert stacked <= markers[share][0] < markers["capacity"][0]
    assert f'<th scope="col">{share}</th>' in table


def test_the_training_page_calls_one_figure_usable(client: TestClient) -> None:
    """A B200's memory chart marked "usable (92% of the card)" at 166 GB while the reserve's term and the reasons said
    "164.1 GB usable" (the share less the runtime reserve): the chart's mark is the allocator share, the reserve's term
    names both, and "usable" is the one figure the need is held to (found by qa32)."""
    query = "?phase=training&model=llama-3.1-70b&method=full_ft&total_tokens=50000000&gpus=B200"
    body = client.get("/rank.json" + query).json()
    option = next(o for o in body["options"] if o["feasible"] and o["gpu_count"] > 1)
    reserve = next(t for t in option["terms"] if t["name"] == "memory: runtime reserve")["detail"]
    assert "180 GB × 0.92 = 165.6 GB allocator share - 1.5 GB = 164.1 GB usable" in reserve
    memory, table = _charts(client.get("/" + query).text)["memory"]
    names = [t["name"] for t in memory["data"]]
    assert "allocator share (92% of card)" in names and not [n for n in names if "usable" in n]
    assert "usable" not in table


def test_the_training_memory_chart_stacks_the_step_peak_not_the_parts_at_their_largest(client: TestClient) -> None:
    """An 8B full fine-tune on one B200 with foreach AdamW (llm-foundry; hf until qamem) peaks at its optimizer step
    (128.5 GB model states + 32.1 GB foreach AdamW temporary, 161.4 GB with the reserve); the chart stacked the parts at
    their largest, activations and logits included but not the temporary (hf: 137.6 GB, 28 GB of room to the eye where
    4 GB is left; found by qa34). It now stacks the moment the need is, summing to memory_per_gpu_gb, and the JSON gives
    those parts."""
    query = "?phase=training&model=llama-3.1-8b&method=full_ft&framework=llm-foundry&max_gpus=1&gpus=B200"
    option = client.get("/rank.json" + query).json()["options"][0]
    at_peak = option["memory_at_peak_gb"]
    assert at_peak["optimizer_temporaries"] > 30 and at_peak["activations"] == at_peak["logits"] == 0
    assert sum(at_peak.values()) == pytest.approx(option["memory_per_gpu_gb"], abs=0.01)
    assert sum(option["memory_breakdown_gb"].values()) < option["memory_per_gpu_gb"] - 5  # the parts at their largest
    memory, table = _charts(client.get("/" + query).text)["memory"]
    stacked = sum(t["x"][0] for t in memory["data"] if t["type"] == "bar")
    assert stacked == pytest.approx(option["memory_per_gpu_gb"], abs=0.05)
    assert '<th scope="col">optimizer temporaries</th>' in table and "fullest moment" in memory_label(client, query)


def memory_label(client: TestClient, query: str) -> str:
    html = " ".join(client.get("/" + query).text.split())
    return html[html.index('data-chart="memory"') - 600 : html.index('data-chart="memory"')]
