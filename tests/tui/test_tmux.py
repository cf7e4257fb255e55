"""The real ``bundletui console --demo`` in a real terminal (tmux), driven the way a person
would: wait for text, send keys, read the screen with capture-pane. Runs with NO_COLOR (the
statuses must still read as text) and is resized to 80×24 on the way. At the end ``q`` must
leave nothing behind: no feeder, no demo directory."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

BUNDLETUI = str(Path(sys.executable).with_name("bundletui"))

GREYS = {0, 7, 8, 15, 16, 231, *range(232, 256)}

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


# COLUMNS/LINES (set by pytest and CI runners) would override the terminal's real size
ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}


class Tmux:
    def __init__(self, socket: str, session: str) -> None:
        self.base = ["tmux", "-L", socket]
        self.session = session

    def run(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            [*self.base, *args], capture_output=True, text=True, check=check, timeout=20, env=ENV
        )
        return out.stdout

    def screen(self, colours: bool = False) -> str:
        flags = ["-p", "-J", *(["-e"] if colours else [])]
        return self.run("capture-pane", *flags, "-t", self.session, check=False)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"never saw {pattern!r} on screen:\n{screen}")

    def wait_gone(self, pattern: str, timeout: float = 15.0) -> str:
        end = time.monotonic() + timeout
        screen = self.screen()
        while re.search(pattern, screen):
            if time.monotonic() > end:
                raise AssertionError(f"{pattern!r} stayed on screen:\n{screen}")
            time.sleep(0.1)
            screen = self.screen()
        return screen

    def alive(self) -> bool:
        return (
            subprocess.run(
                [*self.base, "has-session", "-t", self.session], capture_output=True
            ).returncode
            == 0
        )


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    t = Tmux(f"bt-{uuid.uuid4().hex[:8]}", "bt")
    yield t
    if t.alive():  # a failed test: quit the console the way a person would, then tear down
        for key in ("Escape", "Escape", "q"):
            t.keys(key)
            time.sleep(0.5)
        for _ in range(100):
            if not t.alive():
                break
            time.sleep(0.1)
    subprocess.run([*t.base, "kill-server"], capture_output=True, env=ENV)


def processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline:
            found.append(int(entry.name))
    return found


def test_demo_in_a_real_terminal(tmux: Tmux) -> None:
    tmux.run(
        "new-session", "-d", "-s", "bt", "-x", "120", "-y", "40",
        "-e", "TERM=xterm-256color", "-e", "NO_COLOR=1", "-e", "COLORTERM=",
        f"{BUNDLETUI} console --demo --interval 0.5",
    )  # fmt: skip
    screen = tmux.wait_for(r"engine: active \(in console, pid \d+\)(.|\n)*ingest(.|\n)*why:", 40)
    assert "DEMO" in screen and "feeds" in screen and "ingest" in screen
    demo_home = re.search(r"(/\S*bundletui-demo-\w+)/landing", screen)  # the bundle's details
    assert demo_home, screen
    home = demo_home.group(1)
    assert Path(home).is_dir() and processes_mentioning(f"{home}/landing")  # the feeder

    # the feeder drops a partition every 3 s: ingest actions go WAITING -> ... -> SUCCEEDED
    tmux.keys("Down")
    tmux.wait_for(r"coordinator ingest", 20)  # the details follow the cursor
    tmux.keys("Right")
    tmux.wait_for(r"@\d+ \S+ +WAITING", 20)
    screen = tmux.wait_for(r"@\d+ \S+ +SUCCEEDED", 40)
    assert "why:" in screen and "WAITING for inputs" in screen
    # NO_COLOR: only grey levels reach the terminal, the status words carry the meaning
    coloured = tmux.screen(colours=True)
    palette = {int(n) for n in re.findall(r"[34]8;5;(\d+)", coloured)}
    assert palette and palette <= GREYS, f"colours under NO_COLOR: {sorted(palette - GREYS)}"
    assert not re.search(r"\x1b\[3[1-6]m|[34]8;2;", coloured)

    tmux.keys("?")
    tmux.wait_for(r"keys \(enter runs one\)")
    tmux.keys("Escape")  # a lone Esc: wait for it before the next key (else it is alt+key)
    tmux.wait_gone(r"keys \(enter runs one\)")
    tmux.keys("s")
    screen = tmux.wait_for(r"Suspend coordinator ingest \(RUNNING\)\?")
    assert re.search(r"coordinator\s+\d{7}-\d{15}-bundletui-\S+-C", screen)
    tmux.keys("Escape")  # cancelled: nothing suspended
    tmux.wait_gone(r"Suspend coordinator ingest")
    tmux.keys("Down")
    tmux.wait_for(r"action @1 of ingest")  # details of the first action

    tmux.run("resize-window", "-t", "bt", "-x", "80", "-y", "24")
    screen = tmux.wait_for(r"Quit", 10)
    assert all(len(line) <= 80 for line in screen.splitlines())
    assert "ingest" in screen

    tmux.keys("q")
    end = time.monotonic() + 20
    while tmux.alive() and time.monotonic() < end:
        time.sleep(0.1)
    assert not tmux.alive(), "the console did not quit"
    for _ in range(50):
        if not Path(home).exists() and not processes_mentioning(f"{home}/landing"):
            break
        time.sleep(0.1)
    assert not Path(home).exists(), "demo home left behind"
    assert not processes_mentioning(f"{home}/landing"), "feeder left running"
