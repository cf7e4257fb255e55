"""``<job-xml>`` files reach a shell action's configuration, read when the action starts.

A real application directory with Hadoop configuration files, submitted with the real CLI and
run by a real ``bundletui run`` on the simulated clock. The shell action prints properties of
the file ``$OOZIE_ACTION_CONF_XML`` names; ``bundletui log`` shows what it printed. The layers,
later winning: ``<global>``'s job-xml files in order, ``<global>``'s configuration, the action's
job-xml files in order, the action's configuration.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e4.conftest import Bt4

PRINT_CONF = (
    "import os, sys, xml.etree.ElementTree as T; "
    'c = {p.findtext("name"): p.findtext("value") '
    'for p in T.parse(os.environ["OOZIE_ACTION_CONF_XML"]).getroot()}; '
    'print("\\n".join(f"{k}={c.get(k)}" for k in sys.argv[1:]))'
)

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:1.0" name="jobxml">
  <global>
    <job-xml>conf/global-a.xml</job-xml>
    <job-xml>conf/global-b.xml</job-xml>
    <configuration>
      <property><name>p2</name><value>global-conf</value></property>
      <property><name>p3</name><value>global-conf</value></property>
    </configuration>
  </global>
  <start to="show"/>
  <action name="show">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <job-xml>${confDir}/action-a.xml</job-xml>
      <job-xml>file://SHARED</job-xml>
      <configuration>
        <property><name>p5</name><value>action-conf</value></property>
        <property><name>p9</name><value>${wf:name()}</value></property>
      </configuration>
      <exec>python3</exec>
      <argument>-c</argument>
      <argument>PRINT_CONF</argument>
      <argument>p1</argument><argument>p2</argument><argument>p3</argument>
      <argument>p4</argument><argument>p5</argument><argument>p6</argument>
      <argument>p8</argument><argument>p9</argument>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail">
    <message>${wf:errorCode('show')} ${wf:errorMessage('show')}</message>
  </kill>
  <end name="end"/>
</workflow-app>
"""


def conf_xml(**props: str) -> str:
    body = "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items()
    )
    return f"<configuration>{body}</configuration>\n"


def write_app(bt: Bt4, shared: Path) -> Path:
    """The workflow and its files; ``SHARED`` (outside the application) by absolute URI."""
    text = WORKFLOW.replace("PRINT_CONF", PRINT_CONF).replace("SHARED", str(shared))
    bt.apps.write("wf/workflow.xml", text)
    bt.apps.write("wf/conf/global-a.xml", conf_xml(p1="global-a", p6="global-a"))
    bt.apps.write("wf/conf/global-b.xml", conf_xml(p1="global-b", p2="global-b"))
    bt.apps.write("wf/conf/action-a.xml", conf_xml(p3="action-a", p4="action-a"))
    shared.write_text(conf_xml(p4="shared", p5="shared", p8="${not.rendered}"))
    return bt.apps.props("job.properties", {"oozie.wf.application.path": "wf", "confDir": "conf"})


def test_job_xml_properties_reach_the_shell_action_in_oozie_order(bt: Bt4) -> None:
    props = write_app(bt, bt.tmp / "shared.xml")
    wf = bt.submit_job(props, start=True)
    # read when the action starts, not at submit: an edit made since is what it gets
    bt.apps.write("wf/conf/global-a.xml", conf_xml(p1="global-a", p6="edited-after-submit"))
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")

    info = bt.info_json(wf)
    assert info["status"] == "SUCCEEDED", info
    printed = bt.cli("log", f"{wf}@show").stdout.split()
    assert printed == [
        "p1=global-b",  # the later global job-xml
        "p2=global-conf",  # <global> configuration over the global files
        "p3=action-a",  # the action's job-xml over <global>'s configuration
        "p4=shared",  # the later action job-xml (an absolute file:// path)
        "p5=action-conf",  # the action's configuration over everything
        "p6=edited-after-submit",
        "p8=${not.rendered}",  # a job-xml value is a Hadoop file's: no EL
        "p9=jobxml",  # an inline value is EL, rendered
    ], printed


def test_a_job_xml_the_action_cannot_read_fails_it(bt: Bt4) -> None:
    """Missing (its path has EL, so only the action's start can tell): JA008; not a
    configuration, or one declaring entities: JA009, and no entity is ever resolved."""
    props = write_app(bt, bt.tmp / "shared.xml")
    missing = bt.submit_job(props, {"confDir": "nothere"}, start=True)
    secret = bt.tmp / "secret.txt"
    secret.write_text("TOP-SECRET\n")
    bt.apps.write(
        "wf/evil/action-a.xml",
        f'<!DOCTYPE c [<!ENTITY s SYSTEM "file://{secret}">]>'
        "<configuration><property><name>p3</name><value>&s;</value></property></configuration>",
    )
    evil = bt.submit_job(props, {"confDir": "evil"}, start=True)
    bt.apps.write("wf/broken/action-a.xml", "<configuration><property>")
    broken = bt.submit_job(props, {"confDir": "broken"}, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")

    app = bt.apps.root / "wf"
    expected = {
        missing: ("JA008", f"job-xml [nothere/action-a.xml]: {app}/nothere/action-a.xml does not"),
        evil: ("JA009", "entity declarations are not allowed"),
        broken: ("JA009", "malformed XML"),
    }
    for wf, (code, words) in expected.items():
        info = bt.info_json(wf)
        assert info["status"] == "KILLED", info
        node = next(a for a in info["actions"] if a["name"] == "show")
        assert node["errorCode"] == code and words in node["errorMessage"], node
        assert info["errorMessage"].startswith(code), info
        assert bt.cli("log", f"{wf}@show").stdout.strip() == ""  # the program never ran
    # nowhere: not in the store, the logs, or an action configuration file
    assert not [p for p in bt.home.rglob("*") if p.is_file() and b"TOP-SECRET" in p.read_bytes()]


def test_submit_refuses_a_literal_job_xml_that_is_not_there(bt: Bt4) -> None:
    props = write_app(bt, bt.tmp / "shared.xml")
    (bt.apps.root / "wf" / "conf" / "global-b.xml").unlink()
    workflow = bt.apps.root / "wf" / "workflow.xml"
    for args in (("submit", str(props)), ("validate", str(workflow))):
        r = bt.fails(*args, code="JA008")
        assert f"{workflow}:4: job-xml [conf/global-b.xml] of <global>" in r.stderr, r
    assert not (bt.home / "bundletui.db").exists()  # nothing was submitted


def test_a_missing_job_xml_is_retried_under_retry_max_and_found_at_the_next_attempt(
    bt: Bt4,
) -> None:
    """Oozie's user retry takes JA008/JA009: with ``retry-max``, an action whose job-xml is
    not there yet is retried after ``retry-interval`` and runs once the file has landed."""
    props = write_app(bt, bt.tmp / "shared.xml")
    text = (bt.apps.root / "wf" / "workflow.xml").read_text()
    text = text.replace(
        '<action name="show">', '<action name="show" retry-max="2" retry-interval="10">'
    )
    bt.apps.write("wf/workflow.xml", text)
    wf = bt.submit_job(props, {"confDir": "later"}, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
    show = next(a for a in bt.info_json(wf)["actions"] if a["name"] == "show")
    assert bt.info_json(wf)["status"] == "RUNNING"
    assert show["errorCode"] == "JA008", show  # the first attempt's, a retry due at 00:10
    bt.apps.write("wf/later/action-a.xml", conf_xml(p3="later", p4="later"))
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:30Z")
    info = bt.info_json(wf)
    assert info["status"] == "SUCCEEDED", info
    show = next(a for a in info["actions"] if a["name"] == "show")
    assert (show["userRetryCount"], show["attempt"]) == (1, 2), show  # once, not twice
    assert "p3=later" in bt.cli("log", f"{wf}@show").stdout


def test_a_definition_of_any_file_name_resolves_job_xml_beside_it(bt: Bt4) -> None:
    """QA: a workflow file not named ``*.xml`` (README: a file of any name) had its directory
    taken as the file itself at run time: ``conf.xml`` beside ``flow.wf`` was looked for as
    ``flow.wf/conf.xml`` (JA008), though submit had found it, and ``wf:appPath()`` was the
    file."""
    props = write_app(bt, bt.tmp / "shared.xml")
    wf_dir = bt.apps.root / "wf"
    (wf_dir / "workflow.xml").rename(wf_dir / "flow.wf")
    props.write_text(
        props.read_text().replace(
            "oozie.wf.application.path=wf", "oozie.wf.application.path=wf/flow.wf"
        )
    )
    wf = bt.submit_job(props, start=True)
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
    assert bt.info_json(wf)["status"] == "SUCCEEDED", bt.info_json(wf)
    assert "p4=shared" in bt.cli("log", f"{wf}@show").stdout


def test_the_configuration_file_is_utf8_whatever_the_engines_locale(bt: Bt4) -> None:
    """QA (regression hunt): the file was written in the locale's encoding, so under an
    ASCII or latin-1 one a value with "€" failed the job (EB0501) since the file is written
    before the start; it is UTF-8, and says so."""
    props = write_app(bt, bt.tmp / "shared.xml")
    text = (bt.apps.root / "wf" / "workflow.xml").read_text()
    (bt.apps.root / "wf" / "workflow.xml").write_text(
        text.replace("${wf:name()}", "Preis 5 € 日本"), encoding="utf-8"
    )
    wf = bt.submit_job(props, {"confDir": "conf"}, start=True)
    bt.env.update({"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"})
    bt.env["PYTHONIOENCODING"] = "utf-8"  # the job prints the value; the file is the point
    bt.sim("2026-01-01T00:00Z", "2026-01-01T00:05Z")
    assert bt.info_json(wf)["status"] == "SUCCEEDED", bt.info_json(wf)
    conf = next((bt.home / "work" / wf).glob(".show.*.conf.xml")).read_bytes()
    assert conf.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    assert "Preis 5 € 日本".encode() in conf
