"""QA: closing the terminal or SSH session of a foreground ``bundletui run`` (SIGHUP) killed
the engine as ``kill -9`` does: no log line, the lease left for its TTL. A hang-up now stops it
as Ctrl-C does; under ``nohup`` (SIGHUP ignored) it runs on."""

from __future__ import annotations

import signal
import subprocess
import time

from tests.e2e.conftest import BUNDLETUI, Bt


def test_a_hang_up_stops_the_engine_and_its_standby_cleanly(bt: Bt) -> None:
    engine = bt.engine()
    standby = bt.engine(wait=False)
    standby.wait_log("waiting as standby")
    for e in (standby, engine):
        e.proc.send_signal(signal.SIGHUP)
        assert e.proc.wait(10) == 0, e.log()
    assert "standby stopping, as asked" in standby.log()
    assert "stopping, as asked" in engine.log()
    # the lease was released: the next engine is active at once, not after the lease's TTL
    assert bt.engine().wait_active() < 5


def test_under_nohup_a_hang_up_is_ignored(bt: Bt) -> None:
    log = (bt.tmp / "nohup.log").open("wb")
    proc = subprocess.Popen(
        [BUNDLETUI, "run", "--home", str(bt.home)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        env=bt.env,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # what nohup does
    )
    try:
        deadline = time.monotonic() + 10
        while "engine active" not in (bt.tmp / "nohup.log").read_text():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        assert proc.poll() is None  # still running
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        log.close()
