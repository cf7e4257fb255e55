"""``bundletui oozie job|jobs`` on event-triggered coordinators and on bundles holding them.

An event schedule (``uri:bundletui:coordinator:1.0``) has no frequency and no next nominal
time: Oozie's columns say so (Freq ``-``, Unit ``EVENT``, Next Materialized ``-``), its JSON
keeps Oozie's types (``frequency`` null, ``timeUnit`` ``NONE``, ``"schedule": "event"``), and a
dry run tells what fires it instead of failing on a frequency of 0. A bundle's dry run prints
the bundle and then each of its coordinators, not a coordinator's lines.

Everything runs through the real console script against a real store; the bundle is kicked
off by the real engine on a simulated clock, in-process (its coordinators exist only then).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from bundletui.commands import queries
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.cli import bundletui

RULER = "-" * 132
START = "2026-01-01T00:00Z"

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="noop">
  <job name="noop"><shell><exec>true</exec></shell></job>
</dag-app>
"""

EVENT_COORD = """<?xml version="1.0" encoding="UTF-8"?>
<coordinator-app name="on-arrival" xmlns="uri:bundletui:coordinator:1.0"
                 start="${start}" end="${end}" timezone="UTC">
  <feeds><feed name="clicks" path="${landing}/clicks"/></feeds>
  <trigger><partitions feed="clicks" count="2"/></trigger>
  <constraints><concurrency max="1"/></constraints>
  <action><workflow><app-path>workflow.xml</app-path></workflow></action>
</coordinator-app>
"""

# far after the simulated kick-off: nothing materializes, its next time is its start
TIME_COORD = """<coordinator-app name="hourly" frequency="${coord:hours(1)}" start="2030-01-01T00:00Z"
                 end="2030-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>workflow.xml</app-path></workflow></action>
</coordinator-app>
"""

BUNDLE = """<bundle-app name="mixed" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="events"><app-path>event.xml</app-path></coordinator>
  <coordinator name="hourly"><app-path>hourly.xml</app-path></coordinator>
</bundle-app>
"""


@dataclass
class Out:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def run(home: Path, *args: str) -> Out:
    proc = bundletui(*args, home=home, env={"TZ": "UTC", "OOZIE_TIMEZONE": None})
    return Out(proc.returncode, proc.stdout, proc.stderr)


@dataclass
class World:
    home: Path
    apps: Path
    coord: str  # a stand-alone event coordinator
    bundle: str
    bundle_event: str  # the bundle's event coordinator
    bundle_time: str  # the bundle's time-based one


def _props(path: Path, **values: str) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    return path


def write_apps(apps: Path) -> tuple[Path, Path]:
    """(event coordinator properties, bundle properties)."""
    apps.mkdir(parents=True)
    (apps / "workflow.xml").write_text(WORKFLOW)
    (apps / "event.xml").write_text(EVENT_COORD)
    (apps / "hourly.xml").write_text(TIME_COORD)
    (apps / "bundle.xml").write_text(BUNDLE)
    window = {"start": START, "end": "2027-01-01T00:00Z"}
    coord = _props(
        apps / "event.properties", **{"oozie.coord.application.path": "event.xml"}, **window
    )
    bundle = _props(
        apps / "bundle.properties", **{"oozie.bundle.application.path": "bundle.xml"}, **window
    )
    return coord, bundle


def _submit(store: Store, props: Path, *, start: bool) -> str:
    from bundletui.cli.job_cmds import submit_defaults

    loaded = load_job(props, [], store.clock, user="alice", defaults=submit_defaults(store.home))
    return submit_loaded(Ctx(store), loaded, start=start)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    from bundletui.engine.service import Engine, EngineConfig
    from bundletui.model.timeutil import parse_oozie_time

    root = tmp_path_factory.mktemp("oozie-events")
    home, apps = root / "home", root / "apps"
    coord_props, bundle_props = write_apps(apps)
    with Store(home) as store:  # in-process: the tests' subprocesses are what they check
        coord = _submit(store, coord_props, start=False)
        bundle = _submit(store, bundle_props, start=True)
    engine = Engine(  # kicks the bundle off: its coordinators are submitted
        EngineConfig(
            home=home,
            clock="simulated",
            start_time=parse_oozie_time(START),
            until=parse_oozie_time(START),
            watch=False,
        )
    )
    asyncio.run(engine.run())
    with Store(home) as store:
        coords = queries.job_info(store.conn, bundle)["bundleCoordJobs"]
    by_name = {c["coordJobName"]: c["coordJobId"] for c in coords}
    return World(home, apps, coord, bundle, by_name["events"], by_name["hourly"])


def _row(lines: list[str], job_id: str) -> str:
    return next(line for line in lines if line.startswith(job_id))


# ----------------------------------------------------------------------------- Freq / Unit


def test_jobs_listing_shows_an_event_coordinator_as_event_not_freq_0(world: World) -> None:
    out = run(world.home, "oozie", "jobs", "-jobtype", "coordinator")
    assert out.code == 0, out
    # Oozie's columns: Job ID 41, App Name 15, Status 10, Freq 5, Unit 13, Started 24, Next 24
    for cid in (world.coord, world.bundle_event):
        row = _row(out.lines, cid)
        assert (row[66:71].strip(), row[71:84].strip()) == ("-", "EVENT"), row
        assert row[84:108].strip() == "2026-01-01 00:00 GMT", row  # its start
        assert row[108:].strip() == "-", row  # no next nominal time: it waits for its trigger
    row = _row(out.lines, world.bundle_time)
    assert (row[66:71].strip(), row[71:84].strip()) == ("60", "MINUTE"), row
    assert row[108:].strip() == "2030-01-01 00:00 GMT", row

    verbose = run(world.home, "oozie", "jobs", "-jobtype", "coordinator", "-verbose")
    header = verbose.lines[0].split("\t")
    fields = dict(zip(header, _row(verbose.lines, world.coord).split("\t"), strict=True))
    assert (fields["Frequency"], fields["Time Unit"], fields["Next Materialize"]) == (
        "-",
        "EVENT",
        "-",
    )


def test_bundle_info_table_shows_its_event_coordinator_as_event(world: World) -> None:
    out = run(world.home, "oozie", "job", "-info", world.bundle)
    assert out.code == 0, out
    # Job ID 41, Status 15, Freq 5, Unit 13, Started 24, Next Materialized 24
    row = _row(out.lines, world.bundle_event)
    assert (row[56:61].strip(), row[61:74].strip(), row[98:].strip()) == ("-", "EVENT", "-"), row
    row = _row(out.lines, world.bundle_time)
    assert (row[56:61].strip(), row[61:74].strip()) == ("60", "MINUTE"), row
    # the native info agrees: no next nominal time, it fires on its trigger
    human = run(world.home, "info", world.bundle)
    line = next(x for x in human.lines if x.strip().startswith("events "))
    assert line.split()[-2:] == ["on", "trigger"], human.stdout


def test_json_keeps_oozies_types_and_says_event(world: World) -> None:
    """The REST/``--json`` view the columns come from: Oozie's Java client maps ``timeUnit``
    with Enum.valueOf, so it stays in Oozie's enum (NONE); there is no frequency (null) and no
    next materialized time; ``lastAction`` is its last firing (none yet)."""
    data = json.loads(run(world.home, "info", world.coord, "--json").stdout)
    assert (data["frequency"], data["timeUnit"], data["schedule"]) == (None, "NONE", "event")
    assert data["nextMaterializedTime"] is None and data["lastAction"] is None
    assert data["materialization"]["onTrigger"] is True
    timed = json.loads(run(world.home, "info", world.bundle_time, "--json").stdout)
    assert (timed["frequency"], timed["timeUnit"], timed["schedule"]) == ("60", "MINUTE", "time")
    assert timed["nextMaterializedTime"] == timed["lastAction"] == "Tue, 01 Jan 2030 00:00:00 GMT"


def test_native_info_shows_no_time_controls_for_an_event_coordinator(world: World) -> None:
    """It showed 'execution FIFO, throttle 12, timeout -1 min': controls of nominal-time
    actions that an event schedule does not have (its run constraints hold what it fires)."""
    lines = run(world.home, "info", world.coord).lines
    assert "  Frequency   : event-triggered, timezone UTC" in lines
    assert "  Controls    : concurrency 1" in lines, lines
    timed = run(world.home, "info", world.bundle_time).lines
    assert any(x.startswith("  Controls    : concurrency 1, execution FIFO") for x in timed)


# ----------------------------------------------------------------------------- dryrun


def test_dryrun_of_an_event_coordinator_says_what_fires_it(world: World) -> None:
    """It failed with E1003 'frequency must be > 0, got 0'."""
    out = run(
        world.home, "oozie", "job", "-dryrun", "-config", str(world.apps / "event.properties")
    )
    assert out.code == 0, out
    assert out.lines[0] == "***coordJob after parsing: ***"
    assert 'start="2026-01-01T00:00Z"' in out.stdout and "${start}" not in out.stdout
    assert f'path="{world.home / "landing"}/clicks"' in out.stdout
    assert out.lines[-3:] == [
        "***total coord actions is 0 ***",
        "***event-triggered: an action each time it fires on 2 new partitions of clicks ***",
        "***run constraints: concurrency 1 ***",
    ]


def test_dryrun_of_a_bundle_prints_the_bundle_then_each_coordinator(world: World) -> None:
    """It printed a coordinator's lines: '***coordJob after parsing: ***' over the bundle XML
    and '***total coord actions is 0 ***'."""
    out = run(
        world.home, "oozie", "job", "-dryrun", "-config", str(world.apps / "bundle.properties")
    )
    assert out.code == 0, out
    assert out.lines[0] == "***bundleJob after parsing: ***"
    assert "***coordJob after parsing: ***" not in out.stdout
    assert out.lines[1] == '<bundle-app name="mixed" xmlns="uri:oozie:bundle:0.2">'
    blocks = out.stdout.split(RULER + "\n")
    assert blocks[0].splitlines()[-1] == "***total bundle coordinators is 2 ***"
    assert blocks[1].splitlines() == [
        "bundleCoordinator instance: 1: events",
        f"***app path: {world.apps / 'event.xml'} ***",
        "***total coord actions is 0 ***",
        "***event-triggered: an action each time it fires on 2 new partitions of clicks ***",
        "***run constraints: concurrency 1 ***",
    ]
    assert blocks[2].splitlines() == [
        "bundleCoordinator instance: 2: hourly",
        f"***app path: {world.apps / 'hourly.xml'} ***",
        "***total coord actions is 1 ***",
    ]
    assert blocks[3].splitlines() == [
        "coordAction instance: 1:",
        '<action number="1" nominal-time="2030-01-01T00:00Z" id="dryrun@1">',
        f"  <workflow><app-path>{world.apps / 'workflow.xml'}</app-path></workflow>",
        "</action>",
    ]
    assert len(blocks) == 4

    # the feeds sample: its data-ins name their datasets, as the CLI's text did before it
    # became the API's; the workflow is where the engine finds it
    feeds = Path(__file__).resolve().parents[2] / "sample_bundles" / "feeds"
    out = run(world.home, "oozie", "job", "-dryrun", "-config", str(feeds / "job.properties"))
    assert out.code == 0, out
    assert '  <data-in name="clicks" dataset="clicks"><uris>' in out.stdout, out.stdout
    assert f"<app-path>{feeds / 'ingest' / 'workflow.xml'}</app-path>" in out.stdout
    assert "bundleCoordinator instance: 4: train-on-arrival" in out.lines


# ----------------------------------------------------------------------------- controls


def test_bundle_rerun_refuses_names_that_match_none_of_its_coordinators(world: World) -> None:
    """Names the bundle lacks are passed over, as Oozie does (``bundletui rerun`` warns of
    them); when none is left, a typo would rerun nothing and say it was scheduled."""
    out = run(world.home, "oozie", "job", "-rerun", world.bundle, "-coordinator", "hourlyy")
    assert out.code == 255, out
    assert f"bundle {world.bundle} has no coordinator named hourlyy" in out.stderr, out
    assert "its coordinators: events, hourly" in out.stderr
    assert "scheduled to rerun" not in out.stdout
