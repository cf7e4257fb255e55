"""A coordinator whose materialization throws goes FAILED (oozie.md §2.3), with the reason.

Oozie's CoordMaterializeTransitionXCommand fails the job when materializing an action throws,
and drops that batch's actions. Here the instance of an event falls past the year 9999, the
first action is fine and a later one is not (a ``coord:latest`` data-out, which Oozie also refuses only then,
is refused at submit here). Before, the engine logged the error and the coordinator sat in PREP
(or RUNNING) for good, with nothing in ``info`` to say why. Through the real CLI and a real
``bundletui run`` on the simulated clock.
"""

from __future__ import annotations

from tests.e2e4.conftest import BC, Bt4, bundle_xml, coordinator_xml, data_in, data_out, hourly_ds

OUT_OF_CALENDAR = (
    "E1010",
    "Invalid data in coordinator xml. [data-in [in]: an instance falls outside the calendar "
    "(years 1 to 9999)] (hint: check the numbers given to coord:current / offset / future in "
    "this event)",
)


def _bundle(bt: Bt4, coords: dict[str, str]) -> str:
    for name, xml in coords.items():
        bt.apps.write(f"{name}.xml", xml)
    bt.apps.write("b.xml", bundle_xml("b", [BC(n, f"{n}.xml") for n in coords]))
    props = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": "b.xml", "landing": str(bt.landing)},
    )
    return bt.submit_job(props, start=True)


def test_a_failing_first_materialization_fails_the_coordinator_and_says_why(bt: Bt4) -> None:
    bundle_id = _bundle(
        bt,
        {
            "far": coordinator_xml(
                "far",
                start="2026-01-01T00:00Z",
                end="2026-01-01T05:00Z",
                datasets=[hourly_ds("clicks")],
                inputs=[data_in("in", "clicks", "${coord:current(999999999)}")],
            ),
            "ok": coordinator_xml("ok", start="2026-01-01T00:00Z", end="2026-01-01T03:00Z"),
        },
    )
    e = bt.sim("2026-01-01T00:00Z", "2026-01-02T00:00Z")
    assert "Traceback" not in e.log(), e.log()
    ids = bt.coords_of(bundle_id)
    far = bt.info_json(ids["far"])
    assert (far["status"], far["errorCode"], far["errorMessage"]) == ("FAILED", *OUT_OF_CALENDAR)
    # the failed batch left no action behind; the sibling ran to the end
    assert bt.actions(ids["far"]) == {}
    assert set(bt.actions(ids["ok"]).values()) == {"SUCCEEDED"}
    assert bt.bundle_actions(bundle_id) == {
        "far": ("FAILED", 0),
        "ok": ("SUCCEEDED", 0),
    }
    assert bt.status(bundle_id) == "DONEWITHERROR"
    shown = bt.cli("info", ids["far"]).stdout
    assert f"Error       : {OUT_OF_CALENDAR[0]}: Invalid data in coordinator xml." in shown

    # change status=RUNNING tries again: the error is cleared, and comes back with the failure
    bt.cli("change", ids["far"], "--value", "status=RUNNING")
    again = bt.info_json(ids["far"])
    assert (again["status"], again["errorCode"], again["errorMessage"]) == ("RUNNING", None, None)
    bt.sim("2026-01-02T00:00Z", "2026-01-02T01:00Z")
    again = bt.info_json(ids["far"])
    assert (again["status"], again["errorCode"]) == ("FAILED", OUT_OF_CALENDAR[0])


def test_a_later_failing_materialization_keeps_the_actions_made_before_it(bt: Bt4) -> None:
    """Hourly from 9999-12-31T20:00 with an input two hours ahead: the actions at 20:00 and
    21:00 are made and run; the one at 22:00 would need an instance in year 10000. The job goes
    FAILED, and once its actions are done, DONEWITHERROR (Oozie's roll-up of a failed job
    whose actions did not all fail), the error still shown."""
    bt.land("clicks/9999/12/31/22", "clicks/9999/12/31/23")
    bundle_id = _bundle(
        bt,
        {
            "edge": coordinator_xml(
                "edge",
                start="9999-12-31T20:00Z",
                end="9999-12-31T23:00Z",
                datasets=[hourly_ds("clicks", initial="9999-12-31T00:00Z")],
                inputs=[data_in("in", "clicks", "${coord:current(2)}")],
            )
        },
    )
    bt.sim("9999-12-31T20:00Z", "9999-12-31T23:30Z")
    cid = bt.coords_of(bundle_id)["edge"]
    assert bt.actions(cid) == {1: "SUCCEEDED", 2: "SUCCEEDED"}
    info = bt.info_json(cid)
    assert (info["status"], info["errorCode"], info["errorMessage"]) == (
        "DONEWITHERROR",
        *OUT_OF_CALENDAR,
    )
    assert bt.status(bundle_id) == "DONEWITHERROR"


def test_a_latest_data_out_is_refused_at_submit_not_failed_at_materialization(bt: Bt4) -> None:
    """QA: ``validate`` said Valid, and the engine then failed the coordinator at its first
    action (Oozie's E1010): no data could ever make it work, so submit refuses it, with the
    file and line, and stores nothing."""
    bt.apps.write(
        "latest-out.xml",
        coordinator_xml(
            "latest-out",
            start="2026-01-01T00:00Z",
            end="2026-01-01T05:00Z",
            datasets=[hourly_ds("clicks")],
            outputs=[data_out("out", "clicks", "${coord:future(0, 3)}")],
        ),
    )
    props = bt.apps.props("job.properties", {"oozie.coord.application.path": "latest-out.xml"})
    err = bt.fails("submit", str(props), "-D", "trace=x", code="E1010").stderr
    assert "latest-out.xml:" in err and "coord:latest()/future() not permitted" in err, err
    assert bt.fails("validate", str(bt.apps.root / "latest-out.xml"), "-D", "trace=x", code="E1010")
    assert not (bt.home / "bundletui.db").exists()  # the first submit: no store is made
