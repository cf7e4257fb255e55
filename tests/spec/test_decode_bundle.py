"""bundle.xml -> BundleApp."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.model.apps import BundleApp
from bundletui.spec import xmlsafe
from bundletui.spec.config import apply_parameters, read_parameters
from bundletui.spec.decode_bundle import decode_bundle
from tests.spec.simple_resolver import SimpleResolver

FIX = Path(__file__).parent / "fixtures"
BAD = FIX / "bad"


def decode(path: Path, conf: dict[str, str]) -> BundleApp:
    doc = xmlsafe.load_document(path)
    merged = apply_parameters(read_parameters(doc), conf, file=doc.file)
    return decode_bundle(doc, SimpleResolver(merged))


def test_bundle_0_1() -> None:
    app = decode(
        FIX / "bundle-0.1.xml",
        {"kickOff": "2009-02-01T00:00Z", "appBase": "/apps", "dataRoot": "file:///data"},
    )
    assert app.name == "feeds"
    assert app.namespace == "uri:oozie:bundle:0.1"
    assert app.source == str(FIX / "bundle-0.1.xml")
    assert app.kickoff_time == datetime(2009, 2, 1, tzinfo=UTC)
    first, second = app.coordinators
    assert (first.name, first.app_path, first.critical, first.enabled) == (
        "hourly-clicks",
        "/apps/clicks",
        True,
        True,
    )
    assert first.configuration == (("input", "file:///data/clicks"),)  # resolved at submit
    assert (second.name, second.app_path, second.critical) == (
        "daily_rollup",
        "rollup/coordinator.xml",
        False,
    )
    assert app.parameters == () and app.required_parameters == ()


def test_bundle_0_2_parameters_enabled_critical() -> None:
    app = decode(FIX / "bundle-0.2.xml", {"region": "eu", "reportOn": "False", "owner": "ops"})
    assert app.name == "nightly"  # <parameters> default
    assert app.kickoff_time is None
    assert app.parameters == (("bundleName", "nightly"),)
    assert app.required_parameters == ("region",)
    ingest, report, spare = app.coordinators
    assert ingest.name == "ingest-eu" and ingest.critical is True  # "TRUE": parseBoolean
    assert ingest.app_path == "file:///apps/ingest"
    assert report.enabled is False  # EL-resolved "False"
    assert report.configuration == (("owner", "ops"),)
    assert (
        spare.enabled is False
    )  # "FALSE": true/false in any case ("yes" is E1303, test_spec_gaps.py)


def test_required_bundle_parameter_missing() -> None:
    with pytest.raises(SpecError) as info:
        decode(FIX / "bundle-0.2.xml", {"reportOn": "true", "owner": "x"})
    assert info.value.code == "E0738"
    assert "1 parameters" in info.value.message and "region" in info.value.message


def test_duplicate_coordinator_names_after_el() -> None:
    with pytest.raises(SpecError) as info:
        decode(BAD / "bundle-duplicate-names.xml", {"dup": "clicks"})
    err = info.value
    assert err.code == "E1304"
    assert err.message == "Duplicate bundle application coordinator name [clicks]"
    assert err.line == 5
    assert err.file == str(BAD / "bundle-duplicate-names.xml")
    assert "line 2" in (err.hint or "")
    assert decode(BAD / "bundle-duplicate-names.xml", {"dup": "views"}).coordinators[1].name == (
        "views"
    )


def test_empty_coordinator_name() -> None:
    with pytest.raises(SpecError) as info:
        decode(BAD / "bundle-empty-name.xml", {"nothing": " "})
    assert info.value.code == "E1305"
    assert info.value.message == "Empty bundle application coordinator name."
    assert info.value.line == 2


def test_unresolved_variable_names_its_place() -> None:
    with pytest.raises(SpecError) as info:
        decode(FIX / "bundle-0.1.xml", {"appBase": "/a", "dataRoot": "/d"})
    assert info.value.code == "E1004"
    assert "kickOff" in info.value.message
    assert info.value.line == 3


def test_wrong_kind_is_refused() -> None:
    doc = xmlsafe.load_document(FIX / "coord-0.2.xml")
    with pytest.raises(SpecError) as info:
        decode_bundle(doc, SimpleResolver())
    assert "expected a bundle application" in info.value.message


CRITICAL = """<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">
  <coordinator name="hourly"
      critical="{critical}">
    <app-path>/apps/hourly</app-path>
  </coordinator>
</bundle-app>
"""


@pytest.mark.parametrize("value", ["maybe", "ture", "yes", "1", "", "${flag}", "${coord:user()}"])
def test_critical_is_true_or_false_and_nothing_else(tmp_path: Path, value: str) -> None:
    """Boolean.parseBoolean would make a typo non-critical without a word: refused instead."""
    path = tmp_path / "bundle.xml"
    path.write_text(CRITICAL.format(critical=value))
    with pytest.raises(SpecError) as info:
        decode(path, {"flag": " on "})
    err = info.value
    shown = {"${flag}": "on", "${coord:user()}": "${coord:user()}"}.get(value, value)
    assert (err.code, err.file, err.line) == ("E1303", str(path), 2)
    assert err.message == (
        f"Invalid bundle application attributes [critical], critical [{shown}] of coordinator "
        "[hourly] is neither true nor false"
    )
    assert (err.hint or "").startswith("critical must be true or false")


@pytest.mark.parametrize(
    ("value", "critical"),
    [("true", True), (" TRUE ", True), ("False", False), ("${flag}", True), ("\tfalse\n", False)],
)
def test_critical_true_or_false_in_any_case(tmp_path: Path, value: str, critical: bool) -> None:
    path = tmp_path / "bundle.xml"
    path.write_text(CRITICAL.format(critical=value))
    assert decode(path, {"flag": " True"}).coordinators[0].critical is critical
