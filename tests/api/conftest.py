"""The HTTP API under test: a real server on a free loopback port, a real engine, a real store.

``live`` runs both in this process (the engine's asyncio loop in one thread, uvicorn in
another, exactly what ``serve_in_thread`` gives the console); ``ApiProc`` runs the real
``bundletui run --api 127.0.0.1:0`` console script and reads the URL it logs. Every job
process still running under a test's home is killed at teardown.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
from lxml import etree

from bundletui.api import ApiHandle, serve_in_thread
from bundletui.engine.service import Engine, EngineConfig
from tests.e2e.conftest import kill_jobs_under

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bundles"
FEEDS = SAMPLES / "feeds"
NAIVE_BAYES = SAMPLES / "naive-bayes"
BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))

# Both clients honour *_proxy variables; the server is always on loopback.
os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1,localhost"


def conf_xml(props: dict[str, str], *, declaration: str | None = '"', indent: bool = True) -> bytes:
    """A Hadoop configuration body; ``declaration``: the XML declaration's quote, or None."""
    nl = "\n" if indent else ""
    body = "".join(
        f"{nl}  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>"
        for k, v in props.items()
    )
    head = ""
    if declaration is not None:
        q = declaration
        head = f"<?xml version={q}1.0{q} encoding={q}UTF-8{q}?>{nl}"
    return f"{head}<configuration>{body}{nl}</configuration>".encode()


def hour_floor(t: datetime) -> datetime:
    return t.replace(minute=0, second=0, microsecond=0)


def oozie_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def drop_partition(landing: Path, hour: datetime, clicks: int = 5) -> Path:
    """One hour of clicks for the feeds sample, ``_SUCCESS`` last (as feeder.py does)."""
    part = landing / "clicks" / f"{hour:%Y}" / f"{hour:%m}" / f"{hour:%d}" / f"{hour:%H}"
    part.mkdir(parents=True, exist_ok=True)
    lines = "".join(f"{hour:%Y-%m-%dT%H}:{i:02d}\t/page{i % 3}\tuser{i}\n" for i in range(clicks))
    (part / "part-00000").write_text(lines)
    (part / "_SUCCESS").write_text("")
    return part


def feeds_bundle(tmp: Path, kickoff: str | None = None) -> Path:
    """The feeds sample's bundle with absolute app paths, its Oozie (time-based) coordinators
    only, and optionally a kick-off time so it stays PREP until started (the sample has none:
    the engine kicks such a bundle off as soon as it is submitted)."""
    root = etree.parse(str(FEEDS / "bundle.xml")).getroot()
    ns = {"b": root.nsmap[None]}
    for coord in root.findall("b:coordinator", ns):
        path_el = coord.find("b:app-path", ns)
        app = (FEEDS / path_el.text.strip()).resolve()
        path_el.text = str(app)
        if not etree.parse(str(app)).getroot().tag.startswith("{uri:oozie:coordinator:"):
            root.remove(coord)
    if kickoff is not None:
        controls = etree.Element(f"{{{ns['b']}}}controls")
        etree.SubElement(controls, f"{{{ns['b']}}}kick-off-time").text = kickoff
        root.find("b:coordinator", ns).addprevious(controls)
    path = tmp / "bundle.xml"
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    return path


def bundle_coordinators(bundle: Path) -> list[str]:
    root = etree.parse(str(bundle)).getroot()
    return [c.get("name") for c in root.findall("{*}coordinator")]


def wait_until(predicate: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


class EngineThread:
    """A real engine on its own asyncio loop in a background thread."""

    def __init__(self, home: Path) -> None:
        self.engine = Engine(EngineConfig(home=home, poll_interval=0.02, lease_ttl=2.0))
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="engine", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self.engine.run())
        except BaseException as exc:  # surfaced by stop()
            self.error = exc

    def start(self) -> None:
        self.thread.start()
        wait_until(lambda: self.engine.state == "active" or self.error, 10, "engine active")
        assert self.error is None, self.error

    def stop(self) -> None:
        self.engine.request_stop()
        self.thread.join(10)
        assert not self.thread.is_alive(), "engine did not stop"
        assert self.error is None, self.error


@dataclass
class Live:
    home: Path
    tmp: Path
    handle: ApiHandle
    engine: EngineThread | None = None
    token: str | None = None
    extra: list[Any] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.handle.url

    @property
    def root(self) -> str:
        """The host URL without ``/oozie`` (what oozie-api takes)."""
        return self.handle.url.removesuffix("/oozie")

    @property
    def landing(self) -> Path:
        return self.home / "landing"

    def close(self) -> None:
        if self.engine is not None:
            self.engine.stop()
        self.handle.stop()
        kill_jobs_under(self.home)


def start_live(tmp: Path, *, engine: bool = True, token: str | None = None) -> Live:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "landing").mkdir(exist_ok=True)
    eng = EngineThread(home) if engine else None
    if eng is not None:
        eng.start()
    handle = serve_in_thread(home, "127.0.0.1", 0, token)
    return Live(home, tmp, handle, eng, token)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    server = start_live(tmp_path)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[Live]:
    """The API without an engine: commands wait in the outbox."""
    server = start_live(tmp_path, engine=False)
    try:
        yield server
    finally:
        server.close()


class ApiProc:
    """``bundletui run --api …`` as a user starts it; its log goes to a file."""

    URL = re.compile(r"API listening on (http://\S+/oozie)")

    def __init__(
        self, home: Path, log_path: Path, *args: str, env: dict[str, str | None] | None = None
    ):
        """``env``: variables to set over this process's; a None value unsets one."""
        self.home = home
        self.log_path = log_path
        self._log = log_path.open("ab")
        merged = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", **(env or {})}
        self.env = {k: v for k, v in merged.items() if v is not None}
        self.proc = subprocess.Popen(
            [BUNDLETUI, "run", "--home", str(home), *args],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env=self.env,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_url(self, timeout: float = 20.0) -> str:
        def found() -> str | None:
            if self.proc.poll() is not None:
                raise AssertionError(f"bundletui run exited {self.proc.returncode}:\n{self.log()}")
            m = self.URL.search(self.log())
            return m.group(1) if m and "engine active" in self.log() else None

        url: str = wait_until(found, timeout, "the API URL in the log")
        return url

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()
        kill_jobs_under(self.home)
        return self.proc.returncode


def in_past(hours: int) -> datetime:
    return hour_floor(datetime.now(UTC)) - timedelta(hours=hours)
