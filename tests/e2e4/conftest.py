"""Helpers for the coordinator / bundle end-to-end tests (issue 4).

The real console script, a real store under ``tmp_path``, real ``bundletui run`` processes
(stopped, ``kill -9``-ed and restarted by the tests). Adds to what tests/e2e does: writing
coordinator / bundle XML of any shape into the test's directory, submitting any kind of job,
running the engine on the simulated clock until a given time (``sim``), and reading the store
read-only with sqlite3 (``sql``), the way an operator would check what the engine recorded.

Every action of these tests launches fixtures/mark.xml: a shell job that appends the action id
to ``${trace}`` (``trace_counts`` counts launches) and writes the output partition it is given,
with its done flag.
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
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bundletui.commands import queries
from bundletui.store.db import Store

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))
if not os.access(BUNDLETUI, os.X_OK):  # pragma: no cover - a venv always has its scripts
    BUNDLETUI = shutil.which("bundletui") or BUNDLETUI


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

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_log(self, text: str, timeout: float = 15.0) -> None:
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


def wait_for(predicate: Any, timeout: float = 10.0, what: str = "condition") -> float:
    """Poll ``predicate`` every 5 ms; seconds until it held."""
    t0 = time.monotonic()
    while not predicate():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)
    return time.monotonic() - t0


def trace_lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


FIXTURES = Path(__file__).resolve().parent / "fixtures"
MARK = FIXTURES / "mark.xml"


def at(text: str) -> datetime:
    """``2026-01-01T05:00Z`` -> aware UTC datetime."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def fmt(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def hours(start: str, n: int, step: int = 1) -> list[str]:
    t0 = at(start)
    return [fmt(t0 + timedelta(hours=i * step)) for i in range(n)]


def ms(text: str) -> int:
    return int(at(text).timestamp() * 1000)


def trace_counts(path: Path) -> Counter[str]:
    return Counter(trace_lines(path))


# ----------------------------------------------------------------------------- XML builders


@dataclass(frozen=True)
class DS:
    """A dataset; ``done_flag`` None = element absent (``_SUCCESS``), "" = the directory itself."""

    name: str
    template: str
    frequency: str = "${coord:hours(1)}"
    initial: str = "2025-01-01T00:00Z"
    done_flag: str | None = None
    timezone: str = "UTC"

    def xml(self) -> str:
        flag = "" if self.done_flag is None else f"<done-flag>{self.done_flag}</done-flag>"
        return (
            f'<dataset name="{self.name}" frequency="{self.frequency}" '
            f'initial-instance="{self.initial}" timezone="{self.timezone}">'
            f"<uri-template>{self.template}</uri-template>{flag}</dataset>"
        )


def hourly_ds(name: str, sub: str | None = None, **kw: Any) -> DS:
    return DS(name, f"${{landing}}/{sub or name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}", **kw)


def daily_ds(name: str, sub: str | None = None, **kw: Any) -> DS:
    return DS(
        name,
        f"${{landing}}/{sub or name}/${{YEAR}}/${{MONTH}}/${{DAY}}",
        frequency="${coord:days(1)}",
        **kw,
    )


def data_in(name: str, dataset: str, *instances: str, start: str = "", end: str = "") -> str:
    if start:
        body = f"<start-instance>{start}</start-instance><end-instance>{end}</end-instance>"
    else:
        body = "".join(f"<instance>{i}</instance>" for i in instances)
    return f'<data-in name="{name}" dataset="{dataset}">{body}</data-in>'


def data_out(name: str, dataset: str, instance: str = "${coord:current(0)}", **attrs: str) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f'<data-out name="{name}" dataset="{dataset}"{extra}><instance>{instance}</instance></data-out>'


def coordinator_xml(
    name: str,
    *,
    frequency: str = "${coord:hours(1)}",
    start: str = "${start}",
    end: str = "${end}",
    timezone: str = "UTC",
    ns: str = "0.4",
    controls: dict[str, Any] | None = None,
    datasets: Iterable[DS] = (),
    inputs: Iterable[str] = (),
    input_logic: str = "",
    outputs: Iterable[str] = (),
    workflow: Path | str = MARK,
    conf: dict[str, str] | None = None,
) -> str:
    order = ("timeout", "concurrency", "execution", "throttle")
    ctl = "".join(f"<{k}>{(controls or {})[k]}</{k}>" for k in order if k in (controls or {}))
    ds = "".join(d.xml() for d in datasets)
    ins = "".join(inputs)
    outs = "".join(outputs)
    wf_conf = {
        "aid": "${coord:actionId()}",
        "trace": "${trace}",
        **(conf or {}),
    }
    props = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in wf_conf.items()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<coordinator-app name="{name}" frequency="{frequency}" start="{start}" end="{end}" '
        f'timezone="{timezone}" xmlns="uri:oozie:coordinator:{ns}">'
        + (f"<controls>{ctl}</controls>" if ctl else "")
        + (f"<datasets>{ds}</datasets>" if ds else "")
        + (f"<input-events>{ins}</input-events>" if ins else "")
        + input_logic
        + (f"<output-events>{outs}</output-events>" if outs else "")
        + f"<action><workflow><app-path>{workflow}</app-path>"
        f"<configuration>{props}</configuration></workflow></action>"
        "</coordinator-app>\n"
    )


@dataclass(frozen=True)
class BC:
    """One ``<coordinator>`` of a bundle."""

    name: str
    app_path: str
    critical: bool | None = None
    conf: dict[str, str] | None = None
    enabled: str | None = None

    def xml(self) -> str:
        attrs = f' name="{self.name}"'
        if self.critical is not None:
            attrs += f' critical="{str(self.critical).lower()}"'
        if self.enabled is not None:
            attrs += f' enabled="{self.enabled}"'
        conf = ""
        if self.conf:
            conf = (
                "<configuration>"
                + "".join(
                    f"<property><name>{k}</name><value>{v}</value></property>"
                    for k, v in self.conf.items()
                )
                + "</configuration>"
            )
        return f"<coordinator{attrs}><app-path>{self.app_path}</app-path>{conf}</coordinator>"


def bundle_xml(
    name: str, coords: Iterable[BC], *, kickoff: str | None = None, ns: str = "0.2"
) -> str:
    controls = f"<controls><kick-off-time>{kickoff}</kick-off-time></controls>" if kickoff else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<bundle-app name="{name}" xmlns="uri:oozie:bundle:{ns}">{controls}'
        + "".join(c.xml() for c in coords)
        + "</bundle-app>\n"
    )


class Apps:
    """A directory of application files for one test."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def props(self, name: str, values: dict[str, str]) -> Path:
        return self.write(name, "".join(f"{k}={v}\n" for k, v in values.items()))


# ----------------------------------------------------------------------------- the CLI, the store


class Bt4:
    """bundletui as a user runs it, against one home: the CLI, engines, and store reads."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.home = tmp_path / "home"
        self.apps = Apps(tmp_path / "app")
        self.landing = self.home / "landing"
        self.trace = tmp_path / "trace"
        self.env = {
            **os.environ,
            "BUNDLETUI_HOME": str(self.home),
            "COLUMNS": "200",
            "NO_COLOR": "1",
        }
        self.engines: list[EngineProc] = []
        self._store: Store | None = None

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

    def fails(self, *args: str, code: str) -> Result:
        """The command is refused with Oozie's ``code``, cleanly (no traceback)."""
        r = self.cli(*args, check=False)
        assert r.code != 0, r
        assert f"Error: {code}" in r.stderr, r
        assert "Traceback" not in r.stderr, r
        return r

    def engine(self, *args: str, wait: bool = True) -> EngineProc:
        e = EngineProc(self.home, self.tmp / f"engine-{len(self.engines)}.log", args, self.env)
        self.engines.append(e)
        if wait:
            e.wait_log("engine active")
        return e

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.home, create=False)
        return self._store

    def peek(self, job_id: str) -> dict[str, Any]:
        """What ``info --json`` prints, computed in-process (no process start per poll)."""
        return queries.job_info(self.store.conn, job_id)

    def cleanup(self) -> None:
        for e in self.engines:
            if e.alive():
                e.stop(timeout=5)
        if self._store is not None:
            self._store.close()
        kill_jobs_under(self.home)

    def submit_job(
        self,
        config: Path,
        defines: dict[str, str] | None = None,
        *,
        start: bool = False,
        extra: tuple[str, ...] = (),
    ) -> str:
        """``bundletui submit`` of any kind of job; its id. ``trace`` defaults to the test's."""
        args = ["submit", str(config), "-D", f"trace={self.trace}"]
        for k, v in (defines or {}).items():
            args += ["-D", f"{k}={v}"]
        if start:
            args.append("--start")
        r = self.cli(*args, *extra)
        return r.stdout.strip().splitlines()[-1]

    def sim(self, start: str, until: str, *extra: str, timeout: float = 60.0) -> EngineProc:
        """``bundletui run`` on the simulated clock from ``start`` until ``until``; waits for it
        to stop by itself (it does when the clock reached ``until`` and nothing is running)."""
        e = self.engine(
            "--clock", "simulated", "--start-time", start, "--until", until, *extra, wait=False
        )
        assert e.wait(timeout) == 0, e.log()
        assert "reached --until" in e.log(), e.log()
        return e

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """A read-only query on the store, through sqlite3 itself."""
        conn = sqlite3.connect(f"file:{self.home / 'bundletui.db'}?mode=ro", uri=True)
        try:
            return list(conn.execute(query, params))
        finally:
            conn.close()

    def status(self, job_id: str) -> str:
        return str(self.peek(job_id)["status"])

    def actions(self, coord_id: str) -> dict[int, str]:
        """action number -> status, from the store."""
        return {
            n: s
            for n, s in self.sql(
                "SELECT action_number, status FROM coord_actions WHERE coord_id = ? "
                "ORDER BY action_number",
                coord_id,
            )
        }

    def nominals(self, coord_id: str) -> list[str]:
        return [
            fmt(datetime.fromtimestamp(t / 1000, UTC))
            for (t,) in self.sql(
                "SELECT nominal_time FROM coord_actions WHERE coord_id = ? ORDER BY action_number",
                coord_id,
            )
        ]

    def coords_of(self, bundle_id: str) -> dict[str, str]:
        """coordinator name -> coordinator id."""
        return {
            c["coordJobName"]: c["coordJobId"]
            for c in self.peek(bundle_id)["bundleCoordJobs"]
            if c.get("coordJobId")
        }

    def bundle_actions(self, bundle_id: str) -> dict[str, tuple[str, int]]:
        """coordinator name -> (bundle action status, pending)."""
        return {
            n: (s, p)
            for n, s, p in self.sql(
                "SELECT coord_name, status, pending FROM bundle_actions WHERE bundle_id = ?",
                bundle_id,
            )
        }

    def info_json(self, job_id: str, *args: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.cli("info", job_id, "--json", *args).stdout)
        return data

    def wait_status(self, job_id: str, *statuses: str, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            data = self.peek(job_id)
            if data["status"] in statuses:
                return data
            if time.monotonic() > deadline:
                logs = "\n".join(e.log()[-3000:] for e in self.engines)
                raise AssertionError(f"{job_id} is {data['status']}, not {statuses}\n{logs}")
            time.sleep(0.03)

    def land(self, *partitions: str, flag: str | None = "_SUCCESS", files: int = 1) -> None:
        """Create partitions under the landing directory (``clicks/2026/01/01/00``), data
        files first and the done flag last."""
        for part in partitions:
            d = self.landing / part
            d.mkdir(parents=True, exist_ok=True)
            for i in range(files):
                (d / f"part-{i:05d}").write_text("x\n")
            if flag:
                (d / flag).touch()


def partition(kind: str, t: str, daily: bool = False) -> str:
    d = at(t)
    return f"{kind}/{d:%Y/%m/%d}" if daily else f"{kind}/{d:%Y/%m/%d/%H}"


@pytest.fixture
def bt(tmp_path: Path) -> Iterator[Bt4]:
    b = Bt4(tmp_path)
    try:
        yield b
    finally:
        b.cleanup()
