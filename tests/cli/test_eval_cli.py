"""``bundletui eval``: the EL playground, through the real command line.

Most vectors are Oozie's (TestCoordELFunctions, TestCoordELEvaluator); the dataset options
stand for its SyncCoordDataset and --nominal-time/--actual-time for its SyncCoordAction.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bundletui.cli import _register, app
from tests.cli import bundletui

_register()
RUNNER = CliRunner()
LA = "America/Los_Angeles"

# TestCoordELFunctions.init(): daily LA dataset, nominal 2009-09-09T23:59Z, actual 09-10
OOZIE = [
    "--nominal-time", "2009-09-09T23:59Z",
    "--actual-time", "2009-09-10T23:59Z",
    "--timezone", LA,
    "--dataset-frequency", "${coord:days(1)}",
    "--dataset-initial-instance", "2009-09-01T23:59Z",
    "--dataset-timezone", LA,
]  # fmt: skip


def run(*args: str) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, ["eval", *args])
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str) -> str:
    code, out, err = run(*args)
    assert code == 0, err
    assert out.endswith("\n")
    return out[:-1]


def fails(*args: str) -> tuple[str, str]:
    """(code, message) of a failing eval: one clean line, no traceback, exit 1 for the
    expression's own errors, 2 for an option's value the command line alone shows to be wrong
    (the message names the option)."""
    code, out, err = run(*args)
    assert err.startswith("Error: E"), err
    first = err.splitlines()[0]
    assert code == (2 if "--" in first else 1), (code, err)
    assert out == ""
    assert "Traceback" not in err
    return first.split(":")[1].strip(), first


def ds(freq: str, initial: str, tz: str = "UTC", *more: str) -> list[str]:
    return [
        "--dataset-frequency", freq, "--dataset-initial-instance", initial,
        "--dataset-timezone", tz, *more,
    ]  # fmt: skip


# --------------------------------------------------------------------------- instance functions


def test_current_oozie_default() -> None:
    assert ok("${coord:current(-1)}", *OOZIE) == "2009-09-08T23:59Z"


@pytest.mark.parametrize(
    ("nominal", "dataset", "expected"),
    [
        ("2009-05-30T00:45Z", ds("${coord:days(1)}", "2009-01-02T00:00Z", LA),
         "2009-05-29T23:00Z 2009-05-30T23:00Z 2009-05-28T23:00Z 2009-05-26T23:00Z"),
        ("2009-05-30T00:45Z", ds("30", "2009-01-08T00:00Z", LA),
         "2009-05-30T00:30Z 2009-05-30T01:00Z 2009-05-30T00:00Z 2009-05-29T23:00Z"),
        ("2009-05-30T00:00Z", ds("1440", "2009-01-02T00:00Z"),
         "2009-05-30T00:00Z 2009-05-31T00:00Z 2009-05-29T00:00Z 2009-05-27T00:00Z"),
        ("2009-05-30T00:00Z", ds("${coord:days(7)}", "2009-01-08T00:00Z"),
         "2009-05-28T00:00Z 2009-06-04T00:00Z 2009-05-21T00:00Z 2009-05-07T00:00Z"),
        # end of month: the initial instance moves to 2009-02-01, nothing exists before it
        ("2009-02-01T00:00Z", ds("${coord:endOfMonths(1)}", "2009-01-01T00:00Z"),
         "2009-02-01T00:00Z 2009-03-01T00:00Z  "),
    ],
)  # fmt: skip
def test_current_vectors(nominal: str, dataset: list[str], expected: str) -> None:
    expr = "${coord:current(0)} ${coord:current(1)} ${coord:current(-1)} ${coord:current(-3)}"
    assert ok(expr, "--nominal-time", nominal, *dataset) == expected


def test_current_dst_weeks_in_los_angeles() -> None:
    expr = " ".join(f"${{coord:current({n})}}" for n in (-2, -1, 0, 1, 2))
    spring = ok(
        expr,
        "--nominal-time",
        "2009-03-08T10:45Z",
        *ds("${coord:days(1)}", "2009-03-06T10:00Z", LA),
    )
    assert spring == (
        "2009-03-06T10:00Z 2009-03-07T10:00Z 2009-03-08T09:00Z 2009-03-09T09:00Z 2009-03-10T09:00Z"
    )
    fall = ok(
        expr,
        "--nominal-time",
        "2009-11-01T08:00Z",
        *ds("${coord:days(1)}", "2009-10-30T08:00Z", LA),
    )
    assert fall == (
        "2009-10-30T08:00Z 2009-10-31T08:00Z 2009-11-01T08:00Z 2009-11-02T09:00Z 2009-11-03T09:00Z"
    )
    # a week dataset keeps the local wall clock across the switch
    weekly = ok(
        "${coord:current(0)} ${coord:current(-1)}",
        "--nominal-time",
        "2009-03-15T08:00Z",
        *ds("${coord:days(7)}", "2009-03-01T08:00Z", LA),
    )
    assert weekly == "2009-03-15T07:00Z 2009-03-08T08:00Z"


@pytest.mark.parametrize(
    ("tz", "initial", "nominal", "c0", "c1"),
    [
        ("UTC", "2009-01-02T09:00Z", "2009-05-30T12:00Z", "2009-05-30T00:00Z", "2009-05-31T00:00Z"),
        (LA, "2009-01-01T08:00Z", "2009-01-01T08:00Z", "", ""),
        (LA, "2009-01-01T07:01Z", "2009-01-01T08:01Z", "2009-01-01T08:00Z", "2009-01-02T08:00Z"),
        (LA, "2009-03-08T07:00Z", "2009-03-08T08:00Z", "2009-03-08T08:00Z", "2009-03-09T07:00Z"),
    ],
)
def test_end_of_days_datasets(tz: str, initial: str, nominal: str, c0: str, c1: str) -> None:
    args = ["--nominal-time", nominal, *ds("${coord:endOfDays(1)}", initial, tz)]
    assert ok("${coord:current(0)}", *args) == c0
    assert ok("${coord:current(1)}", *args) == c1


def test_instance_before_the_initial_instance_prints_an_empty_line() -> None:
    code, out, _ = run(
        "${coord:current(-5)}",
        "--nominal-time",
        "2009-01-02T00:00Z",
        *ds("1440", "2009-01-01T00:00Z"),
    )
    assert (code, out) == (0, "\n")


def test_offset_vectors() -> None:
    assert ok('${coord:offset(-1440, "MINUTE")}', *OOZIE) == "2009-09-08T23:59Z"
    assert ok('${coord:offset(1, "MONTH")}', *OOZIE) == "2009-10-09T23:59Z"
    assert ok('${coord:offset(-10, "DAY")}', *OOZIE) == ""
    four_hours = [
        "--nominal-time",
        "2015-01-02T00:45Z",
        *ds("${coord:hours(4)}", "2010-01-02T00:01Z", LA),
    ]
    assert ok('${coord:offset(7, "HOUR")}', *four_hours) == "2015-01-02T04:01Z"
    assert ok('${coord:offset(-2, "HOUR")}', *four_hours) == "2015-01-01T20:01Z"
    minutely = ["--nominal-time", "2015-01-02T00:45Z", *ds("1", "2010-01-02T00:01Z", LA)]
    assert ok('${coord:offset(-3, "MONTH")} ${coord:offset(-1, "YEAR")}', *minutely) == (
        "2014-10-01T23:45Z 2014-01-02T00:45Z"
    )


def test_helpers() -> None:
    assert (
        ok(
            "${coord:hoursInDay(0)}",
            "--nominal-time",
            "2009-03-08T08:00Z",
            *ds("${coord:days(1)}", "2009-01-01T08:00Z", LA),
        )
        == "23"
    )
    assert (
        ok(
            "${coord:hoursInDay(0)}",
            "--nominal-time",
            "2009-11-01T08:00Z",
            *ds("${coord:days(1)}", "2009-01-01T08:00Z", LA),
        )
        == "25"
    )
    feb = ["--nominal-time", "2009-02-01T11:00Z", *ds("${coord:months(1)}", "2009-01-01T00:00Z")]
    assert ok("${coord:daysInMonth(0)} ${coord:daysInMonth(-1)} ${coord:daysInMonth(2)}", *feb) == (
        "28 31 30"
    )
    leap = ["--nominal-time", "2012-02-10T00:00Z", *ds("${coord:months(1)}", "2012-01-01T00:00Z")]
    assert ok("${coord:daysInMonth(0)}", *leap) == "29"
    assert ok("${coord:tzOffset()}", *OOZIE) == "0"
    ny = [a if a != LA or i != 5 else "America/New_York" for i, a in enumerate(OOZIE)]
    assert ok("${coord:tzOffset()}", *ny) == "-180"
    assert ok("${coord:hoursInDay(0) + coord:daysInMonth(0)}", *OOZIE) == "54"


def test_uri_template_prints_uris_with_variables() -> None:
    args = [
        *OOZIE,
        "--uri-template",
        "hdfs:///${feed}/${YEAR}/${MONTH}/${DAY}",
        "-D",
        "feed=clicks",
    ]
    assert ok("${coord:current(-1)}", *args) == "hdfs:///clicks/2009/09/08"
    assert ok("${coord:currentRange(-1, 0)}", *args) == (
        "hdfs:///clicks/2009/09/09,hdfs:///clicks/2009/09/08"
    )


def test_landing_defaults_to_the_homes_as_for_a_submission(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``${landing}`` in a template is ``<home>/landing`` unless ``-D`` gives it (README's
    example of a tidied template was refused: unresolved variable [landing])."""
    monkeypatch.setenv("BUNDLETUI_HOME", str(tmp_path / "home"))
    args = [*OOZIE, "--uri-template", "${landing}//clicks/${YEAR}/"]
    assert ok("${coord:current(0)}", *args) == f"{tmp_path}/home/landing/clicks/2009"
    assert ok("${coord:current(0)}", *args, "-D", "landing=/elsewhere") == "/elsewhere/clicks/2009"


# --------------------------------------------------------------------------- latest / future


def mkdirs(root: Path, *days: str, flag: str = "_SUCCESS") -> None:
    for d in days:
        (root / d).mkdir(parents=True, exist_ok=True)
        if flag:
            (root / d / flag).touch()


def test_latest_and_future_against_the_file_system(tmp_path: Path) -> None:
    uri = f"file://{tmp_path}/" + "${YEAR}/${MONTH}/${DAY}"
    args = [*OOZIE, "--uri-template", uri]
    assert ok("${coord:latest(0)}", *args) == "${coord:latest(0)}"  # nothing yet
    mkdirs(tmp_path, "2009/09/10")
    assert ok("${coord:latest(0)}", *args) == f"file://{tmp_path}/2009/09/10"
    mkdirs(tmp_path, "2009/09/09", "2009/09/08")
    assert ok("${coord:latest(-2)}", *args) == f"file://{tmp_path}/2009/09/08"
    assert ok("${coord:latest(-100)}", *args) == "${coord:latest(-100)}"
    # future walks forward from the nominal time's instance (2009-09-09 exists: future(0))
    assert ok("${coord:future(1, 20)}", *args) == f"file://{tmp_path}/2009/09/10"
    fresh = tmp_path / "future"
    args = [*OOZIE, "--uri-template", f"file://{fresh}/" + "${YEAR}/${MONTH}/${DAY}"]
    mkdirs(fresh, "2009/09/10", "2009/09/11")  # Oozie's testFuture
    assert ok("${coord:future(1, 20)}", *args) == f"file://{fresh}/2009/09/11"
    assert ok("${coord:future(4, 20)}", *args) == "${coord:future(4, 20)}"


def test_done_flag_option(tmp_path: Path) -> None:
    uri = f"{tmp_path}/" + "${YEAR}${MONTH}${DAY}"
    base = [
        "--nominal-time",
        "2009-01-05T00:00Z",
        *ds("1440", "2009-01-01T00:00Z"),
        "--uri-template",
        uri,
    ]
    mkdirs(tmp_path, "20090103", flag="")
    mkdirs(tmp_path, "20090102", flag="READY")
    assert ok("${coord:latest(0)}", *base) == "${coord:latest(0)}"  # default: _SUCCESS
    assert ok("${coord:latest(0)}", *base, "--done-flag", "") == f"{tmp_path}/20090103"
    assert ok("${coord:latest(0)}", *base, "--done-flag", "READY") == f"{tmp_path}/20090102"


def test_lazy_evaluator_vector(tmp_path: Path) -> None:
    """TestCoordELEvaluator.testCreateLazyEvaluator (instance URIs since --uri-template)."""
    uri = f"file://{tmp_path}/" + "${YEAR}/${MONTH}/${DAY}"
    args = [
        "--nominal-time",
        "2009-09-01T00:00Z",
        "--actual-time",
        "2009-09-01T01:00Z",
        *ds("1440", "2009-01-01T00:00Z"),
        "--uri-template",
        uri,
    ]
    mkdirs(tmp_path, "2009/01/02")
    assert ok("${coord:latest(0)} ${coord:latest(-1)}", *args) == (
        f"file://{tmp_path}/2009/01/02 ${{coord:latest(-1)}}"
    )
    mkdirs(tmp_path, "2009/09/04", "2009/09/05")
    assert ok("${coord:future(1, 30)}", *args) == f"file://{tmp_path}/2009/09/05"


# --------------------------------------------------------------------------- action functions


def test_action_and_date_functions() -> None:
    assert ok("${coord:nominalTime()} ${coord:actualTime()}", *OOZIE) == (
        "2009-09-09T23:59Z 2009-09-10T23:59Z"
    )
    assert ok('${coord:dateOffset("2009-09-08T23:59Z", 2, "DAY")}') == "2009-09-10T23:59Z"
    assert ok('${coord:dateOffset("2009-09-08T23:59Z", 1, "YEAR")}') == "2010-09-08T23:59Z"
    assert ok('${coord:dateTzOffset("2012-06-13T00:00Z", "America/Los_Angeles")}') == (
        "2012-06-12T17:00Z"
    )
    assert ok('${coord:formatTime("2009-09-08T23:59Z", "yyyyMMdd_HHmmss")}') == "20090908_235900"
    assert ok('${coord:epochTime("2009-09-08T23:59Z", "true")}') == "1252454340000"
    assert (
        ok(
            "${coord:formatTime(coord:dateOffset(coord:nominalTime(), -1, 'DAY'), 'yyyy/MM/dd')}",
            "--nominal-time",
            "2012-03-01T00:00Z",
        )
        == "2012/02/29"
    )


def test_variables_user_and_conf() -> None:
    assert ok("${coord:user()}", "-D", "user.name=test_user") == "test_user"
    assert (
        ok("${feed}-${coord:conf('feed')}-${coord:conf('a.b')}", "-D", "feed=clicks", "-D", "a.b=c")
        == "clicks-clicks-c"
    )
    assert ok("${coord:actionId()} ${coord:name()}").endswith("-C@1 eval")
    assert ok("${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", *OOZIE) == "2009/09/09/23/59"
    assert ok("${2 * HOURS} ${DAYS} ${10 * KB}") == "120 1440 10240"
    assert ok("${coord:days(2)} ${coord:hours(2)} ${coord:endOfDays(1)}") == "2 120 1"
    assert ok("plain text") == "plain text"
    assert ok('${concat("a", trim(" b "))}') == "ab"


def test_dataset_frequency_forms() -> None:
    for freq in ("60", "${coord:hours(1)}", "${coord:minutes(60)}"):
        assert (
            ok(
                "${coord:current(-1)}",
                "--nominal-time",
                "2009-01-01T05:30Z",
                *ds(freq, "2009-01-01T00:00Z"),
            )
            == "2009-01-01T04:00Z"
        )
    assert (
        ok(
            "${coord:current(-1)}",
            "--nominal-time",
            "2009-03-15T00:00Z",
            *ds("${coord:months(1)}", "2009-01-31T00:00Z"),
        )
        == "2009-01-31T00:00Z"
    )
    assert (
        ok(
            "${coord:current(0)}",
            "--nominal-time",
            "2009-03-15T00:00Z",
            *ds("${coord:endOfWeeks(1)}", "2009-01-01T00:00Z"),
        )
        == "2009-03-15T00:00Z"
    )


def test_json_output() -> None:
    code, out, _ = run("${coord:current(-1)}", *OOZIE, "--json")
    assert code == 0
    assert json.loads(out) == {"expression": "${coord:current(-1)}", "result": "2009-09-08T23:59Z"}


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["${coord:current("], "E1004", "syntax error"),
        (["${1 +}"], "E1004", ""),
        (["${nope}"], "E1004", "unresolved variable [nope]"),
        (["${coord:nope()}"], "E1004", "unknown function"),
        (["${coord:current(0)}"], "E1004", "needs a dataset"),
        (["${coord:latest(1)}", *OOZIE], "E1004", "latest:n"),
        (["${coord:future(0, 0)}", *OOZIE], "E1004", "future:instance"),
        (['${coord:offset(1, "blah")}', *OOZIE], "E1004", "blah"),
        (["${coord:current(99999999999)}", *OOZIE], "E1004", "failed: a number or a time out"),
        (
            ["x", *ds("60", "2009-01-01T00:00Z", "UTC", "--uri-template", "/d/${wf:id()}")],
            "E1004",
            "No function is mapped to the name [wf:id] in --uri-template",
        ),
        (
            ["x", *ds("60", "2009-01-01T00:00Z", "UTC", "--done-flag", "${YEAR}")],
            "E1004",
            "${YEAR} is not replaced in --done-flag",
        ),
        (["${coord:current(2147483647)}", *OOZIE], "E1004", "failed: a number or a time out"),
        (['${coord:absolute("2009-09-05T00:00Z")}', *OOZIE], "E1010", "not in phase"),
        (['${coord:formatTime("2009-09-08", "yyyy")}'], "E1004", "2009-09-08"),
        (['${coord:formatTime("2009-09-08T23:59Z", "yyyyTHH")}'], "E1004", "Illegal pattern"),
        (["x", "--nominal-time", "2009-02-30T00:00Z"], "E0302", "--nominal-time"),
        (["x", "--actual-time", "yesterday"], "E0302", "--actual-time"),
        (["x", "--timezone", "Mars/Olympus"], "E1003", "Invalid TimeZone"),
        (["x", "--dataset-frequency", "60"], "E1003", "--dataset-initial-instance"),
        (["x", *ds("0 * * * *", "2009-01-01T00:00Z")], "E1003", "[0 * * * *]"),
        (["x", *ds("-5", "2009-01-01T00:00Z")], "E1003", "frequency"),
        (["x", *ds("${coord:days(0)}", "2009-01-01T00:00Z")], "E1004", "greater than 0"),
    ],
)
def test_errors(args: list[str], code: str, needle: str) -> None:
    got, line = fails(*args)
    assert got == code, line
    assert needle in line


# --------------------------------------------------------------------------- the real binary


def test_real_binary() -> None:
    done = bundletui("eval", "${coord:current(0)} ${coord:current(-1)}", *OOZIE)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2009-09-09T23:59Z 2009-09-08T23:59Z\n"
    bad = bundletui("eval", "${coord:current(0")
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert bad.stderr.startswith("Error: E1004: ")
    assert "Traceback" not in bad.stderr
    empty = bundletui("eval", '${coord:offset(-10, "DAY")}', *OOZIE)
    assert (empty.returncode, empty.stdout) == (0, "\n")


def test_landing_is_under_the_home_given(tmp_path: Path) -> None:
    """QA (ab): eval had no --home (only BUNDLETUI_HOME), though README defines ${landing}
    through the home; it creates nothing there."""
    done = bundletui("eval", "${landing}", "--home", str(tmp_path / "h"))
    assert done.returncode == 0 and done.stdout == f"{tmp_path / 'h' / 'landing'}\n", done
    assert not (tmp_path / "h").exists()
