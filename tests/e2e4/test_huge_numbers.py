"""Numbers at the edge of Java's int, through submit and a real engine on the simulated clock.

Past the int range, submit refuses them (Oozie's ``Integer.parseInt``). Inside it, a frequency
or retry-interval can still reach past year 9999, where ``datetime`` ends: the engine used to
hit ``OverflowError`` there, logging it while the coordinator stayed in PREP for good, or (a
retry due after 9999) exiting altogether. Now a coordinator's nominal times end with the
calendar, as at its end, and a retry due past it waits until 9999-01-01 (``LATEST_MS``).
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from tests.e2e4.conftest import BC, Bt4, bundle_xml, coordinator_xml

FAILING = """<workflow-app name="{name}" xmlns="uri:oozie:workflow:1.0">
  <start to="flaky"/>
  <action name="flaky" retry-max="{retry_max}" retry-interval="2147483647"
          retry-policy="{policy}">
    <shell xmlns="uri:oozie:shell-action:1.0"><exec>false</exec></shell>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>flaky failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_out_of_range_numbers_are_refused_at_submit(bt: Bt4) -> None:
    bt.apps.write(
        "c.xml",
        coordinator_xml(
            "c",
            frequency="99999999999999999999",
            start="2026-01-01T00:00Z",
            end="2026-01-02T00:00Z",
        ),
    )
    props = bt.apps.props("c.properties", {"oozie.coord.application.path": "c.xml"})
    r = bt.fails("submit", str(props), "-D", f"trace={bt.trace}", code="E1003")
    assert r.stderr.splitlines() == [
        f"Error: E1003: {bt.apps.root / 'c.xml'}:2: Invalid coordinator application attributes, "
        "frequency [99999999999999999999] is out of range",
        "  hint: a frequency is a Java int from 1 to 2147483647: minutes (coord:hours(n) is n*60 "
        "of them), or the n of ${coord:days(n)} / ${coord:months(n)}",
    ]
    bt.apps.write("w.xml", FAILING.format(name="w", retry_max="2147483648", policy="periodic"))
    props = bt.apps.props("w.properties", {"oozie.wf.application.path": "w.xml"})
    r = bt.fails("submit", str(props), code="EB0720")
    assert "retry-max [2147483648] is out of range" in r.stderr
    assert not (bt.home / "bundletui.db").exists()  # refused before anything was stored


def test_coordinators_whose_next_nominal_time_is_past_9999_end_there(bt: Bt4) -> None:
    """Three frequencies inside Java's int: one action each in 2026 (minutes: a second one in
    year 6109, the simulated clock jumps there), then the next time is past the calendar and
    each coordinator ends as at its end: SUCCEEDED, nothing left RUNNING or PREP."""
    coords = {
        "months": coordinator_xml(
            "months",
            frequency="${coord:months(2147483647)}",
            start="2026-01-01T00:00Z",
            end="9999-12-31T00:00Z",
        ),
        "days-la": coordinator_xml(
            "days-la",
            frequency="${coord:days(2147483647)}",
            start="2026-01-01T08:00Z",
            end="9999-12-31T00:00Z",
            timezone="America/Los_Angeles",
        ),
        "minutes": coordinator_xml(
            "minutes", frequency="2147483647", start="2026-01-01T00:00Z", end="9999-12-31T00:00Z"
        ),
    }
    for name, xml in coords.items():
        bt.apps.write(f"{name}.xml", xml)
    bt.apps.write("bundle.xml", bundle_xml("huge", [BC(n, f"{n}.xml") for n in coords]))
    props = bt.apps.props("job.properties", {"oozie.bundle.application.path": "bundle.xml"})
    bundle_id = bt.submit_job(props, start=True)
    e = bt.sim("2026-01-01T00:00Z", "9999-06-01T00:00Z")
    assert "OverflowError" not in e.log() and "out of range" not in e.log(), e.log()
    ids = bt.coords_of(bundle_id)
    assert {name: bt.nominals(ids[name]) for name in coords} == {
        "months": ["2026-01-01T00:00Z"],
        "days-la": ["2026-01-01T08:00Z"],
        "minutes": ["2026-01-01T00:00Z", "6109-01-24T02:07Z"],
    }
    for name in coords:
        info = bt.peek(ids[name])
        assert (info["status"], info["doneMaterialization"]) == ("SUCCEEDED", True), name
        assert set(bt.actions(ids[name]).values()) == {"SUCCEEDED"}
    assert bt.status(bundle_id) == "SUCCEEDED"


def test_a_retry_due_past_9999_waits_until_then_and_the_engine_goes_on(bt: Bt4) -> None:
    """retry-interval="2147483647" minutes: the first retry is due in year 6109; the ones after
    would be past 9999 (the engine used to die on them: ``date value out of range``); they run
    at 9999-01-01 and the workflow fails as it should once retry-max is spent."""
    ids = {}
    for name, retry_max, policy in [
        ("once", "1", "periodic"),
        ("thrice", "3", "periodic"),
        ("doubling", "3", "exponential"),
    ]:
        bt.apps.write(f"{name}.xml", FAILING.format(name=name, retry_max=retry_max, policy=policy))
        props = bt.apps.props(f"{name}.properties", {"oozie.wf.application.path": f"{name}.xml"})
        ids[name] = bt.submit_job(props, start=True)
    e = bt.sim("2026-01-01T00:00Z", "9999-06-01T00:00Z")
    assert "Traceback" not in e.log(), e.log()
    for name, attempts, last in [
        ("once", 2, "6109-01-24"),
        ("thrice", 4, "9999-01-01"),
        ("doubling", 4, "9999-01-01"),
    ]:
        info = bt.peek(ids[name])
        assert info["status"] == "KILLED", name
        flaky = next(a for a in info["actions"] if a["name"] == "flaky")
        assert (flaky["attempt"], flaky["retries"]) == (attempts, attempts - 1), name
        assert f"{parsedate_to_datetime(flaky['startTime']):%Y-%m-%d}" == last, name
