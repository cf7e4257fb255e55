"""An engine on another host that takes the store over (its lease expired) cannot see the
processes the first engine started: that host's pids are not its own. QA: it read such a job
as "ended while no engine ran" with no exit record (EB0503) without a word of why. Each
attempt's ``.host`` record (written before the job starts) now tells it the job was started
elsewhere: its log warns, naming the host, and the node's error says the job may still run
there. (Waiting for the exit record instead would leave every job of a container recreated
under a new host name RUNNING for good; standby engines belong on the first one's host.) The
other host is a UTS + PID namespace (its own host name, its own /proc), as a second machine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="slow">
  <job name="a"><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo START >> "$1"; sleep 5; echo END >> "$1"</argument>
    <argument>sh</argument><argument>${count}</argument></shell></job>
  <job name="b"><depends>a</depends><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo b >> "$1"</argument><argument>sh</argument><argument>${count}</argument></shell></job>
</dag-app>
"""


def _namespaces_work() -> bool:
    try:
        probe = ["unshare", "--uts", "--pid", "--fork", "--mount-proc", "hostname", "x"]
        return subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _wait(predicate: object, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.skipif(not _namespaces_work(), reason="needs unshare (root) for a second host")
def test_an_engine_on_another_host_says_it_cannot_see_a_job_the_first_one_started(
    tmp_path: Path,
) -> None:
    home, count, app = tmp_path / "home", tmp_path / "count", tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(WORKFLOW)
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={app}\ncount={count}\n")
    env = {**os.environ, "BUNDLETUI_HOME": str(home)}

    def cli(*args: str) -> str:
        r = subprocess.run([BUNDLETUI, *args], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r
        return r.stdout

    wf = cli("submit", str(props), "--start").strip()
    first_log, second_log = (tmp_path / "a.log").open("w"), (tmp_path / "b.log").open("w")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        first = subprocess.Popen(
            [BUNDLETUI, "run", "--lease-ttl", "2"], env=env, stdout=first_log, stderr=first_log
        )
        procs.append(first)
        # the first engine holds the lease (and starts job a) before the other host's starts
        _wait(lambda: "engine active" in (tmp_path / "a.log").read_text(), 20, "the first")
        other = ["unshare", "--uts", "--pid", "--fork", "--mount-proc", "--kill-child=SIGTERM"]
        procs.append(
            subprocess.Popen(
                [
                    *other,
                    "sh",
                    "-c",
                    'hostname other-host && exec "$0" run --lease-ttl 2',
                    BUNDLETUI,
                ],
                env=env,
                stdout=second_log,
                stderr=second_log,
            )
        )
        _wait(lambda: count.exists() and "START" in count.read_text(), 20, "job a to start")
        _wait(lambda: "standby" in (tmp_path / "b.log").read_text(), 20, "the other's standby")
        os.kill(first.pid, signal.SIGKILL)  # job a's process lives on, on "this" host
        first.wait(10)

        def done() -> bool:
            info = json.loads(cli("info", wf, "--json"))
            return info["status"] in ("SUCCEEDED", "FAILED", "KILLED")

        _wait(done, 40, "the workflow to end under the second engine")
        said = (tmp_path / "b.log").read_text()
        info = json.loads(cli("info", f"{wf}@a", "--json"))
        assert info["status"] in ("FAILED", "ERROR") and info["errorCode"] == "EB0503", info
        host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
        assert (
            f"the process was started on host {host}, whose processes this engine"
            in (info["errorMessage"])
        ), info
        assert f"was started on host {host}, whose processes this engine cannot see" in said
        assert "keep standby engines on the host of the first" in said, said
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        first_log.close()
        second_log.close()
