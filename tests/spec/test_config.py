"""Job configuration: .properties (Java rules), Hadoop XML, -D, app paths, <parameters>."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundletui.errors import SpecError
from bundletui.spec import config, xmlsafe
from bundletui.spec.config import (
    FormalParameter,
    apply_parameters,
    expand_conf,
    expand_variables,
    load_job_config,
    parse_overrides,
    parse_properties,
    read_parameters,
    resolve_app_path,
)
from bundletui.spec.xmlsafe import AppKind

FIX = Path(__file__).parent / "fixtures"


# --------------------------------------------------------------------------- .properties


def test_properties_separators_and_whitespace() -> None:
    props = parse_properties(
        "a=1\n"
        "b = 2\n"
        "c:3\n"
        "d : 4\n"
        "e 5\n"
        "f\t\t6\n"
        "g  =  seven  \n"
        "h\n"
        "i=\n"
        "j = = x\n"
        "k : : y\n"
        "  indented=yes\n"
    )
    assert props == {
        "a": "1",
        "b": "2",
        "c": "3",
        "d": "4",
        "e": "5",
        "f": "6",
        "g": "seven  ",  # trailing whitespace belongs to the value
        "h": "",
        "i": "",
        "j": "= x",
        "k": ": y",
        "indented": "yes",
    }


def test_properties_comments_and_blank_lines() -> None:
    text = (
        "# comment = no\n! also comment\n   # indented comment\n\n   \nkey=value # not a comment\n"
    )
    assert parse_properties(text) == {"key": "value # not a comment"}


def test_properties_continuation_lines() -> None:
    text = (
        "fruits = apple, banana, \\\n"
        "         pear, \\\n"
        "         cherry\n"
        "even = ends with two \\\\\n"
        "next = 1\n"
        "# a comment \\\n"
        "after = comment lines do not continue\n"
        "crlf = a\\\r\n  b\r\n"
        "cr = c\\\r  d\r"
    )
    props = parse_properties(text)
    assert props["fruits"] == "apple, banana, pear, cherry"
    assert props["even"] == "ends with two \\"
    assert props["next"] == "1"
    assert props["after"] == "comment lines do not continue"
    assert props["crlf"] == "ab"
    assert props["cr"] == "cd"


def test_properties_escapes_and_unicode() -> None:
    text = (
        "key\\ with\\ spaces = v\n"
        "colon\\:key = w\n"
        "eq\\=key = x\n"
        "tabs = a\\tb\\nc\\rd\\fe\n"
        "uni = caf\\u00e9 \\u20AC\n"
        "pair = \\uD83D\\uDE00\n"
        "other = \\q\\\\\n"
        "raw = café\n"
    )
    props = parse_properties(text)
    assert props["key with spaces"] == "v"
    assert props["colon:key"] == "w"
    assert props["eq=key"] == "x"
    assert props["tabs"] == "a\tb\nc\rd\fe"
    assert props["uni"] == "café €"
    assert props["pair"] == "😀"
    assert props["other"] == "q\\"
    assert props["raw"] == "café"


def test_properties_later_duplicates_win_in_first_position() -> None:
    props = parse_properties("a=1\nb=2\na=3\n")
    assert list(props.items()) == [("a", "3"), ("b", "2")]


def test_properties_trailing_backslash_at_end_of_file() -> None:
    assert parse_properties("a = x\\") == {"a": "x"}


def test_malformed_unicode_escape_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "job.properties"
    f.write_text("ok=1\nbad=\\u12G4\n")
    with pytest.raises(SpecError) as info:
        config.read_conf_file(f)
    assert info.value.code == config.PROPERTIES_SYNTAX
    assert info.value.line == 2
    assert info.value.file == str(f)


def test_latin1_properties_file(tmp_path: Path) -> None:
    f = tmp_path / "job.properties"
    f.write_bytes("name=caf\xe9\n".encode("latin-1"))
    assert config.read_conf_file(f) == {"name": "café"}


# --------------------------------------------------------------------------- Hadoop XML


def test_hadoop_xml_configuration(tmp_path: Path) -> None:
    f = tmp_path / "job.xml"
    f.write_text(
        """<?xml version="1.0"?>
<!-- submission configuration -->
<configuration>
  <property>
    <name> user.name </name>
    <value>alice</value>
    <description>who</description>
  </property>
  <property><name>empty</name><value></value></property>
  <property><name>novalue</name></property>
  <property><name>spaced</name><value>  keep  </value><final>true</final></property>
</configuration>
"""
    )
    conf = config.read_conf_file(f)
    # an empty or missing <value> sets nothing, as in Hadoop's Configuration (QA (ac): an
    # empty outDir passed the required-parameter check and fs actions wrote under /)
    assert conf == {"user.name": "alice", "spaced": "  keep  "}


def test_hadoop_xml_wrong_root_and_missing_name(tmp_path: Path) -> None:
    f = tmp_path / "job.xml"
    f.write_text("<properties><property><name>a</name></property></properties>")
    with pytest.raises(SpecError) as info:
        config.read_conf_file(f)
    assert "<configuration>" in info.value.message
    f.write_text("<configuration>\n<property><value>1</value></property>\n</configuration>")
    with pytest.raises(SpecError) as info:
        config.read_conf_file(f)
    assert info.value.line == 2


def test_hadoop_xml_is_parsed_safely(tmp_path: Path) -> None:
    f = tmp_path / "job.xml"
    f.write_text(
        '<!DOCTYPE configuration [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        "<configuration><property><name>a</name><value>&x;</value></property></configuration>"
    )
    with pytest.raises(SpecError) as info:
        config.read_conf_file(f)
    assert info.value.code == "E0701"
    assert "entit" in info.value.message


# --------------------------------------------------------------------------- -D and ${var}


def test_overrides() -> None:
    assert parse_overrides(["a=1", "b==2", "c=", " d =x y"]) == {
        "a": "1",
        "b": "=2",
        "c": "",
        "d": "x y",
    }
    for bad in ("novalue", "=1"):
        with pytest.raises(SpecError) as info:
            parse_overrides([bad])
        assert info.value.code == "E0302"


def test_expand_variables_follows_hadoop() -> None:
    conf = {"nn": "file:///data", "base": "${nn}/apps", "self": "${self}x"}
    assert expand_variables("${base}/coord", conf) == "file:///data/apps/coord"
    # stops at the first unknown name; EL stays as written
    assert expand_variables("${nope}/${nn}", conf) == "${nope}/${nn}"
    assert expand_variables("${coord:current(0)}", conf) == "${coord:current(0)}"
    with pytest.raises(SpecError):
        expand_variables("${self}", conf)


def test_a_huge_value_is_quoted_by_its_start_and_length() -> None:
    """QA: a value of ~10 MB going round 20 references was printed whole on stderr."""
    conf = {"a": "${b}" + "x" * 1_000_000, "b": "${a}"}
    with pytest.raises(SpecError) as info:
        expand_conf(conf)
    message = info.value.message
    assert len(message) < 1_000 and "characters)" in message, message[:300]


def test_a_cycle_names_its_properties_and_where_the_file_defines_them(tmp_path: Path) -> None:
    props = tmp_path / "job.properties"
    props.write_text("# a comment\nx=1\na=${b}/\\\n  more\nb=${a}\n")
    conf = config.read_conf_file(props)
    with pytest.raises(SpecError) as info:
        expand_conf(conf, source=str(props))
    err = info.value
    assert (err.code, err.file, err.line) == ("E0302", str(props), 3)
    assert err.message == (
        "Variable substitution depth too large: 20 ${b}/more (properties a, b refer to each "
        "other: ${a} -> ${b} -> ${a})"
    )
    assert err.hint == "give one of a, b a value that does not refer back to it"
    # a value given with -D is not in the file: no line of the file is named for it
    with pytest.raises(SpecError) as info:
        expand_conf({**conf, "a": "1", "x": "${x}"}, source=str(props))
    assert (info.value.file, info.value.line) == (None, None)
    assert info.value.message.endswith("(property [x] refers to itself: ${x}) (given with -D)")
    with pytest.raises(SpecError) as info:  # no file at all (-D only)
        expand_conf({"a": "${a}"})
    assert (info.value.file, info.value.line) == (None, None)


# --------------------------------------------------------------------------- app path


@pytest.fixture
def apps(tmp_path: Path) -> Path:
    (tmp_path / "apps" / "coord").mkdir(parents=True)
    (tmp_path / "apps" / "coord" / "coordinator.xml").write_text("<x/>")
    (tmp_path / "apps" / "b.xml").write_text("<x/>")
    (tmp_path / "apps" / "empty").mkdir()
    return tmp_path


def test_app_path_forms(apps: Path) -> None:
    coord = apps / "apps" / "coord" / "coordinator.xml"
    for value in (
        str(apps / "apps" / "coord"),
        str(coord),
        f"file://{apps}/apps/coord",
        f"file:{apps}/apps/coord/coordinator.xml",
        f"file://localhost{apps}/apps/coord/",
        "apps/coord",
        "./apps/../apps/coord/coordinator.xml",
    ):
        assert resolve_app_path(value, AppKind.COORDINATOR, apps) == coord, value
    assert resolve_app_path("apps/b.xml", AppKind.BUNDLE, apps) == apps / "apps" / "b.xml"


def test_app_path_errors(apps: Path) -> None:
    cases = [
        ("hdfs://nn:8020/apps/coord", AppKind.COORDINATOR, "E1002", "scheme 'hdfs'"),
        ("file://otherhost/apps", AppKind.WORKFLOW, "E0711", "otherhost"),
        ("apps/missing", AppKind.BUNDLE, "E1301", "does not exist"),
        ("apps/empty", AppKind.WORKFLOW, "E0710", "holds no workflow.xml"),
        ("  ", AppKind.COORDINATOR, "E1002", "empty"),
    ]
    for value, kind, code, text in cases:
        with pytest.raises(SpecError) as info:
            resolve_app_path(value, kind, apps)
        assert info.value.code == code, value
        assert text in info.value.message, value
        assert info.value.hint


def test_load_job_config_properties(apps: Path) -> None:
    props = apps / "job.properties"
    props.write_text(
        "nameNode=file://\n"
        "appBase=${nameNode}" + str(apps) + "/apps\n"
        "oozie.coord.application.path=${appBase}/coord\n"
        "user.name=alice\n"
    )
    job = load_job_config(props, ["user.name=bob", "extra=1"])
    assert job.kind is AppKind.COORDINATOR
    assert job.app_path == apps / "apps" / "coord" / "coordinator.xml"
    assert job.app_property == "oozie.coord.application.path"
    assert job.source == str(props)
    assert list(job.conf) == [
        "nameNode",
        "appBase",
        "oozie.coord.application.path",
        "user.name",
        "extra",
    ]
    assert job.conf["user.name"] == "bob"
    assert job.conf["oozie.coord.application.path"] == "${appBase}/coord"  # kept as written
    with pytest.raises(TypeError):
        job.conf["x"] = "y"  # type: ignore[index]


def test_load_job_config_relative_to_config_dir(
    apps: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    props = apps / "apps" / "job.properties"
    props.write_text("oozie.application.bundle.path=b.xml\n")
    monkeypatch.chdir("/")
    job = load_job_config(props)
    assert job.kind is AppKind.BUNDLE
    assert job.app_path == apps / "apps" / "b.xml"


def test_load_job_config_xml_and_overrides_only(
    apps: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xml = apps / "job.xml"
    xml.write_text(
        "<configuration><property><name>oozie.bundle.application.path</name>"
        "<value>apps/b.xml</value></property></configuration>"
    )
    assert load_job_config(xml).app_path == apps / "apps" / "b.xml"
    monkeypatch.chdir(apps)
    job = load_job_config(None, {"oozie.coord.application.path": "apps/coord"})
    assert job.kind is AppKind.COORDINATOR and job.source == ""


def test_exactly_one_app_path(apps: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_job_config(None, ["user.name=x"], base_dir=apps)
    assert info.value.code == "E0405"  # Oozie's code for a submission without an app path
    assert "oozie.wf.application.path" in (info.value.hint or "")
    with pytest.raises(SpecError) as info:
        load_job_config(
            None,
            ["oozie.coord.application.path=apps/coord", "oozie.bundle.application.path=apps/b.xml"],
            base_dir=apps,
        )
    assert info.value.code == "E0302"
    assert "oozie.bundle.application.path, oozie.coord.application.path" in info.value.message
    # the seed's spelling and Oozie's may both be present when they agree
    job = load_job_config(
        None,
        ["oozie.bundle.application.path=apps/b.xml", "oozie.application.bundle.path=apps/b.xml"],
        base_dir=apps,
    )
    assert job.app_property == "oozie.bundle.application.path"


# --------------------------------------------------------------------------- <parameters>


def test_read_and_apply_parameters() -> None:
    doc = xmlsafe.load_document(FIX / "coord-0.4.xml")
    params = read_parameters(doc)
    assert [(p.name, p.default) for p in params] == [
        ("appName", "clicks"),
        ("freq", "60"),
        ("start", None),
    ]
    assert params[0].line == 4
    merged = apply_parameters(params, {"start": "2009-01-01T00:00Z", "freq": "120"})
    assert merged == {"start": "2009-01-01T00:00Z", "freq": "120", "appName": "clicks"}


def test_missing_required_parameters_is_e0738() -> None:
    params = [
        FormalParameter("a", None, 4),
        FormalParameter("b", "1", 5),
        FormalParameter("c", None, 6),
        FormalParameter("d", "", 7),
    ]
    with pytest.raises(SpecError) as info:
        apply_parameters(params, {}, file="coordinator.xml")
    err = info.value
    assert err.code == "E0738"
    assert err.line == 4  # the first one missing (QA: no line was given)
    assert err.message == (
        "The following 2 parameters are required but were not defined and no default values "
        "are available: a, c"
    )
    assert err.file == "coordinator.xml"
    assert apply_parameters(params, {"a": "x", "c": "y"})["d"] == ""


def test_empty_parameter_name_is_e0739() -> None:
    data = (FIX / "coord-0.4.xml").read_bytes().replace(b"<name>freq</name>", b"<name> </name>")
    doc = xmlsafe.load_document("c.xml", data=data)
    with pytest.raises(SpecError) as info:
        read_parameters(doc)
    assert info.value.code == "E0739"
    assert info.value.line == 5


def test_a_parameter_default_that_names_other_properties_is_expanded() -> None:
    """QA: ``<value>${base}/out</value>`` reached the job as the literal ``${base}/out``; the
    job's own properties were expanded, defaults were added after that. Oozie resolves the
    configuration after adding them. EL (``${wf:id()}``) and unknown names stay for later."""
    params = [
        FormalParameter("out", "${base}/out"),
        FormalParameter("base", "${root}/base"),
        FormalParameter("later", "${wf:id()}-${nobody}"),
        FormalParameter("given", "${base}"),
    ]
    merged = apply_parameters(params, {"root": "/data", "given": "${root}"})
    assert merged["out"] == "/data/base/out"
    assert merged["base"] == "/data/base"
    assert merged["later"] == "${wf:id()}-${nobody}"
    assert merged["given"] == "${root}"  # given values are expanded where they are read


def test_parameter_defaults_that_refer_to_each_other_are_one_clear_error() -> None:
    params = [FormalParameter("a", "${b}"), FormalParameter("b", "x${a}")]
    with pytest.raises(SpecError) as err:
        apply_parameters(params, {})
    assert err.value.code == "E0302"
    assert "properties a, b refer to each other: ${a} -> ${b} -> ${a}" in err.value.message
