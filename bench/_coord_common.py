"""Shared helpers for the issue-4 benchmarks (coordinators): the machine and its load, writing
coordinator apps, submitting through the real path, ``bundletui run`` as a real process, and
reading a process's CPU time and memory from /proc.

Submission is what a user's ``bundletui submit`` does: ``load_job`` (config file, XSD, EL) and
``submit_loaded`` (one command transaction with its audit row). Identical coordinators are loaded
once and submitted many times (each submission is still its own command transaction).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine as _machine

# $BENCH_BUNDLETUI: another `bundletui` executable to run as the engine (A/B experiments)
BUNDLETUI = os.environ.get("BENCH_BUNDLETUI") or str(Path(sys.executable).with_name("bundletui"))
if not os.access(BUNDLETUI, os.X_OK):  # pragma: no cover - a venv always has its scripts
    BUNDLETUI = shutil.which("bundletui") or BUNDLETUI
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ----------------------------------------------------------------------------- the machine


def loadavg() -> str:
    with contextlib.suppress(OSError):
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return "?"


def machine() -> str:
    """CPU model and count, OS, Python, SQLite, and the 1/5/15-minute load averages now."""
    return f"{_machine()}  (loadavg 1/5/15 min: {loadavg()})"


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def oozie_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def next_minute(after: datetime, slack_s: float) -> datetime:
    """The first whole minute at least ``slack_s`` seconds after ``after``."""
    t = after + timedelta(seconds=slack_s)
    whole = t.replace(second=0, microsecond=0)
    return whole if whole == t else whole + timedelta(minutes=1)


# ----------------------------------------------------------------------------- apps


COORD_NS = "uri:oozie:coordinator:0.4"
DAG_NS = "uri:bundletui:dag:1.0"
WF_NS = "uri:oozie:workflow:0.5"


def touch_workflow(form: str = "dag") -> str:
    """One in-process fs action touching ``${out}``: a one-job DAG, or an Oozie workflow
    (start -> fs -> end, plus kill)."""
    if form == "dag":
        return (
            f'<dag-app xmlns="{DAG_NS}" name="touch">\n'
            '  <job name="touch"><fs><touchz path="${out}"/></fs></job>\n'
            "</dag-app>\n"
        )
    return (
        f'<workflow-app xmlns="{WF_NS}" name="touch">\n'
        '  <start to="touch"/>\n'
        '  <action name="touch"><fs><touchz path="${out}"/></fs>'
        '<ok to="end"/><error to="fail"/></action>\n'
        '  <kill name="fail"><message>touch failed</message></kill>\n'
        '  <end name="end"/>\n'
        "</workflow-app>\n"
    )


@dataclass
class CoordSpec:
    name: str
    start: datetime
    end: datetime
    out: str  # the workflow's ${out}: EL allowed (coord:formatTime, coord:nominalTime, ...)
    frequency: str = "${coord:hours(1)}"
    concurrency: int = 1
    throttle: int = 12
    execution: str = "FIFO"
    timeout: int = -1
    datasets: str = ""  # <datasets>…</datasets><input-events>…</input-events>, verbatim
    form: str = "dag"
    properties: dict[str, str] | None = None  # more job.properties lines


def write_coordinator(app_dir: Path, spec: CoordSpec) -> Path:
    """coordinator.xml + workflow.xml + job.properties in ``app_dir``; returns the properties."""
    app_dir.mkdir(parents=True, exist_ok=True)
    (app_dir / "workflow.xml").write_text(touch_workflow(spec.form))
    (app_dir / "coordinator.xml").write_text(
        f'<coordinator-app name="{spec.name}" frequency="{spec.frequency}" start="${{start}}"'
        f' end="${{end}}" timezone="UTC" xmlns="{COORD_NS}">\n'
        "  <controls>\n"
        f"    <timeout>{spec.timeout}</timeout>\n"
        f"    <concurrency>{spec.concurrency}</concurrency>\n"
        f"    <execution>{spec.execution}</execution>\n"
        f"    <throttle>{spec.throttle}</throttle>\n"
        "  </controls>\n"
        f"{spec.datasets}"
        "  <action><workflow><app-path>workflow.xml</app-path><configuration>\n"
        f"    <property><name>out</name><value>{escape(spec.out)}</value></property>\n"
        "  </configuration></workflow></action>\n"
        "</coordinator-app>\n"
    )
    props = app_dir / "job.properties"
    props.write_text(
        "oozie.coord.application.path=coordinator.xml\n"
        f"start={oozie_time(spec.start)}\nend={oozie_time(spec.end)}\n"
        + "".join(f"{k}={v}\n" for k, v in (spec.properties or {}).items())
    )
    return props


def submit_many(home: Path, props: Path, count: int, *, distinct: bool = False) -> list[str]:
    """``bundletui submit`` of one coordinator config, ``count`` times (one load, ``count``
    command transactions). Returns the coordinator ids. ``distinct``: each is loaded with its
    own ``-D herd.member=N``, so no two coordinators share a configuration (nor its compiled
    form in the engine)."""
    from bundletui.commands.base import Ctx
    from bundletui.commands.submit import submit_loaded
    from bundletui.spec.load import load_job
    from bundletui.store.db import Store, current_user

    store = Store(home)
    try:
        ctx = Ctx(store, face="cli")
        if distinct:
            return [
                submit_loaded(
                    ctx,
                    load_job(props, {"herd.member": str(i)}, store.clock, user=current_user()),
                    start=True,
                )
                for i in range(count)
            ]
        loaded = load_job(props, [], store.clock, user=current_user())
        return [submit_loaded(ctx, loaded, start=True) for _ in range(count)]
    finally:
        store.close()


def submit_each(home: Path, props: list[Path]) -> list[str]:
    """``bundletui submit`` of each config (one load and one command transaction each)."""
    from bundletui.commands.base import Ctx
    from bundletui.commands.submit import submit_loaded
    from bundletui.spec.load import load_job
    from bundletui.store.db import Store, current_user

    store = Store(home)
    try:
        ctx = Ctx(store, face="cli")
        return [
            submit_loaded(ctx, load_job(p, [], store.clock, user=current_user()), start=True)
            for p in props
        ]
    finally:
        store.close()


# ----------------------------------------------------------------------------- SQL counts

_LITERALS = re.compile(r"'[^']*'|\b\d+\b")


SQL_NS: dict[str, int] = {}  # time in execute / executemany by statement shape (ns)


class CountingConnection(sqlite3.Connection):
    """Counts ``execute`` / ``executemany`` calls by statement shape (trigger bodies and
    executemany rows are not separate calls)."""

    counts: dict[str, int] | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        t0 = time.perf_counter_ns()
        try:
            return super().execute(sql, *args)
        finally:
            self._count(sql, time.perf_counter_ns() - t0)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        t0 = time.perf_counter_ns()
        try:
            return super().executemany(sql, *args)
        finally:
            self._count(sql, time.perf_counter_ns() - t0)

    def _count(self, sql: str, ns: int) -> None:
        if self.counts is not None:
            key = _LITERALS.sub("?", " ".join(sql.split()))[:140]
            self.counts[key] = self.counts.get(key, 0) + 1
            SQL_NS[key] = SQL_NS.get(key, 0) + ns


@contextlib.contextmanager
def count_sql(counts: dict[str, int] | None) -> Iterator[None]:
    """Connections opened inside count their statements into ``counts`` (None: do nothing)."""
    if counts is None:
        yield
        return
    SQL_NS.clear()  # the times go with this run's counts
    original = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", CountingConnection)
        conn = original(*args, **kwargs)
        if isinstance(conn, CountingConnection):
            conn.counts = counts
        return conn

    sqlite3.connect = connect  # type: ignore[assignment]
    try:
        yield
    finally:
        sqlite3.connect = original  # type: ignore[assignment]


def print_sql_counts(counts: dict[str, int], per: int, what: str, top: int = 30) -> None:
    print(f"  SQL calls per {what} and µs in execute per {what}, by statement shape:")
    for key, n in sorted(counts.items(), key=lambda kv: -SQL_NS.get(kv[0], 0))[:top]:
        print(f"  {n / per:8.2f} {SQL_NS.get(key, 0) / per / 1000:8.1f}  {key}")
    total_us = sum(SQL_NS.get(k, 0) for k in counts) / per / 1000
    print(f"  {sum(counts.values()) / per:8.2f} {total_us:8.1f}  (all)")


def connect(home: Path) -> sqlite3.Connection:
    """A reader on the store, as an operator would open it (WAL: never blocks the engine)."""
    conn = sqlite3.connect(home / "bundletui.db", timeout=30.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


# ----------------------------------------------------------------------------- processes


@dataclass(frozen=True)
class ProcSample:
    t: float  # time.monotonic()
    cpu: float  # utime + stime, seconds (all threads)
    rss_kb: int
    hwm_kb: int  # peak RSS
    threads: int


def sample(pid: int) -> ProcSample:
    """CPU seconds and memory of a live process, from /proc (no psutil needed)."""
    t = time.monotonic()
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15)
    status = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        status[key] = value.strip()
    return ProcSample(
        t,
        cpu,
        int(status.get("VmRSS", "0 kB").split()[0]),
        int(status.get("VmHWM", "0 kB").split()[0]),
        int(status.get("Threads", "0")),
    )


def thread_cpu(pid: int) -> dict[int, float]:
    """CPU seconds per thread (tid -> utime + stime); the main thread's tid is the pid."""
    out: dict[int, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            stat = (task / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            out[int(task.name)] = (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


class EngineProc:
    """One ``bundletui run --home HOME …`` in the background, logging to a file."""

    def __init__(self, home: Path, log_path: Path, *args: str, program: str = "") -> None:
        self.log_path = log_path
        self._log = log_path.open("ab")
        env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
        self.started = time.monotonic()
        self.started_wall = time.time()
        self.proc = subprocess.Popen(
            [program or BUNDLETUI, "run", "--home", str(home), *args],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=env,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def check_alive(self) -> None:
        if not self.alive():
            raise SystemExit(f"engine exited {self.proc.returncode}:\n{self.log()[-3000:]}")

    def stop(self, timeout: float = 30.0) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode

    def kill9(self) -> None:
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()


def start_engine(home: Path, log: Path, *args: str, profile: str | None = None) -> EngineProc:
    """``bundletui run --home HOME *args``; with ``profile``, under ``python -m cProfile -o
    PROFILE`` (the engine stops cleanly on SIGTERM, so the profile gets written)."""
    if not profile:
        return EngineProc(home, log, *args)
    Path(profile).unlink(missing_ok=True)  # an old profile must not pass for this run's
    wrapper = log.with_name("bundletui-profiled")
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -m cProfile -o "{os.path.abspath(profile)}"'
        ' -m bundletui "$@"\n'
    )
    wrapper.chmod(0o755)
    return EngineProc(home, log, *args, program=str(wrapper))


@contextlib.contextmanager
def engine_process(home: Path, log_path: Path, *args: str) -> Iterator[EngineProc]:
    proc = EngineProc(home, log_path, *args)
    try:
        yield proc
    finally:
        proc.stop()


def wait_for(what: str, fn: object, timeout: float, every: float = 0.01) -> float:
    """Poll ``fn()`` until truthy; returns time.monotonic() at that moment."""
    assert callable(fn)
    deadline = time.monotonic() + timeout
    while True:
        if fn():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)
