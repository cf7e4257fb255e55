"""QA (events): a time window whose opening a spring-forward shift skips. ``info`` said the
held job waited until the shift (03:00 EDT), but the engine's window check read 03:00 as past
the window, so the job waited a day (or was discarded at its timeout). The window now opens at
the shift and lasts its length, as a skipped cron time fires at the shift."""

from __future__ import annotations

from tests.e2e5.conftest import Bt5, Feed, event_coordinator


def test_a_window_skipped_by_spring_forward_opens_at_the_shift(bt: Bt5) -> None:
    app = bt.write(
        "twny.xml",
        event_coordinator(
            "twny",
            feeds=[Feed("f", "${landing}/f")],
            trigger='<partitions feed="f"/>',
            constraints='<time-window start="02:00" end="03:00"/>'
            '<timeout on-timeout="discard">PT2H</timeout>',
            timezone="America/New_York",
        ),
    )
    coord = bt.submit(app, {"sleep": "0"})
    bt.land("f", "p1")
    bt.step("2026-03-08T05:30Z")  # 00:30 EST on the change day
    (held,) = bt.actions(coord)
    assert held["status"] == "WAITING"
    waiting = bt.info(held["id"])["waitingFor"]
    assert waiting["constraint"] == "time-window"
    assert waiting["until"] == "Sun, 08 Mar 2026 07:00:00 GMT"  # 03:00 EDT, the shift
    bt.step("2026-03-08T07:00Z")
    (ran,) = bt.actions(coord)
    assert ran["status"] == "SUCCEEDED", ran
    assert bt.info(ran["id"])["createdTime"] == "Sun, 08 Mar 2026 05:30:00 GMT"
