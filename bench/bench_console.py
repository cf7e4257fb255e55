"""The console on a big store: 100 bundles, 1,000 coordinators, 100,000 actions.

Measures (goals from issue 6):
- time to first paint: from constructing the app to the first paint of the loaded tree
  (100 bundles expanded, 1,000 coordinators) — goal < 1 s; with ``--tmux`` also the whole
  ``bundletui console`` process in a real terminal, from exec to the first bundle on screen;
- the largest UI-loop stall while polls apply changes and an engine runs — goal < 50 ms. A lag
  probe (a 5 ms ``set_interval`` callback) records how late it runs. Meanwhile the console's
  own engine runs on the store, and a writer process changes 400 action rows a second through
  the store layer (a busy engine's write rate), a quarter of them under the 10 coordinators the
  console has expanded, so every poll has rows to fetch and nodes to relabel.

Rows are generated through the store layer: one real bundle and coordinator are submitted by
the real commands, then cloned with ``jobs.insert`` in one transaction.

Run: ``.venv/bin/python bench/bench_console.py [--seconds 20] [--tmux]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.model.clock import RealClock, from_ms, to_ms
from bundletui.model.ids import action_id, bundle_action_id
from bundletui.model.timeutil import format_oozie_time
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import (
    ActionRow,
    BundleActionRow,
    BundleRow,
    CoordRow,
)

BUNDLES, COORDS_PER_BUNDLE, ACTIONS_PER_COORD = 100, 10, 100
HOUR = 3_600_000
# The coordinators' 100 actions are the last 100 hours; the next one is due at the next hour,
# so the engine has nothing to materialize during the bench (the writer supplies the churn).
NOW_HOUR = to_ms(RealClock().now()) // HOUR * HOUR
T0 = NOW_HOUR - (ACTIONS_PER_COORD - 1) * HOUR

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:0.5" name="noop">
  <start to="end"/><end name="end"/>
</workflow-app>
"""
COORDINATOR = """<coordinator-app name="c" frequency="${coord:hours(1)}" start="${start}"
    end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>${root}/wf</app-path></workflow></action>
</coordinator-app>
"""
BUNDLE = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="c"><app-path>${root}/coordinator.xml</app-path></coordinator>
</bundle-app>
"""


def build(root: Path) -> tuple[Path, list[str]]:
    """The big store; returns its home and the ids of the coordinators the console expands."""
    home = root / "home"
    (root / "wf").mkdir(parents=True)
    (root / "wf" / "workflow.xml").write_text(WORKFLOW)
    (root / "coordinator.xml").write_text(COORDINATOR)
    (root / "bundle.xml").write_text(BUNDLE)
    start, end = format_oozie_time(from_ms(T0)), format_oozie_time(from_ms(T0 + 2 * 8760 * HOUR))
    (root / "c.properties").write_text(
        f"oozie.coord.application.path={root}/coordinator.xml\nroot={root}\n"
        f"start={start}\nend={end}\n"
    )
    (root / "b.properties").write_text(
        f"oozie.bundle.application.path={root}/bundle.xml\nroot={root}\nstart={start}\nend={end}\n"
    )
    with Store(home) as store:
        ctx = Ctx(store, face="bench")
        coord_t = submit_loaded(ctx, load_job(root / "c.properties", [], store.clock, user="u"))
        bundle_t = submit_loaded(ctx, load_job(root / "b.properties", [], store.clock, user="u"))
        coord = jobs.must_get(store.conn, CoordRow, coord_t)
        bundle = jobs.must_get(store.conn, BundleRow, bundle_t)
        expanded: list[str] = []
        rng = random.Random(6)
        with store.write() as tx:
            tx.conn.execute("DELETE FROM coord_jobs WHERE id = ?", (coord_t,))
            tx.conn.execute("DELETE FROM bundle_actions WHERE bundle_id = ?", (bundle_t,))
            tx.conn.execute("DELETE FROM bundle_jobs WHERE id = ?", (bundle_t,))
            for b in range(BUNDLES):
                bid = f"{b + 1:07d}-240101000000000-bundletui-u-B"
                values = {f: getattr(bundle, f) for f in bundle.__slots__}  # type: ignore[attr-defined]
                values.update(id=bid, app_name=f"bundle-{b:03d}", status="RUNNING", rev=0)
                values.update(kickoff_time=T0, start_time=T0, created_time=T0 + b)
                jobs.insert(tx, BundleRow, values)
                for c in range(COORDS_PER_BUNDLE):
                    cid = f"{1000 + b * COORDS_PER_BUNDLE + c:07d}-240101000000000-bundletui-u-C"
                    name = f"feed-{b:03d}-{c}"
                    values = {f: getattr(coord, f) for f in coord.__slots__}  # type: ignore[attr-defined]
                    values.update(
                        id=cid, app_name=name, bundle_id=bid, status="RUNNING", rev=0,
                        created_time=T0 + c, last_action_number=ACTIONS_PER_COORD,
                        next_materialized_time=T0 + ACTIONS_PER_COORD * HOUR,
                        done_materialization=0,
                    )  # fmt: skip
                    jobs.insert(tx, CoordRow, values)
                    jobs.insert(
                        tx,
                        BundleActionRow,
                        {
                            "id": bundle_action_id(bid, name),
                            "bundle_id": bid,
                            "coord_name": name,
                            "coord_id": cid,
                            "status": "RUNNING",
                        },
                    )
                    if b < 10 and c == 0:
                        expanded.append(cid)
                    for n in range(1, ACTIONS_PER_COORD + 1):
                        status = (
                            "SUCCEEDED" if rng.random() > 0.03 else rng.choice(("FAILED", "KILLED"))
                        )
                        jobs.insert(
                            tx,
                            ActionRow,
                            {
                                "id": action_id(cid, n),
                                "coord_id": cid,
                                "action_number": n,
                                "nominal_time": T0 + (n - 1) * HOUR,
                                "created_time": T0 + (n - 1) * HOUR,
                                "status": status,
                            },
                        )
    return home, expanded


def churn(home: str, rate: int, focus: list[str]) -> None:
    """The writer process: ``rate`` action rows a second, 20 times a second, through the
    store layer (one transaction per batch, like an engine tick)."""
    rng = random.Random(7)
    per_batch = max(rate // 20, 1)
    statuses = ("RUNNING", "SUCCEEDED", "FAILED", "WAITING", "READY")
    with Store(home) as store:
        coords = [r[0] for r in store.conn.execute("SELECT id FROM coord_jobs")]
        next_at = time.monotonic()
        while True:
            with store.write() as tx:
                for i in range(per_batch):
                    cid = rng.choice(focus) if i % 4 == 0 else rng.choice(coords)
                    aid = action_id(cid, rng.randint(1, ACTIONS_PER_COORD))
                    jobs.update(tx, ActionRow, aid, status=rng.choice(statuses))
            next_at += 0.05
            time.sleep(max(0.0, next_at - time.monotonic()))


async def measure(home: Path, expanded: list[str], seconds: float) -> dict[str, float]:
    from bundletui.tui.app import ConsoleApp, ConsoleConfig, MainScreen
    from bundletui.tui.widgets import JobTree

    # how long the UI thread spends in each worker result it applies (polls, details, pages)
    handler_ms: list[tuple[float, float, str, float]] = []
    original = MainScreen._guarded

    def timed(self: MainScreen, worker: object, then: object, result: object) -> None:
        t, cpu = time.monotonic(), time.thread_time()
        original(self, worker, then, result)  # type: ignore[arg-type]
        handler_ms.append(
            (
                t,
                (time.monotonic() - t) * 1000,
                getattr(then, "__name__", "?"),
                (time.thread_time() - cpu) * 1000,
            )
        )

    MainScreen._guarded = timed  # type: ignore[method-assign]

    t_start = time.monotonic()
    app = ConsoleApp(ConsoleConfig(home=home, poll_interval=1.0))
    out: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        while app.main.first_paint is None:
            await asyncio.sleep(0.005)
        out["first_paint_s"] = app.main.first_paint - t_start
        out["tree_lines"] = len(app.main.query_one(JobTree)._tree_lines)
        tree = app.main.query_one(JobTree)
        for cid in expanded:
            tree.nodes[cid].expand()
        while any(app.main.model.items[c].children is None for c in expanded):
            await asyncio.sleep(0.05)
        await pilot.pause(0.5)
        out["tree_lines_expanded"] = len(tree._tree_lines)

        lags: list[float] = []
        big: list[tuple[float, float]] = []
        expected = [time.monotonic() + 0.005]
        cpu = [time.thread_time()]

        def probe() -> None:
            now = time.monotonic()
            lag = max(0.0, now - expected[0])
            lags.append(lag)
            if lag > 0.03:
                big.append((expected[0], lag))
            expected[0] = now + 0.005

        gc_pauses: list[tuple[int, float]] = []
        gc_start = [0.0]

        def on_gc(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                gc_start[0] = time.perf_counter()
            else:
                gc_pauses.append((info["generation"], time.perf_counter() - gc_start[0]))

        gc.callbacks.append(on_gc)
        polls_before = app.main.polls
        rows_before = app.main.rows_applied
        probe_timer = app.set_interval(0.005, probe)
        poll_seconds: list[float] = []
        end = time.monotonic() + seconds
        last = app.main.polls
        while time.monotonic() < end:
            await asyncio.sleep(0.02)
            if app.main.polls != last:
                last = app.main.polls
                poll_seconds.append(app.main.last_poll_seconds)
        probe_timer.stop()
        gc.callbacks.remove(on_gc)
        out["gc_max_ms"] = max((d for _g, d in gc_pauses), default=0.0) * 1000
        out["gc_gen2"] = sum(1 for g, _d in gc_pauses if g == 2)
        out["gc_frozen"] = gc.get_freeze_count()
        out["gc_tracked"] = len(gc.get_objects())
        window = [h for h in handler_ms if h[0] >= end - seconds]
        out["max_apply_ms"] = max((h[1] for h in window), default=0.0)
        applies = [h for h in window if h[2] == "_apply_poll"]
        out["max_poll_apply_ms"] = max((h[1] for h in applies), default=0.0)
        out["mean_poll_apply_ms"] = statistics.mean(h[1] for h in applies) if applies else 0.0
        out["max_poll_apply_cpu_ms"] = max((h[3] for h in applies), default=0.0)
        out["mean_poll_apply_cpu_ms"] = statistics.mean(h[3] for h in applies) if applies else 0.0
        # a stall the UI thread caused itself overlaps one of its own handlers
        own = [
            lag for start, lag in big
            if any(h[0] <= start + lag and start <= h[0] + h[1] / 1000 for h in window)
        ]  # fmt: skip
        out["stalls_over_30ms"] = len(big)
        out["stalls_over_30ms_in_ui_work"] = len(own)
        out["ui_thread_cpu_s"] = time.thread_time() - cpu[0]
        out["polls"] = app.main.polls - polls_before
        out["rows_applied"] = app.main.rows_applied - rows_before
        out["max_stall_ms"] = max(lags) * 1000
        out["p99_stall_ms"] = statistics.quantiles(lags, n=100)[98] * 1000
        out["median_stall_ms"] = statistics.median(lags) * 1000
        out["probe_samples"] = len(lags)
        out["max_poll_worker_ms"] = max(poll_seconds, default=0) * 1000
        out["engine"] = 1.0 if app.embedded is not None else 0.0
        out["attached"] = 1.0 if app.embedded is None and app.main.lease is not None else 0.0
        out["engine_state_active"] = (
            1.0 if app.embedded is not None and app.embedded.status.state == "active" else 0.0
        )
    return out


async def idle_baseline(seconds: float) -> tuple[float, float]:
    """The same lag probe in an idle Textual app on this machine right now: what the machine
    itself (other processes, the scheduler) adds to any stall figure."""
    from textual.app import App
    from textual.widgets import Static

    class Idle(App[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("idle")

    lags: list[float] = []
    app = Idle()
    async with app.run_test():
        expected = [time.monotonic() + 0.005]

        def probe() -> None:
            now = time.monotonic()
            lags.append(max(0.0, now - expected[0]))
            expected[0] = now + 0.005

        app.set_interval(0.005, probe)
        await asyncio.sleep(seconds)
    return max(lags) * 1000, statistics.quantiles(lags, n=100)[98] * 1000


def tmux_first_paint(home: Path) -> float | None:
    """The whole process in a real terminal: exec to the first bundle on screen."""
    if shutil.which("tmux") is None:
        return None
    bundletui = str(Path(sys.executable).with_name("bundletui"))
    sock = f"bench-{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}
    t0 = time.monotonic()
    subprocess.run(
        ["tmux", "-L", sock, "new-session", "-d", "-s", "b", "-x", "160", "-y", "50",
         f"{bundletui} console --home {home} --read-only"],
        check=True, env=env,
    )  # fmt: skip
    try:
        while time.monotonic() - t0 < 30:
            screen = subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p", "-t", "b"],
                capture_output=True, text=True, env=env,
            ).stdout  # fmt: skip
            if re.search(r"feed-\d{3}-\d  RUNNING", screen):
                return time.monotonic() - t0
            time.sleep(0.01)
        return None
    finally:
        subprocess.run(["tmux", "-L", sock, "send-keys", "-t", "b", "q"], env=env)
        time.sleep(1)
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True, env=env)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rate", type=int, default=400, help="action rows the writer changes a second")
    p.add_argument("--tmux", action="store_true", help="also time the real process in tmux")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--engine",
        choices=("console", "process"),
        default="console",
        help="the console's own engine (a thread of it), or a `bundletui run` process it attaches to",
    )
    p.add_argument("--churn", nargs=2, metavar=("HOME", "FOCUS"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.churn:
        churn(a.churn[0], a.rate, a.churn[1].split(","))
        return 0
    root = Path(tempfile.mkdtemp(prefix="bench-console-"))
    try:
        t = time.monotonic()
        home, expanded = build(root)
        built = time.monotonic() - t
        with Store(home) as store:
            counts = [jobs.count(store.conn, cls) for cls in (BundleRow, CoordRow, ActionRow)]
        print(machine())
        print(f"store: {counts[0]} bundles, {counts[1]} coordinators, {counts[2]} actions"
              f" (built in {built:.1f} s)")  # fmt: skip
        tmux_paint = tmux_first_paint(home) if a.tmux else None
        engine_proc = None
        if a.engine == "process":
            engine_proc = subprocess.Popen(
                [str(Path(sys.executable).with_name("bundletui")), "run", "--home", str(home)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            from bundletui.tui.engine_host import live_lease

            while live_lease(home) is None:
                time.sleep(0.1)
        writer = subprocess.Popen(
            [sys.executable, __file__, "--rate", str(a.rate), "--churn", str(home),
             ",".join(expanded)],
        )  # fmt: skip
        try:
            result = asyncio.run(measure(home, expanded, a.seconds))
        finally:
            writer.terminate()
            writer.wait(10)
            if engine_proc is not None:
                engine_proc.terminate()
                engine_proc.wait(20)
        if tmux_paint is not None:
            result["tmux_process_first_paint_s"] = tmux_paint
        base_max, base_p99 = asyncio.run(idle_baseline(min(a.seconds, 10.0)))
        result["idle_baseline_max_ms"], result["idle_baseline_p99_ms"] = base_max, base_p99
        if a.json:
            print(json.dumps(result, indent=2))
        print(
            f"first paint: {result['first_paint_s'] * 1000:.0f} ms"
            f" ({result['tree_lines']:.0f} tree lines; goal < 1000 ms)"
        )
        if tmux_paint is not None:
            print(
                f"  whole process in tmux (exec, imports, store, first bundle): {tmux_paint:.2f} s"
            )
        print(
            f"UI loop during {a.seconds:.0f} s of polls ({result['polls']:.0f} polls, writer"
            f" {a.rate} rows/s, engine {'in the console, active' if result['engine_state_active'] else 'a separate process' if result['attached'] else 'NOT running'},"
            f" {result['tree_lines_expanded']:.0f} tree lines): max stall {result['max_stall_ms']:.1f} ms,"
            f" p99 {result['p99_stall_ms']:.1f} ms, median {result['median_stall_ms']:.1f} ms"
            f" (goal max < 50 ms); slowest poll worker {result['max_poll_worker_ms']:.1f} ms,"
            f" {result['rows_applied']:.0f} changed rows applied"
        )  # fmt: skip
        print(
            f"  UI-thread work per poll: mean {result['mean_poll_apply_ms']:.1f} ms,"
            f" max {result['max_poll_apply_ms']:.1f} ms wall (CPU: mean"
            f" {result['mean_poll_apply_cpu_ms']:.1f} ms, max {result['max_poll_apply_cpu_ms']:.1f} ms);"
            f" any result: max {result['max_apply_ms']:.1f} ms;"
            f" stalls > 30 ms: {result['stalls_over_30ms']:.0f}, of which during UI work:"
            f" {result['stalls_over_30ms_in_ui_work']:.0f}"
        )  # fmt: skip
        print(
            f"  garbage collection: longest pause {result['gc_max_ms']:.1f} ms,"
            f" {result['gc_gen2']:.0f} full collections ({result['gc_tracked']:.0f} objects"
            f" tracked, {result['gc_frozen']:.0f} frozen at start-up)"
        )
        print(
            f"  the same probe in an idle Textual app right after: max {base_max:.1f} ms,"
            f" p99 {base_p99:.1f} ms (what this machine adds by itself)"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
