"""Opening the SQLite file, migrating it, and write transactions.

Write transactions are ``BEGIN IMMEDIATE`` (no lock upgrades, so no deadlock between the engine
and a CLI command) and bump the store revision once, which every row written in them records.
WAL with ``synchronous=NORMAL`` survives a process crash (kill -9) without losing a committed
transaction; ``durability="full"`` also survives power loss, at a cost (see peers.md §2d).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bundletui._host import host_key, host_label, os_user, same_host
from bundletui._procfs import proc_stat, started_ms
from bundletui.errors import StoreError
from bundletui.model.clock import Clock, RealClock, to_ms
from bundletui.model.ids import JobKind, job_id, stamp
from bundletui.store.schema import MIGRATIONS

if TYPE_CHECKING:
    import sqlite_utils

DB_NAME = "bundletui.db"

# Waiting for another process's write transaction: in steps, so that a holder which cannot
# finish (an engine stopped by Ctrl-Z / SIGSTOP inside its tick) is told at once, not after
# the whole wait. 30 s in all, as before; the connection's own timeout stays 30 s for the rest.
LOCK_WAIT_MS = 30_000
LOCKED = "EB006"  # the code of the write lock staying taken past the wait
_LOCK_STEP_MS = 250


_KINDS = {
    "bundle_jobs": "bundle",
    "bundle_actions": "bundle action",
    "coord_jobs": "coordinator",
    "coord_actions": "action",
    "wf_jobs": "workflow",
    "wf_nodes": "node",
}


def default_home() -> Path:
    """``$BUNDLETUI_HOME``, or ``~/.bundletui``. Set but blank (``BUNDLETUI_HOME=`` in a
    script, an unset variable) is refused, as ``--home ''`` is: it would fall back on the
    user's own store without a word."""
    env = os.environ.get("BUNDLETUI_HOME")
    if env is not None and not env.strip():
        raise StoreError(
            "E0302",
            "Invalid parameter [BUNDLETUI_HOME]: it is set but empty",
            hint="set it to the store's directory, unset it for ~/.bundletui, or pass --home DIR",
            usage=True,
        )
    return Path(env).expanduser() if env else Path.home() / ".bundletui"


def _open_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """What went wrong opening the store file, said for a person, with what to do."""
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        hint = (
            "the file is not a bundletui store, or it is damaged: move it aside (and its -wal"
            " and -shm files) and submit again, or restore it from a backup"
        )
    elif "unable to open" in text or "readonly" in text:
        hint = (
            f"the store's directory {path.parent} must be writable, on a file system with free"
            " space and inodes (df -i): SQLite keeps its -wal and -shm files next to the store,"
            " even for reading"
        )
    elif "disk" in text:  # "disk I/O error", "database or disk is full": EB007, as for writes
        return StoreError(
            "EB007",
            f"cannot open store {path}: {text}",
            hint=f"free space on the file system holding {path.parent} (SQLite writes its -shm"
            " file even to read), and check its file size limit (ulimit -f)",
        )
    else:
        hint = "check the file and its directory"
    return StoreError("EB002", f"cannot open store {path}: {text}", hint=hint)


def resolve_home(home: str | Path | None) -> Path:
    path = Path(home).expanduser() if home else default_home()
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # a symbolic link loop (ELOOP; RuntimeError < 3.13)
        raise StoreError(
            "EB002",
            f"cannot use {path} as the store's home: {getattr(exc, 'strerror', None) or exc}",
            hint="it is a loop of symbolic links: point --home (or BUNDLETUI_HOME) at a"
            " directory, or at a link that ends in one",
        ) from None


#: ``bundletui run -v``: every status a transaction wrote, logged once it has committed.
log = logging.getLogger(__name__)
transitions_log = logging.getLogger("bundletui.transitions")


@dataclass(slots=True)
class Tx:
    """An open write transaction: its revision and the connection to write through."""

    conn: sqlite3.Connection
    rev: int
    now_ms: int
    # (table, row id, status) written, when transitions are logged (None: they are not)
    changes: list[tuple[str, str, str]] | None = None
    _marks: list[int] = field(default_factory=list)  # len(changes) at each open savepoint

    # Savepoints: part of a transaction that can be undone alone. ``name`` is ours, never input.
    def savepoint(self, name: str) -> None:
        self.conn.execute(f"SAVEPOINT {name}")
        if self.changes is not None:
            self._marks.append(len(self.changes))

    def rollback_to(self, name: str) -> None:
        """Undo what was written since the savepoint, and end it."""
        self.conn.execute(f"ROLLBACK TO {name}")
        self.conn.execute(f"RELEASE {name}")
        if self.changes is not None:
            del self.changes[self._marks.pop() :]

    def release(self, name: str) -> None:
        """Keep what was written since the savepoint, and end it."""
        self.conn.execute(f"RELEASE {name}")
        if self.changes is not None:
            self._marks.pop()

    def changed(self, table: str, key: Any, values: Mapping[str, Any]) -> None:
        """A write of ``values`` to row ``key``: kept for the log when it sets a status."""
        if self.changes is not None and "status" in values:
            self.changes.append((table, str(key), values["status"]))


class Store:
    """One connection to the store file. Not shared across threads: open one per thread."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        clock: Clock | None = None,
        durability: str = "normal",
        create: bool = True,
        cache_mib: int = 64,
    ) -> None:
        """``cache_mib``: SQLite's page cache for this connection; a process with many (the
        API's worker threads) gives each less, so its memory stays bounded by the store's
        size rather than by 64 MiB a connection."""
        self.home = resolve_home(home)
        self.path = self.home / DB_NAME
        if self.home.exists() and not self.home.is_dir():
            raise StoreError(
                "EB002",
                f"cannot open store {self.path}: {self.home} is not a directory",
                hint=f"--home names the store's directory, and {self.home} is a file",
            )
        if not self.path.exists() and not create:
            raise StoreError(
                "EB001",
                f"no store at {self.path}",
                hint="submit a job first, or pass --home to the directory holding bundletui.db",
            )
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            if create:  # an open that may make the store (an engine's, a first submit's)
                _remove_dead_makers_files(self.path)
                if not self.path.exists():
                    _make_whole(self.path)
            self.conn = sqlite3.connect(
                self.path, isolation_level=None, timeout=30.0, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            if self.home.is_file():
                hint = f"--home names the store's directory, and {self.home} is a file"
            elif self.path.is_dir():
                hint = (
                    f"{self.path} is a directory, not a store: move it away, or pass another --home"
                )
            else:
                hint = "check the directory's permissions, or pass another --home"
            raise StoreError("EB002", f"cannot open store {self.path}: {exc}", hint=hint) from exc
        self.conn.row_factory = sqlite3.Row
        self._stamp: str | None = None
        # The id sequence inside a write transaction: read at its first id, written back once
        # before its commit (None: no id taken yet, or no transaction open).
        self._id_seq: int | None = None
        self._writing = False
        # asked between the steps of a wait for another process's write lock: True gives the
        # wait up at once (EB006, nothing begun); an engine asked to stop sets it, so Ctrl-C
        # is not held for the 30 s wait
        self.give_up_wait: Callable[[], bool] | None = None

        pragmas = [
            f"PRAGMA busy_timeout={LOCK_WAIT_MS}",
            "CHECK",  # before the journal mode: a database of something else is left unchanged
            "PRAGMA journal_mode=WAL",
            f"PRAGMA synchronous={'FULL' if durability == 'full' else 'NORMAL'}",
            "PRAGMA foreign_keys=ON",
            # FILE, not MEMORY: with an in-memory sub-journal, releasing a savepoint cost up to
            # ~1.8 ms each (one per work item) once a tick touched a few thousand rows.
            "PRAGMA temp_store=FILE",
            f"PRAGMA cache_size={-1024 * cache_mib}",
            # a reader that held a snapshot for long lets the WAL grow (90 MB in 12 s under a
            # busy engine): once checkpointed, it is cut back to this size, not kept
            "PRAGMA journal_size_limit=67108864",
        ]
        try:
            for pragma in pragmas:
                if pragma == "CHECK":
                    self._check_is_ours(create)
                else:
                    self.conn.execute(pragma)
            self._migrate()
        except sqlite3.Error as exc:
            self.conn.close()
            raise _open_error(self.path, exc) from exc
        except StoreError:
            self.conn.close()
            raise
        self.clock: Clock = clock or self._clock_from_store()

    @property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, for ad-hoc plumbing (introspection, exports);
        imported on first use so that every CLI command does not pay for it."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    # ------------------------------------------------------------------ schema

    def _check_is_ours(self, create: bool) -> None:
        """A SQLite file with tables but no schema version of ours is someone else's
        database: it is refused, never given our tables. An empty one is no store either,
        unless this open may make one."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version:
            try:  # ours has a meta table with the stamp of its ids, since the first schema
                ours = self.conn.execute("SELECT 1 FROM meta WHERE key = 'stamp'").fetchone()
            except sqlite3.OperationalError:  # no such table, or a meta table of other columns
                ours = None
            if ours:
                return
            # another program's schema version: its file is left as it is (no WAL switch)
            raise StoreError(
                "EB004",
                f"{self.path} is a SQLite database of something else (schema version"
                f" {version}, and no bundletui tables)",
                hint="point --home at a directory of its own; bundletui makes bundletui.db there",
            )
        other = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' LIMIT 1"
        ).fetchone()
        if other is None and not create:  # empty: or left by a first submit that failed
            raise StoreError(
                "EB001",
                f"no store at {self.path}: the file is empty",
                hint="submit a job to make the store there, or pass --home to the directory "
                "holding bundletui.db",
            )
        if other is not None:
            raise StoreError(
                "EB004",
                f"{self.path} is a SQLite database of something else (it has a table"
                f" [{other[0]}] and no bundletui schema)",
                hint="point --home at a directory of its own; bundletui makes bundletui.db there",
            )

    def _migrate(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreError(
                "EB003",
                f"store {self.path} has schema {version}, newer than this bundletui ({len(MIGRATIONS)})",
                hint="upgrade bundletui",
            )
        if version == len(MIGRATIONS):
            return
        if version:
            self._refuse_under_a_live_engine(version)
            log.info("migrating store %s from schema %d to %d", self.path, version, len(MIGRATIONS))
        # A migration may rebuild a table others refer to (SQLite's documented way to change
        # a constraint): foreign keys are off while it runs, and checked before it commits.
        self.conn.execute("PRAGMA foreign_keys=OFF")
        try:
            self.begin_immediate()
        except BaseException:
            self.conn.execute("PRAGMA foreign_keys=ON")
            raise
        try:
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            rebuilt = _apply_migrations(self.conn, version)
            # over the whole store (1.8 s at a million workflows): only when a table was rebuilt
            broken = self.conn.execute("PRAGMA foreign_key_check").fetchone() if rebuilt else None
            if broken is not None:
                raise StoreError(
                    "EB005",
                    f"migrating {self.path} would break a reference ({broken[0]} row "
                    f"{broken[1]} -> {broken[2]}); nothing was changed",
                    hint="keep using the bundletui that wrote this store, and report it",
                )
            self.conn.execute("COMMIT")
        except BaseException as exc:
            # a COMMIT that failed (a full disk) may have rolled back already: its error is
            # the one to report, not "no transaction is active"
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "readonly" in str(exc) and version:
                raise self._read_only_old(version, exc) from exc
            raise
        finally:
            self.conn.execute("PRAGMA foreign_keys=ON")

    def _refuse_under_a_live_engine(self, version: int) -> None:
        """An older bundletui's engine that runs on this store would meet tables changed
        under it (QA: one crashed at its next landed file, for good): migrate only once it
        has stopped. Its lease says who it is; on this host, its process must be alive."""
        row = self.conn.execute(
            "SELECT pid, host, acquired, expires FROM engine_lease WHERE id = 1"
        ).fetchone()
        if row is None:
            return
        pid, host, acquired, expires = row
        if same_host(host):
            st = proc_stat(pid) if pid != os.getpid() else None
            started = started_ms(st) if st is not None and st.state not in ("Z", "X") else None
            live = started is not None and started <= acquired + 1_000
        else:
            live = expires > to_ms(RealClock().now())
        if live:
            raise StoreError(
                "EB009",
                f"store {self.path} has schema {version} and this bundletui uses"
                f" {len(MIGRATIONS)}: migrating it would change it under the engine that runs"
                f" on it (pid {pid} on {host_label(host)}); nothing was changed",
                hint="stop that engine (an older bundletui) first; then any command migrates"
                " the store, and a new engine takes its running jobs over",
            )

    def _read_only_old(self, version: int, exc: sqlite3.Error) -> StoreError:
        return StoreError(
            "EB002",
            f"store {self.path} has schema {version} and must be migrated to"
            f" {len(MIGRATIONS)} before this bundletui can read it, but it is read-only ({exc})",
            hint="make bundletui.db writable, or work on a copy of it (made with sqlite3's"
            " .backup), then run this again",
        )

    def _clock_from_store(self) -> Clock:
        """A simulated store (one a simulated engine runs on) gives commands its simulated now."""
        from bundletui.store.clockstate import StoreClock

        return StoreClock(self)

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def write(self) -> Iterator[Tx]:
        """One write transaction; everything inside commits together or not at all."""
        conn = self.conn
        self.begin_immediate()
        self._writing, self._id_seq = True, None
        try:
            rev = conn.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'rev' RETURNING value"
            ).fetchone()[0]
            logged: list[tuple[str, str, str]] | None = (
                [] if transitions_log.isEnabledFor(logging.DEBUG) else None
            )
            yield Tx(conn, int(rev), to_ms(self.clock.now()), logged)
            if self._id_seq is not None:
                conn.execute("UPDATE meta SET value = ? WHERE key = 'id_seq'", (self._id_seq,))
        except BaseException:
            if conn.in_transaction:  # a statement failing on a full disk may have ended it
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
            last: dict[tuple[str, str], str] = {}
            for table, key, status in logged or ():
                if last.get((table, key)) != status:  # a row written again (pending) is one line
                    last[table, key] = status
                    transitions_log.debug("%s %s -> %s", _KINDS.get(table, table), key, status)
        finally:
            self._writing, self._id_seq = False, None

    def begin_immediate(self) -> None:
        """Take the write lock (``BEGIN IMMEDIATE``), waiting up to 30 s for another process
        to release it. EB006, with nothing begun, when it does not; at once when the lock's
        likely holder is an engine that is stopped, and so cannot release it."""
        conn = self.conn
        conn.execute(f"PRAGMA busy_timeout={_LOCK_STEP_MS}")
        start = time.monotonic()
        try:
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                        raise
                waited_ms = int((time.monotonic() - start) * 1000)
                if self.give_up_wait is not None and self.give_up_wait():
                    raise StoreError(
                        LOCKED,
                        f"the wait for the store's write lock ({self.path}) was given up after"
                        f" {waited_ms / 1000:.1f} s: another process holds it; nothing was"
                        " changed",
                    )
                if waited_ms >= LOCK_WAIT_MS or self._stopped_holder() is not None:
                    raise self._locked_error(waited_ms)
        finally:
            conn.execute(f"PRAGMA busy_timeout={LOCK_WAIT_MS}")

    def wait_for_lock(self, ms: int) -> None:
        """How long this connection's writes wait for another process's write lock (30 s
        unless told): a lease beat waits no longer than the time to the next beat."""
        self.conn.execute(f"PRAGMA busy_timeout={int(ms)}")

    def _stopped_holder(self) -> int | None:
        from bundletui.store.lease import stopped_holder

        return stopped_holder(self.conn)

    def _locked_error(self, waited_ms: int) -> StoreError:
        stopped = self._stopped_holder()
        if stopped is not None:
            return StoreError(
                LOCKED,
                f"the store {self.path} is locked: the engine (pid {stopped}) holds its write"
                " lock and is stopped (Ctrl-Z or SIGSTOP); nothing was changed",
                hint=f"continue it with: kill -CONT {stopped} (or fg in its terminal), then"
                " try again",
            )
        return StoreError(
            LOCKED,
            f"the store {self.path} stayed locked for {waited_ms // 1000} s: another process"
            " holds its write lock; nothing was changed",
            hint="try again; if it lasts, look for a stopped bundletui process:"
            " ps -o pid,stat,args -C bundletui (STAT T = stopped; kill -CONT PID continues it)",
        )

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for multi-query reads."""
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes when another connection commits; nearly free to poll."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def revision(self) -> int:
        return int(self.meta("rev") or 0)

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def system_mode(self) -> str:
        return system_mode(self.conn)

    def set_meta(self, tx: Tx, key: str, value: str) -> None:
        tx.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def next_id(self, tx: Tx, kind: JobKind, user: str) -> str:
        """A new job id. Within :meth:`write` the sequence is counted here and stored once, at
        the end (a herd takes thousands per transaction); the write lock is held all along, and
        an id taken in a savepoint rolled back is a gap, as Oozie's sequence has them."""
        if not self._writing or tx.conn is not self.conn:
            seq = tx.conn.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'id_seq'"
                " RETURNING value"
            ).fetchone()[0]
        else:
            if self._id_seq is None:
                self._id_seq = int(self.meta("id_seq") or 0)
            self._id_seq += 1
            seq = self._id_seq
        if self._stamp is None:  # written once, when the store was created
            self._stamp = self.meta("stamp") or "000000000000000"
        return job_id(int(seq), self._stamp, user, kind)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _apply_migrations(conn: sqlite3.Connection, version: int) -> bool:
    """The migrations after ``version``, in the caller's transaction (and a new store's
    first meta rows); whether one rebuilt a table (its references are then checked)."""
    rebuilt = False
    for number in range(version, len(MIGRATIONS)):
        for statement in _statements(MIGRATIONS[number]):
            conn.execute(statement)
            rebuilt = rebuilt or statement.lstrip().upper().startswith("DROP TABLE")
        conn.execute(f"PRAGMA user_version={number + 1}")
    if version == 0:
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?)",
            [("rev", "0"), ("id_seq", "0"), ("stamp", stamp(RealClock().now())), ("clock", "real")],
        )
    return rebuilt


def _make_whole(path: Path) -> None:
    """A new store is made whole in a file of its own beside ``path``, then linked there
    (never over a store another process made first): no process ever opens one half made.
    Made in place, an engine's store was seen by a submit started just after it between the
    file's creation and its schema's commit (EB001 "the file is empty", in CI); and a
    reader's wait for the lock there could fail the creator's switch to WAL."""
    tmp = path.with_name(f".{path.name}.{host_key()}.{os.getpid()}.{threading.get_ident()}.new")
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")  # kept in the file's header
        conn.execute("BEGIN")
        _apply_migrations(conn, 0)
        conn.execute("COMMIT")
    finally:
        conn.close()  # the last connection: its WAL is checkpointed into the file, and removed
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another process made it first: that one is the store
    except OSError:  # a file system without hard links
        if not path.exists():
            os.replace(tmp, path)
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _remove_dead_makers_files(path: Path) -> None:
    """What a maker killed half-way left (kill -9 while it made the store): its process is
    gone, so its file will never be linked in. Only this kernel's and pid namespace's: a
    maker in another container is not seen in our /proc."""
    for leftover in path.parent.glob(f".{path.name}.{host_key()}.*.new*"):
        pid = leftover.name.split(".")[4]
        if pid.isdigit() and proc_stat(int(pid)) is None:
            with contextlib.suppress(OSError):
                leftover.unlink()


def store_exists(home: str | Path | None) -> bool:
    """Is there a store in ``home`` to open (an empty file is none: a submission makes it)?"""
    path = resolve_home(home) / DB_NAME
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def current_user() -> str:
    return os_user()


SYSTEM_MODE_KEY = "system_mode"


def system_mode(conn: sqlite3.Connection) -> str:
    """Oozie's system mode (``oozie admin -systemmode``), shared by every process; NORMAL
    until an operator sets another."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SYSTEM_MODE_KEY,)).fetchone()
    return str(row[0]) if row else "NORMAL"


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (triggers keep their inner ';')."""
    out: list[str] = []
    current = ""
    for line in script.splitlines():
        if line.strip().startswith("--"):
            continue
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out
