"""A snapshot's memo builds each (kind, arguments) once, keeps kinds apart, and empties itself at its limit."""

from __future__ import annotations

from functools import partial

from app.scoring.pricing import snapshot_memo
from app.scoring.pricing.snapshot_memo import MemoKind, SnapshotMemo


def _counting(value: object, calls: list[object]) -> object:
    calls.append(value)
    return value


def test_memo_builds_each_result_once_per_arguments() -> None:
    memo, calls = SnapshotMemo(), list[object]()
    kind: MemoKind[object] = MemoKind("offers")
    first = memo.get(kind, ("h100",), lambda: _counting(["a"], calls))
    again = memo.get(kind, ("h100",), lambda: _counting(["b"], calls))
    other = memo.get(kind, ("a100",), lambda: _counting(["c"], calls))
    assert first is again and first == ["a"] and other == ["c"]
    assert calls == [["a"], ["c"]]


def test_kinds_with_one_name_never_share_an_entry() -> None:
    memo = SnapshotMemo()
    offers: MemoKind[str] = MemoKind("same")
    slots: MemoKind[int] = MemoKind("same")
    assert memo.get(offers, (), lambda: "offers") == "offers"
    assert memo.get(slots, (), lambda: 7) == 7


def test_memo_empties_itself_at_its_limit() -> None:
    memo, calls = SnapshotMemo(), list[object]()
    kind: MemoKind[object] = MemoKind("runs")
    for n in range(snapshot_memo.MEMO_LIMIT):
        memo.get(kind, n, partial(_counting, n, calls))
    memo.get(kind, 0, lambda: _counting("kept", calls))  # still remembered: nothing built
    memo.get(kind, "one more", lambda: _counting("over", calls))  # the limit is reached: the memo empties first
    memo.get(kind, 0, lambda: _counting("rebuilt", calls))
    assert calls[-2:] == ["over", "rebuilt"] and "kept" not in calls
