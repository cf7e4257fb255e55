"""The console on event-triggered coordinators (``uri:bundletui:coordinator:1.0``) in a bundle:
what the tree, the details' "why", the action table and the keys say of a schedule that fired,
is held by a run constraint (time window, delay, concurrency), discarded a job at its timeout,
is PAUSED with events kept or SUSPENDED; and what the header says of the engine and the store.

The store is built once per test process on a simulated clock (three short engine runs, about
half a second): it stands at 2026-03-01 11:00Z with

* ``nightly``  one job held by a 22:00–06:00 time window that times out at 13:00 (discard),
* ``delayed``  one job held by a 2-hour delay (until 12:00),
* ``quick``    fired twice, both SUCCEEDED,
* ``discard``  one SUCCEEDED, the next discarded at its timeout (TIMEDOUT, EB0802),
* ``paused``   PAUSED at 10:05 with a partition that landed since (kept for later),
* ``suspended`` SUSPENDED,

and each test gets a copy at the same path (stores hold absolute paths). The console runs with
no engine there (a real-clock engine refuses a simulated store, EB203); the live tests below
use a real-clock store and the console's own engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.text import Text

from bundletui.commands import dispatch
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.model.clock import SimulatedClock
from bundletui.spec.load import load_job
from bundletui.store import jobs
from bundletui.store.db import Store
from bundletui.store.rows import ActionRow, CoordRow
from bundletui.tui.app import ConsoleApp
from bundletui.tui.dialogs import ConfirmDialog
from bundletui.tui.widgets import ActionTable, HeaderBar, path_forms
from tests.e2e5.conftest import Feed, bundle, event_coordinator, kill_jobs_under
from tests.tui.conftest import Env, Harness, console, engine_process

pytestmark = pytest.mark.usefixtures("fast_keys")

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)
BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))

SCHEDULES = {
    "nightly": (
        "b",
        '<time-window start="22:00" end="06:00"/><timeout on-timeout="discard">PT3H</timeout>',
    ),
    "delayed": ("c", "<delay>PT2H</delay>"),
    "quick": ("d", ""),
    "discard": (
        "e",
        '<since-last-run>PT1H</since-last-run><timeout on-timeout="discard">PT30M</timeout>',
    ),
    "paused": ("g", ""),
    "suspended": ("h", ""),
}


@dataclass
class Events:
    env: Env
    bundle: str
    ids: dict[str, str]  # coordinator name -> id


def land(landing: Path, feed: str, name: str) -> None:
    part = landing / feed / name
    part.mkdir(parents=True, exist_ok=True)
    (part / "part-00000").write_text("x")
    (part / "_SUCCESS").touch()


def _run(env: Env, start: datetime, until: datetime) -> None:
    config = EngineConfig(
        home=env.home,
        landing=env.landing,
        clock="simulated",
        start_time=start,
        until=until,
        watch=False,
    )
    asyncio.run(Engine(config).run())


def build(root: Path) -> Events:
    env = Env(root, root / "home", root / "landing", root / "out")
    apps = root / "apps"
    for d in (apps, env.landing, env.out, root / "trace"):
        d.mkdir(parents=True)
    coords = []
    for name, (feed, constraints) in SCHEDULES.items():
        path = apps / f"{name}.xml"
        path.write_text(
            event_coordinator(
                name,
                feeds=[Feed(feed, f"${{landing}}/{feed}")],
                trigger=f'<partitions feed="{feed}"/>',
                constraints=constraints,
            )
        )
        coords.append((name, path, {}))
    (apps / "bundle.xml").write_text(bundle("events", coords))
    props = apps / "events.properties"
    props.write_text(
        f"oozie.bundle.application.path={apps / 'bundle.xml'}\nstart=2026-01-01T00:00Z\n"
        f"end=2027-01-01T00:00Z\ntraceDir={root / 'trace'}\nlanding={env.landing}\n"
    )
    with Store(env.home, clock=SimulatedClock(T0)) as store:
        with store.write() as tx:
            store.set_meta(tx, "stamp", "260301100000000")
        loaded = load_job(props, [], store.clock, user="alice")
        bundle_id = submit_loaded(Ctx(store, user="alice"), loaded, start=True)
    _run(env, T0, T0)  # the bundle starts its schedules
    with Store(env.home) as store:
        ids = dict(store.conn.execute("SELECT app_name, id FROM coord_jobs").fetchall())
        ctx = Ctx(store, user="alice")
        dispatch.suspend(ctx, ids["suspended"])
        dispatch.change(ctx, ids["paused"], "pausetime=2026-03-01T10:05Z")
    for feed, name in (("b", "1"), ("c", "1"), ("d", "1"), ("e", "1"), ("h", "1")):
        land(env.landing, feed, name)
    _run(env, T0, T0 + timedelta(minutes=10))
    for feed, name in (("d", "2"), ("e", "2"), ("g", "1")):
        land(env.landing, feed, name)
    _run(env, T0 + timedelta(minutes=10), T0 + timedelta(hours=1))
    return Events(env, bundle_id, ids)


@pytest.fixture(scope="session")
def _events_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Events]:
    base = tmp_path_factory.mktemp("tui-events")
    built = build(base / "events")
    (base / "events").rename(base / "template")
    return base, built


@pytest.fixture
def ev(_events_template: tuple[Path, Events]) -> Iterator[Events]:
    base, built = _events_template
    root = base / "events"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(base / "template", root)
    yield built
    kill_jobs_under(built.env.home)


def test_the_store_is_what_these_tests_rely_on(ev: Events) -> None:
    with Store(ev.env.home) as store:
        rows = store.conn.execute(
            "SELECT c.app_name, c.status, a.action_number, a.status FROM coord_jobs c"
            " LEFT JOIN coord_actions a ON a.coord_id = c.id ORDER BY 1, 3"
        ).fetchall()
    assert [tuple(r) for r in rows] == [
        ("delayed", "RUNNING", 1, "WAITING"),
        ("discard", "RUNNINGWITHERROR", 1, "SUCCEEDED"),
        ("discard", "RUNNINGWITHERROR", 2, "TIMEDOUT"),
        ("nightly", "RUNNING", 1, "WAITING"),
        ("paused", "PAUSED", None, None),
        ("quick", "RUNNING", 1, "SUCCEEDED"),
        ("quick", "RUNNING", 2, "SUCCEEDED"),
        ("suspended", "SUSPENDED", None, None),
    ]


@contextlib.asynccontextmanager
async def on_store(ev: Events, size: tuple[int, int] = (120, 40)) -> AsyncIterator[Harness]:
    async with console(ev.env, engine="none", ready=False, size=size) as h:
        await h.until(lambda: ev.bundle in h.tree.nodes, what="the bundle in the tree")
        yield h


def details(h: Harness) -> str:
    shown = h.main.query_one("#details-text")._shown  # type: ignore[attr-defined]
    return shown.plain if isinstance(shown, Text) else str(shown)


async def details_of(h: Harness, job_id: str, text: str) -> str:
    await h.select(job_id)
    return str(
        await h.until(
            lambda: details(h) if text in details(h) else None, what=f"{text!r} in the details"
        )
    )


def why(page: str) -> str:
    """The "why:" of a details page, on one line (the pane wraps it)."""
    return next(line for line in page.splitlines() if line.startswith("why: "))[5:]


def table_rows(h: Harness) -> list[list[str]]:
    table = h.main.query_one(ActionTable)
    return [
        [c.plain if isinstance(c, Text) else str(c) for c in table.get_row(key)]
        for key in table.rows
    ]


async def rows_of(h: Harness, coord: str) -> list[list[str]]:
    await h.select(coord)
    table = h.main.query_one(ActionTable)
    await h.until(lambda: table.coord_id == coord and table.rows, what="the action table")
    return table_rows(h)


# ----------------------------------------------------------------------------- the "why"


async def test_a_held_job_is_named_in_its_schedule_why_with_its_constraint(ev: Events) -> None:
    """QA: a schedule with a held job said "1 job(s) WAITING for their run constraints": the
    console read the coordinator without its actions, so which constraint (and until when)
    was never said, though ``bundletui info`` shows it."""
    async with on_store(ev) as h:
        page = await details_of(h, ev.ids["nightly"], "coordinator nightly")
        assert why(page) == (
            "1 job WAITING, held by time-window until 2026-03-01 22:00Z;"
            " times out at 2026-03-01 13:00Z (discarded)"
        )
        page = await details_of(h, ev.ids["delayed"], "coordinator delayed")
        assert why(page) == "1 job WAITING, held by delay until 2026-03-01 12:00Z"


async def test_a_schedule_that_fired_waits_for_its_trigger_not_a_nominal_time(
    ev: Events,
) -> None:
    """QA: "materializing: next action at -" (and concurrency -1) for a schedule whose trigger
    fired: it has no next nominal time; it waits for its trigger, as ``info`` says."""
    async with on_store(ev) as h:
        page = await details_of(h, ev.ids["quick"], "coordinator quick")
        assert why(page) == "waits for its trigger to fire"
        assert "materializing" not in page and "next action at" not in page
        assert "next       when its trigger fires\n" in page
        assert "schedule   event-triggered (UTC)" in page
        assert "controls   FIFO concurrency unlimited" in page  # info: "concurrency unlimited"
        rows = await rows_of(h, ev.ids["quick"])
        assert [r[2] for r in rows] == ["SUCCEEDED", "SUCCEEDED"]


async def test_a_discarded_job_is_why_its_schedule_reads_with_error(ev: Events) -> None:
    """QA: a schedule RUNNINGWITHERROR because a held job was discarded at its timeout said
    only "materializing: next action at -" (green)."""
    async with on_store(ev) as h:
        coord = ev.ids["discard"]
        page = await details_of(h, coord, "coordinator discard")
        assert why(page) == "1 job discarded at the timeout (TIMEDOUT)"
        rows = await rows_of(h, coord)
        assert rows[0][0] == "2" and rows[0][2] == "TIMEDOUT"
        assert "EB0802" in rows[0][3] and "discarded" in rows[0][3]
        await h.expand(coord)
        page = await details_of(h, f"{coord}@2", "action @2 of discard")
        assert why(page).startswith("EB0802: run constraints not met in time")


async def test_a_paused_schedule_says_what_lifts_the_pause_and_keeps_its_events(
    ev: Events,
) -> None:
    """QA: "not materializing: coordinator PAUSED" and a greyed resume with no way out named:
    a pause time holds it (p), and what landed meanwhile is kept to fire then."""
    async with on_store(ev) as h:
        page = await details_of(h, ev.ids["paused"], "coordinator paused")
        assert why(page) == (
            "paused since 2026-03-01 10:05Z: fires nothing until p moves or clears the pause"
            " time; events are kept (1 event so far) and fire then"
        )
        assert "next       when its trigger fires (1 event so far); held by coordinator PAUSED" in (
            page
        )
        await h.press("r")
        assert h.warned(
            "resume: coordinator is PAUSED: its pause time holds it; p moves or clears it"
        )


async def test_a_suspended_schedule_says_it_ignores_events_once(ev: Events) -> None:
    """QA: "suspended: nothing materializes or launches until r resumes it; not materializing:
    coordinator SUSPENDED" said the same twice, and not that a suspended schedule drops what
    lands (README: only a suspend drops events)."""
    async with on_store(ev) as h:
        page = await details_of(h, ev.ids["suspended"], "coordinator suspended")
        assert why(page) == (
            "suspended: its trigger ignores events (what lands now never fires it)"
            " until r resumes it"
        )
        assert "not materializing" not in page


async def test_the_bundle_names_its_paused_and_suspended_schedules(ev: Events) -> None:
    """QA: "running: 6 of 6 coordinators still active" for a bundle with one PAUSED and one
    SUSPENDED: neither launches anything."""
    async with on_store(ev) as h:
        page = await details_of(h, ev.bundle, "bundle events")
        assert why(page) == (
            "running: 6 of 6 coordinators still active (paused PAUSED, suspended SUSPENDED)"
        )


# ----------------------------------------------------------------------------- actions


async def test_a_held_job_says_its_constraint_in_the_table_and_the_details(ev: Events) -> None:
    """QA: the action table cut a held job's reason to "held by time-window unt" (its times
    were RFC 822, 29 cells each), at 80×24 and 120×40 alike; the details said them so too,
    unlike every other time in the console. The table says the constraint first and its
    times as its nominal column does (the day only when it is another)."""
    for size, room in (((80, 24), 16), ((120, 40), 23), ((160, 50), 24)):
        async with on_store(ev, size) as h:
            nightly = ev.ids["nightly"]
            (row,) = await rows_of(h, nightly)
            table = h.main.query_one(ActionTable)
            assert row[0] == "1" and "WAITING" in row
            assert row[-1] == "time-window until 22:00; times out at 13:00 (discarded)"
            assert list(table.widths.values())[-1] == room  # what shows of it
            delayed = ev.ids["delayed"]
            await h.select(delayed)
            await h.until(
                lambda t=table, d=delayed: t.coord_id == d,  # type: ignore[misc]
                what="delayed's table",
            )
            assert table_rows(h)[0][-1] == "delay until 12:00"
            await h.expand(nightly)
            page = await details_of(h, f"{nightly}@1", "action @1 of nightly")
            assert why(page) == (
                "held by time-window until 2026-03-01 22:00Z;"
                " times out at 2026-03-01 13:00Z (discarded)"
            )
            assert "times out  2026-03-01 13:00Z" in page


async def test_a_held_job_can_be_killed_and_the_schedule_says_so(ev: Events) -> None:
    """A held job of an event schedule is an action like any other: ctrl+k kills it (the same
    command as the CLI's), and the tree, the table and the why follow."""
    async with on_store(ev) as h:
        delayed = ev.ids["delayed"]
        await h.expand(delayed)
        await h.select(f"{delayed}@1")
        await h.press("ctrl+k")
        await h.until(lambda: isinstance(h.app.screen, ConfirmDialog), what="the kill dialog")
        await h.press("tab", "enter")
        await h.until(lambda: h.status(ActionRow, f"{delayed}@1") == "KILLED", what="killed")
        await h.until(
            lambda: h.main.model.items[f"{delayed}@1"].status == "KILLED", what="relabelled"
        )
        await details_of(h, delayed, "coordinator delayed")
        # the pane may show the page read before the kill for a moment: the why follows it
        await h.until(lambda: "WAITING" not in why(details(h)), what="a why without WAITING")
        rows = await rows_of(h, delayed)
        await h.until(lambda: table_rows(h)[0][2] == "KILLED", what="table row")
        assert rows


async def test_suspending_an_event_schedule_warns_that_its_pending_jobs_are_dropped(
    ev: Events,
) -> None:
    """A suspend drops what an event schedule holds (README), unlike a pause: the confirm
    dialog says so for an event schedule, and not for a time coordinator."""
    async with on_store(ev) as h:
        await h.select(ev.ids["delayed"])
        await h.press("s")
        dialog = h.app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "drops its pending jobs and ignores events until resumed" in dialog.note
        await h.press("escape")
        assert h.status(CoordRow, ev.ids["delayed"]) == "RUNNING"


# ----------------------------------------------------------------------------- live


def status_of(h: Harness, action_id: str) -> str | None:
    row = jobs.get(h.store.conn, ActionRow, action_id)
    return None if row is None else str(row.status)


LIVE = """<dag-app xmlns="uri:bundletui:dag:1.0" name="nap">
  <job name="nap"><shell><exec>sleep</exec><argument>30</argument></shell></job>
</dag-app>
"""


async def test_live_a_job_held_by_concurrency_then_a_suspend_and_resume(env: Env) -> None:
    """On the real clock with the console's engine: two partitions land on a schedule of
    concurrency 1; the console shows one RUNNING and one held by concurrency, then s suspends
    the schedule and the held job ends SKIPPED (EB0801) in the tree and the table as it
    happens; r resumes it."""
    apps = env.root / "live"
    apps.mkdir()
    (apps / "nap").mkdir()
    (apps / "nap" / "workflow.xml").write_text(LIVE)
    (apps / "busy.xml").write_text(
        event_coordinator(
            "busy",
            feeds=[Feed("a", "${landing}/a")],
            trigger='<partitions feed="a"/>',
            constraints='<concurrency max="1"/>',
            start="2026-01-01T00:00Z",
            end="2099-01-01T00:00Z",
            workflow=apps / "nap",
        )
    )
    props = apps / "busy.properties"
    props.write_text(
        f"oozie.coord.application.path={apps / 'busy.xml'}\nlanding={env.landing}\n"
        "traceDir=/nonexistent\n"
    )
    with Store(env.home) as store:
        loaded = load_job(props, [], store.clock, user="alice")
        busy = submit_loaded(Ctx(store, user="alice"), loaded, start=True)
    try:
        async with console(env) as h:
            await h.until(lambda: busy in h.tree.nodes, what="busy in the tree")
            await asyncio.sleep(0.3)  # the engine watches the new feed
            land(env.landing, "a", "1")
            await h.until(lambda: status_of(h, f"{busy}@1") == "RUNNING", what="@1 runs")
            land(env.landing, "a", "2")
            await h.until(lambda: h.main.model.counts_of(busy).get("WAITING") == 1, what="@2 held")
            page = await details_of(h, busy, "held by concurrency")
            assert why(page) == "1 job WAITING, held by concurrency (1/1 running)"
            await h.until(
                lambda: [r[2] for r in table_rows(h)] == ["WAITING", "RUNNING"], what="table"
            )
            assert table_rows(h)[0][-1] == "concurrency (1/1 running)"

            await h.press("s", "tab", "enter")
            await h.until(lambda: h.status(CoordRow, busy) == "SUSPENDED", what="suspended")
            await h.until(
                lambda: h.main.model.counts_of(busy).get("SKIPPED") == 1, what="held job dropped"
            )
            await h.until(
                lambda: [r[2] for r in table_rows(h)][:1] == ["SKIPPED"], what="table follows"
            )
            await h.until(lambda: "its trigger ignores events" in details(h), what="details follow")
            await h.press("r", "tab", "enter")
            await h.until(lambda: h.status(CoordRow, busy) == "RUNNING", what="resumed")
            await h.until(lambda: "ignores events" not in details(h), what="details follow")
    finally:
        kill_jobs_under(env.home)


async def test_live_what_the_trigger_has_seen_shows_as_it_arrives(env: Env) -> None:
    """QA: a partition that counts towards a schedule's trigger changes no job row, so the
    details of the selected schedule kept "(1 event so far)" until the cursor moved."""
    (env.root / "three.xml").write_text(
        event_coordinator(
            "three",
            feeds=[Feed("t", "${landing}/t")],
            trigger='<partitions feed="t" count="3"/>',
            start="2026-01-01T00:00Z",
            end="2099-01-01T00:00Z",
        )
    )
    props = env.root / "three.properties"
    props.write_text(
        f"oozie.coord.application.path={env.root / 'three.xml'}\nlanding={env.landing}\n"
        f"traceDir={env.root}\n"
    )
    with Store(env.home) as store:
        loaded = load_job(props, [], store.clock, user="alice")
        three = submit_loaded(Ctx(store, user="alice"), loaded, start=True)
    async with console(env) as h:
        await h.until(lambda: three in h.tree.nodes, what="the schedule in the tree")
        await asyncio.sleep(0.3)  # the engine watches the new feed
        land(env.landing, "t", "1")
        page = await details_of(h, three, "(1 event so far)")
        assert why(page) == "waits for its trigger to fire (1 event so far)"
        assert "so far     3 new partitions of t: 1 of 3" in page, page  # the leaf, its count
        land(env.landing, "t", "2")  # the cursor stays where it is
        await h.until(lambda: "(2 events so far)" in details(h), what="2 events, live")
        assert "3 new partitions of t: 2 of 3" in details(h)
        assert h.main.selected_id == three


# ----------------------------------------------------------------------------- header


def header_line(h: Harness) -> str:
    last = h.main.query_one(HeaderBar)._last
    return last.plain.splitlines()[0] if last is not None else ""


async def test_at_80_by_24_the_header_shows_the_store_shortened(ev: Events) -> None:
    """QA: at 80×24 the header dropped the store's path altogether; it shows its home
    directory, cut in the middle as needed. Wider, the whole path as before."""
    db = str(ev.env.home / "bundletui.db")
    async with on_store(ev, (80, 24)) as h:
        line = header_line(h)
        assert "engine: none" in line
        shown = [form for form in path_forms(db)[1:] if form in line]
        assert shown and shown[0].endswith("/home"), line
    async with on_store(ev, (160, 50)) as h:
        assert db in header_line(h)


def test_path_forms() -> None:
    assert path_forms("/home/op/.bundletui/bundletui.db", "/home/op") == [
        "/home/op/.bundletui/bundletui.db",
        "~/.bundletui",
    ]
    assert path_forms("/srv/feeds/home/bundletui.db", "/root") == [
        "/srv/feeds/home/bundletui.db",
        "/srv/feeds/home",
        "…/feeds/home",
        "/srv/…/home",
        "…/home",
    ]
    assert path_forms("/tmp/a/b/c/home/bundletui.db", "/root") == [
        "/tmp/a/b/c/home/bundletui.db",
        "/tmp/a/b/c/home",
        "/tmp/…/c/home",
        "/tmp/…/home",
        "…/c/home",
        "…/home",
    ]


async def test_a_stopped_engine_is_not_responding_not_none(env: Env) -> None:
    """QA: an engine stopped with SIGSTOP (alive, not renewing its lease) was shown as
    "engine: none (pid N's lease expired; :engine start)", as if there were none, though a
    console engine started then would only wait for it. Its process is there: the header says
    it does not respond; once it is gone, that it exited."""
    with engine_process(env.home, env.root / "engine.log") as proc:
        async with console(env, engine="none", ready=False) as h:
            attached = f"engine: active (attached to pid {proc.pid}@"
            await h.until(lambda: attached in header_line(h), what="attached")
            os.kill(proc.pid, signal.SIGSTOP)
            stopped = f"engine: pid {proc.pid} not responding (stopped; lease expired "
            await h.until(lambda: stopped in header_line(h), what=stopped)
            assert "none" not in header_line(h)
            await h.pilot.resize_terminal(80, 24)
            await h.until(
                lambda: f"engine: pid {proc.pid} not responding" in header_line(h), what="80×24"
            )
            await h.pilot.resize_terminal(120, 40)
            proc.send_signal(signal.SIGKILL)
            proc.send_signal(signal.SIGCONT)
            proc.wait(10)
            gone = f"engine: none (pid {proc.pid} exited, lease expired "
            await h.until(lambda: gone in header_line(h), what=gone)
            assert header_line(h).count(":engine start") == 1


async def test_a_console_engine_waiting_for_a_stopped_one_says_so(env: Env) -> None:
    """The console's own engine started beside a stopped one waits for good: as a standby
    (README: a stopped engine is not taken over), or still starting when the stopped one
    holds the store's write lock. The header says for whom."""
    with engine_process(env.home, env.root / "engine.log") as proc:
        os.kill(proc.pid, signal.SIGSTOP)
        await asyncio.sleep(0.8)  # its lease runs out
        async with console(env, engine="auto", ready=False) as h:
            assert isinstance(h.app, ConsoleApp) and h.app.embedded is not None
            text = f"; pid {proc.pid} not responding (stopped; lease expired "
            await h.until(lambda: text in header_line(h), what=text)
            line = header_line(h).removeprefix("bundletui ")
            assert line.startswith(("engine: standby;", "engine: starting;")), line
            proc.send_signal(signal.SIGKILL)  # let go of the store before the console stops
            proc.send_signal(signal.SIGCONT)
            proc.wait(10)


async def test_a_console_opened_just_after_an_engine_was_killed_runs_its_own(env: Env) -> None:
    """QA (aa): opened within the dead engine's lease (kill -9, lease not yet expired) the
    console attached to nobody and never ran an engine (``:engine start`` by hand), where
    ``run`` takes over at once: a holder on this host whose process is gone holds nothing."""
    with engine_process(env.home, env.root / "engine.log", lease_ttl="60") as proc:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    async with console(env, engine="auto", ready=False) as h:
        assert h.app.engine_mode == "embedded"
        await h.until(lambda: "engine: active (in console" in header_line(h), what="its own")
