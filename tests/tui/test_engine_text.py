"""What the header says of the engine, from :func:`~bundletui.store.lease.lease_state` (the
rule every site of the console uses), and the console's other sites agreeing with it: whether
it attaches to an engine (``live_lease``) or runs its own."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from bundletui._host import host_label, this_host
from bundletui.store.db import DB_NAME, Store
from bundletui.store.lease import EngineState, Lease, engine_state, try_acquire
from bundletui.tui.engine_host import EngineStatus, live_lease
from bundletui.tui.header import engine_text

NOW = 1_700_000_000_000
HOST = "db7/0123456789"


def _lease(expires_in: int) -> Lease:
    return Lease("db7:42:x", 42, HOST, "run", NOW - 60_000, NOW - 10_000, NOW + expires_in)


LIVE, LATE = _lease(3_000), _lease(-12_000)


@pytest.mark.parametrize(
    ("state", "lease", "read_only", "text", "short", "style"),
    [
        ("none", None, False, "engine: none (commands wait)", "engine: none", "yellow"),
        ("none", None, True, "engine: none", "engine: none", "yellow"),
        (
            "active",
            LIVE,
            False,
            f"engine: active (attached to pid 42@{host_label(HOST)})",
            "engine: active (pid 42)",
            "green",
        ),
        (
            "hung",
            LATE,
            False,
            "engine: pid 42 not responding (lease expired 12s ago)",
            "engine: pid 42 not responding",
            "bold red",
        ),
        (
            "stopped",
            LATE,
            False,
            "engine: pid 42 not responding (stopped; lease expired 12s ago)",
            "engine: pid 42 not responding",
            "bold red",
        ),
        (
            "gone",
            LIVE,
            False,
            "engine: none (pid 42 exited; :engine start)",
            "engine: none",
            "bold red",
        ),
        (
            "gone",
            LATE,
            True,
            "engine: none (pid 42 exited, lease expired 12s ago)",
            "engine: none",
            "bold red",
        ),
        (
            "expired",
            LATE,
            False,
            f"engine: none (pid 42@{host_label(HOST)}'s lease expired 12s ago; :engine start)",
            "engine: none",
            "bold red",
        ),
    ],
)
def test_the_header_says_each_state_of_an_engine_elsewhere(
    state: EngineState, lease: Lease | None, read_only: bool, text: str, short: str, style: str
) -> None:
    assert engine_text(state, lease, NOW, None, read_only) == (text, short, style)


def test_the_header_says_what_the_consoles_own_engine_does() -> None:
    active = EngineStatus("active", "console:4242:abc")
    assert engine_text("active", LIVE, NOW, active, False) == (
        "engine: active (in console, pid 4242)",
        "engine: active (in console)",
        "green",
    )
    failed = EngineStatus("failed", "console:4242:abc", "EB203: quit")
    assert engine_text("none", None, NOW, failed, False)[0] == "engine: FAILED EB203: quit"
    standby = EngineStatus("standby", "console:4242:abc")
    assert engine_text("active", LIVE, NOW, standby, False)[0] == (
        f"engine: standby (in console; lease held by pid 42@{host_label(HOST)})"
    )
    # a standby beside a holder that does not respond says for whom it waits
    assert engine_text("stopped", LATE, NOW, standby, False) == (
        "engine: standby; pid 42 not responding (stopped; lease expired 12s ago)",
        "engine: standby; pid 42 not responding",
        "bold red",
    )
    starting = EngineStatus("starting", "console:4242:abc")
    assert engine_text("none", None, NOW, starting, False) == (
        "engine: starting (in console)",
        "engine: starting",
        "yellow",
    )


@pytest.mark.parametrize("late", [False, True])
def test_the_console_attaches_only_to_an_engine_the_header_calls_active(
    tmp_path: Path, late: bool
) -> None:
    """``bundletui console`` attaches to a live engine and runs none of its own; beside one
    whose lease ran out (hung, stopped) it runs its own, which waits as a standby."""
    with Store(tmp_path) as store, (tmp_path / DB_NAME).open("rb") as held:
        proc = subprocess.Popen(["sleep", "60"], stdin=held)
        try:
            now = int(time.time() * 1000)
            ttl = 200 if late else 60_000
            assert try_acquire(store, "h", proc.pid, this_host(), "run", now, ttl) is None
            if late:
                time.sleep(0.3)
            state = engine_state(store.conn, int(time.time() * 1000))
            assert state == ("hung" if late else "active")
            assert (live_lease(tmp_path) is not None) is (state == "active")
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
