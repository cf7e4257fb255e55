"""Issue 4 §2: datasets and input events end to end — done flags (default ``_SUCCESS``, a named
file, empty = the directory itself), ranges, latest / future, input logic (or with wait, min, combine),
timeouts — with real partitions in the landing directory and the engine on the simulated clock.

What a WAITING action waits for is read from ``info --json`` (``waitingFor``), what its workflow
got from the run configuration the action launched it with (``coord:dataIn``).
"""

from __future__ import annotations

import json

from tests.e2e4.conftest import (
    BC,
    DS,
    Bt4,
    bundle_xml,
    coordinator_xml,
    data_in,
    data_out,
    hourly_ds,
    partition,
)

NOMINAL = "2026-01-01T10:00Z"
END = "2026-01-01T11:00Z"


def one_coordinator(bt: Bt4, xml: str) -> str:
    bt.apps.write("c.xml", xml)
    config = bt.apps.props("job.properties", {"oozie.coord.application.path": "c.xml"})
    return bt.submit_job(config)


def run_conf(bt: Bt4, coord_id: str, number: int = 1) -> dict[str, str]:
    (conf,) = bt.sql(
        "SELECT run_conf FROM coord_actions WHERE coord_id = ? AND action_number = ?",
        coord_id,
        number,
    )[0]
    return dict(json.loads(conf))


def path(bt: Bt4, kind: str, t: str) -> str:
    return str(bt.landing / partition(kind, t))


def test_done_flags_default_named_and_empty_means_the_directory(bt: Bt4) -> None:
    coord_id = one_coordinator(
        bt,
        coordinator_xml(
            "flags",
            start=NOMINAL,
            end=END,
            controls={"timeout": "-1"},
            datasets=[
                hourly_ds("a"),  # no <done-flag>: _SUCCESS
                hourly_ds("b", done_flag="READY"),
                hourly_ds("c", done_flag=""),  # empty: the directory itself
            ],
            inputs=[
                data_in("a", "a", "${coord:current(0)}"),
                data_in("b", "b", "${coord:current(0)}"),
                data_in("c", "c", "${coord:current(0)}"),
            ],
            conf={"inputs": "${coord:dataIn('a')} ${coord:dataIn('b')} ${coord:dataIn('c')}"},
        ),
    )
    bt.sim(NOMINAL, NOMINAL)
    why = bt.info_json(coord_id)["actions"][0]["waitingFor"]
    a, b, c = (path(bt, k, NOMINAL) for k in "abc")
    assert why["reason"] == "inputs"
    assert why["missing"] == [f"{a}/_SUCCESS", f"{b}/READY", c]
    assert (why["missingCount"], why["inputs"]) == (3, 3)

    bt.land(partition("a", NOMINAL), flag=None)  # data, but no done flag yet
    bt.land(partition("b", NOMINAL), flag="READY")
    (bt.landing / partition("c", NOMINAL)).mkdir(parents=True)
    bt.sim(NOMINAL, NOMINAL)
    why = bt.info_json(coord_id)["actions"][0]["waitingFor"]
    assert why["missing"] == [f"{a}/_SUCCESS"]
    assert bt.actions(coord_id) == {1: "WAITING"}

    (bt.landing / partition("a", NOMINAL) / "_SUCCESS").touch()
    bt.sim(NOMINAL, NOMINAL)
    assert bt.actions(coord_id) == {1: "SUCCEEDED"}
    assert run_conf(bt, coord_id)["inputs"] == f"{a} {b} {c}"  # URIs, not done-flag paths


def test_ranges_latest_and_future_resolve_against_what_landed(bt: Bt4) -> None:
    coord_id = one_coordinator(
        bt,
        coordinator_xml(
            "ranges",
            start=NOMINAL,
            end=END,
            controls={"timeout": "-1"},
            datasets=[hourly_ds("r"), hourly_ds("l"), hourly_ds("f")],
            inputs=[
                data_in("r", "r", start="${coord:current(-2)}", end="${coord:current(0)}"),
                data_in("l", "l", "${coord:latest(0)}"),
                data_in("f", "f", "${coord:future(0, 5)}"),
            ],
            conf={
                "r": "${coord:dataIn('r')}",
                "l": "${coord:dataIn('l')}",
                "f": "${coord:dataIn('f')}",
            },
        ),
    )
    bt.sim(NOMINAL, NOMINAL)
    why = bt.info_json(coord_id)["actions"][0]["waitingFor"]
    assert set(why["missing"]) == {
        f"{path(bt, 'r', t)}/_SUCCESS"
        for t in ("2026-01-01T08:00Z", "2026-01-01T09:00Z", "2026-01-01T10:00Z")
    }
    assert len(why["unresolved"]) == 2  # latest(0) and future(0, 5): nothing landed yet

    bt.land(*(partition("r", t) for t in ("2026-01-01T08:00Z", "2026-01-01T09:00Z")))
    bt.land(partition("l", "2026-01-01T07:00Z"), partition("l", "2026-01-01T08:00Z"))
    bt.land(partition("l", "2026-01-01T11:00Z"))  # after the action was created: not latest
    bt.land(partition("f", "2026-01-01T12:00Z"))  # 10:00 and 11:00 never come
    bt.sim(NOMINAL, NOMINAL)
    why = bt.info_json(coord_id)["actions"][0]["waitingFor"]
    assert why["missing"] == [f"{path(bt, 'r', NOMINAL)}/_SUCCESS"]
    assert len(why["unresolved"]) == 2  # as in Oozie: resolved once every current() path is there

    bt.land(partition("r", NOMINAL))
    bt.sim(NOMINAL, NOMINAL)
    assert bt.actions(coord_id) == {1: "SUCCEEDED"}
    conf = run_conf(bt, coord_id)
    # a current() range: newest first, as Oozie returns it
    assert conf["r"] == ",".join(
        path(bt, "r", t) for t in ("2026-01-01T10:00Z", "2026-01-01T09:00Z", "2026-01-01T08:00Z")
    )
    assert conf["l"] == path(bt, "l", "2026-01-01T08:00Z")
    assert conf["f"] == path(bt, "f", "2026-01-01T12:00Z")


def test_input_logic_or_with_wait_and_min(bt: Bt4) -> None:
    """``or``: the first child whose inputs are all there wins, but ``wait="30"`` keeps the
    action waiting 30 minutes for the preferred one; ``min="2"``: two of three hours suffice."""
    sets = [hourly_ds("a"), hourly_ds("b"), hourly_ds("m")]
    either = coordinator_xml(
        "either",
        ns="0.5",
        start=NOMINAL,
        end=END,
        controls={"timeout": "-1"},
        datasets=sets,
        inputs=[data_in("A", "a", "${coord:current(0)}"), data_in("B", "b", "${coord:current(0)}")],
        input_logic=(
            '<input-logic><or name="AorB"><data-in dataset="A" wait="30"/>'
            '<data-in dataset="B"/></or></input-logic>'
        ),
        conf={"in": "${coord:dataIn('AorB')}"},
    )
    some = coordinator_xml(
        "some",
        ns="0.5",
        start=NOMINAL,
        end=END,
        controls={"timeout": "-1"},
        datasets=sets,
        inputs=[data_in("H", "m", start="${coord:current(-2)}", end="${coord:current(0)}")],
        input_logic='<input-logic><and name="two"><data-in dataset="H" min="2"/></and></input-logic>',
        conf={"in": "${coord:dataIn('two')}"},
    )
    bt.apps.write("either.xml", either)
    bt.apps.write("some.xml", some)
    bt.apps.write(
        "bundle.xml", bundle_xml("logic", [BC("either", "either.xml"), BC("some", "some.xml")])
    )
    config = bt.apps.props("job.properties", {"oozie.bundle.application.path": "bundle.xml"})
    bundle_id = bt.submit_job(config, start=True)
    bt.land(partition("b", NOMINAL))
    bt.land(partition("m", "2026-01-01T08:00Z"))

    bt.sim(NOMINAL, "2026-01-01T10:20Z")
    ids = bt.coords_of(bundle_id)
    assert bt.actions(ids["either"]) == {1: "WAITING"}  # B is there, A is still awaited
    # the why says it is the wait that holds it, for which input and until when
    why = bt.info_json(ids["either"])["actions"][0]["waitingFor"]
    assert (why["waitFor"], why["waitUntil"]) == ("A", "Thu, 01 Jan 2026 10:30:00 GMT")
    shown = bt.cli("info", f"{ids['either']}@1").stdout
    said = " ".join(shown.split())
    assert "input-logic wait= waits for A until" in said, said
    assert "then takes what its min= or the next alternative of its <or> allows" in said, said
    assert bt.actions(ids["some"]) == {1: "WAITING"}  # one of three hours
    bt.land(partition("m", NOMINAL))
    bt.sim(NOMINAL, "2026-01-01T10:45Z")
    assert bt.actions(ids["either"]) == {1: "SUCCEEDED"}
    assert run_conf(bt, ids["either"])["in"] == path(bt, "b", NOMINAL)
    assert bt.actions(ids["some"]) == {1: "SUCCEEDED"}
    assert set(run_conf(bt, ids["some"])["in"].split(",")) == {
        path(bt, "m", "2026-01-01T08:00Z"),
        path(bt, "m", NOMINAL),
    }


def test_a_named_data_in_under_input_logic_is_what_coord_data_in_names(bt: Bt4) -> None:
    """``<input-logic><data-in name="L" dataset="R" min="2"/></input-logic>``: Oozie's
    parseWithName finds the logic's own ``<data-in>`` by its name too (QA: validate took it and
    every action FAILED, E1004); the data-in's own name still means the data-in."""
    xml = coordinator_xml(
        "named",
        ns="0.5",
        start=NOMINAL,
        end=END,
        controls={"timeout": "-1"},
        datasets=[hourly_ds("r")],
        inputs=[data_in("R", "r", start="${coord:current(-3)}", end="${coord:current(0)}")],
        input_logic='<input-logic><data-in name="L" dataset="R" min="2"/></input-logic>',
        conf={"some": "${coord:dataIn('L')}", "all": "${coord:dataIn('R')}"},
    )
    bt.apps.write("c.xml", xml)
    assert "Valid" in bt.cli("validate", str(bt.apps.root / "c.xml")).stdout
    coord_id = one_coordinator(bt, xml)
    bt.land(partition("r", "2026-01-01T08:00Z"), partition("r", NOMINAL))
    bt.sim(NOMINAL, "2026-01-01T10:20Z")
    assert bt.actions(coord_id) == {1: "SUCCEEDED"}
    conf = run_conf(bt, coord_id)
    assert set(conf["some"].split(",")) == {
        path(bt, "r", "2026-01-01T08:00Z"),
        path(bt, "r", NOMINAL),
    }
    assert len(conf["all"].split(",")) == 4


def test_input_logic_combine_fills_each_hour_from_the_first_dataset_that_has_it(bt: Bt4) -> None:
    """``combine``: the last three hours, each from A where A has it and from B where it does
    not; READY only when every hour is in one of them, and ``coord:dataIn`` lists the picks."""
    combined = coordinator_xml(
        "combined",
        ns="0.5",
        start=NOMINAL,
        end=END,
        controls={"timeout": "-1"},
        datasets=[hourly_ds("a"), hourly_ds("b")],
        inputs=[
            data_in("A", "a", start="${coord:current(-2)}", end="${coord:current(0)}"),
            data_in("B", "b", start="${coord:current(-2)}", end="${coord:current(0)}"),
        ],
        input_logic=(
            '<input-logic><combine name="AB"><data-in dataset="A"/><data-in dataset="B"/>'
            "</combine></input-logic>"
        ),
        conf={"in": "${coord:dataIn('AB')}"},
    )
    coord = one_coordinator(bt, combined)
    bt.land(partition("a", NOMINAL))
    bt.land(partition("b", "2026-01-01T09:00Z"))
    bt.sim(NOMINAL, "2026-01-01T10:20Z")
    assert bt.actions(coord) == {1: "WAITING"}  # 08:00 is in neither
    bt.land(partition("b", "2026-01-01T08:00Z"))
    bt.sim(NOMINAL, "2026-01-01T10:40Z")
    assert bt.actions(coord) == {1: "SUCCEEDED"}
    assert run_conf(bt, coord)["in"].split(",") == [
        path(bt, "a", NOMINAL),
        path(bt, "b", "2026-01-01T09:00Z"),
        path(bt, "b", "2026-01-01T08:00Z"),
    ]


def test_a_waiting_action_times_out_after_its_timeout(bt: Bt4) -> None:
    coord_id = one_coordinator(
        bt,
        coordinator_xml(
            "late",
            start=NOMINAL,
            end="2026-01-01T12:00Z",
            controls={"timeout": "10"},
            datasets=[hourly_ds("late")],
            inputs=[data_in("in", "late", "${coord:current(0)}")],
        ),
    )
    bt.sim(NOMINAL, "2026-01-01T10:10Z")
    assert bt.actions(coord_id) == {1: "WAITING"}
    timeout_at = bt.info_json(coord_id)["actions"][0]["waitingFor"]["timeoutAt"]
    assert timeout_at == "Thu, 01 Jan 2026 10:11:00 GMT"
    bt.sim(NOMINAL, "2026-01-01T10:12Z")
    assert bt.actions(coord_id) == {1: "TIMEDOUT"}
    assert bt.status(coord_id) == "RUNNINGWITHERROR"
    # the timed-out action keeps what it was missing, as Oozie's row does
    missing = path(bt, "late", NOMINAL) + "/_SUCCESS"
    assert bt.peek(f"{coord_id}@1")["missingDependencies"] == missing
    front = bt.cli("oozie", "job", "-info", f"{coord_id}@1").stdout
    assert f"First Missing Dependency : {missing}" in front
    bt.land(partition("late", "2026-01-01T11:00Z"))
    bt.sim(NOMINAL, "2026-01-01T13:00Z")
    assert bt.actions(coord_id) == {1: "TIMEDOUT", 2: "SUCCEEDED"}
    assert bt.status(coord_id) == "DONEWITHERROR"
    assert bt.peek(f"{coord_id}@1")["errorCode"] == "E1025"


def test_an_action_killed_while_it_waited_keeps_what_it_was_missing(bt: Bt4) -> None:
    coord_id = one_coordinator(
        bt,
        coordinator_xml(
            "never",
            start=NOMINAL,
            end="2026-01-01T11:00Z",
            datasets=[hourly_ds("never")],
            inputs=[data_in("in", "never", "${coord:current(0)}")],
        ),
    )
    bt.sim(NOMINAL, "2026-01-01T10:05Z")
    bt.cli("kill", coord_id, "--action", "1")
    bt.sim(NOMINAL, "2026-01-01T10:06Z")
    assert bt.actions(coord_id) == {1: "KILLED"}
    missing = path(bt, "never", NOMINAL) + "/_SUCCESS"
    assert bt.peek(f"{coord_id}@1")["missingDependencies"] == missing


def test_a_dataset_outside_the_landing_directory_is_polled(bt: Bt4) -> None:
    outside = bt.tmp / "elsewhere"
    coord_id = one_coordinator(
        bt,
        coordinator_xml(
            "outside",
            start=NOMINAL,
            end=END,
            controls={"timeout": "-1"},
            datasets=[DS("o", f"file://{outside}/${{YEAR}}${{MONTH}}${{DAY}}${{HOUR}}")],
            inputs=[data_in("in", "o", "${coord:current(0)}")],
        ),
    )
    engine = bt.engine("--clock", "simulated", "--start-time", NOMINAL)
    bt.wait_status(coord_id, "RUNNING")
    assert bt.actions(coord_id) == {1: "WAITING"}
    (outside / "2026010110").mkdir(parents=True)
    (outside / "2026010110" / "_SUCCESS").touch()
    bt.wait_status(coord_id, "SUCCEEDED", timeout=30)
    engine.stop()


def test_an_output_written_by_an_action_reaches_its_readers_at_once(bt: Bt4) -> None:
    """``reader`` waits for ``writer``'s hourly output with a timeout of 0 minutes: on the
    simulated clock it succeeds only if the output is seen at the instant it is written — not
    after a file event, which the clock does not wait for (it would time out a minute later)."""
    sets = [hourly_ds("shared")]
    writer = coordinator_xml(
        "writer",
        start="2026-01-01T00:00Z",
        end="2026-01-01T03:00Z",
        datasets=sets,
        outputs=[data_out("out", "shared")],
        conf={"outDir": "${coord:dataOut('out')}"},
    )
    reader = coordinator_xml(
        "reader",
        start="2026-01-01T00:00Z",
        end="2026-01-01T03:00Z",
        controls={"timeout": "0"},
        datasets=sets,
        inputs=[data_in("in", "shared", "${coord:current(0)}")],
    )
    bt.apps.write("writer.xml", writer)
    bt.apps.write("reader.xml", reader)
    bt.apps.write(
        "bundle.xml", bundle_xml("chain", [BC("writer", "writer.xml"), BC("reader", "reader.xml")])
    )
    config = bt.apps.props("job.properties", {"oozie.bundle.application.path": "bundle.xml"})
    bundle_id = bt.submit_job(config, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T04:00Z")
    ids = bt.coords_of(bundle_id)
    assert bt.actions(ids["writer"]) == dict.fromkeys((1, 2, 3), "SUCCEEDED")
    assert bt.actions(ids["reader"]) == dict.fromkeys((1, 2, 3), "SUCCEEDED")
    assert bt.status(bundle_id) == "SUCCEEDED"
