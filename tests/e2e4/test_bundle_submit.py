"""Seed 000, requirements 1-16: defining, submitting, starting and querying a bundle.

Each test is named after the requirement it proves, through the real CLI and a real store.
Requirement 5 (WS API) belongs to the API's own tests; requirement 9 (no explicit dependencies
between coordinators: they meet only through datasets) is what test_invariants' hourly -> daily
pair shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e4.conftest import BC, Bt4, bundle_xml, coordinator_xml, trace_counts

START = "2026-01-01T00:00Z"
END = "2026-01-01T03:00Z"
TABLES = ("bundle_jobs", "bundle_actions", "coord_jobs", "coord_actions", "wf_jobs")


def write_bundle(
    bt: Bt4,
    *,
    bundle_file: str = "definitions/any-name-at-all.xml",
    ns: str = "0.2",
    kickoff: str | None = None,
    coords: list[BC] | None = None,
) -> Path:
    """Two coordinators (alpha, beta) from one coordinator file, told apart by their
    per-coordinator <configuration>; returns the bundle file."""
    bt.apps.write(
        "definitions/hourly-coord.xml",
        coordinator_xml(
            "hourly",
            controls={"concurrency": "${conc}"},
            conf={"label": "${label}"},
        ),
    )
    coords = coords or [
        BC("alpha", "hourly-coord.xml", conf={"label": "A"}),
        BC("beta", "hourly-coord.xml", conf={"label": "B", "conc": "3"}),
    ]
    return bt.apps.write(bundle_file, bundle_xml("reqs", coords, kickoff=kickoff, ns=ns))


def props(bt: Bt4, bundle: Path, key: str = "oozie.bundle.application.path", **more: str) -> Path:
    values = {key: str(bundle.relative_to(bt.apps.root)), "start": START, "end": END, "conc": "1"}
    values.update(more)
    return bt.apps.props("job.properties", values)


def xml_config(bt: Bt4, bundle: Path) -> Path:
    values = {
        "oozie.bundle.application.path": str(bundle),
        "start": START,
        "end": END,
        "conc": "1",
    }
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in values.items()
    )
    return bt.apps.write("job-config.xml", f"<configuration>{body}</configuration>\n")


def stored_rows(bt: Bt4) -> dict[str, int]:
    if not (bt.home / "bundletui.db").exists():
        return dict.fromkeys(TABLES, 0)
    return {t: bt.sql(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}


# ----------------------------------------------------------------------------- 1-4, 6, 11-12


@pytest.mark.parametrize(
    ("ns", "config_kind"),
    [
        ("0.1", "properties:oozie.application.bundle.path"),
        ("0.2", "xml:oozie.bundle.application.path"),
    ],
)
def test_req_01_04_06_11_12_any_bundle_file_name_from_a_config_file_per_coordinator_configuration(
    bt: Bt4, ns: str, config_kind: str
) -> None:
    """R1 a list of coordinators in XML; R2 any file name; R3/R4 the app path in a config file
    (the seed's property name and Oozie's); R6 per-coordinator parameters; R11 submit -> PREP with
    an id; R12 start -> RUNNING and every coordinator submitted."""
    bundle = write_bundle(bt, ns=ns)
    kind, _, key = config_kind.partition(":")
    config = props(bt, bundle, key) if kind == "properties" else xml_config(bt, bundle)

    bundle_id = bt.submit_job(config)
    assert bundle_id.endswith("-B")
    info = bt.peek(bundle_id)
    assert info["status"] == "PREP"
    assert info["bundleJobName"] == "reqs"
    assert info["bundleJobPath"] == str(bundle.resolve())

    bt.cli("start", bundle_id)
    assert bt.status(bundle_id) == "RUNNING"
    # start made one bundle action per coordinator, PREP and pending until the engine submits
    assert bt.bundle_actions(bundle_id) == {"alpha": ("PREP", 1), "beta": ("PREP", 1)}

    bt.sim(START, END)
    coords = bt.coords_of(bundle_id)
    assert set(coords) == {"alpha", "beta"}
    rows = {
        name: (conc, json.loads(conf))
        for name, conc, conf in bt.sql(
            "SELECT app_name, concurrency, conf FROM coord_jobs WHERE bundle_id = ?", bundle_id
        )
    }
    # one coordinator file, two coordinators: each resolved with its own <configuration>
    assert rows["alpha"][0] == 1 and rows["alpha"][1]["label"] == "A"
    assert rows["beta"][0] == 3 and rows["beta"][1]["label"] == "B"
    assert rows["beta"][1]["oozie.bundle.id"] == bundle_id
    # the label reached the workflows the actions launched (coordinator conf -> run conf)
    labels = {
        json.loads(conf)["label"]
        for (conf,) in bt.sql("SELECT run_conf FROM coord_actions WHERE run_conf IS NOT NULL")
    }
    assert labels == {"A", "B"}
    assert bt.status(bundle_id) == "SUCCEEDED"
    assert len(trace_counts(bt.trace)) == 6  # 3 hourly actions x 2 coordinators, once each


# ----------------------------------------------------------------------------- 7, 10, E1304


def test_req_07_an_unresolved_variable_is_an_error_and_nothing_is_stored(bt: Bt4) -> None:
    bundle = write_bundle(bt)
    config = bt.apps.props(
        "job.properties",
        {"oozie.bundle.application.path": str(bundle), "start": START, "end": END},
    )  # no value for ${conc}, used by the coordinators' <controls>
    r = bt.cli("submit", str(config), "-D", f"trace={bt.trace}", check=False)
    assert r.code != 0 and "Traceback" not in r.stderr, r
    assert "unresolved variable [conc]" in r.stderr, r
    assert set(stored_rows(bt).values()) == {0}


def test_req_10_no_partial_submission_one_bad_coordinator_stores_nothing(bt: Bt4) -> None:
    bt.apps.write(
        "definitions/broken.xml", "<coordinator-app name='x' xmlns='uri:oozie:coordinator:0.4'>"
    )
    bundle = write_bundle(
        bt,
        coords=[
            BC("alpha", "hourly-coord.xml", conf={"label": "A"}),
            BC("beta", "broken.xml"),
        ],
    )
    r = bt.cli("submit", str(props(bt, bundle)), "-D", f"trace={bt.trace}", "--start", check=False)
    assert r.code != 0 and "Traceback" not in r.stderr, r
    assert "broken.xml" in r.stderr, r
    assert 'bundle coordinator "beta" of ' in r.stderr, r  # which entry of the bundle
    assert set(stored_rows(bt).values()) == {0}


def test_duplicate_coordinator_names_are_rejected_E1304_and_nothing_is_stored(bt: Bt4) -> None:
    bundle = write_bundle(
        bt,
        coords=[
            BC("same", "hourly-coord.xml", conf={"label": "A"}),
            BC("same", "hourly-coord.xml", conf={"label": "B"}),
        ],
    )
    bt.fails("submit", str(props(bt, bundle)), "-D", f"trace={bt.trace}", code="E1304")
    assert set(stored_rows(bt).values()) == {0}


# ----------------------------------------------------------------------------- 8


def test_req_08_an_external_id_makes_resubmission_idempotent(bt: Bt4) -> None:
    config = props(bt, write_bundle(bt))
    first = bt.submit_job(config, extra=("--external-id", "nightly-2026-01-01"))
    again = bt.submit_job(config, extra=("--external-id", "nightly-2026-01-01"))
    other = bt.submit_job(config, extra=("--external-id", "nightly-2026-01-02"))
    assert first == again != other
    assert bt.sql("SELECT count(*) FROM bundle_jobs")[0][0] == 2
    assert bt.peek(first)["bundleExternalId"] == "nightly-2026-01-01"
    # QA: "submit and start" again returned the PREP job and left it PREP, silently: it is
    # started now (and a started one is left as it is)
    assert bt.status(first) == "PREP"
    again_args = ("submit", str(config), "-D", f"trace={bt.trace}", "--start")
    r = bt.cli(*again_args, "--external-id", "nightly-2026-01-01")
    assert r.stdout.strip() == first and bt.status(first) == "RUNNING"
    # QA: the note said "nothing new is stored" and not that the job was started
    assert f"names {first} (reqs), submitted before: that job is returned, and started (it was" in (
        r.stderr
    ), r.stderr
    r = bt.cli(*again_args, "--external-id", "nightly-2026-01-01")
    assert r.stdout.strip() == first and "that job is returned; nothing new" in r.stderr
    assert bt.sql("SELECT count(*) FROM bundle_jobs")[0][0] == 2


# ----------------------------------------------------------------------------- 13


def test_req_13_submit_and_start_combined_submit_start_and_oozie_job_run(bt: Bt4) -> None:
    config = props(bt, write_bundle(bt))
    a = bt.submit_job(config, start=True)
    assert bt.status(a) == "RUNNING"
    r = bt.cli("oozie", "job", "-run", "-config", str(config), "-D", f"trace={bt.trace}")
    b = r.stdout.strip().removeprefix("job:").strip()
    assert b.endswith("-B") and b != a, r
    assert bt.status(b) == "RUNNING"
    bt.sim(START, END)
    for bundle_id in (a, b):
        assert bt.status(bundle_id) == "SUCCEEDED"
        assert set(bt.coords_of(bundle_id)) == {"alpha", "beta"}


# ----------------------------------------------------------------------------- 14


def test_req_14_kick_off_time_a_prep_bundle_starts_by_itself_when_reached_not_before(
    bt: Bt4,
) -> None:
    kickoff = "2026-01-01T02:00Z"
    config = props(bt, write_bundle(bt, kickoff=kickoff), end="2026-01-01T04:00Z")
    bundle_id = bt.submit_job(config)
    assert bt.peek(bundle_id)["kickoffTime"] == "Thu, 01 Jan 2026 02:00:00 GMT"

    bt.sim(START, "2026-01-01T01:59Z")  # one minute before the kick-off
    assert bt.status(bundle_id) == "PREP"
    assert bt.coords_of(bundle_id) == {}
    assert bt.sql("SELECT count(*) FROM coord_jobs")[0][0] == 0

    bt.sim(START, "2026-01-01T04:00Z")  # resumes at 01:59 (the stored simulated now)
    info = bt.peek(bundle_id)
    assert info["status"] == "SUCCEEDED"
    assert info["startTime"] == "Thu, 01 Jan 2026 02:00:00 GMT"
    # started at 02:00, its coordinators (start 00:00) caught up: 4 hourly actions each
    for coord_id in bt.coords_of(bundle_id).values():
        assert bt.nominals(coord_id) == [
            "2026-01-01T00:00Z",
            "2026-01-01T01:00Z",
            "2026-01-01T02:00Z",
            "2026-01-01T03:00Z",
        ]


def test_req_14_an_explicit_start_does_not_wait_for_the_kick_off_time(bt: Bt4) -> None:
    config = props(bt, write_bundle(bt, kickoff="2026-06-01T00:00Z"))
    bundle_id = bt.submit_job(config)
    bt.cli("start", bundle_id)
    bt.sim(START, END)
    assert bt.status(bundle_id) == "SUCCEEDED"


def test_req_14_a_kick_off_time_property_left_empty_starts_the_bundle_now(bt: Bt4) -> None:
    """QA: ``<kick-off-time>${kick}</kick-off-time>`` with ``kick=`` was refused (E1003: could
    not parse []), while the element written empty was taken as "now". Oozie resolves EL
    first: both mean no kick-off time (oozie.md §1.1). A property with a time still works, and
    one that is not a time is still refused with its line (QA: as a bundle's attribute, E1303;
    it was the coordinator's E1003, "Invalid coordinator application attributes")."""
    config = props(bt, write_bundle(bt, kickoff="${kick}"), end="2026-01-01T02:00Z", kick="")
    valid = bt.cli(
        "validate",
        str(bt.apps.root / "definitions/any-name-at-all.xml"),
        "--config",
        str(config),
        "-D",
        f"trace={bt.trace}",
    )
    assert valid.stdout.startswith("Valid bundle"), valid
    bundle_id = bt.submit_job(config)
    assert bt.peek(bundle_id)["kickoffTime"] is None
    bt.sim(START, "2026-01-01T02:00Z")
    assert bt.status(bundle_id) == "SUCCEEDED"
    assert set(bt.coords_of(bundle_id)) == {"alpha", "beta"}

    timed = bt.submit_job(config, {"kick": "2026-01-01T03:00Z"})
    assert bt.peek(timed)["kickoffTime"] == "Thu, 01 Jan 2026 03:00:00 GMT"
    # a bundle's attribute: E1303 "bundle application attributes", not the coordinator's E1003
    bad = bt.fails("submit", str(config), "-D", "kick=tomorrow", code="E1303")
    assert "any-name-at-all.xml:2:" in bad.stderr and "kick-off-time], [tomorrow]" in bad.stderr
    assert "Invalid bundle application attributes" in bad.stderr


# ----------------------------------------------------------------------------- 15, 16


def test_req_15_16_status_and_coordinator_list_through_info_and_jobs(bt: Bt4) -> None:
    config = props(bt, write_bundle(bt))
    bundle_id = bt.submit_job(config, start=True)
    bt.sim(START, "2026-01-01T01:30Z")

    info = bt.info_json(bundle_id)
    assert info["bundleJobId"] == bundle_id and info["status"] == "RUNNING"
    kids = {c["coordJobName"]: c for c in info["bundleCoordJobs"]}
    assert set(kids) == {"alpha", "beta"}
    for c in kids.values():
        assert c["coordJobId"].endswith("-C")
        assert c["status"] == "RUNNING"
        assert bt.peek(c["coordJobId"])["bundleId"] == bundle_id

    text = bt.cli("info", bundle_id).stdout
    assert bundle_id in text and "RUNNING" in text
    for c in kids.values():
        assert c["coordJobId"] in text

    listed = bt.cli("jobs", "--type", "bundle", "--json").stdout
    bundles = json.loads(listed)["bundlejobs"]
    assert [(b["bundleJobId"], b["status"]) for b in bundles] == [(bundle_id, "RUNNING")]
    coords = json.loads(bt.cli("jobs", "--type", "coordinator", "--json").stdout)
    assert {c["coordJobId"] for c in coords["coordinatorjobs"]} == {
        c["coordJobId"] for c in kids.values()
    }
    oozie = bt.cli("oozie", "job", "-info", bundle_id).stdout
    assert "RUNNING" in oozie and all(c["coordJobId"] in oozie for c in kids.values())
