"""The inference charts draw each answer on its own curve, with the limit it is held to and nothing it is not."""

import json
import re

import pytest

from app.scoring.efficiency.inference import DEFAULT_EFFICIENCY
from app.scoring.inference.batching.curves import CurvePoint
from app.service.charts.rank_points import frontier
from app.web.rank.charts import PALETTE, frontier_figure
from app.web.rank.curve_charts import ConfigCurve, curve_names


def frontier_chart(points: list[dict], deadline_days: float) -> dict:
    """The frontier's figure as the page draws it: its numbers (app.service.charts.rank_points), drawn."""
    return frontier_figure(frontier(points, deadline_days))


LATENCY_BOUND = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"
JOB = "/?phase=inference&model=llama-3.1-70b&scenario=max_throughput&job_requests=200000&job_deadline_hours=4"
COMPARE = "/compare?gpus=H100-SXM,H200,B200&model=llama-3.1-70b&weight_dtype=fp8&tpot_ms=40"


def _charts(client, url: str) -> dict[str, dict]:
    response = client.get(url)
    assert response.status_code == 200, url
    blocks = re.findall(r'<script type="application/json" data-chart="([^"]*)">(.*?)</script>', response.text, re.S)
    return {chart_id: json.loads(block) for chart_id, block in blocks}


def _curves_and_stars(figure: dict) -> tuple[dict[str, list[tuple[float, float]]], list[tuple[str, float, float]]]:
    curves: dict[str, list[tuple[float, float]]] = {}
    stars = []
    for trace in figure["data"]:
        if trace.get("legendgroup") == "chosen":
            stars.append(
                (trace["hovertemplate"].split("<extra>")[1].removesuffix("</extra>"), trace["x"][0], trace["y"][0])
            )
        elif trace.get("legendgroup"):
            curves.setdefault(trace["legendgroup"], []).extend(zip(trace["x"], trace["y"], strict=True))
    return curves, stars


@pytest.mark.parametrize("url", [LATENCY_BOUND, JOB, COMPARE])
def test_each_chosen_point_lies_on_its_own_curve(client, url):
    """The curve was swept with static batching while the answer ran continuous batching: at batch 26 the B200's
    curve said 28.8 ms and $1.75/M where its answer said 36.6 ms and $1.563/M."""
    charts = _charts(client, url)
    for chart_id in ("cost-latency", "throughput-batch"):
        curves, stars = _curves_and_stars(charts[chart_id])
        assert stars and len(stars) == len(curves)
        for label, x, y in stars:
            assert any(
                x == pytest.approx(cx, rel=1e-9) and y == pytest.approx(cy, rel=1e-9) for cx, cy in curves[label]
            )


def test_the_stars_are_the_answers_the_table_gives(client):
    payload = client.get(LATENCY_BOUND.replace("/?", "/rank.json?")).json()
    best = payload["options"][0]
    _, stars = _curves_and_stars(_charts(client, LATENCY_BOUND)["cost-latency"])
    label, tpot_ms, usd = stars[0]
    assert label == f"{best['gpu_count']}×{best['gpu_id']}"
    assert tpot_ms == pytest.approx(best["tpot_ms"])
    assert usd == pytest.approx(best["usd_per_million_output_tokens"])


def test_latency_bound_draws_the_mean_target_the_answer_is_held_to(client):
    figure = _charts(client, LATENCY_BOUND)["cost-latency"]
    (line,) = [t for t in figure["data"] if "TPOT" in t["name"] and t.get("mode") == "lines"]
    assert line["x"][0] == pytest.approx(DEFAULT_EFFICIENCY.slo_tpot_utilisation * 40)
    assert "mean TPOT target" in line["name"] and "40 ms p99 limit" in line["name"]
    _, stars = _curves_and_stars(figure)
    assert all(tpot <= line["x"][0] for _, tpot, _ in stars)


def test_a_batch_job_draws_no_latency_limit(client):
    """Max throughput applies no latency limit: no 50 ms line, no 'over TPOT limit' series."""
    charts = _charts(client, JOB)
    names = [t.get("name", "") for c in ("cost-latency", "throughput-batch") for t in charts[c]["data"]]
    assert names and not [n for n in names if "limit" in n or "target" in n]


def test_compare_draws_every_compared_gpu(client):
    charts = _charts(client, COMPARE)
    for chart_id in ("cost-latency", "throughput-batch", "memory"):
        text = json.dumps(charts[chart_id], ensure_ascii=False)
        assert all(f"×{gpu}" in text for gpu in ("H100-SXM", "H200", "B200")), chart_id


def test_series_of_one_chart_have_distinct_colours(client):
    """The batch job's chart had 11 GPUs and 10 colours: B300 and L40S were both blue."""
    figure = _charts(client, JOB)["job"]
    colours = [t["marker"]["color"] for t in figure["data"] if t.get("mode") == "markers"]
    assert len(colours) > 10 and len(set(colours)) == len(colours)
    assert len(set(PALETTE)) == len(PALETTE) >= 12


def test_a_curve_that_coincides_with_another_says_so():
    points = [CurvePoint(1, 100.0, 20.0), CurvePoint(2, 190.0, 21.0)]
    same = [ConfigCurve("1×B200", points, points[0], 1.0), ConfigCurve("1×B300", list(points), points[0], 2.0)]
    assert curve_names(same) == ["1×B200", "1×B300 (same curve as 1×B200)"]


def test_two_machines_of_one_seller_are_two_lines_not_a_zig_zag():
    """Lambda's 1-GPU and 8-GPU B200 machines were one line jumping between their prices at each GPU count."""

    def point(count: int, usd_per_gpu_hour: float) -> dict:
        days = 10.0 / count
        return {
            "gpu_id": "B200",
            "provider": "lambda",
            "provider_name": "Lambda",
            "price_type": "on_demand",
            "gpu_count": count,
            "days": days,
            "total_usd": days * 24 * count * usd_per_gpu_hour,
        }

    figure = frontier_chart([point(1, 4.0), point(2, 4.0), point(1, 5.0), point(2, 5.0), point(4, 5.0)], 30)
    lines = [t for t in figure["data"] if t["mode"] == "lines+markers"]
    assert [len(t["x"]) for t in lines] == [2, 3]
    assert lines[0]["name"] != lines[1]["name"] and "$4.00/GPU-h" in lines[0]["name"]
    assert all(t["x"] == sorted(t["x"], reverse=True) for t in lines)
    assert lines[0]["line"]["color"] != lines[1]["line"]["color"]


LIGHT_LOAD = "/?phase=inference&model=llama-3.1-70b&weight_dtype=fp8&input_len=8000&output_len=200&gpus=B200&max_gpus=1"


def test_a_light_load_curve_reads_in_flight_and_draws_batch_one_over_the_ttft_limit(client):
    """QA: the hover said "batch 0.1709", and batch 1 (which misses the TTFT limit: the answer is a lighter load) was
    drawn solid as within the limits, since only TPOT decided the line's style."""
    figure = _charts(client, LIGHT_LOAD)["throughput-batch"]
    star = next(t for t in figure["data"] if t.get("legendgroup") == "chosen")
    assert star["x"][0] < 1 and "requests in flight on average" in star["customdata"][0][0]
    solid = [t for t in figure["data"] if t.get("line", {}).get("dash") == "solid"]
    dotted = [t for t in figure["data"] if t.get("line", {}).get("dash") == "dot"]
    assert all(x < 1 for t in solid for x in t["x"])  # only the light load itself is within the limits
    assert dotted and 1 in dotted[0]["x"] and "(over a latency limit)" in dotted[0]["name"]
    assert not [t for t in figure["data"] if "batch 0." in json.dumps(t.get("customdata", []))]


def test_the_cost_latency_chart_draws_batch_one_over_the_ttft_limit_dotted_too(client):
    """QA: the cost-latency chart drew the light load's whole curve solid, so batch 1 (14.9 ms TPOT, left of the
    40 ms target line, but over the 1 s TTFT limit: why the answer is a lighter load) read as within the limits."""
    figure = _charts(client, LIGHT_LOAD)["cost-latency"]
    curves = [t for t in figure["data"] if t.get("legendgroup") not in (None, "chosen")]
    solid = [t for t in curves if t["line"].get("dash") == "solid"]
    dotted = [t for t in curves if t["line"].get("dash") == "dot"]
    assert solid and all("requests in flight on average" in words for t in solid for words in t["customdata"])
    assert dotted and "batch 1" in dotted[0]["customdata"] and "(over a latency limit)" in dotted[0]["name"]


def test_an_open_loops_star_reads_its_mean_in_flight(client):
    """QA: at 0.3 requests/s (1.055 in flight, Little's law) the star's hover said "chosen: batch 1.05545"; at 0.33 now
    (1.07 in flight)."""
    figure = _charts(client, LIGHT_LOAD + "&scenario=request_rate&requests_per_s=0.33")["throughput-batch"]
    star = next(t for t in figure["data"] if t.get("legendgroup") == "chosen")
    assert 1 < star["x"][0] < 2 and star["customdata"][0][0] == "1.07 requests in flight on average"
