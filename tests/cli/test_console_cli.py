"""Engine and console options checked before anything starts: a clear error, nothing taken."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time
from pathlib import Path

from tests.cli import BUNDLETUI, bundletui, mkdir_workflow


def test_read_only_on_a_missing_store_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    home = tmp_path / "typo"
    done = bundletui("console", "--read-only", "--home", str(home))
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: EB001: no store at {home / 'bundletui.db'}")
    assert not home.exists()


def test_run_on_a_simulated_clock_without_a_start_time_says_so_before_taking_the_lease(
    tmp_path: Path,
) -> None:
    done = bundletui("run", "--clock", "simulated", "--home", str(tmp_path / "home"))
    assert done.returncode == 1
    assert done.stderr.startswith("Error: EB201: a simulated clock needs --start-time"), done
    assert "engine active" not in done.stdout + done.stderr


def test_a_console_on_a_simulated_store_is_refused_before_it_opens(tmp_path: Path) -> None:
    """As ``run`` refuses it (EB203), not with the screen open and the refusal in its header
    (README: the console's clock options are checked as ``run`` checks them)."""
    home = tmp_path / "home"
    at = ("--start-time", "2026-01-01T00:00Z", "--until", "2026-01-01T00:00Z")
    assert bundletui("run", "--clock", "simulated", *at, "--home", str(home)).returncode == 0
    done = bundletui("console", "--home", str(home), timeout=30)
    assert done.returncode == 1, done
    assert done.stderr.startswith("Error: EB203: this store runs on a simulated clock"), done
    assert "--read-only to look at it without an engine" in done.stderr
    assert "\x1b[" not in done.stdout  # no screen was drawn


def test_a_console_without_a_terminal_is_refused_before_it_starts_anything(
    tmp_path: Path,
) -> None:
    """Piped or redirected it drew escape codes into the file and waited for keys forever,
    with an engine of its own holding the store."""
    home = tmp_path / "home"
    props = mkdir_workflow(tmp_path)
    assert bundletui("submit", str(props), "--start", home=home).returncode == 0
    before = (home / "bundletui.db").read_bytes()
    done = bundletui("console", home=home, timeout=30)  # stdin: /dev/null
    assert done.returncode == 1, done
    assert done.stderr.startswith(
        "Error: EB602: the console needs a terminal, and its standard input is not one"
    ), done
    assert "\x1b[" not in done.stdout and "ssh -t" in done.stderr
    # a terminal for input, the output piped (console | less)
    leader, follower = pty.openpty()
    try:
        piped = subprocess.run(
            [BUNDLETUI, "console"],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "BUNDLETUI_HOME": str(home), "NO_COLOR": "1"},
            check=False,
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert piped.returncode == 1 and "standard output is not one" in piped.stderr, piped
    assert (home / "bundletui.db").read_bytes() == before  # no engine ran, nothing launched
    assert not (tmp_path / "out").exists()
    demo = bundletui("console", "--demo", "--home", str(tmp_path / "demo"), timeout=30)
    assert demo.returncode == 1 and "EB602" in demo.stderr
    assert not (tmp_path / "demo" / "bundletui.db").exists()  # no demo store made


def test_a_console_whose_terminal_hangs_up_exits(tmp_path: Path) -> None:
    """QA (ag): after an SSH drop (the terminal gone, SIGHUP) a console sometimes never
    exited, stuck writing to the dead terminal and deaf to SIGTERM; it held 90-220 MB each.
    It quits on the hang-up, and a watchdog ends it if the quitting itself hangs."""
    home = tmp_path / "home"
    assert bundletui("submit", str(mkdir_workflow(tmp_path)), home=home).returncode == 0
    leader, follower = pty.openpty()
    console = subprocess.Popen(
        [BUNDLETUI, "console", "--read-only"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "BUNDLETUI_HOME": str(home), "TERM": "xterm-256color"},
        start_new_session=True,
    )
    os.close(follower)
    try:
        drawn = b""
        deadline = time.monotonic() + 30
        while b"jobs" not in drawn and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                drawn += os.read(leader, 65536)
        assert b"jobs" in drawn, drawn[-2000:]
    finally:
        os.close(leader)  # the terminal is gone
    console.send_signal(signal.SIGHUP)
    assert console.wait(timeout=30) is not None
