"""``bundletui jobs`` prints names and users as they are: square brackets are not markup."""

from __future__ import annotations

from pathlib import Path

from tests.cli import bundletui


def one_workflow(tmp_path: Path, name: str) -> Path:
    """A one-job DAG workflow named ``name`` and its job.properties."""
    (tmp_path / "workflow.xml").write_text(
        f'<dag-app xmlns="uri:bundletui:dag:1.0" name="{name}">'
        '<job name="a"><fs><mkdir path="${out}"/></fs></job></dag-app>'
    )
    props = tmp_path / "job.properties"
    props.write_text(f"oozie.wf.application.path=workflow.xml\nout={tmp_path / 'out'}\n")
    return props


def test_a_name_with_square_brackets_is_listed_as_written(tmp_path: Path) -> None:
    props = one_workflow(tmp_path, "quick-[daily] job")
    home = tmp_path / "home"
    assert bundletui("submit", str(props), home=home).returncode == 0
    listed = bundletui("jobs", home=home, env={"COLUMNS": "200"})
    assert listed.returncode == 0, listed
    assert "quick-[daily] job" in listed.stdout, listed.stdout


def test_relative_created_times_count_from_the_stores_clock(tmp_path: Path) -> None:
    """``startcreatedtime=-2d`` on a simulated store: two days before its simulated now, for
    every job type and every face (workflows were measured from the wall clock)."""
    props = one_workflow(tmp_path, "w")
    home = tmp_path / "home"
    at = ("--start-time", "2020-03-01T00:00Z", "--until", "2020-03-01T00:00Z")
    assert bundletui("run", "--clock", "simulated", *at, home=home).returncode == 0
    assert bundletui("submit", str(props), home=home).returncode == 0
    for when, found in (("startcreatedtime=-2d", True), ("endcreatedtime=-2d", False)):
        native = bundletui("jobs", "--type", "workflow", "--filter", when, "--json", home=home)
        assert (native.stdout.count('"w"') == 1) is found, (when, native)
        front = bundletui("oozie", "jobs", "-jobtype", "wf", "-filter", when, home=home)
        assert ("-W " in front.stdout) is found, (when, front)


def test_a_long_listing_is_plain_aligned_lines_and_quick(tmp_path: Path) -> None:
    """QA (scale): ``jobs --len 10000`` took 4.5 s (Rich measures every cell of a table),
    100,000 took 40 s. Past 500 jobs the listing is plain aligned lines: 10,000 in 0.7 s."""
    import sqlite3

    props = one_workflow(tmp_path, "quick-[daily] job")
    home = tmp_path / "home"
    first = bundletui("submit", str(props), home=home).stdout.strip()
    conn = sqlite3.connect(home / "bundletui.db")
    with conn:  # 600 more of the same shape, cheaper than 600 submits
        columns = [r[1] for r in conn.execute("PRAGMA table_info(wf_jobs)")]
        others = ", ".join(c for c in columns if c != "id")
        conn.execute(
            "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 600)"
            f" INSERT INTO wf_jobs (id, {others}) SELECT printf('%07d-copy-W', n), {others}"
            " FROM wf_jobs, k WHERE id = ?",
            (first,),
        )
    conn.close()
    listed = bundletui("jobs", "--len", "1000", home=home)
    assert listed.returncode == 0, listed
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["Job", "ID", "Name", "Status", "User", "Started", "Ended"]
    assert lines[0].startswith("Job ID  ")  # plain lines, not Rich's table (" Job ID")
    assert len(lines) == 1 + 601 + 1 and lines[-1] == "601 of 601 (offset 1)"
    starts = {line.index("PREP") for line in lines[1:-1]}
    assert len(starts) == 1, starts  # one column
    assert "quick-[daily] job" in lines[1]  # as written: no markup
    short = bundletui("jobs", "--len", "3", home=home).stdout  # a page: the table as before
    assert short.splitlines()[-1] == "3 of 601 (offset 1)" and short.startswith(" Job ID")
