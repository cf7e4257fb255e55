"""Event schedules that fire each other through ``<program>`` triggers are refused, E1003, with
the loop, the file and line of a ``<program>`` and a hint (QA: two schedules each
``<or><cron/><program/></or>`` on the other were accepted and ran for ever). Within a bundle
by ``validate`` and ``submit``; a standalone schedule or a bundle at ``submit``, against the
unfinished event schedules in the store, in bundles or not; a bundle's schedule once more when
its bundle starts, against what was submitted since."""

from __future__ import annotations

import json

from tests.e2e5 import test_schedule_checks as schedule_checks
from tests.e2e5.conftest import Bt5, Result, bundle, event_coordinator
from tests.e2e5.test_schedule_checks import props

CRON = '<cron expression="0 0 * * *"/>'


# QA's reproduction, as written: nothing in it needs a value, so validate resolves it all
WF = (
    '<dag-app xmlns="uri:bundletui:dag:1.0" name="t"><job name="show"><shell>'
    "<exec>/bin/true</exec></shell></job></dag-app>\n"
)
QA_COORD = """<coordinator-app name="{name}" xmlns="uri:bundletui:coordinator:1.0" \
start="2026-03-01T00:00Z" end="2026-03-02T00:00Z" timezone="UTC">
  <trigger><or><cron expression="0 0 * * *"/>
    <program coordinator="{other}" status="SUCCEEDED"/></or></trigger>
  <action><workflow><app-path>wf.xml</app-path></workflow></action>
</coordinator-app>
"""


def on(other: str) -> str:
    """A trigger that fires on a cron, or by itself when a run of ``other`` succeeds; the
    ``<program>`` on line 3 of the file."""
    return f'<or>{CRON}\n<program coordinator="{other}" status="SUCCEEDED"/></or>'


def listed(bt: Bt5) -> dict[str, list[str]]:
    """The ids ``bundletui jobs`` lists, coordinators and bundles."""
    out = {}
    for kind in ("coordinator", "bundle"):
        data = json.loads(bt.cli("jobs", "--type", kind, "--json").stdout)
        key, id_key = {
            "coordinator": ("coordinatorjobs", "coordJobId"),
            "bundle": ("bundlejobs", "bundleJobId"),
        }[kind]
        out[kind] = [j[id_key] for j in data[key]]
    return out


def refused(r: Result) -> str:
    """:func:`schedule_checks.refused`, with the loop's hint and reason."""
    err = schedule_checks.refused(r)
    assert "<and>" in err and "for ever" in err, r
    return err


def test_a_bundle_whose_schedules_fire_each_other_is_refused_by_validate_dryrun_and_submit(
    bt: Bt5,
) -> None:
    bt.write("wf.xml", WF)
    a = bt.write("a.xml", QA_COORD.format(name="a", other="b"))
    b = bt.write("b.xml", QA_COORD.format(name="b", other="a"))
    cyc = bt.write("cyc.xml", bundle("cyc", [("a", a, {}), ("b", b, {})]))
    p = props(bt, cyc, "bundle")
    err = refused(bt.cli("validate", str(cyc), check=False))
    assert f"{a}:3: " in err, err
    assert "a → b → a" in err, err
    assert refused(bt.cli("validate", str(cyc), "--config", str(p), check=False)) == err
    assert refused(bt.cli("dryrun", str(cyc), check=False)) == err
    bt.submit(bt.write("x.xml", event_coordinator("x", trigger=CRON)))  # the store exists
    before = listed(bt)
    assert refused(bt.cli("submit", str(p), "--start", check=False)) == err
    assert refused(bt.cli("submit", str(p), check=False)) == err
    assert listed(bt) == before and before["bundle"] == [], before
    assert bt.sql("SELECT count(*) FROM coord_jobs")[0][0] == 1


def test_a_three_schedule_loop_is_named_in_order(bt: Bt5) -> None:
    a = bt.write("a.xml", event_coordinator("a", trigger=on("b")))
    b = bt.write("b.xml", event_coordinator("b", trigger=on("c")))
    c = bt.write("c.xml", event_coordinator("c", trigger=on("a")))
    cyc = bt.write("cyc.xml", bundle("cyc", [("a", a, {}), ("b", b, {}), ("c", c, {})]))
    p = props(bt, cyc, "bundle")
    err = refused(bt.cli("validate", str(cyc), "--config", str(p), check=False))
    assert f"{a}:3: " in err and "a → b → c → a" in err, err


def test_an_and_around_one_program_is_accepted_where_the_or_is_refused(bt: Bt5) -> None:
    a = bt.write("a.xml", event_coordinator("a", trigger=on("b")))
    b = bt.write("b.xml", event_coordinator("b", trigger=on("a")))
    cyc = bt.write("cyc.xml", bundle("cyc", [("a", a, {}), ("b", b, {})]))
    refused(bt.cli("submit", str(props(bt, cyc, "bundle")), check=False))
    # the same with b's program in an <and> with a cron: a run of a alone no longer fires b
    gated = f'<and>{CRON}<program coordinator="a" status="SUCCEEDED"/></and>'
    b.write_text(event_coordinator("b", trigger=gated))
    r = bt.cli("validate", str(cyc), "--config", str(props(bt, cyc, "bundle")))
    assert "Valid bundle-app" in r.stdout, r
    bundle_id = bt.submit(cyc, kind="bundle")
    assert listed(bt)["bundle"] == [bundle_id]


def test_a_standalone_schedule_closing_a_loop_is_refused_and_the_first_stays(bt: Bt5) -> None:
    a = bt.write("a.xml", event_coordinator("a", trigger=on("b")))
    b = bt.write("b.xml", event_coordinator("b", trigger=on("a")))
    first = bt.submit(a)
    before = listed(bt)
    err = refused(bt.cli("submit", str(props(bt, b, "coord")), "--start", check=False))
    assert f"{b}:3: " in err and "b → a → b" in err, err
    assert first in err, err
    assert listed(bt) == before and before["coordinator"] == [first], before
    assert bt.sql("SELECT count(*) FROM event_triggers WHERE coord_id != ?", first)[0][0] == 0
    # once the first has ended, the loop is gone
    bt.cli("kill", first)
    assert bt.submit(b).endswith("-C")


def test_a_standalone_schedule_closing_a_loop_with_a_bundled_one_is_refused(bt: Bt5) -> None:
    """A bundled schedule hears coordinators outside any bundle: a bundled a on s, and a
    standalone s on a (a standalone schedule hears every coordinator of the name)."""
    a = bt.write("a.xml", event_coordinator("a", trigger=on("s")))
    b = bt.submit(bt.write("b.xml", bundle("b", [("a", a, {})])), kind="bundle")
    bt.step("2026-03-01T10:00Z")
    a_id = bt.coords_of(b)["a"]
    s = bt.write("s.xml", event_coordinator("s", trigger=on("a")))
    before = listed(bt)
    err = refused(bt.cli("submit", str(props(bt, s, "coord")), "--start", check=False))
    assert f"{s}:3: " in err and f"s → a ({b}) → s" in err, err
    assert f"[a ({b})] is the unfinished coordinator {a_id}" in err, err
    assert listed(bt) == before


def test_a_bundle_closing_a_loop_with_a_standalone_schedule_is_refused_at_submit(
    bt: Bt5,
) -> None:
    s_id = bt.submit(bt.write("s.xml", event_coordinator("s", trigger=on("a"))))
    a = bt.write("a.xml", event_coordinator("a", trigger=on("s")))
    cyc = bt.write("b.xml", bundle("b", [("a", a, {})]))
    before = listed(bt)
    err = refused(bt.cli("submit", str(props(bt, cyc, "bundle")), "--start", check=False))
    assert f"{a}:3: " in err and "a (this bundle) → s → a (this bundle)" in err, err
    assert f"[s] is the unfinished coordinator {s_id}" in err, err
    assert listed(bt) == before and before["bundle"] == []


def test_schedules_of_another_bundle_are_not_heard_and_make_no_loop(bt: Bt5) -> None:
    """A bundled schedule hears its own bundle's coordinators and standalone ones only: two
    bundles, each with an a on b and a b on a in the other, make no loop."""
    a = bt.write("a.xml", event_coordinator("a", trigger=on("b")))
    b = bt.write("b.xml", event_coordinator("b", trigger=on("a")))
    first = bt.submit(bt.write("one.xml", bundle("one", [("a", a, {})])), kind="bundle")
    second = bt.submit(bt.write("two.xml", bundle("two", [("b", b, {})])), kind="bundle")
    assert listed(bt)["bundle"] == [second, first]


def test_a_loop_closed_before_its_bundle_started_fails_that_coordinator_at_the_start(
    bt: Bt5,
) -> None:
    """The bundle was accepted while nothing closed the loop; a standalone schedule submitted
    before the bundle's start (an engine starts it) closes it: the bundle's schedule is
    refused when the start submits it, its bundle saying why (the standalone one is checked
    against started bundles only: the unstarted bundle's coordinators are not in the store)."""
    a = bt.write("a.xml", event_coordinator("a", trigger=on("s")))
    props_b = props(bt, bt.write("b.xml", bundle("b", [("a", a, {})])), "bundle")
    b = bt.cli("submit", str(props_b)).stdout.strip().splitlines()[-1]
    bt.submit(bt.write("s.xml", event_coordinator("s", trigger=on("a"))))
    bt.step("2026-03-01T10:00Z")
    info = bt.info(b)
    assert info["status"] == "RUNNINGWITHERROR" or info["status"] == "FAILED", info
    text = json.dumps(info)
    assert "E1003" in text and "for ever" in text, text
