"""``validate_file`` checks what ``submit`` checks, and the submit resolver's numbers are
Java ints (``load_app``, ``validate_file``, ``check_bundle_coordinators``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.clock import SimulatedClock
from bundletui.model.frequency import TimeUnit
from bundletui.spec.load import check_bundle_coordinators, load_app, validate_file

CLOCK = SimulatedClock(datetime(2026, 1, 1, tzinfo=UTC))

BUNDLE = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="first">
    <app-path>{app}</app-path>
    <configuration><property><name>end</name><value>{end}</value></property></configuration>
  </coordinator>
  <coordinator name="off" enabled="false"><app-path>not-there.xml</app-path></coordinator>
</bundle-app>
"""

COORD = """<coordinator-app name="c" frequency="{frequency}" start="${{start}}" end="${{end}}"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  {controls}
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""

WORKFLOW = """<workflow-app name="w" xmlns="uri:oozie:workflow:0.5">
  <start to="a"/>
  <action name="a" retry-max="{retry_max}" retry-interval="{retry_interval}">
    <fs><mkdir path="/tmp/x"/></fs><ok to="end"/><error to="end"/>
  </action>
  <end name="end"/>
</workflow-app>
"""


def bundle(
    root: Path,
    *,
    app: str = "coordinator.xml",
    end: str = "2026-01-02T00:00Z",
    frequency: str = "60",
    controls: str = "",
) -> Path:
    (root / "coordinator.xml").write_text(COORD.format(frequency=frequency, controls=controls))
    path = root / "bundle.xml"
    path.write_text(BUNDLE.format(app=app, end=end))
    return path


def coordinator(root: Path, frequency: str = "60", controls: str = "") -> Path:
    path = root / "coordinator.xml"
    path.write_text(COORD.format(frequency=frequency, controls=controls))
    return path


CONF = {"start": "2026-01-01T00:00Z", "end": "2026-01-02T00:00Z"}


def validate_error(path: Path, conf: dict[str, str] | None = None) -> SpecError:
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, CONF if conf is None else conf)
    return info.value


def submit_error(path: Path, conf: dict[str, str] | None = None) -> SpecError:
    """What submit does with a bundle: load it, then resolve its coordinators."""
    with pytest.raises(SpecError) as info:
        check_bundle_coordinators(load_app(path, CONF if conf is None else conf, CLOCK), CLOCK)
    return info.value


def same(a: SpecError, b: SpecError) -> tuple[str, str | None, int | None, str, str | None]:
    assert (a.code, a.file, a.line, a.message, a.hint) == (
        b.code,
        b.file,
        b.line,
        b.message,
        b.hint,
    )
    return a.code, a.file, a.line, a.message, a.hint


def test_a_bundle_is_valid_when_its_coordinators_are(tmp_path: Path) -> None:
    v = validate_file(bundle(tmp_path), CLOCK, CONF)
    assert (v.kind_name, v.checked_semantics) == ("bundle-app", True)  # "off" is not read


@pytest.mark.parametrize(
    ("kw", "code", "words"),
    [
        ({"end": "2025-01-01T00:00Z"}, "E1003", "Start Time must be earlier than End Time"),
        ({"app": "missing.xml"}, "E1001", "missing.xml does not exist"),
        ({"frequency": "${every}"}, "E1004", "every"),
        ({"frequency": "${coord:minutes(2147483648)}"}, "E1003", "is out of range"),
    ],
)
def test_validate_resolves_each_enabled_coordinator_as_submit_does(
    tmp_path: Path, kw: dict[str, str], code: str, words: str
) -> None:
    path = bundle(tmp_path, **kw)
    _code, _file, _line, message, _hint = same(validate_error(path), submit_error(path))
    assert _code == code and words in message
    assert message.endswith(f'[bundle coordinator "first" of {path}]')


def test_validate_without_values_does_not_resolve_the_coordinators(tmp_path: Path) -> None:
    """No values (validate without --config / -D): the lenient, schema-only mode. The bundle
    file is checked as far as it can be; its coordinators need values to be resolved, so it is
    never reported as wholly checked."""
    v = validate_file(bundle(tmp_path, end="2025-01-01T00:00Z"), CLOCK, None)
    assert (v.kind_name, v.checked_semantics, v.needs) == ("bundle-app", False, ())
    v = validate_file(bundle(tmp_path, end="${e}"), CLOCK, None)
    assert v.checked_semantics is False and v.needs == ("e",)


@pytest.mark.parametrize(
    ("frequency", "controls", "message"),
    [
        (
            "${coord:hours(35791395)}",
            "",
            "frequency [${coord:hours(35791395)}] (= 2147483700) is out of range",
        ),
        ("${2147483647 + 1}", "", "frequency [${2147483647 + 1}] (= 2147483648) is out of range"),
        ("1_000", "", "frequency [1_000] is not an integer"),
        (
            "60",
            "<controls><timeout>${coord:days(2000000)}</timeout></controls>",
            "timeout [${coord:days(2000000)}] (= 2880000000) is out of range",
        ),
        (
            "60",
            "<controls><concurrency>${9999999999}</concurrency></controls>",
            "controls/concurrency [${9999999999}] (= 9999999999) is out of range",
        ),
    ],
)
def test_submit_resolver_numbers_are_java_ints(
    tmp_path: Path, frequency: str, controls: str, message: str
) -> None:
    path = coordinator(tmp_path, frequency, controls)
    with pytest.raises(SpecError) as info:
        load_app(path, CONF, CLOCK)
    err = info.value
    assert (err.code, err.file, err.line) == ("E1003", str(path), 1 if not controls else 3)
    assert err.message == f"Invalid coordinator application attributes, {message}"
    assert message.endswith("is not an integer") or "2147483647" in (err.hint or "")
    same(err, validate_error(path))


@pytest.mark.parametrize(
    ("frequency", "controls", "hint"),
    [
        ("1_000", "", "give a whole number, or an EL frequency such as ${coord:hours(2)}"),
        ("60", "<controls><timeout>soon</timeout></controls>", "or an EL frequency"),
        ("60", "<controls><concurrency>two</concurrency></controls>", "give a whole number"),
        ("60", "<controls><throttle>x</throttle></controls>", "give a whole number"),
    ],
)
def test_only_a_time_is_offered_an_el_frequency_in_the_hint(
    tmp_path: Path, frequency: str, controls: str, hint: str
) -> None:
    """Left alone earlier: a concurrency (or an event schedule's count or priority) that was
    not a number was told to try ``${coord:hours(2)}``."""
    with pytest.raises(SpecError) as info:
        load_app(coordinator(tmp_path, frequency, controls), CONF, CLOCK)
    assert info.value.hint is not None
    if hint == "give a whole number":
        assert info.value.hint == hint
    else:
        assert hint in info.value.hint


def test_in_range_frequencies_are_accepted_however_long(tmp_path: Path) -> None:
    """Within Java's int a frequency is valid at submit, even if its second nominal time is
    past year 9999: materialization ends there (tests/model/test_nominal.py)."""
    for frequency, unit in [
        ("2147483647", TimeUnit.MINUTE),
        ("${coord:days(2147483647)}", TimeUnit.DAY),
        ("${coord:months(2147483647)}", TimeUnit.MONTH),
    ]:
        app = load_app(coordinator(tmp_path, frequency), CONF, CLOCK).app
        assert (app.frequency.value, app.frequency.unit) == (2147483647, unit)


@pytest.mark.parametrize(
    ("retry_max", "retry_interval", "message"),
    [
        ("2147483648", "1", "retry-max [2147483648] is out of range"),
        ("1", "${n}", "retry-interval [${n}] (= 99999999999999999999) is out of range"),
        ("x", "1", "retry-max [x] is not an integer"),
    ],
)
def test_a_workflows_numbers_are_refused_with_the_workflow_code(
    tmp_path: Path, retry_max: str, retry_interval: str, message: str
) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(WORKFLOW.format(retry_max=retry_max, retry_interval=retry_interval))
    with pytest.raises(SpecError) as info:
        load_app(path, {"n": "99999999999999999999"}, CLOCK)
    err = info.value
    assert (err.code, err.file, err.line, err.message) == ("EB0720", str(path), 3, message)
    assert err.hint is not None
    path.write_text(WORKFLOW.format(retry_max="1", retry_interval="2147483647"))
    node = load_app(path, {}, CLOCK).app.node("a")
    assert (node.retry_max, node.retry_interval) == (1, 2147483647)


EVENTS = """<coordinator-app name="ev" xmlns="uri:bundletui:coordinator:1.0"
    start="2026-01-01T00:00Z" end="2027-01-01T00:00Z" timezone="UTC" priority="{priority}">
  <feeds><feed name="f" path="/tmp/f" done-flag="_SUCCESS"/></feeds>
  <trigger><partitions feed="f" count="1"/></trigger>
  <constraints><delay>{delay}</delay></constraints>
  <action><workflow><app-path>/apps/wf</app-path></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("priority", "delay", "line", "message"),
    [
        ("2147483648", "PT5M", 1, "coordinator-app/@priority [2147483648] is out of range"),
        ("1", "P1491309D", 5, "constraints/delay [P1491309D] is out of range"),
        ("1", "P9999999999999D", 5, "constraints/delay [P9999999999999D] is out of range"),
    ],
)
def test_event_coordinator_numbers_and_durations_are_bounded(
    tmp_path: Path, priority: str, delay: str, line: int, message: str
) -> None:
    """An event coordinator's durations are at most a Java int of minutes, like a timeout: a
    longer one used to reach the engine (an OverflowError storing its due time)."""
    path = tmp_path / "events.xml"
    path.write_text(EVENTS.format(priority=priority, delay=delay))
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    err = info.value
    assert (err.code, err.file, err.line) == ("E1003", str(path), line)
    assert err.message == f"Invalid coordinator application attributes, {message}"
    assert "2147483647" in (err.hint or "")
    path.write_text(EVENTS.format(priority="2147483647", delay="P1491308D"))  # the limits
    assert load_app(path, {}, CLOCK).app.events.priority == 2147483647


EVENTS_CONF = """<coordinator-app name="ev" xmlns="uri:bundletui:coordinator:1.0"
    start="2026-01-01T00:00Z" end="2027-01-01T00:00Z" timezone="UTC">
  <feeds><feed name="f" path="/tmp/f"/></feeds>
  <trigger><partitions feed="f" count="1"/></trigger>
  <action><workflow><app-path>/apps/wf</app-path><configuration>
    <property><name>p</name><value>{value}</value></property>
  </configuration></workflow></action>
</coordinator-app>
"""
TIME_CONF = """<coordinator-app name="t" xmlns="uri:oozie:coordinator:0.4" frequency="60"
    start="2026-01-01T00:00Z" end="2027-01-01T00:00Z" timezone="UTC">
  <action><workflow><app-path>/apps/wf</app-path><configuration>
    <property><name>p</name><value>{value}</value></property>
  </configuration></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("template", "value", "words"),
    [
        (EVENTS_CONF, "${trigger:partitionz()}", "unknown function [trigger:partitionz]"),
        (EVENTS_CONF, "${trigger:partitions('nofeed')}", "has no feed [nofeed] (feeds: f)"),
        (EVENTS_CONF, "${trigger:count(1, 2)}", "trigger:count takes 0 argument(s), 2 given"),
        (EVENTS_CONF, "${coord:dataIn('x')}", "an event schedule has no data-in"),
        (TIME_CONF, "${trigger:partitions()}", "a time coordinator has none"),
    ],
)
def test_trigger_calls_no_firing_could_answer_are_refused_at_submit(
    tmp_path: Path, template: str, value: str, words: str
) -> None:
    """QA: a mistyped trigger: function was passed to the job as written; wrong arguments, an
    undeclared feed, coord:dataIn in an event schedule, and trigger: in a time coordinator
    were accepted and failed every action. They are refused when the file is loaded."""
    path = tmp_path / "c.xml"
    path.write_text(template.format(value=value))
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    err = info.value
    assert (err.code, err.file, err.line) == (
        "E1004",
        str(path),
        6 if template is EVENTS_CONF else 4,
    )
    assert words in err.message, err.message
    fine = "${trigger:partitions('f')} ${trigger:count()} ${coord:nominalTime()}"
    path.write_text(EVENTS_CONF.format(value=fine))
    load_app(path, {}, CLOCK)


def test_the_trigger_arities_are_those_of_the_trigger_functions() -> None:
    import inspect
    from types import SimpleNamespace
    from typing import cast

    from bundletui.model.apps import CoordinatorApp
    from bundletui.spec.event_el import TRIGGER_ARITY, trigger_functions

    functions = trigger_functions(cast(CoordinatorApp, SimpleNamespace(events=None)), {})
    assert set(functions) == set(TRIGGER_ARITY)
    for name, fn in functions.items():
        params = inspect.signature(fn).parameters.values()
        required = sum(1 for p in params if p.default is inspect.Parameter.empty)
        assert TRIGGER_ARITY[name] == (required, len(params)), name


PARAMETERS = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <parameters>
    <property><name>start</name><value>2026-01-01T00:00Z</value></property>
    <property><name>end</name><value>2026-01-02T00:00Z</value></property>
  </parameters>
  <coordinator name="first">
    <app-path>{app}</app-path>
  </coordinator>
</bundle-app>
"""


def test_without_values_a_bundles_defaults_are_values(tmp_path: Path) -> None:
    """Every variable of the coordinator has a default in the bundle's <parameters>: nothing
    is missing, so the coordinator is resolved (and its errors found) without a config."""
    coordinator(tmp_path)
    path = tmp_path / "bundle.xml"
    path.write_text(PARAMETERS.format(app="coordinator.xml"))
    v = validate_file(path, CLOCK, None)
    assert (v.checked_semantics, v.needs) == (True, ())
    coordinator(tmp_path, frequency="${every}")  # a variable nothing gives: not checked
    v = validate_file(path, CLOCK, None)
    assert (v.checked_semantics, v.needs) == (False, ())
    coordinator(tmp_path, frequency="1")  # the defaults' values are checked as submit's
    err = validate_error(path, {})
    assert same(err, submit_error(path, {}))[0] == "E1003"
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, None)
    assert (info.value.code, info.value.file, info.value.line) == ("E1003", err.file, err.line)


def test_a_bundle_app_path_naming_no_file_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bundle.xml"
    path.write_text(PARAMETERS.format(app="nowhere/coordinator.xml"))
    code, file, line, message, hint = same(validate_error(path), submit_error(path))
    assert (code, file, line) == ("E1001", str(path), 7)
    assert message.endswith(f'does not exist [bundle coordinator "first" of {path}]')
    assert hint is not None and "<app-path> of coordinator [first]" in hint


def test_a_program_trigger_on_the_schedule_itself_is_refused(tmp_path: Path) -> None:
    """QA: ``<or><partitions/><program coordinator="itself"/></or>`` was valid, and one
    partition started 1,457 runs in 12 s, each run's end firing the next."""
    path = tmp_path / "c.xml"
    text = EVENTS_CONF.format(value="x").replace(
        '<trigger><partitions feed="f" count="1"/></trigger>',
        '<trigger><or><partitions feed="f"/>\n<program coordinator="ev"/></or></trigger>',
    )
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    assert (info.value.code, info.value.line) == ("E1003", 5)
    assert "program trigger on [ev] itself" in info.value.message
    path.write_text(text.replace('coordinator="ev"', 'coordinator="other"'))
    load_app(path, {}, CLOCK)


def test_validate_without_values_names_a_required_parameter_no_expression_reads(
    tmp_path: Path,
) -> None:
    """Left alone earlier: ``Valid``, with nothing said, for a workflow whose submit needs a
    value for a ``<parameters>`` entry (E0738) that none of its expressions reads."""
    path = tmp_path / "workflow.xml"
    path.write_text(
        '<workflow-app xmlns="uri:oozie:workflow:1.0" name="p">\n'
        "  <parameters><property><name>needed</name></property>\n"
        "    <property><name>given</name><value>x</value></property></parameters>\n"
        '  <start to="end"/><end name="end"/>\n'
        "</workflow-app>\n"
    )
    v = validate_file(path, CLOCK, None)
    assert (v.checked_semantics, v.needs) == (False, ("needed",))
    assert validate_file(path, CLOCK, {"needed": "1"}).checked_semantics
    with pytest.raises(SpecError) as info:
        validate_file(path, CLOCK, {"other": "1"})
    assert info.value.code == "E0738"


PHASED = """<coordinator-app name="t" xmlns="uri:oozie:coordinator:0.4" frequency="60"
    start="2026-01-01T00:00Z" end="2027-01-01T00:00Z" timezone="UTC">
  <datasets><dataset name="ds" frequency="60" initial-instance="2025-01-01T00:00Z"
    timezone="UTC"><uri-template>/data/${{YEAR}}${{MONTH}}${{DAY}}${{HOUR}}</uri-template></dataset>
  </datasets>
  <input-events><data-in name="in" dataset="ds"><instance>{instance}</instance></data-in>
  </input-events>
  <action><workflow><app-path>/apps/wf</app-path><configuration>
    <property><name>p</name><value>{value}</value></property>
  </configuration></workflow></action>
</coordinator-app>
"""


@pytest.mark.parametrize(
    ("instance", "value", "line", "words"),
    [
        ("${coord:current(0)}", "${coord:current(0)}", 9, "coord:current() reads the dataset"),
        ("${coord:current(0)}", "${coord:latest(0)}", 9, "coord:latest() reads the dataset"),
        ("${coord:current(0)}", "${coord:hoursInDay(0)}", 9, "coord:hoursInDay() reads"),
        ("${coord:current(0)}", "${coord:hours(2)}", 9, "coord:hours() is not a function of"),
        ("${coord:nominalTime()}", "x", 6, "[${coord:nominalTime()}], not one instance"),
        ("${coord:dataIn('in')}", "x", 6, "[${coord:dataIn('in')}], not one instance"),
    ],
)
def test_coord_functions_out_of_their_phase_are_refused_at_submit(
    tmp_path: Path, instance: str, value: str, line: int, words: str
) -> None:
    """QA (al): these were accepted by submit and validate, and then failed every action (the
    configuration's) or the coordinator at its first materialization (the instance's); Oozie
    refuses them at submit, its submit-time evaluators lacking the functions."""
    path = tmp_path / "c.xml"
    path.write_text(PHASED.format(instance=instance, value=value))
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    err = info.value
    assert (err.file, err.line) == (str(path), line), err
    assert words in err.message, err.message
    fine = "${coord:dataIn('in')} ${coord:formatTime(coord:nominalTime(), 'yyyy')}"
    path.write_text(PHASED.format(instance="${coord:current(0)}", value=fine))
    load_app(path, {}, CLOCK)


def test_an_error_in_a_uri_template_is_at_its_own_line(tmp_path: Path) -> None:
    """QA (al): an undefined variable in a uri-template was reported at its <dataset>'s line."""
    path = tmp_path / "c.xml"
    text = PHASED.format(instance="${coord:current(0)}", value="x")
    path.write_text(text.replace("<uri-template>/data/", "\n<uri-template>/${dsroot}/"))
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    assert (info.value.line, info.value.code) == (5, "E1004"), info.value
    assert "unresolved variable [dsroot]" in info.value.message


def test_a_format_pattern_is_read_from_the_expression_not_guessed(tmp_path: Path) -> None:
    """QA (an): a regex took ``'DAY'`` of ``formatTime(dateOffset(t, -1, 'DAY'), 'yyyy')``
    for the pattern and refused the common idiom ("Illegal pattern character 'A'")."""
    path = tmp_path / "c.xml"
    nested = "coord:dateOffset(coord:nominalTime(), -1, 'DAY')"
    path.write_text(
        PHASED.format(
            instance="${coord:current(0)}", value=f"${{coord:formatTime({nested}, 'yyyy')}}"
        )
    )
    load_app(path, {}, CLOCK)
    path.write_text(
        PHASED.format(
            instance="${coord:current(0)}", value=f"${{coord:formatTime({nested}, 'yyyy QQQ')}}"
        )
    )
    with pytest.raises(SpecError) as info:
        load_app(path, {}, CLOCK)
    assert info.value.line == 9 and "Illegal pattern character 'Q'" in info.value.message
