"""``GET /oozie/v2/job/<id>`` on an event schedule and its actions, against the real
``bundletui run --api 127.0.0.1:0`` process, with partitions landing in its real landing
directory: an action says what fired it (its partitions, the reason, when: ``firedBy``) and
the schedule its trigger and run constraints (``trigger``, ``constraints``), beside Oozie's
keys, in the timezone the request asks for.
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
  <trigger><and><partitions feed="clicks" count="2"/><bytes feed="clicks" at-least="8B"/></and></trigger>
  <constraints><concurrency max="1"/><timeout on-timeout="discard">PT2H</timeout></constraints>
  <action><workflow><app-path>workflow.xml</app-path></workflow></action>
</coordinator-app>
"""


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[httpx.Client, ApiProc]]:
    proc = ApiProc(tmp_path / "home", tmp_path / "run.log", "--api", "127.0.0.1:0")
    try:
        url = proc.wait_url()
        with httpx.Client(base_url=url + "/", timeout=20) as client:
            yield client, proc
    finally:
        code = proc.stop()
    assert code == 0, proc.log()
    assert "Traceback" not in proc.log(), proc.log()


def _submit(http: httpx.Client, apps: Path) -> str:
    (apps / "workflow.xml").write_text(WORKFLOW)
    (apps / "event.xml").write_text(EVENT_COORD)
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    props = {
        "user.name": "joe",
        "oozie.coord.application.path": str(apps / "event.xml"),
        "start": oozie_time(now - timedelta(days=1)),
        "end": oozie_time(now + timedelta(days=1)),
    }
    r = http.post("v2/jobs", params={"action": "start"}, content=conf_xml(props), headers=XML)
    assert r.status_code == 201, r.text
    job_id: str = r.json()["id"]
    return job_id


def _land(landing: Path, name: str) -> Path:
    part = landing / "clicks" / name
    part.mkdir(parents=True)
    (part / "part-00000").write_text("12345\n")  # 6 bytes: two make the 8B the trigger needs
    (part / "_SUCCESS").write_text("")
    return part


def test_an_event_action_and_its_schedule_over_http(
    api: tuple[httpx.Client, ApiProc], tmp_path: Path
) -> None:
    http, proc = api
    apps = tmp_path / "apps"
    apps.mkdir()
    cid = _submit(http, apps)
    wait_until(lambda: http.get(f"v2/job/{cid}").json()["status"] == "RUNNING", 30, "the schedule")
    landing = proc.home / "landing"
    parts = [_land(landing, "p1"), _land(landing, "p2")]

    def done() -> dict[str, Any] | None:
        data: dict[str, Any] = http.get(f"v2/job/{cid}@1").json()
        return data if data.get("status") == "SUCCEEDED" else None

    action = wait_until(done, 30, "the schedule's first action SUCCEEDED")
    by = action["firedBy"]
    assert by["reason"] == "2 new partitions in feed clicks (12B)"
    assert by["leaves"] == ["partitions", "bytes"]
    assert by["trigger"] == "2 new partitions of clicks AND 8B of clicks"
    assert by["firedAt"] == action["nominalTime"]  # its firing is its nominal time
    assert (by["partitions"], by["bytes"]) == (2, 12)
    assert [(e["feed"], e["name"], e["path"]) for e in by["events"]] == [
        ("clicks", p.name, str(p)) for p in parts
    ]
    assert by["job"] == {"state": "LAUNCHED", "note": None}
    # Oozie's keys are all there, as they were
    assert action["id"] == f"{cid}@1" and action["coordJobId"] == cid
    assert action["toString"] == f"CoordinatorAction name[{cid}@1] status[SUCCEEDED]"

    # the times follow the request's timezone, as Oozie's date keys do
    pacific = http.get(f"v2/job/{cid}@1", params={"timezone": "America/Los_Angeles"}).json()
    assert pacific["firedBy"]["firedAt"] == pacific["nominalTime"]
    assert pacific["firedBy"]["firedAt"].endswith(("PST", "PDT"))

    coord = http.get(f"v2/job/{cid}", params={"len": "10"}).json()
    assert coord["trigger"]["definition"] == "2 new partitions of clicks AND 8B of clicks"
    assert coord["trigger"]["tree"] == {
        "and": [
            {"partitions": {"feed": "clicks", "count": 2}},
            {"bytes": {"feed": "clicks", "atLeast": 8}},
        ]
    }
    assert coord["trigger"]["feeds"] == [
        {"name": "clicks", "path": str(landing / "clicks"), "doneFlag": "_SUCCESS"}
    ]
    assert coord["constraints"]["summary"] == ["concurrency 1", "timeout 2h, then discarded"]
    assert (coord["constraints"]["timeout"], coord["constraints"]["onTimeout"]) == (
        "PT2H",
        "discard",
    )
    assert coord["concurrency"] == 1 and coord["frequency"] is None  # Oozie's, untouched
    assert coord["actions"][0]["firedBy"]["reason"] == by["reason"]
