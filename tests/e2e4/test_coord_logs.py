"""``bundletui log`` of a coordinator, a bundle and a waiting action, through the CLI (QA: the
command's help offered coordinator and bundle ids and refused both, calling the coordinator
"not a coordinator action"; a waiting action's log was "Action does not exist"; the Oozie
front joined the chosen actions' logs with nothing to tell them apart)."""

from __future__ import annotations

from tests.e2e4.conftest import BC, Bt4, bundle_xml, coordinator_xml, data_in, hourly_ds

HELLO = """<dag-app xmlns="uri:bundletui:dag:1.0" name="hello">
  <parameters><property><name>aid</name></property><property><name>trace</name></property></parameters>
  <job name="say"><shell><exec>echo</exec><argument>hello from</argument><argument>${aid}</argument></shell></job>
</dag-app>
"""


def test_a_coordinators_log_is_its_actions_logs_each_headed_by_its_id(bt: Bt4) -> None:
    bt.apps.write("hello.xml", HELLO)
    bt.apps.write(
        "c.xml",
        coordinator_xml(
            "greet",
            start="2026-01-01T00:00Z",
            end="2026-01-01T04:00Z",
            workflow=bt.apps.root / "hello.xml",
            datasets=[hourly_ds("raw")],
            inputs=[data_in("raw", "raw", "${coord:current(0)}")],
            controls={"timeout": "-1"},
        ),
    )
    bt.apps.write("bundle.xml", bundle_xml("b", [BC("greet", "c.xml")]))
    config = bt.apps.props("job.properties", {"oozie.bundle.application.path": "bundle.xml"})
    bundle_id = bt.submit_job(config, start=True)
    for hour in ("00", "01", "02"):
        bt.land(f"raw/2026/01/01/{hour}")
    bt.sim("2026-01-01T00:00Z", "2026-01-01T03:30Z")
    c = bt.coords_of(bundle_id)["greet"]
    assert bt.actions(c) == {1: "SUCCEEDED", 2: "SUCCEEDED", 3: "SUCCEEDED", 4: "WAITING"}

    whole = bt.cli("log", c).stdout
    for n in (1, 2, 3):
        assert f"── {c}@{n} (SUCCEEDED, workflow " in whole, whole
        assert f"hello from {c}@{n}" in whole
    assert whole.index(f"── {c}@2") < whole.index(f"hello from {c}@2") < whole.index(f"── {c}@3")
    assert f"{c}@4" not in whole  # launched nothing: passed over

    some = bt.cli("log", c, "--action", "2-3").stdout
    assert f"hello from {c}@1" not in some and f"hello from {c}@3" in some, some
    dated = bt.cli("log", c, "--date", "2026-01-01T00:00Z::2026-01-01T00:30Z").stdout
    assert f"── {c}@1" in dated and f"{c}@2" not in dated, dated

    r = bt.cli("log", f"{c}@4")  # it is there, waiting: no log yet, not an error
    assert r.code == 0 and r.stdout == "", r
    assert f"{c}@4 is WAITING and has launched no workflow: no log yet" in r.stderr, r
    assert "raw/2026/01/01/03" in r.stderr  # and why: what it waits for
    r = bt.cli("oozie", "job", "-log", f"{c}@4")  # the same through Oozie's words
    assert r.code == 0 and r.stdout == "", r
    assert f"note: {c}@4 is WAITING and has launched no workflow: no log yet" in r.stderr, r
    r = bt.cli("oozie", "job", "-log", f"{c}@99", check=False)  # none such: still an error
    assert r.code == 255 and r.stderr.startswith("Error: E0605"), r

    r = bt.cli("log", bundle_id, check=False)
    assert r.code == 2 and "E0302" in r.stderr and c in r.stderr, r
    assert "Traceback" not in r.stderr
    r = bt.cli("log", f"{c}@1", "--action", "1", check=False)
    assert r.code == 2 and "E0302" in r.stderr, r
    r = bt.cli("log", c, "--follow", check=False)
    assert r.code == 2 and "E0302" in r.stderr and f"bundletui log {c}@N" in r.stderr, r

    front = bt.cli("oozie", "job", "-log", c, "-action", "1-2").stdout
    assert f"── {c}@1 (SUCCEEDED" in front and f"── {c}@2 (SUCCEEDED" in front, front
    assert front.index(f"hello from {c}@1") < front.index(f"── {c}@2"), front
    r = bt.cli("oozie", "job", "-log", c)  # no command was run on it: its log is empty, said so
    assert r.code == 0 and r.stdout == "", r
    assert f"note: {c}'s log lists the commands run on it" in r.stderr, r
    assert f"bundletui oozie job -log {c} -action" in r.stderr
