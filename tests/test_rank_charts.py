"""The throughput-vs-batch chart follows each ranked layout, pipeline stages included."""

import json
import re

from app.catalog.spec_files import load_gpu_specs, load_model_specs
from app.scoring.specs import CatalogSnapshot
from app.scoring.workload import InferenceWorkload
from app.service.charts.rank_points import frontier
from app.web.rank.charts import frontier_figure
from app.web.rank.result_charts import config_curves


def frontier_chart(points: list[dict], deadline_days: float) -> dict:
    """The frontier's figure as the page draws it: its numbers (app.service.charts.rank_points), drawn."""
    return frontier_figure(frontier(points, deadline_days))


GPUS, MODELS = load_gpu_specs(), load_model_specs()


def test_pipeline_parallel_layouts_get_a_throughput_curve():
    workload = InferenceWorkload(
        model="llama-3.3-70b", weight_dtype="fp8", input_len=5000, output_len=500, ttft_ms=5000
    )
    option = {
        "gpu_id": "H100-SXM",
        "gpu_count": 4,
        "tensor_parallel": 1,
        "pipeline_parallel": 4,
        "usd_per_million_output_tokens": 1.0,
    }
    curves, _ = config_curves([option], workload, CatalogSnapshot(gpus=GPUS, offers=()), MODELS["llama-3.3-70b"])
    (curve,) = curves
    assert curve.label == "4×H100-SXM"
    assert len(curve.points) >= 3  # TP1 alone cannot hold 70B on one H100: without PP the curve was empty
    assert curve.points[-1].output_tokens_per_s > curve.points[0].output_tokens_per_s


def _figures(html: str) -> list[dict]:
    blocks = re.findall(r'<script type="application/json" data-chart="[^"]*">(.*?)</script>', html, re.S)
    return [json.loads(block) for block in blocks]


def test_every_log_axis_labels_its_ticks_in_full(client):
    """Plotly's default log labels name the ticks between powers of ten by a digit ("2" for 20 or 0.2)."""
    pages = [
        "/?phase=inference&model=llama-3.1-8b",
        "/?phase=training&model=llama-3.1-8b&method=lora&total_tokens=100000000",
        "/plan?model=llama-3.1-8b&requests_per_day=100000&months=12",
    ]
    log_axes = []
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        for figure in _figures(response.text):
            axes = [v for k, v in figure["layout"].items() if k.startswith(("xaxis", "yaxis"))]
            log_axes += [axis for axis in axes if axis.get("type") == "log"]
    assert len(log_axes) >= 5  # rank: $ vs TPOT (2), batch; training: days vs $ (2); plan: 2
    assert all(axis.get("tickformat") == "~g" or axis.get("ticktext") for axis in log_axes)
    money = [axis for axis in log_axes if "$" in axis["title"]["text"] and "ticktext" in axis]
    assert len(money) >= 2  # plan: $ per month; training: total $
    for axis in log_axes:
        for text in axis.get("ticktext", []):  # SI: "10m" on a money axis is $0.01, "1G" a billion
            assert re.fullmatch(r"\$?\d+(\.\d+)?[kMBT]?", text), text
        assert axis.get("tickformat") != "~s"
    for axis in money:
        assert all(text.startswith("$") for text in axis["ticktext"])


def test_log_axis_ticks_read_as_money_and_counts():
    from app.web.rendering.charts import log_axis, short_number

    assert [short_number(v, "$") for v in (0.01, 0.5, 20, 2000, 2.5e6, 1e9)] == [
        "$0.01",
        "$0.5",
        "$20",
        "$2k",
        "$2.5M",
        "$1B",
    ]
    wide = log_axis("$ per month", [0.02, 3e6], prefix="$")
    assert wide["ticktext"][:3] == ["$0.001", "$0.01", "$0.1"] and "$1M" in wide["ticktext"]
    narrow = log_axis("total $", [5200, 8800], prefix="$")  # under a decade: every digit, not one lone label
    assert {"$5k", "$6k", "$7k", "$8k", "$9k"} <= set(narrow["ticktext"])
    assert log_axis("days", None)["tickformat"] == "~g"


def test_offers_of_one_gpu_differ_on_the_scale_out_chart():
    """Two providers of the same GPU: lines of their own colours, and of different dash and marker besides."""

    def point(provider: str, count: int) -> dict:
        return {
            "gpu_id": "B200",
            "provider": provider,
            "provider_name": provider.title(),
            "price_type": "on_demand",
            "gpu_count": count,
            "days": 10.0 / count,
            "total_usd": 1000.0 + count,
        }

    figure = frontier_chart([point("lambda", 8), point("coreweave", 8), point("coreweave", 16)], 30)
    lines = [t for t in figure["data"] if t["mode"] == "lines+markers"]
    assert len(lines) == 2
    assert lines[0]["line"]["color"] != lines[1]["line"]["color"]
    assert lines[0]["line"]["dash"] != lines[1]["line"]["dash"]
    assert lines[0]["marker"]["symbol"] != lines[1]["marker"]["symbol"]
    assert lines[0]["name"] == "B200 · Lambda (on demand)"  # the provider's name, not its id


def test_training_memory_chart_draws_each_leading_row_s_own_layout(client):
    """The memory bars of a configuration sum to the GB per GPU its ranked row states: the chart once re-estimated
    without the row's machine and drew 128×A100-SXM-80GB at a TP4 layout (~39 GB) beside a TP2 row of 67.6 GB."""
    query = "phase=training&model=llama-3.1-70b&method=pretrain&total_tokens=100000000000&max_gpus=512"
    rows = client.get(f"/rank.json?{query}").json()["options"]
    figure = next(f for f in _figures(client.get(f"/?{query}").text) if f["data"][-1].get("name") == "capacity")
    bars = [t for t in figure["data"] if t["type"] == "bar"]
    labels = bars[0]["y"]
    assert labels
    for i, label in enumerate(labels):
        count, gpu = label.split("×")
        row = next(r for r in rows if r["gpu_id"] == gpu and r["gpu_count"] == int(count) and r["feasible"])
        drawn = sum(t["x"][i] for t in bars)
        assert abs(drawn - row["memory_per_gpu_gb"]) < 0.05, (label, row["layout"], drawn, row["memory_per_gpu_gb"])


def test_the_frontier_hover_keeps_the_cents_of_a_run_under_10_dollars() -> None:
    """A 20-minute LoRA run's point, billed $1.36, hovered as "$1"."""
    short = {"gpu_id": "H100-SXM", "provider_name": "GMI Cloud", "price_type": "on_demand", "on_time": True}
    points = [{**short, "gpu_count": n, "days": 0.03 / n, "total_usd": 1.36 * n} for n in (1, 2)]
    hover = frontier_chart(points, 30)["data"][0]["hovertemplate"]
    assert "$%{y:,.2f}" in hover, hover
    large = [{**p, "total_usd": p["total_usd"] * 100} for p in points]
    assert "$%{y:,.0f}" in frontier_chart(large, 30)["data"][0]["hovertemplate"]


def test_the_scale_out_charts_days_are_labelled_one_two_five():
    """Found by qa22: runs of 0.8 to 11 days under a 30-day deadline got plotly's every-digit log labels, and at
    a third of a 1366 px page "0.8", "0.9" and "1" printed over each other. The axis takes the 1-2-5 ticks of its
    days and the deadline, as the money axes do."""
    points = [
        {"gpu_id": "B200", "provider": "lambda", "provider_name": "Lambda", "price_type": "on_demand",
         "gpu_count": count, "days": days, "total_usd": 1000.0 + count}
        for count, days in ((8, 0.8), (4, 1.8), (1, 11.0))
    ]  # fmt: skip
    axis = frontier_chart(points, 30)["layout"]["xaxis"]
    assert axis["type"] == "log" and {"0.5", "1", "2", "5", "10", "20"} <= set(axis["ticktext"])
    assert "0.9" not in axis["ticktext"] and "3" not in axis["ticktext"]


def test_the_frontier_hover_says_a_run_s_length_as_its_row_does() -> None:
    """A 15T-token pretraining on 8 GPUs hovered "2,446 days" where its row said it in days too (now years), and a
    20-minute run "0.0139 days" (found by leftovers10)."""
    machine = {"gpu_id": "B200", "provider_name": "Lambda", "price_type": "on_demand"}
    points = [{**machine, "gpu_count": n, "days": days, "total_usd": 1e6} for n, days in ((4, 2_446.0), (8, 0.0139))]
    trace = frontier_chart(points, 3_650)["data"][0]
    assert trace["text"] == ["4 GPUs<br>6.7 years", "8 GPUs<br>20 min"]
    assert "days" not in trace["hovertemplate"]


def test_the_training_step_chart_spans_its_step_times_not_zero_to_them(client):
    """70B full fine-tunes step in 3.5-4.0 s: an axis from 0 squeezed every point into its last eighth (screens)."""
    html = client.get("/?phase=training&model=llama-3.1-70b&method=full_ft&total_tokens=10000000000&max_days=3").text
    step = next(f for f in _figures(html) if f["layout"]["xaxis"]["title"]["text"] == "step time (s)")
    assert step["layout"]["xaxis"]["rangemode"] == "normal"


def test_the_memory_chart_s_capacity_ticks_keep_to_their_legend_rows(client):
    """The capacity and allocator-share ticks (24 px markers) drew over each other's legend rows (screens)."""
    figure = next(
        f for f in _figures(client.get("/?phase=training&model=llama-3.1-8b&method=lora").text)
        if f["data"][-1].get("name") == "capacity"
    )  # fmt: skip
    assert figure["layout"]["legend"]["itemsizing"] == "constant"
