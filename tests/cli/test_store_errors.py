"""A store that is missing, not a store, or somebody else's: one clear error, nothing made."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.cli import BUNDLETUI, bundletui

ROOT = Path(__file__).resolve().parents[2]
NAIVE_BAYES = ROOT / "sample_bundles" / "naive-bayes" / "job.properties"


def bt(*args: str) -> subprocess.CompletedProcess[str]:
    return bundletui(*args)


def test_reading_commands_on_a_missing_store_say_so_and_create_nothing(tmp_path: Path) -> None:
    home = tmp_path / "typo"
    for args in (
        ["jobs"],
        ["info", "0000001-260101000000000-bundletui-u-C"],
        ["kill", "0000001-260101000000000-bundletui-u-C"],
        ["log", "0000001-260101000000000-bundletui-u-W"],
    ):
        done = bt(*args, "--home", str(home))
        assert done.returncode == 1, args
        assert done.stderr.startswith(f"Error: EB001: no store at {home / 'bundletui.db'}"), args
        assert "Traceback" not in done.stderr
    assert not home.exists()


def test_a_failed_first_submit_creates_no_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path={tmp_path}/nowhere.xml\n")
    done = bt("submit", str(props), "--home", str(home))
    assert done.returncode == 1 and done.stderr.startswith("Error: E")
    assert not (home / "bundletui.db").exists()
    ok = bt("submit", str(NAIVE_BAYES), "--home", str(home))
    assert ok.returncode == 0, ok.stderr
    assert (home / "bundletui.db").exists()


def test_a_file_that_is_not_a_database_is_one_error_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "bundletui.db").write_text("hello, not a database\n")
    for args in (["jobs"], ["submit", str(NAIVE_BAYES)], ["run", "--exit-when-idle"]):
        done = bt(*args, "--home", str(tmp_path))
        assert done.returncode == 1, args
        lines = done.stderr.splitlines()
        assert lines[0].startswith("Error: EB002: cannot open store"), done.stderr
        assert (
            "not a database" in lines[0] and "hint: the file is not a bundletui store" in lines[1]
        )
        assert "Traceback" not in done.stderr
    assert (tmp_path / "bundletui.db").read_text() == "hello, not a database\n"


def someone_elses_database(home: Path, create_table: str) -> Path:
    db = home / "bundletui.db"
    conn = sqlite3.connect(db)
    conn.execute(create_table)
    conn.commit()
    conn.close()
    return db


def test_somebody_elses_sqlite_database_is_refused_not_given_our_tables(tmp_path: Path) -> None:
    db = someone_elses_database(
        tmp_path, "CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)"
    )
    done = bt("jobs", "--home", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: EB004: {db} is a SQLite database of something else")
    conn = sqlite3.connect(db)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    assert tables == ["accounts"] and version == 0


def test_a_refused_database_is_left_byte_for_byte_and_in_its_journal_mode(tmp_path: Path) -> None:
    """Refusing somebody else's database used to switch it to WAL first."""
    db = someone_elses_database(tmp_path, "CREATE TABLE foo (x)")
    before = db.read_bytes()
    done = bt("jobs", "--home", str(tmp_path))
    assert done.returncode == 1 and "EB004" in done.stderr
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundletui.db"]


def test_an_empty_store_file_is_no_store_for_a_reading_command(tmp_path: Path) -> None:
    (tmp_path / "bundletui.db").write_bytes(b"")
    done = bt("jobs", "--home", str(tmp_path))
    assert done.returncode == 1, done
    assert done.stderr.startswith(f"Error: EB001: no store at {tmp_path / 'bundletui.db'}: the")
    assert (tmp_path / "bundletui.db").stat().st_size == 0
    ok = bt("submit", str(NAIVE_BAYES), "--home", str(tmp_path))  # a submission may make it
    assert ok.returncode == 0, ok.stderr


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root's setpriv to take away the permission override (root writes anything)",
)
def test_a_read_only_store_file_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert bt("submit", str(NAIVE_BAYES), "--home", str(home)).returncode == 0
    (home / "bundletui.db").chmod(0o444)
    for args in (
        ["submit", str(NAIVE_BAYES)],
        ["oozie", "job", "-run", "-config", str(NAIVE_BAYES)],
    ):
        done = subprocess.run(
            ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner",
             BUNDLETUI, *args, "--home", str(home)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode in (1, 255), done
        assert "EB002" in done.stderr and "cannot write the store" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_a_home_that_is_a_file_says_so(tmp_path: Path) -> None:
    """QA: ``--home FILE`` said only ``[Errno 17] File exists``, with no hint."""
    home = tmp_path / "afile"
    home.write_text("not a directory\n")
    r = bundletui("submit", str(NAIVE_BAYES), home=home)
    assert r.returncode == 1, r
    assert r.stderr.startswith("Error: EB002: cannot open store"), r.stderr
    assert f"hint: --home names the store's directory, and {home} is a file" in r.stderr
    assert home.read_text() == "not a directory\n"


def test_reading_commands_on_a_home_that_is_a_file_or_empty_say_so(tmp_path: Path) -> None:
    """QA: ``jobs --home FILE`` said "no store at FILE/bundletui.db" (EB001), and
    ``--home ''`` (an unset variable in a script) meant the current directory."""
    home = tmp_path / "afile"
    home.write_text("x\n")
    r = bundletui("jobs", home=home)
    assert r.returncode == 1, r
    assert r.stderr.startswith(f"Error: EB002: cannot open store {home / 'bundletui.db'}: "), r
    assert f"{home} is a file" in r.stderr
    r = subprocess.run(
        [BUNDLETUI, "jobs", "--home", ""], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert r.returncode == 2, r
    assert "'--home'" in r.stderr and "is empty" in r.stderr, r.stderr
    # QA: it said "(env var: 'BUNDLETUI_HOME')" though the value came from the command line
    assert "env var" not in r.stderr and "'--home' (or BUNDLETUI_HOME)" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_a_damaged_store_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    """QA: a store missing one of its tables (a bad copy, a hand edit) gave a traceback."""
    home = tmp_path / "home"
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="d">'
        '<job name="a"><shell><exec>true</exec></shell></job></dag-app>'
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    wf = bundletui("submit", str(app / "job.properties"), home=home).stdout.strip()
    conn = sqlite3.connect(home / "bundletui.db")
    conn.execute("DROP TABLE wf_nodes")
    conn.close()
    for args in (["info", wf], ["oozie", "job", "-info", wf]):
        r = bundletui(*args, home=home)
        assert r.returncode in (1, 255), r
        assert "EB004: the store is damaged: no such table: wf_nodes" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_validate_of_a_properties_file_points_to_config(tmp_path: Path) -> None:
    """QA: ``validate job.properties`` said "malformed XML … fix the XML syntax"."""
    r = bundletui("validate", str(NAIVE_BAYES))
    assert r.returncode == 1, r
    assert "hint: this is not XML: a job.properties goes with --config" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        (
            "job.properties",
            b"a=1\nPK\x03\x04\x00\x00bin",
            ":2: not a properties file: it holds a NUL byte",
        ),
        ("job.xml", b"oozie.wf.application.path=x\n", "malformed XML"),
        (  # QA: an editor's "Unicode" was called a binary file
            "job.properties",
            "oozie.wf.application.path=x\n".encode("utf-16"),
            ": not a properties file as Java reads one: it is UTF-16 text",
        ),
        (
            "job.properties",
            "oozie.wf.application.path=x\n".encode("utf-16-le"),
            ": not a properties file as Java reads one: it is UTF-16 text",
        ),
    ],
    ids=["binary", "xml-that-is-not", "utf-16", "utf-16-no-bom"],
)
def test_a_config_that_is_binary_or_not_the_xml_it_claims_is_refused(
    tmp_path: Path, name: str, data: bytes, said: str
) -> None:
    """QA: a zip given as --config was read as properties (its bytes became keys), and a
    ``.xml`` holding properties was read as properties too."""
    config = tmp_path / name
    config.write_bytes(data)
    home = tmp_path / "home"
    r = bundletui("submit", str(config), home=home)
    assert r.returncode == 1, r
    assert said in r.stderr and str(config) in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not home.exists() or bundletui("jobs", home=home).stdout.count("-W") == 0


def test_control_characters_from_values_do_not_reach_the_terminal(tmp_path: Path) -> None:
    """QA: a name built from ``-D n=$'ab\\e[2J'`` cleared the operator's screen in ``info``
    and ``jobs``: control characters are shown as ``\\x1b`` instead."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "workflow.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="${n}">\n'
        '  <job name="a"><shell><exec>true</exec></shell></job>\n'
        "</dag-app>\n"
    )
    (app / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    home = tmp_path / "home"
    r = bundletui("submit", str(app / "job.properties"), "-D", "n=ab\x1b[2J\x1b]0;t\x07", home=home)
    assert r.returncode == 0, r
    wf = r.stdout.strip()
    # the oozie front too (left alone earlier: it printed them raw)
    for args in (("info", wf), ("jobs",), ("oozie", "job", "-info", wf), ("oozie", "jobs")):
        shown = bundletui(*args, home=home, env={"COLUMNS": "250"}).stdout
        assert "\x1b" not in shown and "\x07" not in shown, shown
        assert "ab\\x1b[2J\\x1b]0;t\\x07" in shown, shown


@pytest.mark.parametrize(
    "args",
    [
        ("submit", "{long}"),
        ("dryrun", "{long}"),
        ("jobs", "--home", "{long}"),
        ("validate", "{app}", "--config", "{long}"),
        ("oozie", "job", "-run", "-config", "{long}"),
    ],
)
def test_a_path_with_a_name_too_long_is_one_error_not_a_traceback(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """QA: a path with a name over 255 bytes raised ``OSError: File name too long``."""
    long = str(tmp_path / ("a" * 300))
    app = tmp_path / "workflow.xml"
    app.write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="a"><job name="x">'
        "<shell><exec>true</exec></shell></job></dag-app>\n"
    )
    home = tmp_path / "home"
    r = bundletui(*(a.format(long=long, app=app) for a in args), home=home)
    assert r.returncode == (255 if args[0] == "oozie" else 1), r
    assert "E0702" in r.stderr and "a name in it is too long" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not home.exists()


def test_an_app_path_that_is_a_pipe_is_not_a_regular_file_not_missing(tmp_path: Path) -> None:
    """QA: an application path naming a FIFO said "does not exist"."""
    os.mkfifo(tmp_path / "workflow.xml")
    (tmp_path / "job.properties").write_text("oozie.wf.application.path=workflow.xml\n")
    r = bundletui("submit", str(tmp_path / "job.properties"), home=tmp_path / "home")
    assert r.returncode == 1, r
    assert f"E0710: {tmp_path / 'job.properties'}: " in r.stderr, r.stderr
    assert f"{tmp_path / 'workflow.xml'} is not a regular file" in r.stderr, r.stderr
