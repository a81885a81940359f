"""/disagg's pools table says how busy each pool is at the peak hour as its 'why' does. A prefill instance's capacity
is held to the utilisation its TTFT limit allows, so peak requests ÷ that capacity is not the share of the hour it
prefills: found by qa31 on 70B FP8 at 32k prompts, where the column read 'Busy at peak 93%' beside the why's
'(M/D/1, 57% busy)' and 'may be only 61% busy'."""

from __future__ import annotations

import re
from html import unescape

import pytest

QUESTION = "model=llama-3.1-70b&weight_dtype=fp8&input_len=32000&output_len=1000&ttft_ms=2000&tpot_ms=40"
QUESTION += "&requests_per_day=100000"


def test_prefill_busy_share_is_the_queue_rho_the_why_states(client):  # type: ignore[no-untyped-def]
    body = client.get(f"/disagg.json?{QUESTION}").json()
    plan = body["disaggregated"][0]
    prefill, decode = plan["prefill"], plan["decode"]
    why = " ".join(body["verdict"]["why"])
    said = re.search(r"\(M/D/1, (\d+)% busy\)", why)
    assert said is not None, why
    assert round(prefill["busy_share_at_peak"] * 100) == int(said.group(1))
    assert prefill["busy_share_at_peak"] < prefill["utilisation_at_peak"]  # the capacity already leaves idle time
    assert decode["busy_share_at_peak"] == pytest.approx(decode["utilisation_at_peak"])
    text = unescape(re.sub(r"<[^>]+>", " ", client.get(f"/disagg?{QUESTION}").text))
    text = re.sub(r"\s+", " ", text)
    busy, allowed = (
        round(prefill["busy_share_at_peak"] * 100),
        round(prefill["busy_share_at_peak"] / prefill["utilisation_at_peak"] * 100),
    )
    assert f" {prefill['step_ms']:.1f} {busy}% of {allowed}% allowed " in text  # the pool's pass ms, then busy


def test_a_rental_of_several_copies_says_copies_not_a_size(client):  # type: ignore[no-untyped-def]
    # 'on 2 rented instances of 4' read as 4-GPU instances beside '8 copies on 2 rented 8-GPU instances'
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", client.get(f"/disagg?{QUESTION}").text)))
    assert "on 2 rented instances, 4 copies each, TP2" in text
    assert "rented instances of" not in text
