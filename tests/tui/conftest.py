"""The console on real stores: real application files submitted through the real commands, a
real engine (the console's own, on a thread), the app driven with Textual's Pilot.

Datasets use plain paths under the landing directory (the engine's watcher matches those as it
sees them), coordinators start in 2024 so a real-clock engine materializes at once and then
holds still: ``hourly`` waits for click partitions (throttle 6), ``daily`` has no inputs and
succeeds, and a workflow submitted on its own sits at the top level.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import EngineConfig
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import AuditRow, BundleRow, CoordRow, WorkflowRow
from bundletui.tui.app import ConsoleApp, ConsoleConfig, MainScreen
from bundletui.tui.engine_host import EmbeddedEngine
from bundletui.tui.widgets import JobTree

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:0.5" name="touch-wf">
  <start to="mark"/>
  <action name="mark">
    <fs><mkdir path="${out}/${wf:id()}"/></fs>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>failed: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>
"""

SLEEPY = """<dag-app xmlns="uri:bundletui:dag:1.0" name="sleepy">
  <job name="nap"><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo hello-from-nap; echo oops-on-stderr >&amp;2; sleep 30</argument></shell></job>
  <job name="after"><depends>nap</depends><shell><exec>true</exec></shell></job>
</dag-app>
"""

HOURLY = """<coordinator-app name="hourly" frequency="${coord:hours(1)}"
    start="2024-01-01T00:00Z" end="2024-01-03T00:00Z" timezone="UTC"
    xmlns="uri:oozie:coordinator:0.4">
  <controls><timeout>-1</timeout><concurrency>2</concurrency><execution>FIFO</execution>
            <throttle>6</throttle></controls>
  <datasets>
    <dataset name="clicks" frequency="${coord:hours(1)}" initial-instance="2024-01-01T00:00Z"
             timezone="UTC">
      <uri-template>${landing}/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}</uri-template>
    </dataset>
  </datasets>
  <input-events>
    <data-in name="input" dataset="clicks"><instance>${coord:current(0)}</instance></data-in>
  </input-events>
  <action><workflow><app-path>${wfPath}</app-path>
    <configuration><property><name>out</name><value>${out}</value></property></configuration>
  </workflow></action>
</coordinator-app>
"""

DAILY = """<coordinator-app name="daily" frequency="${coord:days(1)}"
    start="2024-01-01T00:00Z" end="2024-01-03T00:00Z" timezone="UTC"
    xmlns="uri:oozie:coordinator:0.2">
  <controls><concurrency>2</concurrency></controls>
  <action><workflow><app-path>${wfPath}</app-path>
    <configuration><property><name>out</name><value>${out}</value></property></configuration>
  </workflow></action>
</coordinator-app>
"""

BUNDLE = """<bundle-app name="feeds" xmlns="uri:oozie:bundle:0.2">
  <controls><kick-off-time>2024-01-01T00:00Z</kick-off-time></controls>
  <coordinator name="hourly"><app-path>${root}/hourly.xml</app-path></coordinator>
  <coordinator name="daily"><app-path>${root}/daily.xml</app-path></coordinator>
</bundle-app>
"""


@dataclass
class Env:
    root: Path
    home: Path
    landing: Path
    out: Path
    bundle: str = ""
    workflow: str = ""
    props: dict[str, Path] = field(default_factory=dict)

    def store(self) -> Store:
        return Store(self.home)

    def land(self, hour: int, day: int = 1) -> Path:
        part = self.landing / "clicks" / "2024" / "01" / f"{day:02d}" / f"{hour:02d}"
        part.mkdir(parents=True, exist_ok=True)
        (part / "_SUCCESS").write_text("")
        return part


def write_env(root: Path) -> Env:
    root.mkdir(parents=True, exist_ok=True)
    env = Env(root, root / "home", root / "landing", root / "out")
    env.landing.mkdir()
    env.out.mkdir()
    (root / "wf").mkdir()
    (root / "wf" / "workflow.xml").write_text(WORKFLOW)
    (root / "sleepy").mkdir()
    (root / "sleepy" / "workflow.xml").write_text(SLEEPY)
    (root / "hourly.xml").write_text(HOURLY)
    (root / "daily.xml").write_text(DAILY)
    (root / "bundle.xml").write_text(BUNDLE)
    common = f"landing={env.landing}\nout={env.out}\nwfPath={root / 'wf'}\nroot={root}\n"
    env.props = {
        "bundle": root / "bundle.properties",
        "sleepy": root / "sleepy.properties",
        "wf": root / "wf.properties",
    }
    env.props["bundle"].write_text(f"oozie.bundle.application.path={root / 'bundle.xml'}\n{common}")
    env.props["sleepy"].write_text(f"oozie.wf.application.path={root / 'sleepy'}\n")
    env.props["wf"].write_text(f"oozie.wf.application.path={root / 'wf'}\n{common}")
    return env


def submit(env: Env, which: str, *, start: bool = True) -> str:
    with Store(env.home) as store:
        loaded = load_job(env.props[which], [], store.clock, user="alice")
        return submit_loaded(Ctx(store), loaded, start=start)


def settle(env: Env, timeout: float = 30.0) -> None:
    """Run an engine until the bundle has started: both coordinators submitted, ``daily``
    SUCCEEDED, ``hourly`` throttled at 6 WAITING actions."""
    engine = EmbeddedEngine(EngineConfig(home=env.home, landing=env.landing))
    engine.start_thread()
    end = time.monotonic() + timeout
    try:
        with Store(env.home) as store:
            while time.monotonic() < end:
                coords = {
                    c.app_name: c
                    for c in jobs.select(store.conn, CoordRow, "bundle_id = ?", (env.bundle,))
                }
                if (
                    len(coords) == 2
                    and coords["daily"].status == "SUCCEEDED"
                    and coords["hourly"].last_action_number >= 6
                    and not jobs.has_outbox(store.conn)
                ):
                    return
                time.sleep(0.05)
        raise AssertionError("the bundle did not start")
    finally:
        engine.stop()


@pytest.fixture(scope="session")
def _env_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Env]:
    """One started bundle per test process, copied for each test to the same place (stores
    hold absolute paths), so a test does not wait for an engine to start the bundle."""
    base = tmp_path_factory.mktemp("tui-env")
    e = write_env(base / "apps")
    e.bundle = submit(e, "bundle")
    settle(e)
    (base / "apps").rename(base / "template")
    return base, e


@pytest.fixture
def env(_env_template: tuple[Path, Env]) -> Iterator[Env]:
    base, template = _env_template
    root = base / "apps"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(base / "template", root)
    yield Env(template.root, template.home, template.landing, template.out, template.bundle,
              props=dict(template.props))  # fmt: skip
    _kill_leftovers(root)


def _kill_leftovers(root: Path) -> None:
    """Stop job processes a test left running under its store (e.g. a sleeping shell job)."""
    import os
    import signal

    with contextlib.suppress(Exception), Store(root / "home") as store:
        for (pid,) in store.conn.execute(
            "SELECT pid FROM wf_nodes WHERE status = 'RUNNING' AND pid IS NOT NULL"
        ):
            with contextlib.suppress(OSError):
                os.killpg(int(pid), signal.SIGKILL)


class Harness:
    """A running console and the store it watches."""

    def __init__(self, app: ConsoleApp, pilot: Any, env: Env) -> None:
        self.app = app
        self.pilot = pilot
        self.env = env
        self.toasts: list[tuple[str, str]] = []
        self.store = Store(env.home)
        original = app.notify

        def notify(message: str, *, severity: str = "information", **kw: Any) -> None:
            self.toasts.append((severity, str(message)))
            original(message, severity=severity, **kw)  # type: ignore[arg-type]

        app.notify = notify  # type: ignore[method-assign]

    @property
    def main(self) -> MainScreen:
        return self.app.main

    @property
    def tree(self) -> JobTree:
        return self.main.query_one(JobTree)

    async def until(
        self, predicate: Callable[[], Any], timeout: float = 15.0, what: str = ""
    ) -> Any:
        end = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what or predicate}")
            await self.pilot.pause(0.05)

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.pilot.pause(0.02)

    async def type(self, text: str) -> None:
        """Type into the focused input (what typing each key does, without a pause per key)."""
        box = self.app.focused
        assert isinstance(box, Input), box
        box.insert_text_at_cursor(text)
        await self.pilot.pause(0.02)

    async def select(self, job_id: str) -> None:
        await self.until(lambda: job_id in self.tree.nodes, what=f"{job_id} in the tree")
        self.tree.focus()
        self.tree.select_id(job_id)
        await self.pilot.pause()
        await self.until(lambda: self.main.selected_id == job_id, what=f"cursor on {job_id}")

    async def expand(self, job_id: str) -> None:
        await self.select(job_id)
        node = self.tree.nodes[job_id]
        node.expand()
        await self.until(
            lambda: self.main.model.items[job_id].children is not None, what=f"{job_id} loaded"
        )
        await self.pilot.pause()

    def coords(self) -> dict[str, CoordRow]:
        rows = jobs.select(self.store.conn, CoordRow, "bundle_id = ?", (self.env.bundle,))
        return {c.app_name: c for c in rows}

    def status(self, cls: type, job_id: str) -> str:
        row = jobs.get(self.store.conn, cls, job_id)
        assert row is not None, job_id
        return str(row.status)

    def bundle_status(self) -> str:
        return self.status(BundleRow, self.env.bundle)

    def workflow_status(self, wf_id: str) -> str:
        return self.status(WorkflowRow, wf_id)

    def audit(self) -> list[AuditRow]:
        return jobs.audit_rows(self.store.conn, None, 100)

    def warned(self, text: str) -> bool:
        return any(text in message for _severity, message in self.toasts)


@contextlib.asynccontextmanager
async def console(
    env: Env,
    *,
    engine: str = "embedded",
    size: tuple[int, int] = (120, 40),
    ready: bool = True,
    **config: Any,
) -> AsyncIterator[Harness]:
    """The console on ``env`` with its own engine (real clock), polling every 0.1 s."""
    cfg = ConsoleConfig(
        home=env.home,
        landing=env.landing,
        engine=engine,
        engine_config=EngineConfig(home=env.home, landing=env.landing, lease_ttl=3.0)
        if engine == "embedded"
        else None,
        poll_interval=config.pop("poll_interval", 0.1),
        **config,
    )
    app = ConsoleApp(cfg)
    async with app.run_test(size=size) as pilot:
        h = Harness(app, pilot, env)
        await h.until(lambda: h.main.ready, what="first load")
        if ready and engine == "embedded":
            # the engine submitted both coordinators and materialized what is due
            await h.until(
                lambda: (
                    len(h.coords()) == 2
                    and h.coords()["daily"].status == "SUCCEEDED"
                    and h.coords()["hourly"].last_action_number >= 6
                ),
                what="bundle started",
            )
            await h.until(lambda: len(h.main.model.items) >= 3, what="coordinators in the tree")
        try:
            yield h
        finally:
            h.store.close()
    await asyncio.sleep(0)


@pytest.fixture
def fast_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot waits for the process to look idle after every key (up to a second each), and a
    console with an engine never quite is; these tests wait for what they expect instead."""
    import textual.app
    import textual.pilot

    async def settle(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
        await asyncio.sleep(0.01)

    monkeypatch.setattr(textual.app, "wait_for_idle", settle)
    monkeypatch.setattr(textual.pilot, "wait_for_idle", settle)


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Input

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@contextlib.contextmanager
def engine_process(
    home: Path, log: Path, lease_ttl: str = "0.5"
) -> Iterator[subprocess.Popen[bytes]]:
    """A real ``bundletui run`` on ``home`` with that lease; killed (and continued, if a test
    stopped it) at the end."""
    bundletui = str(Path(sys.executable).with_name("bundletui"))
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [bundletui, "run", "--home", str(home), "--lease-ttl", lease_ttl],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        end = time.monotonic() + 20
        while b"engine active" not in log.read_bytes():
            assert proc.poll() is None and time.monotonic() < end, log.read_text()
            time.sleep(0.05)
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGKILL)
            proc.send_signal(signal.SIGCONT)
        proc.wait(10)
