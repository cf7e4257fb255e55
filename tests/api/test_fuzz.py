"""Fuzzing the API: no 500s, no crashes, every reply as the OpenAPI document says.

Two bounded passes against one real server (no engine: commands leave their effects in the
outbox) whose store holds a bundle, a coordinator and a workflow:

* schemathesis generates requests from ``/oozie/openapi.json`` (examples, boundary values,
  random values) for every operation and checks status codes, content types, headers and
  bodies against the document, and that nothing answers 5xx;
* hypothesis drives the stateful paths schemathesis cannot reach (it never guesses a job id):
  any action or ``show`` on the stored jobs and their actions, raw query strings with odd
  filters, scopes and dates, arbitrary bodies.

``FUZZ_EXAMPLES`` (default 20) bounds both, so the suite stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from bundletui.api.openapi import document
from tests.api.conftest import (
    FEEDS,
    NAIVE_BAYES,
    Live,
    conf_xml,
    feeds_bundle,
    in_past,
    oozie_time,
    start_live,
)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
XML = {"Content-Type": "application/xml"}

# adminPut would switch the server to SAFEMODE and make every later change a 503: tested
# on its own in test_endpoints.test_system_mode.
schema = schemathesis.openapi.from_dict(document()).exclude(operation_id="adminPut")

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    server = start_live(tmp, engine=False)
    start = in_past(3)
    common = {
        "user.name": "fuzz",
        "start": oozie_time(start),
        "end": oozie_time(start + timedelta(hours=3)),
        "landing": str(server.landing),
    }
    ids = []
    with httpx.Client(base_url=server.url + "/", timeout=30) as client:
        for props in (
            {**common, "oozie.coord.application.path": str(FEEDS / "ingest" / "coordinator.xml")},
            {
                **common,
                "oozie.bundle.application.path": str(feeds_bundle(tmp, "2099-01-01T00:00Z")),
            },
            {**common, "oozie.wf.application.path": str(NAIVE_BAYES), "outputDir": str(tmp)},
        ):
            r = client.post("v2/jobs", content=conf_xml(props), headers=XML)
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
    client = httpx.Client(base_url=server.url + "/", timeout=30)
    try:
        yield {"server": server, "ids": ids, "client": client}
    finally:
        client.close()
        server.close()


def _no_server_error(r: httpx.Response) -> None:
    assert r.status_code < 500, f"{r.request.method} {r.request.url} -> {r.status_code}: {r.text}"
    if r.status_code >= 400:
        assert r.headers["oozie-error-code"] and r.headers["oozie-error-message"]


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_schemathesis(case: Any, fuzzed: dict[str, Any]) -> None:
    server: Live = fuzzed["server"]
    case.call_and_validate(base_url=server.url.removesuffix("/oozie"), checks=CHECKS)


# ----------------------------------------------------------------------------- stateful


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_VALUE = st.one_of(
    _TEXT,
    st.sampled_from(
        [
            "",
            "1",
            "1-3",
            "3-1",
            "0",
            "-1",
            "1,2,x",
            "2026-01-01T00:00Z",
            "2026-01-01T00:00Z::2027-01-01T00:00Z",
            "2099-01-01T00:00Z",
            "24:00",
            "true",
            "false",
            "ingest",
            "status=WAITING;status=KILLED",
            "status!=WAITING;nominaltime>=2026-01-01T00:00Z",
            "nominaltime<bad",
            "pausetime=2099-01-01T00:00Z",
            "endtime=2001-01-01T00:00Z;concurrency=-1",
            "status=RUNNING",
            "%3D%3B%26",
            "%ZZ",
        ]
    ),
)
_PARAM = st.sampled_from(
    [
        "action",
        "show",
        "type",
        "scope",
        "value",
        "offset",
        "len",
        "order",
        "filter",
        "timezone",
        "refresh",
        "nocleanup",
        "failed",
        "coord-scope",
        "date-scope",
        "jobtype",
        "external-id",
        "user.name",
    ]
)
_ACTIONS = st.sampled_from(
    [
        "start",
        "suspend",
        "resume",
        "kill",
        "change",
        "ignore",
        "rerun",
        "coord-rerun",
        "bundle-rerun",
        "dryrun",
        "update",
    ]
)
_SHOWS = st.sampled_from(
    ["info", "status", "definition", "log", "errorlog", "auditlog", "graph", ""]
)
_BODIES = st.one_of(
    st.just(b""),
    st.binary(max_size=64),
    st.sampled_from(
        [
            b"<configuration/>",
            b"<?xml version='1.0'?><configuration><property><name>oozie.wf.rerun.failnodes</name><value>true</value></property></configuration>",
            b"<configuration><property><name>oozie.wf.rerun.skip.nodes</name><value>extract</value></property></configuration>",
            b"<!DOCTYPE x [<!ENTITY a 'b'>]><configuration/>",
            b"<configuration><property><value>x</value></property></configuration>",
        ]
    ),
)


def _raw(value: str) -> str:
    """Keep what pyoozie sends unencoded (``=``, ``;``, ``:``, ``,``, ``%``), encode the rest."""
    return quote(value, safe="=;:,!<>@/%*+$-._~")


@st.composite
def _query(draw: st.DrawFn, key: str, values: st.SearchStrategy[str]) -> str:
    pairs = [f"{key}={_raw(draw(values))}"]
    for _ in range(draw(st.integers(0, 4))):
        pairs.append(f"{draw(_PARAM)}={_raw(draw(_VALUE))}")
    return "&".join(pairs)


@given(data=st.data())
@settings(
    max_examples=EXAMPLES * 10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_stateful_paths(fuzzed: dict[str, Any], data: st.DataObject) -> None:
    ids: list[str] = fuzzed["ids"]
    targets = st.sampled_from(
        [*ids, f"{ids[0]}@1", f"{ids[0]}@99", f"{ids[2]}@extract", f"{ids[2]}@nope"]
    ) | _TEXT.map(lambda t: t or "x")
    job_id = data.draw(targets)
    version = data.draw(st.sampled_from(["v1", "v2"]))
    client: httpx.Client = fuzzed["client"]
    if data.draw(st.booleans()):
        query = data.draw(_query("action", _ACTIONS | _VALUE))
        headers = data.draw(
            st.sampled_from([{}, XML, {"Content-Type": "application/x-www-form-urlencoded"}])
        )
        body = data.draw(_BODIES)
        r = client.put(f"{version}/job/{_path(job_id)}?{query}", content=body, headers=headers)
    else:
        query = data.draw(_query("show", _SHOWS | _VALUE))
        r = client.get(f"{version}/job/{_path(job_id)}?{query}")
    _no_server_error(r)
    listing = data.draw(
        _query("jobtype", st.sampled_from(["wf", "coordinator", "bundle"]) | _VALUE)
    )
    _no_server_error(client.get(f"{version}/jobs?{listing}"))


def _path(job_id: str) -> str:
    return quote(job_id, safe="@-")


def test_submission_bodies(fuzzed: dict[str, Any], tmp_path: Path) -> None:
    """Arbitrary configurations, including ones naming real apps with odd properties."""

    @given(
        props=st.dictionaries(
            st.sampled_from(
                [
                    "user.name",
                    "oozie.coord.application.path",
                    "oozie.wf.application.path",
                    "oozie.bundle.application.path",
                    "start",
                    "end",
                    "landing",
                    "oozie.wf.external.id",
                ]
            ),
            _VALUE
            | st.sampled_from(
                [str(FEEDS / "ingest"), str(NAIVE_BAYES), str(FEEDS), "file:///nope", "hdfs://nn/x"]
            ),
            max_size=6,
        ),
        action=st.sampled_from([None, "start", "dryrun", "bogus"]),
    )
    @settings(
        max_examples=EXAMPLES * 3,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    def run(props: dict[str, str], action: str | None) -> None:
        client: httpx.Client = fuzzed["client"]
        r = client.post(
            "v2/jobs",
            params={"action": action} if action else None,
            content=conf_xml(props),
            headers=XML,
        )
        _no_server_error(r)

    run()
