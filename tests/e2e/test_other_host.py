"""An engine on another host that takes the store over (its lease expired) cannot see the
processes the first engine started: that host's pids are not its own. Each attempt's ``.host``
record (written before the job starts) tells it the job was started elsewhere, and the job's
wrapper beats (rewrites ``.beat`` every lease-TTL seconds) while it lives. So the second
engine waits for a job that still runs on the first host and takes its exit record when it
comes (nothing run twice); fails it with EB0503 once its beat stops (that host is gone: the
retry may run here); and passes a kill on through a ``.kill`` request the beat loop acts on.
The other host is a UTS + PID namespace (its own host name, its own /proc), as a second
machine; the first host's death is its engine's kill -9 and its job group's SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))

WORKFLOW = """<dag-app xmlns="uri:bundletui:dag:1.0" name="slow">
  <job name="a"><shell><exec>sh</exec><argument>-c</argument>
    <argument>echo START >> "$1"; sleep "$2"; echo END >> "$1"</argument>
    <argument>sh</argument><argument>${count}</argument><argument>${secs}</argument></shell></job>
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


pytestmark = pytest.mark.skipif(
    not _namespaces_work(), reason="needs unshare (root) for a second host"
)


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Hosts:
    """A workflow whose job a the first host's engine started, and an engine on another host
    that has just taken the store over (the first one was kill -9-ed)."""

    def __init__(self, tmp_path: Path, *, same_name: bool = False) -> None:
        """``same_name``: the other host has this host's name (a container with the host's
        network, or a fixed ``--hostname``) but pids of its own."""
        self.same_name = same_name
        self.tmp = tmp_path
        self.home, self.count = tmp_path / "home", tmp_path / "count"
        self.env = {**os.environ, "BUNDLETUI_HOME": str(self.home)}
        self.first_pid = 0

    def cli(self, *args: str) -> str:
        r = subprocess.run(
            [BUNDLETUI, *args], env=self.env, capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r
        return r.stdout

    def info(self, job: str) -> dict[str, object]:
        return json.loads(self.cli("info", job, "--json"))  # type: ignore[no-any-return]

    def second_log(self) -> str:
        return (self.tmp / "b.log").read_text()

    def job_group(self) -> int:
        """Job a's process group on the first host: its wrapper's pid (the wrapper leads it
        and names the job's argv, here this test's count file, on its command line)."""
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                ours = b"bundletui-job" in argv and str(self.count).encode() in argv
                if ours and os.getpgid(int(pid)) == int(pid):
                    return int(pid)
            except OSError:
                continue
        raise AssertionError("job a's wrapper is not running")

    @contextmanager
    def run(self, *, secs: int = 15, standby: bool = True) -> Iterator[Hosts]:
        """Job a runs ``secs`` seconds; ``standby``: the other host's engine waits meanwhile
        and takes over, else it is started by :meth:`start_other`, with no engine between."""
        app = self.tmp / "app"
        app.mkdir()
        (app / "workflow.xml").write_text(WORKFLOW)
        props = self.tmp / "job.properties"
        props.write_text(f"oozie.wf.application.path={app}\ncount={self.count}\nsecs={secs}\n")
        self.wf = self.cli("submit", str(props), "--start").strip()
        self.logs = (self.tmp / "a.log").open("w"), (self.tmp / "b.log").open("w")
        self.procs: list[subprocess.Popen[bytes]] = []
        try:
            first = subprocess.Popen(
                [BUNDLETUI, "run", "--lease-ttl", "2"],
                env=self.env,
                stdout=self.logs[0],
                stderr=self.logs[0],
            )
            self.procs.append(first)
            # the first engine holds the lease (and starts job a) before the other host's starts
            _wait(lambda: "engine active" in (self.tmp / "a.log").read_text(), 20, "the first")
            if standby:
                self.start_other()
            _wait(lambda: "START" in self._count(), 20, "job a to start")
            if standby:
                _wait(lambda: "standby" in self.second_log(), 20, "the other's standby")
                time.sleep(1)  # a lease taken from a live engine would be lost by now
                assert "lease lost" not in (self.tmp / "a.log").read_text()
            os.kill(first.pid, signal.SIGKILL)  # job a's process lives on, on "this" host
            first.wait(10)
            yield self
        finally:
            for p in self.procs:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
                    try:
                        p.wait(10)
                    except subprocess.TimeoutExpired:
                        p.kill()
            for f in self.logs:
                f.close()

    def start_other(self) -> None:
        other = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child=SIGTERM"]
        script = 'exec "$0" run --lease-ttl 2'
        if not self.same_name:
            other.insert(1, "--uts")
            script = f"hostname other-host && {script}"
        self.procs.append(
            subprocess.Popen(
                [*other, "sh", "-c", script, BUNDLETUI],
                env=self.env,
                stdout=self.logs[1],
                stderr=self.logs[1],
            )
        )

    def attempt(self, node: str, run: int = 0, attempt: int = 1) -> Path:
        """The exit file of an attempt (its .host, .exit.beat, .exit.kill beside it)."""
        return self.home / "logs" / self.wf / f"{node}.{run}.{attempt}.exit"

    def _count(self) -> str:
        return self.count.read_text() if self.count.exists() else ""

    def ended(self) -> bool:
        return self.info(self.wf)["status"] in ("SUCCEEDED", "FAILED", "KILLED")


def _first_host(h: Hosts) -> str:
    """The first host as the other one names it."""
    host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    return (
        f"{host} (another container or machine of that name, or before a reboot)"
        if h.same_name
        else host
    )


@pytest.mark.parametrize("same_name", [False, True], ids=["other-name", "same-name"])
def test_a_job_still_running_on_the_first_host_is_waited_for_and_not_run_twice(
    tmp_path: Path, same_name: bool
) -> None:
    """same-name, QA: an engine in another pid namespace under this host's name (a container
    with ``--network host``) judged the first engine's lease and jobs by its own /proc, found
    them dead, took the store over beside the live engine and would rerun its jobs. Host
    records carry the kernel's boot id and pid namespace: it waits as a standby (the run
    waits for "standby" in its log), then treats the jobs as another host's."""
    with Hosts(tmp_path, same_name=same_name).run() as h:
        _wait(lambda: "runs on host" in h.second_log(), 20, "the takeover")
        assert "END" not in h._count()  # taken over while job a still ran on the first host
        _wait(h.ended, 60, "the workflow to end under the second engine")
        host = _first_host(h)
        said = h.second_log()
        assert f"job {h.wf}@a runs on host {host}, whose processes this engine cannot see" in said
        assert "waiting for its exit record while its wrapper beats (every 2 s)" in said
        assert h.info(h.wf)["status"] == "SUCCEEDED"
        assert h.info(f"{h.wf}@a")["status"] == "OK"
        # a ran once, to its end, and b after it
        assert h._count().split() == ["START", "END", "b"]


@pytest.mark.parametrize("same_name", [False, True], ids=["other-name", "same-name"])
def test_a_job_whose_host_died_is_failed_once_its_beat_stops(
    tmp_path: Path, same_name: bool
) -> None:
    with Hosts(tmp_path, same_name=same_name).run() as h:
        os.killpg(h.job_group(), signal.SIGKILL)  # the first host is gone, with its job
        _wait(lambda: "runs on host" in h.second_log(), 20, "the takeover")
        _wait(h.ended, 60, "the workflow to end under the second engine")
        info = h.info(f"{h.wf}@a")
        assert info["status"] in ("FAILED", "ERROR") and info["errorCode"] == "EB0503", info
        host = _first_host(h)
        assert (
            f"no exit record, and its wrapper on host {host} stopped beating (8 s without a"
            " beat): that host or the job is gone"
        ) in str(info["errorMessage"]), info
        assert "has not beaten for" in h.second_log()
        assert h._count().split() == ["START"]
        # should that host only have paused, the job stops within a beat of its return
        assert Path(f"{h.attempt('a')}.kill").exists()


def test_a_job_on_a_host_that_paused_and_came_back_is_stopped_not_run_on(tmp_path: Path) -> None:
    """QA: the first host froze (a VM paused) past the stale time, the second engine judged
    its job gone and went on; when the host came back, the job ran on to its end beside
    whatever the second engine started. The verdict leaves a kill request for its beat loop."""
    with Hosts(tmp_path).run(secs=20) as h:
        group = h.job_group()
        os.killpg(group, signal.SIGSTOP)  # the host pauses (its engine is gone)
        _wait(h.ended, 60, "the verdict")
        assert h.info(f"{h.wf}@a")["errorCode"] == "EB0503"
        os.killpg(group, signal.SIGCONT)  # ...and comes back
        _wait(lambda: not _group_alive(group), 10, "the job to be stopped")
        assert h._count().split() == ["START"]  # stopped, never reached its END


def test_a_kill_reaches_a_job_running_on_the_first_host(tmp_path: Path) -> None:
    with Hosts(tmp_path).run() as h:
        _wait(lambda: "runs on host" in h.second_log(), 20, "the takeover")
        group = h.job_group()
        h.cli("kill", h.wf)
        _wait(h.ended, 20, "the kill")
        assert h.info(h.wf)["status"] == "KILLED"
        # the job's wrapper passed the request on: its group is gone within a beat or two

        _wait(lambda: not _group_alive(group), 10, "job a's group to end on the first host")
        assert "asked its wrapper to stop it" in h.second_log()
        assert h._count().split() == ["START"]


def test_a_kill_given_with_no_engine_then_a_rerun_reaches_the_job_on_the_first_host(
    tmp_path: Path,
) -> None:
    """QA: ``kill W`` then ``rerun W`` while no engine ran; the engine that then started on
    another host looked for the old job in its own /proc only, and the old job ran on beside
    the rerun's. The old attempt's kill request is written for its beat loop."""
    with Hosts(tmp_path).run(secs=30, standby=False) as h:
        group = h.job_group()
        h.cli("kill", h.wf)
        h.cli("rerun", h.wf)
        h.start_other()
        _wait(lambda: not _group_alive(group), 20, "the old job to be stopped")
        _wait(lambda: h._count().split()[:2] == ["START", "START"], 20, "the rerun's job")
        assert Path(f"{h.attempt('a')}.kill").exists()
        h.cli("kill", h.wf)


def _group_alive(group: int) -> bool:
    """A live member of the process group (a zombie waiting for init does not count)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            return True
    return False
