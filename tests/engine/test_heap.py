from bundletui.engine.heap import DueHeap


def test_pop_in_time_order_and_replace() -> None:
    h = DueHeap()
    h.push(30, "m", "a")
    h.push(10, "m", "b")
    h.push(20, "t", "a")
    h.push(5, "m", "a")  # replaces 30
    assert h.peek_time() == 5
    due = h.pop_due(20)
    assert [(d.time_ms, d.kind, d.key) for d in due] == [
        (5, "m", "a"),
        (10, "m", "b"),
        (20, "t", "a"),
    ]
    assert h.peek_time() is None and len(h) == 0


def test_push_earlier_and_cancel() -> None:
    h = DueHeap()
    h.push(10, "m", "a")
    h.push_earlier(20, "m", "a")
    assert h.scheduled("m", "a") == 10
    h.push_earlier(5, "m", "a")
    assert h.scheduled("m", "a") == 5
    h.cancel("m", "a")
    assert h.pop_due(100) == []
