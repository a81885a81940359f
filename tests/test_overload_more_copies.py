"""An overloaded fixed load's row says where more copies of a smaller layout on the same rented instance keep up with
more (found by left34): one TP8 copy of a 70B model on B200 'keeps up with 13.3 requests/s' at 60 requests/s, where
the instance's four TP1×PP2 copies keep up with 22.6 together; the ranking had solved both."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from app.scoring.inference.estimates.more_copies import _below

OVERLOAD = "phase=inference&model=llama-3.1-70b&ttft_ms=500&scenario=request_rate&requests_per_s=60&show=all"


def _overloaded(client: TestClient) -> list[dict[str, Any]]:
    options = client.get(f"/rank.json?{OVERLOAD}").json()["options"]
    return [o for o in options if not o["feasible"] and o["reason"].startswith("overloaded")]


def test_an_overloaded_row_says_the_rate_more_copies_on_its_instance_keep_up_with(client: TestClient) -> None:
    b200 = next(o for o in _overloaded(client) if o["gpu_id"] == "B200" and o["gpu_count"] == 8)
    shown = float(re.search(r"keeps up with ([\d.]+) requests/s", b200["reason"]).group(1))  # type: ignore[union-attr]
    more = re.search(r"; (\d+) copies of (\S+) on the rented 8-GPU instance would keep up with ([\d.]+) requests/s "
                     r"together$", b200["reason"])  # fmt: skip
    assert more is not None, b200["reason"]
    assert int(more.group(1)) > 1
    assert float(more.group(3)) > shown


def test_an_overloaded_row_whose_instance_holds_nothing_faster_is_left_as_it_was(client: TestClient) -> None:
    rows = _overloaded(client)
    assert any("together" not in o["reason"] for o in rows)
    for o in rows:
        assert o["reason"].count("would keep up with") <= 1


def test_the_copies_rate_never_rounds_up_to_the_rate_asked() -> None:
    """The 8B golden's eight 1-GPU copies keep up with 19.97 of 20 requests/s: '20' would read as keeping up."""
    assert _below(19.97, 20) == "19.97"
    assert _below(13.94, 20) == "13.9"
