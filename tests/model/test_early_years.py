"""QA: a coordinator starting in year 1 (``0001-01-01T00:00Z``, which Oozie accepts) read
``2001-01-01 00:00`` in every text view, its JSON right: ``email.utils`` takes a year below
100 as two digits, and the C library's ``%Y`` writes year 1 as ``1``. West of GMT the first
hours of year 1 are in year 0, which ``datetime`` cannot hold: the Oozie front's
``-timezone`` failed with a traceback once the year was read right."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bundletui.commands.queries import short_rfc822
from bundletui.model.timeutil import format_rfc822, in_zone, parse_rfc822, year_first
from tests.cli import bundletui


@pytest.mark.parametrize("year", [1, 4, 68, 69, 99, 100, 1999, 2026, 9999])
def test_a_written_time_reads_back_as_written(year: int) -> None:
    when = datetime(year, 2, 28, 23, 59, 7, tzinfo=UTC)
    text = format_rfc822(when)
    assert parse_rfc822(text) == when
    assert year_first(parse_rfc822(text), seconds=True) == f"{year:04d}-02-28 23:59:07"
    assert short_rfc822(text) == f"{year:04d}-02-28 23:59"


def test_a_leap_day_of_an_early_year_reads_back() -> None:
    when = datetime(4, 2, 29, tzinfo=UTC)
    assert parse_rfc822(format_rfc822(when)) == when


def test_the_first_hours_of_year_1_west_of_gmt_are_in_year_0() -> None:
    local, years = in_zone(datetime(1, 1, 1, tzinfo=UTC), ZoneInfo("America/New_York"))
    assert (local.year + years, local.month, local.day) == (0, 12, 31)
    assert format_rfc822(datetime(1, 1, 1, tzinfo=UTC), "America/New_York").startswith(
        "Sun, 31 Dec 0000 19:03:"  # New York's local mean time, as tzdata has it then
    )


def test_every_text_view_of_a_year_1_coordinator_says_year_1(tmp_path: Path) -> None:
    (tmp_path / "wf.xml").write_text(
        '<dag-app xmlns="uri:bundletui:dag:1.0" name="w">'
        f'<job name="a"><fs><mkdir path="{tmp_path / "out"}"/></fs></job></dag-app>'
    )
    (tmp_path / "c.xml").write_text(
        '<coordinator-app xmlns="uri:oozie:coordinator:0.4" name="c" frequency="60"'
        ' start="0001-01-01T00:00Z" end="0099-12-31T23:59Z" timezone="UTC">'
        f"<action><workflow><app-path>{tmp_path / 'wf.xml'}</app-path></workflow></action>"
        "</coordinator-app>"
    )
    (tmp_path / "c.properties").write_text(f"oozie.coord.application.path={tmp_path}/c.xml\n")
    home = tmp_path / "home"
    coord = bundletui("submit", str(tmp_path / "c.properties"), home=home).stdout.split()[-1]
    wide = {"COLUMNS": "200"}
    listing = bundletui("jobs", "--type", "coordinator", home=home, env=wide).stdout
    assert "0001-01-01 00:00" in listing and "0099-12-31 23:59" in listing, listing
    info = bundletui("info", coord, home=home, env=wide).stdout
    assert "0001-01-01 00:00 GMT" in info and "0099-12-31 23:59 GMT" in info, info
    front = bundletui("oozie", "job", "-info", coord, home=home).stdout
    assert "Start Time  : 0001-01-01 00:00 GMT" in front, front
    west = bundletui("oozie", "job", "-info", coord, "-timezone", "America/New_York", home=home)
    assert west.returncode == 0, west
    assert "Start Time  : 0000-12-31 19:03 LMT" in west.stdout, west
    assert "End Time    : 0099-12-31 19:02 LMT" in west.stdout, west


def test_the_el_writes_an_early_year_in_four_digits() -> None:
    r = bundletui(
        "eval",
        "${coord:dateTzOffset('0001-01-01T05:00Z', 'America/New_York')}",
        "--nominal-time",
        "2026-01-01T00:00Z",
    )
    assert (r.returncode, r.stdout.strip()) == (0, "0001-01-01T00:03Z"), r  # was 1-01-01T…
