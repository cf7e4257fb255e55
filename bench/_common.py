"""Shared helpers for the issue-3 benchmarks: the machine, DAG generation, the real submit and
engine paths, and a stop condition that costs the engine nothing while it is busy.

Everything goes through the code a user's job goes through: the DAG is an XML file validated
against our XSD by ``load_job``, stored by ``submit_loaded`` (one command transaction), and run
by :class:`bundletui.engine.service.Engine` under ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import logging
import os
import platform
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

DAG_NS = "uri:bundletui:dag:1.0"
TERMINAL = ("SUCCEEDED", "FAILED", "KILLED")


# ----------------------------------------------------------------------------- the machine


def machine() -> str:
    """CPU count and model, OS, Python and SQLite: figures mean nothing without them."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = ""
    with contextlib.suppress(OSError):
        load = f", load {os.getloadavg()[0]:.2f}"
    return (
        f"machine: {os.cpu_count()} CPUs ({model}), {platform.system()} {platform.release()},"
        f" Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}{load}"
    )


# ----------------------------------------------------------------------------- DAG shapes


def dependencies(shape: str, n: int) -> list[list[int]]:
    """For each job i, the jobs it depends on.

    chain: i depends on i-1. tree: a binary in-tree (a merge tree, the shape Luigi builds from
    one root): job i depends on jobs 2i+1 and 2i+2, so leaves run first and job 0 last.
    outtree: the same tree fanning out from job 0 (job i depends on its parent (i-1)//2).
    """
    if shape == "chain":
        return [[i - 1] if i else [] for i in range(n)]
    if shape == "tree":
        return [[c for c in (2 * i + 1, 2 * i + 2) if c < n] for i in range(n)]
    if shape == "outtree":
        return [[(i - 1) // 2] if i else [] for i in range(n)]
    if shape == "flat":
        return [[] for _ in range(n)]
    raise ValueError(f"unknown shape {shape!r}")


def job_name(i: int) -> str:
    return f"j{i:05d}"


def dag_xml(
    name: str,
    deps: list[list[int]],
    *,
    touch_dir: Path | None = None,
    shell_exec: str | None = None,
    max_parallel: int = 0,
) -> str:
    """A ``uri:bundletui:dag:1.0`` document: fs touchz jobs (``touch_dir``) or shell jobs."""
    mp = f' max-parallel="{max_parallel}"' if max_parallel else ""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<dag-app xmlns="{DAG_NS}" name="{name}"{mp}>']
    for i, ds in enumerate(deps):
        out.append(f'  <job name="{job_name(i)}">')
        out.extend(f"    <depends>{job_name(d)}</depends>" for d in ds)
        if touch_dir is not None:
            path = quoteattr(str(touch_dir / job_name(i)))
            out.append(f"    <fs><touchz path={path}/></fs>")
        else:
            assert shell_exec is not None
            out.append(f"    <shell><exec>{shell_exec}</exec></shell>")
        out.append("  </job>")
    out.append("</dag-app>\n")
    return "\n".join(out)


def write_app(app_dir: Path, xml: str) -> Path:
    """workflow.xml + job.properties in ``app_dir``; returns the job.properties path."""
    app_dir.mkdir(parents=True, exist_ok=True)
    (app_dir / "workflow.xml").write_text(xml)
    props = app_dir / "job.properties"
    props.write_text("oozie.wf.application.path=.\n")
    return props


# ----------------------------------------------------------------------------- submit + run


def submit(home: Path, props: Path) -> str:
    """The `bundletui submit CONFIG --start` path: load_job (XSD, EL, checks) + submit_loaded."""
    from bundletui.commands.base import Ctx
    from bundletui.commands.submit import submit_loaded
    from bundletui.spec.load import load_job
    from bundletui.store.db import Store, current_user

    store = Store(home)
    try:
        ctx = Ctx(store, face="cli")
        loaded = load_job(props, [], store.clock, user=current_user())
        return submit_loaded(ctx, loaded, start=True)
    finally:
        store.close()


@dataclass
class EngineRun:
    seconds: float  # engine start -> the tick that saw the workflow terminal
    cpu: float  # this process's CPU time over the same span (robust on a busy machine)
    status: str
    ticks: int
    nodes: dict[str, int]  # node status -> count, read after the run


def run_engine(
    home: Path,
    wf_id: str,
    *,
    max_workers: int = 32,
    profile: cProfile.Profile | None = None,
    timeout: float = 600.0,
) -> EngineRun:
    """Run the real engine in-process until ``wf_id`` is terminal; time start -> that tick.

    The stop condition is a pump registered after the workflow runner's: it does nothing while
    the runner has anything queued (dirty, ready, running, completions, spawns), and only then
    reads the workflow's status once. So it adds no store reads while the DAG is progressing.
    (An engine option such as ``EngineConfig.exit_when_idle`` / ``bundletui run
    --exit-when-idle`` would make this hook unnecessary.)
    """
    from bundletui.engine.service import Engine, EngineConfig
    from bundletui.store.db import Tx

    logging.getLogger("bundletui").setLevel(logging.WARNING)
    engine = Engine(EngineConfig(home=home, max_workers=max_workers, watch=False))
    seen: dict[str, float | str] = {}  # t, cpu, status: when the end was first seen

    def stop_when_done(tx: Tx) -> bool:
        if engine.workflows.busy():
            return False
        row = tx.conn.execute("SELECT status FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
        if row is not None and row[0] in TERMINAL:
            seen["t"] = time.perf_counter()
            seen["cpu"] = time.process_time()
            seen["status"] = row[0]
            engine.request_stop()
        return False

    engine.pumps.append(stop_when_done)

    async def fallback() -> None:
        """In case the end is reached in a tick where the runner still looked busy (ticks with no
        pending work do not run pumps): poll the status between ticks every 50 ms."""
        conn = sqlite3.connect(home / "bundletui.db")
        try:
            while "t" not in seen:
                await asyncio.sleep(0.05)
                row = conn.execute("SELECT status FROM wf_jobs WHERE id = ?", (wf_id,)).fetchone()
                if row is not None and row[0] in TERMINAL and "t" not in seen:
                    seen.update(t=time.perf_counter(), cpu=time.process_time(), status=row[0])
                    engine.request_stop()
        finally:
            conn.close()

    async def main() -> None:
        poller = asyncio.create_task(fallback())
        try:
            await asyncio.wait_for(engine.run(), timeout)
        finally:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller

    t0, c0 = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    try:
        asyncio.run(main())
    finally:
        if profile is not None:
            profile.disable()
    if "t" not in seen:
        raise SystemExit(f"engine stopped before {wf_id} ended (state {engine.state})")
    nodes = node_counts(home, wf_id)
    return EngineRun(
        float(seen["t"]) - t0, float(seen["cpu"]) - c0, str(seen["status"]), engine.ticks, nodes
    )


def node_counts(home: Path, wf_id: str) -> dict[str, int]:
    conn = sqlite3.connect(home / "bundletui.db")
    try:
        rows = conn.execute(
            "SELECT status, count(*) FROM wf_nodes WHERE wf_id = ? GROUP BY status", (wf_id,)
        ).fetchall()
    finally:
        conn.close()
    return {str(s): int(c) for s, c in rows}


@contextlib.contextmanager
def timed() -> Iterator[list[float]]:
    box: list[float] = []
    t = time.perf_counter()
    try:
        yield box
    finally:
        box.append(time.perf_counter() - t)
