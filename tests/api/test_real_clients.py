"""The API driven by the real Oozie clients from PyPI (oozie-rest-clients.md).

* ``oozie-api`` 1.2.0 (urllib, form-encoded queries, reads nothing but status and headers):
  the bundle scenario against ``bundletui run --api 127.0.0.1:0`` started as a user would.
* ``pyoozie`` 0.0.9 (requests, raw unencoded queries, v2 only, validates every reply: key names,
  ``toString``, RFC-822 dates, id shapes, ``total``): the coordinator path, down to the workflow
  an action launched, against the in-process server and engine.
"""

from __future__ import annotations

import collections
import collections.abc
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.api.conftest import (
    FEEDS,
    ApiProc,
    Live,
    bundle_coordinators,
    conf_xml,
    drop_partition,
    feeds_bundle,
    in_past,
    oozie_time,
    wait_until,
)

UNKNOWN_B = "0000000-000000000000000-bundletui-nobody-B"
UNKNOWN_C = "0000000-000000000000000-bundletui-nobody-C"


def _pyoozie() -> Any:
    """pyoozie subclasses collections.Iterable, gone since Python 3.10: restore it first."""
    if not hasattr(collections, "Iterable"):
        collections.Iterable = collections.abc.Iterable  # type: ignore[attr-defined]
    import pyoozie

    return pyoozie


# ----------------------------------------------------------------------------- oozie-api


def _json(resp: Any) -> Any:
    assert resp.headers["Content-Type"].startswith("application/json"), resp.headers
    return json.loads(resp.body)


def test_oozie_api_bundle_scenario(tmp_path: Path) -> None:
    from oozie import OozieWebService

    home = tmp_path / "home"
    proc = ApiProc(home, tmp_path / "run.log", "--api", "127.0.0.1:0")
    try:
        url = proc.wait_url()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/oozie")
        ws = OozieWebService(url.removesuffix("/oozie"))

        assert _json(ws.version.oozie_versions()) == [0, 1, 2]
        assert _json(ws.admin.status()) == {"systemMode": "NORMAL"}

        start = in_past(2)
        bundle_xml = feeds_bundle(tmp_path, "2099-01-01T00:00Z")
        names = bundle_coordinators(bundle_xml)
        body = conf_xml(
            {
                "user.name": "joe",
                "oozie.bundle.application.path": str(bundle_xml),
                "start": oozie_time(start),
                "end": oozie_time(start + timedelta(hours=4)),
            }
        )
        resp = ws.jobs.submit_job(body)
        assert (resp.code, resp.isok) == (201, True), resp.body
        bid = _json(resp)["id"]
        assert bid.endswith("-B")

        info = _json(ws.job.job_info(bid))
        assert (info["bundleJobId"], info["status"], info["bundleCoordJobs"]) == (bid, "PREP", [])
        assert info["kickoffTime"] == "Thu, 01 Jan 2099 00:00:00 GMT"
        assert info["toString"] == f"Bundle id[{bid}] status[PREP]"

        resp = ws.job.managing_job(bid, "start", xml=b"")
        assert (resp.code, resp.body) == (200, b"")

        def coordinators() -> list[dict[str, Any]] | None:
            coords: list[dict[str, Any]] = _json(ws.job.job_info(bid))["bundleCoordJobs"]
            running = [c for c in coords if c["status"] == "RUNNING"]
            return coords if len(running) == len(names) else None

        coords = wait_until(coordinators, 30, "the bundle's coordinators")
        assert sorted(c["coordJobName"] for c in coords) == sorted(names)
        assert {"ingest", "rollup", "train"} <= set(names)
        assert all(c["coordJobId"].endswith("-C") and c["bundleId"] == bid for c in coords)
        assert _json(ws.job.job_status(bid)) == {"status": "RUNNING"}

        assert ws.job.managing_job(bid, "suspend", xml=b"").code == 200
        assert _json(ws.job.job_status(bid)) == {"status": "SUSPENDED"}
        wait_until(
            lambda: (
                {c["status"] for c in _json(ws.job.job_info(bid))["bundleCoordJobs"]}
                == {"SUSPENDED"}
            ),
            20,
            "the coordinators to follow the suspend",
        )

        assert ws.job.managing_job(bid, "resume", xml=b"").code == 200
        assert _json(ws.job.job_status(bid)) == {"status": "RUNNING"}

        resp = ws.job.change_coordinator_pausetime(bid, "2099-06-01T00:00Z")
        assert (resp.code, resp.body) == (200, b""), resp.headers
        assert _json(ws.job.job_info(bid))["pauseTime"] == "Mon, 01 Jun 2099 00:00:00 GMT"
        wait_until(
            lambda: (
                {c["pauseTime"] for c in _json(ws.job.job_info(bid))["bundleCoordJobs"]}
                == {"Mon, 01 Jun 2099 00:00:00 GMT"}
            ),
            20,
            "the pause time to reach the coordinators",
        )
        bad = ws.job.change_coordinator_pausetime(bid, "2001-01-01T00:00Z")
        assert (bad.code, bad.isok, bad.headers["oozie-error-code"]) == (400, False, "E1317")

        assert ws.job.managing_job(bid, "kill", xml=b"").code == 200
        # the kill reaches the coordinators through the engine (the bundle's status may show
        # RUNNING until they are: bundles.kill_tx rolls up from children still pending)
        wait_until(
            lambda: (
                (info := _json(ws.job.job_info(bid)))["status"] == "KILLED"
                and {c["status"] for c in info["bundleCoordJobs"]} == {"KILLED"}
            ),
            30,
            "the bundle and its coordinators KILLED",
        )

        listing = _json(ws.jobs.info("bundle"))
        assert set(listing) == {"bundlejobs", "total", "offset", "len"}
        assert (listing["total"], listing["offset"], listing["len"]) == (1, 1, 50)
        assert [(b["bundleJobId"], b["status"]) for b in listing["bundlejobs"]] == [(bid, "KILLED")]

        from oozie.oozie import Jobs

        flt = Jobs.Filters()
        flt.status, flt.len = "KILLED", 10
        coords_listing = _json(ws.jobs.info("coordinator", flt))
        assert coords_listing["total"] == len(names) and coords_listing["len"] == 10
        assert {c["bundleId"] for c in coords_listing["coordinatorjobs"]} == {bid}

        definition = ws.job.job_definition(bid)
        assert definition.code == 200 and b"<bundle-app" in definition.body
        log = ws.job.job_log(bid)
        assert log.code == 200 and f"JOB[{bid}] ACTION[-] suspend ok".encode() in log.body

        missing = ws.job.job_info(UNKNOWN_B)
        assert (missing.code, missing.isok) == (400, False)
        assert missing.headers["oozie-error-code"] == "E0604"
        assert missing.headers["oozie-error-message"] == f"E0604: Job does not exist [{UNKNOWN_B}]"
    finally:
        assert proc.stop() == 0, proc.log()
    assert "Traceback" not in proc.log(), proc.log()


# ----------------------------------------------------------------------------- pyoozie


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


def test_pyoozie_coordinator_path(live: Live, session: requests.Session) -> None:
    pyoozie = _pyoozie()
    seen: list[str] = []
    session.hooks["response"].append(lambda r, *a, **k: seen.append(f"{r.request.method} {r.url}"))
    client = pyoozie.OozieClient(url=live.root, user="joe", session=session, verbose=False)

    assert client.admin_status() == {"systemMode": "NORMAL"}
    start = in_past(3)
    drop_partition(live.landing, start)
    coord = client.jobs_submit_coordinator(
        str(FEEDS / "ingest" / "coordinator.xml"),
        configuration={
            "start": oozie_time(start),
            "end": oozie_time(start + timedelta(hours=3)),
            "landing": str(live.landing),
        },
    )
    cid = coord.coordJobId
    assert cid.endswith("-C") and coord.coordJobName == "ingest"
    assert seen[0].endswith("/oozie/versions") and all("/oozie/v2/" in s for s in seen[1:])

    def first_action() -> Any:
        try:  # E0605 until the engine has materialized it
            action = client.job_coordinator_action(coordinator_id=f"{cid}@1")
        except pyoozie.exceptions.OozieArtifactNotFoundException as err:
            assert "E0605: Action does not exist" in str(err.caused_by)
            return None
        return action if str(action.status) == "SUCCEEDED" else None

    action = wait_until(first_action, 60, "action 1 to run its workflow")
    assert action.actionNumber == 1 and action.coordJobId == cid
    assert action.nominalTime.strftime("%Y-%m-%dT%H:%MZ") == oozie_time(start)

    wf = client.job_workflow_info(workflow_id=action.externalId)
    assert str(wf.status) == "SUCCEEDED" and wf.parentId == f"{cid}@1"
    statuses = {name: str(a.status) for name, a in wf.actions.items()}
    assert (statuses["count"], statuses["done"]) == ("OK", "OK"), statuses

    info = client.job_coordinator_info(coordinator_id=cid)  # len=1 for the total, then all
    assert sorted(info.actions) == [1, 2, 3]
    assert str(info.actions[2].status) == "WAITING"
    active = client.job_coordinator_all_active_actions(coordinator_id=cid)
    assert sorted(a.actionNumber for a in active) == [2, 3]
    assert client.job_last_coordinator_info(coordinator_id=cid).actions.keys() == {3}

    assert {c.coordJobId for c in client.jobs_all_coordinators(user="joe")} == {cid}
    assert client.jobs_coordinator_names(user="joe") == {"ingest"}
    assert [c.coordJobId for c in client.jobs_all_active_coordinators(user="joe")] == [cid]

    assert client.job_coordinator_suspend(coordinator_id=cid) is True
    assert str(client.job_coordinator_info(coordinator_id=cid).status) == "SUSPENDED"
    assert client.job_coordinator_suspend(coordinator_id=cid) is False  # not suspendable now
    assert client.job_coordinator_resume(coordinator_id=cid) is True
    assert str(client.job_coordinator_info(coordinator_id=cid).status) == "RUNNING"

    # an action: kill it (type=action&scope=2), then rerun it (coord-rerun, refresh=true)
    assert client.job_coordinator_kill(coordinator_id=f"{cid}@2") is True
    assert str(client.job_coordinator_action(coordinator_id=f"{cid}@2").status) == "KILLED"
    assert client.job_coordinator_rerun(f"{cid}@2") is True
    assert str(client.job_coordinator_action(coordinator_id=f"{cid}@2").status) == "WAITING"
    assert any("action=coord-rerun&type=action&scope=2&refresh=true" in s for s in seen)

    assert client.job_coordinator_kill(coordinator_id=cid) is True
    assert str(client.job_coordinator_info(coordinator_id=cid).status) == "KILLED"

    with pytest.raises(pyoozie.exceptions.OozieArtifactNotFoundException) as err:
        client.job_coordinator_info(coordinator_id=UNKNOWN_C)
    assert str(err.value.caused_by) == f"E0604: Job does not exist [{UNKNOWN_C}]"


def test_pyoozie_workflow_path(live: Live, tmp_path: Path, session: requests.Session) -> None:
    """The naive-Bayes DAG submitted and started by pyoozie (POST jobs?action=start)."""
    pyoozie = _pyoozie()
    client = pyoozie.OozieClient(url=live.url, user="joe", session=session, verbose=False)
    out = tmp_path / "nb-out"
    wf = client.jobs_submit_workflow(
        str(FEEDS.parent / "naive-bayes"), configuration={"outputDir": str(out)}, start=True
    )
    assert wf.id.endswith("-W") and wf.appName == "naive-bayes"
    done = wait_until(
        lambda: (
            (w := client.job_workflow_info(workflow_id=wf.id)) and str(w.status) != "RUNNING" and w
        ),
        60,
        "the naive-Bayes workflow",
    )
    assert str(done.status) == "SUCCEEDED"
    assert set(done.actions) == {"extract", "class-prior", "cond-prob", "predict"}
    assert (out / "features.tsv").exists()
    assert [w.id for w in client.jobs_all_workflows(user="joe")] == [wf.id]
    assert client.jobs_workflow_names() == {"naive-bayes"}
    assert client.job_workflow_suspend(workflow_id=wf.id) is False  # finished: not suspendable
