"""Every endpoint over real HTTP (httpx against the server on a loopback port): replies, Oozie's
defaults, error statuses and headers, and the tolerance real clients need (§6 of
oozie-rest-clients.md): raw or encoded filters, bodiless PUTs of any content type, XML with or
without a declaration."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bundletui.api import logs as api_logs
from bundletui.store.db import Store
from tests.api.conftest import (
    BUNDLETUI,
    FEEDS,
    NAIVE_BAYES,
    Live,
    bundle_coordinators,
    conf_xml,
    feeds_bundle,
    in_past,
    oozie_time,
    start_live,
    wait_until,
)
from tests.cli import bundletui as cli_bundletui

XML = {"Content-Type": "application/xml;charset=UTF-8"}


@pytest.fixture
def http(bare: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=bare.url + "/", timeout=30) as client:
        yield client


@pytest.fixture
def lhttp(live: Live) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.url + "/", timeout=30) as client:
        yield client


def oozie_error(r: httpx.Response, status: int, code: str) -> str:
    """Assert Oozie's error reply; the message header."""
    assert r.status_code == status, r.text
    assert r.headers["oozie-error-code"] == code, r.headers
    message = r.headers["oozie-error-message"]
    assert message.startswith(f"{code}: ")
    body = r.json()
    assert (body["code"], body["status"]) == (code, status)
    assert message == f"{code}: {' '.join(body['message'].split())}"
    return message


def coord_conf(live: Live, hours: int = 6, **extra: str) -> dict[str, str]:
    start = in_past(hours)
    return {
        "user.name": "joe",
        "oozie.coord.application.path": str(FEEDS / "ingest" / "coordinator.xml"),
        "start": oozie_time(start),
        "end": oozie_time(start + timedelta(hours=hours)),
        "landing": str(live.landing),
        **extra,
    }


def submit(client: httpx.Client, props: dict[str, str], action: str | None = None) -> str:
    r = client.post(
        "v2/jobs",
        params={"action": action} if action else None,
        content=conf_xml(props),
        headers=XML,
    )
    assert r.status_code == 201, r.text
    job_id: str = r.json()["id"]
    return job_id


def wf_conf(tmp: Path, **extra: str) -> dict[str, str]:
    return {
        "user.name": "joe",
        "oozie.wf.application.path": str(NAIVE_BAYES),
        "outputDir": str(tmp / "nb"),
        **extra,
    }


# ----------------------------------------------------------------------------- basics


def test_versions_admin_and_openapi(http: httpx.Client) -> None:
    r = http.get("versions")
    assert (r.status_code, r.text) == (200, "[0,1,2]")  # compact, as Oozie writes it (README)
    assert r.headers["content-type"] == "application/json;charset=UTF-8"
    for version in ("v1", "v2"):
        assert http.get(f"{version}/admin/status").json() == {"systemMode": "NORMAL"}
    assert http.get("v1/admin/build-version").json()["buildVersion"].startswith("bundletui-")
    oozie_error(http.get("v2/admin/metrics"), 400, "E0301")
    doc = http.get("openapi.json").json()
    assert doc["openapi"].startswith("3.")
    assert {"/oozie/versions", "/oozie/{version}/jobs", "/oozie/{version}/job/{job_id}"} <= set(
        doc["paths"]
    )
    # every operation lists the Host check's 403; those of the API's own paths its 405 too
    operations = [
        (path, op)
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
        if method in ("get", "put", "post")
    ]
    assert all("403" in op["responses"] for _path, op in operations)
    assert all("405" in op["responses"] for path, op in operations if "{version}" in path)
    assert http.delete("v2/job/x-W").status_code == 405


def test_unknown_urls_and_methods(http: httpx.Client) -> None:
    oozie_error(http.get("v1/nothing"), 404, "E0301")
    oozie_error(http.get("v9/jobs"), 404, "E0301")
    oozie_error(http.get("/elsewhere"), 404, "E0301")
    r = http.delete("v2/job/0000001-000000000000000-bundletui-x-C")
    oozie_error(r, 405, "E0301")
    assert set(r.headers["allow"].replace(" ", "").split(",")) >= {"GET", "PUT"}


def test_head_is_a_get_without_a_body_and_changes_nothing(
    http: httpx.Client, bare: Live, tmp_path: Path
) -> None:
    """HEAD needs no CORS preflight, so a web page could send one to the loopback API: it must
    answer as GET does, never run a PUT's action."""
    wf = submit(http, wf_conf(tmp_path))
    for url, params in [
        (f"v2/job/{wf}", {"action": "kill"}),
        ("v2/admin/status", {"systemmode": "NOWEBSERVICE"}),
        ("v2/jobs", {"jobtype": "wf", "action": "kill", "filter": "status=PREP"}),
        (f"v2/job/{wf}", {}),
        ("v2/jobs", {"jobtype": "wf"}),
        ("v2/job/0000009-000000000000000-bundletui-x-W", {}),
    ]:
        head, get = http.head(url, params=params), http.get(url, params=params)
        assert (head.status_code, head.content) == (get.status_code, b""), (url, params)
        assert head.headers.get("oozie-error-code") == get.headers.get("oozie-error-code")
        assert int(head.headers["content-length"]) == len(get.content)
    assert http.get(f"v2/job/{wf}", params={"show": "status"}).json() == {"status": "PREP"}
    assert http.get("v2/admin/status").json() == {"systemMode": "NORMAL"}


def test_a_user_name_cannot_forge_audit_log_lines(
    http: httpx.Client, bare: Live, tmp_path: Path
) -> None:
    """The audit log is read as one line per command (tools grep ``JOB[<id>]``): a newline or a tab
    in a client's user name is shown escaped, through the API and the command line."""
    forged = "evil\n2026-11-22 00:00:00,000 INFO  api - USER[admin] forged\tx"
    wf = submit(http, wf_conf(tmp_path, **{"user.name": forged}))
    assert http.put(f"v2/job/{wf}", params={"action": "kill"}).status_code == 200
    expected = "USER[evil\\n2026-11-22 00:00:00,000 INFO  api - USER[admin] forged\\tx]"
    for log in (
        http.get(f"v2/job/{wf}", params={"show": "auditlog"}).text,
        cli_bundletui("oozie", "job", "-auditlog", wf, home=bare.home).stdout,
    ):
        lines = log.splitlines()
        assert [line.split(" - ")[0][-9:] for line in lines] == ["INFO  api", "INFO  api"], log
        assert expected in lines[0] and lines[1].endswith("kill ok"), log
        assert "\t" not in log


def test_system_mode(http: httpx.Client, bare: Live) -> None:
    job_id = submit(http, coord_conf(bare))
    oozie_error(http.put("v1/admin/status"), 400, "E0305")
    oozie_error(http.put("v1/admin/status", params={"systemmode": "PANIC"}), 400, "E0303")
    assert http.put("v1/admin/status", params={"systemmode": "SAFEMODE"}).status_code == 200
    assert http.get("v2/admin/status").json() == {"systemMode": "SAFEMODE"}
    oozie_error(http.put(f"v2/job/{job_id}", params={"action": "suspend"}), 503, "E0002")
    bulk = {"action": "suspend", "jobtype": "coordinator", "filter": "status=RUNNING"}
    oozie_error(http.put("v2/jobs", params=bulk), 503, "E0002")  # not an empty list
    oozie_error(http.post("v2/jobs", content=conf_xml(coord_conf(bare)), headers=XML), 503, "E0002")
    assert http.get(f"v2/job/{job_id}").status_code == 200  # reads still work
    assert http.put("v1/admin/status", params={"systemmode": "NOWEBSERVICE"}).status_code == 200
    off = http.get(f"v2/job/{job_id}")
    oozie_error(off, 503, "E0002")  # Oozie's "System is in safe mode"; the hint says which
    assert off.json()["hint"].startswith("the system mode is NOWEBSERVICE: "), off.json()
    assert http.put("v2/admin/status", params={"systemmode": "normal"}).status_code == 200
    assert http.put(f"v2/job/{job_id}", params={"action": "suspend"}).status_code == 200


def test_the_system_mode_is_the_stores_shared_with_the_command_line(
    http: httpx.Client, bare: Live
) -> None:
    """SAFEMODE set through the API holds for the CLI of another process, and the other way
    round: the mode is in the store, not in the API's memory."""
    job_id = submit(http, coord_conf(bare))

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [BUNDLETUI, *args, "--home", str(bare.home)],
            capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    assert http.put("v1/admin/status", params={"systemmode": "SAFEMODE"}).status_code == 200
    assert cli("oozie", "admin", "-status").stdout == "System mode: SAFEMODE\n"
    refused = cli("kill", job_id)
    assert refused.returncode == 1 and "E0002" in refused.stderr, refused
    assert http.get(f"v2/job/{job_id}").json()["status"] != "KILLED"
    assert cli("oozie", "admin", "-systemmode", "NORMAL").stdout == "System mode: NORMAL\n"
    assert http.get("v2/admin/status").json() == {"systemMode": "NORMAL"}
    assert cli("kill", job_id).returncode == 0
    assert cli("oozie", "admin", "-systemmode", "NOWEBSERVICE").returncode == 0
    oozie_error(http.get(f"v2/job/{job_id}"), 503, "E0002")
    assert http.put("v2/admin/status", params={"systemmode": "NORMAL"}).status_code == 200
    assert http.get(f"v2/job/{job_id}").json()["status"] == "KILLED"


# ----------------------------------------------------------------------------- submit


@pytest.mark.parametrize(
    ("declaration", "content_type"),
    [
        ('"', "application/xml;charset=UTF-8"),
        ("'", "application/xml"),
        (None, "text/xml; charset=utf-8"),
    ],
)
def test_submit_tolerates_declarations_and_content_types(
    http: httpx.Client, bare: Live, declaration: str | None, content_type: str | None
) -> None:
    body = conf_xml(coord_conf(bare), declaration=declaration, indent=declaration is not None)
    headers = {"Content-Type": content_type} if content_type else {}
    r = http.post("v1/jobs", content=body, headers=headers)
    assert r.status_code == 201, r.text
    assert r.headers["content-type"] == "application/json;charset=UTF-8"
    coord = http.get(f"v1/job/{r.json()['id']}").json()
    assert (coord["coordJobName"], coord["status"], coord["user"]) == ("ingest", "PREP", "joe")
    assert coord["toString"] == f"Coordinator application id[{coord['coordJobId']}] status[PREP]"


def test_submit_errors(http: httpx.Client, bare: Live, tmp_path: Path) -> None:
    conf = coord_conf(bare)
    for content_type in (None, "text/plain"):  # Oozie's validateContentType: XML only
        headers = {"Content-Type": content_type} if content_type else {}
        oozie_error(http.post("v2/jobs", content=conf_xml(conf), headers=headers), 400, "E0300")
    oozie_error(
        http.post("v2/jobs", params={"action": "run"}, content=conf_xml(conf), headers=XML),
        400,
        "E0303",
    )
    oozie_error(
        http.post(
            "v2/jobs", json={"user.name": "joe"}, headers={"Content-Type": "application/json"}
        ),
        400,
        "E0300",
    )
    empty = oozie_error(http.post("v2/jobs", content=b"", headers=XML), 400, "E0701")
    assert "the request body is empty" in empty
    oozie_error(
        http.post("v2/jobs", content=b"<configuration><property>", headers=XML), 400, "E0701"
    )
    no_app = oozie_error(
        http.post("v2/jobs", content=conf_xml({"user.name": "joe"}), headers=XML), 400, "E0405"
    )
    assert "doesn't have any application or lib path" in no_app
    missing = {**conf, "oozie.coord.application.path": str(tmp_path / "nowhere.xml")}
    oozie_error(http.post("v2/jobs", content=conf_xml(missing), headers=XML), 400, "E1001")
    unresolved = {k: v for k, v in conf.items() if k != "start"}
    message = oozie_error(
        http.post("v2/jobs", content=conf_xml(unresolved), headers=XML), 400, "E1004"
    )
    assert "start" in message
    oozie_error(
        http.post("v2/jobs", params={"jobtype": "pig"}, content=conf_xml(conf), headers=XML),
        400,
        "E0303",
    )
    # an error in a submitted file says where, as the CLI does (QA: the API dropped it)
    broken = tmp_path / "broken.xml"
    broken.write_text("<coordinator-app>\n<oops>\n")
    bad_file = {**conf, "oozie.coord.application.path": str(broken)}
    r = http.post("v2/jobs", content=conf_xml(bad_file), headers=XML)
    message = oozie_error(r, 400, "E0701")
    assert str(broken) in message and (r.json()["file"], r.json()["line"]) == (str(broken), 3)
    huge = b"<configuration>" + b" " * (5 * 1024 * 1024) + b"</configuration>"
    oozie_error(http.post("v2/jobs", content=huge, headers=XML), 413, "EB0703")
    # nothing was stored by any of them
    assert http.get("v2/jobs", params={"jobtype": "coordinator"}).json()["total"] == 0


def test_dryrun_stores_nothing(http: httpx.Client, bare: Live, tmp_path: Path) -> None:
    r = http.post(
        "v2/jobs", params={"action": "dryrun"}, content=conf_xml(coord_conf(bare)), headers=XML
    )
    assert r.status_code == 201, r.text
    text = r.json()["id"]
    assert text.startswith("***coordJob after parsing: ***\n<?xml")
    assert "***total coord actions is 1 ***" in text and "coordAction instance: 1:" in text
    actions = r.json()["coordinators"][0]["actions"]
    assert actions[0]["number"] == 1 and actions[0]["missing_dependencies"]
    wf = http.post(
        "v2/jobs", params={"action": "dryrun"}, content=conf_xml(wf_conf(tmp_path)), headers=XML
    )
    assert (wf.status_code, wf.json()) == (201, {"id": "OK"})
    bundle_xml = feeds_bundle(tmp_path)
    bundle = conf_xml(
        {**coord_conf(bare), "oozie.bundle.application.path": str(bundle_xml)}
        | {"oozie.coord.application.path": ""}
    )
    b = http.post("v2/jobs", params={"action": "dryrun"}, content=bundle, headers=XML)
    assert b.status_code == 201, b.text
    assert "<bundle-app" in b.json()["id"]
    assert [c["name"] for c in b.json()["coordinators"]] == bundle_coordinators(bundle_xml)
    for kind in ("wf", "coordinator", "bundle"):
        assert http.get("v2/jobs", params={"jobtype": kind}).json()["total"] == 0


# ----------------------------------------------------------------------------- listings


def test_listings_envelopes_defaults_and_filters(
    http: httpx.Client, bare: Live, tmp_path: Path
) -> None:
    coords = [submit(http, coord_conf(bare)) for _ in range(3)]
    other = submit(http, coord_conf(bare, **{"user.name": "ann"}))
    wf = submit(http, wf_conf(tmp_path))
    bundle = submit(
        http,
        {
            **coord_conf(bare),
            "oozie.coord.application.path": "",
            "oozie.bundle.application.path": str(feeds_bundle(tmp_path, "2099-01-01T00:00Z")),
        },
    )

    listing = http.get("v1/jobs", params={"jobtype": "coordinator"}).json()
    assert set(listing) == {"coordinatorjobs", "total", "offset", "len"}
    assert (listing["total"], listing["offset"], listing["len"]) == (4, 1, 50)
    assert [c["coordJobId"] for c in listing["coordinatorjobs"]] == [other, *reversed(coords)]
    assert all(c["actions"] == [] for c in listing["coordinatorjobs"])
    assert http.get("v2/jobs").json()["workflows"][0]["id"] == wf  # jobtype defaults to wf
    assert (
        http.get("v2/jobs", params={"jobtype": "bundle"}).json()["bundlejobs"][0]["bundleJobId"]
        == bundle
    )

    page = http.get("v2/jobs", params={"jobtype": "coordinator", "offset": "2", "len": "2"}).json()
    assert [c["coordJobId"] for c in page["coordinatorjobs"]] == [coords[2], coords[1]]
    assert (page["offset"], page["len"], page["total"]) == (2, 2, 4)
    fixed = http.get("v2/jobs", params={"jobtype": "coordinator", "offset": "0", "len": "0"}).json()
    assert (fixed["offset"], fixed["len"]) == (1, 50)

    raw = http.get("v2/jobs?jobtype=coordinator&filter=user=joe;status=PREP;status=RUNNING;").json()
    encoded = http.get(
        "v2/jobs?jobtype=coordinator&filter=user%3Djoe%3Bstatus%3DPREP%3Bstatus%3DRUNNING%3B"
    ).json()
    assert raw == encoded and raw["total"] == 3
    assert http.get("v2/jobs?jobtype=coordinator&filter=").json()["total"] == 4
    assert http.get("v1/jobs?jobtype=coordinator&filter=name=ingest;user=ann").json()["total"] == 1
    # pyoozie's "active" filter names PREMATER, which no job ever has
    active = "status=PREMATER;status=PREP;user=ann"
    assert http.get(f"v2/jobs?jobtype=coordinator&filter={active}").json()["total"] == 1
    assert http.get("v2/jobs?jobtype=coordinator&filter=status=PREMATER").json()["total"] == 0

    # QA: a value said over and over (a script's loop) was an OR chain too deep for SQLite:
    # 503 "store busy", which tells a client to retry; one value is one term now
    many = ";".join(["status=PREP"] * 1200)
    assert http.get(f"v2/jobs?jobtype=coordinator&filter={many}").json()["total"] == 4
    names = ";".join(f"name=n{i}" for i in range(501))
    too_many = http.get(f"v2/jobs?jobtype=coordinator&filter={names}")
    oozie_error(too_many, 400, "E0420")
    assert "more than 500 distinct" in too_many.json()["message"]
    oozie_error(http.get("v2/jobs?jobtype=coordinator&filter=color=red"), 400, "E0420")
    oozie_error(http.get("v2/jobs?jobtype=coordinator&filter=status=HAPPY"), 400, "E0420")
    oozie_error(http.get("v2/jobs?jobtype=pipelines"), 400, "E0303")
    oozie_error(http.get("v2/jobs?jobtype=wf&len=ten"), 400, "E0304")


def test_a_scope_where_none_applies_is_refused_not_dropped(
    http: httpx.Client, tmp_path: Path
) -> None:
    """QA (t): ``POST /jobs?action=start&type=action&scope=1`` started the whole job, and a
    workflow's or a bundle's ``rerun`` with a ``type``/``scope`` reran all of it; the CLI
    refuses the same (-action is not valid there)."""
    conf = wf_conf(tmp_path)
    for action in ("start", "dryrun"):
        r = http.post(
            f"v2/jobs?action={action}&type=action&scope=1", content=conf_xml(conf), headers=XML
        )
        oozie_error(r, 400, "E0302")
        assert "a submission takes no action scope" in r.json()["message"]
    assert http.get("v2/jobs").json()["total"] == 0  # nothing submitted
    wf = submit(http, conf)
    failnodes = conf_xml({"oozie.wf.rerun.failnodes": "true"})
    r = http.put(f"v2/job/{wf}?action=rerun&type=action&scope=1", content=failnodes, headers=XML)
    oozie_error(r, 400, "E0302")
    assert "a workflow's rerun takes no action scope" in r.json()["message"]


def test_external_id_lookup(http: httpx.Client, tmp_path: Path) -> None:
    wf = submit(http, wf_conf(tmp_path, **{"oozie.wf.external.id": "nightly-42"}))
    assert http.get("v1/jobs", params={"external-id": "nightly-42"}).json() == {"id": wf}
    assert http.get("v2/jobs", params={"external-id": "nope"}).json() == {"id": ""}
    # the same external id again is the same job (idempotent submission)
    first = http.post("v2/jobs", content=conf_xml(wf_conf(tmp_path)), headers=XML).json()
    assert "note" not in first  # a plain submission answers only its id
    again = wf_conf(tmp_path, **{"oozie.wf.external.id": "nightly-42"})
    r = http.post("v2/jobs", content=conf_xml(again), headers=XML)
    assert r.status_code == 201 and r.json()["id"] == wf
    # and the reply says so, as the CLI does (QA: a reused key answered silently)
    assert r.json()["note"].startswith(f"external id nightly-42 names {wf} ("), r.json()
    assert "nothing new is stored" in r.json()["note"]


# ----------------------------------------------------------------------------- job info


def test_unknown_ids(http: httpx.Client) -> None:
    base = "0000099-000000000000000-bundletui-joe"
    for suffix in ("B", "C", "W"):
        message = oozie_error(http.get(f"v2/job/{base}-{suffix}"), 400, "E0604")
        assert message == f"E0604: Job does not exist [{base}-{suffix}]"
    oozie_error(http.get(f"v1/job/{base}-C@1"), 400, "E0605")
    oozie_error(http.get(f"v1/job/{base}-W@extract"), 400, "E0605")
    oozie_error(http.get("v1/job/not-a-job-id"), 400, "E0604")
    oozie_error(http.put(f"v1/job/{base}-B", params={"action": "kill"}), 400, "E0604")
    oozie_error(http.get(f"v1/job/{base}-B", params={"show": "status"}), 400, "E0604")
    r = http.get("v1/job/caf%C3%A9%0A-C")  # a non-ASCII id with a newline: one header line
    assert r.status_code == 400 and "\n" not in r.headers["oozie-error-message"]
    assert r.json()["message"] == "Job does not exist [café\n-C]"  # the body keeps it exact
    r = http.get("v1/job/%00%7F-B")  # control characters never reach a header (found by fuzzing)
    assert r.headers["oozie-error-message"] == "E0604: Job does not exist [ -B]"


def test_coordinator_action_pages(lhttp: httpx.Client, live: Live) -> None:
    cid = submit(lhttp, coord_conf(live, hours=6))
    wait_until(lambda: lhttp.get(f"v2/job/{cid}").json()["total"] == 6, 30, "six actions")

    v1 = lhttp.get(f"v1/job/{cid}").json()  # no show = info; v1 lists up to 1000 actions
    assert [a["actionNumber"] for a in v1["actions"]] == [1, 2, 3, 4, 5, 6]
    a1 = v1["actions"][0]
    assert a1["id"] == f"{cid}@1" and a1["coordJobId"] == cid and a1["status"] == "WAITING"
    assert a1["toString"] == f"CoordinatorAction name[{cid}@1] status[WAITING]"
    assert a1["missingDependencies"].endswith("/_SUCCESS")
    assert a1["nominalTime"].endswith(" GMT") and a1["nominalTime"][:3] in (
        "Mon",
        "Tue",
        "Wed",
        "Thu",
        "Fri",
        "Sat",
        "Sun",
    )
    v2 = lhttp.get(f"v2/job/{cid}", params={"show": "info"}).json()
    assert (v2["actions"], v2["total"]) == ([], 6)  # v2: no actions unless len is given
    assert lhttp.get(f"v1/job/{cid}", params={"len": "0"}).json()["actions"] == v1["actions"]
    assert lhttp.get(f"v2/job/{cid}", params={"len": "-1"}).json()["actions"] == []

    page = lhttp.get(f"v2/job/{cid}?order=desc&offset=2&len=2").json()
    assert [a["actionNumber"] for a in page["actions"]] == [5, 4] and page["total"] == 6
    raw = lhttp.get(f"v2/job/{cid}?offset=1&len=10&filter=status=WAITING;status=READY").json()
    enc = lhttp.get(f"v2/job/{cid}?offset=1&len=10&filter=status%3DWAITING%3Bstatus%3DREADY").json()
    assert raw["total"] == enc["total"] == 6
    third = v1["actions"][2]["nominalTime"]
    nominal = oozie_time(in_past(6) + timedelta(hours=2))
    after = lhttp.get(
        f"v2/job/{cid}", params={"len": "10", "filter": f"nominaltime>={nominal}"}
    ).json()
    assert after["total"] == 4 and after["actions"][0]["nominalTime"] == third
    oozie_error(lhttp.get(f"v2/job/{cid}?len=5&filter=status=HAPPY"), 400, "E0421")
    oozie_error(lhttp.get(f"v2/job/{cid}?len=5&order=sideways"), 400, "E0303")
    oozie_error(lhttp.get(f"v2/job/{cid}?show=graph"), 400, "E0303")

    pst = lhttp.get(f"v1/job/{cid}", params={"timezone": "America/Los_Angeles", "len": "1"}).json()
    assert pst["actions"][0]["nominalTime"].endswith(" PST")
    oozie_error(lhttp.get(f"v1/job/{cid}", params={"timezone": "Mars/Olympus"}), 400, "E0303")

    action = lhttp.get(f"v2/job/{cid}@3").json()
    assert (action["id"], action["actionNumber"]) == (f"{cid}@3", 3)
    assert lhttp.get(f"v2/job/{cid}@3", params={"show": "status"}).json() == {"status": "WAITING"}
    definition = lhttp.get(f"v2/job/{cid}", params={"show": "definition"})
    assert definition.headers["content-type"] == "application/xml;charset=UTF-8"
    assert "<coordinator-app" in definition.text


# ----------------------------------------------------------------------------- job controls


def test_reads_go_on_while_writes_wait_for_a_locked_store_which_is_a_503(
    http: httpx.Client, bare: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the store's write lock: writes wait for it (here 2 s, 30 s in
    use) on their own threads, so reads still answer at once (they queued behind the writes
    on four shared threads); a write that gives up is 503 EB006, try again (it was 400)."""
    import sqlite3
    import threading
    import time

    from bundletui.store import db

    cid = submit(http, coord_conf(bare, hours=2))
    monkeypatch.setattr(db, "LOCK_WAIT_MS", 2_000)
    holder = sqlite3.connect(bare.home / "bundletui.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    replies: list[httpx.Response] = []

    def write() -> None:
        with httpx.Client(base_url=bare.url + "/", timeout=30) as client:
            replies.append(client.put(f"v2/job/{cid}?action=suspend"))

    writers = [threading.Thread(target=write) for _ in range(5)]
    for t in writers:
        t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    assert http.get(f"v2/job/{cid}", params={"show": "status"}).json()["status"] == "PREP"
    assert time.monotonic() - t0 < 1.0
    for t in writers:
        t.join(30)
    holder.execute("ROLLBACK")
    holder.close()
    assert [r.status_code for r in replies] == [503] * 5
    assert {r.headers["oozie-error-code"] for r in replies} == {"EB006"}
    assert http.put(f"v2/job/{cid}?action=suspend").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Content-Type": "application/xml"},
        {"Content-Type": "application/x-www-form-urlencoded"},
    ],
)
def test_bodiless_puts_of_any_content_type(
    http: httpx.Client, bare: Live, headers: dict[str, str]
) -> None:
    cid = submit(http, coord_conf(bare))
    for action, status in (("suspend", "PREPSUSPENDED"), ("resume", "PREP"), ("kill", "KILLED")):
        r = http.put(f"v1/job/{cid}", params={"action": action}, headers=headers)
        assert (r.status_code, r.content) == (200, b""), r.text
        assert http.get(f"v2/job/{cid}", params={"show": "status"}).json() == {"status": status}


def test_put_errors(http: httpx.Client, bare: Live) -> None:
    cid = submit(http, coord_conf(bare))
    oozie_error(http.put(f"v2/job/{cid}"), 400, "E0305")
    oozie_error(
        http.put(f"v2/job/{cid}", params={"action": "suspend", "show": "info"}), 400, "E0302"
    )
    oozie_error(http.get(f"v2/job/{cid}", params={"action": "kill"}), 400, "E0302")  # GET
    oozie_error(http.put(f"v2/job/{cid}", params={"action": "explode"}), 400, "E0303")
    oozie_error(http.put(f"v2/job/{cid}", params={"action": "start"}), 400, "E0303")
    oozie_error(http.put(f"v2/job/{cid}", params={"action": "change"}), 400, "E0305")
    oozie_error(
        http.put(f"v2/job/{cid}", params={"action": "change", "value": "color=red"}), 400, "E1015"
    )
    oozie_error(
        http.put(f"v2/job/{cid}", params={"action": "kill", "type": "hour", "scope": "1"}),
        400,
        "E0303",
    )
    oozie_error(
        http.put(f"v2/job/{cid}", params={"action": "kill", "type": "action"}), 400, "E0305"
    )
    # QA: a scope where none applies was dropped: change applied to the whole job
    scoped = http.put(
        f"v2/job/{cid}",
        params={"action": "change", "value": "concurrency=7", "type": "action", "scope": "3"},
    )
    oozie_error(scoped, 400, "E0302")
    assert "action=change takes no action scope" in scoped.json()["message"]
    assert http.get(f"v2/job/{cid}").json()["concurrency"] != 7
    # QA: a read's scope was dropped too: the whole job's info, status or definition came
    for show in ("info", "status", "definition"):
        read = http.get(f"v2/job/{cid}", params={"show": show, "type": "action", "scope": "1"})
        oozie_error(read, 400, "E0302")
        assert f"show={show} takes no action scope" in read.json()["message"]
    oozie_error(
        http.put(
            f"v2/job/{cid}",
            params={"action": "coord-rerun", "type": "action", "scope": "1", "refresh": "maybe"},
        ),
        400,
        "E0303",
    )
    assert (
        http.put(f"v2/job/{cid}", params={"action": "resume"}).status_code == 400
    )  # not suspended
    assert (
        http.put(f"v2/job/{cid}", params={"action": "change", "value": "concurrency=5"}).status_code
        == 200
    )
    assert http.get(f"v2/job/{cid}").json()["concurrency"] == 5


def test_action_scoped_kill_ignore_rerun(lhttp: httpx.Client, live: Live) -> None:
    cid = submit(lhttp, coord_conf(live, hours=3))
    wait_until(lambda: lhttp.get(f"v2/job/{cid}").json()["total"] == 3, 30, "three actions")
    r = lhttp.put(f"v2/job/{cid}?action=kill&type=action&scope=1-2")
    assert r.status_code == 200
    assert [(a["id"], a["status"]) for a in r.json()["actions"]] == [
        (f"{cid}@1", "KILLED"),
        (f"{cid}@2", "KILLED"),
    ]
    # pyoozie's suspend of one action (type=action&scope=n) is that action's workflow, never
    # the whole coordinator: @3 is not running, so it is refused and nothing changes
    for verb in ("suspend", "resume"):
        oozie_error(lhttp.put(f"v2/job/{cid}?action={verb}&type=action&scope=3"), 400, "E1100")
    oozie_error(lhttp.put(f"v2/job/{cid}?action=suspend&type=bogus&scope=3"), 400, "E0303")
    status = lhttp.get(f"v2/job/{cid}", params={"show": "status"}).json()["status"]
    assert status == "RUNNINGWITHERROR"  # @1-2 killed above; not suspended
    log = lhttp.get(f"v2/job/{cid}@3", params={"show": "log"})  # no workflow yet: empty
    assert (log.status_code, log.text) == (200, ""), log.text
    r = lhttp.put(f"v2/job/{cid}?action=ignore&type=action&scope=2", headers=XML)
    assert [(a["actionNumber"], a["status"]) for a in r.json()["actions"]] == [(2, "IGNORED")]
    r = lhttp.put(
        f"v1/job/{cid}?action=coord-rerun&type=action&scope=1&refresh=false&nocleanup=false",
        headers=XML,
        content=conf_xml({"user.name": "joe", "rowLimit": "7"}),  # -config's properties
    )
    assert r.status_code == 200, r.text
    assert [a["actionNumber"] for a in r.json()["actions"]] == [1]
    run_conf = "".join(lhttp.get(f"v2/job/{cid}@1").json()["runConf"].split())
    assert "<name>rowLimit</name><value>7</value>" in run_conf  # laid over it at its launch
    assert "user.name" not in run_conf  # who asked, not a property
    wait_until(
        lambda: (
            lhttp.get(f"v2/job/{cid}@1", params={"show": "status"}).json()["status"] == "WAITING"
        ),
        20,
        "action 1 to wait again",
    )
    dates = lhttp.put(
        f"v2/job/{cid}", params={"action": "kill", "type": "date", "scope": oozie_time(in_past(1))}
    )
    assert [a["actionNumber"] for a in dates.json()["actions"]] == [3]
    log = lhttp.get(f"v2/job/{cid}", params={"show": "auditlog"}).text
    assert "api - USER[" in log and "kill ok" in log and "coord-rerun" not in log


def test_bundle_controls_and_bulk(lhttp: httpx.Client, live: Live, tmp_path: Path) -> None:
    bundle_xml = feeds_bundle(tmp_path)
    names = bundle_coordinators(bundle_xml)
    assert {"ingest", "rollup"} <= set(names)
    start = in_past(2)
    props = {
        "user.name": "joe",
        "oozie.bundle.application.path": str(bundle_xml),
        "start": oozie_time(start),
        "end": oozie_time(start + timedelta(hours=3)),
    }
    bid = submit(lhttp, props, action="start")

    def coords() -> list[dict[str, Any]] | None:
        found: list[dict[str, Any]] = lhttp.get(f"v2/job/{bid}").json()["bundleCoordJobs"]
        ready = len(found) == len(names) and all(c["status"] == "RUNNING" for c in found)
        return found if ready else None

    found = wait_until(coords, 30, "running coordinators")
    # ingest's actions still wait for data: its rerun is refused at once, naming it
    err = oozie_error(
        lhttp.put(f"v2/job/{bid}?action=bundle-rerun&coord-scope=ingest", headers=XML),
        400,
        "E1018",
    )
    assert "[coordinator ingest]" in err, err
    ingest = next(c["coordJobId"] for c in found if c["coordJobName"] == "ingest")
    first = lhttp.get(f"v2/job/{ingest}", params={"len": "1"}).json()["actions"][0]
    killed = lhttp.put(f"v2/job/{ingest}?action=kill&type=action&scope=1", headers=XML)
    assert killed.status_code == 200, killed.text
    when = oozie_time(parsedate_to_datetime(first["nominalTime"]))
    r = lhttp.put(
        f"v2/job/{bid}?action=bundle-rerun&coord-scope=ingest&date-scope={when}"
        "&refresh=false&nocleanup=true",
        headers=XML,
    )
    assert (r.status_code, r.content) == (200, b""), r.text
    wait_until(  # the engine reran @1: no KILLED action left, so no ...WITHERROR status
        lambda: lhttp.get(f"v2/job/{ingest}", params={"len": "0"}).json()["status"] == "RUNNING",
        30,
        "ingest rerun",
    )
    oozie_error(lhttp.put(f"v2/job/{bid}?action=bundle-rerun", headers=XML), 400, "E1018")

    bulk = lhttp.put(
        "v1/jobs?action=suspend&jobtype=coordinator&filter=name%3Dingest%3Bname%3Drollup"
    )
    assert bulk.status_code == 200, bulk.text
    suspended = bulk.json()
    assert suspended["total"] == 2
    assert sorted(c["coordJobName"] for c in suspended["coordinatorjobs"]) == ["ingest", "rollup"]
    assert {c["status"] for c in suspended["coordinatorjobs"]} == {"SUSPENDED"}
    again = lhttp.put("v1/jobs?action=suspend&jobtype=coordinator&filter=name=ingest").json()
    assert again["total"] == 0  # already suspended: skipped, as Oozie's bulk commands do
    oozie_error(lhttp.put("v1/jobs?action=start&jobtype=coordinator"), 400, "E0303")
    oozie_error(lhttp.put("v1/jobs?jobtype=coordinator"), 400, "E0305")
    oozie_error(lhttp.put("v1/jobs?action=kill&jobtype=coordinator"), 400, "E0305")  # no filter
    for empty in (";", " ;", "name=", "text=;"):  # clauses selecting nothing select every job
        put = lhttp.put(
            "v1/jobs", params={"action": "kill", "jobtype": "coordinator", "filter": empty}
        )
        oozie_error(put, 400, "E0305")
    listed = lhttp.get("v2/jobs?jobtype=coordinator").json()["coordinatorjobs"]
    assert "KILLED" not in {c["status"] for c in listed}

    dry = lhttp.put(f"v2/job/{bid}?action=dryrun")
    assert dry.status_code == 200 and "<bundle-app" in dry.json()["id"]


def test_workflow_log_definition_and_rerun(lhttp: httpx.Client, live: Live, tmp_path: Path) -> None:
    wf = submit(lhttp, wf_conf(tmp_path), action="start")
    done = wait_until(
        lambda: (d := lhttp.get(f"v2/job/{wf}").json())["status"] != "RUNNING" and d, 60, "the DAG"
    )
    assert done["status"] == "SUCCEEDED" and done["run"] == 0
    assert {a["name"]: a["status"] for a in done["actions"]} == dict.fromkeys(
        ("extract", "class-prior", "cond-prob", "predict"), "OK"
    )
    names = [a["name"] for a in done["actions"]]
    paged = lhttp.get(f"v2/job/{wf}", params={"offset": "2", "len": "2"}).json()["actions"]
    assert [a["name"] for a in paged] == names[1:3]  # a workflow's actions are paged too
    node = lhttp.get(f"v2/job/{wf}@predict").json()
    assert (node["id"], node["name"], node["toString"]) == (
        f"{wf}@predict",
        "predict",
        "Action name[predict] status[OK]",
    )
    log = lhttp.get(f"v1/job/{wf}", params={"show": "log"})
    assert log.headers["content-type"] == "text/plain; charset=utf-8" or log.headers[
        "content-type"
    ].startswith("text/plain")
    assert "── extract (OK" in log.text or "── extract" in log.text
    assert lhttp.get(f"v2/job/{wf}@extract", params={"show": "log"}).status_code == 200
    assert "<dag-app" in lhttp.get(f"v2/job/{wf}", params={"show": "definition"}).text

    # neither skip nor fail nodes: refused, as Oozie's DagEngine does (it would run all again)
    message = oozie_error(lhttp.put(f"v1/job/{wf}?action=rerun", headers=XML), 400, "E0401")
    assert "oozie.wf.rerun.skip.nodes OR oozie.wf.rerun.failnodes" in message
    both = {"oozie.wf.rerun.skip.nodes": "extract", "oozie.wf.rerun.failnodes": "false"}
    oozie_error(
        lhttp.put(f"v1/job/{wf}?action=rerun", content=conf_xml(both), headers=XML), 400, "E0404"
    )
    assert lhttp.get(f"v2/job/{wf}").json()["run"] == 0
    rerun_conf = conf_xml(
        {"user.name": "joe", "oozie.wf.rerun.skip.nodes": "extract,class-prior,cond-prob"}
    )
    r = lhttp.put(f"v1/job/{wf}?action=rerun", content=rerun_conf, headers=XML)
    assert (r.status_code, r.content) == (200, b""), r.text
    again = wait_until(
        lambda: (
            (d := lhttp.get(f"v2/job/{wf}").json())["run"] == 1 and d["status"] == "SUCCEEDED" and d
        ),
        60,
        "the rerun",
    )
    assert again["id"] == wf
    # skip.nodes empty, as XML can only say it (<value></value>): every node, not E0401
    # (QA (ad): a regression of reading an empty <value> as unset, right for a submission)
    every = conf_xml({"oozie.wf.rerun.skip.nodes": ""})
    assert b"<value></value>" in every
    r = lhttp.put(f"v1/job/{wf}?action=rerun", content=every, headers=XML)
    assert r.status_code == 200, r.text
    wait_until(lambda: lhttp.get(f"v2/job/{wf}").json()["run"] == 2, 60, "every node again")
    oozie_error(lhttp.put(f"v1/job/{wf}?action=ignore"), 400, "E0302")


def test_an_oozie_workflows_actions_are_the_nodes_its_run_entered(
    lhttp: httpx.Client, live: Live, tmp_path: Path
) -> None:
    """Oozie has an action row only for a node its run reached: the path a decision did not
    take is not listed (it was, as ``OK``)."""
    app = NAIVE_BAYES.parent / "oozie-wf"
    props = {"user.name": "joe", "oozie.wf.application.path": str(app)}
    wf = submit(lhttp, {**props, "outputDir": str(tmp_path), "inputName": "empty.txt"}, "start")
    done = wait_until(
        lambda: (d := lhttp.get(f"v2/job/{wf}").json())["status"] == "KILLED" and d, 60, "the run"
    )
    assert [(a["name"], a["status"]) for a in done["actions"]] == [
        (":start:", "OK"),  # Oozie's first action row (QA (n))
        ("check", "OK"),
        ("has-rows", "OK"),
        ("empty-input", "OK"),
    ]


# ----------------------------------------------------------------------------- auth


def test_bearer_token(tmp_path: Path) -> None:
    server = start_live(tmp_path, engine=False, token="s3cret")
    try:
        with httpx.Client(base_url=server.url + "/") as client:
            for headers in (
                {},
                {"Authorization": "Bearer wrong"},
                {"Authorization": "Basic czNjcmV0"},
            ):
                r = client.get("versions", headers=headers)
                message = oozie_error(r, 401, "E0500")
                assert message.startswith("E0500: Not authorized")
                assert r.headers["www-authenticate"].startswith("Bearer")
            oozie_error(client.get("v2/job/x-C"), 401, "E0500")  # auth comes before the lookup
            good = {"Authorization": "Bearer s3cret"}
            assert client.get("versions", headers=good).json() == [0, 1, 2]
            oozie_error(client.get("v2/job/x-C", headers=good), 400, "E0604")
    finally:
        server.close()


def test_token_file_in_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "api-token").write_text("from-file\n")
    server = start_live(tmp_path, engine=False)
    try:
        assert server.handle.token == "from-file"
        with httpx.Client(base_url=server.url + "/") as client:
            oozie_error(client.get("versions"), 401, "E0500")
            assert (
                client.get("versions", headers={"Authorization": "Bearer from-file"}).status_code
                == 200
            )
    finally:
        server.close()


def test_pyoozie_with_a_token(tmp_path: Path) -> None:
    from tests.api.test_real_clients import _pyoozie

    pyoozie = _pyoozie()
    import requests

    server = start_live(tmp_path, engine=False, token="tok")
    closing: list[requests.Session] = []
    try:
        session = requests.Session()
        session.headers["Authorization"] = "Bearer tok"
        closing.append(session)
        client = pyoozie.OozieClient(url=server.url, user="joe", session=session, verbose=False)
        coord = client.jobs_submit_coordinator(
            str(FEEDS / "ingest" / "coordinator.xml"),
            configuration={
                k: v for k, v in coord_conf(server).items() if k in ("start", "end", "landing")
            },
        )
        assert coord.coordJobId.endswith("-C")
        anonymous = pyoozie.OozieClient(url=server.url, session=requests.Session(), verbose=False)
        closing.append(anonymous._session)
        with pytest.raises(pyoozie.exceptions.OozieException) as err:
            anonymous.admin_status()
        assert "Unable to contact Oozie server" in str(err.value)
    finally:
        for s in closing:
            s.close()
        server.close()


def test_json_bodies_are_json(http: httpx.Client, bare: Live) -> None:
    """Every reply with a body is JSON unless asked for a definition or a log (pyoozie parses
    every PUT reply)."""
    cid = submit(http, coord_conf(bare))
    for r in (
        http.get(f"v2/job/{cid}"),
        http.put(f"v2/job/{cid}?action=suspend"),
        http.put(f"v2/job/{cid}?action=suspend"),  # an error
        http.get("v2/jobs?jobtype=coordinator"),
    ):
        if r.content:
            json.loads(r.content)
            assert r.headers["content-type"].startswith("application/json")


def test_a_job_submitted_with_a_relative_app_path_dry_runs_from_its_own_directory(
    http: httpx.Client, bare: Live, tmp_path: Path
) -> None:
    """QA: ``PUT job/B?action=dryrun`` read the stored configuration's ``bundle.xml`` (as the
    submitter wrote it, relative to where they stood) against the store's home: E1001."""
    bundle_xml = feeds_bundle(tmp_path, "2099-01-01T00:00Z")
    (bundle_xml.parent / "job.properties").write_text(
        f"oozie.bundle.application.path={bundle_xml.name}\nstart=2099-01-01T00:00Z\n"
        f"end=2099-01-02T00:00Z\nlanding={bare.landing}\n"
    )
    r = cli_bundletui("submit", "job.properties", home=bare.home, cwd=bundle_xml.parent)
    assert r.returncode == 0, r
    bid = r.stdout.strip().splitlines()[-1]
    dry = http.put(f"v2/job/{bid}", params={"action": "dryrun"})
    assert dry.status_code == 200, dry.text
    assert dry.json()["id"].startswith("***bundleJob after parsing: ***\n<?xml")


def test_a_coord_rerun_that_will_skip_says_so_in_warnings(lhttp: httpx.Client, live: Live) -> None:
    """Under LAST_ONLY a rerun action that has missed its turn is SKIPPED at once (Oozie's
    input check); the CLI warns of it, and the API's reply carries the same words."""
    wf = live.tmp / "wf.xml"
    wf.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{live.tmp / "out"}"/></fs></job></dag-app>'
    )
    app = live.tmp / "coordinator.xml"
    app.write_text(
        '<coordinator-app name="last" frequency="${coord:hours(1)}" start="${start}" '
        'end="${end}" timezone="UTC" xmlns="uri:oozie:coordinator:0.4">'
        "<controls><execution>LAST_ONLY</execution></controls>"
        f"<action><workflow><app-path>{wf}</app-path></workflow></action></coordinator-app>"
    )
    start = in_past(3)
    cid = submit(
        lhttp,
        {
            "user.name": "joe",
            "oozie.coord.application.path": str(app),
            "start": oozie_time(start),
            # off the hourly grid: the last action's next time is after the end, so it has no
            # next and is never skipped (one at the end would skip it too, as Oozie's)
            "end": oozie_time(start + timedelta(hours=2, minutes=30)),
        },
    )

    def statuses() -> list[str]:
        info = lhttp.get(f"v2/job/{cid}", params={"len": 10}).json()  # v2 lists none unasked
        return sorted(a["status"] for a in info["actions"])

    wait_until(lambda: statuses() == ["SKIPPED", "SKIPPED", "SUCCEEDED"], 30, "a run")
    last = lhttp.put(f"v2/job/{cid}?action=coord-rerun&type=action&scope=3", headers=XML)
    assert last.status_code == 200, last.text
    assert "warnings" not in last.json()  # the last one has no next: it runs
    r = lhttp.put(f"v2/job/{cid}?action=coord-rerun&type=action&scope=1", headers=XML)
    assert r.status_code == 200, r.text
    assert [a["actionNumber"] for a in r.json()["actions"]] == [1]
    (warning,) = r.json()["warnings"]
    assert warning.startswith(f"{cid}@1 will be SKIPPED, not run: under LAST_ONLY"), warning


def test_a_workflows_log_is_bounded_as_a_whole_newest_first(
    lhttp: httpx.Client, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (am): the cap was per file only, so a workflow of thirty 10 MB logs built a 252 MB
    answer in the engine's process (1.29 GB RSS). The answer has a total cap too, spent on the
    newest files first; and a heading starts its own line after output without a newline."""
    from bundletui.api import logs

    monkeypatch.setattr(logs, "MAX_LOG_BYTES", 2500)
    monkeypatch.setattr(logs, "MAX_TOTAL_BYTES", 6000)
    # defined c, b, a and run a, b, c: the cap serves the files that ran last (QA (an): it
    # served the nodes defined last)
    jobs = "".join(
        f'<job name="{n}">{deps}<shell><exec>printf</exec><argument>%3000s</argument>'
        f"<argument>{n}</argument></shell></job>"
        for n, deps in (("c", "<depends>b</depends>"), ("b", "<depends>a</depends>"), ("a", ""))
    )
    wf_xml = live.tmp / "wf.xml"
    wf_xml.write_text(f'<dag-app xmlns="uri:bundletui:dag:1.0" name="logs">{jobs}</dag-app>')
    wf = submit(lhttp, {"user.name": "joe", "oozie.wf.application.path": str(wf_xml)}, "start")
    wait_until(
        lambda: (
            lhttp.get(f"v2/job/{wf}", params={"show": "status"}).json()["status"] == "SUCCEEDED"
        ),
        30,
        "the workflow",
    )
    text = lhttp.get(f"v2/job/{wf}", params={"show": "log"}).text
    lines = text.splitlines()
    assert [ln for ln in lines if ln.startswith("──")] == [
        f"── {n} (SUCCEEDED, attempt 1)" for n in "abc"
    ]
    assert lines.count("[… 2000 bytes skipped …]") == 1  # a: what the budget left, 1000
    assert lines.count("[… 500 bytes skipped …]") == 2  # b and c: their last 2500 each
    assert len(text) < 6000 + 300


def test_a_connection_that_sends_no_request_is_closed(
    http: httpx.Client, bare: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (ak): uvicorn kept a connection that never finished a request for ever; 1,100 of
    them used up the engine's fds, and a job it then started was recorded FAILED though it
    ran. A connection without a whole request head after the deadline is closed."""
    from bundletui.api import _protocol

    monkeypatch.setattr(_protocol, "REQUEST_HEAD_TIMEOUT", 0.5)
    host, port = bare.handle.host, bare.handle.port
    silent = socket.create_connection((host, int(port)), timeout=5)
    partial = socket.create_connection((host, int(port)), timeout=5)
    partial.sendall(b"GET /oozie/versions HTTP/1.1\r\nHost: x\r\n")  # no blank line: unfinished
    started = time.monotonic()
    assert silent.recv(100) == b""  # closed by the server
    assert partial.recv(100) == b""
    assert 0.4 < time.monotonic() - started < 4
    assert http.get("versions").status_code == 200  # a real client is served as before
    silent.close()
    partial.close()


def test_a_request_whose_body_never_comes_is_closed(
    http: httpx.Client,
    bare: Live,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """QA: a request that promised a body (Content-Length: 100) and sent 5 bytes was held
    open for good (400 of them held 424 fds). Its connection is closed after the deadline,
    without a traceback in the log (each such client logged one)."""
    from bundletui.api import _protocol

    monkeypatch.setattr(_protocol, "REQUEST_BODY_TIMEOUT", 1.0)
    host, port = bare.handle.host, bare.handle.port
    short = socket.create_connection((host, int(port)), timeout=10)
    short.sendall(
        b"POST /oozie/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/xml\r\n"
        b"Content-Length: 100\r\n\r\n<conf"
    )
    started = time.monotonic()
    data = short.recv(1000)
    while data and not data.endswith(b"\r\n\r\n") and b"HTTP/1.1" not in data:
        data += short.recv(1000)  # whatever it answers, the connection then ends
    rest = b"x"
    while rest:
        rest = short.recv(1000)
    assert 0.8 < time.monotonic() - started < 6
    assert http.get("versions").status_code == 200
    short.close()
    # one that goes away itself, mid-body, leaves no traceback in the log (each did)
    gone = socket.create_connection((host, int(port)), timeout=10)
    gone.sendall(
        b"POST /oozie/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/xml\r\n"
        b"Content-Length: 100\r\n\r\n<conf"
    )
    time.sleep(0.3)
    gone.close()
    time.sleep(0.5)  # the handler's end comes after the connection's
    said = "\n".join(r.getMessage() for r in caplog.records)
    assert "failed" not in said and not [r for r in caplog.records if r.exc_info], said


def test_connections_past_the_cap_are_answered_503_and_closed_at_once(
    http: httpx.Client, bare: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA: 800 connections that sent a head and no body, each within its deadline, used up
    the engine's fds (its next job could not start). Past the cap, one is answered at once."""
    from bundletui.api import _protocol

    monkeypatch.setattr(_protocol, "MAX_CONNECTIONS", 4)
    head = (
        b"POST /oozie/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/xml\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    host, port = bare.handle.host, int(bare.handle.port)
    held: list[socket.socket] = []
    refused = None
    for _ in range(10):
        c = socket.create_connection((host, port), timeout=5)
        c.sendall(head)
        c.settimeout(2.0)  # a refused one is answered at once; a loaded machine may be slow
        try:
            answer = c.recv(1000)
        except TimeoutError:
            held.append(c)  # held open, waiting for its body
            continue
        refused = answer
        c.close()
        break
    assert refused is not None and refused.startswith(b"HTTP/1.1 503"), refused
    assert len(held) <= 4
    for c in held:
        c.close()
    time.sleep(0.3)
    assert http.get("versions").status_code == 200  # served again once they closed


ECHO_WF = """<dag-app xmlns="uri:bundletui:dag:1.0" name="echo">
  <job name="say"><shell><exec>echo</exec><argument>said-${when}</argument></shell></job>
</dag-app>
"""

ECHO_COORD = """<coordinator-app name="echoes" frequency="60" start="${start}" end="${end}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action><workflow><app-path>${wf}</app-path><configuration>
    <property><name>when</name><value>${coord:formatTime(coord:nominalTime(), 'HH')}</value>
    </property></configuration></workflow></action>
</coordinator-app>
"""


def test_a_coordinators_log_with_an_action_scope_is_those_actions_logs(
    lhttp: httpx.Client, live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (HTTP clients): Oozie's ``job -log C -action 2`` sends ``type=action&scope=2``; the
    coordinator's own audit lines came back instead, and a bad scope answered 200 too."""
    (tmp_path / "wf.xml").write_text(ECHO_WF)
    (tmp_path / "c.xml").write_text(ECHO_COORD)
    start = in_past(2)
    cid = submit(
        lhttp,
        {
            "user.name": "joe",
            "oozie.coord.application.path": str(tmp_path / "c.xml"),
            "wf": str(tmp_path / "wf.xml"),
            "start": oozie_time(start),
            "end": oozie_time(start + timedelta(hours=2)),
        },
    )
    wait_until(
        lambda: (
            lhttp.get(f"v2/job/{cid}", params={"show": "status"}).json()["status"] == "SUCCEEDED"
        ),
        30,
        "both actions ran",
    )
    one, two = (lhttp.get(f"v2/job/{cid}@{n}", params={"show": "log"}).text for n in (1, 2))
    assert "said-" in one and "said-" in two and one != two
    r = lhttp.get(f"v2/job/{cid}", params={"show": "log", "type": "action", "scope": "2"})
    assert (r.status_code, r.text) == (200, f"── {cid}@2\n{two}"), r.text
    r = lhttp.get(f"v1/job/{cid}", params={"show": "log", "type": "action", "scope": "1-2"})
    assert r.text == f"── {cid}@1\n{one}── {cid}@2\n{two}", r.text
    by_date = {"show": "log", "type": "date", "scope": oozie_time(start)}
    assert lhttp.get(f"v2/job/{cid}", params=by_date).text == f"── {cid}@1\n{one}"
    oozie_error(
        lhttp.get(f"v2/job/{cid}", params={"show": "log", "type": "action", "scope": "9"}),
        400,
        "E0605",
    )
    oozie_error(
        lhttp.get(f"v2/job/{cid}", params={"show": "log", "type": "bogus", "scope": "x"}),
        400,
        "E0303",
    )
    oozie_error(lhttp.get(f"v2/job/{cid}", params={"show": "log", "scope": "2"}), 400, "E0305")
    oozie_error(
        lhttp.get(f"v2/job/{cid}@1", params={"show": "log", "type": "action", "scope": "1"}),
        400,
        "E0302",
    )
    # the whole answer is capped, not only each action's log (review: 500 actions could
    # build 500 x 32 MB in the engine's process)
    monkeypatch.setattr(api_logs, "MAX_TOTAL_BYTES", 10)
    with Store(live.home, create=False) as store:
        capped = api_logs.job_log(store, cid, "log", actions="1-2")
    cut = "(… 1 more actions not shown: the answer is capped at 10 bytes; ask for fewer)\n"
    assert capped == f"── {cid}@1\n{one}{cut}", capped


def test_a_start_of_a_bundle_that_started_by_itself_answers_200(
    lhttp: httpx.Client, live: Live, tmp_path: Path
) -> None:
    """QA (HTTP clients): oozie-api submits a bundle, then starts it with PUT action=start; a
    bundle with no kick-off time had often started by itself by then, and the start answered
    400 E1100 at random. Oozie drops that start (a failed precondition, logged) and answers
    200; so does this API. A start of an ended bundle is still refused."""
    start = in_past(2)
    props = {
        "user.name": "joe",
        "oozie.bundle.application.path": str(feeds_bundle(tmp_path)),
        "start": oozie_time(start),
        "end": oozie_time(start + timedelta(hours=3)),
    }
    bid = submit(lhttp, props)
    wait_until(
        lambda: lhttp.get(f"v2/job/{bid}", params={"show": "status"}).json()["status"] == "RUNNING",
        30,
        "the bundle started by itself",
    )
    r = lhttp.put(f"v1/job/{bid}", params={"action": "start"})
    assert (r.status_code, r.text) == (200, ""), r.text
    assert lhttp.get(f"v2/job/{bid}", params={"show": "status"}).json()["status"] == "RUNNING"
    assert lhttp.put(f"v2/job/{bid}", params={"action": "kill"}).status_code == 200
    oozie_error(lhttp.put(f"v1/job/{bid}", params={"action": "start"}), 400, "E1100")


def test_a_time_whose_offset_leaves_year_1_is_a_bad_request(http: httpx.Client, bare: Live) -> None:
    """QA (bad input): answered HTTP 500, E0307, ``OverflowError: date value out of range``."""
    coord = submit(http, coord_conf(bare))
    early = "0001-01-01T00:00+0100"
    for r in (
        http.get("v2/jobs", params={"filter": f"startcreatedtime={early}"}),
        http.get(f"v2/job/{coord}", params={"filter": f"nominaltime>={early}"}),
        http.put(f"v2/job/{coord}", params={"action": "change", "value": f"endtime={early}"}),
        http.put(f"v2/job/{coord}", params={"action": "kill", "type": "date", "scope": early}),
    ):
        assert r.status_code == 400, (r.request.url, r.status_code, r.text)
        assert early in r.text and "Overflow" not in r.text, r.text
