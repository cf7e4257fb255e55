"""A black-box pass over bad input (twenty-third session): each was a traceback, a wrong
error or a silent fallback; each is now one clear error, a non-zero exit, nothing changed.
Through the real CLI and a real ``bundletui run`` on the simulated clock."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.e2e5.conftest import BUNDLETUI, RECORD, Bt5, Result, bundle, event_coordinator

EARLY, LATE = "0001-01-01T00:00+0100", "9999-12-31T23:59-0100"

HOURLY = (
    '<coordinator-app name="hc" frequency="60" start="${start}" end="${end}" timezone="UTC" '
    'xmlns="uri:oozie:coordinator:0.4"><action><workflow>'
    f"<app-path>{RECORD}</app-path></workflow></action></coordinator-app>\n"
)


DAG = (
    '<dag-app xmlns="uri:bundletui:dag:1.0" name="d"><job name="a"><shell><exec>true</exec>'
    "</shell></job></dag-app>\n"
)


def one_error(r: Result, code: int) -> str:
    assert r.code == code, r
    assert "Traceback" not in r.stderr and r.stderr.count("Error: ") == 1, r
    return r.stderr


def test_a_time_whose_offset_leaves_the_years_datetime_holds_is_a_clear_error(bt: Bt5) -> None:
    """It was "E0303: a number given is out of range (date value out of range)", exit 1, with
    no file or line, for a file's time and an option's alike."""
    app = bt.write("c.xml", HOURLY.replace('start="${start}"', f'start="{EARLY}"'))
    props = bt.write("c.properties", f"oozie.coord.application.path={app}\nend=2026-01-02T00:00Z\n")
    err = one_error(bt.cli("validate", str(app), "--config", str(props), check=False), 1)
    assert f"E1003: {app}:1: " in err and "it is before year 1 in UTC" in err, err
    coord = bt.submit(bt.write("ok.xml", HOURLY))
    before = bt.status(coord)
    for argv in (
        ("change", coord, "--value", f"endtime={LATE}"),
        ("kill", coord, "--date", EARLY),
        ("info", coord, "--filter", f"nominaltime>={EARLY}"),
        ("run", "--clock", "simulated", "--start-time", LATE),
    ):
        err = one_error(bt.cli(*argv, check=False), 2)
        assert argv[-1].rpartition("=")[2] in err and "a number given" not in err, err
    assert bt.status(coord) == before


def test_a_bundle_child_ended_by_the_end_time_it_missed_is_counted_as_ended(bt: Bt5) -> None:
    """A bundle given an end before its coordinators' start, then started: the coordinator
    was created and ended (SUCCEEDED, as Oozie's end-before-start), but the bundle's row for
    it stayed PREP, so the bundle read RUNNING, "1 PREP", above a SUCCEEDED child."""
    app = bt.write("hc.xml", HOURLY)
    b = bt.write("b.xml", bundle("bb", [("one", app, {})]))
    props = bt.write(
        "b.properties",
        f"oozie.bundle.application.path={b}\nstart=2026-01-01T00:00Z\nend=2026-01-02T00:00Z\n",
    )
    bt.step("2026-01-01T00:00Z")  # the store's clock
    bundle_id = bt.cli("submit", str(props)).stdout.strip()
    bt.cli("change", bundle_id, "--value", "endtime=2020-01-01T00:00Z")
    bt.step("2026-01-01T03:00Z")
    info = bt.info(bundle_id)
    assert [c["status"] for c in info["bundleCoordJobs"]] == ["SUCCEEDED"], info
    assert info["status"] == "SUCCEEDED", info


def test_an_empty_bundletui_home_is_refused_not_the_users_own_store(bt: Bt5) -> None:
    fake = bt.tmp / "fakehome"
    env = {**bt.env, "BUNDLETUI_HOME": "", "HOME": str(fake)}
    for argv in (["jobs"], ["submit", str(bt.write("w.properties", "x=1\n"))]):
        p = subprocess.run([BUNDLETUI, *argv], capture_output=True, text=True, env=env)
        err = one_error(Result(p.returncode, p.stdout, p.stderr), 2)
        assert "E0302" in err and "BUNDLETUI_HOME" in err and "empty" in err, err
    p = subprocess.run([BUNDLETUI, "oozie", "jobs"], capture_output=True, text=True, env=env)
    assert p.returncode == 255 and "BUNDLETUI_HOME" in p.stderr, p
    assert not fake.exists()
    with_home = subprocess.run(
        [BUNDLETUI, "jobs", "--home", str(bt.tmp / "h2")], capture_output=True, text=True, env=env
    )
    assert "BUNDLETUI_HOME" not in with_home.stderr, with_home  # --home wins: EB001, no store


@pytest.mark.parametrize("value", ["", " "])
def test_a_blank_landing_directory_is_refused(bt: Bt5, value: str) -> None:
    err = one_error(bt.cli("run", "--landing", value, "--exit-when-idle", check=False), 2)
    assert "'--landing': is empty" in err, err  # (' ' made a directory named by a space)


def _to_full(bt: Bt5, *argv: str) -> Result:
    """``bundletui … > /dev/full``."""
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [BUNDLETUI, *argv], stdout=full, stderr=subprocess.PIPE, text=True, env=bt.env
        )
    return Result(p.returncode, "", p.stderr)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_output_that_cannot_be_written_is_one_error_and_a_failure(bt: Bt5) -> None:
    """``jobs > /dev/full`` was a traceback; ``submit > /dev/full`` a traceback after the job
    was stored (its id lost without a word); nothing said it was the output that failed."""
    dag = bt.write("wf.xml", DAG)
    wf = bt.write("w.properties", f"oozie.wf.application.path={dag}\n")
    bt.cli("submit", str(wf))
    err = one_error(_to_full(bt, "jobs"), 1)
    assert "EB011: the output could not be written" in err, err
    err = one_error(_to_full(bt, "submit", str(wf)), 1)
    assert "EB011" in err and "a submit has stored its job" in err, err
    assert len(bt.cli("jobs", "--json").stdout.split('"id"')) - 1 == 2  # it was stored
    r = _to_full(bt, "oozie", "jobs")
    assert r.code == 255 and "EB011" in r.stderr and "Traceback" not in r.stderr, r


def test_a_demo_on_a_home_with_a_store_is_a_usage_error(bt: Bt5) -> None:
    bt.submit(bt.write("ok.xml", HOURLY))
    err = one_error(bt.cli("console", "--demo", "--home", str(bt.home), check=False), 2)
    assert "E0303" in err and "--demo needs a home of its own" in err, err


def test_an_event_cron_that_never_fires_is_refused_as_a_frequency_is(bt: Bt5) -> None:
    """``<cron expression="0 0 31 2 *"/>`` (February 31) was accepted in an event schedule,
    while a time coordinator's frequency of the same cron is refused."""
    app = bt.write("e.xml", event_coordinator("e", trigger='<cron expression="0 0 31 2 *"/>'))
    values = ("-D", "start=2026-01-01T00:00Z", "-D", "end=2027-01-01T00:00Z", "-D", "traceDir=t")
    err = one_error(bt.cli("validate", str(app), *values, check=False), 1)
    assert f"E1003: {app}:" in err and "it never fires" in err, err
    leap = bt.write("l.xml", event_coordinator("l", trigger='<cron expression="0 0 29 2 *"/>'))
    assert "Valid" in bt.cli("validate", str(leap), *values).stdout  # every fourth year


def test_hints_say_what_is_wrong_with_the_file(bt: Bt5) -> None:
    """A Latin-1 byte in a UTF-8 file was hinted as an unclosed tag; a workflow.xml that is a
    directory was "holds no workflow.xml"."""
    latin = bt.apps / "latin.xml"
    latin.write_bytes(DAG.replace('name="d"', 'name="d\xe9"').encode("latin-1"))
    err = one_error(bt.cli("validate", str(latin), check=False), 1)
    assert "not in the encoding it declares" in err and "iconv" in err, err
    app = bt.apps / "appdir"
    (app / "workflow.xml").mkdir(parents=True)
    props = bt.write("ad.properties", f"oozie.wf.application.path={app}\n")
    err = one_error(bt.cli("submit", str(props), check=False), 1)
    assert f"{app / 'workflow.xml'} is a directory, not a file" in err, err


def test_an_idempotency_key_given_blank_or_twice_differently_is_refused(bt: Bt5) -> None:
    """``--external-id ''`` stored no key (a retry submitted the job again);
    ``-D oozie.wf.external.id=k1 --external-id k2`` kept k2 without a word."""
    props = bt.write("w.properties", f"oozie.wf.application.path={bt.write('wf.xml', DAG)}\n")
    err = one_error(bt.cli("submit", str(props), "--external-id", "", check=False), 2)
    assert "--external-id" in err and "empty" in err, err
    clash = ("--external-id", "k2", "-D", "oozie.wf.external.id=k1")
    err = one_error(bt.cli("submit", str(props), *clash, check=False), 2)
    assert "oozie.wf.external.id is [k1]" in err, err
    assert not (bt.home / "bundletui.db").exists()  # nothing stored, not even a store
    same = ("--external-id", "k1", "-D", "oozie.wf.external.id=k1")
    first = bt.cli("submit", str(props), *same).stdout.strip()
    assert bt.cli("submit", str(props), "--external-id", "k1").stdout.strip().endswith(first)


def test_a_frequency_function_of_zero_says_how_to_write_it(bt: Bt5) -> None:
    app = bt.write("f0.xml", HOURLY.replace('frequency="60"', 'frequency="${coord:hours(0)}"'))
    values = ("-D", "start=2026-01-01T00:00Z", "-D", "end=2026-01-02T00:00Z")
    err = one_error(bt.cli("validate", str(app), *values, check=False), 1)
    assert "coord:hours(0): the argument must be greater than 0" in err, err
    assert "hint: a frequency counts up from 1: coord:hours(1)" in err, err
