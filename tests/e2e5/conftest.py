"""Helpers for the event-schedule end-to-end tests (issue 5, seed 004).

Everything goes through what a user has: the installed ``bundletui`` console script against a
real store (``--home``), a real landing directory, and ``bundletui run`` as a real process.

Time is handled two ways:

* **real clock**, engine in the background (``engine()``): files dropped while it runs are seen
  by the landing watcher (live intake), durations in the schedules are seconds;
* **simulated clock, step by step** (``step(at)`` / ``sim(start, until)``): the engine runs from
  a simulated instant until ``--until`` and stops by itself. Files dropped between two steps
  are found by the start-up rescan at the step's start time, so "a partition arrives at 10:03"
  is: drop it, then ``step("…T10:03Z")``. Inside a step the clock jumps to each due time
  (constraint retries, cron times, waits) whenever nothing is running.

Every action launches ``fixtures/record.xml``: a shell job that writes, per action id, its real
start/end times, its argc, the partitions it got as one argv element, and the trigger reason.
Assertions read that trace, the store (read-only, through sqlite3) and ``info --json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))
if not os.access(BUNDLETUI, os.X_OK):  # pragma: no cover - a venv always has its scripts
    BUNDLETUI = shutil.which("bundletui") or BUNDLETUI

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RECORD = FIXTURES / "record.xml"
NS = "uri:bundletui:coordinator:1.0"


def at(text: str) -> datetime:
    """``2026-01-01T05:00Z`` -> aware UTC datetime."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def ms(text: str) -> int:
    return int(at(text).timestamp() * 1000)


def fmt_ms(t: int) -> str:
    return datetime.fromtimestamp(t / 1000, UTC).strftime("%Y-%m-%dT%H:%MZ")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


class EngineProc:
    """One ``bundletui run`` in the background, logging to a file."""

    def __init__(self, home: Path, log_path: Path, args: tuple[str, ...], env: dict[str, str]):
        self.log_path = log_path
        self._log = log_path.open("ab")
        self.proc = subprocess.Popen(
            [BUNDLETUI, "run", "--home", str(home), *args],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=env,
        )
        self.pid = self.proc.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_log(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if self.proc.poll() is not None:
                raise AssertionError(f"engine exited {self.proc.returncode}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"engine never logged {text!r}:\n{self.log()}")
            time.sleep(0.02)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout: float) -> int:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(
                f"engine still running after {timeout} s:\n{self.log()[-4000:]}"
            ) from exc
        self._log.close()
        return self.proc.returncode

    def kill9(self) -> None:
        """SIGKILL: no shutdown hooks, no lease release; running jobs keep running."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()

    def stop(self, timeout: float = 10.0) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode


def kill_jobs_under(home: Path) -> None:
    """SIGKILL every job wrapper (``sh -c … bundletui-job EXIT …``) whose exit file is under
    ``home``: a failing test leaves no process behind."""
    root = str(home) + os.sep
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 4 and argv[3] == b"bundletui-job" and os.fsdecode(argv[4]).startswith(root):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(int(name), signal.SIGKILL)


def wait_for(predicate: Any, timeout: float = 15.0, what: str = "condition") -> Any:
    """Poll ``predicate`` every 10 ms until it returns something true; that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)


# ----------------------------------------------------------------------------- XML builders


@dataclass(frozen=True)
class Feed:
    name: str
    path: str  # e.g. "${landing}/clicks"
    done_flag: str | None = None  # None: attribute absent (_SUCCESS)

    def xml(self) -> str:
        flag = "" if self.done_flag is None else f' done-flag="{self.done_flag}"'
        return f'<feed name="{self.name}" path="{self.path}"{flag}/>'


# Every coordinator passes all of record.xml's parameters: the engine caches a workflow's
# parameter defaults per file as left over by the first launch's configuration, so a parameter
# the first coordinator set and a later one leaves to its default would be unresolved (a bug
# reported, in engine/coordinators.py, not ours to change).
RECORD_CONF = {
    "traceDir": "${traceDir}",
    "aid": "${coord:actionId()}",
    "parts": "${trigger:partitions()}",
    "reason": "${trigger:reason()}",
    "sleep": "0",
    "failIf": "/nonexistent",
}


def event_coordinator(
    name: str,
    *,
    feeds: Iterable[Feed] = (),
    trigger: str,
    constraints: str = "",
    priority: int | None = None,
    timezone: str = "UTC",
    start: str = "${start}",
    end: str = "${end}",
    workflow: Path | str = RECORD,
    conf: dict[str, str] | None = None,
) -> str:
    """An event-triggered coordinator (``uri:bundletui:coordinator:1.0``) launching record.xml
    with the trigger's partitions and reason."""
    props = {**RECORD_CONF, **(conf or {})}
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items()
    )
    prio = f' priority="{priority}"' if priority is not None else ""
    feeds_xml = "".join(f.xml() for f in feeds)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<coordinator-app name="{name}" xmlns="{NS}" start="{start}" end="{end}" '
        f'timezone="{timezone}"{prio}>'
        + (f"<feeds>{feeds_xml}</feeds>" if feeds_xml else "")
        + f"<trigger>{trigger}</trigger>"
        + (f"<constraints>{constraints}</constraints>" if constraints else "")
        + f"<action><workflow><app-path>{workflow}</app-path>"
        f"<configuration>{body}</configuration></workflow></action>"
        "</coordinator-app>\n"
    )


def bundle(name: str, coords: Iterable[tuple[str, Path, dict[str, str]]]) -> str:
    """A bundle of ``(name, app path, configuration)`` coordinators."""
    parts = []
    for cname, path, conf in coords:
        props = "".join(
            f"<property><name>{k}</name><value>{v}</value></property>" for k, v in conf.items()
        )
        body = f"<configuration>{props}</configuration>" if props else ""
        parts.append(f'<coordinator name="{cname}"><app-path>{path}</app-path>{body}</coordinator>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<bundle-app name="{name}" xmlns="uri:oozie:bundle:0.2">'
        + "".join(parts)
        + "</bundle-app>\n"
    )


# ----------------------------------------------------------------------------- what ran


@dataclass
class Run:
    """One launch of record.xml, read back from its trace file."""

    aid: str
    start_ns: int
    end_ns: int | None
    argc: int
    parts: list[str]
    reason: str
    launches: int = 1  # how many times this action's job started (must be 1)
    raw: list[str] = field(default_factory=list)


def read_runs(trace_dir: Path) -> dict[str, Run]:
    """action id -> its run (``launches`` > 1 would mean the action's job started twice)."""
    out: dict[str, Run] = {}
    if not trace_dir.is_dir():
        return out
    for f in trace_dir.iterdir():
        lines = f.read_text().splitlines()
        if not all(any(x.startswith(k) for x in lines) for k in ("argc ", "parts ", "reason ")):
            continue  # the job is still writing its record (bash's printf may write per line)
        starts = [int(x.split(" ", 1)[1]) for x in lines if x.startswith("start ")]
        ends = [int(x.split(" ", 1)[1]) for x in lines if x.startswith("end ")]
        argc = next(int(x.split(" ", 1)[1]) for x in lines if x.startswith("argc "))
        parts = next(x[len("parts ") :] for x in lines if x.startswith("parts "))
        reason = next(x[len("reason ") :] for x in lines if x.startswith("reason "))
        out[f.name] = Run(
            f.name,
            starts[0],
            ends[0] if ends else None,
            argc,
            parts.split(",") if parts else [],
            reason,
            len(starts),
            lines,
        )
    return out


# ----------------------------------------------------------------------------- the harness


class Bt5:
    """bundletui as a user runs it, against one home: the CLI, engines, landed files, the store."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.home = tmp_path / "home"
        self.landing = self.home / "landing"
        self.apps = tmp_path / "app"
        self.trace_dir = tmp_path / "trace"
        self.apps.mkdir(parents=True)
        self.trace_dir.mkdir()
        self.env = {
            **os.environ,
            "BUNDLETUI_HOME": str(self.home),
            "COLUMNS": "200",
            "NO_COLOR": "1",
            "PYTHONFAULTHANDLER": "1",  # a crash of `bundletui run` shows where
        }
        self.engines: list[EngineProc] = []

    # -- the CLI

    def cli(self, *args: str, check: bool = True, timeout: float = 60.0) -> Result:
        p = subprocess.run(
            [BUNDLETUI, *args],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        r = Result(p.returncode, p.stdout, p.stderr)
        if check and r.code != 0:
            raise AssertionError(f"bundletui {' '.join(args)} failed: {r}")
        return r

    def write(self, name: str, text: str) -> Path:
        path = self.apps / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def submit(
        self,
        app: Path,
        defines: dict[str, str] | None = None,
        *,
        kind: str = "coord",
        start: str = "2026-01-01T00:00Z",
        end: str = "2027-01-01T00:00Z",
    ) -> str:
        """Submit (and start) a coordinator or bundle XML; its id."""
        key = {"coord": "oozie.coord.application.path", "bundle": "oozie.bundle.application.path"}
        props = self.apps / f"{app.stem}.properties"
        values = {
            key[kind]: str(app),
            "start": start,
            "end": end,
            "traceDir": str(self.trace_dir),
            **(defines or {}),
        }
        props.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
        r = self.cli("submit", str(props), "--start")
        return r.stdout.strip().splitlines()[-1]

    def info(self, job_id: str, *args: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.cli("info", job_id, "--json", *args).stdout)
        return data

    # -- engines

    def engine(self, *args: str, wait: bool = True) -> EngineProc:
        """``bundletui run`` on the real clock, in the background."""
        e = EngineProc(self.home, self.tmp / f"engine-{len(self.engines)}.log", args, self.env)
        self.engines.append(e)
        if wait:
            e.wait_log("engine active")
        return e

    def sim(self, start: str, until: str, *extra: str, timeout: float = 90.0) -> EngineProc:
        """``bundletui run`` on the simulated clock from ``start`` (or where the store's clock
        stands, if later) until ``until``; returns once it stopped by itself."""
        e = self.engine(
            "--clock", "simulated", "--start-time", start, "--until", until, *extra, wait=False
        )
        assert e.wait(timeout) == 0, e.log()
        assert "reached --until" in e.log(), e.log()
        return e

    def step(self, when: str, *extra: str) -> EngineProc:
        """Let the engine see the world at ``when`` (and do all it can then), then stop."""
        return self.sim(when, when, *extra)

    def cleanup(self) -> None:
        for e in self.engines:
            if e.alive():
                e.stop(timeout=5)
        kill_jobs_under(self.home)

    # -- the landing directory

    def land(
        self,
        feed: str,
        name: str,
        *,
        size: int = 10,
        flag: str | None = "_SUCCESS",
        mtime: float | None = None,
    ) -> Path:
        """A partition directory ``landing/<feed>/<name>``: a data file of ``size`` bytes
        first, the done flag last."""
        d = self.landing / feed / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "part-00000").write_bytes(b"x" * size)
        if flag:
            (d / flag).touch()
        if mtime is not None:
            os.utime(d / (flag or "part-00000"), (mtime, mtime))
        return d

    # -- the store, read-only

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(f"file:{self.home / 'bundletui.db'}?mode=ro", uri=True, timeout=30)
        try:
            return list(conn.execute(query, params))
        finally:
            conn.close()

    def actions(self, coord_id: str) -> list[dict[str, Any]]:
        """The coordinator's actions, oldest first, with the trigger that fired each."""
        rows = self.sql(
            "SELECT id, action_number, status, nominal_time, created_time, trigger, held_by,"
            " external_id, error_code FROM coord_actions WHERE coord_id = ? ORDER BY action_number",
            coord_id,
        )
        return [
            {
                "id": r[0],
                "number": r[1],
                "status": r[2],
                "nominal": r[3],
                "created": r[4],
                "trigger": json.loads(r[5] or "{}"),
                "held_by": json.loads(r[6]) if r[6] else None,
                "wf": r[7],
                "error_code": r[8],
            }
            for r in rows
        ]

    def status(self, job_id: str) -> str:
        """A coordinator's status, as ``info`` shows it (read from the store directly)."""
        return str(self.sql("SELECT status FROM coord_jobs WHERE id = ?", job_id)[0][0])

    def fired_paths(self, action: dict[str, Any]) -> list[str]:
        return [e["path"] for e in action["trigger"].get("events", []) if e["kind"] == "partition"]

    def wf_started(self, wf_id: str) -> int | None:
        rows = self.sql("SELECT start_time FROM wf_jobs WHERE id = ?", wf_id)
        return rows[0][0] if rows else None

    def jobs(self, coord_id: str) -> list[tuple[str, str | None]]:
        """(state, held_by) of the schedule's job-queue entries, oldest first."""
        return [
            (r[0], r[1])
            for r in self.sql(
                "SELECT state, held_by FROM job_queue WHERE coord_id = ? ORDER BY id", coord_id
            )
        ]

    def coords_of(self, bundle_id: str) -> dict[str, str]:
        """coordinator name -> id."""
        return {
            n: c
            for n, c in self.sql(
                "SELECT coord_name, coord_id FROM bundle_actions WHERE bundle_id = ?", bundle_id
            )
            if c
        }

    def runs(self) -> dict[str, Run]:
        return read_runs(self.trace_dir)

    def wait_actions(
        self, coord_id: str, n: int, *, status: str = "SUCCEEDED", timeout: float = 20.0
    ) -> list[dict[str, Any]]:
        """Wait until the coordinator has ``n`` actions in ``status``; all its actions."""

        def enough() -> list[dict[str, Any]] | None:
            acts = self.actions(coord_id)
            return acts if sum(a["status"] == status for a in acts) >= n else None

        try:
            return wait_for(enough, timeout, f"{n} {status} actions of {coord_id}")  # type: ignore[no-any-return, unused-ignore]
        except AssertionError:
            logs = "\n".join(e.log()[-3000:] for e in self.engines)
            raise AssertionError(f"actions: {self.actions(coord_id)}\n{logs}") from None


@pytest.fixture
def bt(tmp_path: Path) -> Iterator[Bt5]:
    b = Bt5(tmp_path)
    try:
        yield b
    finally:
        b.cleanup()
