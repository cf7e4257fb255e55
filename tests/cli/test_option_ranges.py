"""Numbers on the command line are checked where they are read: a usage error (one line and a
hint, exit 2) naming the option, never a traceback from the store, and never an engine that
cannot run anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import bundletui


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("jobs", "--len", str(2**63)), "--len"),
        (("jobs", "--offset", str(2**63)), "--offset"),
        (("info", "0000001-000000000000000-bundletui-x-C", "--len", str(2**63)), "--len"),
        (("info", "0000001-000000000000000-bundletui-x-C", "--offset", str(2**31)), "--offset"),
        (("run", "--max-workers", "0"), "--max-workers"),  # nothing would ever launch
        (("run", "--max-workers", "-1"), "--max-workers"),
        (("dryrun", "job.properties", "--limit", "0"), "--limit"),  # "no action" said nothing
        # a console polling every nan seconds spun a core (QA); 0 and below were taken too
        (("console", "--read-only", "--interval", "nan"), "--interval"),
        (("console", "--read-only", "--interval", "inf"), "--interval"),
        (("console", "--read-only", "--interval", "0"), "--interval"),
    ],
)
def test_a_number_out_of_range_is_a_usage_error(
    tmp_path: Path, args: tuple[str, ...], option: str
) -> None:
    r = bundletui(*args, home=tmp_path / "home", timeout=30)
    assert r.returncode == 2, r
    error, hint = r.stderr.splitlines()  # one line and a hint, as every error (no usage box)
    assert error.startswith(f"Error: E0302: invalid value for '{option}': "), r.stderr
    assert hint.strip().endswith(f"{args[0]} --help") and hint.strip().startswith("hint: see")
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("info", "x", "--bogus"), "no such option: --bogus"),
        (("info",), "missing argument 'job_id'."),
        (("nosuch",), "no such command 'nosuch'."),
        # values the command line itself can tell are wrong (they exited 1, as a file's error)
        (
            ("jobs", "--type", "foo"),
            "invalid value for '--type': 'foo': use workflow, coordinator or bundle",
        ),
        (
            ("eval", "x", "-D", "novalue"),
            "invalid value for '-D' / '--define': 'novalue' is "
            "not name=value (the value may be empty: name=)",
        ),
        (
            ("submit", "job.properties", "-D", "=v"),
            "invalid value for '-D' / '--define': "
            "'=v' is not name=value (the value may be empty: name=)",
        ),
    ],
)
def test_a_command_line_mistake_is_one_error_line_and_exit_2(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    r = bundletui(*args, home=tmp_path / "home", timeout=30)
    assert r.returncode == 2, r
    error, hint = r.stderr.splitlines()
    assert error == f"Error: E0302: {says}", r.stderr
    assert hint.strip().startswith("hint: see") and hint.strip().endswith("--help")


@pytest.mark.parametrize("below", ["", "x", "x/y"])
def test_a_landing_directory_under_a_file_is_refused_before_the_engine_starts(
    tmp_path: Path, below: str
) -> None:
    """``--landing FILE/x`` started the engine and then died making the directory."""
    file = tmp_path / "data.csv"
    file.write_text("a,b\n")
    r = bundletui("run", "--landing", str(file / below), home=tmp_path / "home", timeout=30)
    assert r.returncode == 2, r  # a usage mistake
    assert r.stderr.startswith("Error: E0303: Invalid parameter value, [--landing]"), r.stderr
    assert f"{file} is a file, not a directory" in r.stderr
    assert not (tmp_path / "home").exists()


def test_the_root_of_the_file_system_is_refused_as_a_landing_directory(tmp_path: Path) -> None:
    """QA: ``--landing /`` was taken: the engine walked the whole file system every 2 s at half
    a core, and a SIGTERM waited minutes for the walk to end. Through a link to it as well."""
    (tmp_path / "to-root").symlink_to("/")
    for given in ("/", str(tmp_path / "to-root")):
        r = bundletui("run", "--landing", given, home=tmp_path / "home", timeout=30)
        assert r.returncode == 2, r
        assert r.stderr.startswith(
            f"Error: E0303: Invalid parameter value, [--landing] = [{given}]: it is the root"
        ), r.stderr
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("clock", [(), ("--clock", "real")])
def test_a_start_time_without_the_simulated_clock_is_refused_not_ignored(
    tmp_path: Path, clock: tuple[str, ...]
) -> None:
    """QA: ``run --clock real --start-time T`` ran on the real clock and said nothing, which
    read like a time shift that had worked."""
    home = tmp_path / "home"
    r = bundletui("run", *clock, "--start-time", "2026-01-01T00:00Z", home=home, timeout=30)
    assert r.returncode == 2, r  # a usage mistake
    assert r.stderr.startswith(
        "Error: E0303: Invalid parameter value, [--start-time] = [2026-01-01T00:00Z]: it is"
        " where a simulated clock starts, and goes with --clock simulated"
    ), r.stderr
    assert "hint: add --clock simulated, or leave --start-time out" in r.stderr
    assert "engine active" not in r.stderr + r.stdout
    assert not home.exists()


@pytest.mark.parametrize("option", ["--start-time", "--until"])
def test_a_bad_time_option_is_an_invalid_parameter_not_a_coordinator_attribute(
    tmp_path: Path, option: str
) -> None:
    """It said "E1003: Invalid coordinator application attributes" for a command-line option."""
    r = bundletui("run", "--clock", "simulated", option, "tomorrow", home=tmp_path / "h")
    assert r.returncode == 2, r  # a usage mistake
    first = r.stderr.splitlines()[0]
    assert first == (
        f"Error: E0302: Invalid parameter [{option} tomorrow: Could not parse [tomorrow] "
        "using [yyyy-MM-dd'T'HH:mm'Z'] mask]"
    ), r.stderr
    assert "hint: write times as yyyy-MM-ddTHH:mmZ" in r.stderr
    assert "coordinator" not in r.stderr and not (tmp_path / "h").exists()


def test_an_until_before_the_simulated_clock_says_why_the_engine_stops_at_once(
    tmp_path: Path,
) -> None:
    """``run --until`` earlier than the clock exited 0 at once without a word."""
    home = tmp_path / "home"
    args = ("run", "--clock", "simulated", "--start-time", "2026-01-02T00:00Z")
    assert bundletui(*args, "--until", "2026-01-02T00:00Z", home=home, timeout=60).returncode == 0
    r = bundletui(*args, "--until", "2026-01-01T00:00Z", home=home, timeout=60)
    assert r.returncode == 0, r
    out = " ".join((r.stdout + r.stderr).split())
    assert "--until 2026-01-01T00:00:00+00:00 is before the simulated clock" in out, out
    assert "reached --until" in out


@pytest.mark.parametrize("paging", [("--len", "1"), ("--offset", "2")])
def test_a_bundle_info_refuses_paging_rather_than_ignoring_it(
    tmp_path: Path, paging: tuple[str, ...]
) -> None:
    """``info BUNDLE --len 1`` listed every coordinator, as though the option had not been
    given; it pages nothing of a bundle, so it is refused before the store is read."""
    r = bundletui("info", "0000001-000000000000000-bundletui-x-B", *paging, home=tmp_path / "h")
    assert r.returncode == 2, r  # a usage mistake
    assert r.stderr.startswith(
        "Error: E0302: Invalid parameter [--len / --offset page a coordinator's actions or a"
        " workflow's nodes; a bundle lists all of its coordinators]"
    ), r.stderr
    assert "bundletui info COORD_ID --len N" in r.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("run", "--api", "70000"), "E0303: Invalid parameter value, [--api] = [70000]"),
        (("run", "--clock", "fake"), "E0303: Invalid parameter value, [clock] = [fake]"),
        (
            ("info", "0000001-000000000000000-bundletui-x-C", "--order", "sideways"),
            "E0303: Invalid parameter value, [order] = [sideways]",
        ),
        (
            ("info", "0000001-000000000000000-bundletui-x-W", "--order", "desc"),
            "E0302: Invalid parameter [--filter / --order apply to a coordinator's actions]",
        ),
        # QA: an option with no value had no hint line
        (("jobs", "--home"), "E0302: option '--home' requires an argument."),
    ],
)
def test_an_option_value_the_command_line_can_tell_is_wrong_exits_2(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    """QA (n): these exited 1, as a refused command does, so a script could not tell them
    from a run-time error; they are usage mistakes (exit 2), said before the store is read."""
    r = bundletui(*args, home=tmp_path / "home", timeout=30)
    assert r.returncode == 2, r
    assert r.stderr.splitlines()[0] == f"Error: {says}", r.stderr
    assert "hint:" in r.stderr and not (tmp_path / "home").exists()


@pytest.mark.parametrize(
    ("job_id", "says"),
    [
        ("0000001-000000000000000-bundletui-x-C@2", "an action is one row"),
        ("0000001-000000000000000-bundletui-x-W@node", "a node is one row"),
    ],
)
def test_an_action_or_node_info_refuses_paging_rather_than_ignoring_it(
    tmp_path: Path, job_id: str, says: str
) -> None:
    """QA (af): ``info C@2 --len 5 --offset 9`` showed the action as if neither option were
    given, while ``--order`` there was refused (exit 2)."""
    r = bundletui("info", job_id, "--offset", "9", home=tmp_path / "h")
    assert r.returncode == 2, r
    assert f"workflow's nodes; {says}]" in r.stderr, r.stderr
