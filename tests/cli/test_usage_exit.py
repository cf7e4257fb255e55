"""What the command line alone shows to be wrong exits 2 (README: a value an option cannot
take, options that do not go together), even when the command layer is the one that sees it;
a command the store refuses exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli import bundletui


@pytest.fixture(scope="module")
def jobs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("usage")
    (root / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{root / "out"}"/></fs></job></dag-app>'
    )
    (root / "c.xml").write_text(
        '<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="60"'
        ' start="2026-01-01T00:00Z" end="2026-01-01T05:00Z" timezone="UTC">'
        f"<action><workflow><app-path>{root / 'wf.xml'}</app-path></workflow></action>"
        "</coordinator-app>"
    )
    (root / "c.properties").write_text(f"oozie.coord.application.path={root / 'c.xml'}\n")
    (root / "w.properties").write_text(f"oozie.wf.application.path={root / 'wf.xml'}\n")
    home = root / "home"
    coord = bundletui("submit", str(root / "c.properties"), home=home).stdout.split()[-1]
    wf = bundletui("submit", str(root / "w.properties"), home=home).stdout.split()[-1]
    assert coord.endswith("-C") and wf.endswith("-W")
    return home, coord, wf


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("kill", "C", "--action", "x"), "E0302"),
        (("kill", "C", "--action", "1", "--date", "2026-01-01T00:00Z"), "E0302"),
        (("kill", "C", "--date", "garbage"), "E0302"),
        (("rerun", "W", "--skip-nodes", "a", "--failed-nodes"), "E0404"),
        (("rerun", "W", "--action", "1"), "E0302"),
        (("suspend", "W", "--action", "1"), "E0302"),
        (("change", "W", "--value", "endtime=2026-01-01T00:00Z"), "E0302"),
        (("console", "--read-only", "--clock", "simulated"), "E0303"),
    ],
)
def test_a_mistake_the_command_line_shows_exits_2(
    jobs: tuple[Path, str, str], args: tuple[str, ...], code: str
) -> None:
    home, coord, wf = jobs
    argv = [{"C": coord, "W": wf}.get(a, a) for a in args]
    r = bundletui(*argv, home=home)
    assert r.returncode == 2 and r.stderr.startswith(f"Error: {code}: "), r


def test_options_of_eval_and_dryrun_are_usage_errors(jobs: tuple[Path, str, str]) -> None:
    home = jobs[0]
    r = bundletui("eval", "${coord:current(0)}", "--nominal-time", "garbage")
    assert r.returncode == 2 and r.stderr.startswith("Error: E0302: "), r
    props = home.parent / "c.properties"
    r = bundletui("dryrun", str(props), "--start", "garbage", home=home)
    assert r.returncode == 2 and "E0302: Invalid parameter [--start garbage" in r.stderr, r


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--timezone", "Mars"), "E1003: --timezone: "),
        (("--dataset-timezone", "Mars", "--dataset-frequency", "60"), "--dataset-timezone"),
        (("--dataset-frequency", "garbage"), "E1003: --dataset-frequency: "),
        (("--dataset-frequency", "${coord:days(0)}"), "E1004: --dataset-frequency: "),
        (("--dataset-frequency", "60"), "needs --dataset-initial-instance"),
    ],
)
def test_a_bad_eval_option_value_exits_2(options: tuple[str, ...], says: str) -> None:
    """The expression's own errors exit 1 (as a file's content does for validate)."""
    initial = () if "needs" in says else ("--dataset-initial-instance", "2025-01-01T00:00Z")
    nominal = ("--nominal-time", "2026-01-01T00:00Z")
    r = bundletui("eval", "${coord:current(0)}", *nominal, *initial, *options)
    assert r.returncode == 2 and says in r.stderr, r
    r = bundletui("eval", "${coord:nope()}", *nominal)
    assert r.returncode == 1 and "E1004" in r.stderr, r


def test_a_refusal_by_the_store_still_exits_1(jobs: tuple[Path, str, str]) -> None:
    home, coord, _wf = jobs
    r = bundletui("kill", coord, "--action", "1", home=home)  # no action 1 yet: E0605
    assert r.returncode == 1 and r.stderr.startswith("Error: E0605: "), r


def _store_dump(home: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(home / "bundletui.db")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def _jobs_dump(home: Path) -> list[str]:
    """The store but its audit trail (a refused command is audited, with its error, and the
    store's revision counts that row)."""
    audit = (
        'INSERT INTO "audit_log"',
        "INSERT INTO \"meta\" VALUES('rev'",
        "INSERT INTO \"sqlite_sequence\" VALUES('audit_log'",
    )
    return [line for line in _store_dump(home) if not line.startswith(audit)]


def test_an_option_given_twice_is_refused_not_half_dropped(jobs: tuple[Path, str, str]) -> None:
    """QA: ``kill C --action 1 --action 2`` killed @2 alone (click keeps the last value) and
    exited 0; the Oozie front kept the first. Ours refuses it (E0302, exit 2, nothing
    changed); the Oozie front keeps Oozie's first value and says which one it ignored."""
    home, coord, wf = jobs
    before = _store_dump(home)
    r = bundletui("kill", coord, "--action", "1", "--action=2", home=home)
    assert r.returncode == 2, r
    assert r.stderr.startswith("Error: E0302: option --action given 2 times (1, 2): give it"), r
    assert "comma-separated: --action 1,2" in r.stderr, r
    r = bundletui("jobs", "--len", "3", "--len", "4", home=home)
    assert r.returncode == 2 and "option --len given 2 times (3, 4): give it once\n" in r.stderr
    assert _store_dump(home) == before
    r = bundletui("kill", coord, "--action", "1", "--action", "2", "--help", home=home)
    assert r.returncode == 0 and "Usage:" in r.stdout, r  # help asked: help, not a refusal
    # several -D are several properties, not a repeat
    r = bundletui("eval", "${a}${b}", "-D", "a=1", "-D", "b=2")
    assert r.returncode == 0 and r.stdout.strip() == "12", r
    r = bundletui("oozie", "job", "-info", wf, "-len", "5", "-len", "7", home=home)
    assert r.returncode == 0, r
    assert "note: -len 7 ignored: -len was given before (5), and Oozie's CLI takes the first" in (
        r.stderr
    ), r


def test_small_mistakes_get_a_hint_that_fits(jobs: tuple[Path, str, str], tmp_path: Path) -> None:
    """QA (bad input): ``jobs -len 5`` said "no such option: -l" and pointed to --help; a
    store path that is a directory hinted at permissions; an application XML given to
    ``submit`` did not say what goes there; ``run --api-token`` without ``--api`` ran."""
    home, coord, _wf = jobs
    r = bundletui("jobs", "-len", "5", home=home)
    assert r.returncode == 2 and "no such option: -l" in r.stderr, r
    assert "hint: options take two dashes here: --len; Oozie's spelling, -len," in r.stderr, r
    r = bundletui("info", coord, "-filter", "status=RUNNING", home=home)
    assert "--filter" in r.stderr, r
    odd = tmp_path / "odd"
    (odd / "bundletui.db").mkdir(parents=True)
    r = bundletui("jobs", home=odd)
    assert r.returncode == 1 and r.stderr.startswith("Error: EB002: "), r
    assert f"hint: {odd / 'bundletui.db'} is a directory, not a store" in r.stderr, r
    app = home.parent / "c.xml"
    r = bundletui("submit", str(app), home=home)
    assert r.returncode == 1 and "root element <coordinator-app> is not <configuration>" in (
        r.stderr
    ), r
    assert f"with oozie.coord.application.path={app}" in r.stderr, r
    r = bundletui("run", "--api-token", "t", home=odd)
    assert r.returncode == 2 and "E0302: Invalid parameter [--api-token without --api]" in (
        r.stderr
    ), r
    # Oozie's -config FILE: here the file is the argument (it said "see --help")
    props = home.parent / "c.properties"
    for command in ("submit", "dryrun"):
        r = bundletui(command, "--config", str(props), home=odd)
        assert r.returncode == 2 and "no such option: --config" in r.stderr, r
        assert f"hint: give it without the option: bundletui {command} {props}\n" in r.stderr
    r = bundletui("submit", f"--config={props}", home=odd)
    assert f"hint: give it without the option: bundletui submit {props}\n" in r.stderr, r
    r = bundletui("run", "--config", str(props), home=odd)
    assert r.returncode == 2 and "to submit a job and start it: bundletui submit --start" in (
        r.stderr
    ), r
    r = bundletui("info", "--config", str(props), home=odd)  # a job id is no file: --help
    assert r.returncode == 2 and "hint: see bundletui info --help" in r.stderr, r
    # from the environment (set for every run), it does not stop an engine without --api
    fresh = tmp_path / "fresh"
    r = bundletui("run", "--exit-when-idle", home=fresh, env={"BUNDLETUI_API_TOKEN": "t"})
    assert r.returncode == 0, r


@pytest.mark.parametrize(
    ("args", "says"),
    [
        # a command the id's kind never takes (as suspend W@a)
        (("start", "C"), "E0303: Invalid parameter value, [action] = [start]"),
        (("start", "C@1"), "E0303: Invalid parameter value, [action] = [start]"),
        (("start", "W@a"), "E0303: Invalid parameter value, [action] = [start]"),
        # a change value that is wrong as written, whatever the coordinator's state
        (("change", "C", "--value", "foo=1"), "E1015: Invalid coordinator job change value"),
        (("change", "C", "--value", "concurrency=x"), "concurrency must be an integer"),
        (("change", "C", "--value", "endtime=garbage"), "endtime: Could not parse [garbage]"),
        (("change", "C", "--value", "status=KILLED"), "status must be RUNNING or IGNORED"),
        (("change", "C", "--value", "concurrency"), "concurrency needs a value"),
        (("change", "C", "--value", "concurrency=2;concurrency=3"), "[concurrency] given twice"),
        (("change", "C", "--value", ";"), "nothing to change for"),
    ],
)
def test_a_wrong_kind_of_id_or_change_value_exits_2_as_any_usage_mistake(
    jobs: tuple[Path, str, str], args: tuple[str, ...], says: str
) -> None:
    """Review: ``start C`` and a change value that could not parse exited 1 (a refusal)
    while ``suspend W@a`` and ``kill C --action ''`` exited 2; the command line alone shows
    each, so each is a usage mistake now: exit 2, the message unchanged, nothing stored (but its
    audit row)."""
    home, coord, wf = jobs
    before = _jobs_dump(home)
    argv = [{"C": coord, "C@1": f"{coord}@1", "W@a": f"{wf}@a"}.get(a, a) for a in args]
    r = bundletui(*argv, home=home)
    assert r.returncode == 2 and r.stderr.startswith("Error: E"), r
    assert says in r.stderr, r
    assert _jobs_dump(home) == before


def test_a_change_the_coordinator_refuses_still_exits_1(jobs: tuple[Path, str, str]) -> None:
    """The value parses; the coordinator's state refuses it: a refusal, exit 1."""
    home, coord, _wf = jobs
    r = bundletui("change", coord, "--value", "status=RUNNING", home=home)  # it is PREP
    assert r.returncode == 1 and r.stderr.startswith("Error: E1015: "), r  # Oozie's code


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--coordinator", ""), "--coordinator is empty"),
        (("--date", " , "), "--date is empty"),
        ((), "give coordinator names and/or date ranges"),
    ],
)
def test_a_bundle_rerun_without_a_scope_exits_2(
    tmp_path: Path, options: tuple[str, ...], says: str
) -> None:
    """As ``rerun C --action ''`` (E0302, exit 2); Oozie's code E1018 is kept."""
    feeds = Path(__file__).resolve().parents[2] / "sample_bundles" / "feeds" / "job.properties"
    home = tmp_path / "home"
    dates = ("-D", "start=2026-01-01T00:00Z", "-D", "end=2026-01-02T00:00Z")
    bundle = bundletui("submit", str(feeds), *dates, home=home).stdout.split()[-1]
    assert bundle.endswith("-B")
    before = _jobs_dump(home)
    r = bundletui("rerun", bundle, *options, home=home)
    assert r.returncode == 2 and r.stderr.startswith("Error: E1018: Coord Job Rerun Error: "), r
    assert says in r.stderr, r
    assert _jobs_dump(home) == before


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("-D", "oozie.wf.rerun.failnodes=true", "-D", "oozie.wf.rerun.skip.nodes=a"), "E0404"),
        (("-D", "oozie.wf.rerun.failnodes=yes"), "E0303"),
        (("--failed-nodes", "-D", "oozie.wf.rerun.skip.nodes=a"), "E0404"),
    ],
)
def test_rerun_properties_that_contradict_exit_2_as_the_options_do(
    jobs: tuple[Path, str, str], args: tuple[str, ...], says: str
) -> None:
    """QA: ``--skip-nodes a --failed-nodes`` exited 2 and the same said with Oozie's ``-D``
    properties, which are read as the options are, exited 1."""
    home, _coord, wf = jobs
    r = bundletui("rerun", wf, *args, home=home)
    assert r.returncode == 2 and r.stderr.startswith(f"Error: {says}: "), r


def test_a_filter_element_with_no_value_is_refused_as_oozie_does(
    jobs: tuple[Path, str, str],
) -> None:
    """QA: ``jobs --filter name=`` listed nothing, exit 0; Oozie's servlet splits ``name=``
    into one element and refuses it (E0420)."""
    home = jobs[0]
    for text in ("name=", "status=RUNNING;user= "):
        r = bundletui("jobs", "--filter", text, home=home)
        assert r.returncode == 2, r
        assert f"E0420: Invalid jobs filter [{text}], elements must be name=value pairs" in (
            r.stderr
        ), r
    r = bundletui("jobs", "--filter", "name=w", home=home)
    assert r.returncode == 0 and "1 of 1" in r.stdout, r
