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


def _run(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BUNDLETUI, "run", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "250", **(env or {})},
    )


def test_bad_address_and_busy_port(tmp_path: Path) -> None:
    r = _run(tmp_path / "home", "--api", "nonsense")
    assert (
        r.returncode == 2
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
    assert "choose another port" in r.stderr
    # a host that is not this machine's: the hint is about the host, not the port (QA (ac))
    for host in ("no-such-host.invalid", "192.0.2.1"):
        r = _run(tmp_path / "home", "--api", f"{host}:8080")
        assert r.returncode == 1 and f"EB0702: cannot listen on {host}:8080" in r.stderr, r
        assert f"hint: {host} is not an address of this machine" in r.stderr, r.stderr


def test_a_token_file_without_a_token_or_an_empty_token_is_refused(tmp_path: Path) -> None:
    """A blank ``api-token`` file meant "ask for a token"; taking it as "no token" would serve
    the API to anyone. The engine does not start, and says why."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "api-token").write_text("  \n\n")
    r = _run(home, "--api", "0", "--exit-when-idle")
    assert r.returncode == 1, r
    assert f"Error: EB0701: the API token file {home / 'api-token'} holds no token" in r.stderr
    assert "remove the file" in r.stderr and "Traceback" not in r.stderr
    r = _run(tmp_path / "other", "--api", "0", "--api-token", " ", "--exit-when-idle")
    assert r.returncode == 1 and "EB0701" in r.stderr and "is empty" in r.stderr, r
    # QA: BUNDLETUI_API_TOKEN= (a script's unset $TOKEN) served the API to anyone
    r = _run(tmp_path / "other", "--api", "0", "--exit-when-idle", env={"BUNDLETUI_API_TOKEN": ""})
    assert r.returncode == 1 and "EB0701" in r.stderr and "is empty" in r.stderr, r
    (home / "api-token").write_text("\n tok \n")  # the first line that is not blank
    for mode, warned in ((0o644, True), (0o600, False)):
        (home / "api-token").chmod(mode)
        proc = ApiProc(home, tmp_path / f"run-{mode:o}.log", "--api", "0")
        try:
            url = proc.wait_url()
            assert httpx.get(f"{url}/versions").status_code == 401
            ok = httpx.get(f"{url}/versions", headers={"Authorization": "Bearer tok"})
            assert ok.json() == [0, 1, 2]
        finally:
            assert proc.stop() == 0
        # QA: a token file other users could read was taken without a word
        said = " ".join(proc.log().split())
        assert ("can be read by other users (mode 644)" in said) == warned, said


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
        env={"BUNDLETUI_API_TOKEN": None},  # unset, whatever this shell has (empty is refused)
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
        # on loopback it is still said that every local user may run commands as this one
        # (QA: `nobody` ran a command as root): a warning for root, a note for anyone else
        local = "needs no token: every user of this machine can submit, change and kill jobs"
        assert (local in log) == (token is None), log
        if token is None:
            assert ("WARNING" in log) == (os.geteuid() == 0), log
        return
    assert "WARNING" in log and f"the API on http://0.0.0.0:{port}/oozie {warning}" in log, log
    assert "--api-token TOKEN, BUNDLETUI_API_TOKEN" in log
    assert str(tmp_path / "home" / "api-token") in log


def test_a_loopback_api_without_a_token_refuses_a_request_addressed_to_another_name(
    tmp_path: Path,
) -> None:
    """QA (DNS rebinding): a web page whose name is rebound to 127.0.0.1 is same-origin with
    the API, so CORS no longer stops its POSTs and PUTs; its ``Host`` header is its own name.
    Refused with 403, nothing submitted; the names of this machine still work; with a token
    the token decides."""
    port = _free_port()
    proc = ApiProc(
        tmp_path / "home",
        tmp_path / "run.log",
        "--api",
        f"127.0.0.1:{port}",
        env={"BUNDLETUI_API_TOKEN": None},
    )
    base = f"http://127.0.0.1:{port}/oozie"
    body = conf_xml(
        {
            "oozie.wf.application.path": str(FEEDS.parent / "naive-bayes" / "workflow.xml"),
            "user.name": "u",
        }
    )
    try:
        proc.wait_url()
        evil = {"Host": f"attacker.example:{port}", "Origin": f"http://attacker.example:{port}"}
        r = httpx.post(
            f"{base}/v2/jobs", content=body, headers={**evil, "Content-Type": "application/xml"}
        )
        assert r.status_code == 403, r.text
        assert r.headers["oozie-error-code"] == "E0500"
        assert "Host [attacker.example] is not this machine" in r.headers["oozie-error-message"]
        assert httpx.get(f"{base}/v2/jobs", headers={"Host": "attacker.example"}).status_code == 403
        listed = httpx.get(f"{base}/v2/jobs", params={"jobtype": "wf"}).json()
        assert listed["total"] == 0  # nothing was submitted
        own = socket.gethostname()  # QA: `curl http://$(hostname):PORT` was refused
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", "LOCALHOST", f"{own}:{port}"):
            assert httpx.get(f"{base}/versions", headers={"Host": host}).json() == [0, 1, 2]
    finally:
        assert proc.stop() == 0


def test_the_api_threads_connections_keep_a_smaller_page_cache(tmp_path: Path) -> None:
    """Eight worker connections at SQLite's 64 MiB each took an engine with ``--api`` to
    350 MB of RSS on a 427 MB store: each keeps 16 MiB, the engine's own keeps 64."""
    from bundletui.api.app import API_CACHE_MIB, Api
    from bundletui.store.db import Store

    api = Api(tmp_path)
    try:
        got = api.store().conn.execute("PRAGMA cache_size").fetchone()[0]
        assert got == -1024 * API_CACHE_MIB and API_CACHE_MIB < 64
    finally:
        api.close()
    with Store(tmp_path) as store:
        assert store.conn.execute("PRAGMA cache_size").fetchone()[0] == -65536
