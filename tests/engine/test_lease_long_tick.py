"""The engine and the store's write lock: a tick that holds it longer than the lease renews
the lease as it commits; a recovery that finds it held by another process waits.

The lease thread cannot write while the engine's own tick holds the store's write lock. Without
the renewal at commit, a tick three times the lease's length ends with the lease expired in the
store: an engine on another host would take it over while this one goes on launching jobs.
The tick is made long by a pump of the engine's own that sleeps once: the real engine, the real
store, the real lease thread.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from bundletui.engine.service import Engine, EngineConfig
from bundletui.store import db
from bundletui.store.db import Store, Tx
from bundletui.store.lease import Lease, read_lease

TTL = 0.6
TICK = 3 * TTL


def test_a_tick_longer_than_the_lease_renews_it_as_it_commits(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    engine = Engine(EngineConfig(home=home, watch=False, lease_ttl=TTL))
    seen: list[tuple[Lease | None, int]] = []
    slept = False

    def look() -> None:
        """Right after the long tick's commit, as another process would read the lease."""
        other = Store(home)
        try:
            seen.append((read_lease(other.conn), int(time.time() * 1000)))
        finally:
            other.close()
        engine.request_stop()

    def slow_pump(tx: Tx) -> bool:
        nonlocal slept
        if slept:
            return False
        slept = True
        time.sleep(TICK)  # the write lock held: no beat can land meanwhile
        engine.after_commit.append(look)
        return True

    engine.pumps.append(slow_pump)
    engine.pending_checks.append(lambda: not slept)
    with caplog.at_level(logging.WARNING):
        asyncio.run(asyncio.wait_for(engine.run(), 30))

    [(lease, now_ms)] = seen
    assert lease is not None and lease.holder == engine.holder
    assert lease.expires > now_ms, (
        f"the lease expired {now_ms - lease.expires} ms before the long tick committed"
    )
    assert lease.heartbeat >= now_ms - 1_000 * TTL
    # the lease thread's failed beats during the engine's own tick are not another process's
    assert "lease not renewed" not in caplog.text


def test_recovery_waits_for_a_write_lock_held_past_the_wait(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the write lock past the wait as the engine starts (a sqlite3
    shell left in BEGIN) made its start-up recovery fail with EB006, and the engine exit, where
    a tick in the same case waits (CI caught it in the lock test's race). The lock is taken by
    a start-up hook, just before the recovery, and let go once the engine has said it waits."""
    monkeypatch.setattr(db, "LOCK_WAIT_MS", 500)
    home = tmp_path / "home"
    engine = Engine(EngineConfig(home=home, watch=False, exit_when_idle=True))
    held = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(home / "bundletui.db", isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        held.set()
        # past the wait, however slow the machine: until the engine has said it waits (it
        # did not exit), then a little longer (10 s at most: the assertions below tell)
        end = time.monotonic() + 10
        while "recovery not written" not in caplog.text and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        conn.execute("ROLLBACK")
        conn.close()

    def take_the_lock() -> None:
        threading.Thread(target=hold, daemon=True).start()
        assert held.wait(5)

    engine.startup.append(take_the_lock)
    with caplog.at_level(logging.WARNING):
        asyncio.run(asyncio.wait_for(engine.run(), 30))
    assert "recovery not written" in caplog.text and "stayed locked" in caplog.text
    assert "recovery written: the store is writable again" in caplog.text
