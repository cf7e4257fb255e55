"""``bundletui info`` on an event schedule and its actions: what fired an action (the
partitions or the run that fired it, the reason, when) and the schedule's trigger and run
constraints, beside Oozie's keys (never instead of them), in ``--json`` and in the text view.

The store is built once per module by the real engine on a simulated clock, in-process, from
a bundle of three schedules (XML from the e2e5 builders):

* ``arrivals`` fires on 3 new partitions of ``clicks`` OR a 22:00 cron, with every kind of
  run constraint: its first firing (10:00) ran at 10:05 after its delay; its second (10:30)
  is held at 11:00 by the hour since the last run, and its third (10:45) joined it there;
* ``after`` fires when an ``arrivals`` action SUCCEEDED: once, on ``arrivals@1``;
* ``bulk`` fires on 4 new partitions of ``logs`` AND 1 of ``audit``: once, at 10:00.

What the tests check runs through the real console script against that store.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.engine.service import Engine, EngineConfig
from bundletui.model.clock import SimulatedClock
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.cli import bundletui
from tests.e2e5.conftest import Feed, bundle, event_coordinator, kill_jobs_under

T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)
TRIGGER = '<or><partitions feed="clicks" count="3"/><cron expression="0 22 * * *"/></or>'
CONSTRAINTS = (
    '<concurrency max="2"/><delay>PT5M</delay><time-window start="06:00" end="23:00"/>'
    '<since-last-run>PT1H</since-last-run><timeout on-timeout="force">PT3H</timeout>'
)
# the keys Oozie's coordinator action JSON has (oozie.md §7.2): all of them stay
OOZIE_ACTION_KEYS = {
    "id",
    "coordJobId",
    "type",
    "actionNumber",
    "createdConf",
    "createdTime",
    "nominalTime",
    "externalId",
    "status",
    "runConf",
    "lastModifiedTime",
    "missingDependencies",
    "pushMissingDependencies",
    "externalStatus",
    "trackerUri",
    "consoleUrl",
    "errorCode",
    "errorMessage",
    "toString",
}


@dataclass
class Fired:
    root: Path
    home: Path
    landing: Path
    bundle: str
    arrivals: str  # coordinator ids
    after: str
    bulk: str


def land(landing: Path, name: str, size: int = 10, feed: str = "clicks") -> Path:
    part = landing / feed / name
    part.mkdir(parents=True)
    (part / "part-00000").write_bytes(b"x" * size)
    (part / "_SUCCESS").touch()
    return part


def _run(home: Path, landing: Path, start: datetime, until: datetime) -> None:
    config = EngineConfig(
        home=home, landing=landing, clock="simulated", start_time=start, until=until, watch=False
    )
    asyncio.run(Engine(config).run())


def build_store(root: Path) -> Fired:
    """The two schedules, run from 10:00 to 11:00 on 2026-03-01 (see the module's doc)."""
    home, landing, apps = root / "home", root / "landing", root / "apps"
    for d in (landing, apps, root / "trace"):
        d.mkdir(parents=True)
    (apps / "arrivals.xml").write_text(
        event_coordinator(
            "arrivals",
            feeds=[Feed("clicks", "${landing}/clicks")],
            trigger=TRIGGER,
            constraints=CONSTRAINTS,
            priority=5,
        )
    )
    (apps / "after.xml").write_text(
        event_coordinator("after", trigger='<program coordinator="arrivals"/>')
    )
    (apps / "bulk.xml").write_text(
        event_coordinator(
            "bulk",
            feeds=[Feed("logs", "${landing}/logs"), Feed("audit", "${landing}/audit")],
            trigger='<and><partitions feed="logs" count="4"/><partitions feed="audit"/></and>',
        )
    )
    names = ("arrivals", "after", "bulk")
    (apps / "bundle.xml").write_text(bundle("fired", [(n, apps / f"{n}.xml", {}) for n in names]))
    props = apps / "fired.properties"
    props.write_text(
        f"oozie.bundle.application.path={apps / 'bundle.xml'}\nstart=2026-01-01T00:00Z\n"
        f"end=2027-01-01T00:00Z\ntraceDir={root / 'trace'}\nlanding={landing}\n"
    )
    with Store(home, clock=SimulatedClock(T0)) as store:
        loaded = load_job(props, [], store.clock, user="alice")
        bundle_id = submit_loaded(Ctx(store, user="alice"), loaded, start=True)
    _run(home, landing, T0, T0)  # the bundle starts its schedules
    for hour in ("07", "08", "09"):
        land(landing, f"2026/03/01/{hour}")
    for name in ("a", "b", "c", "d"):
        land(landing, name, feed="logs")
    land(landing, "x", feed="audit")
    _run(home, landing, T0, T0 + timedelta(minutes=30))
    for hour in ("10", "11", "12"):
        land(landing, f"2026/03/01/{hour}")
    _run(home, landing, T0 + timedelta(minutes=30), T0 + timedelta(minutes=45))
    for hour in ("13", "14", "15"):
        land(landing, f"2026/03/01/{hour}")
    _run(home, landing, T0 + timedelta(minutes=45), T0 + timedelta(hours=1))
    with Store(home) as store:
        ids = dict(store.conn.execute("SELECT app_name, id FROM coord_jobs").fetchall())
    return Fired(root, home, landing, bundle_id, ids["arrivals"], ids["after"], ids["bulk"])


@pytest.fixture(scope="module")
def fired(tmp_path_factory: pytest.TempPathFactory) -> Any:
    built = build_store(tmp_path_factory.mktemp("event-trigger-info"))
    yield built
    kill_jobs_under(built.home)


def info_json(f: Fired, job_id: str) -> dict[str, Any]:
    proc = bundletui("info", job_id, "--json", home=f.home, env={"TZ": "UTC"})
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def info_text(f: Fired, job_id: str) -> list[str]:
    proc = bundletui("info", job_id, home=f.home, env={"COLUMNS": "200", "TZ": "UTC"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def row(lines: list[str], key: str) -> str:
    """The value of ``  Key   : value`` in a header block."""
    found = [x.split(" : ", 1)[1] for x in lines if x.strip().split(" : ", 1)[0].strip() == key]
    assert found, (key, lines)
    return found[0]


# ----------------------------------------------------------------------------- actions


def test_an_action_says_which_partitions_fired_it_why_and_when(fired: Fired) -> None:
    data = info_json(fired, f"{fired.arrivals}@1")
    assert set(data) >= OOZIE_ACTION_KEYS  # beside Oozie's keys, never instead of them
    assert data["status"] == "SUCCEEDED"
    by = data["firedBy"]
    assert by["reason"] == "3 new partitions in feed clicks"
    assert by["leaves"] == ["partitions"]  # what ${trigger:reason()} gave the workflow
    assert by["firedAt"] == "Sun, 01 Mar 2026 10:00:00 GMT"  # launched at 10:05, after its delay
    assert (by["partitions"], by["bytes"]) == (3, 30)
    assert by["trigger"] == "3 new partitions of clicks OR cron '0 22 * * *'"
    clicks = fired.landing / "clicks"
    assert [(e["kind"], e["feed"], e["name"], e["path"], e["size"]) for e in by["events"]] == [
        ("partition", "clicks", f"2026/03/01/{h}", str(clicks / f"2026/03/01/{h}"), 10)
        for h in ("07", "08", "09")
    ]
    assert by["job"] == {"state": "LAUNCHED", "note": None}
    assert "mergedAt" not in by  # no later firing joined it


def test_an_action_fired_by_another_schedule_names_that_run(fired: Fired) -> None:
    data = info_json(fired, f"{fired.after}@1")
    by = data["firedBy"]
    assert by["reason"] == "program arrivals SUCCEEDED (action @1)"
    assert by["leaves"] == ["program"]
    assert by["firedAt"].startswith("Sun, 01 Mar 2026 10:05:")  # when arrivals@1 succeeded
    assert [(e["kind"], e["coordinator"], e["status"], e["action"]) for e in by["events"]] == [
        ("program", "arrivals", "SUCCEEDED", f"{fired.arrivals}@1")
    ]
    assert (by["partitions"], by["bytes"]) == (0, 0)


def test_an_action_fired_by_two_feeds_counts_each(fired: Fired) -> None:
    by = info_json(fired, f"{fired.bulk}@1")["firedBy"]
    assert by["reason"] == "4 new partitions in feed logs and 1 new partition in feed audit"
    assert by["trigger"] == "4 new partitions of logs AND 1 new partition of audit"
    assert sorted((e["feed"], e["name"]) for e in by["events"]) == [
        ("audit", "x"),
        ("logs", "a"),
        ("logs", "b"),
        ("logs", "c"),
        ("logs", "d"),
    ]


def test_a_held_action_says_what_fired_it_and_its_job_in_the_queue(fired: Fired) -> None:
    data = info_json(fired, f"{fired.arrivals}@2")
    assert data["status"] == "WAITING"
    by = data["firedBy"]
    assert by["firedAt"] == "Sun, 01 Mar 2026 10:30:00 GMT"
    # the firing at 10:45 joined the held job: one run gets both (seed 004), as it is told
    assert by["mergedAt"] == ["Sun, 01 Mar 2026 10:45:00 GMT"]
    assert by["reason"] == "6 new partitions in feed clicks"
    assert [e["name"] for e in by["events"]] == [f"2026/03/01/{h}" for h in range(10, 16)]
    assert by["job"] == {"state": "PENDING_CONSTRAINT", "note": "since-last-run"}
    assert data["waitingFor"]["constraint"] == "since-last-run"


def test_the_coordinators_action_page_says_what_fired_each_in_short(fired: Fired) -> None:
    """Every row of the page says why it fired; the events themselves only an action's own
    info lists (a firing may hold thousands of partitions)."""
    actions = info_json(fired, fired.arrivals)["actions"]
    assert [a["firedBy"]["reason"] for a in actions] == [
        "3 new partitions in feed clicks",
        "6 new partitions in feed clicks",
    ]
    assert [a["firedBy"]["firedAt"] for a in actions] == [
        "Sun, 01 Mar 2026 10:00:00 GMT",
        "Sun, 01 Mar 2026 10:30:00 GMT",
    ]
    assert all("events" not in a["firedBy"] for a in actions)


def test_the_text_view_of_an_action_says_what_fired_it(fired: Fired) -> None:
    lines = info_text(fired, f"{fired.arrivals}@1")
    assert row(lines, "Fired by") == "3 new partitions in feed clicks"
    assert row(lines, "Fired at") == "2026-03-01 10:00 GMT"
    assert row(lines, "Trigger") == "3 new partitions of clicks OR cron '0 22 * * *'"
    assert row(lines, "Job queue") == "LAUNCHED"
    at = lines.index("Events that fired it (3, 30 bytes)")
    clicks = fired.landing / "clicks"
    assert lines[at + 1 : at + 4] == [
        f"  clicks  {clicks / f'2026/03/01/{h}'}  (10 bytes)" for h in ("07", "08", "09")
    ]
    held = info_text(fired, f"{fired.arrivals}@2")
    assert row(held, "Job queue") == "PENDING_CONSTRAINT (since-last-run)"
    assert row(held, "Fired at") == (
        "2026-03-01 10:30 GMT (joined by 1 later firing(s), last 2026-03-01 10:45 GMT)"
    )
    after = info_text(fired, f"{fired.after}@1")
    assert row(after, "Fired by") == "program arrivals SUCCEEDED (action @1)"
    assert f"  program arrivals SUCCEEDED  {fired.arrivals}@1" in after


# ----------------------------------------------------------------------------- coordinators


def test_the_coordinator_json_has_its_trigger_and_constraints_beside_oozies_keys(
    fired: Fired,
) -> None:
    data = info_json(fired, fired.arrivals)
    # Oozie's keys as they were: concurrency is Oozie's (the row's), no frequency
    assert (data["frequency"], data["timeUnit"], data["concurrency"]) == (None, "NONE", 2)
    assert data["trigger"] == {
        "definition": "3 new partitions of clicks OR cron '0 22 * * *'",
        "tree": {
            "or": [
                {"partitions": {"feed": "clicks", "count": 3}},
                {"cron": {"expression": "0 22 * * *"}},
            ]
        },
        "feeds": [
            {"name": "clicks", "path": str(fired.landing / "clicks"), "doneFlag": "_SUCCESS"}
        ],
        "priority": 5,
    }
    assert data["constraints"] == {
        "concurrency": 2,
        "group": None,
        "groupMax": None,
        "delay": "PT5M",
        "timeWindow": {"start": "06:00", "end": "23:00", "timezone": "UTC"},
        "sinceLastRun": "PT1H",
        "timeout": "PT3H",
        "onTimeout": "force",
        "summary": [
            "concurrency 2",
            "delay 5m",
            "time window 06:00-23:00 UTC",
            "1h since the last run",
            "timeout 3h, then started anyway",
        ],
    }
    after = info_json(fired, fired.after)
    assert after["trigger"]["definition"] == "program arrivals SUCCEEDED"
    assert after["trigger"]["tree"] == {
        "program": {"coordinator": "arrivals", "status": "SUCCEEDED"}
    }
    assert after["constraints"]["summary"] == []


def test_change_concurrency_is_the_constraint_info_shows(fired: Fired, tmp_path: Path) -> None:
    """The engine holds jobs by the row's concurrency once ``change`` set it: so does info."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(fired.root, copy, symlinks=True)
    home = copy / "home"
    proc = bundletui("change", fired.arrivals, "--value", "concurrency=4", home=home)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(bundletui("info", fired.arrivals, "--json", home=home).stdout)
    assert data["constraints"]["concurrency"] == 4
    assert data["constraints"]["summary"][0] == "concurrency 4"


def test_the_text_view_of_a_coordinator_shows_its_trigger_and_constraints(fired: Fired) -> None:
    lines = info_text(fired, fired.arrivals)
    assert row(lines, "Trigger") == "3 new partitions of clicks OR cron '0 22 * * *'"
    assert row(lines, "Feeds") == f"clicks {fired.landing / 'clicks'}"
    assert row(lines, "Constraints") == (
        "concurrency 2, delay 5m, time window 06:00-23:00 UTC, 1h since the last run,"
        " timeout 3h, then started anyway"
    )
    assert row(lines, "Priority") == "5"
    after = info_text(fired, fired.after)
    assert row(after, "Trigger") == "program arrivals SUCCEEDED"
    assert row(after, "Constraints") == "none"
