"""Input a user can give by mistake that used to end in a traceback (QA, bad-input pass): a
home that is a loop of links, an application path that cannot be looked at, bytes that are not
UTF-8 on the command line, and names with Rich markup or emoji codes in them, which are the
user's text and are printed as such."""

from __future__ import annotations

from pathlib import Path

from tests.cli import bundletui


def test_a_home_that_is_a_loop_of_links_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "h1").symlink_to(tmp_path / "h2")
    (tmp_path / "h2").symlink_to(tmp_path / "h1")
    for args in (("jobs",), ("purge",), ("run", "--exit-when-idle")):
        r = bundletui(*args, "--home", str(tmp_path / "h1"))
        assert r.returncode == 1 and "Traceback" not in r.stderr, r
        assert r.stderr.startswith("Error: EB002: cannot use "), r
        assert "loop of symbolic links" in r.stderr, r
    r = bundletui("eval", "${1 + 1}", home=tmp_path / "h1")  # needs no store: still works
    assert r.returncode == 0 and r.stdout.strip() == "2", r


def test_an_application_path_through_a_loop_of_links_says_so(tmp_path: Path) -> None:
    (tmp_path / "l1").symlink_to(tmp_path / "l2")
    (tmp_path / "l2").symlink_to(tmp_path / "l1")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "workflow.xml").symlink_to(tmp_path / "l1")
    home = tmp_path / "home"
    for target in ("l1", "d"):
        props = tmp_path / f"{target}.properties"
        props.write_text(f"oozie.wf.application.path={target}\n")
        for cmd in (("submit",), ("dryrun",)):
            r = bundletui(*cmd, str(props), home=home)
            assert r.returncode == 1 and "Traceback" not in r.stderr, r
            assert "Too many levels of symbolic links" in r.stderr, r  # not "does not exist"
            assert "hint: check the permissions of the path" in r.stderr, r
    assert not home.exists()  # nothing was made


def test_an_argument_that_is_not_utf8_is_refused_before_the_command(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    exe = str(Path(sys.executable).with_name("bundletui"))
    env = {**os.environ, "BUNDLETUI_HOME": str(tmp_path / "home")}
    for argv, code, prefix in (
        ([b"jobs", b"--filter", b"name=\xff"], 2, "Error: E0302: argument 3 is not UTF-8"),
        ([b"change", b"C", b"--value", b"concurrency=\xff"], 2, "Error: E0302: argument 4 is"),
        ([b"oozie", b"jobs", b"-filter", b"name=\xff"], 255, "Error: E0302 : E0302: argument 4"),
    ):
        r = subprocess.run([exe.encode(), *argv], env=env, capture_output=True, timeout=60)
        err = r.stderr.decode()
        assert r.returncode == code and err.startswith(prefix), (argv, r)
        assert "\\xff" in err and "iconv" in err and "Traceback" not in err, err
    assert not (tmp_path / "home").exists()


def test_an_application_in_a_directory_not_utf8_is_refused_and_stores_nothing(
    tmp_path: Path,
) -> None:
    """Its path cannot be stored as text: it was a traceback from the store's insert (QA)."""
    import os

    d = Path(os.fsdecode(bytes(tmp_path) + b"/d\xff"))
    d.mkdir()
    (d / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w"><job name="a"><shell><exec>true</exec>'
        "</shell></job></dag-app>"
    )
    (d / "job.properties").write_text("oozie.wf.application.path=wf.xml\n")
    home = tmp_path / "home"
    r = bundletui("submit", "job.properties", home=home, cwd=d)  # from inside it, as a user
    assert r.returncode == 2 and "Traceback" not in r.stderr, r
    assert r.stderr.startswith("Error: E0302: Invalid parameter [app path "), r.stderr
    assert "d\\xff/wf.xml]: a name in it is not valid UTF-8" in r.stderr, r.stderr
    assert not (home / "bundletui.db").exists()


def test_markup_and_emoji_codes_in_names_are_printed_as_written(tmp_path: Path) -> None:
    wf = tmp_path / "wf.xml"
    wf.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{tmp_path / "out"}"/></fs></job></dag-app>'
    )
    coord = tmp_path / "c.xml"
    coord.write_text(
        '<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="a[/]b :smile:" frequency="60"'
        ' start="2026-01-01T00:00Z" end="2026-01-01T02:00Z" timezone="UTC">'
        f"<action><workflow><app-path>{wf}</app-path><configuration><property><name>x</name>"
        "<value>:smile: [bold]y[/bold]</value></property></configuration></workflow></action>"
        "</coordinator-app>"
    )
    r = bundletui("dryrun", str(coord), home=tmp_path / "home")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r
    assert "Coordinator a[/]b :smile:: 2 actions" in r.stdout, r.stdout
    assert "x = :smile: [bold]y[/bold]" in r.stdout, r.stdout
    r = bundletui("eval", "${a:b:c()}")
    assert r.returncode == 1 and "${a:b:c()}" in r.stderr, r  # not ${a🅱c()}


def test_rerun_takes_oozies_rerun_properties_and_checks_them(tmp_path: Path) -> None:
    """QA: ``bundletui rerun W -D oozie.wf.rerun.…`` dropped the properties unchecked and
    reran every node (``failnodes=yes``, a node that does not exist, both keys at once);
    the Oozie front and the API refused them. Now they are read and checked alike."""
    out, out2 = tmp_path / "out", tmp_path / "out2"
    wf_xml = tmp_path / "wf.xml"
    wf_xml.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{out}"/></fs></job>'
        f'<job name="b"><depends>a</depends><fs><mkdir path="{out2}"/></fs></job></dag-app>'
    )
    props = tmp_path / "p.properties"
    props.write_text(f"oozie.wf.application.path={wf_xml}\n")
    home = tmp_path / "home"
    wf = bundletui("submit", str(props), "--start", home=home).stdout.strip()
    assert bundletui("run", "--exit-when-idle", home=home).returncode == 0
    for args, code in (
        (("-D", "oozie.wf.rerun.failnodes=yes"), "E0303"),
        (("-D", "oozie.wf.rerun.skip.nodes=nosuch"), "E0302"),
        (("-D", "oozie.wf.rerun.failnodes=true", "-D", "oozie.wf.rerun.skip.nodes=a"), "E0404"),
        (("--failed-nodes", "-D", "oozie.wf.rerun.skip.nodes=a"), "E0404"),
    ):
        r = bundletui("rerun", wf, *args, home=home)
        assert r.returncode != 0 and r.stderr.startswith(f"Error: {code}"), (args, r)
    out.rmdir()
    out2.rmdir()
    r = bundletui("rerun", wf, "-D", "oozie.wf.rerun.skip.nodes=a", home=home)
    assert r.returncode == 0, r
    assert bundletui("run", "--exit-when-idle", home=home).returncode == 0
    assert out2.is_dir() and not out.exists()  # a was skipped, b ran again


def test_a_dataset_with_an_empty_uri_template_is_refused_where_it_is(tmp_path: Path) -> None:
    """QA: an empty <uri-template> validated and submitted, and every action found its input
    "present" (the path "") and ran at once with no data at all."""
    coord = tmp_path / "c.xml"
    coord.write_text(
        '<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="e" frequency="60"\n'
        ' start="2026-01-01T00:00Z" end="2026-01-01T03:00Z" timezone="UTC">\n'
        "<datasets>\n"
        '<dataset name="raw" frequency="60" initial-instance="2026-01-01T00:00Z" timezone="UTC">\n'
        "  <uri-template> </uri-template>\n"
        "</dataset></datasets>\n"
        '<input-events><data-in name="in" dataset="raw"><instance>${coord:current(0)}'
        "</instance></data-in></input-events>\n"
        f"<action><workflow><app-path>{tmp_path}</app-path></workflow></action>\n"
        "</coordinator-app>\n"
    )
    props = tmp_path / "c.properties"
    props.write_text(f"oozie.coord.application.path={coord}\n")
    home = tmp_path / "home"
    for args in (("validate", str(coord)), ("submit", str(props)), ("dryrun", str(coord))):
        r = bundletui(*args, home=home)
        assert r.returncode == 1 and "Traceback" not in r.stderr, (args, r)
        assert r.stderr.startswith(f"Error: E1003: {coord.name}:5: ") or r.stderr.startswith(
            f"Error: E1003: {coord}:5: "
        ), (args, r)
        assert "dataset [raw] has an empty uri-template" in r.stderr, r
    assert not home.exists()
