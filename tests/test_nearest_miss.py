"""With nothing within the latency limits, the refusals nearest them come first and a note names the nearest and the
limits that would admit it (found by qa39: 64×GB200 at p99 TTFT 337 ms sat among layouts that hold no model)."""

from __future__ import annotations

from html import unescape

from app.scoring.inference.ranking.nearest_miss import rounded_up

TIGHT = "/?phase=inference&model=llama-3.1-405b&ttft_ms=300&tpot_ms=20"


def test_refusals_at_the_limits_come_first_nearest_first(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get(TIGHT.replace("/?", "/rank.json?") + "&show=all").json()
    assert body["feasible_options"] == 0
    reasons = [o["reason"] for o in body["options"]]
    at_limits = [r.startswith("even one request misses") for r in reasons]
    assert at_limits[0] and at_limits == sorted(at_limits, reverse=True)  # every miss before every no-fit
    first = body["options"][0]
    assert (first["gpu_count"], first["gpu_id"]) == (64, "GB200")
    misses = [r for r, m in zip(reasons, at_limits, strict=True) if m]
    ttfts = [float(r.split("p99 TTFT ")[1].split(" ms")[0].replace(",", "")) for r in misses]
    assert ttfts[0] == min(ttfts)  # here the nearest by both limits is also the lowest TTFT


def test_the_nearest_option_names_limits_that_admit_it(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get(TIGHT.replace("/?", "/rank.json?")).json()
    nearest = body["nearest_option"]
    assert (nearest["gpu_id"], nearest["gpu_count"]) == ("GB200", 64)
    assert 300 < nearest["ttft_limit_needed_ms"] <= nearest["ttft_ms"] == 340
    assert 20 < nearest["tpot_limit_needed_ms"] <= nearest["tpot_ms"] == 40
    assert nearest["note"] in body["notes"] and "TTFT 340 ms (asked 300)" in nearest["note"]
    admitted = client.get(nearest["url"].replace("/?", "/rank.json?")).json()
    assert admitted["feasible_options"] and admitted["options"][0]["gpu_id"] == "GB200"
    assert "nearest_option" not in admitted


def test_the_page_gives_the_note_and_its_link(client) -> None:  # type: ignore[no-untyped-def]
    html = unescape(client.get(TIGHT).text)
    assert "Nearest option: 64×GB200" in html and "Rank at those limits →" in html


def test_rounded_up_names_a_limit_at_or_above() -> None:
    assert [rounded_up(ms) for ms in (336.8, 39.38, 2901.0, 340.0, 9.95)] == [340.0, 40.0, 3000.0, 340.0, 10.0]
