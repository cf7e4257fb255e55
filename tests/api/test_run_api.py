"""``bundletui run --api [HOST:]PORT [--api-token T]`` as a user starts it."""

from __future__ import annotations

import os
import socket
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from bundletui.api import parse_bind
from bundletui.errors import ApiError
from tests.api.conftest import BUNDLETUI, FEEDS, ApiProc, Live, conf_xml, in_past, oozie_time


def test_parse_bind() -> None:
    assert parse_bind("11000") == ("127.0.0.1", 11000)
    assert parse_bind("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_bind(":0") == ("127.0.0.1", 0)
    assert parse_bind("[::1]:9000") == ("::1", 9000)
    assert parse_bind("localhost:1") == ("localhost", 1)
    for bad in ("", "http", "1:2:x", "70000", "[::1]9000", "host:-1"):
        with pytest.raises(ApiError) as err:
            parse_bind(bad)
        assert err.value.code == "E0303"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BUNDLETUI, "run", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "250"},
    )


def test_bad_address_and_busy_port(tmp_path: Path) -> None:
    r = _run(tmp_path / "home", "--api", "nonsense")
    assert (
        r.returncode == 1
        and "Error: E0303: Invalid parameter value, [--api] = [nonsense]" in r.stderr
    )
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = _run(tmp_path / "home", "--api", str(port))
    assert r.returncode == 1, r
    assert f"Error: EB0702: cannot listen on 127.0.0.1:{port}" in r.stderr
    assert "Traceback" not in r.stderr


def test_token_from_the_environment(tmp_path: Path) -> None:
    proc = ApiProc(
        tmp_path / "home",
        tmp_path / "run.log",
        "--api",
        "0",
        env={"BUNDLETUI_API_TOKEN": "env-tok"},
    )
    try:
        url = proc.wait_url()
        assert "(bearer token required)" in proc.log()
        assert httpx.get(f"{url}/versions").status_code == 401
        ok = httpx.get(f"{url}/versions", headers={"Authorization": "Bearer env-tok"})
        assert ok.json() == [0, 1, 2]
    finally:
        assert proc.stop() == 0


def test_concurrent_requests(live: Live) -> None:
    """Worker threads each use their own store connection: parallel reads and writes all land."""
    start = in_past(2)
    body = conf_xml(
        {
            "user.name": "joe",
            "oozie.coord.application.path": str(FEEDS / "ingest" / "coordinator.xml"),
            "start": oozie_time(start),
            "end": oozie_time(start.replace(year=start.year + 1)),
            "landing": str(live.landing),
        }
    )
    with httpx.Client(base_url=live.url + "/", timeout=60) as client:
        cid = client.post(
            "v2/jobs", content=body, headers={"Content-Type": "application/xml"}
        ).json()["id"]

        def hit(i: int) -> int:
            if i % 3 == 0:
                r = client.put(
                    f"v2/job/{cid}", params={"action": "change", "value": f"concurrency={i + 1}"}
                )
            elif i % 3 == 1:
                r = client.get(f"v2/job/{cid}", params={"len": "5"})
            else:
                r = client.get("v2/jobs", params={"jobtype": "coordinator"})
            return r.status_code

        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(hit, range(48)))
        assert statuses == [200] * 48
        assert client.get(f"v2/job/{cid}").json()["concurrency"] in {i + 1 for i in range(0, 48, 3)}
        log = client.get(f"v2/job/{cid}", params={"show": "auditlog"}).text
        assert log.count("change ok") == 16


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("host", "token", "warned"),
    [("0.0.0.0", None, True), ("0.0.0.0", "s3cret", False), ("127.0.0.1", None, False)],
)
def test_warns_when_reachable_from_other_machines_without_a_token(
    tmp_path: Path, host: str, token: str | None, warned: bool
) -> None:
    port = _free_port()
    proc = ApiProc(
        tmp_path / "home",
        tmp_path / "run.log",
        "--api",
        f"{host}:{port}",
        *(("--api-token", token) if token else ()),
        env={"BUNDLETUI_API_TOKEN": ""},
    )
    try:
        proc.wait_url()
        log = " ".join(proc.log().split())  # the log handler wraps long lines
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.get(f"http://127.0.0.1:{port}/oozie/versions", headers=headers)
        assert r.json() == [0, 1, 2]
    finally:
        assert proc.stop() == 0
    warning = "is reachable from other machines and needs no token"
    if not warned:
        assert warning not in log, log
        return
    assert "WARNING" in log and f"the API on http://0.0.0.0:{port}/oozie {warning}" in log, log
    assert "--api-token TOKEN, BUNDLETUI_API_TOKEN" in log
    assert str(tmp_path / "home" / "api-token") in log
