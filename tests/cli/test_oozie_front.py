"""``bundletui oozie job|jobs``: Oozie's option spelling, output formats (oozie.md §6, OozieCLI's
printers) and exit codes, through the real console script; plus ``bundletui info``'s human
output for coordinators and bundles at 80 columns.

Stores are built in-process with the real commands (coordinator actions through the store
layer: see tests/commands/sample_apps.add_actions); every assertion is about what the console
script prints. TZ=UTC so Java's "local time" outputs are deterministic.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bundletui.commands import queries
from bundletui.commands.base import Ctx
from bundletui.commands.submit import submit_loaded
from bundletui.spec.load import load_job
from bundletui.store.db import Store
from tests.cli import bundletui
from tests.commands.sample_apps import ActionSpec, Apps, add_actions, write_apps

RULER = "-" * 132
COORD_HEADER = f"{'ID':<43}{'Status':<10}{'Ext ID':<37}{'Err Code':<10}{'Created':<21}{'Nominal Time':<21}"  # fmt: skip


def col(value: str, width: int) -> str:
    """Java's %-Ns, except that a value as wide as its column still gets a space after it."""
    return f"{value:<{width}}" if len(value) < width else value + " "


@dataclass
class Out:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def oozie(home: Path, *args: str, columns: int | None = None) -> Out:
    env = {"TZ": "UTC", "TERM": "dumb", "OOZIE_TIMEZONE": None, "OOZIE_URL": None}
    if columns:
        env["COLUMNS"] = str(columns)
    proc = bundletui(*args, home=home, env=env)
    return Out(proc.returncode, proc.stdout, proc.stderr)


@dataclass
class World:
    home: Path
    apps: Apps
    coord: str
    wf: str


def _submit(store: Store, props: Path, *defines: str) -> str:
    loaded = load_job(props, list(defines), store.clock, user="alice")
    return submit_loaded(Ctx(store), loaded)


def _dep(apps: Apps, h: int) -> str:
    return f"file://{apps.landing}/clicks/2024/01/01/{h:02d}/_SUCCESS"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """One store for the read-only tests: a coordinator with six actions and a workflow."""
    root = tmp_path_factory.mktemp("oozie-front")
    apps = write_apps(root / "apps")
    with Store(root / "home") as store:
        coord = _submit(store, apps.hourly_props)
        wf = _submit(store, apps.workflow_props)
        add_actions(
            store,
            coord,
            [
                ActionSpec("2024-01-01T00:00Z", "SUCCEEDED", external_id=wf),
                ActionSpec("2024-01-01T01:00Z", "RUNNING", external_id=wf),
                ActionSpec("2024-01-01T02:00Z", "READY"),
                ActionSpec(
                    "2024-01-01T03:00Z",
                    "WAITING",
                    deps=((_dep(apps, 3), False),),
                    held_missing=(_dep(apps, 3),),
                ),
                ActionSpec("2024-01-01T04:00Z", "WAITING", deps=((_dep(apps, 4), False),)),
                ActionSpec("2024-01-01T05:00Z", "TIMEDOUT", error=("E1025", "no input")),
            ],
        )
    return World(root / "home", apps, coord, wf)


@pytest.fixture
def fresh(tmp_path: Path) -> World:
    """A store a test may change."""
    apps = write_apps(tmp_path / "apps")
    with Store(tmp_path / "home") as store:
        coord = _submit(store, apps.hourly_props)
        wf = _submit(store, apps.workflow_props)
        add_actions(
            store,
            coord,
            [
                ActionSpec("2024-01-01T00:00Z", "SUCCEEDED", external_id=wf),
                ActionSpec("2024-01-01T01:00Z", "WAITING", deps=((_dep(apps, 1), False),)),
            ],
        )
    return World(tmp_path / "home", apps, coord, wf)


# ----------------------------------------------------------------------------- submit / run


def test_submit_and_run_print_job_id(fresh: World) -> None:
    out = oozie(fresh.home, "oozie", "job", "-submit", "-config", str(fresh.apps.daily_props))
    assert out.code == 0, out
    assert re.fullmatch(r"job: \d{7}-\d{15}-bundletui-[^\s]+-C\n", out.stdout), out.stdout
    out = oozie(
        fresh.home,
        "oozie",
        "job",
        "-oozie",
        "http://localhost:11000/oozie",
        "-run",
        "-config",
        str(fresh.apps.workflow_props),
        "-D",
        "out=/tmp/elsewhere",
    )
    assert out.code == 0, out
    wf_id = out.stdout.removeprefix("job: ").strip()
    assert wf_id.endswith("-W")
    assert "-oozie http://localhost:11000/oozie ignored" in out.stderr
    # QA: a script's OOZIE_URL (Oozie's CLI reads the server from it) went by without a word
    env = {"TZ": "UTC", "OOZIE_URL": "http://oozie.example:11000/oozie"}
    listed = bundletui("oozie", "jobs", home=fresh.home, env=env)
    assert listed.returncode == 0 and wf_id in listed.stdout
    assert "note: OOZIE_URL=http://oozie.example:11000/oozie ignored" in listed.stderr
    info = oozie(fresh.home, "oozie", "job", "-info", wf_id)
    assert "OOZIE_URL" not in info.stderr
    # a log filter is not a server matter: its note says what it is
    log = oozie(fresh.home, "oozie", "job", "-log", wf_id, "-logfilter", "loglevel=ERROR")
    assert "note: -logfilter loglevel=ERROR ignored: the log is shown whole" in log.stderr, log
    assert "Status        : RUNNING" in info.lines
    # -D alone is a configuration too (Oozie: isConfigurationSpecified)
    out = oozie(
        fresh.home,
        "oozie",
        "job",
        "-submit",
        f"-Doozie.wf.application.path={fresh.apps.root / 'wf'}",
        "-D",
        "out=/tmp/x",
    )
    assert out.code == 0 and out.stdout.startswith("job: "), out


def test_a_reused_external_id_is_said_not_taken_silently(fresh: World) -> None:
    """QA: ``-run`` with another application's ``oozie.wf.external.id`` answered the old job's
    id (and started it) without a word; it says so now, as ``bundletui submit`` does."""
    first = oozie(
        fresh.home, "oozie", "job", "-submit", "-config", str(fresh.apps.workflow_props),
        "-D", "oozie.wf.external.id=nightly",
    )  # fmt: skip
    assert first.code == 0 and first.stderr == "", first
    wf_id = first.stdout.removeprefix("job: ").strip()
    again = oozie(
        fresh.home, "oozie", "job", "-run", "-config", str(fresh.apps.workflow_props),
        "-D", "oozie.wf.external.id=nightly",
    )  # fmt: skip
    assert again.code == 0 and again.stdout == f"job: {wf_id}\n", again
    said = " ".join(again.stderr.split())
    assert f"note: external id nightly names {wf_id} (" in said, again
    assert "that job is returned, and started (it was PREP); nothing new is stored" in said


def test_a_home_without_a_store_is_an_error_not_a_new_store(fresh: World, tmp_path: Path) -> None:
    """A mistyped home gets EB001, as ``bundletui jobs`` does, and is left as it was; only a
    valid submission makes the store."""
    home = tmp_path / "typo"
    for args in (
        ("oozie", "jobs"),
        ("oozie", "job", "-info", fresh.coord),
        ("oozie", "job", "-kill", fresh.coord),
        ("oozie", "admin", "-status"),
        ("oozie", "job", "-run", "-config", str(fresh.apps.hourly_props), "-D", "start=bad"),
        ("oozie", "job", "-dryrun", "-config", str(fresh.apps.workflow_props)),
    ):
        out = oozie(home, *args)
        assert out.code == (0 if "-dryrun" in args else 255), (args, out)
        assert "EB001" in out.stderr or "-config" in args, (args, out)
        assert not home.exists(), args
    out = oozie(home, "oozie", "job", "-run", "-config", str(fresh.apps.workflow_props))
    assert out.code == 0 and out.stdout.startswith("job: "), out
    assert (home / "bundletui.db").exists()
    assert oozie(home, "oozie", "jobs").stdout.count("-W ") == 1


def test_a_workflow_rerun_names_its_nodes_or_is_refused(fresh: World) -> None:
    """``-rerun W`` with neither skip nor fail nodes is E0401, as in Oozie: a forgotten ``-D``
    would run again nodes that succeeded. An empty skip list runs every node again."""
    assert oozie(fresh.home, "oozie", "job", "-kill", fresh.wf).code == 0
    out = oozie(fresh.home, "oozie", "job", "-rerun", fresh.wf)
    assert out.code == 255 and "E0401" in out.stderr, out
    assert "oozie.wf.rerun.skip.nodes OR oozie.wf.rerun.failnodes" in out.stderr
    assert "hint: -D oozie.wf.rerun.failnodes=true" in out.stderr
    with Store(fresh.home, create=False) as store:
        assert queries.job_info(store.conn, fresh.wf)["run"] == 0
    # QA: "yes" read as false (Hadoop's way), which reruns every node, those that succeeded too
    out = oozie(
        fresh.home, "oozie", "job", "-rerun", fresh.wf, "-D", "oozie.wf.rerun.failnodes=yes"
    )
    assert out.code == 255 and "E0303" in out.stderr and "[yes]" in out.stderr, out
    with Store(fresh.home, create=False) as store:
        assert queries.job_info(store.conn, fresh.wf)["run"] == 0
    out = oozie(fresh.home, "oozie", "job", "-rerun", fresh.wf, "-D", "oozie.wf.rerun.skip.nodes=")
    assert out.code == 0, out
    with Store(fresh.home, create=False) as store:
        assert queries.job_info(store.conn, fresh.wf)["run"] == 1
    # the same from an XML -config, where an empty list can only be <value></value> (QA (ad))
    assert oozie(fresh.home, "oozie", "job", "-kill", fresh.wf).code == 0
    skip = fresh.home.parent / "skip.xml"
    skip.write_text(
        "<configuration><property><name>oozie.wf.rerun.skip.nodes</name><value></value>"
        "</property></configuration>"
    )
    out = oozie(fresh.home, "oozie", "job", "-rerun", fresh.wf, "-config", str(skip))
    assert out.code == 0, out
    with Store(fresh.home, create=False) as store:
        assert queries.job_info(store.conn, fresh.wf)["run"] == 2


def test_submit_without_configuration(fresh: World) -> None:
    out = oozie(fresh.home, "oozie", "job", "-submit", "-config", "/nonexistent.properties")
    assert (out.code, out.stderr.strip()) == (
        255,
        # Oozie's line, which scripts may match, then where the mistake is (QA: "it was given")
        "Error: configuration is not specified\n"
        "  note: the -config file /nonexistent.properties does not exist",
    )
    out = oozie(
        fresh.home, "oozie", "job", "-submit", "-config", "/nonexistent.properties", "-Da=1"
    )
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: configuration file [/nonexistent.properties] not found",
    )
    bad = fresh.apps.root / "job.conf"
    bad.write_text("x=1\n")
    out = oozie(fresh.home, "oozie", "job", "-run", "-config", str(bad))
    assert out.code == 255
    assert out.stderr.strip() == "Error: configuration must be a '.properties' or a '.xml' file"


def test_dryrun(fresh: World) -> None:
    out = oozie(fresh.home, "oozie", "job", "-dryrun", "-config", str(fresh.apps.workflow_props))
    assert (out.code, out.stdout) == (0, "OK\n")
    out = oozie(fresh.home, "oozie", "job", "-dryrun", "-config", str(fresh.apps.hourly_props))
    assert out.code == 0, out
    assert out.lines[0] == "***coordJob after parsing: ***"
    assert 'start="2024-01-01T00:00Z"' in out.stdout and "${start}" not in out.stdout, out
    assert "***total coord actions is 1 ***" in out.lines
    at = out.lines.index("***total coord actions is 1 ***")
    assert out.lines[at + 1 : at + 3] == [RULER, "coordAction instance: 1:"]
    assert "clicks/2024/01/01/00" in out.stdout


# ----------------------------------------------------------------------------- info


def test_coordinator_info_block_and_action_table(world: World) -> None:
    out = oozie(world.home, "oozie", "job", "-info", world.coord)
    assert out.code == 0, out
    head = out.lines[:10]
    assert head == [
        f"Job ID : {world.coord}",
        RULER,
        "Job Name    : hourly-ingest",
        f"App Path    : {world.apps.root / 'coords' / 'hourly.xml'}",
        "Status      : RUNNING",
        "Start Time  : 2024-01-01 00:00 GMT",
        "End Time    : 2024-01-02 00:00 GMT",
        "Pause Time  : -",
        "Concurrency : 1",
        RULER,
    ]
    assert out.lines[10] == COORD_HEADER
    rows = out.lines[11::2]
    assert all(r == RULER for r in out.lines[12::2])
    assert len(rows) == 6
    first = f"{world.coord}@1"
    assert rows[0] == (
        f"{col(first, 43)}{'SUCCEEDED':<10}{col(world.wf, 37)}{'-':<10}"
        f"{'2024-01-01 00:01 GMT':<21}{'2024-01-01 00:00 GMT':<21}"
    )
    assert rows[5].split()[1:2] == ["TIMEDOUT"] and " E1025 " in rows[5]


def test_coordinator_info_paging_order_filter_timezone(world: World) -> None:
    def ids(*extra: str) -> list[str]:
        out = oozie(world.home, "oozie", "job", "-info", world.coord, *extra)
        assert out.code == 0, out
        # an id of 43+ characters is followed by one space (Oozie's %-43s would run it in)
        return [re.match(r"\d+", line.split("@", 1)[1]).group() for line in out.lines[11::2]]  # type: ignore[union-attr]

    assert ids("-len", "2", "-offset", "2") == ["2", "3"]
    assert ids("-order", "desc", "-len", "2") == ["6", "5"]
    assert ids("-filter", "status=WAITING;status=READY") == ["3", "4", "5"]
    assert ids("-filter", "nominaltime>=2024-01-01T04:00Z") == ["5", "6"]
    assert ids("--len=1", "--offset=4") == ["4"]  # commons-cli also takes --opt and -opt=value
    out = oozie(
        world.home, "oozie", "job", "-info", world.coord, "-timezone", "America/Los_Angeles"
    )
    assert "Start Time  : 2023-12-31 16:00 PST" in out.lines
    out = oozie(world.home, "oozie", "job", "-info", world.coord, "-timezone", "GMT-0700")
    assert "Start Time  : 2023-12-31 17:00 -07:00" in out.lines  # Oozie shortens GMT-07:00
    out = oozie(world.home, "oozie", "job", "-info", world.coord, "-localtime", "-len", "1")
    assert "Start Time  : 2024-01-01 00:00 UTC" in out.lines


def test_coordinator_info_verbose(world: World) -> None:
    out = oozie(world.home, "oozie", "job", "-info", world.coord, "-verbose", "-len", "4")
    assert out.code == 0, out
    assert out.lines[10].split("\t")[:3] == ["ID", "Action Number", "Console URL"]
    row = out.lines[12 + 2 * 3].split("\t")
    assert row[0] == f"{world.coord}@4" and row[1] == "4"
    # Oozie prints the nominal time and the status with no delimiter between them
    assert row[10] == "2024-01-01 03:00:00 GMTWAITING"
    assert row[12] == _dep(world.apps, 3)


def test_coordinator_action_info(world: World) -> None:
    out = oozie(world.home, "oozie", "job", "-info", f"{world.coord}@4")
    assert out.code == 0, out
    assert out.lines == [
        f"ID : {world.coord}@4",
        RULER,
        "Action Number        : 4",
        "Console URL          : -",
        "Error Code           : -",
        "Error Message        : -",
        "External ID          : -",
        "External Status      : -",
        f"Job ID               : {world.coord}",
        "Tracker URI          : -",
        "Created              : 2024-01-01 03:01 GMT",
        "Nominal Time         : 2024-01-01 03:00 GMT",
        "Status               : WAITING",
        out.lines[13],  # last modified: when the row was written
        f"First Missing Dependency : {_dep(world.apps, 3)}",
        RULER,
    ]
    assert out.lines[13].startswith("Last Modified        : ")
    out = oozie(world.home, "oozie", "job", "-info", f"{world.coord}@1", "-allruns")
    assert out.code == 0 and out.stdout == ""  # the workflow's parent is not the action here
    out = oozie(world.home, "oozie", "job", "-info", f"{world.coord}@1", "-filter", "status=X")
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: Filter option is not supported for a Coordinator action",
    )


def test_workflow_info_and_node_info(fresh: World) -> None:
    out = oozie(fresh.home, "oozie", "job", "-info", fresh.wf)
    assert out.code == 0, out
    assert out.lines[:4] == [
        f"Job ID : {fresh.wf}",
        RULER,
        "Workflow Name : touch-wf",
        f"App Path      : {fresh.apps.root / 'wf' / 'workflow.xml'}",
    ]
    # PREP: the run has entered no node yet, so Oozie has no action to list
    assert "Actions" not in out.lines  # the action table's format: tests/e2e/test_oozie_wf.py
    assert out.lines[-1] == ""
    node = oozie(fresh.home, "oozie", "job", "-info", f"{fresh.wf}@mark")
    assert node.lines[:3] == [f"ID : {fresh.wf}@mark", RULER, "Console URL       : -"]
    assert "Type              : fs" in node.lines


def test_unknown_ids_exit_255_with_oozies_error_line(world: World) -> None:
    missing = world.coord[:-2] + "9-C"
    out = oozie(world.home, "oozie", "job", "-info", missing)
    assert out.code == 255 and out.stdout == ""
    assert out.stderr.splitlines()[0] == f"Error: E0604 : E0604: Job does not exist [{missing}]"
    out = oozie(world.home, "oozie", "job", "-info", f"{world.coord}@99")
    assert out.stderr.splitlines()[0] == (
        f"Error: E0605 : E0605: Action does not exist [{world.coord}@99]"
    )
    out = oozie(world.home, "oozie", "job", "-info", world.coord, "-filter", "status=NOPE")
    assert out.code == 255 and out.stderr.startswith("Error: E0421 : E0421: Invalid job filter")


def test_usage_errors(world: World) -> None:
    for args, why in (
        ((), "Missing required option"),
        (("-info",), "Missing argument for option: info"),
        (("-bogus", "x"), "Unrecognized option: -bogus"),
        (("-info", world.coord, "-kill", world.coord), "already been selected: 'info'"),
        (("-info", world.coord, "stray"), "Unrecognized argument: stray"),
        (("-info", world.coord, "-D"), "Missing argument for option: D"),
    ):
        out = oozie(world.home, "oozie", "job", *args)
        assert out.code == 255, (args, out)
        assert out.stderr.startswith("Invalid sub-command: ") and why in out.stderr, out.stderr
        assert "bundletui oozie job <OPTIONS>" in out.stderr


def test_an_option_followed_by_another_option_is_missing_its_value(world: World) -> None:
    """QA: ``-kill C -action --home H`` took ``--home`` as the scope and then said
    "Unrecognized argument: H"; commons-cli says the value is missing."""
    home = str(world.home)
    for args in (
        ("-kill", world.coord, "-action", "--home", home),
        ("-info", world.coord, "-len", "-offset", "2"),
        ("-kill", world.coord, "-date", "-action", "1"),
    ):
        out = oozie(world.home, "oozie", "job", *args)
        assert out.code == 255, out
        assert f"Missing argument for option: {args[2].lstrip('-')}" in out.stderr, out.stderr


def test_oozie_operations_without_a_counterpart_say_so(world: World) -> None:
    out = oozie(world.home, "oozie", "job", "-poll", world.coord, "-interval", "1")
    assert out.code == 255
    assert out.stderr.startswith("Error: -poll is not supported by bundletui")
    assert "bundletui info <id>" in out.stderr
    # QA: -update's hint was -poll's ("watch a job"), which does not help
    out = oozie(world.home, "oozie", "job", "-update", world.coord)
    assert out.code == 255 and "kill the coordinator and submit the new definition" in out.stderr
    out = oozie(world.home, "oozie", "job", "-slaenable", world.coord)
    assert out.code == 255 and "bundletui keeps no SLA" in out.stderr


def test_definition_and_configcontent(world: World) -> None:
    out = oozie(world.home, "oozie", "job", "-definition", world.coord)
    assert out.code == 0
    assert out.stdout == (world.apps.root / "coords" / "hourly.xml").read_text() + "\n"
    out = oozie(world.home, "oozie", "job", "-configcontent", world.coord)
    assert out.stdout.startswith("<configuration>") and "<name>throttle</name>" in out.stdout
    assert "\\x0d" not in out.stdout and out.stdout.splitlines()[1] == "  <property>"
    # QA: a path where the id goes printed Oozie's ERROR line on stdout and exited 0
    out = oozie(world.home, "oozie", "job", "-configcontent", "/tmp/job.properties")
    assert out.code == 255 and out.stdout == ""
    assert "job id [/tmp/job.properties] doesn't end with either C or W or B" in out.stderr


# ----------------------------------------------------------------------------- controls


def info(w: World, job_id: str) -> dict[str, Any]:
    """The job as the commands left it (read in-process: only the printouts need the script)."""
    with Store(w.home) as store:
        return queries.job_info(store.conn, job_id)


def status(w: World, job_id: str) -> str:
    return str(info(w, job_id)["status"])


def test_an_action_or_date_scope_is_never_dropped(fresh: World) -> None:
    """QA: ``-kill W -action 1``, ``-suspend C -action 1``, ``-start W -date …`` and ``-ignore C
    -date …`` dropped the scope and acted on the whole job (the native CLI refuses or scopes)."""
    w, c = fresh.wf, fresh.coord
    date = "2024-01-01T00:00Z::2024-01-01T01:00Z"
    for args in (
        ("-kill", w, "-action", "1"),
        ("-kill", w, "-date", date),
        ("-suspend", w, "-action", "1"),
        ("-resume", w, "-date", date),
        ("-start", w, "-action", "1"),
        ("-change", c, "-value", "concurrency=3", "-action", "1"),
        ("-suspend", c, "-action", "1", "-date", date),
        # QA: the reads and a submission dropped it (-submit -action 1 made a job)
        ("-submit", "-config", str(fresh.apps.workflow_props), "-action", "1"),
        ("-run", "-config", str(fresh.apps.workflow_props), "-date", date),
        ("-dryrun", "-config", str(fresh.apps.hourly_props), "-action", "1"),
        ("-info", c, "-action", "1"),
        ("-info", c, "-date", date),
        ("-definition", c, "-date", date),
        ("-configcontent", c, "-action", "1"),
        ("-auditlog", c, "-action", "1"),
        ("-rerun", w, "-action", "1", "-D", "oozie.wf.rerun.failnodes=true"),  # QA: rerun
        ("-rerun", w, "-date", date, "-D", "oozie.wf.rerun.failnodes=true"),
    ):
        out = oozie(fresh.home, "oozie", "job", *args)
        assert out.code == 255 and out.stderr.startswith("Error: "), (args, out)
        assert "Invalid" in out.stderr, (args, out)
        assert "Traceback" not in out.stderr
    assert (status(fresh, w), status(fresh, c)) == ("PREP", "RUNNING")
    assert oozie(fresh.home, "oozie", "jobs").stdout.count("-W ") == 1  # nothing submitted
    # on a coordinator the scope is taken: its chosen actions only
    out = oozie(fresh.home, "oozie", "job", "-suspend", c, "-action", "1")
    assert out.code == 255 and "E1100" in out.stderr, out  # @1 SUCCEEDED: nothing to suspend
    assert status(fresh, c) == "RUNNING"
    out = oozie(fresh.home, "oozie", "job", "-kill", c)
    out = oozie(fresh.home, "oozie", "job", "-ignore", c, "-date", "2024-01-01T01:00Z")
    assert out.code == 0, out
    assert f"{c}@2" in out.stdout and f"{c}@1" not in out.stdout
    assert status(fresh, c) == "KILLED"  # the job itself stays killed, not IGNORED


def test_suspend_resume_kill_actions_ignore_rerun(fresh: World) -> None:
    c = fresh.coord
    assert oozie(fresh.home, "oozie", "job", "-suspend", c).stdout == ""
    assert status(fresh, c) == "SUSPENDED"
    assert oozie(fresh.home, "oozie", "job", "-resume", c).code == 0
    assert status(fresh, c) == "RUNNING"

    out = oozie(fresh.home, "oozie", "job", "-kill", c, "-action", "2")
    assert out.code == 0, out
    assert out.lines == ["Action ID\tNominal Time", RULER, f"{c}@2\t2024-01-01 01:00 UTC"]

    # an empty scope (an unset $ACTIONS in a script) is an error, never a kill of the whole job
    for scope in ("-action", "-date"):
        out = oozie(fresh.home, "oozie", "job", "-kill", c, scope, "")
        assert out.code == 255 and "E0302" in out.stderr, out
    assert status(fresh, c) == "RUNNINGWITHERROR"  # @2 was killed; the job was not
    for number in ("99999999999999999999", "1-99999999999"):  # an error, not a traceback or a hang
        out = oozie(fresh.home, "oozie", "job", "-kill", c, "-action", number)
        assert out.code == 255 and out.stderr.startswith("Error: E0"), out
        assert "Traceback" not in out.stderr
    out = oozie(fresh.home, "oozie", "job", "-log", c, "-action", "1-999999999")
    assert out.code == 255 and out.stderr.startswith("Error: E0605"), out

    out = oozie(fresh.home, "oozie", "job", "-ignore", c, "-action", "2")
    assert out.code == 0, out
    assert out.lines == [
        "Action ID\tNominal Time\tStatus",
        RULER,
        f"{c}@2\t2024-01-01 01:00 UTC\tIGNORED",
    ]

    out = oozie(fresh.home, "oozie", "job", "-rerun", c, "-date", "2024-01-01T01:00Z", "-nocleanup")
    assert out.code == 0, out
    assert out.lines == ["Action ID\tNominal Time", RULER, f"{c}@2\t2024-01-01 01:00 UTC"]
    assert status(fresh, f"{c}@2") == "WAITING"

    out = oozie(fresh.home, "oozie", "job", "-rerun", c)
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: Invalid options provided for rerun: date or action expected.",
    )
    out = oozie(fresh.home, "oozie", "job", "-rerun", c, "-action", "1", "-date", "2024-01-01T00:00Z")  # fmt: skip
    assert out.code == 255 and "Don't use both at the same time" in out.stderr

    out = oozie(fresh.home, "oozie", "job", "-change", c)
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: -value option needs to be specified for -change option",
    )
    assert oozie(fresh.home, "oozie", "job", "-change", c, "-value", "concurrency=3").code == 0
    assert info(fresh, c)["concurrency"] == 3

    out = oozie(fresh.home, "oozie", "job", "-start", c)
    assert out.code == 255
    assert out.stderr.splitlines()[0] == (
        "Error: E0303 : E0303: Invalid parameter value, [action] = [start]"
    )
    assert "a coordinator starts at its start time" in out.stderr
    # QA: a node was told that coordinators start at their start time
    node = bundletui("start", f"{fresh.wf}@a", home=fresh.home)
    # the id's kind alone shows the mistake: a usage error (exit 2), as suspend W@a
    assert node.returncode == 2 and "[action] = [start]" in node.stderr, node
    assert "hint: a node starts when its workflow reaches it;" in node.stderr
    assert oozie(fresh.home, "oozie", "job", "-kill", c).code == 0
    assert status(fresh, c) == "KILLED"


def test_log_of_a_coordinator_is_its_audit_trail(fresh: World) -> None:
    oozie(fresh.home, "oozie", "job", "-suspend", fresh.coord)
    out = oozie(fresh.home, "oozie", "job", "-log", fresh.coord)
    assert out.code == 0, out
    assert any(f"JOB[{fresh.coord}]" in line and "suspend ok" in line for line in out.lines)
    out = oozie(fresh.home, "oozie", "job", "-log", f"{fresh.coord}@2")  # waiting: no log yet
    assert out.code == 0 and out.stdout == "", out
    assert f"note: {fresh.coord}@2 is WAITING and has launched no workflow" in out.stderr, out


# ----------------------------------------------------------------------------- bundles


def test_bundle_info_block(fresh: World) -> None:
    from bundletui.engine.service import Engine, EngineConfig
    from bundletui.model.timeutil import parse_oozie_time

    with Store(fresh.home) as store:
        bid = _submit(store, fresh.apps.bundle_props, "kickoff=2023-12-31T00:00Z")
    engine = Engine(  # kicks the bundle off and submits its two coordinators
        EngineConfig(
            home=fresh.home,
            clock="simulated",
            start_time=parse_oozie_time("2023-12-31T00:00Z"),
            until=parse_oozie_time("2023-12-31T01:00Z"),
            watch=False,
        )
    )
    asyncio.run(engine.run())
    out = oozie(fresh.home, "oozie", "job", "-info", bid)
    assert out.code == 0, out
    assert out.lines[:8] == [
        f"Job ID : {bid}",
        RULER,
        "Job Name : feeds",
        f"App Path : {fresh.apps.root / 'bundle.xml'}",
        "Status   : RUNNING",
        "Kickoff time   : Sun Dec 31 00:00:00 UTC 2023",  # Java's Date.toString, local zone
        RULER,
        f"{'Job ID':<41}{'Status':<15}{'Freq':<5}{'Unit':<13}{'Started':<24}{'Next Materialized':<24}",
    ]
    assert out.lines[8] == RULER
    rows = out.lines[9::2]
    assert len(rows) == 2
    assert [(r[41:56].strip(), r[56:61].strip(), r[61:74].strip()) for r in rows] == [
        ("PREP", "60", "MINUTE"),
        ("PREP", "1", "DAY"),
    ]
    out = oozie(fresh.home, "oozie", "job", "-info", bid, "-filter", "status=RUNNING")
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: Filter option is currently not supported for a Bundle job",
    )
    out = oozie(fresh.home, "oozie", "job", "-rerun", bid, "-coordinator", "hourly")
    assert (out.code, out.stdout) == (255, ""), out  # PREP: refused now, not by the engine later
    assert "E1018" in out.stderr and "[coordinator hourly]" in out.stderr, out
    out = oozie(fresh.home, "oozie", "job", "-rerun", bid, "-action", "1")
    assert (out.code, out.stderr.strip()) == (
        255,
        "Error: Invalid options provided for bundle rerun. action is not valid for bundle rerun",
    )

    human = oozie(fresh.home, "info", bid, columns=80)
    assert human.code == 0, human
    assert fits_80(human.lines), human.stdout
    assert "Kickoff time : 2023-12-31 00:00 GMT" in human.stdout
    assert "hourly" in human.stdout and "daily" in human.stdout
    # a RUNNING bundle's end time is a plan (change endtime=), not when it ended
    oozie(fresh.home, "change", bid, "--value", "endtime=2024-06-01T00:00Z")
    human = oozie(fresh.home, "info", bid, columns=80)
    assert "End          : 2024-06-01 00:00 GMT" in human.stdout, human.stdout
    assert "Ended" not in human.stdout
    listing = oozie(fresh.home, "jobs", "--type", "bundle", columns=120)
    assert listing.lines[0].split() == ["Job", "ID", "Name", "Status", "User", "Kick-off", "End"]


# ----------------------------------------------------------------------------- jobs


def test_jobs_listings(world: World) -> None:
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "coordinator")
    assert out.code == 0, out
    assert out.lines[0] == (
        f"{'Job ID':<41}{'App Name':<15}{'Status':<10}{'Freq':<5}{'Unit':<13}"
        f"{'Started':<24}{'Next Materialized':<24}"
    )
    assert out.lines[1] == RULER
    row = out.lines[2]  # a 41-character id: Oozie's %-41s would run it into the name
    assert row.startswith(world.coord + " ")
    assert row.split()[:5] == [world.coord, "hourly-ingest", "RUNNING", "60", "MINUTE"]
    assert row[42:].startswith(f"{'hourly-ingest':<15}{'RUNNING':<10}{'60':<5}{'MINUTE':<13}")
    out = oozie(world.home, "oozie", "jobs")  # default: workflows
    assert out.lines[0].startswith(f"{'Job ID':<41}{'App Name':<13}{'Status':<10}{'User':<10}")
    assert out.lines[2].startswith(world.wf)
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "coord", "-filter", "status=KILLED")
    assert (out.code, out.stdout) == (0, "No Jobs match your criteria!\n")
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "coord", "-timezone", "Bogus/Zone")
    assert out.code == 255 and out.stderr.startswith(
        "Error: E0303 : E0303: Invalid parameter value, [timezone] = [Bogus/Zone]"
    ), out
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "bundle")
    assert out.stdout == "No Jobs match your criteria!\n"
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "coordinator", "-filter", "unit=days")
    assert out.code == 255 and out.stderr.startswith("Error: E0420 : E0420: Invalid jobs filter")
    out = oozie(world.home, "oozie", "jobs", "-jobtype", "coordinator", "-verbose")
    assert out.lines[0].split("\t")[:3] == ["Job ID", "App Name", "App Path"]
    out = oozie(world.home, "oozie", "jobs", "-len", "x")
    assert out.code == 255


def test_bulk_suspend(fresh: World) -> None:
    out = oozie(fresh.home, "oozie", "jobs", "-jobtype", "coordinator", "-kill")
    assert (out.code, out.stdout) == (255, ""), out  # Oozie: never every job at once
    assert out.stderr.startswith("Error: E0305 : E0305: filter params must be specified")
    for empty in (";", "name=", " ; "):  # clauses that select nothing: every job, refused
        args = ("oozie", "jobs", "-jobtype", "coordinator", "-filter", empty, "-kill")
        out = oozie(fresh.home, *args)
        assert out.code == 255 and "E0305" in out.stderr, (empty, out)
    assert status(fresh, fresh.coord) == "RUNNING"
    bulk = ("oozie", "jobs", "-jobtype", "coordinator", "-filter", "status=RUNNING", "-suspend")
    # SAFEMODE refuses every job: said so, not "did not modify any jobs" with exit 0
    assert oozie(fresh.home, "oozie", "admin", "-systemmode", "SAFEMODE").code == 0
    out = oozie(fresh.home, *bulk)
    assert out.code == 255 and out.stderr.startswith("Error: E0002 : E0002: System is in safe mode")
    assert status(fresh, fresh.coord) == "RUNNING"
    assert oozie(fresh.home, "oozie", "admin", "-systemmode", "NORMAL").code == 0
    out = oozie(fresh.home, *bulk)
    assert out.code == 0, out
    assert out.lines[0] == "the following jobs have been suspended"
    assert "SUSPENDED" in out.lines[3]
    out = oozie(
        fresh.home, "oozie", "jobs", "-jobtype", "coordinator", "-filter", "status=RUNNING", "-kill"
    )
    assert out.stdout == "bulk modify command did not modify any jobs\n"


# ----------------------------------------------------------------------------- human info


def fits_80(lines: list[str]) -> bool:
    """Every line fits 80 columns, except a file path (as long as it is: the tmp dir's here)."""
    return all(len(line.rstrip()) <= 80 for line in lines if "App Path" not in line)


def test_human_coordinator_info_reads_at_80_columns(world: World) -> None:
    out = oozie(world.home, "info", world.coord, columns=80)
    assert out.code == 0, out
    assert fits_80(out.lines), out.stdout
    text = out.stdout
    assert "Controls    : concurrency 1, execution FIFO, throttle 12, timeout 86400 min" in text
    table = {line.split()[0]: line for line in out.lines if re.match(r"^\d+ ", line)}
    assert "SUCCEEDED" in table["1"] and world.wf.split("-", 1)[0] in table["1"]
    assert "concurrency 1/1 running" in table["3"]
    assert "missing 1/1:" in table["4"]
    assert "…/2024/01/01/03/_SUCCESS" in text
    assert "E1025 no input" in table["6"]
    assert f"workflow ids: the number shown + -{world.wf.split('-', 1)[1]}" in text
    page = oozie(world.home, "info", world.coord, "--len", "2", "--order", "desc", columns=80)
    assert "Showing     : 1-2 of 6, desc" in page.stdout
    action = oozie(world.home, "info", f"{world.coord}@4", columns=80)
    assert "Waiting for   : 1 of 1 inputs missing:" in action.stdout
    assert f"✗ {_dep(world.apps, 3)}" in action.stdout


# ----------------------------------------------------------------------------- admin


def test_admin_status_systemmode_and_versions(fresh: World, tmp_path: Path) -> None:
    """``oozie admin`` and ``oozie version`` as Oozie prints them. SAFEMODE, kept in the store,
    refuses every change to jobs through any command line (the refused attempt is audited, the
    jobs stay as they were) until ``-systemmode NORMAL``."""
    home = fresh.home
    assert oozie(home, "oozie", "version").stdout == "Oozie client build version: bundletui-0.1.0\n"
    assert oozie(home, "oozie", "admin", "-version").stdout == (
        "Oozie server build version: bundletui-0.1.0\n"
    )
    assert oozie(home, "oozie", "admin", "-status").stdout == "System mode: NORMAL\n"
    missing = oozie(tmp_path / "nowhere", "oozie", "admin", "-status")
    assert missing.code == 255 and "EB001" in missing.stderr, missing
    assert not (tmp_path / "nowhere").exists()
    usage = oozie(home, "oozie", "admin")
    assert usage.code == 255 and "Missing required option: one of -status" in usage.stderr
    bad = oozie(home, "oozie", "admin", "-systemmode", "PANIC")
    assert (
        bad.code == 255
        and "E0303" in bad.stderr
        and "NORMAL, NOWEBSERVICE or SAFEMODE" in bad.stderr
    )

    out = oozie(home, "oozie", "admin", "-systemmode", "safemode")
    assert (out.code, out.stdout) == (0, "System mode: SAFEMODE\n"), out
    with Store(home, create=False) as store:
        before = queries.job_info(store.conn, fresh.coord)["status"]
        jobs_before = store.conn.execute("SELECT count(*) FROM coord_jobs").fetchone()[0]
    killed = oozie(home, "oozie", "job", "-kill", fresh.coord)
    assert killed.code == 255 and killed.stderr.startswith(
        "Error: E0002 : E0002: System is in safe mode"
    )
    submitted = oozie(home, "submit", str(fresh.apps.daily_props))
    assert submitted.code == 1 and "E0002" in submitted.stderr, submitted
    with Store(home, create=False) as store:
        assert queries.job_info(store.conn, fresh.coord)["status"] == before
        assert store.conn.execute("SELECT count(*) FROM coord_jobs").fetchone()[0] == jobs_before
        refused = store.conn.execute(
            "SELECT command, error FROM audit_log WHERE result = 'error' ORDER BY id"
        ).fetchall()
        assert [c for c, _ in refused][-2:] == ["kill", "submit"]
        assert all(e.startswith("E0002") for _, e in refused[-2:])
    assert oozie(home, "oozie", "admin", "-status").stdout == "System mode: SAFEMODE\n"

    assert oozie(home, "oozie", "admin", "-systemmode", "NORMAL").stdout == "System mode: NORMAL\n"
    assert oozie(home, "oozie", "job", "-kill", fresh.coord).code == 0
    with Store(home, create=False) as store:
        assert queries.job_info(store.conn, fresh.coord)["status"] == "KILLED"


def test_hints_name_the_options_as_each_front_spells_them(fresh: World) -> None:
    """The commands' hints are written once; the native CLI shows ``--value``, this front
    ``-value`` (an operator pasting the hint into the command they typed gets it right)."""
    out = oozie(fresh.home, "oozie", "job", "-change", fresh.coord, "-value", "bogus=1")
    assert out.code == 255
    assert "hint: keys: " in out.stderr and "e.g. -value 'pausetime=" in out.stderr, out.stderr
    out = oozie(fresh.home, "oozie", "job", "-info", fresh.coord, "-filter", "bogus=1")
    assert "e.g. -filter 'status=" in out.stderr and "--filter" not in out.stderr, out.stderr

    native = bundletui("change", fresh.coord, "--value", "bogus=1", home=fresh.home)
    assert native.returncode != 0
    assert "e.g. --value 'pausetime=" in native.stderr, native.stderr
    native = bundletui("info", fresh.coord, "--filter", "bogus=1", home=fresh.home)
    assert "e.g. --filter 'status=" in native.stderr, native.stderr


def test_validate_says_what_oozie_says(tmp_path: Path) -> None:
    """``oozie validate FILE``: ``Valid workflow-app`` for every kind of app; an invalid file is
    Oozie's error shape and exit 255; a server's URL is noted and ignored."""
    good = tmp_path / "workflow.xml"
    good.write_text(
        '<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">'
        '<start to="end"/><end name="end"/></workflow-app>'
    )
    out = oozie(tmp_path / "h", "oozie", "validate", "-oozie", "http://o:11000/oozie", str(good))
    assert (out.code, out.stdout) == (0, "Valid workflow-app\n"), out
    assert "-oozie http://o:11000/oozie ignored" in out.stderr
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">\n<start/></workflow-app>'
    )
    out = oozie(tmp_path / "h", "oozie", "validate", str(bad))
    assert out.code == 255 and out.stderr.startswith("Error: E0701 : E0701: "), out
    out = oozie(tmp_path / "h", "oozie", "validate")
    assert out.code == 255 and out.stderr.startswith("Invalid sub-command: "), out
    assert not (tmp_path / "h").exists()  # validating makes no store
    usage = oozie(tmp_path / "h", "oozie", "help")
    assert usage.code == 0 and "bundletui oozie validate <file>" in usage.stdout, usage
    unknown = oozie(tmp_path / "h", "oozie", "frob")  # as Oozie's CLI: exit 255, not 2
    assert unknown.code == 255, unknown
    assert unknown.stderr.startswith("Invalid sub-command: Unrecognized command: frob"), unknown
    bare = oozie(tmp_path / "h", "oozie")  # Oozie's CLIParser: missing sub-command, -1
    assert bare.code == 255 and bare.stderr.startswith("Invalid sub-command: missing sub-command")
    assert oozie(tmp_path / "h", "oozie", "--help").code == 0


def test_a_hint_keeps_a_native_commands_options_as_written() -> None:
    """The front spells hints' options its way (``-action``), but a native command quoted in
    a hint must still run as written (QA (y): ``bundletui rerun C -action 1-8`` was refused)."""
    from bundletui.cli.oozie.errors import front_hint

    hint = "rerun actions (bundletui rerun X-C --action 1-8) or move its end (--value endtime=…)"
    assert front_hint(hint) == (
        "rerun actions (bundletui rerun X-C --action 1-8) or move its end (-value endtime=…)"
    )
    assert front_hint("see bundletui oozie job -rerun C --action 2") == (
        "see bundletui oozie job -rerun C -action 2"
    )


def test_refusals_carry_oozies_codes_and_templates(fresh: World) -> None:
    """A workflow's kill and suspend refusals are Oozie's E0725 / E0727 (not the general
    E1100), and a bad change value reads as Oozie's E1015 template (scripts match on them)."""
    assert oozie(fresh.home, "oozie", "job", "-kill", fresh.wf).code == 0
    again = oozie(fresh.home, "oozie", "job", "-kill", fresh.wf)
    assert again.code == 255 and again.stderr.startswith("Error: E0725 : E0725: "), again
    held = oozie(fresh.home, "oozie", "job", "-suspend", fresh.wf)
    assert held.code == 255 and held.stderr.startswith("Error: E0727 : E0727: "), held
    bad = oozie(fresh.home, "oozie", "job", "-change", fresh.coord, "-value", "foo=1")
    assert bad.stderr.startswith(
        "Error: E1015 : E1015: Invalid coordinator job change value foo=1, unknown key [foo]"
    ), bad
