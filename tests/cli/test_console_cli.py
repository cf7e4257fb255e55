"""Engine and console options checked before anything starts: a clear error, nothing taken."""

from __future__ import annotations

from pathlib import Path

from tests.cli import bundletui


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
