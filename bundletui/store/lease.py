"""The engine lease: one row, held by at most one engine, kept alive by heartbeats.

Lease times are real wall-clock milliseconds even when the engine runs a simulated clock: the
lease is about processes being alive, not about schedule time.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bundletui._host import same_host, this_host
from bundletui._procfs import holds_open, proc_stat, started_ms
from bundletui.store.db import MIGRATIONS, Store, StoreError, Tx


@dataclass(frozen=True, slots=True)
class Lease:
    holder: str
    pid: int
    host: str
    mode: str
    acquired: int
    heartbeat: int
    expires: int


def read_lease(conn: sqlite3.Connection) -> Lease | None:
    row = conn.execute(
        "SELECT holder, pid, host, mode, acquired, heartbeat, expires FROM engine_lease WHERE id = 1"
    ).fetchone()
    return None if row is None else Lease(*row)


def try_acquire(
    store: Store, holder: str, pid: int, host: str, mode: str, now_ms: int, ttl_ms: int
) -> Lease | None:
    """Take the lease if it is free or expired; returns the lease held by someone else otherwise.
    A lease plainly held is seen without the write lock (a standby polls this every second;
    a write would fail while another process holds the lock). EB006 when the lease looks
    free but the write lock stays taken."""
    conn = store.conn
    seen = read_lease(conn)
    if _held_by_other(seen, holder, now_ms, host, store.path):
        return seen
    store.begin_immediate()
    try:
        current = read_lease(conn)
        if _held_by_other(current, holder, now_ms, host, store.path):
            conn.execute("COMMIT")
            return current
        _same_schema(store)

        conn.execute(
            "INSERT INTO engine_lease (id, holder, pid, host, mode, acquired, heartbeat, expires)"
            " VALUES (1, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET holder = excluded.holder,"
            " pid = excluded.pid, host = excluded.host, mode = excluded.mode,"
            " acquired = excluded.acquired, heartbeat = excluded.heartbeat, expires = excluded.expires",
            (holder, pid, host, mode, now_ms, now_ms, now_ms + ttl_ms),
        )
        conn.execute("COMMIT")
        return None
    except BaseException:
        # a COMMIT that failed (a full disk) has rolled back already: its error is the one to
        # report, not "no transaction is active"
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _same_schema(store: Store) -> None:
    """A standby waits with its store open: a newer bundletui may have migrated the store
    meanwhile (its engine was the active one, or none ran), and this engine's code would meet
    tables it does not know. It stops instead of taking over (QA: an older standby did)."""
    version = store.conn.execute("PRAGMA user_version").fetchone()[0]
    if version != len(MIGRATIONS):
        raise StoreError(
            "EB003",
            f"store {store.path} was migrated to schema {version} by a newer bundletui while"
            f" this engine (schema {len(MIGRATIONS)}) waited; it does not take over",
            hint="start the engine of the newer bundletui instead",
        )


def _held_by_other(current: Lease | None, holder: str, now_ms: int, host: str, path: Path) -> bool:
    return (
        current is not None
        and current.holder != holder
        and (current.expires > now_ms or alive_here(current, host))
        and not _dead_here(current, host)
        and not _elsewhere(current, host, path)
    )


def _elsewhere(lease: Lease, host: str, path: str | Path) -> bool:
    """The holder runs on this host without this store open: the row came with a copy of
    the store (a backup restored to another home), and its engine runs on the original."""
    if not same_host(lease.host, host) or lease.pid <= 0 or lease.pid == os.getpid():
        return False
    return holds_open(lease.pid, path) is False


def store_path(conn: sqlite3.Connection) -> str:
    """The file a connection has open (its main database)."""
    return str(conn.execute("PRAGMA database_list").fetchone()[2])


def heartbeat(store: Store, holder: str, now_ms: int, ttl_ms: int) -> bool:
    """Extend our lease; False means we lost it (another engine took over)."""
    return _extend(store.conn, holder, now_ms, ttl_ms)


def renew(tx: Tx, holder: str, now_ms: int, ttl_ms: int) -> None:
    """:func:`heartbeat` inside a transaction of the engine's (a tick too long for the lease
    thread to get the write lock)."""
    _extend(tx.conn, holder, now_ms, ttl_ms)


def _extend(conn: sqlite3.Connection, holder: str, now_ms: int, ttl_ms: int) -> bool:
    cur = conn.execute(
        "UPDATE engine_lease SET heartbeat = ?, expires = ? WHERE id = 1 AND holder = ?",
        (now_ms, now_ms + ttl_ms, holder),
    )
    return cur.rowcount == 1


def holds(conn: sqlite3.Connection, holder: str) -> bool:
    row = conn.execute("SELECT holder FROM engine_lease WHERE id = 1").fetchone()
    return row is not None and row[0] == holder


def release(store: Store, holder: str) -> None:
    store.conn.execute("DELETE FROM engine_lease WHERE id = 1 AND holder = ?", (holder,))


def alive_here(lease: Lease, host: str) -> bool:
    """The holder runs on this host and its process lives, even if its lease expired: it is
    stopped (Ctrl-Z, SIGSTOP) or stalled, not gone, and would go on starting jobs when it
    resumes. A zombie, or a pid reused since (a process started after the lease was taken),
    does not count. Only another host's holder is judged by its lease's expiry alone."""
    if not same_host(lease.host, host) or lease.pid <= 0 or lease.pid == os.getpid():
        return False  # another engine of this process (a console's thread): its lease decides
    st = proc_stat(lease.pid)
    if st is None or st.state in ("Z", "X"):
        return False
    started = started_ms(st)
    return started is not None and started <= lease.acquired + 1_000  # btime: seconds


def stopped_holder(conn: sqlite3.Connection) -> int | None:
    """The pid of the lease's holder when it runs here and is stopped (Ctrl-Z, SIGSTOP): the
    likely holder of a write lock nobody releases. Only a guess, since SQLite does not say who
    holds its lock, so it is used to explain a wait, never to break a lock."""
    lease = read_lease(conn)
    if lease is None or holder_process(lease, store_path(conn)) != "stopped":
        return None
    return lease.pid


def holder_process(lease: Lease, path: str | Path | None = None) -> str:
    """What is known of the lease holder's process, whatever its lease says: ``alive``,
    ``stopped`` (alive, but SIGSTOP / Ctrl-Z: it renews nothing and starts nothing until it
    is continued), ``gone`` (it ran on this host and has exited, or — given the store's
    ``path`` — runs without that store open: the lease came with a copy of the store), or
    ``unknown`` (another host's, or a thread of this very process: only its lease can tell).

    The console's header asks at every refresh, so this reads ``/proc/<pid>/stat`` once: whether the
    process is the lease's (:func:`alive_here`'s rule, which reads the boot time too) is asked
    once per process."""
    host = this_host()
    if not same_host(lease.host, host) or lease.pid <= 0 or lease.pid == os.getpid():
        return "unknown"
    st = proc_stat(lease.pid)
    if st is None or st.state in ("Z", "X"):  # exited (a zombie: killed, not yet reaped)
        return "gone"
    # this very process, for this lease (and this store)
    key = (lease.pid, lease.acquired, st.start_ticks, None if path is None else str(path))
    holds = _HOLDS.get(key)
    if holds is None:
        if len(_HOLDS) > 16:
            _HOLDS.clear()
        holds = _HOLDS[key] = alive_here(lease, host) and not (
            path is not None and _elsewhere(lease, host, path)
        )
    if not holds:  # its pid reused since (or it exited just now), or another store's
        return "gone"
    return "stopped" if st.state in ("T", "t") else "alive"


_HOLDS: dict[tuple[int, int, int, str | None], bool] = {}


def _dead_here(lease: Lease, host: str) -> bool:
    """The holder ran on this host and its process is gone (kill -9): no need to wait the TTL."""
    if not same_host(lease.host, host) or lease.pid <= 0:
        return False
    try:
        os.kill(lease.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    st = proc_stat(lease.pid)
    return st is not None and st.state in ("Z", "X")  # killed, not yet reaped


#: What :func:`lease_state` says of the store's engine, as every face shows it:
#: ``none``: no lease row (no engine has held the store, or the last one let it go);
#: ``active``: the lease is live and its holder, if it runs on this host, still exists;
#: ``hung``: the lease ran out but its holder still runs here (a stall): nothing takes over;
#: ``stopped``: the same, and the holder is stopped (SIGSTOP, Ctrl-Z);
#: ``gone``: its holder ran on this host and has exited (or the pid is another process's
#: now, or it runs without this store open: the lease came with a copy), whatever its lease;
#: ``expired``: the lease ran out and nothing here can say more (another host's holder).
EngineState = Literal["none", "active", "hung", "stopped", "gone", "expired"]

#: The states in which an engine holds the store: a new one waits as a standby, and a
#: command's change is the engine's to act on (once it resumes, for hung or stopped).
HOLDING: frozenset[EngineState] = frozenset({"active", "hung", "stopped"})


def lease_state(lease: Lease | None, now_ms: int, path: str | Path | None = None) -> EngineState:
    """What ``lease`` (read earlier: the console reads it in its poll) says of its engine at
    ``now_ms`` (real wall-clock ms), given the store's ``path`` (see :func:`holder_process`).
    The one rule behind the console's header, its ``:engine start``, whether it runs an engine
    of its own, and whether a command's change waits for one."""
    if lease is None:
        return "none"
    process = holder_process(lease, path)
    if process == "gone":  # killed here (kill -9): gone at once, not when its lease runs out
        return "gone"
    if lease.expires > now_ms:
        return "active"
    if process == "unknown":
        return "expired"
    return "stopped" if process == "stopped" else "hung"


def engine_state(conn: sqlite3.Connection, now_ms: int) -> EngineState:
    """:func:`lease_state` of the store ``conn`` has open, read now."""
    return lease_state(read_lease(conn), now_ms, store_path(conn))


def engine_running(conn: sqlite3.Connection, now_ms: int) -> bool:
    """Whether an engine holds the store: its lease is live, or its process still runs here
    (stopped, or stalled past its lease). A command's change waits in the store otherwise."""
    return engine_state(conn, now_ms) in HOLDING
