"""coordinator.xml -> CoordinatorApp (normalisations, datasets, includes, events, logic)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.apps import CoordinatorApp, ExecutionOrder, InputLogic, LogicOp
from bundletui.model.frequency import Frequency, TimeUnit
from bundletui.spec import xmlsafe
from bundletui.spec.config import apply_parameters, read_parameters
from bundletui.spec.decode_coordinator import decode_coordinator
from tests.spec.simple_resolver import SimpleResolver

FIX = Path(__file__).parent / "fixtures"
CONF = {
    "start": "2009-01-01T00:00Z",
    "dataRoot": "file:///data",
    "appBase": "/apps",
    "wfPath": "/apps/wf",
}


def decode(
    path: Path | str, conf: dict[str, str] | None = None, data: bytes | None = None, **kw: bool
) -> CoordinatorApp:
    doc = xmlsafe.load_document(path, data=data)
    merged = apply_parameters(read_parameters(doc), conf or CONF, file=doc.file)
    return decode_coordinator(doc, SimpleResolver(merged), **kw)


def error(
    path: Path | str, data: bytes | None = None, conf: dict[str, str] | None = None, **kw: bool
) -> SpecError:
    with pytest.raises(SpecError) as info:
        decode(path, conf, data, **kw)
    return info.value


def coord(body: str, ns: str = "0.4", attrs: str = 'frequency="60"') -> bytes:
    return f"""<coordinator-app name="t" {attrs} start="2009-01-01T00:00Z"
    end="2009-01-02T00:00Z" timezone="UTC" xmlns="uri:oozie:coordinator:{ns}">
{body}
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>""".encode()


DS = """  <datasets>
    <dataset name="d" frequency="60" initial-instance="2009-01-01T00:00Z" timezone="UTC">
      <uri-template>/data/${YEAR}</uri-template>
    </dataset>
  </datasets>"""


def test_coordinator_0_1_controls_and_sla() -> None:
    app = decode(FIX / "coord-0.1.xml")
    assert app.name == "c01"
    assert app.frequency == Frequency(60, TimeUnit.MINUTE)
    assert app.start == datetime(2009, 1, 1, 1, tzinfo=UTC)
    assert app.end == datetime(2009, 1, 1, 5, tzinfo=UTC)
    assert app.controls.timeout == 86400  # -1 is stored as the max timeout, as Oozie does
    assert app.controls.concurrency == 3
    assert app.controls.execution is ExecutionOrder.LIFO
    assert app.controls.throttle == 12
    assert app.workflow_app_path == "/apps/wf"
    assert app.datasets == () and app.data_ins == () and app.input_logic is None


@pytest.mark.parametrize("version", ["0.2", "0.3"])
def test_empty_timeout_and_out_of_range_throttle(version: str) -> None:
    app = decode(FIX / f"coord-{version}.xml")
    assert app.namespace == f"uri:oozie:coordinator:{version}"
    assert app.timezone == "America/Los_Angeles"
    assert app.controls.timeout == 120  # empty -> default
    assert app.controls.throttle == 500  # < 1 -> max
    assert app.controls.concurrency == 1
    assert app.controls.execution is ExecutionOrder.FIFO


def test_coordinator_0_4_full() -> None:
    app = decode(FIX / "coord-0.4.xml")
    assert app.name == "clicks"
    assert app.parameters == (("appName", "clicks"), ("freq", "60"))
    assert app.required_parameters == ("start",)
    c = app.controls
    assert (c.timeout, c.concurrency, c.execution, c.throttle) == (
        86400,
        -1,
        ExecutionOrder.LAST_ONLY,
        500,
    )
    names = [ds.name for ds in app.datasets]
    assert names == ["lookups", "clicks", "out", "overridden"]  # embedded wins over include
    clicks = app.dataset("clicks")
    assert clicks.uri_template == "file:///data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"
    assert clicks.done_flag == "_SUCCESS"
    assert app.dataset("out").done_flag == ""
    assert app.dataset("overridden").done_flag == "READY"
    assert app.dataset("overridden").uri_template == "file:///data/mine/${YEAR}"
    lookups = app.dataset("lookups")
    assert lookups.timezone == "America/Los_Angeles"
    assert lookups.frequency == Frequency(1440, TimeUnit.MINUTE)
    assert lookups.initial_instance == datetime(2008, 12, 1, tzinfo=UTC)
    inp, lookup = app.data_ins
    assert (inp.name, inp.dataset, inp.instances) == ("input", "clicks", ())
    assert (inp.start_instance, inp.end_instance) == (
        "${coord:current(-23)}",
        "${coord:current(0)}",
    )
    assert lookup.instances == ("${coord:latest(0)}", "${coord:current(-1)}")
    (out,) = app.data_outs
    assert (out.name, out.dataset, out.instance, out.nocleanup) == (
        "output",
        "out",
        "${coord:current(0)}",
        True,
    )
    assert app.workflow_app_path == "/apps/wf"
    # configuration values are kept exactly as written (evaluated per action)
    assert app.workflow_conf == (
        ("inputs", "${coord:dataIn('input')}"),
        ("when", "${coord:formatTime(coord:nominalTime(), 'yyyyMMdd')}"),
        ("root", "${dataRoot}"),
    )


def test_workflow_conf_values_are_still_checked_for_unresolved_variables() -> None:
    conf = {**CONF}
    del conf["dataRoot"]
    data = coord(
        """  <controls/>""",
    ).replace(
        b"<app-path>/apps/wf</app-path>",
        b"<app-path>/apps/wf</app-path><configuration><property><name>x</name>"
        b"<value>${undefinedVar}</value></property></configuration>",
    )
    err = error("c.xml", data, conf)
    assert err.code == "E1004"
    assert "undefinedVar" in err.message


def test_a_workflow_conf_property_without_a_value_sets_nothing() -> None:
    """As Hadoop's Configuration reads it: the workflow's own default (or its required
    parameter check) decides, not an empty string."""
    data = coord("""  <controls/>""").replace(
        b"<app-path>/apps/wf</app-path>",
        b"<app-path>/apps/wf</app-path><configuration>"
        b"<property><name>a</name><value></value></property>"
        b"<property><name>b</name><value/></property>"
        b"<property><name>d</name><value> </value></property></configuration>",
    )
    app = decode("c.xml", CONF, data)
    assert app.workflow_conf == (("d", " "),)


def test_coordinator_0_5_input_logic() -> None:
    app = decode(FIX / "coord-0.5.xml")
    assert [d.name for d in app.data_ins] == ["A", "B", "C"]
    assert app.input_logic == InputLogic(
        LogicOp.OR,
        (
            InputLogic(
                LogicOp.AND,
                (
                    InputLogic(LogicOp.DATA_IN, dataset="A", min=1),
                    InputLogic(LogicOp.DATA_IN, dataset="C"),
                ),
            ),
            InputLogic(
                LogicOp.COMBINE,
                (
                    InputLogic(LogicOp.DATA_IN, dataset="A"),
                    InputLogic(LogicOp.DATA_IN, dataset="B"),
                ),
                name="comb",
            ),
        ),
        name="AorB",
        wait=30,
    )


def test_input_logic_with_several_top_level_conditions_means_all() -> None:
    data = (
        (FIX / "coord-0.5.xml")
        .read_bytes()
        .replace(b"  </input-logic>", b'    <data-in dataset="B"/>\n  </input-logic>')
    )
    logic = decode("c.xml", data=data).input_logic
    assert logic is not None and logic.op is LogicOp.AND and len(logic.children) == 2


def test_input_logic_unknown_data_in() -> None:
    data = (FIX / "coord-0.5.xml").read_bytes().replace(b'dataset="C"/>', b'dataset="Z"/>')
    err = error("c.xml", data)
    assert err.code == "E1010"
    assert "[Z]" in err.message
    assert err.line == 20


def test_input_logic_names_are_unique_and_min_and_wait_not_negative() -> None:
    """Two operators of one name made ``coord:dataIn`` pick one of them silently; a negative
    ``wait`` or ``min`` meant nothing. Both are refused with their line."""
    fixture = (FIX / "coord-0.5.xml").read_bytes()
    err = error("c.xml", fixture.replace(b'name="comb"', b'name="AorB"'))
    assert err.code == "E1010" and "Duplicate input-logic operator name AorB" in err.message
    assert "already defined at line" in (err.hint or "")
    err = error("c.xml", fixture.replace(b'wait="30"', b'wait="-5"'))
    assert err.code == "E1010" and "wait=[-5] is negative" in err.message and err.line
    err = error("c.xml", fixture.replace(b'min="1"', b'min="-1"'))
    assert err.code == "E1010" and "min=[-1] is negative" in err.message


def test_combine_takes_data_ins_of_current_instances_only() -> None:
    """QA (v): ``combine`` over a ``latest()`` data-in was accepted and then only waited;
    oozie.md §2.7: combine is ``current`` only (the XSD keeps it from nesting)."""
    fixture = (FIX / "coord-0.5.xml").read_bytes()
    latest = fixture.replace(
        b'<data-in name="B" dataset="b"><instance>${coord:current(0)}</instance>',
        b'<data-in name="B" dataset="b"><instance>${coord:latest(0)}</instance>',
    )
    err = error("c.xml", latest)
    assert err.code == "E1010" and "combine over data-in [B]" in err.message, err
    assert err.line == 22


def test_legacy_and_or_in_input_events_is_refused_clearly() -> None:
    data = coord(
        DS + '\n  <input-events><and><data-in dataset="d"/></and></input-events>', ns="0.5"
    )
    err = error("c.xml", data)
    assert err.code == "E1010"
    assert "<input-logic>" in (err.hint or "")


def test_start_must_be_before_end() -> None:
    data = coord("").replace(b'end="2009-01-02T00:00Z"', b'end="2009-01-01T00:00Z"')
    err = error("c.xml", data)
    assert err.code == "E1003"
    assert "Start Time must be earlier than End Time" in err.message


def test_minimum_frequency() -> None:
    err = error("c.xml", coord("", attrs='frequency="4"'))
    assert err.code == "E1003"
    assert "faster than allowed maximum of 5 minutes" in err.message
    app = decode("c.xml", data=coord("", attrs='frequency="4"'), check_max_frequency=False)
    assert app.frequency.value == 4
    assert error("c.xml", coord("", attrs='frequency="0"'), check_max_frequency=False).code == (
        "E1003"
    )
    cron = decode("c.xml", data=coord("", attrs='frequency="0/10 * * * *"'))
    assert cron.frequency.is_cron


def test_bad_execution_value() -> None:
    err = error("c.xml", coord("  <controls><execution>RANDOM</execution></controls>"))
    assert err.code == "E1003"
    assert "RANDOM" in err.message
    assert err.line == 3


def test_duplicate_dataset_in_one_file() -> None:
    ds2 = DS.replace(
        "  </datasets>",
        """    <dataset name="d" frequency="60" initial-instance="2009-01-01T00:00Z" timezone="UTC">
      <uri-template>/other</uri-template>
    </dataset>
  </datasets>""",
    )
    err = error("c.xml", coord(ds2))
    assert err.code == "E1010"
    assert "Duplicate Dataset d" in err.message
    assert err.line == 7


def test_duplicate_dataset_across_includes(tmp_path: Path) -> None:
    shared = (FIX / "datasets-shared.xml").read_text()
    (tmp_path / "one.xml").write_text(shared)
    (tmp_path / "two.xml").write_text(shared)
    c = tmp_path / "coordinator.xml"
    c.write_bytes(
        coord(
            "  <datasets><include>one.xml</include><include>file://"
            + str(tmp_path)
            + "/two.xml</include></datasets>"
        )
    )
    err = error(c, conf=CONF)
    assert err.code == "E1010"
    assert "Duplicate Dataset lookups" in err.message
    assert err.file == str(tmp_path / "two.xml")


def test_include_problems(tmp_path: Path) -> None:
    c = tmp_path / "coordinator.xml"
    c.write_bytes(coord("  <datasets>\n<include>missing.xml</include></datasets>"))
    err = error(c)
    assert err.code == "E1010" and "missing.xml" in err.message and err.line == 4
    (tmp_path / "notds.xml").write_bytes(coord(""))
    c.write_bytes(coord("  <datasets><include>notds.xml</include></datasets>"))
    assert "not <datasets>" in error(c).message
    (tmp_path / "bad.xml").write_text('<datasets xmlns="uri:oozie:coordinator:0.4"><x/></datasets>')
    c.write_bytes(coord("  <datasets><include>bad.xml</include></datasets>"))
    err = error(c)
    assert err.code == "E0701" and err.file == str(tmp_path / "bad.xml")


def test_undefined_dataset_and_duplicate_data_in() -> None:
    err = error(
        "c.xml",
        coord(
            DS
            + """
  <input-events>
    <data-in name="i" dataset="nope"><instance>${coord:current(0)}</instance></data-in>
  </input-events>"""
        ),
    )
    assert err.code == "E1010"
    assert "undefined dataset: nope" in err.message
    assert err.line == 9
    err = error(
        "c.xml",
        coord(
            DS
            + """
  <input-events>
    <data-in name="i" dataset="d"><instance>${coord:current(0)}</instance></data-in>
    <data-in name="i" dataset="d"><instance>${coord:current(-1)}</instance></data-in>
  </input-events>"""
        ),
    )
    assert "Duplicate dataIn name i" in err.message and err.line == 10


def test_empty_instance_is_e1021() -> None:
    err = error(
        "c.xml",
        coord(
            DS
            + """
  <output-events>
    <data-out name="o" dataset="d"><instance>  </instance></data-out>
  </output-events>"""
        ),
    )
    assert err.code == "E1021"
    assert "output-events" in err.message
    assert err.line == 9


def test_dataset_frequency_must_be_positive_and_not_cron() -> None:
    err = error("c.xml", coord(DS.replace('frequency="60"', 'frequency="0"')))
    assert err.code == "E1003" and "dataset [d]" in err.message
    err = error("c.xml", coord(DS.replace('frequency="60"', 'frequency="0 * * * *"')))
    assert "cron is for coordinators only" in (err.hint or "")


def test_bad_timezone_is_reported_at_its_line() -> None:
    err = error("c.xml", coord(DS.replace('timezone="UTC"', 'timezone="Mars/Olympus"')))
    assert err.code == "E1003"
    assert "Mars/Olympus" in err.message
    assert err.line == 4


def test_resolver_sees_each_value_with_its_place() -> None:
    doc = xmlsafe.load_document(FIX / "coord-0.4.xml")
    resolver = SimpleResolver(apply_parameters(read_parameters(doc), CONF))
    decode_coordinator(doc, resolver)
    fields = {(w.field, w.line) for _, _, w in resolver.calls}
    assert ("coordinator-app/@frequency", 1) in fields
    assert ("input-events start-instance", 30) in fields
    assert ("action/workflow/app-path", 47) in fields


@pytest.mark.parametrize(
    ("body", "attrs", "field", "value"),
    [
        ("", 'frequency="99999999999999999999"', "frequency", "99999999999999999999"),
        ("", 'frequency="2147483648"', "frequency", "2147483648"),
        ("  <controls><timeout>2147483648</timeout></controls>", "", "timeout", "2147483648"),
        (
            "  <controls><concurrency>-2147483649</concurrency></controls>",
            "",
            "controls/concurrency",
            "-2147483649",
        ),
        (
            "  <controls><throttle>99999999999</throttle></controls>",
            "",
            "controls/throttle",
            "99999999999",
        ),
    ],
)
def test_numbers_outside_java_int_are_refused(
    body: str, attrs: str, field: str, value: str
) -> None:
    """Oozie parses numbers with Integer.parseInt: a bigger one is an error at submit, not an
    OverflowError in the engine's date arithmetic later."""
    err = error("c.xml", coord(body, attrs=attrs or 'frequency="60"'))
    assert (err.code, err.file, err.line) == ("E1003", "c.xml", 1 if attrs else 3)
    assert err.message.startswith("Invalid coordinator application attributes, ")
    assert err.message.endswith(f"{field} [{value}] is out of range")
    assert "from -2147483648 to 2147483647" in (err.hint or "")


def test_java_int_limits_themselves_are_accepted() -> None:
    app = decode(
        "c.xml",
        data=coord(
            "  <controls><timeout>-2147483648</timeout><concurrency>2147483647</concurrency>"
            "</controls>",
            attrs='frequency="2147483647"',
        ),
    )
    assert app.frequency.value == 2147483647
    assert app.controls.concurrency == 2147483647
    assert app.controls.timeout == 86400  # negative: Oozie's 60-day maximum
