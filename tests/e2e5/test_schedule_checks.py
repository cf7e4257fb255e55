"""Event schedules that cannot work are refused at submit / validate, with one clear error.

* Two feeds on one path with different done-flags (one coordinator, one bundle, or against an
  unfinished schedule already in the store; a bundle's coordinator that clashes when the bundle
  starts it fails to submit): the store records a partition once per path and hands it to both,
  so one would fire on partitions lacking its own done-flag.
* A trigger of waits only (a wait counts from an event; there is none), an empty time window.
* A ``<program>`` trigger naming no coordinator of its bundle: a note (a coordinator outside any
  bundle may fire it).
* A feed outside the landing directory: a warning at submit (found by rescans only).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e5.conftest import Bt5, Feed, Result, bundle, event_coordinator

PARTS = '<partitions feed="f" count="1"/>'
SCHEDULE_TABLES = ("coord_jobs", "bundle_jobs", "event_feeds", "event_triggers", "events")


def props(bt: Bt5, app: Path, kind: str = "coord") -> Path:
    key = {"coord": "oozie.coord.application.path", "bundle": "oozie.bundle.application.path"}
    p = bt.apps / f"{app.stem}.properties"
    p.write_text(
        f"{key[kind]}={app}\nstart=2026-01-01T00:00Z\nend=2027-01-01T00:00Z\n"
        f"traceDir={bt.trace_dir}\n"
    )
    return p


def counts(bt: Bt5) -> dict[str, int]:
    return {t: bt.sql(f"SELECT count(*) FROM {t}")[0][0] for t in SCHEDULE_TABLES}


def refused(r: Result) -> str:
    """The one error of a refused command: no traceback, nothing on stdout."""
    assert r.code == 1, r
    assert "Traceback" not in r.stderr, r
    assert r.stdout == "", r
    assert r.stderr.startswith("Error: E1003: "), r
    assert r.stderr.count("Error:") == 1, r
    assert "\n  hint: " in r.stderr, r
    return r.stderr


def coord(bt: Bt5, name: str, flag: str | None, path: str = "${landing}/clicks") -> Path:
    return bt.write(
        f"{name}.xml", event_coordinator(name, feeds=[Feed("f", path, flag)], trigger=PARTS)
    )


# ----------------------------------------------------------------------------- item 1


def test_a_feed_on_a_live_schedules_path_with_another_done_flag_is_refused(bt: Bt5) -> None:
    first = bt.submit(coord(bt, "first", "_SUCCESS"))
    before = counts(bt)
    for name, flag in (("ready", "_READY"), ("files", "")):
        err = refused(
            bt.cli("submit", str(props(bt, coord(bt, name, flag))), "--start", check=False)
        )
        assert f"{bt.apps / name}.xml:2: " in err, err
        assert f"feed [f] of coordinator [{name}] watches {bt.landing / 'clicks'}" in err
        assert f'done-flag="{flag}"' in err and 'done-flag="_SUCCESS"' in err
        assert f"coordinator [first] ({first})" in err
        assert "same done-flag" in err and "another directory" in err
        assert counts(bt) == before  # store unchanged
    # the same path spelled otherwise (a -D landing=/dir/ gives //) is the same path
    for path in ("${landing}//clicks/", "${landing}/x/../clicks", "${landing}/./clicks"):
        err = refused(
            bt.cli("submit", str(props(bt, coord(bt, "odd", "_READY", path))), check=False)
        )
        assert f"watches {bt.landing / 'clicks'} with" in err, err
    # the same done-flag is fine; so is another once the first schedule is finished
    bt.submit(coord(bt, "same", "_SUCCESS"))
    bt.cli("kill", first)
    bt.cli("kill", bt.sql("SELECT id FROM coord_jobs WHERE app_name = 'same'")[0][0])
    bt.submit(coord(bt, "later", "_READY"))


def test_a_bundle_whose_feeds_clash_is_refused_at_validate_and_submit(bt: Bt5) -> None:
    a, b = coord(bt, "a", "_SUCCESS"), coord(bt, "b", "_READY")
    both = bt.write("both.xml", bundle("both", [("one", a, {}), ("two", b, {})]))
    p = props(bt, both, "bundle")
    for args in (("validate", str(both), "--config", str(p)), ("submit", str(p), "--start")):
        err = refused(bt.cli(*args, check=False))
        assert f"{b}:2: " in err and "coordinator [one] of the same bundle" in err, err
    assert not (bt.home / "bundletui.db").exists()

    # against the store: a running coordinator
    solo = bt.submit(a)
    only_b = bt.write("only_b.xml", bundle("only_b", [("two", b, {})]))
    err = refused(bt.cli("submit", str(props(bt, only_b, "bundle")), check=False))
    assert f"coordinator [a] ({solo})" in err, err
    bt.cli("kill", solo)

    # a PREP bundle registers its coordinators when it starts them: one that clashes with a
    # schedule submitted since fails to submit then, and the bundle says why
    prep = bt.cli("submit", str(props(bt, only_b, "bundle"))).stdout.split()[-1]
    again = bt.submit(a)
    bt.cli("start", prep)
    bt.step("2026-01-01T01:00Z")
    assert bt.sql("SELECT status, coord_id FROM bundle_actions WHERE bundle_id = ?", prep) == [
        ("FAILED", None)
    ]
    assert bt.sql("SELECT status FROM bundle_jobs WHERE id = ?", prep)[0][0] in (
        "FAILED",
        "DONEWITHERROR",
    )
    notes = [r[0] or "" for r in bt.sql("SELECT error FROM audit_log WHERE target = ?", prep)]
    assert any(f"coordinator [a] ({again})" in n and "done-flag" in n for n in notes), notes
    assert bt.sql("SELECT count(*) FROM coord_jobs WHERE bundle_id = ?", prep) == [(0,)]


def test_two_feeds_of_one_coordinator_on_one_path_need_one_done_flag(bt: Bt5) -> None:
    xml = event_coordinator(
        "twice",
        feeds=[Feed("f", "${landing}/clicks"), Feed("g", "${landing}/clicks/", "")],
        trigger=PARTS,
    )
    app = bt.write("twice.xml", xml)
    err = refused(bt.cli("validate", str(app), "--config", str(props(bt, app)), check=False))
    assert "feed [g] watches" in err and "feed [f] watches the same path" in err, err


# ----------------------------------------------------------------------------- item 2


def test_a_trigger_of_waits_only_and_an_empty_time_window_are_refused(bt: Bt5) -> None:
    waits = bt.write("waits.xml", event_coordinator("waits", trigger='<wait duration="PT5M"/>'))
    nested = bt.write(
        "nested.xml",
        event_coordinator(
            "nested",
            trigger='<and><cron expression="0 * * * *"/>\n<wait duration="PT5M"/></and>',
        ),
    )
    window = bt.write(
        "window.xml",
        event_coordinator(
            "window",
            feeds=[Feed("f", "${landing}/clicks")],
            trigger=PARTS,
            constraints='\n<time-window start="10:00" end="10:00"/>',
        ),
    )
    for app, line, text in (
        (waits, 2, "a <wait> needs an event to start from"),
        (nested, 3, "a <wait> needs an event to start from"),
        (window, 3, "time-window start and end are both 10:00"),
    ):
        p = props(bt, app)
        for args in (("validate", str(app), "--config", str(p)), ("submit", str(p))):
            err = refused(bt.cli(*args, check=False))
            assert f"{app}:{line}: " in err and text in err, err
    assert not (bt.home / "bundletui.db").exists()
    # a wait with an event to count from is fine
    ok = bt.write(
        "ok.xml",
        event_coordinator(
            "ok",
            feeds=[Feed("f", "${landing}/clicks")],
            trigger=f'<and>{PARTS}<wait duration="PT5M"/></and>',
        ),
    )
    bt.cli("validate", str(ok), "--config", str(props(bt, ok)))


def test_a_bytes_trigger_of_no_bytes_is_refused_and_attributes_take_variables(bt: Bt5) -> None:
    """``at-least="0"`` is always true (it fired again as soon as it fired, until the engine's
    stack ran out); the time window's, on-timeout's and wait's attributes take ``${…}`` as the
    other attributes do."""
    for size in ("0", "0.5B"):
        app = bt.write(
            "zero.xml",
            event_coordinator(
                "zero",
                feeds=[Feed("f", "${landing}/clicks")],
                trigger=f'<or><cron expression="0 0 * * *"/>\n<bytes feed="f" at-least="{size}"/></or>',
            ),
        )
        p = props(bt, app)
        for args in (("validate", str(app), "--config", str(p)), ("submit", str(p))):
            err = refused(bt.cli(*args, check=False))
            assert f"{app}:3: " in err and "at-least must be at least one byte" in err, err
    assert not (bt.home / "bundletui.db").exists()
    app = bt.write(
        "vars.xml",
        event_coordinator(
            "vars",
            feeds=[Feed("f", "${landing}/clicks")],
            trigger=f'<and>{PARTS}<wait duration="PT5M" after="${{after}}"/></and>',
            constraints='<time-window start="${ws}" end="${we}"/>'
            '<timeout on-timeout="${mode}">PT1H</timeout>',
        ),
    )
    defines = ("-D", "ws=22:00", "-D", "we=06:00", "-D", "mode=force", "-D", "after=last-event")
    coord_id = bt.cli("submit", str(props(bt, app)), *defines).stdout.strip()
    info = bt.info(coord_id)
    window = info["constraints"]["timeWindow"]
    assert (window["start"], window["end"], info["constraints"]["onTimeout"]) == (
        "22:00",
        "06:00",
        "force",
    )
    assert info["trigger"]["tree"]["and"][1]["wait"]["after"] == "last-event"


def test_a_program_trigger_naming_no_coordinator_of_its_bundle_is_a_note(bt: Bt5) -> None:
    prog = bt.write(
        "prog.xml",
        event_coordinator("prog", trigger='\n<program coordinator="nonexistent"/>'),
    )
    other = coord(bt, "other", None)
    b = bt.write("b.xml", bundle("b", [("prog", prog, {}), ("other", other, {})]))
    r = bt.cli("validate", str(b), "--config", str(props(bt, b, "bundle")))
    note = f'  note: {prog}:3: <program coordinator="nonexistent"> of coordinator [prog]'
    assert note in r.stdout, r
    assert "(it has prog, other)" in r.stdout, r
    args = ("validate", str(b), "--config", str(props(bt, b, "bundle")), "--json")
    (data,) = json.loads(bt.cli(*args).stdout)
    assert data["valid"] and any("nonexistent" in n for n in data["notes"]), data
    fine = bt.write("fine.xml", event_coordinator("fine", trigger='<program coordinator="other"/>'))
    b2 = bt.write("b2.xml", bundle("b2", [("fine", fine, {}), ("other", other, {})]))
    assert (
        "note:" not in bt.cli("validate", str(b2), "--config", str(props(bt, b2, "bundle"))).stdout
    )


# ----------------------------------------------------------------------------- item 3


def test_submit_warns_about_a_feed_outside_the_landing_directory(bt: Bt5) -> None:
    outside = bt.tmp / "elsewhere"
    app = coord(bt, "out", None, str(outside))
    r = bt.cli("submit", str(props(bt, app)), "--start")
    assert r.stdout.strip().endswith("-C"), r
    assert f"feed [f] of coordinator [out] watches {outside}" in r.stderr, r
    assert f"outside the landing directory {bt.landing}" in r.stderr, r
    assert "only when the engine starts and every 5 minutes by a rescan" in r.stderr, r
    inside = coord(bt, "in", None)
    assert bt.cli("submit", str(props(bt, inside)), "--start").stderr == ""
    b = bt.write("b.xml", bundle("b", [("x", app, {})]))
    r = bt.cli("submit", str(props(bt, b, "bundle")))
    assert "coordinator [x] watches" in r.stderr, r


def test_the_warning_measures_a_feed_against_the_jobs_own_landing(bt: Bt5) -> None:
    """QA: a job that names its own ``landing`` (for ``run --landing`` there) was warned that
    its ``${landing}`` feed lay outside ``<home>/landing``."""
    own = bt.tmp / "own-landing"
    inside = coord(bt, "mine", None)
    r = bt.cli("submit", str(props(bt, inside)), "-D", f"landing={own}", "--start")
    assert r.stdout.strip().endswith("-C") and r.stderr == "", r
    # still warned when the feed is outside the landing the job names
    r = bt.cli("submit", str(props(bt, coord(bt, "away", None, str(bt.landing / "x")))),
               "-D", f"landing={own}", "--start")  # fmt: skip
    assert f"outside the landing directory {own}" in r.stderr, r
    # a bundle's coordinator measured against the landing its own configuration gives
    b = bt.write("b.xml", bundle("b", [("y", inside, {"landing": str(bt.tmp / "other")})]))
    r = bt.cli("submit", str(props(bt, b, "bundle")))
    assert "outside the landing directory" not in r.stderr, r
    b2 = bt.write("b2.xml", bundle("b2", [("z", coord(bt, "z", None, str(own / "q")), {})]))
    r = bt.cli("submit", str(props(bt, b2, "bundle")), "-D", f"landing={own}")
    assert r.stderr == "", r


def test_a_done_flag_given_by_a_variable_is_resolved_at_submit_and_fires(bt: Bt5) -> None:
    """QA: ``done-flag="${flag}"`` was stored as the text ``${flag}``: nothing fired on the flag
    the job properties named (only a file literally named ``${flag}`` did)."""
    app = coord(bt, "flagged", "${flag}")
    coord_id = bt.submit(app, {"flag": "READY"}, start="2020-01-01T00:00Z")
    assert bt.sql("SELECT done_flag FROM event_feeds WHERE coord_id = ?", coord_id) == [("READY",)]
    bt.land("clicks", "p1", flag="READY")
    bt.step("2026-03-01T09:00Z")
    (action,) = bt.actions(coord_id)
    assert bt.fired_paths(action) == [str(bt.landing / "clicks" / "p1")]
