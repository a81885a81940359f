"""The overloaded refusal's queue growth reads as a count of requests a minute at any backlog: just over capacity
it said 'the queue grows by 0 requests a minute' (1.6 requests/s against 1.595: 0.31) or '1 requests'."""

from types import SimpleNamespace

from app.scoring.inference.estimates.refusals import overload_reason


def _reason(backlog_per_s: float) -> str:
    return overload_reason(2.0, SimpleNamespace(backlog_per_s=backlog_per_s, batch=36))  # type: ignore[arg-type]


def test_a_backlog_under_one_request_a_minute_is_not_rounded_to_none():
    assert "the queue grows by 0.31 requests a minute" in _reason(0.31 / 60)


def test_one_request_a_minute_is_singular_and_many_keep_thousands():
    assert "the queue grows by 1 request a minute" in _reason(1 / 60)
    assert "the queue grows by 1,500 requests a minute" in _reason(25.0)
