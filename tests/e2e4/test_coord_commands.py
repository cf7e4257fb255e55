"""Issue 4 §2 commands on a coordinator and its actions, through the CLI: kill / suspend /
resume (the job, or chosen actions), change (endtime, concurrency, pausetime, status), rerun
(--action / --date with --refresh, --nocleanup, --failed), ignore, and ``info`` with paging,
filters and the "why it waits" answer (missing URIs, concurrency, pause).
"""

from __future__ import annotations

import json
import sqlite3

from tests.e2e4.conftest import (
    DS,
    MARK,
    Bt4,
    coordinator_xml,
    data_in,
    data_out,
    hourly_ds,
    partition,
    trace_counts,
    wait_for,
)

T0 = "2026-01-01T00:00Z"


def submit(bt: Bt4, xml: str, **props: str) -> str:
    bt.apps.write("c.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml", **props})
    return bt.submit_job(config)


def run_conf(bt: Bt4, action_id: str) -> dict[str, str]:
    (conf,) = bt.sql("SELECT run_conf FROM coord_actions WHERE id = ?", action_id)[0]
    return dict(json.loads(conf))


def hourly_with_inputs(end: str = "2026-01-01T06:00Z", **controls: str) -> str:
    return coordinator_xml(
        "ops",
        start=T0,
        end=end,
        controls={"timeout": "-1", **controls},
        datasets=[hourly_ds("raw"), hourly_ds("out")],
        inputs=[data_in("raw", "raw", "${coord:current(0)}")],
        outputs=[data_out("out", "out")],
        conf={"outDir": "${coord:dataOut('out')}", "failIf": "${flag}"},
    )


def test_kill_chosen_actions_ignore_and_info_paging_and_filters(bt: Bt4) -> None:
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T08:00Z"), flag=str(bt.tmp / "no-flag"))
    bt.land(partition("raw", T0), partition("raw", "2026-01-01T01:00Z"))
    bt.sim(T0, "2026-01-01T05:30Z")
    assert bt.actions(coord_id) == {
        1: "SUCCEEDED",
        2: "SUCCEEDED",
        3: "WAITING",
        4: "WAITING",
        5: "WAITING",
        6: "WAITING",
    }

    bt.fails("kill", coord_id, "--action", "", code="E0302")  # empty: never the whole job
    bt.fails("kill", coord_id, "--date", "", code="E0302")
    bt.fails("kill", coord_id, "--action", "1-99999999", code="E0605")  # not spelled out
    for scope in ("3,,4", ",3"):  # Oozie's Integer.parseInt("") refuses an empty item
        assert "an empty item" in bt.fails("kill", coord_id, "--action", scope, code="E0302").stderr
    assert bt.status(coord_id) == "RUNNING"
    killed = bt.cli("kill", coord_id, "--action", "3-4,").stdout.split()  # trailing: dropped
    assert killed == [f"{coord_id}@3", f"{coord_id}@4"]
    # an action id kills that action, and says so as --action does (QA (n): it said nothing)
    assert bt.cli("kill", f"{coord_id}@5").stdout == f"{coord_id}@5\n"
    assert bt.actions(coord_id) == {
        1: "SUCCEEDED",
        2: "SUCCEEDED",
        3: "KILLED",
        4: "KILLED",
        5: "KILLED",
        6: "WAITING",
    }
    assert bt.status(coord_id) == "RUNNINGWITHERROR"

    def numbers(*args: str) -> list[int]:
        page = bt.info_json(coord_id, *args)
        return [a["actionNumber"] for a in page["actions"]]

    assert numbers("--filter", "status=KILLED") == [3, 4, 5]
    assert numbers("--filter", "status=KILLED;nominaltime>=2026-01-01T03:00Z") == [4, 5]
    assert numbers("--filter", "status=SUCCEEDED;status=WAITING") == [1, 2, 6]
    assert numbers("--order", "desc", "--len", "2") == [6, 5]
    assert numbers("--len", "2", "--offset", "3") == [3, 4]
    page = bt.info_json(coord_id, "--filter", "status!=KILLED", "--len", "1")
    assert page["total"] == 3 and len(page["actions"]) == 1
    assert bt.fails("info", coord_id, "--filter", "colour=red", code="E0421").code == 2

    ignored = bt.cli("ignore", coord_id, "--action", "3-4").stdout.split()
    assert ignored == [f"{coord_id}@3", f"{coord_id}@4"]
    bt.fails("ignore", coord_id, "--action", "1", code="E1024")  # SUCCEEDED: not ignorable
    assert bt.actions(coord_id)[3] == "IGNORED"

    # the whole coordinator: its WAITING action is killed too; KILLED -> IGNORED -> RUNNING,
    # and materialization resumes where it stopped
    bt.fails("ignore", coord_id, "--action", "", code="E0302")  # not the whole coordinator
    bt.fails("ignore", coord_id, "--action", "3", "--date", T0, code="E0302")  # not both
    bt.cli("kill", coord_id)
    assert bt.status(coord_id) == "KILLED" and bt.actions(coord_id)[6] == "KILLED"
    bt.fails("kill", coord_id, "--action", "6", code="E1020")
    bt.cli("ignore", coord_id)
    assert bt.status(coord_id) == "IGNORED"
    r = bt.fails("change", coord_id, "--value", "concurrency=2", code="E1016")
    assert f"{coord_id} is IGNORED" in r.stderr, r  # Oozie's message says "killed"
    bt.cli("change", coord_id, "--value", "status=RUNNING")
    assert bt.status(coord_id) == "RUNNINGWITHERROR"  # running again, with killed actions
    bt.sim(T0, "2026-01-01T06:30Z")
    assert bt.nominals(coord_id)[-1] == "2026-01-01T06:00Z"
    assert bt.actions(coord_id)[7] == "WAITING"


def test_rerun_actions_and_dates_with_cleanup_nocleanup_and_failed(bt: Bt4) -> None:
    flag = bt.tmp / "fail"
    coord_id = submit(bt, hourly_with_inputs(), flag=str(flag))
    bt.land(*(partition("raw", f"2026-01-01T0{h}:00Z") for h in range(6)))
    flag.touch()
    bt.sim(T0, "2026-01-01T00:30Z")  # 00:00 fails
    flag.unlink()
    bt.sim(T0, "2026-01-01T06:00Z")
    acts = bt.actions(coord_id)
    assert acts == {1: "FAILED", **dict.fromkeys(range(2, 7), "SUCCEEDED")}
    assert bt.status(coord_id) == "DONEWITHERROR"
    first_wf = bt.peek(f"{coord_id}@1")["externalId"]

    bt.fails("rerun", coord_id, code="E0305")  # neither --action nor --date
    bt.fails("rerun", coord_id, "--action", "9", code="E0605")

    # --failed: the same workflow again, only its failed nodes
    bt.cli("rerun", coord_id, "--action", "1", "--failed")
    assert bt.status(coord_id) == "RUNNING"  # no failed action left: the roll-up says RUNNING
    bt.sim(T0, "2026-01-01T06:00Z")
    assert bt.actions(coord_id)[1] == "SUCCEEDED"
    assert bt.peek(f"{coord_id}@1")["externalId"] == first_wf
    assert bt.status(coord_id) == "SUCCEEDED"

    # --action: outputs are deleted first (a stray file goes), then written again
    out2 = bt.landing / partition("out", "2026-01-01T01:00Z")
    (out2 / "stray").touch()
    bt.cli("rerun", coord_id, "--action", "2")
    assert bt.actions(coord_id)[2] == "WAITING"
    assert not out2.exists()
    bt.sim(T0, "2026-01-01T06:00Z")
    assert (out2 / "_SUCCESS").exists() and not (out2 / "stray").exists()
    second = bt.peek(f"{coord_id}@2")["externalId"]
    assert second != first_wf  # a new workflow (not --failed)

    # --date range with --nocleanup: outputs stay
    out4 = bt.landing / partition("out", "2026-01-01T03:00Z")
    (out4 / "stray").touch()
    reran = bt.cli(
        "rerun", coord_id, "--date", "2026-01-01T03:00Z::2026-01-01T04:00Z", "--nocleanup"
    ).stdout.split()
    assert reran == [f"{coord_id}@4", f"{coord_id}@5"]
    bt.sim(T0, "2026-01-01T06:00Z")
    assert (out4 / "stray").exists()

    counts = trace_counts(bt.trace)
    assert counts == {
        f"{coord_id}@1": 2,
        f"{coord_id}@2": 2,
        f"{coord_id}@3": 1,
        f"{coord_id}@4": 2,
        f"{coord_id}@5": 2,
        f"{coord_id}@6": 1,
    }
    assert bt.status(coord_id) == "SUCCEEDED"


def test_kill_by_dates_takes_the_actions_not_yet_ended_each_once(bt: Bt4) -> None:
    """ "Kill today's pending hours" after some ran: a date scope kills the actions that have not
    ended and passes over the others, as Oozie's GET_ACTIVE_ACTIONS_FOR_DATES selects them
    (QA: it refused the whole range). Overlapping ranges name an action once."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T08:00Z"), flag=str(bt.tmp / "no-flag"))
    bt.land(partition("raw", T0), partition("raw", "2026-01-01T01:00Z"))
    bt.sim(T0, "2026-01-01T05:30Z")
    assert bt.actions(coord_id) == {
        1: "SUCCEEDED",
        2: "SUCCEEDED",
        **dict.fromkeys(range(3, 7), "WAITING"),
    }
    killed = bt.cli(
        "kill",
        coord_id,
        "--date",
        "2026-01-01T00:00Z::2026-01-01T03:00Z,2026-01-01T03:00Z::2026-01-01T04:00Z",
    ).stdout.split()
    assert killed == [f"{coord_id}@3", f"{coord_id}@4", f"{coord_id}@5"]
    assert bt.actions(coord_id) == {
        1: "SUCCEEDED",
        2: "SUCCEEDED",
        3: "KILLED",
        4: "KILLED",
        5: "KILLED",
        6: "WAITING",
    }
    r = bt.fails("kill", coord_id, "--date", "2026-01-01T00:00Z::2026-01-01T01:00Z", code="E0605")
    assert f"no action of {coord_id} that has not ended yet has a nominal time in" in r.stderr
    bt.fails("kill", coord_id, "--action", "1", code="E1100")  # named one by one: refused
    out = bt.cli(
        "oozie",
        "job",
        "-kill",
        coord_id,
        "-date",
        "2026-01-01T05:00Z::2026-01-01T05:00Z,2026-01-01T05:00Z",
    ).stdout
    assert out.count(f"{coord_id}@6") == 1
    rerun = bt.cli(
        "rerun", coord_id, "--date", "2026-01-01T02:00Z::2026-01-01T03:00Z,2026-01-01T03:00Z"
    ).stdout.split()
    assert rerun == [f"{coord_id}@3", f"{coord_id}@4"]


def exiting_workflow(code: int | str) -> str:
    """Exits with ``code``: a number, or a Python expression of the workflow's properties."""
    return (
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="exits">'
        "<parameters><property><name>aid</name></property>"
        "<property><name>trace</name></property></parameters>"
        '<job name="only"><shell><exec>python3</exec><argument>-c</argument>'
        f"<argument>import sys; sys.exit({code})</argument></shell></job></dag-app>\n"
    )


def test_rerun_failed_reads_the_workflow_file_again(bt: Bt4) -> None:
    """``rerun --failed`` reruns the action's own workflow, and a workflow rerun parses its
    file again (Oozie's ReRunXCommand): the fix made after the failure is what runs. A file
    that no longer validates fails the action with the error, instead of leaving it READY."""
    wf = bt.apps.write("wf/workflow.xml", exiting_workflow(3))
    xml = coordinator_xml("fix", start=T0, end="2026-01-01T03:00Z", workflow=wf)
    coord_id = submit(bt, xml)
    bt.sim(T0, "2026-01-01T01:30Z")
    assert bt.actions(coord_id) == {1: "FAILED", 2: "FAILED"}
    first_wf = bt.peek(f"{coord_id}@1")["externalId"]

    bt.apps.write("wf/workflow.xml", exiting_workflow(0))
    bt.cli("rerun", coord_id, "--action", "1", "--failed")
    bt.sim(T0, "2026-01-01T03:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "FAILED", 3: "SUCCEEDED"}
    assert bt.peek(f"{coord_id}@1")["externalId"] == first_wf

    bt.apps.write("wf/workflow.xml", "<dag-app xmlns='uri:bundletui:dag:1.0'><job")
    bt.cli("rerun", coord_id, "--action", "2", "--failed")
    bt.sim(T0, "2026-01-01T03:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "FAILED", 3: "SUCCEEDED"}
    (code, message) = bt.sql(
        "SELECT error_code, error_message FROM coord_actions WHERE id = ?", f"{coord_id}@2"
    )[0]
    assert code and "workflow.xml" in message


def test_rerun_with_properties_lays_them_over_the_actions_run_configuration(bt: Bt4) -> None:
    """oozie.md §2.6's ``-config``: a re-run action's workflow gets the given properties over
    the configuration the coordinator gives it, with or without ``--failed``; for that re-run."""
    wf = bt.apps.write("wf/workflow.xml", exiting_workflow("int('${code}')"))
    xml = coordinator_xml(
        "conf", start=T0, end="2026-01-01T06:00Z", workflow=wf, conf={"code": "3"}
    )
    coord_id = submit(bt, xml)
    bt.sim(T0, "2026-01-01T02:30Z")
    assert bt.actions(coord_id) == {1: "FAILED", 2: "FAILED", 3: "FAILED"}
    second_wf = bt.peek(f"{coord_id}@2")["externalId"]

    # checked by the command, as a workflow rerun's: nothing changes on a bad one
    err = bt.fails("rerun", coord_id, "--action", "1", "-D", "code=${code}", code="E").stderr
    assert "refers to itself" in err and bt.actions(coord_id)[1] == "FAILED"
    props = bt.apps.props("fix.properties", {"code": "0", "user.name": "mallory"})
    bt.cli("rerun", coord_id, "--action", "1", "--config", str(props))
    bt.cli("oozie", "job", "-rerun", coord_id, "-action", "2", "-failed", "-D", "code=0")
    bt.cli("rerun", coord_id, "--action", "3")
    bt.sim(T0, "2026-01-01T02:45Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "SUCCEEDED", 3: "FAILED"}
    assert run_conf(bt, f"{coord_id}@1")["code"] == "0"
    assert run_conf(bt, f"{coord_id}@1").get("user.name") != "mallory"  # who asks: not laid
    assert run_conf(bt, f"{coord_id}@3")["code"] == "3"
    assert bt.peek(f"{coord_id}@2")["externalId"] == second_wf  # its own workflow, re-run
    assert bt.peek(second_wf)["run"] == 1
    conf = "".join(bt.peek(second_wf)["conf"].split())
    assert "<name>code</name><value>0</value>" in conf  # laid over its workflow's

    bt.cli("rerun", coord_id, "--action", "1")  # the properties were for that re-run
    bt.sim(T0, "2026-01-01T02:50Z")
    assert bt.actions(coord_id)[1] == "FAILED"


def test_suspend_and_resume_chosen_actions_hold_their_workflows_only(bt: Bt4) -> None:
    """``suspend C --action n`` (or ``suspend C@n``, as pyoozie asks for one action) suspends
    that action's workflow, which the action follows; the coordinator and its other actions
    go on (a suspended action frees its slot: Oozie counts RUNNING and SUBMITTED). One not
    running refuses the command with nothing changed."""
    hold = bt.tmp / "hold"
    hold.touch()
    xml = coordinator_xml(
        "held",
        start=T0,
        end="2026-01-01T04:00Z",
        controls={"concurrency": "2"},
        conf={"holdWhile": str(hold)},
    )
    coord_id = submit(bt, xml)
    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T03:30Z")

    def now(*statuses: str) -> bool:
        return list(bt.actions(coord_id).values()) == list(statuses)

    wait_for(lambda: now("RUNNING", "RUNNING", "READY", "READY"), 20)
    wf1 = bt.peek(f"{coord_id}@1")["externalId"]
    assert bt.cli("suspend", coord_id, "--action", "1").stdout.split() == [f"{coord_id}@1"]
    assert (bt.peek(wf1)["status"], bt.status(coord_id)) == ("SUSPENDED", "RUNNING")
    wait_for(lambda: now("SUSPENDED", "RUNNING", "RUNNING", "READY"), 20)

    err = bt.fails("suspend", coord_id, "--action", "2-4", code="E1100").stderr
    assert f"{coord_id}@4: it is READY" in err
    assert now("SUSPENDED", "RUNNING", "RUNNING", "READY")  # @2 and @3 too
    bt.fails("resume", coord_id, "--action", "2", code="E1100")
    bt.cli("oozie", "job", "-suspend", f"{coord_id}@2")
    wait_for(lambda: now("SUSPENDED", "SUSPENDED", "RUNNING", "RUNNING"), 20)

    bt.cli("resume", f"{coord_id}@1")
    bt.cli("resume", coord_id, "--date", "2026-01-01T01:00Z")
    assert bt.peek(wf1)["status"] == "RUNNING"
    hold.unlink()
    wait_for(lambda: now(*["SUCCEEDED"] * 4), 30)
    assert bt.status(coord_id) == "SUCCEEDED"


def test_killed_before_its_first_action_then_status_running_materializes(bt: Bt4) -> None:
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T03:00Z"), flag="/none")
    bt.cli("kill", coord_id)  # PREP: nothing materialized yet
    assert bt.status(coord_id) == "KILLED"
    bt.cli("change", coord_id, "--value", "status=RUNNING")
    assert bt.status(coord_id) == "RUNNING"
    bt.sim(T0, "2026-01-01T03:00Z")
    assert bt.actions(coord_id) == dict.fromkeys((1, 2, 3), "WAITING")


def test_info_shows_a_page_of_1000_actions_unless_asked_and_says_how_to_see_more(
    bt: Bt4,
) -> None:
    """QA (scale): ``info C`` printed every action (100,000: 34 s, 630 MB). It shows 1,000
    now, as Oozie's v1 API does, and says how to see the rest; ``--len`` asks for more, and
    ``oozie job -info`` still shows them all, as Oozie's CLI does. ``log C`` likewise."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T02:00Z"), flag="/none")
    bt.land(partition("raw", T0), partition("raw", "2026-01-01T01:00Z"))
    bt.sim(T0, "2026-01-01T03:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "SUCCEEDED"}
    conn = sqlite3.connect(bt.home / "bundletui.db")
    with conn:  # 1,003 more of the same shape (1,005 in all): cheaper than running them
        conn.execute(
            "WITH RECURSIVE k(n) AS (SELECT 3 UNION ALL SELECT n + 1 FROM k WHERE n < 1005)"
            " INSERT INTO coord_actions (id, coord_id, action_number, nominal_time,"
            " created_time, status, external_id, last_modified, rev)"
            " SELECT coord_id || '@' || n, coord_id, n, nominal_time + (n - 1) * 3600000,"
            " created_time, status, external_id, last_modified, rev"
            " FROM coord_actions, k WHERE id = ?",
            (f"{coord_id}@1",),
        )
        conn.execute("UPDATE coord_jobs SET last_action_number = 1005 WHERE id = ?", (coord_id,))
    conn.close()
    shown = bt.cli("info", coord_id).stdout
    assert "Showing     : 1-1000 of 1005, asc" in shown, shown
    assert f"5 more: bundletui info {coord_id} --offset 1001 (--len N" in shown
    assert len(bt.info_json(coord_id)["actions"]) == 1000
    assert len(bt.info_json(coord_id, "--len", "2000")["actions"]) == 1005
    tail = bt.cli("info", coord_id, "--offset", "1001").stdout
    assert "Showing     : 1001-1005 of 1005" in tail and "more:" not in tail
    everything = bt.cli("oozie", "job", "-info", coord_id).stdout
    assert f"{coord_id}@1005 " in everything
    # its log likewise: the newest 1,000 actions' (it read every action's: 100,000 in 17 s)
    logged = bt.cli("log", coord_id)
    assert (
        f"the logs of its newest 1000 actions of 1005 that launched a workflow (from "
        f"{coord_id}@6); others: --action N-M or --date" in logged.stderr
    ), logged.stderr
    headers = [ln for ln in logged.stdout.splitlines() if ln.startswith(f"── {coord_id}@")]
    assert len(headers) == 1000 and headers[0].startswith(f"── {coord_id}@6 ")
    assert "newest" not in bt.cli("log", coord_id, "--action", "1-3").stderr


def test_a_rerun_timedout_action_times_out_from_its_new_creation(bt: Bt4) -> None:
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T01:00Z", timeout="60"), flag="/none")
    bt.sim(T0, "2026-01-01T03:00Z")  # input never lands: 01:01 comes and goes
    assert bt.actions(coord_id) == {1: "TIMEDOUT"}
    # no log, and why (QA (o): the hint said it would launch once READY, which it never will)
    r = bt.cli("log", f"{coord_id}@1")  # the action is there: an empty log, and why
    assert r.stdout == "" and "ended TIMEDOUT without launching a workflow: it has no log" in (
        " ".join(r.stderr.split())
    ), r
    bt.cli("rerun", coord_id, "--action", "1")
    r = bt.cli("log", f"{coord_id}@1")
    assert "is WAITING and has launched no workflow: no log yet" in r.stderr, r.stderr
    assert "1 of 1 inputs missing: " in r.stderr, r.stderr
    assert f"; see: bundletui info {coord_id}@1" in r.stderr
    ((created, timeout_at),) = bt.sql(
        "SELECT created_time, timeout_at FROM coord_actions WHERE id = ?", f"{coord_id}@1"
    )
    assert timeout_at - created == 61 * 60_000  # from the rerun, not from the nominal time
    bt.sim(T0, "2026-01-01T03:30Z")
    assert bt.actions(coord_id) == {1: "WAITING"}
    bt.sim(T0, "2026-01-01T04:05Z")
    assert bt.actions(coord_id) == {1: "TIMEDOUT"}


def test_a_rerun_action_that_had_not_timed_out_keeps_its_created_time(bt: Bt4) -> None:
    """QA (rerun): every rerun reset the action's created time, so a KILLED action waiting
    for input got its whole timeout again. As Oozie's CoordRerunXCommand (oozie.md §2.4),
    only a TIMEDOUT action's timeout counts again: this one times out at its first check."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T02:00Z", timeout="120"), flag="/none")
    bt.sim(T0, "2026-01-01T01:30Z")
    assert bt.actions(coord_id) == {1: "WAITING", 2: "WAITING"}
    ((created,),) = bt.sql("SELECT created_time FROM coord_actions WHERE id = ?", f"{coord_id}@1")
    bt.cli("kill", coord_id, "--action", "1")
    bt.sim(T0, "2026-01-01T06:00Z")  # action 2 timed out meanwhile (03:01)
    assert bt.actions(coord_id) == {1: "KILLED", 2: "TIMEDOUT"}
    bt.cli("rerun", coord_id, "--action", "1-2")
    rows = bt.sql(
        "SELECT created_time, timeout_at FROM coord_actions WHERE coord_id = ?"
        " ORDER BY action_number",
        coord_id,
    )
    assert rows[0][0] == created  # KILLED: kept, and its deadline (02:01) is long past
    assert rows[1][0] > created and rows[1][1] - rows[1][0] == 121 * 60_000  # TIMEDOUT: again
    bt.sim(T0, "2026-01-01T06:05Z")
    assert bt.actions(coord_id) == {1: "TIMEDOUT", 2: "WAITING"}


def test_a_suspended_coordinators_waiting_actions_do_not_time_out(bt: Bt4) -> None:
    """Suspend delays actions, it does not lose them (oozie.md §1.3): Oozie checks no inputs,
    and so times nothing out, while a coordinator is suspended. After the resume an action whose
    input is still missing times out; one whose input landed meanwhile runs."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T02:00Z", timeout="60"), flag="/none")
    bt.sim(T0, "2026-01-01T00:30Z")
    assert bt.actions(coord_id)[1] == "WAITING"
    bt.cli("suspend", coord_id)
    bt.sim(T0, "2026-01-01T03:00Z")  # 01:01, action 1's timeout, comes and goes
    assert bt.status(coord_id) == "SUSPENDED"
    assert set(bt.actions(coord_id).values()) == {"WAITING"}
    bt.land(partition("raw", "2026-01-01T01:00Z"))
    bt.cli("resume", coord_id)
    bt.sim(T0, "2026-01-01T03:30Z")
    assert bt.actions(coord_id) == {1: "TIMEDOUT", 2: "SUCCEEDED"}
    assert bt.status(coord_id) == "DONEWITHERROR"


def test_a_suspended_coordinators_input_that_lands_is_checked_only_after_resume(bt: Bt4) -> None:
    """Oozie's input check runs only for a RUNNING or PAUSED job: an input landing while the
    coordinator is suspended leaves its action WAITING (the engine's start and its landing
    events find it all the same), and the resume checks it."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T02:00Z", timeout="600"), flag="/none")
    bt.sim(T0, "2026-01-01T00:30Z")
    bt.cli("suspend", coord_id)
    bt.land(partition("raw", "2026-01-01T00:00Z"))
    bt.sim(T0, "2026-01-01T01:30Z")
    assert bt.actions(coord_id) == {1: "WAITING"}  # nothing materializes either
    why = bt.cli("info", f"{coord_id}@1").stdout
    assert "coordinator SUSPENDED: inputs are checked after resume" in why
    # QA: the coordinator's row said "missing 1/1: …" of the input that had landed
    out = bt.cli("info", coord_id).stdout
    row = next(line for line in out.splitlines() if "WAITING" in line)
    assert "SUSPENDED: inputs are checked after" in row and "missing" not in row, row
    bt.cli("resume", coord_id)
    bt.sim(T0, "2026-01-01T01:40Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "WAITING"}


def test_a_timeout_reached_while_suspended_is_applied_by_the_running_engines_resume(
    bt: Bt4,
) -> None:
    """The same, with one engine running through the suspension: the timeout it reached while
    the coordinator was suspended is kept, and applied when the coordinator is resumed."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T01:00Z", timeout="60"), flag="/none")
    bt.sim(T0, "2026-01-01T00:30Z")
    bt.cli("suspend", coord_id)
    bt.engine("--clock", "simulated", "--start-time", T0)  # nothing else due: jumps to 01:01
    wait_for(
        lambda: (
            int(bt.sql("SELECT value FROM meta WHERE key = 'sim_now'")[0][0]) >= 1_767_229_260_000
        ),  # 2026-01-01T01:01Z
        20,
        "the simulated clock to pass the timeout",
    )
    assert bt.actions(coord_id) == {1: "WAITING"}
    bt.cli("resume", coord_id)
    wait_for(lambda: bt.actions(coord_id) == {1: "TIMEDOUT"}, 20, "the timeout after resume")


def test_rerun_refresh_re_resolves_latest(bt: Bt4) -> None:
    coord_id = submit(
        bt,
        coordinator_xml(
            "latest",
            start="2026-01-01T10:00Z",
            end="2026-01-01T11:00Z",
            datasets=[hourly_ds("l")],
            inputs=[data_in("l", "l", "${coord:latest(0)}")],
            conf={"l": "${coord:dataIn('l')}"},
        ),
    )
    bt.land(partition("l", "2026-01-01T08:00Z"))
    bt.sim("2026-01-01T10:00Z", "2026-01-01T10:00Z")
    aid = f"{coord_id}@1"
    assert run_conf(bt, aid)["l"].endswith("l/2026/01/01/08")
    bt.land(partition("l", "2026-01-01T11:00Z"))  # after the action's creation time
    bt.land(partition("l", "2026-01-01T09:00Z"))  # before it, but after the first resolution
    bt.sim("2026-01-01T10:00Z", "2026-01-01T12:00Z")
    bt.cli("rerun", coord_id, "--action", "1")
    bt.sim("2026-01-01T10:00Z", "2026-01-01T12:00Z")
    assert run_conf(bt, aid)["l"].endswith("l/2026/01/01/08")  # as first resolved
    bt.cli("rerun", coord_id, "--action", "1", "--refresh")
    bt.sim("2026-01-01T10:00Z", "2026-01-01T12:00Z")
    assert run_conf(bt, aid)["l"].endswith("l/2026/01/01/11")  # re-resolved now
    assert trace_counts(bt.trace)[aid] == 3


def test_rerun_checks_only_the_inputs_still_missing_refresh_checks_all(bt: Bt4) -> None:
    """Oozie's input check reads an action's stored *missing* dependencies, which a successful
    check left empty: a rerun without ``--refresh`` goes READY although its inputs were purged
    since (QA: it waited for them, and timed out). ``--refresh`` resolves and checks them all
    again."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T03:00Z"), flag=str(bt.tmp / "no-flag"))
    bt.land(*(partition("raw", f"2026-01-01T0{h}:00Z") for h in range(3)))
    bt.sim(T0, "2026-01-01T02:30Z")
    assert bt.actions(coord_id) == dict.fromkeys((1, 2, 3), "SUCCEEDED")
    purged = bt.landing / partition("raw", "2026-01-01T01:00Z")
    for f in purged.iterdir():
        f.unlink()
    purged.rmdir()
    aid = f"{coord_id}@2"

    bt.cli("rerun", coord_id, "--action", "2")
    assert bt.actions(coord_id)[2] == "WAITING"
    assert "missing" not in bt.cli("info", aid).stdout  # checked once, found: not missing
    bt.sim(T0, "2026-01-01T02:30Z")
    assert bt.actions(coord_id)[2] == "SUCCEEDED"

    bt.cli("rerun", coord_id, "--action", "2", "--refresh")
    bt.sim(T0, "2026-01-01T02:30Z")
    assert bt.actions(coord_id)[2] == "WAITING"
    why = bt.cli("info", aid).stdout
    assert "missing" in why and str(purged) in why, why
    bt.land(partition("raw", "2026-01-01T01:00Z"))
    bt.sim(T0, "2026-01-01T02:30Z")
    assert bt.actions(coord_id)[2] == "SUCCEEDED"
    assert trace_counts(bt.trace)[aid] == 3


def test_concurrency_suspend_resume_and_change_concurrency(bt: Bt4) -> None:
    hold = bt.tmp / "hold"
    hold.touch()
    coord_id = submit(
        bt,
        coordinator_xml(
            "busy",
            start=T0,
            end="2026-01-01T05:00Z",
            controls={"concurrency": "2"},
            conf={"holdWhile": str(hold)},
        ),
    )
    bt.engine("--clock", "simulated", "--start-time", "2026-01-01T04:30Z")  # 5 to catch up
    running = lambda: [n for n, s in bt.actions(coord_id).items() if s == "RUNNING"]  # noqa: E731
    wait_for(lambda: len(running()) == 2, 20, "two actions RUNNING")
    assert running() == [1, 2]
    info = bt.info_json(coord_id)
    ready = [a for a in info["actions"] if a["status"] == "READY"]
    assert [a["actionNumber"] for a in ready] == [3, 4, 5]
    assert ready[0]["waitingFor"]["reason"] == "concurrency"
    assert ready[0]["waitingFor"]["detail"] == "concurrency 2/2 running"

    bt.cli("suspend", coord_id)
    assert bt.status(coord_id) == "SUSPENDED"
    acts = bt.actions(coord_id)
    assert [acts[1], acts[2]] == ["SUSPENDED", "SUSPENDED"]
    for n in (1, 2):
        assert bt.peek(bt.peek(f"{coord_id}@{n}")["externalId"])["status"] == "SUSPENDED"
    why = bt.info_json(coord_id)["actions"][2]["waitingFor"]
    assert why["reason"] == "coordinator" and why["status"] == "SUSPENDED"
    # already suspended: a plain precondition (E1100); E0728 says "finished, failed or killed"
    bt.fails("suspend", coord_id, code="E1100")

    bt.cli("resume", coord_id)
    assert bt.status(coord_id) == "RUNNING"
    assert running() == [1, 2]

    # the action follows its workflow when the workflow itself is suspended and resumed
    wf = bt.peek(f"{coord_id}@1")["externalId"]
    bt.cli("suspend", wf)
    assert (bt.peek(wf)["status"], bt.actions(coord_id)[1]) == ("SUSPENDED", "SUSPENDED")
    assert bt.status(coord_id) == "RUNNING"
    bt.cli("resume", wf)
    assert (bt.peek(wf)["status"], bt.actions(coord_id)[1]) == ("RUNNING", "RUNNING")

    bt.cli("change", coord_id, "--value", "concurrency=3")
    wait_for(lambda: running() == [1, 2, 3], 20, "a third slot used")
    hold.unlink()
    bt.wait_status(coord_id, "SUCCEEDED", timeout=30)
    assert sorted(trace_counts(bt.trace).values()) == [1] * 5


def test_change_endtime_pausetime_and_their_rules(bt: Bt4) -> None:
    coord_id = submit(
        bt,
        coordinator_xml(
            "chg",
            start=T0,
            end="2026-01-01T12:00Z",
            controls={"timeout": "-1", "throttle": "20"},
            datasets=[hourly_ds("raw")],
            inputs=[data_in("raw", "raw", "${coord:current(0)}")],
        ),
    )
    bt.land(partition("raw", T0))
    # a known key without "=": said so, not "unknown key [endtime]"
    err = bt.fails("change", coord_id, "--value", "endtime", code="E1015").stderr
    assert "endtime needs a value" in err and "--value 'endtime=2026-01-01T00:00Z'" in err
    bt.sim(T0, "2026-01-01T04:30Z")
    assert bt.actions(coord_id) == {
        1: "SUCCEEDED",
        2: "WAITING",
        3: "WAITING",
        4: "WAITING",
        5: "WAITING",
    }

    bt.fails("change", coord_id, "--value", "endtime=2026-01-01T00:00Z", code="E1022")
    bt.fails("change", coord_id, "--value", "colour=red", code="E1015")
    for number in ("99999999999", "1_0", "\u0663"):  # Integer.parseInt refuses each
        bt.fails("change", coord_id, "--value", f"concurrency={number}", code="E1015")
    bt.fails("change", coord_id, "--value", "pausetime=2026-01-01T01:00Z", code="E1015")  # past
    err = bt.fails("change", coord_id, "--value", "endtime=soon", code="E1015").stderr
    assert "Invalid coordinator job change value endtime=soon, endtime: Could not parse" in err

    # pause time: WAITING actions at or after it are deleted; PAUSED when reached
    bt.cli("change", coord_id, "--value", "pausetime=2026-01-01T06:00Z")
    bt.cli("change", coord_id, "--value", "pausetime=2026-01-01T05:00Z;concurrency=2")
    held = bt.info_json(coord_id)["materialization"]["heldBy"]
    assert held == "pause time 2026-01-01 05:00 GMT", held  # next is 05:00: held, not PAUSED yet
    assert bt.status(coord_id) == "RUNNING"
    bt.sim(T0, "2026-01-01T07:00Z")
    assert bt.status(coord_id) == "PAUSED"
    assert bt.nominals(coord_id)[-1] == "2026-01-01T04:00Z"
    info = bt.info_json(coord_id)
    assert info["concurrency"] == 2
    assert info["materialization"]["heldBy"] == (
        "coordinator PAUSED at its pause time 2026-01-01 05:00 GMT"
    )
    bt.cli("change", coord_id, "--value", "pausetime=")
    assert bt.status(coord_id) == "RUNNING"

    # end time moved earlier: the WAITING actions after it go; moved later: more materialize
    bt.cli("change", coord_id, "--value", "endtime=2026-01-01T03:00Z")
    assert bt.nominals(coord_id)[-1] == "2026-01-01T02:00Z"
    bt.land(partition("raw", "2026-01-01T01:00Z"), partition("raw", "2026-01-01T02:00Z"))
    bt.sim(T0, "2026-01-01T07:00Z")
    assert bt.status(coord_id) == "SUCCEEDED"
    bt.cli("change", coord_id, "--value", "endtime=2026-01-01T05:00Z")
    assert bt.status(coord_id) == "RUNNING"
    bt.land(partition("raw", "2026-01-01T03:00Z"), partition("raw", "2026-01-01T04:00Z"))
    bt.sim(T0, "2026-01-01T07:00Z")
    assert bt.status(coord_id) == "SUCCEEDED"
    assert bt.nominals(coord_id) == [f"2026-01-01T0{h}:00Z" for h in range(5)]
    assert list(bt.actions(coord_id)) == [1, 2, 3, 4, 5]  # numbers reused, contiguous
    # QA (rerun): E1100 before; Oozie's CoordChangeXCommand answers E1015, in these words
    refused = bt.fails("change", coord_id, "--value", "status=RUNNING", code="E1015")
    assert (
        "Only FAILED, KILLED, IGNORED job can be changed to RUNNING. Current job status is "
        "SUCCEEDED" in refused.stderr
    ), refused
    refused = bt.fails("change", coord_id, "--value", "status=IGNORED", code="E1015")
    assert (
        "Only FAILED or KILLED non-pending job can be changed to IGNORED. Current job "
        "status is SUCCEEDED and pending is false" in refused.stderr
    ), refused
    assert bt.status(coord_id) == "SUCCEEDED"


def test_actions_whose_launch_fails_do_not_hold_the_slot_from_the_ready_ones_after_them(
    bt: Bt4,
) -> None:
    """QA: a launch that failed counted as a slot used, and nothing woke the coordinator
    again: with concurrency 1, one engine run failed one READY action and left the rest READY
    for good (each restart failed one more). A failed launch holds no slot now."""
    workflow = bt.apps.root / "wf" / "workflow.xml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(MARK.read_text())
    xml = coordinator_xml(
        "ops", start=T0, end="2026-01-01T04:00Z", controls={"concurrency": "1"}, workflow=workflow
    )
    coord_id = submit(bt, xml)
    workflow.unlink()  # every launch fails now (E1001: no workflow to start)
    bt.sim("2026-01-01T05:00Z", "2026-01-01T05:00Z")  # catching up: all four READY at once
    actions = bt.actions(coord_id)
    assert actions == dict.fromkeys((1, 2, 3, 4), "FAILED"), actions
    assert bt.status(coord_id) == "FAILED"  # every action failed (oozie.md §2.3)
    # QA (s): status=RUNNING exited 0 and changed nothing (rolled straight back to FAILED)
    refused = bt.fails("change", coord_id, "--value", "status=RUNNING", code="E1015").stderr
    assert "has nothing left to run" in refused and "FAILED again at once" in refused, refused
    assert f"bundletui rerun {coord_id} --action 1-4) or move its end" in refused
    assert bt.status(coord_id) == "FAILED"
    # QA (t): un-ignoring one whose actions have all ended is a change (back to FAILED, which
    # can be rerun), not refused as one that rolls straight back. QA (rerun): Oozie's change
    # takes status=IGNORED too, as ignore does
    bt.cli("change", coord_id, "--value", "status=IGNORED")
    assert bt.status(coord_id) == "IGNORED"
    bt.fails("change", coord_id, "--value", "status=IGNORED", code="E1015")  # already is
    r = bt.fails("change", coord_id, "--value", "concurrency=2", code="E1016")
    assert f"{coord_id} is IGNORED" in r.stderr, r  # Oozie's message says "killed"
    r = bt.fails("rerun", coord_id, "--action", "1-4", code="E1018")  # QA: said no way out
    assert f"hint: bring it back first: bundletui change {coord_id} --value status=RUNNING" in (
        r.stderr
    ), r
    bt.cli("change", coord_id, "--value", "status=RUNNING")
    assert bt.status(coord_id) == "FAILED"
    # QA (s): a FAILED coordinator refused the rerun (E1100), so "fix it, rerun" could not
    # recover it; Oozie refuses only PREP and IGNORED (oozie.md §2.6)
    workflow.write_text(MARK.read_text())
    bt.cli("rerun", coord_id, "--action", "1-4")
    assert bt.status(coord_id) == "RUNNING"  # rolled up: no action is in error now
    bt.sim("2026-01-01T05:00Z", "2026-01-01T05:00Z")
    assert bt.actions(coord_id) == dict.fromkeys((1, 2, 3, 4), "SUCCEEDED")
    assert bt.status(coord_id) == "SUCCEEDED"


def test_a_dated_rerun_reruns_the_ended_actions_and_passes_over_the_rest(bt: Bt4) -> None:
    """QA (af): ``rerun C --date d1::d2`` was refused (E1018) when one action in the range
    still waited, although Oozie's rerun takes from a range only the actions that have ended
    (GET_TERMINATED_ACTIONS_FOR_DATES): "rerun yesterday" failed while today's hour waited. A
    single date, or an action number, is still taken as named, and refused if it runs; a
    range with nothing ended reruns nothing, E1018. ``rerun C@N`` is ``rerun C --action N``."""
    coord_id = submit(bt, hourly_with_inputs("2026-01-01T03:00Z"), flag=str(bt.tmp / "no"))
    bt.land(partition("raw", T0), partition("raw", "2026-01-01T02:00Z"))
    bt.sim(T0, "2026-01-01T04:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "WAITING", 3: "SUCCEEDED"}
    before = trace_counts(bt.trace)

    reran = bt.cli("rerun", coord_id, "--date", f"{T0}::2026-01-01T02:00Z").stdout.split()
    assert reran == [f"{coord_id}@1", f"{coord_id}@3"]
    assert bt.actions(coord_id) == {1: "WAITING", 2: "WAITING", 3: "WAITING"}
    bt.sim(T0, "2026-01-01T04:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "WAITING", 3: "SUCCEEDED"}
    after = trace_counts(bt.trace)
    assert {k: after[k] - before[k] for k in after} == {
        f"{coord_id}@1": 1,
        f"{coord_id}@3": 1,
    }

    r = bt.fails("rerun", coord_id, "--date", "2026-01-01T01:00Z", code="E1018")  # named
    assert f"{coord_id}@2 is WAITING" in r.stderr, r
    bt.fails("rerun", coord_id, "--action", "1-2", code="E1018")
    r = bt.fails("rerun", coord_id, "--date", "2026-01-01T01:00Z::2026-01-01T01:30Z", code="E1018")
    assert "that has ended" in r.stderr and "nothing to rerun" in r.stderr, r
    r = bt.fails("rerun", coord_id, "--date", "2026-01-01T00:30Z", code="E0605")  # named: none
    assert "that has ended" not in r.stderr, r
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "WAITING", 3: "SUCCEEDED"}

    assert bt.cli("rerun", f"{coord_id}@3").stdout.split() == [f"{coord_id}@3"]
    assert bt.actions(coord_id)[3] == "WAITING"


def test_a_rerun_last_only_will_skip_is_said_and_a_skipped_action_can_be_rerun(bt: Bt4) -> None:
    """QA (af): under LAST_ONLY a rerun of a past action is SKIPPED at once (Oozie's input
    check skips it too), and the rerun said nothing of it; a SKIPPED action then could never
    be rerun, though Oozie's rerun takes every action that has ended (isTerminalStatus)."""
    # the end off the grid (02:30): the last action's next time (03:00) is after it, so it has
    # no next and runs when rerun (an end at 03:00 would skip it too, as Oozie's)
    coord_id = submit(
        bt, hourly_with_inputs("2026-01-01T02:30Z", execution="LAST_ONLY"), flag=str(bt.tmp / "n")
    )
    bt.land(*(partition("raw", f"2026-01-01T0{h}:00Z") for h in range(3)))
    bt.sim(T0, "2026-01-01T04:00Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED", 2: "SUCCEEDED", 3: "SUCCEEDED"}

    r = bt.cli("rerun", coord_id, "--action", "1,3")
    assert r.stdout.split() == [f"{coord_id}@1", f"{coord_id}@3"]
    warned = " ".join(r.stderr.split())
    assert (
        f"Warning: {coord_id}@1 will be SKIPPED, not run: under LAST_ONLY an action that has "
        "not started by 2026-01-01T01:00Z is skipped" in warned
    ), r
    assert f"{coord_id}@3" not in warned  # the last one has no next: it runs
    bt.sim(T0, "2026-01-01T04:10Z")
    assert bt.actions(coord_id) == {1: "SKIPPED", 2: "SUCCEEDED", 3: "SUCCEEDED"}

    r = bt.cli("oozie", "job", "-rerun", coord_id, "-action", "1")
    assert f"note: {coord_id}@1 will be SKIPPED" in r.stderr, r
    assert bt.actions(coord_id)[1] == "WAITING"


def test_a_rerun_never_cleans_up_a_top_level_output(bt: Bt4) -> None:
    """A data-out that names a top-level directory (built from an empty value) is left alone
    by a rerun's cleanup, with a warning, as an fs delete of it is refused (QA: a data-out of
    ``/tmp/..`` made the rerun rmtree the root)."""
    flag = bt.tmp / "fail"
    flag.touch()  # the action fails before it writes anything
    xml = coordinator_xml(
        "top",
        start=T0,
        end="2026-01-01T01:00Z",
        datasets=[DS("top", "${outRoot}/bundletui-none-top-${YEAR}")],
        outputs=[data_out("out", "top")],
        conf={"outDir": "${coord:dataOut('out')}", "failIf": str(flag)},
    )
    coord_id = submit(bt, xml, outRoot="")
    bt.sim(T0, "2026-01-01T00:30Z")
    assert bt.actions(coord_id) == {1: "FAILED"}
    r = bt.cli("rerun", coord_id, "--action", "1")
    assert r.stdout.split() == [f"{coord_id}@1"]
    assert (
        "Warning: output [/bundletui-none-top-2026] not cleaned up: refusing to delete a"
        " top-level directory of the file system" in " ".join(r.stderr.split())
    ), r.stderr
