"""An event schedule's time window across DST changes: the instant ``next_window_start``
promises is one at which ``in_window`` is open, on every day, so what ``info`` says a held
job waits for is what the engine does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bundletui.model.clock import to_ms
from bundletui.model.events import TimeWindow, in_window, next_window_start

NY = "America/New_York"


def ms(text: str) -> int:
    return to_ms(datetime.fromisoformat(text).replace(tzinfo=UTC))


@pytest.mark.parametrize(
    ("start", "end", "opens", "closes"),
    [
        # 02:00-03:00 does not exist on 2026-03-08: it opens at the shift for its hour
        (120, 180, "2026-03-08T07:00", "2026-03-08T08:00"),
        # 02:30-03:30: its opening is skipped: from the shift (03:00 EDT) for its hour
        (150, 210, "2026-03-08T07:00", "2026-03-08T08:00"),
        # spanning midnight, opening on the change day's eve is untouched
        (1380, 150, "2026-03-08T04:00", "2026-03-08T07:00"),
    ],
)
def test_a_window_opens_where_next_window_start_says(
    start: int, end: int, opens: str, closes: str
) -> None:
    w = TimeWindow(start, end)
    assert next_window_start(w, ms("2026-03-08T00:00") + 60_000, NY) == ms(opens)
    assert not in_window(w, ms(opens) - 60_000, NY)
    assert in_window(w, ms(opens), NY)
    assert in_window(w, ms(closes) - 60_000, NY)
    assert not in_window(w, ms(closes), NY)


@pytest.mark.parametrize("start_minute", range(0, 1440, 30))
def test_every_promised_opening_is_open_over_a_year(start_minute: int) -> None:
    w = TimeWindow(start_minute, (start_minute + 60) % 1440)
    t = datetime(2026, 1, 1, tzinfo=UTC)
    for _ in range(366):
        at = next_window_start(w, to_ms(t), NY)
        assert in_window(w, at, NY), (start_minute, t)
        assert not in_window(w, at - 60_000, NY) or start_minute in range(120, 180)
        t += timedelta(days=1)


def test_fall_back_keeps_both_readings_of_a_repeated_hour() -> None:
    w = TimeWindow(60, 120)  # 01:00-02:00 occurs twice on 2026-11-01
    assert in_window(w, ms("2026-11-01T05:30"), NY)  # 01:30 EDT
    assert in_window(w, ms("2026-11-01T06:30"), NY)  # 01:30 EST
    assert not in_window(w, ms("2026-11-01T07:00"), NY)  # 02:00 EST
