"""What a lease row says of its engine (``lease_state``): the one rule behind the console's
header, its ``:engine start``, whether it runs an engine of its own, and whether a command's
change waits for one (``engine_running``). Real processes on this host, real /proc."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bundletui._host import this_host
from bundletui._procfs import proc_stat
from bundletui.store.db import DB_NAME, Store
from bundletui.store.lease import (
    HOLDING,
    Lease,
    engine_running,
    engine_state,
    lease_state,
    try_acquire,
)

TTL = 60_000


def _now() -> int:
    return int(time.time() * 1000)


def _lease(pid: int, host: str, acquired: int, expires: int) -> Lease:
    return Lease(f"h:{pid}:x", pid, host, "run", acquired, acquired, expires)


@contextlib.contextmanager
def _holder(store_file: Path | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A live process on this host; with ``store_file``, one that holds it open (its stdin),
    as an engine holds its store."""
    with contextlib.ExitStack() as stack:
        stdin = stack.enter_context(store_file.open("rb")) if store_file else subprocess.DEVNULL
        proc = subprocess.Popen(["sleep", "60"], stdin=stdin)
    try:
        yield proc
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.send_signal(signal.SIGCONT)
        proc.wait(10)


def _exited_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait(10)
    return proc.pid


def _wait_state(pid: int, states: str) -> None:
    end = time.monotonic() + 10
    while (st := proc_stat(pid)) is None or st.state not in states:
        assert time.monotonic() < end, st
        time.sleep(0.01)


def test_no_lease_row_is_none() -> None:
    assert lease_state(None, _now()) == "none"


def test_another_hosts_lease_is_judged_by_its_expiry_alone() -> None:
    now = _now()
    lease = _lease(4_000_000, "elsewhere/0123456789", now, now + TTL)
    assert lease_state(lease, now) == "active"
    assert lease_state(lease, now + TTL) == "expired"


def test_a_lease_of_this_very_process_is_judged_by_its_expiry() -> None:
    """The console's own engine is a thread of the console: /proc says nothing of it."""
    now = _now()
    lease = _lease(os.getpid(), this_host(), now, now + TTL)
    assert lease_state(lease, now) == "active"
    assert lease_state(lease, now + TTL) == "expired"


def test_a_holder_that_exited_here_is_gone_before_its_lease_runs_out() -> None:
    now = _now()
    lease = _lease(_exited_pid(), this_host(), now, now + TTL)
    assert lease_state(lease, now) == "gone"
    assert lease_state(lease, now + TTL) == "gone"


def test_a_killed_holder_not_yet_reaped_is_gone() -> None:
    proc = subprocess.Popen(["sleep", "60"])
    try:
        proc.send_signal(signal.SIGKILL)
        _wait_state(proc.pid, "Z")
        now = _now()
        assert lease_state(_lease(proc.pid, this_host(), now, now + TTL), now) == "gone"
    finally:
        proc.wait(10)


def test_a_live_holder_past_its_lease_is_hung_and_a_stopped_one_stopped() -> None:
    with _holder() as proc:
        now = _now()
        lease = _lease(proc.pid, this_host(), now, now + TTL)
        assert lease_state(lease, now) == "active"
        assert lease_state(lease, now + TTL) == "hung"
        os.kill(proc.pid, signal.SIGSTOP)
        _wait_state(proc.pid, "Tt")
        assert lease_state(lease, now + TTL) == "stopped"
        # within its lease a stopped holder still reads as active, as the header always
        # showed it: only a lease run out says it does not respond
        assert lease_state(lease, now) == "active"


def test_a_pid_reused_since_the_lease_was_taken_is_gone() -> None:
    with _holder() as proc:
        now = _now()
        taken_before = _lease(proc.pid, this_host(), now - 3_600_000, now + TTL)
        assert lease_state(taken_before, now) == "gone"


@pytest.mark.parametrize(
    ("opened", "late", "state"),
    [
        (True, False, "active"),
        (True, True, "hung"),
        (False, False, "gone"),  # the row came with a copy of the store: its engine is elsewhere
    ],
)
def test_engine_state_reads_the_stores_lease_and_path(
    tmp_path: Path, opened: bool, late: bool, state: str
) -> None:
    with Store(tmp_path) as store, _holder(tmp_path / DB_NAME if opened else None) as proc:
        now = _now()
        assert try_acquire(store, "h", proc.pid, this_host(), "run", now, TTL) is None
        at = now + TTL if late else now
        assert engine_state(store.conn, at) == state
        assert engine_running(store.conn, at) is (state in HOLDING)


def test_an_empty_store_has_no_engine(tmp_path: Path) -> None:
    with Store(tmp_path) as store:
        assert engine_state(store.conn, _now()) == "none"
        assert not engine_running(store.conn, _now())
