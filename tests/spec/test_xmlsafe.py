"""Safe parsing and XSD validation of application files (real fixture files)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.spec import xmlsafe
from bundletui.spec.xmlsafe import AppKind

FIX = Path(__file__).parent / "fixtures"
BAD = FIX / "bad"

GOOD = {
    "bundle-0.1.xml": ("uri:oozie:bundle:0.1", AppKind.BUNDLE),
    "bundle-0.2.xml": ("uri:oozie:bundle:0.2", AppKind.BUNDLE),
    "coord-0.1.xml": ("uri:oozie:coordinator:0.1", AppKind.COORDINATOR),
    "coord-0.2.xml": ("uri:oozie:coordinator:0.2", AppKind.COORDINATOR),
    "coord-0.3.xml": ("uri:oozie:coordinator:0.3", AppKind.COORDINATOR),
    "coord-0.4.xml": ("uri:oozie:coordinator:0.4", AppKind.COORDINATOR),
    "coord-0.5.xml": ("uri:oozie:coordinator:0.5", AppKind.COORDINATOR),
    "datasets-shared.xml": ("uri:oozie:coordinator:0.4", AppKind.COORDINATOR),
    "workflow-0.5.xml": ("uri:oozie:workflow:0.5", AppKind.WORKFLOW),
    "workflow-1.0.xml": ("uri:oozie:workflow:1.0", AppKind.WORKFLOW),
    "dag.xml": ("uri:bundletui:dag:1.0", AppKind.WORKFLOW),
}


def load_error(path: Path | str, data: bytes | None = None, **kw: object) -> SpecError:
    with pytest.raises(SpecError) as info:
        xmlsafe.load_document(path, data=data, **kw)  # type: ignore[arg-type]
    return info.value


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_every_fixture_validates_against_its_namespace(name: str) -> None:
    doc = xmlsafe.load_document(FIX / name)
    assert (doc.namespace, doc.kind) == GOOD[name]
    assert doc.file == str(FIX / name)


def test_every_registered_schema_builds_without_network(no_network: None) -> None:
    for ns in xmlsafe.supported_namespaces():
        spec = xmlsafe.schema_for(ns)
        assert spec is not None
        xmlsafe.register_schema(spec)  # drops the cached schema: rebuilt from local files
        assert xmlsafe._schema(spec) is xmlsafe._schema(spec)  # built once, then cached


def test_location_hints_in_documents_are_ignored(no_network: None) -> None:
    data = (
        (FIX / "coord-0.2.xml")
        .read_bytes()
        .replace(
            b'xmlns="uri:oozie:coordinator:0.2"',
            b'xmlns="uri:oozie:coordinator:0.2" '
            b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            b'xsi:schemaLocation="uri:oozie:coordinator:0.2 http://example.invalid/evil.xsd"',
        )
    )
    doc = xmlsafe.load_document("hinted.xml", data=data)
    assert doc.version == "0.2"


def test_malformed_xml_names_line_and_column() -> None:
    err = load_error(BAD / "malformed.xml")
    assert err.code == "E0701"
    assert err.line == 6
    assert err.message.startswith(f"XML schema error, {BAD / 'malformed.xml'}, malformed XML")
    assert "line 6, column" in err.message
    assert err.hint


def test_wrong_namespace_lists_supported_ones() -> None:
    err = load_error(BAD / "wrong-namespace.xml")
    assert err.code == "E0701"
    assert "uri:oozie:coordinator:0.9" in err.message
    for ns in ("uri:oozie:coordinator:0.5", "uri:oozie:bundle:0.2", "uri:bundletui:dag:1.0"):
        assert ns in err.message


def test_missing_namespace_is_reported() -> None:
    err = load_error("plain.xml", b"<coordinator-app name='x'/>")
    assert err.code == "E0701"
    assert "no namespace" in err.message


def test_xxe_entity_is_refused_and_never_read() -> None:
    err = load_error(BAD / "xxe.xml")
    assert err.code == "E0701"
    assert "DOCTYPE declares entities" in err.message
    assert "root:" not in err.describe()  # nothing of /etc/passwd leaks into the message


def test_billion_laughs_is_refused_quickly() -> None:
    started = time.perf_counter()
    err = load_error(BAD / "billion-laughs.xml")
    assert time.perf_counter() - started < 1.0
    assert err.code == "E0701"
    assert "entity declarations are not allowed" in err.message


def test_entities_are_refused_in_any_encoding() -> None:
    xml = (BAD / "xxe.xml").read_text().replace('encoding="UTF-8"', 'encoding="UTF-16"')
    err = load_error("utf16.xml", xml.encode("utf-16"))
    assert err.code == "E0701"
    assert "entities" in err.message


def test_an_entity_is_refused_at_its_own_line() -> None:
    """The error named line 1 wherever the DOCTYPE was; it names the line of the <!ENTITY>
    (in any encoding), or of the reference to an external DTD's entity, and never reads it."""
    err = load_error(BAD / "xxe.xml")
    assert (err.line, err.file) == (3, str(BAD / "xxe.xml"))
    assert "DOCTYPE declares entities (secret)" in err.message
    assert load_error(BAD / "billion-laughs.xml").line == 3
    moved = (
        b"<?xml version='1.0'?>\n<!-- a comment -->\n\n"
        + (BAD / "xxe.xml").read_bytes().split(b"?>", 1)[1]
    )
    assert load_error("moved.xml", moved).line == 6
    utf16 = (BAD / "xxe.xml").read_text().replace('encoding="UTF-8"', 'encoding="UTF-16"')
    assert load_error("utf16.xml", utf16.encode("utf-16")).line == 3
    external = (
        b'<?xml version="1.0"?>\n<!DOCTYPE bundle-app SYSTEM "http://example.com/b.dtd">\n'
        b'<bundle-app name="b" xmlns="uri:oozie:bundle:0.2">\n'
        b"  <coordinator name='c'><app-path>&secret;</app-path></coordinator>\n</bundle-app>\n"
    )
    err = load_error("external.xml", external)
    assert (err.code, err.line) == ("E0701", 4)
    assert "&secret; refers to an entity of an external DTD" in err.message


def test_doctype_without_entities_is_accepted() -> None:
    data = b"<!DOCTYPE bundle-app>\n" + (FIX / "bundle-0.2.xml").read_bytes().split(b"?>", 1)[1]
    assert xmlsafe.load_document("doctype.xml", data=data).kind is AppKind.BUNDLE


def test_schema_violation_reports_the_offending_line() -> None:
    err = load_error(BAD / "coord-schema-error.xml")
    assert err.code == "E0701"
    assert err.line == 9  # the <done-flags> element, not its parent
    assert "done-flags" in err.message
    assert err.message.startswith(f"XML schema error, {BAD / 'coord-schema-error.xml'}, ")
    assert "coordinator-0.2.xsd" in (err.hint or "")
    assert str(err).startswith(f"E0701: {BAD / 'coord-schema-error.xml'}:9: ")


def test_missing_required_attribute_and_bad_identifier() -> None:
    data = b"""<workflow-app xmlns="uri:oozie:workflow:1.0" name="w">
  <start to="a"/>
  <action name="9lives">
    <fs/>
    <ok to="e"/><error to="e"/>
  </action>
  <end name="e"/>
</workflow-app>"""
    err = load_error("w.xml", data)
    assert err.line == 3
    assert "9lives" in err.message
    fixed = data.replace(b"9lives", b"lives9")
    assert xmlsafe.load_document("w.xml", data=fixed).kind is AppKind.WORKFLOW
    err = load_error("w.xml", fixed.replace(b'<end name="e"/>', b"<end/>"))
    assert err.line == 7
    assert "missing required attribute 'name'" in err.message


def test_version_specific_content() -> None:
    # throttle appeared in coordinator 0.2; retry-policy in workflow 1.0
    coord01 = (FIX / "coord-0.1.xml").read_bytes()
    err = load_error(
        "c.xml", coord01.replace(b"</execution>", b"</execution><throttle>3</throttle>")
    )
    assert "throttle" in err.message
    wf = (FIX / "workflow-1.0.xml").read_bytes()
    wf05 = wf.replace(b"uri:oozie:workflow:1.0", b"uri:oozie:workflow:0.5").replace(
        b"<resource-manager>${resourceManager}</resource-manager>", b""
    )
    err = load_error("w.xml", wf05)
    assert "retry-policy" in err.message


def test_kind_filter_and_root_element() -> None:
    err = load_error(FIX / "coord-0.4.xml", kinds=[AppKind.BUNDLE])
    assert "uri:oozie:bundle:0.1" in err.message and "coordinator:0.4" in err.message
    err = load_error("x.xml", b'<bundle-app xmlns="uri:oozie:coordinator:0.5" name="x"/>')
    assert "expected <coordinator-app> or <datasets>" in err.message


def test_missing_file_is_an_io_error(tmp_path: Path) -> None:
    err = load_error(tmp_path / "nope.xml")
    assert err.code == "E0702"
    assert "nope.xml" in err.message


def test_the_schema_is_built_once_per_namespace() -> None:
    """Building an XSD costs ~100x a validation: later documents reuse the first one's
    (the cost per document is a benchmark's business: bench/bench_herd.py, bench_dryrun.py)."""
    data = (FIX / "coord-0.4.xml").read_bytes()
    doc = xmlsafe.load_document("c.xml", data=data)
    built = xmlsafe._SCHEMAS[doc.namespace]
    for _ in range(3):
        xmlsafe.load_document("c.xml", data=data)
    assert xmlsafe._SCHEMAS[doc.namespace] is built


def test_lines_point_at_where_a_multi_line_start_tag_begins() -> None:
    data = b"""<coordinator-app name="c"
    frequency="60" start="2009-01-01T00:00Z"
    timezone="UTC" xmlns="uri:oozie:coordinator:0.4">
  <action>
    <workflow
        ><app-path>/x</app-path></workflow>
  </action>
</coordinator-app>"""
    err = load_error("c.xml", data)
    assert "'end'" in err.message
    assert err.line == 1
    fixed = data.replace(b'timezone="UTC"', b'end="2009-01-02T00:00Z" timezone="UTC"')
    root = xmlsafe.load_document("c.xml", data=fixed).root
    assert root.sourceline == 1
    workflow = xmlsafe.child(xmlsafe.child(root, "action"), "workflow")
    assert workflow is not None and workflow.sourceline == 5


def test_a_file_it_may_not_read_says_what_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA (ac): "Permission denied" came with no hint. (The tests run as root, which reads
    any file, so the OS's refusal is the boundary faked here.)"""
    f = tmp_path / "workflow.xml"
    f.write_text("<x/>")

    def refuse(*_a: object, **_k: object) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(xmlsafe, "open", refuse, raising=False)
    with pytest.raises(SpecError) as info:
        xmlsafe.read_bytes(f)
    assert info.value.code == "E0702" and "Permission denied" in info.value.message
    assert "needs read permission on the file" in (info.value.hint or "")
