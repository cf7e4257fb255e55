"""QA5: a configuration file named .xml that is not XML (``--config bad.xml`` holding
``hello``) was told "this is not XML: a job.properties goes with --config", the user having
used --config already. The hint now says what is wrong with it, where, and how a Hadoop
configuration (or a job.properties) is written; every command reads it with one loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.clock import SimulatedClock
from bundletui.model.timeutil import parse_oozie_time
from bundletui.spec.config import read_hadoop_xml_file
from bundletui.spec.load import load_job
from tests.cli import bundletui

SHAPE = "<configuration><property><name>…</name><value>…</value></property>…</configuration>"
OLD = "a job.properties goes with --config"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    (tmp_path / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="d">'
        '<job name="a"><shell><exec>true</exec></shell></job></dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text("oozie.wf.application.path=workflow.xml\n")
    (tmp_path / "bad.xml").write_text("hello\n")
    return tmp_path


def said_of_bad_xml(stderr: str, bad: Path) -> None:
    assert f"E0701: {bad}:1: " in stderr, stderr  # the file and its line
    assert "malformed XML: Start tag expected" in stderr, stderr
    hint = f"hint: {bad} is read as a Hadoop configuration, its name ending in .xml, and it is"
    assert hint + f" not XML: write {SHAPE} into it, or key=value lines into a job.properties" in (
        stderr
    ), stderr
    assert OLD not in stderr, stderr


def test_rerun_with_a_config_that_is_not_xml(app: Path) -> None:
    home = app / "home"
    wf = bundletui("submit", str(app / "job.properties"), home=home).stdout.strip()
    assert wf.endswith("-W"), wf
    r = bundletui("rerun", wf, "--config", str(app / "bad.xml"), home=home)
    assert r.returncode != 0, r
    said_of_bad_xml(r.stderr, app / "bad.xml")


def test_submit_and_validate_say_the_same(app: Path) -> None:
    home = app / "home"
    r = bundletui("submit", str(app / "bad.xml"), home=home)
    assert r.returncode != 0, r
    said_of_bad_xml(r.stderr, app / "bad.xml")
    r = bundletui("validate", str(app / "workflow.xml"), "--config", str(app / "bad.xml"))
    assert r.returncode != 0, r
    said_of_bad_xml(r.stderr, app / "bad.xml")


def test_the_consoles_loader_says_it_too(app: Path) -> None:
    """The console's ``:submit`` loads its file with :func:`load_job`, as submit does."""
    clock = SimulatedClock(parse_oozie_time("2026-01-01T00:00Z"))
    with pytest.raises(SpecError) as info:
        load_job(app / "bad.xml", [], clock, user="alice")
    err = info.value
    assert (err.code, err.file, err.line) == ("E0701", str(app / "bad.xml"), 1), err
    assert err.hint is not None and err.hint.startswith(f"{app / 'bad.xml'} is read as a Hadoop")
    assert OLD not in err.hint


def test_a_broken_or_empty_configuration_is_told_how_one_is_written(app: Path) -> None:
    broken = app / "broken.xml"
    broken.write_text("<configuration>\n<property><name>a</name>\n</configuration>\n")
    r = bundletui("submit", str(broken), home=app / "home")
    assert f"E0701: {broken}:3: " in r.stderr, r.stderr
    assert "hint: fix the XML syntax at that place (unclosed or mismatched tag, stray '&' or" in (
        r.stderr
    )
    assert f"a Hadoop configuration is {SHAPE}" in r.stderr, r.stderr
    empty = app / "empty.xml"
    empty.write_text("")
    r = bundletui("submit", str(empty), home=app / "home")
    assert "hint: the file is empty: write a Hadoop configuration into it" in r.stderr, r.stderr
    assert "the application's XML" not in r.stderr, r.stderr


def test_a_job_xml_is_not_offered_a_job_properties(app: Path) -> None:
    """A workflow's ``<job-xml>`` is XML or nothing: its hint has no job.properties."""
    with pytest.raises(SpecError) as info:
        read_hadoop_xml_file(app / "bad.xml")
    hint = info.value.hint or ""
    assert hint.endswith(f"it is not XML: write {SHAPE} into it"), hint


def test_an_application_file_that_is_not_xml_still_points_to_config(app: Path) -> None:
    """``validate job.properties``: there the old hint is the right one."""
    r = bundletui("validate", str(app / "job.properties"))
    assert f"hint: this is not XML: {OLD}" in r.stderr, r.stderr


def test_a_negative_retry_max_is_said_to_be_a_count(tmp_path: Path) -> None:
    """QA: its hint said "a count / minutes"; minutes are retry-interval's."""
    for attr, unit in (("retry-max", "a count"), ("retry-interval", "minutes")):
        wf = tmp_path / f"{attr}.xml"
        wf.write_text(
            '<dag-app xmlns="uri:bundletui:dag:1.0" name="r">'
            f'<job name="c" {attr}="-1"><shell><exec>true</exec></shell></job></dag-app>'
        )
        r = bundletui("validate", str(wf))
        assert r.returncode == 1 and f"hint: {attr} is {unit}, 0 or more\n" in r.stderr, r
