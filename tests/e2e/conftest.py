"""End-to-end helpers: the real ``bundletui`` console script, a real store, a real engine.

Every test gets a :class:`Bt` bound to its own home under ``tmp_path``. Commands run as
subprocesses of the installed console script, exactly as a user types them; ``bundletui run``
runs as a background process that tests stop, ``kill -9`` and restart. Waiting for a status
polls the same query ``info --json`` prints, in-process (a CLI start costs ~0.3 s of CPU, and
the suite must stay fast on two cores); assertions about results go through the CLI.

At teardown every engine is stopped and every job process still running under the test's
home is killed, so a failing test never leaves processes behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bundletui._procfs import proc_stat
from bundletui.commands import queries
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import WorkflowRow

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_bundles"
BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))
if not os.access(BUNDLETUI, os.X_OK):  # pragma: no cover - a venv always has its scripts
    BUNDLETUI = shutil.which("bundletui") or BUNDLETUI

TERMINAL = ("SUCCEEDED", "FAILED", "KILLED")
PYCACHE = Path(tempfile.gettempdir()) / "bundletui-e2e-pycache"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    seconds: float

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


class EngineProc:
    """One ``bundletui run`` in the background; its log goes to a file the test can read."""

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

    def wait_log(self, text: str, timeout: float = 10.0) -> float:
        """Wait until ``text`` appears in this engine's log; seconds it took."""
        t0 = time.monotonic()
        while text not in self.log():
            if self.proc.poll() is not None:
                raise AssertionError(f"engine exited {self.proc.returncode}:\n{self.log()}")
            if time.monotonic() - t0 > timeout:
                raise AssertionError(f"engine never logged {text!r}:\n{self.log()}")
            time.sleep(0.02)
        return time.monotonic() - t0

    def wait_active(self, timeout: float = 10.0) -> float:
        return self.wait_log("engine active", timeout)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill9(self) -> None:
        """SIGKILL: no shutdown hooks, no lease release, jobs keep running."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM and wait (SIGKILL if it does not stop); the exit code."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode


class Bt:
    """bundletui, as a user runs it, against one home."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.home = tmp_path / "home"
        self.env = {
            **os.environ,
            "BUNDLETUI_HOME": str(self.home),
            "COLUMNS": "200",  # rich wraps logs and tables at 80 columns without a terminal
            "NO_COLOR": "1",
            # Every command is a new interpreter: let them share compiled bytecode (outside the
            # tree) even where the environment turns caching off; a third of each start-up.
            "PYTHONPYCACHEPREFIX": str(PYCACHE),
        }
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.engines: list[EngineProc] = []
        self._store: Store | None = None

    # -- the CLI

    def cli(
        self, *args: str, check: bool = True, timeout: float = 30.0, columns: int = 200
    ) -> Result:
        t0 = time.monotonic()
        p = subprocess.run(
            [BUNDLETUI, *args],
            capture_output=True,
            text=True,
            env={**self.env, "COLUMNS": str(columns)},
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        r = Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
        if check and r.code != 0:
            raise AssertionError(f"bundletui {' '.join(args)} failed: {r}")
        return r

    def submit(
        self,
        config: Path,
        defines: dict[str, str] | None = None,
        *,
        start: bool = True,
        extra: tuple[str, ...] = (),
    ) -> str:
        args = ["submit", str(config)]
        for k, v in (defines or {}).items():
            args += ["-D", f"{k}={v}"]
        if start:
            args.append("--start")
        r = self.cli(*args, *extra)
        job_id = r.stdout.strip()
        assert job_id.endswith("-W"), r
        return job_id

    def info(self, job_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.cli("info", job_id, "--json").stdout)
        return data

    def jobs(self, *args: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.cli("jobs", "--json", *args).stdout)
        return data

    # -- fast reads (same query as info --json, no process start)

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.home, create=False)
        return self._store

    def peek(self, job_id: str) -> dict[str, Any]:
        return queries.job_info(self.store.conn, job_id)

    def row(self, wf_id: str) -> WorkflowRow:
        """The workflow's stored row (its millisecond times, for latency measurements)."""
        return jobs.must_get(self.store.conn, WorkflowRow, wf_id)

    def nodes(self, job_id: str) -> dict[str, str]:
        """name -> our node status (``nodeStatus``)."""
        return {a["name"]: a["nodeStatus"] for a in self.peek(job_id)["actions"]}

    def wait(self, job_id: str, *statuses: str, timeout: float = 20.0) -> dict[str, Any]:
        """Poll until the job's status is one of ``statuses`` (default: any terminal one)."""
        wanted = statuses or TERMINAL
        deadline = time.monotonic() + timeout
        while True:
            data = self.peek(job_id)
            if data["status"] in wanted:
                return data
            if time.monotonic() > deadline:
                logs = "\n".join(e.log()[-3000:] for e in self.engines)
                raise AssertionError(
                    f"{job_id} is {data['status']}, not {wanted} after {timeout} s; nodes "
                    f"{ {a['name']: a['nodeStatus'] for a in data['actions']} }\n{logs}"
                )
            time.sleep(0.03)

    def wait_node(self, job_id: str, node: str, *statuses: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while self.nodes(job_id)[node] not in statuses:
            if time.monotonic() > deadline:
                raise AssertionError(f"{node} of {job_id}: {self.nodes(job_id)}, not {statuses}")
            time.sleep(0.02)

    # -- the engine

    def engine(self, *args: str, wait: bool = True) -> EngineProc:
        n = len(self.engines)
        e = EngineProc(self.home, self.tmp / f"engine-{n}.log", args, self.env)
        self.engines.append(e)
        if wait:
            e.wait_active()
        return e

    def cleanup(self) -> None:
        for e in self.engines:
            if e.alive():
                e.stop(timeout=5)
        if self._store is not None:
            self._store.close()
        kill_jobs_under(self.home)


def kill_jobs_under(home: Path) -> int:
    """SIGKILL the process group of every job wrapper whose exit file lies under ``home``."""
    root = str(home) + os.sep
    killed = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 4 and argv[3] == b"bundletui-job" and os.fsdecode(argv[4]).startswith(root):
            try:
                os.killpg(int(name), signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


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


def stamps(path: Path) -> dict[str, tuple[float, float]]:
    """``job.py --stamps`` file -> name -> (start, end)."""
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    for line in path.read_text().splitlines():
        name, what, t = line.split()
        (starts if what == "start" else ends)[name] = float(t)
    return {n: (starts[n], ends[n]) for n in starts if n in ends}


def pid_alive(pid: int) -> bool:
    st = proc_stat(pid)
    return st is not None and st.state not in ("Z", "X", "x")


@pytest.fixture
def bt(tmp_path: Path) -> Iterator[Bt]:
    b = Bt(tmp_path)
    try:
        yield b
    finally:
        b.cleanup()
