"""The HTTP API on event-triggered coordinators and on a bundle holding one, against the real
``bundletui run --api 127.0.0.1:0`` process (engine, landing watcher and server as a user runs
them), over real HTTP (httpx), with partitions landing in the real landing directory.

What an Oozie client reads of an event schedule keeps Oozie's types (``frequency`` null,
``timeUnit`` ``NONE``, no ``nextMaterializedTime``) and says ``"schedule": "event"``; a
bundle's dry run shows the bundle and each of its coordinators; a bundle rerun naming a
coordinator the bundle lacks says so; an action's dry run is refused as such.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import ApiProc, conf_xml, oozie_time, wait_until

XML = {"Content-Type": "application/xml"}

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="noop">
  <job name="noop"><shell><exec>true</exec></shell></job>
</dag-app>
"""

EVENT_COORD = """<coordinator-app name="on-arrival" xmlns="uri:bundletui:coordinator:1.0"
                 start="${start}" end="${end}" timezone="UTC">
  <feeds><feed name="clicks" path="${landing}/clicks"/></feeds>
  <trigger><partitions feed="clicks" count="2"/></trigger>
  <action><workflow><app-path>workflow.xml</app-path></workflow></action>
</coordinator-app>
"""

TIME_COORD = """<coordinator-app name="hourly" frequency="${coord:hours(1)}" start="2099-01-01T00:00Z"
                 end="2099-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>workflow.xml</app-path></workflow></action>
</coordinator-app>
"""

BUNDLE = """<bundle-app name="mixed" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="events"><app-path>event.xml</app-path></coordinator>
  <coordinator name="hourly"><app-path>hourly.xml</app-path></coordinator>
</bundle-app>
"""


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[httpx.Client, ApiProc]]:
    proc = ApiProc(tmp_path / "home", tmp_path / "run.log", "--api", "127.0.0.1:0")
    try:
        url = proc.wait_url()
        with httpx.Client(base_url=url + "/", timeout=20) as client:
            try:
                yield client, proc
            except httpx.HTTPError as exc:  # say what the server said before it went
                raise AssertionError(f"{exc!r}; bundletui run's log:\n{proc.log()}") from exc
    finally:
        code = proc.stop()
    assert code == 0, proc.log()
    assert "Traceback" not in proc.log(), proc.log()


def _apps(tmp: Path) -> Path:
    apps = tmp / "apps"
    apps.mkdir()
    for name, text in (
        ("workflow.xml", WORKFLOW),
        ("event.xml", EVENT_COORD),
        ("hourly.xml", TIME_COORD),
        ("bundle.xml", BUNDLE),
    ):
        (apps / name).write_text(text)
    return apps


def _window() -> dict[str, str]:
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    return {
        "start": oozie_time(now - timedelta(days=1)),
        "end": oozie_time(now + timedelta(days=1)),
    }


def _post(http: httpx.Client, props: dict[str, str]) -> str:
    r = http.post("v2/jobs", params={"action": "start"}, content=conf_xml(props), headers=XML)
    assert r.status_code == 201, r.text
    job_id: str = r.json()["id"]
    return job_id


def _land(landing: Path, name: str) -> None:
    part = landing / "clicks" / name
    part.mkdir(parents=True)
    (part / "part-00000").write_text("x\n")
    (part / "_SUCCESS").write_text("")


def _coords(http: httpx.Client, bid: str) -> dict[str, dict[str, Any]] | None:
    """Both submitted, the event one RUNNING (the hourly one waits for 2099 in PREP)."""
    coords = {c["coordJobName"]: c for c in http.get(f"v2/job/{bid}").json()["bundleCoordJobs"]}
    ready = len(coords) == 2 and coords["events"]["status"] == "RUNNING"
    return coords if ready else None


def test_event_coordinator_in_a_bundle_over_http(
    api: tuple[httpx.Client, ApiProc], tmp_path: Path
) -> None:
    http, proc = api
    apps = _apps(tmp_path)
    bid = _post(
        http,
        {
            "user.name": "joe",
            "oozie.bundle.application.path": str(apps / "bundle.xml"),
            **_window(),
        },
    )
    coords = wait_until(lambda: _coords(http, bid), 30, "the bundle's coordinators")
    event, timed = coords["events"], coords["hourly"]
    cid = event["coordJobId"]

    # Oozie's keys and types; no frequency, no next nominal time, nothing fired yet
    assert (event["frequency"], event["timeUnit"], event["schedule"]) == (None, "NONE", "event")
    assert event["nextMaterializedTime"] is None and event["lastAction"] is None
    assert (timed["frequency"], timed["timeUnit"], timed["schedule"]) == ("60", "MINUTE", "time")
    assert timed["nextMaterializedTime"] == "Thu, 01 Jan 2099 00:00:00 GMT"
    listing = http.get("v2/jobs", params={"jobtype": "coordinator"}).json()["coordinatorjobs"]
    listed = next(c for c in listing if c["coordJobId"] == cid)
    assert (listed["frequency"], listed["timeUnit"], listed["nextMaterializedTime"]) == (
        None,
        "NONE",
        None,
    )

    # two partitions fire it once; its last firing is its lastAction, still no "next"
    landing = proc.home / "landing"
    _land(landing, "p1")
    _land(landing, "p2")

    def fired() -> dict[str, Any] | None:
        data: dict[str, Any] = http.get(f"v2/job/{cid}", params={"len": "10"}).json()
        done = [a for a in data["actions"] if a["status"] == "SUCCEEDED"]
        return data if done else None

    data = wait_until(fired, 30, "the event coordinator's first action")
    assert data["total"] == 1
    action = data["actions"][0]
    assert data["lastAction"] == action["nominalTime"] and data["nextMaterializedTime"] is None
    assert data["frequency"] is None and data["timeUnit"] == "NONE"

    # a bundle's dry run: the bundle, then each of its coordinators
    dry = http.put(f"v2/job/{bid}", params={"action": "dryrun"})
    assert dry.status_code == 200, dry.text
    text = dry.json()["id"]
    assert text.startswith("***bundleJob after parsing: ***\n<bundle-app")
    assert "***total bundle coordinators is 2 ***" in text
    assert f"bundleCoordinator instance: 1: events\n***app path: {apps / 'event.xml'} ***" in text
    assert (
        "***event-triggered: an action each time it fires on 2 new partitions of clicks ***" in text
    )
    assert "***coordJob after parsing" not in text
    assert [c["name"] for c in dry.json()["coordinators"]] == ["events", "hourly"]
    # an action has no configuration of its own to dry-run (it was 400 E0405, "no app path")
    refused = http.put(f"v2/job/{action['id']}", params={"action": "dryrun"})
    assert refused.status_code == 400, refused.text
    assert refused.headers["oozie-error-code"] == "E0302", refused.headers

    # a bundle rerun passes over names the bundle lacks (as Oozie), but one that names none
    # of its coordinators would rerun nothing: refused, naming them
    r = http.put(
        f"v2/job/{bid}", params={"action": "bundle-rerun", "coord-scope": "hourlyy"}, headers=XML
    )
    assert r.status_code == 400, r.text
    assert r.headers["oozie-error-code"] == "E1018", r.headers
    assert f"bundle {bid} has no coordinator named hourlyy" in r.headers["oozie-error-message"]
    # an event action reruns with what fired it, through HTTP as through the CLI
    r = http.put(
        f"v2/job/{cid}",
        params={"action": "coord-rerun", "type": "action", "scope": "1"},
        headers=XML,
    )
    assert r.status_code == 200, r.text
    assert [a["id"] for a in r.json()["actions"]] == [action["id"]]

    def ran_again() -> bool:
        a = http.get(f"v2/job/{action['id']}").json()
        return bool(a["status"] == "SUCCEEDED" and a["externalId"] != action["externalId"])

    wait_until(ran_again, 30, "the rerun of the event action")

    # suspend / resume of the bundle reach its event coordinator
    assert http.put(f"v2/job/{bid}", params={"action": "suspend"}).status_code == 200
    wait_until(
        lambda: (
            http.get(f"v2/job/{cid}", params={"show": "status"}).json()["status"] == "SUSPENDED"
        ),
        20,
        "the event coordinator SUSPENDED",
    )
    assert http.put(f"v2/job/{bid}", params={"action": "resume"}).status_code == 200
    wait_until(
        lambda: http.get(f"v2/job/{cid}", params={"show": "status"}).json()["status"] == "RUNNING",
        20,
        "the event coordinator RUNNING again",
    )
    kill = http.put(f"v2/job/{bid}", params={"action": "kill"})
    assert kill.status_code == 200, kill.text
